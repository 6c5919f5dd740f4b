//! Sliding response (the 2004 paper's collision reaction, after Fauerby): move to just short of the
//! contact, back along the motion, project the remaining motion onto the sliding plane, repeat a
//! bounded number of times.
//! The sweep covers the whole motion, so no speed tunnels through a thin ridge.

use super::target::{SweepTarget, TerrainContact};
use crate::params::{count, length, ParamError};
use glam::DVec3;

/// Options of [`slide`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct SlideParams {
    /// Distance kept between the sphere and the surface after a contact, along its normal (less
    /// where the contact came within it of the move's start: the back-off stops there).
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

impl SlideParams {
    /// The most sweeps per move [`validate`](Self::validate) accepts: a move records at most this
    /// many contacts.
    pub const MAX_ITERATIONS: usize = MAX_CONTACTS;

    /// Checks every field: `skin` finite and ≥ 0, `max_iterations` in
    /// 1..=[`MAX_ITERATIONS`](Self::MAX_ITERATIONS).
    ///
    /// ```
    /// use landfall::collide::SlideParams;
    ///
    /// assert!(SlideParams::default().validate().is_ok());
    /// assert_eq!(SlideParams::default().with_skin(f64::NAN).validate().unwrap_err().field, "skin");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        length("skin", self.skin, false)?;
        count("max_iterations", self.max_iterations, 1..=Self::MAX_ITERATIONS)
    }
}

crate::with_setters!(SlideParams {
    skin: f64 => with_skin,
    max_iterations: usize => with_max_iterations,
});

/// Most contacts a move reports.
pub const MAX_CONTACTS: usize = 8;

/// Most straight pieces a move's path has: per contact, one along the motion and one out along the
/// contact's normal, and a last free one.
pub const MAX_PIECES: usize = 2 * MAX_CONTACTS + 1;

/// Where a sliding move ended and what it touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideResult {
    /// Final center of the sphere.
    pub position: DVec3,
    /// The straight pieces of the path: `path[..pieces + 1]` are their ends, the start first.
    pub path: [DVec3; MAX_PIECES + 1],
    /// Number of pieces.
    pub pieces: usize,
    /// Contacts in the order they happened (first `contact_count`).
    pub contacts: [Option<TerrainContact>; MAX_CONTACTS],
    /// Number of contacts.
    pub contact_count: usize,
}

/// Moves a sphere of radius `r` from `c` by `motion`, sliding along the terrain; refuses invalid
/// `params` ([`SlideParams::validate`]). A sphere with a position, motion or radius that is not
/// finite (or a radius ≤ 0) stays where it is.
pub fn slide(
    tree: &dyn SweepTarget,
    c: DVec3,
    r: f64,
    motion: DVec3,
    params: &SlideParams,
) -> Result<SlideResult, ParamError> {
    params.validate()?;
    let mut out = SlideResult {
        position: c,
        path: [c; MAX_PIECES + 1],
        pieces: 0,
        contacts: [None; MAX_CONTACTS],
        contact_count: 0,
    };
    if !(c.is_finite() && motion.is_finite() && r.is_finite() && r > 0.0) {
        return Ok(out);
    }
    let (mut pos, mut rest) = (c, motion);
    for _ in 0..params.max_iterations {
        if rest.length_squared() <= 1e-24 * (1.0 + pos.length_squared()) {
            break;
        }
        let Some(hit) = tree.sweep(pos, r, rest) else {
            pos += rest;
            out.pieces += 1;
            out.path[out.pieces] = pos;
            break;
        };
        let stop = stop_short(tree, pos, rest, &hit, r, params.skin, |c, v| tree.sweep(c, r * (1.0 - 1e-9), v));
        if out.contact_count < MAX_CONTACTS {
            out.contacts[out.contact_count] = Some(hit);
            out.contact_count += 1;
        }
        // Back along the swept line (as clear as the sweep found it), then out along the normal: a
        // piece each.
        for p in [stop.on_line, stop.position] {
            if p != pos {
                pos = p;
                out.pieces += 1;
                out.path[out.pieces] = pos;
            }
        }
        // The remaining motion, with what the back-off gave back, projected onto the sliding plane.
        let n = hit.contact.normal;
        let left = rest * (1.0 - hit.contact.t + stop.given_back);
        rest = left - n * left.dot(n).min(0.0);
    }
    out.position = pos;
    Ok(out)
}

