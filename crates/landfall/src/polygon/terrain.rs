//! [`PolygonTerrain`] as a [`Terrain`]: every query answered by the QOTA quadtree.

use super::PolygonTerrain;
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use glam::DVec3;

impl Terrain for PolygonTerrain {
    fn frame(&self) -> &Frame {
        PolygonTerrain::frame(self)
    }

    fn bounds(&self) -> Aabb {
        PolygonTerrain::bounds(self)
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        PolygonTerrain::surfaces_on_line(self, p, visit)
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        PolygonTerrain::raycast(self, ray, max_t)
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        PolygonTerrain::triangles_in(self, region, visit)
    }

    fn top_surface(&self, p: DVec3) -> Option<SurfacePoint> {
        PolygonTerrain::top_surface(self, p)
    }

    fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        PolygonTerrain::floor_below(self, p)
    }

    fn ceiling_above(&self, p: DVec3) -> Option<SurfacePoint> {
        PolygonTerrain::ceiling_above(self, p)
    }
}
