//! The terrain with the objects standing on it, as one [`Terrain`]: vertical queries see roofs and
//! boulders, rays hit trunks and walls, and sweeps (the character controller) collide with the
//! triangles of every collision shape, found through the cells that made them.

use super::Objects;
use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::terrain::Terrain;
use crate::world::query::{hit_triangle, surface, upward};
use arrayvec::ArrayVec;
use glam::{DVec2, DVec3};

/// A terrain and the objects on it (see [`Objects::solids`]).
pub struct Solids<'a> {
    terrain: &'a dyn Terrain,
    objects: &'a Objects,
    /// Heights that bound every object (for vertical lines through the grid).
    z: (f64, f64),
}

impl<'a> Solids<'a> {
    pub(crate) fn new(terrain: &'a dyn Terrain, objects: &'a Objects) -> Self {
        let reach = objects.max_height + 500.0;
        Self { terrain, objects, z: (-reach, reach) }
    }

    /// The object slots whose bounding spheres meet the box (entities are not solid).
    fn candidates(&self, min: DVec3, max: DVec3, visit: impl FnMut(u32)) {
        self.objects.statics.within_box(&self.objects.tracked, min, max, visit);
    }

    /// Every triangle of the objects whose spheres meet the box.
    fn object_triangles(&self, min: DVec3, max: DVec3, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.candidates(min, max, |slot| {
            if let Some(o) = self.objects.get(slot) {
                for k in 0..o.shape.triangle_count() {
                    visit(TriangleId::Object { object: slot, tri: k as u16 }, o.shape.triangle(k));
                }
            }
        });
    }
}

impl Terrain for Solids<'_> {
    fn frame(&self) -> &Frame {
        self.terrain.frame()
    }

    fn bounds(&self) -> Aabb {
        self.terrain.bounds()
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        let mut found: ArrayVec<SurfacePoint, 32> = ArrayVec::new();
        self.terrain.surfaces_on_line(p, &mut |s| {
            let _ = found.try_push(s);
        });
        let q = DVec2::new(p.x, p.y);
        self.object_triangles(DVec3::new(p.x, p.y, self.z.0), DVec3::new(p.x, p.y, self.z.1), &mut |id, t| {
            let (a, b, c) = (t[0].truncate(), t[1].truncate(), t[2].truncate());
            let det = (b - a).perp_dot(c - a);
            if det.abs() < 1e-12 * (b - a).length_squared().max((c - a).length_squared()) {
                return; // a wall: no surface on a vertical line
            }
            let (l1, l2) = ((q - a).perp_dot(c - a) / det, (b - a).perp_dot(q - a) / det);
            if l1 >= -1e-12 && l2 >= -1e-12 && l1 + l2 <= 1.0 + 1e-12 {
                let _ = found.try_push(surface(t, q, id));
            }
        });
        found.sort_unstable_by(|a, b| a.point.z.total_cmp(&b.point.z));
        for s in found {
            visit(s);
        }
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        let ground = self.terrain.raycast(ray, max_t);
        let limit = ground.map_or(max_t, |h| h.t);
        // The best object hit so far, with its triangle: the earliest t, then the lowest slot.
        let mut best: Option<(u32, f64, TriangleId, [DVec3; 3])> = None;
        let hit =
            self.objects.statics.raycast_with(&self.objects.tracked, ray.origin, ray.dir, limit, |id, _, limit| {
                let o = self.objects.get(id)?;
                let mut first: Option<(f64, usize, [DVec3; 3])> = None;
                for k in 0..o.shape.triangle_count() {
                    let t = o.shape.triangle(k);
                    if let Some(tt) = hit_triangle(ray, &t, first.map_or(limit, |f| f.0)) {
                        if first.is_none_or(|f| tt < f.0) {
                            first = Some((tt, k, t));
                        }
                    }
                }
                let (t, k, v) = first?;
                if best.is_none_or(|b| t < b.1 || (t == b.1 && id < b.0)) {
                    best = Some((id, t, TriangleId::Object { object: id, tri: k as u16 }, v));
                }
                Some(t)
            });
        match (hit, best) {
            (Some(t), Some((_, bt, tid, v))) if t == bt => {
                Some(Hit { t, point: ray.at(t), normal: upward((v[1] - v[0]).cross(v[2] - v[0])), triangle: tid })
            }
            _ => ground,
        }
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        self.terrain.triangles_in(region, visit);
        self.object_triangles(region.min, region.max, visit);
    }
}
