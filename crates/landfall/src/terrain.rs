//! The trait every terrain implements, so followers, controllers and the CLI work on any of them.

use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use glam::DVec3;

/// A terrain: vertical queries along its gravity, ray casts, candidate triangles for swept volumes.
///
/// "Vertical" means along the terrain's [`Frame`] gravity; with the default frame that is −Z.
/// Code written against the trait works on every terrain:
///
/// ```
/// use landfall::glam::DVec3;
/// use landfall::{Heightfield, PolygonTerrain, Ray, Terrain};
///
/// /// Height of the ground under (x, y) and what a camera ray straight down meets.
/// fn probe(t: &dyn Terrain, x: f64, y: f64) -> (Option<f64>, Option<f64>) {
///     let top = t.top_surface(DVec3::new(x, y, 0.0)).map(|s| s.point.z);
///     let hit = t.raycast(&Ray::new(DVec3::new(x, y, 100.0), DVec3::NEG_Z), f64::INFINITY);
///     (top, hit.map(|h| h.point.z))
/// }
///
/// let hf = Heightfield::builder(2, 2, vec![3.0; 4]).build().unwrap();
/// let flat = [DVec3::new(0.0, 0.0, 3.0), DVec3::new(1.0, 0.0, 3.0), DVec3::new(1.0, 1.0, 3.0), DVec3::new(0.0, 1.0, 3.0)];
/// let poly = PolygonTerrain::builder().polygon(&flat).build().unwrap();
/// for t in [&hf as &dyn Terrain, &poly] {
///     assert_eq!(probe(t, 0.5, 0.5), (Some(3.0), Some(3.0)));
///     let mut n = 0;
///     t.triangles_in(&landfall::Aabb::new(DVec3::ZERO, DVec3::ONE * 5.0), &mut |_, _| n += 1);
///     assert!(n >= 2); // candidates for a swept shape: a superset of what the box touches
/// }
/// ```
pub trait Terrain: Send + Sync {
    /// The gravity frame of the vertical queries (nominal for curved terrains, whose gravity
    /// varies: see [`Terrain::up_at`]).
    fn frame(&self) -> &Frame;

    /// Unit vector against gravity at `p` (the frame's up unless gravity varies).
    fn up_at(&self, p: DVec3) -> DVec3 {
        let _ = p;
        self.frame().up()
    }

    /// World bounds of the terrain's geometry.
    fn bounds(&self) -> Aabb;

    /// Calls `visit` with every surface on the vertical line (parallel to gravity) through `p`,
    /// sorted from lowest to highest (against gravity).
    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint));

    /// First crossing of `ray` for t in [0, `max_t`], from either side (see [`Ray`]).
    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit>;

    /// Calls `visit` with every triangle that may touch `region` (a superset is allowed).
    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3]));

    /// The highest surface on the vertical line through `p`.
    fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        let mut top = None;
        self.surfaces_on_line(p, &mut |s| top = Some(s));
        top
    }

    /// The nearest surface at or below `p` along gravity.
    fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        let up = self.up_at(p);
        let h = p.dot(up);
        let mut best = None;
        self.surfaces_on_line(p, &mut |s| {
            if s.point.dot(up) <= h {
                best = Some(s);
            }
        });
        best
    }

    /// The point of [`Terrain::floor_below`], without its normal and identity (placement needs only
    /// the point; a terrain may answer it faster).
    fn floor_point_below(&self, p: DVec3) -> Option<DVec3> {
        self.floor_below(p).map(|s| s.point)
    }

    /// The nearest surface at or above `p` against gravity.
    fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        let up = self.up_at(p);
        let h = p.dot(up);
        let mut best = None;
        self.surfaces_on_line(p, &mut |s| {
            if best.is_none() && s.point.dot(up) >= h {
                best = Some(s);
            }
        });
        best
    }
}

/// A borrowed terrain is a terrain (what holds a `T: Terrain` can hold `&Heightfield` or
/// `&dyn Terrain` as well as own one).
impl<T: Terrain + ?Sized> Terrain for &T {
    fn frame(&self) -> &Frame {
        (**self).frame()
    }
    fn up_at(&self, p: DVec3) -> DVec3 {
        (**self).up_at(p)
    }
    fn bounds(&self) -> Aabb {
        (**self).bounds()
    }
    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        (**self).surfaces_on_line(p, visit)
    }
    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        (**self).raycast(ray, max_t)
    }
    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        (**self).triangles_in(region, visit)
    }
    fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        (**self).top_surface(p)
    }
    fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        (**self).floor_below(p)
    }
    fn floor_point_below(&self, p: DVec3) -> Option<DVec3> {
        (**self).floor_point_below(p)
    }
    fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        (**self).ceiling_above(p)
    }
}

/// Line of sight: the first crossing of the segment `a`→`b` with the terrain strictly between its
/// ends, as the fraction of the way from `a` (`None`: the segment is clear). Touches within 10⁻⁹ of
/// the way at either end do not count (a target on the ground, an eye against a wall), nor nearer
/// that end than 10⁻⁹ of its own scale (its largest coordinate or the terrain's, at least 1), when
/// that is less: a segment far longer than the coordinates of an end keeps its crossings near it.
///
/// ```
/// use landfall::{segment_crossing, Heightfield};
/// use landfall::glam::DVec3;
/// // A ridge of height 10 along x = 1.
/// let hf = Heightfield::builder(3, 2, vec![0.0, 10.0, 0.0, 0.0, 10.0, 0.0]).build().unwrap();
/// let (a, b) = (DVec3::new(0.0, 0.5, 2.0), DVec3::new(2.0, 0.5, 2.0));
/// assert!(segment_crossing(&hf, a, b).is_some()); // the ridge is in the way
/// assert!(segment_crossing(&hf, a + DVec3::Z * 20.0, b + DVec3::Z * 20.0).is_none());
/// ```
pub fn segment_crossing(t: &dyn Terrain, a: DVec3, b: DVec3) -> Option<f64> {
    let d = b - a;
    if d == DVec3::ZERO {
        return None;
    }
    const END: f64 = 1e-9;
    let b0 = t.bounds();
    let terrain = b0.min.abs().max(b0.max.abs()).max_element();
    let len = d.length();
    let zone = |p: DVec3| END.min(END * p.abs().max_element().max(terrain).max(1.0) / len);
    let (near_a, near_b) = (zone(a), zone(b));
    let mut from = 0.0;
    while let Some(h) = t.raycast(&crate::Ray::new(a + d * from, d), 1.0 - from) {
        let s = from + h.t;
        if s >= 1.0 - near_b {
            return None;
        }
        if s > near_a {
            return Some(s);
        }
        from = s + near_a;
    }
    None
}
