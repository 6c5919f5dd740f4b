//! Sweeps over any structure searched by the 2004 paper's access algorithm (3.2): a sphere around
//! the whole motion against bounding spheres picks the candidate triangles (the global motion
//! test), and each of them is swept, the earliest contact so far limiting the rest. The stored
//! sphere tree and the tiles in the view differ only in how they walk their spheres.

use super::sweep::{sweep_capsule_triangle, Contact, SweptBox};
use super::target::{sphere_against_corners, sweep_scaled, Earliest, SweepTarget, TerrainContact};
use crate::geom::{Aabb, TriangleId};
use glam::DVec3;

/// Every structure of bounding spheres is a sweep target through the functions below.
impl<W: SphereWalk + Send + Sync> SweepTarget for W {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        sweep(self, c, r, v)
    }

    fn sweep_ellipsoid(&self, c: DVec3, radii: DVec3, v: DVec3) -> Option<TerrainContact> {
        sweep_ellipsoid(self, c, radii, v)
    }

    fn sweep_capsule(&self, a: DVec3, b: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        sweep_capsule(self, a, b, r, v)
    }

    fn gather(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        gather(self, region, visit)
    }
}

/// A structure of bounding spheres over triangles.
pub(super) trait SphereWalk {
    /// Calls `visit` with every triangle of the leaves whose spheres meet the sphere at `mc` of
    /// radius `mr` (a superset of the triangles that sphere meets).
    fn walk(&self, mc: DVec3, mr: f64, visit: impl FnMut(TriangleId, &[DVec3; 3]));
}

/// The earliest contact over the candidates of the sphere at `mc` of radius `mr`; `test` sweeps
/// one triangle as late as `found` allows.
fn earliest<W: SphereWalk + ?Sized>(
    w: &W,
    mc: DVec3,
    mr: f64,
    v: DVec3,
    test: impl Fn(&[DVec3; 3], &Earliest) -> Option<Contact>,
) -> Option<TerrainContact> {
    let mut found = Earliest::new(v);
    w.walk(mc, mr, |id, tri| {
        let contact = test(tri, &found);
        found.offer(contact, id)
    });
    found.best
}

/// A sphere of radius `r` moving from `c` along `v` (t in [0, 1]).
pub(super) fn sweep<W: SphereWalk + ?Sized>(w: &W, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
    let whole = SweptBox::new(c, r, v, 1.0);
    earliest(w, c + v * 0.5, v.length() * 0.5 + r, v, |tri, found| sphere_against_corners(c, r, v, *tri, &whole, found))
        .map(|b| b.sphere_finished(c, v))
}

/// An axis-aligned ellipsoid of semi-axes `radii` (see `SweepTarget::sweep_ellipsoid`).
pub(super) fn sweep_ellipsoid<W: SphereWalk + ?Sized>(
    w: &W,
    c: DVec3,
    radii: DVec3,
    v: DVec3,
) -> Option<TerrainContact> {
    earliest(w, c + v * 0.5, v.length() * 0.5 + radii.max_element(), v, |tri, found| {
        sweep_scaled(c, radii, v, tri, found.limit())
    })
}

/// A capsule of radius `r` around the segment `a`–`b`.
pub(super) fn sweep_capsule<W: SphereWalk + ?Sized>(
    w: &W,
    a: DVec3,
    b: DVec3,
    r: f64,
    v: DVec3,
) -> Option<TerrainContact> {
    let (mc, mr) = ((a + b) * 0.5 + v * 0.5, a.distance(b) * 0.5 + v.length() * 0.5 + r);
    earliest(w, mc, mr, v, |tri, found| sweep_capsule_triangle(a, b, r, v, tri, found.limit()))
}

/// Every candidate triangle whose box meets `region`: the walk with the sphere around the box, then
/// the box itself.
pub(super) fn gather<W: SphereWalk + ?Sized>(w: &W, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
    let (mc, mr) = ((region.min + region.max) * 0.5, (region.max - region.min).length() * 0.5);
    w.walk(mc, mr, |id, t| {
        let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        if lo.cmple(region.max).all() && hi.cmpge(region.min).all() {
            visit(id, *t);
        }
    });
}
