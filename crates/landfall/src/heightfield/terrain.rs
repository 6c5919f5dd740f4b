//! [`Heightfield`] as a [`Terrain`]: one surface per vertical line under Z-up gravity (O(1)), the
//! crossings of the gravity line otherwise.

use super::Heightfield;
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use glam::DVec3;
use std::ops::ControlFlow;

impl Terrain for Heightfield {
    fn frame(&self) -> &Frame {
        Heightfield::frame(self)
    }

    fn bounds(&self) -> Aabb {
        Heightfield::bounds(self)
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        if self.frame().is_z_up() {
            if let Some(s) = self.surface_at(p.x, p.y) {
                visit(s);
            }
            return;
        }
        // Another gravity: the surfaces are the crossings of the whole gravity line, which the
        // "up" ray meets from the lowest to the highest.
        let up = self.frame().up();
        self.crossings(&Ray::new(p, up), f64::NEG_INFINITY, f64::INFINITY, |h| {
            visit(SurfacePoint { point: h.point, normal: h.normal, triangle: h.triangle });
            ControlFlow::Continue(())
        });
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        Heightfield::raycast(self, ray, max_t)
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        Heightfield::triangles_in(self, region, visit)
    }

    fn floor_below(&self, p: DVec3) -> Option<SurfacePoint> {
        if self.frame().is_z_up() {
            return self.surface_at(p.x, p.y).filter(|s| s.point.z <= p.z);
        }
        let h = p.dot(self.frame().up());
        let mut best = None;
        self.surfaces_on_line(p, &mut |s| {
            if s.point.dot(self.frame().up()) <= h {
                best = Some(s);
            }
        });
        best
    }

    fn floor_point_below(&self, p: DVec3) -> Option<DVec3> {
        if self.frame().is_z_up() {
            return self.height_at(p.x, p.y).filter(|&z| z <= p.z).map(|z| DVec3::new(p.x, p.y, z));
        }
        self.floor_below(p).map(|s| s.point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heightfield::synth::{generate, SynthParams};

    /// With a tilted gravity, every surface lies on the gravity line through the query point and on
    /// the terrain, sorted from lowest to highest against gravity; floor and ceiling pick from them.
    #[test]
    fn tilted_gravity_surfaces_lie_on_the_line_and_the_ground() {
        let n = 65;
        let h = generate(n, n, &SynthParams { relief: 40.0, feature: 20.0, ..SynthParams::default() });
        let g = DVec3::new(0.6, -0.3, -1.0);
        let hf = Heightfield::builder(n, n, h).frame(Frame::from_gravity(g).unwrap()).build().unwrap();
        let up = -g.normalize();
        let mut seen = 0;
        for k in 0..200 {
            let p = DVec3::new(5.0 + (k % 20) as f64 * 2.7, 5.0 + (k / 20) as f64 * 5.3, 20.0);
            let mut all = Vec::new();
            hf.surfaces_on_line(p, &mut |s| all.push(s));
            seen += all.len();
            for s in &all {
                let off = s.point - p;
                assert!((off - up * off.dot(up)).length() < 1e-9, "not on the gravity line");
                assert!((hf.height_at(s.point.x, s.point.y).unwrap() - s.point.z).abs() < 1e-9);
                assert!(s.normal.dot(up) > 0.0, "normal must point against gravity");
            }
            assert!(all.windows(2).all(|w| w[0].point.dot(up) < w[1].point.dot(up)));
            let floor = hf.floor_below(p);
            let expect = all.iter().rev().find(|s| s.point.dot(up) <= p.dot(up));
            assert_eq!(floor.map(|s| s.point), expect.map(|s| s.point));
            let ceiling = hf.ceiling_above(p);
            assert_eq!(ceiling.map(|s| s.point), all.iter().find(|s| s.point.dot(up) >= p.dot(up)).map(|s| s.point));
        }
        assert!(seen > 100, "the lines should meet the terrain");
    }
}
