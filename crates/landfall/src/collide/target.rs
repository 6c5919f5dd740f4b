//! What a shape can be swept against ([`SweepTarget`]): any terrain through its candidate triangles
//! ([`TerrainSweep`]), a few triangles gathered once for repeated sweeps in one place ([`Nearby`]),
//! or a [`SphereTree`](super::SphereTree); and the bookkeeping every target shares to keep the
//! earliest contact of a sweep.

use super::sweep::{
    finish_sphere_contact, sweep_capsule_triangle, sweep_sphere_triangle, sweep_sphere_unfinished, Contact,
    PreparedTriangle, SweptBox,
};
use crate::geom::{Aabb, TriangleId};
use crate::terrain::Terrain;
use arrayvec::ArrayVec;
use glam::DVec3;

/// Something a sphere can be swept against: a [`SphereTree`](super::SphereTree), or any terrain through its candidate
/// triangles ([`TerrainSweep`]).
pub trait SweepTarget: Send + Sync {
    /// Earliest contact of a sphere of radius `r` whose center moves from `c` along `v` (t in [0, 1]).
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact>;

    /// The same for an axis-aligned ellipsoid of semi-axes `radii` (Fauerby: scale space so it is
    /// a unit sphere, sweep, scale back). Triangles are gathered for the sphere of the largest
    /// radius, then tested in the scaled space.
    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact>;

    /// The same for a capsule of radius `r` around the segment `a`–`b` (world coordinates).
    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact>;

    /// Calls `visit` with every triangle that may touch `region` (a superset is allowed): for
    /// callers that sweep several times in one place ([`Nearby`]).
    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3]));
}

/// How many triangles a [`Nearby`] holds.
pub const NEARBY_CAPACITY: usize = 96;

/// The candidate triangles of one region, gathered once from another target, for several sweeps
/// inside it — a character controller's move makes 4–10. Sweeps that reach outside the region, or
/// any sweep when the region held more than [`NEARBY_CAPACITY`] triangles, go to the other target.
/// Lives on the stack: no allocation.
pub struct Nearby<'a> {
    base: &'a dyn SweepTarget,
    region: Aabb,
    ids: ArrayVec<TriangleId, NEARBY_CAPACITY>,
    tris: ArrayVec<PreparedTriangle, NEARBY_CAPACITY>,
    complete: bool,
}

impl<'a> Nearby<'a> {
    /// Gathers `base`'s triangles for `region` and calls `f` with them. (A closure rather than a
    /// constructor: the store is ~15 KB, which a returned value would copy.)
    pub fn with<R>(base: &'a dyn SweepTarget, region: Aabb, f: impl FnOnce(&Nearby<'a>) -> R) -> R {
        let mut n = Self { base, region, ids: ArrayVec::new(), tris: ArrayVec::new(), complete: true };
        n.gather_from_base();
        f(&n)
    }

    fn gather_from_base(&mut self) {
        let (ids, tris, complete) = (&mut self.ids, &mut self.tris, &mut self.complete);
        self.base.gather(&self.region, &mut |id, t| {
            if tris.is_full() {
                *complete = false;
            } else {
                ids.push(id);
                tris.push(PreparedTriangle::new(t));
            }
        });
    }

    /// Whether a sweep whose swept volume fits in the box [lo, hi] can be answered here.
    #[inline]
    fn covers(&self, lo: DVec3, hi: DVec3) -> bool {
        self.complete && lo.cmpge(self.region.min).all() && hi.cmple(self.region.max).all()
    }

    /// The earliest contact of `test(triangle, found so far)` over the gathered triangles.
    fn earliest(
        &self,
        v: DVec3,
        test: impl Fn(&PreparedTriangle, &Earliest) -> Option<Contact>,
    ) -> Option<TerrainContact> {
        let mut found = Earliest::new(v);
        for (tri, &id) in self.tris.iter().zip(&self.ids) {
            found.offer(test(tri, &found), id);
        }
        found.best
    }
}

