//! Sliding response (the 2004 paper's collision reaction, after Fauerby): move to just short of the
//! contact, project the remaining motion onto the sliding plane, repeat a bounded number of times.
//! The sweep covers the whole motion, so no speed tunnels through a thin ridge.

use super::sphere_tree::{SweepTarget, TerrainContact};
use glam::DVec3;

/// Options of [`slide`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideParams {
    /// Distance kept between the sphere and the surface after a contact.
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
        let n = hit.contact.normal;
        let center = pos + rest * hit.contact.t;
        // Just short of the contact: at least `skin` off the surface along its normal (this also
        // pushes an embedded start out).
        let gap = (center - hit.contact.point).dot(n);
        let mut next = center + n * (r + params.skin - gap).max(0.0);
        // Backing off along the normal must not cross anything either: if it would, stay.
        if tree
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
        // The remaining motion, projected onto the sliding plane.
        let left = rest * (1.0 - hit.contact.t);
        rest = left - n * left.dot(n).min(0.0);
    }
    out.position = pos;
    out
}
