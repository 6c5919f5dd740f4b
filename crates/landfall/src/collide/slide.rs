//! Sliding response (the 2004 paper's collision reaction, after Fauerby): move to just short of the
//! contact, back along the motion, project the remaining motion onto the sliding plane, repeat a
//! bounded number of times.
//! The sweep covers the whole motion, so no speed tunnels through a thin ridge.

use super::sphere_tree::{SweepTarget, TerrainContact};
use glam::DVec3;

/// Options of [`slide`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideParams {
    /// Distance kept between the sphere and the surface after a contact, along its normal: backing
    /// off along the motion, less where the motion came less far or grazes the surface.
    pub skin: f64,
    /// Most sweeps per move.
    pub max_iterations: usize,
}

impl Default for SlideParams {
    /// 1 mm skin, 5 sweeps.
    fn default() -> Self {
        Self { skin: 1e-3, max_iterations: 5 }
    }
}

/// Most contacts a move reports.
pub const MAX_CONTACTS: usize = 8;

/// Where a sliding move ended and what it touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideResult {
    /// Final center of the sphere.
    pub position: DVec3,
    /// The straight pieces of the path: `path[..pieces + 1]` are their ends, the start first.
    pub path: [DVec3; MAX_CONTACTS + 2],
    /// Number of pieces.
    pub pieces: usize,
    /// Contacts in the order they happened (first `contact_count`).
    pub contacts: [Option<TerrainContact>; MAX_CONTACTS],
    /// Number of contacts.
    pub contact_count: usize,
}

/// Moves a sphere of radius `r` from `c` by `motion`, sliding along the terrain.
pub fn slide(tree: &dyn SweepTarget, c: DVec3, r: f64, motion: DVec3, params: &SlideParams) -> SlideResult {
    let mut out = SlideResult {
        position: c,
        path: [c; MAX_CONTACTS + 2],
        pieces: 0,
        contacts: [None; MAX_CONTACTS],
        contact_count: 0,
    };
    if !(c.is_finite() && motion.is_finite() && r.is_finite() && r > 0.0) {
        return out;
    }
    let (mut pos, mut rest) = (c, motion);
    let iterations = params.max_iterations.min(MAX_CONTACTS);
    for _ in 0..iterations {
        if rest.length_squared() <= 1e-24 * (1.0 + pos.length_squared()) {
            break;
        }
        let Some(hit) = tree.sweep(pos, r, rest) else {
            pos += rest;
            out.pieces += 1;
            out.path[out.pieces] = pos;
            break;
        };
        let stop = stop_short(pos, rest, &hit, r, params.skin);
        let mut next = stop.position;
        // Pushed out along the normal (an embedded start): that must not cross anything either; if
        // it would, stay.
        let center = pos + rest * hit.contact.t;
        if stop.pushed_out
            && tree
                .sweep(center, r * (1.0 - 1e-9), next - center)
                .is_some_and(|h| h.contact.t < 1.0 && h.triangle != hit.triangle)
        {
            next = center;
        }
        if out.contact_count < MAX_CONTACTS {
            out.contacts[out.contact_count] = Some(hit);
            out.contact_count += 1;
        }
        out.pieces += 1;
        out.path[out.pieces] = next;
        pos = next;
        // The remaining motion, with what the back-off gave back, projected onto the sliding plane.
        let n = hit.contact.normal;
        let left = rest * (1.0 - hit.contact.t + stop.given_back);
        rest = left - n * left.dot(n).min(0.0);
    }
    out.position = pos;
    out
}

/// Where a shape stops after meeting `hit` while moving from `pos` by `motion`: [`stop_short`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stop {
    /// The new position.
    pub position: DVec3,
    /// The fraction of `motion` the back-off gave back (to be moved again, along the surface).
    pub given_back: f64,
    /// Whether the shape was embedded and pushed out along the contact's normal (off the swept
    /// line) instead of backed off along the motion (on it).
    pub pushed_out: bool,
}

/// Stops a shape `skin` short of the contact `hit` of its motion `motion` from `pos`, `reach` being
/// the shape's extent along the contact's normal (the radius, for a sphere). Backs off along the
/// motion (Fauerby), so the path stays on the swept line, never further back than the sweep came;
/// an embedded shape (nearer than `reach`) is pushed out along the normal instead.
pub(crate) fn stop_short(pos: DVec3, motion: DVec3, hit: &TerrainContact, reach: f64, skin: f64) -> Stop {
    let n = hit.contact.normal;
    let center = pos + motion * hit.contact.t;
    let gap = (center - hit.contact.point).dot(n);
    if gap < reach - 1e-9 {
        return Stop { position: center + n * (reach + skin - gap), given_back: 0.0, pushed_out: true };
    }
    let (d, length) = (motion.normalize_or_zero(), motion.length());
    let facing = -n.dot(d);
    let back = if facing > 1e-3 { (skin / facing).min(hit.contact.t * length) } else { 0.0 };
    Stop { position: center - d * back, given_back: back / length, pushed_out: false }
}