impl SweepTarget for Nearby<'_> {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        if !self.covers(c.min(c + v) - reach, c.max(c + v) + reach) {
            return self.base.sweep(c, r, v);
        }
        let whole = SweptBox::new(c, r, v, 1.0);
        self.earliest(v, |tri, found| sphere_against(c, r, v, tri, &whole, found)).map(|b| b.sphere_finished(c, v))
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        let reach = radii + DVec3::splat(1e-9);
        if !self.covers(c.min(c + v) - reach, c.max(c + v) + reach) {
            return self.base.sweep_ellipsoid(c, radii, v);
        }
        self.earliest(v, |tri, found| sweep_scaled(c, radii, v, &tri.tri, found.limit()))
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let (lo, hi) = (a.min(b).min(a.min(b) + v) - reach, a.max(b).max(a.max(b) + v) + reach);
        if !self.covers(lo, hi) {
            return self.base.sweep_capsule(a, b, r, v);
        }
        self.earliest(v, |tri, found| sweep_capsule_triangle(a, b, r, v, &tri.tri, found.limit()))
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        if self.covers(region.min, region.max) {
            for (tri, &id) in self.tris.iter().zip(&self.ids) {
                visit(id, tri.tri);
            }
        } else {
            self.base.gather(region, visit);
        }
    }
}

/// Any terrain as a sweep target: the triangles its [`Terrain::triangles_in`] gives for the box
/// around the motion (a heightfield answers from its grid, no extra structure).
pub struct TerrainSweep<'a>(pub &'a dyn Terrain);

impl SweepTarget for TerrainSweep<'_> {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let region = Aabb::new(c.min(c + v) - reach, c.max(c + v) + reach);
        let whole = SweptBox::new(c, r, v, 1.0);
        let mut found = Earliest::new(v);
        self.0.triangles_in(&region, &mut |id, tri| {
            let contact = sphere_against_corners(c, r, v, tri, &whole, &found);
            found.offer(contact, id)
        });
        found.best.map(|b| b.sphere_finished(c, v))
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.0.triangles_in(region, visit)
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let reach = DVec3::splat(r + 1e-9);
        let lo = a.min(b).min(a.min(b) + v) - reach;
        let hi = a.max(b).max(a.max(b) + v) + reach;
        let mut found = Earliest::new(v);
        self.0.triangles_in(&Aabb::new(lo, hi), &mut |id, tri| {
            let contact = sweep_capsule_triangle(a, b, r, v, &tri, found.limit());
            found.offer(contact, id)
        });
        found.best
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        if radii.x == radii.y && radii.y == radii.z {
            return self.sweep(c, radii.x, v);
        }
        let reach = radii + DVec3::splat(1e-9);
        let region = Aabb::new(c.min(c + v) - reach, c.max(c + v) + reach);
        let mut found = Earliest::new(v);
        self.0.triangles_in(&region, &mut |id, tri| {
            let contact = sweep_scaled(c, radii, v, &tri, found.limit());
            found.offer(contact, id)
        });
        found.best
    }
}

/// Swept ellipsoid against one triangle, by scaling space.
pub(super) fn sweep_scaled(c: DVec3, radii: DVec3, v: DVec3, tri: &[DVec3; 3], t_max: f64) -> Option<Contact> {
    if radii.x == radii.y && radii.y == radii.z {
        return sweep_sphere_triangle(c, radii.x, v, tri, t_max);
    }
    let inv = radii.recip();
    let scaled = tri.map(|p| p * inv);
    // Scaling space leaves the fraction of the motion unchanged.
    let ct = sweep_sphere_triangle(c * inv, 1.0, v * inv, &scaled, t_max)?;
    // Normals transform by the inverse transpose of the scale: multiply by 1/radii again.
    let back = |n: DVec3| (n * inv).normalize_or_zero();
    Some(Contact { t: ct.t, point: ct.point * radii, normal: back(ct.normal), face: back(ct.face) })
}

/// A contact with the terrain, with the triangle that was touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainContact {
    /// The contact (fraction of the motion, point, normal).
    pub contact: Contact,
    /// The touched triangle.
    pub triangle: TriangleId,
}

impl TerrainContact {
    /// The earliest contact of a sphere moving from `c` along `v`, its normal computed (the sphere
    /// tests leave it zero: only the earliest contact needs one).
    #[inline]
    pub(super) fn sphere_finished(self, c: DVec3, v: DVec3) -> Self {
        Self { contact: finish_sphere_contact(self.contact, c, v), ..self }
    }
}

/// The earliest contact so far of one sweep along `v`, and how late a triangle tested next may
/// touch and still matter.
pub(super) struct Earliest {
    v: DVec3,
    pub(super) best: Option<TerrainContact>,
    /// How far into the motion a contact can still matter: up to the end of the tie window of
    /// [`better`] around the earliest contact so far (all of it before any contact).
    limit: f64,
    /// With the earliest contact at the very start (its tie window reaches back past t = 0), how
    /// much its face opposes the motion: only a face opposing it more can win.
    at_start: Option<f64>,
}