/// Where a shape stops after meeting `hit` while moving from `pos` by `motion`: [`stop_short`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stop {
    /// The point on the swept line the shape backs off to.
    pub on_line: DVec3,
    /// The new position: `on_line`, or out from it along the contact's normal (embedded, grazing).
    pub position: DVec3,
    /// The fraction of `motion` the back-off gave back (to be moved again, along the surface).
    pub given_back: f64,
}

/// Stops a shape `skin` short of the contact `hit` of its motion `motion` from `pos` against
/// `tree`, `reach` being the shape's extent along the contact's normal (the radius, for a sphere).
///
/// Backs off along the motion (Fauerby), so the path stays on the swept line, but never further
/// back than the sweep came (a contact near the start is then left short of the skin; the motion
/// given back is projected onto the surface, so the next sweep does not meet it again). An embedded
/// shape, or one whose contact is grazing (backing off along the motion would gain next to nothing
/// along the normal, and a shape left touching a wall it moves along would meet it again at once,
/// and stall), is pushed out along the normal instead, unless the push would do harm; it then
/// stays on the swept line:
/// - A grazing push (optional: the shape is not in the terrain) must meet no other triangle: in a
///   crease narrower than the skin it would enter the other side. `cast_inside` sweeps the shape
///   shrunk by a hair, so that what it merely touches is not met.
/// - An embedded push (a repair) may come closer to other triangles the shape is in — in a crease,
///   later contacts push it out of them; a check for that would keep shapes embedded in every
///   sharp crease — but its center must not cross a surface: wedged between a floor and a thin deck
///   over it, a push out of either would carry it through the other.
pub(crate) fn stop_short(
    tree: &dyn SweepTarget,
    pos: DVec3,
    motion: DVec3,
    hit: &TerrainContact,
    reach: f64,
    skin: f64,
    cast_inside: impl FnOnce(DVec3, DVec3) -> Option<TerrainContact>,
) -> Stop {
    let n = hit.contact.normal;
    let center = pos + motion * hit.contact.t;
    let gap = (center - hit.contact.point).dot(n);
    let (d, length) = (motion.normalize_or_zero(), motion.length());
    let facing = -n.dot(d);
    let (embedded, grazing) = (gap < reach - 1e-9, facing <= 1e-3);
    let back = if embedded || grazing { 0.0 } else { (skin / facing).min(hit.contact.t * length) };
    let on_line = center - d * back;
    let push = if embedded || grazing { n * (reach + skin - gap).max(0.0) } else { DVec3::ZERO };
    let harmful = || {
        if embedded {
            crosses(tree, on_line, push)
        } else {
            cast_inside(on_line, push).is_some_and(|h| h.contact.t < 1.0 && h.triangle != hit.triangle)
        }
    };
    let position = if push == DVec3::ZERO || harmful() { on_line } else { on_line + push };
    Stop { on_line, position, given_back: back / length }
}

/// Whether the point `c` moving by `v` crosses (or comes within a hair of) a triangle of `tree`: a
/// sweep of a sphere of a hair's radius, exact at edges and vertices. It starts a few hairs along
/// `v`, so that a center lying on the surface it is pushed out of does not block its own push. Out
/// of line: embedded pushes are rare, and the sweep would swell the callers' loops.
#[cold]
#[inline(never)]
fn crosses(tree: &dyn SweepTarget, c: DVec3, v: DVec3) -> bool {
    let hair = 1e-9 * (1.0 + c.abs().max_element());
    let lead = v * (4.0 * hair / v.length()).min(0.5);
    tree.sweep(c + lead, hair, v - lead).is_some()
}
