//! Line of sight for the agent: whether it can walk straight from one point to another. The
//! segment is walked through the tree's leaves: a free leaf clears its stretch, a full one blocks,
//! and in a partial leaf the segment is tested exactly against the inflated discs near it (f64
//! distance below the inflated radius blocks; touching does not) and the steep cells in it.

use super::geom::{box_far2, segment_dist2, segment_meets_box, Disc};
use super::planner::Planner;
use super::tree::State;
use crate::world::query::dfloor;
use glam::DVec2;

impl Planner<'_> {
    /// Whether no inflated obstacle is closer to `p` than its radius.
    pub(crate) fn point_clear(&self, p: DVec2) -> bool {
        !self.obstacles.any_near(p, p, |d| d.center.distance_squared(p) < d.radius * d.radius)
    }

    /// Whether the agent can walk straight from `a` to `b` (both in the region): on the coarse
    /// grid where no steep ground is near, else by the walk.
    pub(crate) fn clear(&self, a: DVec2, b: DVec2) -> bool {
        match self.quick(a, b) {
            Some(c) => c,
            None => self.walk(a, b, |n, lo, hi| self.leaf_clear(n, a, b, lo, hi)),
        }
    }

    /// Line of sight on the coarse grid ([`Sight`](super::sight::Sight)): false outside the
    /// region (as the walk), `None` near steep ground. It agrees with the walk but where a
    /// segment only touches a full leaf's disc (distance the radius: clear here, as it should be).
    #[inline]
    fn quick(&self, a: DVec2, b: DVec2) -> Option<bool> {
        if !self.in_region(a, b) {
            return Some(false);
        }
        self.sight.clear(a, b)
    }

    /// Whether `a` and `b` are in the region.
    #[inline]
    fn in_region(&self, a: DVec2, b: DVec2) -> bool {
        let (lo, hi) = self.region();
        let inside = |p: DVec2| p.x >= lo.x && p.y >= lo.y && p.x <= hi.x && p.y <= hi.y;
        inside(a) && inside(b)
    }

    /// What stops the agent walking straight from `a` to `b`, both in the region (`None` when
    /// nothing does, exactly when [`clear`](Self::clear) holds): where no steep ground is near,
    /// the inflated disc closer to the segment than its radius that it enters first; else the
    /// first disc or steep cell the walk meets, in the first leaf along it that blocks (a full
    /// leaf's disc, one holding the leaf, or for a steep one its box).
    pub(crate) fn blocker(&self, a: DVec2, b: DVec2) -> Option<Blocker> {
        if !self.in_region(a, b) {
            return Some(Blocker::Region);
        }
        if let Some(first) = self.sight.first(a, b) {
            return first.map(Blocker::Disc);
        }
        let mut found = None;
        let ok = self.walk(a, b, |n, lo, hi| {
            found = self.leaf_blocker(n, a, b, lo, hi);
            found.is_none()
        });
        match (ok, found) {
            (true, _) => None,
            (false, Some(f)) => Some(f),
            (false, None) => Some(Blocker::Region),
        }
    }

    /// Walks the segment `a`–`b` through the leaves it meets, in order, while `leaf` (a leaf and
    /// its box) says it is clear there: whether it is clear all the way (false outside the region).
    #[inline]
    fn walk(&self, a: DVec2, b: DVec2, mut leaf: impl FnMut(u32, DVec2, DVec2) -> bool) -> bool {
        let t = &self.tree;
        let (lo, hi) = self.region();
        let inside = |p: DVec2| p.x >= lo.x && p.y >= lo.y && p.x <= hi.x && p.y <= hi.y;
        if !inside(a) || !inside(b) {
            return false;
        }
        let d = b - a;
        let side = t.side();
        let last = (side - 1) as i64;
        let mut s = 0.0f64;
        let mut prev = u32::MAX;
        // Each step enters a new leaf or nudges past a rounding; bounded anyway.
        for _ in 0..(8 * side as usize + 64) {
            let u = (a + d * s - t.origin) / t.cell;
            let ci = dfloor(u.x, d.x).clamp(0, last) as u32;
            let cj = dfloor(u.y, d.y).clamp(0, last) as u32;
            let n = t.leaf_at(ci, cj);
            let (blo, bhi) = t.bounds(n);
            if n != prev && !leaf(n, blo, bhi) {
                return false;
            }
            let mut exit = f64::INFINITY;
            for k in 0..2 {
                if d[k] > 0.0 {
                    exit = exit.min((bhi[k] - a[k]) / d[k]);
                } else if d[k] < 0.0 {
                    exit = exit.min((blo[k] - a[k]) / d[k]);
                }
            }
            if exit >= 1.0 {
                return true;
            }
            s = if n == prev || exit <= s { s + 1e-12 } else { exit };
            prev = n;
        }
        false
    }

    /// What blocks the segment `a`–`b` inside leaf `n` (box [lo, hi]), as
    /// [`leaf_clear`](Self::leaf_clear) decides it.
    fn leaf_blocker(&self, n: u32, a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> Option<Blocker> {
        match self.tree.nodes[n as usize].state {
            State::Free => None,
            State::Split(_) => Some(Blocker::Region),
            State::Full => {
                let mut disc = None;
                self.obstacles.any_near(lo, hi, |d| {
                    let inside = box_far2(lo, hi, d.center) <= d.radius * d.radius;
                    if inside {
                        disc = Some(d);
                    }
                    inside
                });
                Some(disc.map_or(Blocker::Box(lo, hi), Blocker::Disc))
            }
            State::Partial => {
                let mut disc = None;
                self.obstacles.any_near(lo, hi, |d| {
                    let hit = segment_dist2(a, b, d.center) < d.radius * d.radius;
                    if hit {
                        disc = Some(d);
                    }
                    hit
                });
                if let Some(d) = disc {
                    return Some(Blocker::Disc(d));
                }
                self.steep_hit(n, a, b).map(|(clo, chi)| Blocker::Box(clo, chi))
            }
        }
    }

    /// Whether the segment `a`–`b` is clear inside leaf `n` (box [lo, hi]).
    fn leaf_clear(&self, n: u32, a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> bool {
        match self.tree.nodes[n as usize].state {
            State::Free => true,
            State::Full | State::Split(_) => false,
            State::Partial => {
                if self.obstacles.any_near(lo, hi, |d| segment_dist2(a, b, d.center) < d.radius * d.radius) {
                    return false;
                }
                self.steep_hit(n, a, b).is_none()
            }
        }
    }

    /// The first steep cell of partial leaf `n` that the segment `a`–`b` meets: its box.
    fn steep_hit(&self, n: u32, a: DVec2, b: DVec2) -> Option<(DVec2, DVec2)> {
        let nd = self.tree.nodes[n as usize];
        let ((i0, i1), (j0, j1)) = (self.slope.span(nd.x, nd.x + 1), self.slope.span(nd.y, nd.y + 1));
        for j in j0..j1 {
            for i in i0..i1 {
                if self.slope.blocked(i, j) {
                    let (clo, chi) = self.slope.cell_box(i, j);
                    if segment_meets_box(a, b, clo, chi) {
                        return Some((clo, chi));
                    }
                }
            }
        }
        None
    }
}

/// What blocks a segment: an inflated disc, a closed box of steep ground (or a full steep leaf),
/// or the region's edge (or a leaf the walk could not place).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Blocker {
    /// An inflated disc closer to the segment than its radius.
    Disc(Disc),
    /// A closed box the segment meets.
    Box(DVec2, DVec2),
    /// Outside the region.
    Region,
}