impl Earliest {
    pub(super) fn new(v: DVec3) -> Self {
        Self { v, best: None, limit: 1.0, at_start: None }
    }

    /// How far into the motion a contact can still matter.
    #[inline(always)]
    pub(super) fn limit(&self) -> f64 {
        self.limit
    }

    /// [`Self::limit`] for a sphere against a triangle of unit normal `face`, `None` when no contact
    /// with it can matter. A sphere's contact reports `face` or `-face`, the side its center is on;
    /// once the earliest contact is at the start, a contact whose side does not oppose the motion
    /// more cannot win the tie, and nothing can be earlier — the common case of a sphere resting
    /// on the ground, whose other nearby triangles then need no test. `s0` is the start's signed
    /// distance to the triangle's plane: when the center cannot reach the plane by the limit (with
    /// `margin` for rounding), the side is the start's; otherwise either side may be reported.
    #[inline(always)]
    pub(super) fn limit_for_side(&self, face: DVec3, s0: f64, margin: f64) -> Option<f64> {
        let Some(facing) = self.at_start else { return Some(self.limit) };
        let nv = face.dot(self.v);
        let opposing = if s0.abs() > nv.abs() * self.limit + margin {
            // The side's `·(−v)`: −nv on the front, nv on the back.
            if s0 > 0.0 {
                -nv
            } else {
                nv
            }
        } else {
            nv.abs()
        };
        (opposing > facing).then_some(self.limit)
    }

    /// Keeps `contact` (with `triangle`) if it is [`better`] than the earliest so far.
    #[inline]
    pub(super) fn offer(&mut self, contact: Option<Contact>, triangle: TriangleId) {
        let Some(ct) = contact else { return };
        if self.best.is_none_or(|b| better(&ct, &b.contact, self.v)) {
            self.best = Some(TerrainContact { contact: ct, triangle });
            let window = tie_window(ct.t);
            self.limit = (ct.t + window).min(1.0);
            self.at_start = (ct.t < window).then(|| ct.face.dot(-self.v));
        }
    }
}

/// Contacts this close to time `t` are simultaneous.
#[inline(always)]
pub(super) fn tie_window(t: f64) -> f64 {
    1e-12 * (1.0 + t)
}

/// Earlier wins; at the same time (a shared edge or vertex), the face most opposed to the motion
/// (the tread under a falling sphere, the riser before a walking one).
pub(super) fn better(a: &Contact, b: &Contact, v: DVec3) -> bool {
    if (a.t - b.t).abs() <= tie_window(b.t) {
        a.face.dot(-v) > b.face.dot(-v)
    } else {
        a.t < b.t
    }
}

/// A sphere of radius `r` moving from `c` along `v` against a prepared triangle, as late as
/// `found` allows ([`Earliest::limit_for_side`]); `whole` is the [`SweptBox`] of the whole motion.
/// The contact's normal is left to [`TerrainContact::sphere_finished`].
#[inline(always)]
pub(super) fn sphere_against(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    if !whole.reaches(tri.lo, tri.hi) {
        return None;
    }
    sphere_against_reached(c, r, v, tri, whole, found)
}

/// [`sphere_against`] a triangle whose box `whole` is known to reach.
#[inline(always)]
pub(super) fn sphere_against_reached(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: &PreparedTriangle,
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    sweep_sphere_unfinished(c, r, v, tri, whole, |s0| found.limit_for_side(tri.face, s0, side_margin(c, r)))
}

/// How far from a triangle's plane a sphere's start must be (beyond what the motion covers) for
/// the side of any contact to be certain: far more than the rounding of the points compared.
#[inline(always)]
pub(super) fn side_margin(c: DVec3, r: f64) -> f64 {
    1e-9 * (1.0 + r + c.abs().max_element())
}

/// [`sphere_against`] a triangle given by its corners: it is prepared only if `whole` reaches its
/// box (the normal's square root comes after that reject).
#[inline(always)]
pub(super) fn sphere_against_corners(
    c: DVec3,
    r: f64,
    v: DVec3,
    tri: [DVec3; 3],
    whole: &SweptBox,
    found: &Earliest,
) -> Option<Contact> {
    sphere_against_reached(c, r, v, &PreparedTriangle::reached(tri, whole)?, whole, found)
}
