//! The brute-force reference for what the viewer sees: every pair of entities in view tested for
//! overlap (O(n²)), and every entity in view in two frames in a row tested for a jump faster than
//! its speed.

use super::behaviours::Behaviours;
use super::scene::{Scene, Viewer};
use glam::DVec2;

/// What the viewer saw in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Entities in view and shown.
    pub in_view: usize,
    /// Pairs of them that overlap (closer than the sum of their radii).
    pub overlaps: usize,
    /// Those also in view the frame before that moved farther than speed × time since.
    pub teleports: usize,
}

/// Pairs of discs `(centre, radius)` closer than the sum of their radii, by testing every pair.
pub fn overlapping_pairs(discs: &[(DVec2, f64)]) -> usize {
    let mut n = 0;
    for (k, a) in discs.iter().enumerate() {
        n += discs[k + 1..].iter().filter(|b| a.0.distance(b.0) < a.1 + b.1).count();
    }
    n
}

/// Watches a run frame by frame from outside: which entities are in view (by the importance
/// parameters' definition, evaluated afresh for every entity), whether any two overlap, whether any
/// jumped.
#[derive(Clone, Debug, Default)]
pub struct Checker {
    prev: Vec<Option<DVec2>>,
    prev_t: f64,
    discs: Vec<(DVec2, f64)>,
}

impl Checker {
    /// A checker that has seen nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Looks at every entity of `b` after a frame.
    pub fn observe(&mut self, b: &Behaviours, viewer: &Viewer, scene: &(impl Scene + ?Sized)) -> Seen {
        let p = &b.params().importance;
        let dt = b.now() - self.prev_t;
        self.prev.resize(b.len(), None);
        self.discs.clear();
        let mut seen = Seen::default();
        for i in 0..b.len() {
            let e = b.entity(i);
            let at = b.position(i);
            let visible = b.shown(i)
                && p.in_view(e.size(), at.distance(viewer.position), scene.visible(viewer.position, at, e.radius));
            if visible {
                self.discs.push((at, e.radius));
                if let Some(before) = self.prev[i] {
                    let tolerance = 1e-9 * (1.0 + at.abs().max_element());
                    seen.teleports += usize::from(before.distance(at) > e.speed * dt + tolerance);
                }
            }
            self.prev[i] = visible.then_some(at);
        }
        seen.in_view = self.discs.len();
        seen.overlaps = overlapping_pairs(&self.discs);
        self.prev_t = b.now();
        seen
    }
}
