//! The trait every terrain implements, so followers, controllers and the CLI work on any of them.

use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use glam::DVec3;

/// A terrain: vertical queries along its gravity, ray casts, candidate triangles for swept volumes.
///
/// "Vertical" means along the terrain's [`Frame`] gravity; with the default frame that is −Z.
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
