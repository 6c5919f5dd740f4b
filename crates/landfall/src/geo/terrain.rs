//! [`GeoSurface`] as a [`Terrain`] in its ENU frame (metres, z up, gravity −z): placement, swept
//! shapes, the character controller and event simulations work on it unchanged.
//!
//! Gravity is the frame's −up everywhere, not the ellipsoid normal under each point: across a 1°
//! tile the true vertical turns by up to ≈0.5° from the centre's (s/R radians at s metres out),
//! which is what a game or simulation on a local map expects (a level world, straight falls).
//! Heights and rays are exact on the surface either way; only "down" is the centre's.

use super::surface::GeoSurface;
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use glam::DVec3;

static Z_UP: std::sync::LazyLock<Frame> = std::sync::LazyLock::new(Frame::z_up);

impl Terrain for GeoSurface {
    fn frame(&self) -> &Frame {
        &Z_UP
    }

    fn bounds(&self) -> Aabb {
        let b = self.boxes.root();
        Aabb::new(DVec3::new(b[0] as f64, b[1] as f64, b[2] as f64), DVec3::new(b[3] as f64, b[4] as f64, b[5] as f64))
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        self.crossings_enu(&Ray::new(p, DVec3::Z), f64::NEG_INFINITY, f64::INFINITY, |h| {
            visit(SurfacePoint { point: h.point, normal: h.normal, triangle: h.triangle })
        });
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        self.raycast_enu(ray, max_t)
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.triangles_in_enu(region.min, region.max, visit)
    }
}
