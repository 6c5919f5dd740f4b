//! Several terrains, each with its own pose, queried as one: moving platforms, ships, elevators
//! (QOTA's future work: one quadtree per set of pieces that do not move with respect to each other).
//!
//! A pose is rigid and keeps each part upright: it may translate the part and turn it about the
//! set's up direction, so a vertical line stays a vertical line in the part's own frame (a tilting
//! platform needs a terrain built with the tilted gravity instead).

use crate::frame::Frame;
use crate::geom::{Aabb, Hit, Ray, SurfacePoint, TriangleId};
use crate::groups::Groups;
use crate::terrain::Terrain;
use glam::{DAffine3, DMat3, DVec3};
use std::sync::Arc;

/// Why a pose cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PoseError {
    /// Not finite, scales or shears, or tilts the part's up away from the set's up.
    #[error("a pose must be a finite rigid motion that keeps the part's up direction along the set's up")]
    NotUpright,
    /// No part with this index.
    #[error("no part {0} in the set")]
    NoSuchPart(usize),
}

struct Part {
    terrain: Arc<dyn Terrain>,
    groups: Groups,
    pose: DAffine3,
    inverse: DAffine3,
}

/// Terrains with their poses (part → world), answering like one terrain.
pub struct TerrainSet {
    frame: Frame,
    parts: Vec<Part>,
}

impl TerrainSet {
    /// An empty set whose vertical is along `frame`'s gravity.
    pub fn new(frame: Frame) -> Self {
        Self { frame, parts: Vec::new() }
    }

    fn check(&self, terrain: &dyn Terrain, pose: &DAffine3) -> Result<(), PoseError> {
        let m = pose.matrix3;
        let rigid = (m * m.transpose() - DMat3::IDENTITY).to_cols_array().iter().all(|v| v.abs() < 1e-9)
            && m.determinant() > 0.0;
        let upright = (m * terrain.frame().up() - self.frame.up()).length() < 1e-9;
        if pose.is_finite() && rigid && upright {
            Ok(())
        } else {
            Err(PoseError::NotUpright)
        }
    }

    /// Adds a part with its pose (in every collision group); returns its index.
    pub fn add(&mut self, terrain: Arc<dyn Terrain>, pose: DAffine3) -> Result<usize, PoseError> {
        self.add_with_groups(terrain, pose, Groups::ALL)
    }

    /// Adds a part with its pose and collision groups: filtered queries skip parts whose groups do
    /// not interact with the query's.
    pub fn add_with_groups(
        &mut self,
        terrain: Arc<dyn Terrain>,
        pose: DAffine3,
        groups: Groups,
    ) -> Result<usize, PoseError> {
        self.check(terrain.as_ref(), &pose)?;
        self.parts.push(Part { terrain, groups, pose, inverse: pose.inverse() });
        Ok(self.parts.len() - 1)
    }

    /// Moves part `k`.
    pub fn set_pose(&mut self, k: usize, pose: DAffine3) -> Result<(), PoseError> {
        let part = self.parts.get(k).ok_or(PoseError::NoSuchPart(k))?;
        self.check(part.terrain.as_ref(), &pose)?;
        let part = &mut self.parts[k];
        (part.pose, part.inverse) = (pose, pose.inverse());
        Ok(())
    }

    /// Number of parts.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// True when the set has no part.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Every surface on the vertical line through `p`, lowest first, with the index of its part.
    pub fn surfaces_with_part(&self, p: DVec3) -> Vec<(usize, SurfacePoint)> {
        self.surfaces_filtered(p, Groups::ALL)
    }

    /// [`TerrainSet::surfaces_with_part`] over the parts whose groups interact with `filter`.
    pub fn surfaces_filtered(&self, p: DVec3, filter: Groups) -> Vec<(usize, SurfacePoint)> {
        let up = self.frame.up();
        let mut all = Vec::new();
        for (k, part) in self.parts.iter().enumerate().filter(|(_, part)| part.groups.interacts(filter)) {
            part.terrain.surfaces_on_line(part.inverse.transform_point3(p), &mut |s| {
                all.push((k, Self::to_world(part, s)));
            });
        }
        all.sort_by(|a, b| a.1.point.dot(up).total_cmp(&b.1.point.dot(up)));
        all
    }

    /// The first ray hit over all parts, with the index of its part.
    pub fn raycast_with_part(&self, ray: &Ray, max_t: f64) -> Option<(usize, Hit)> {
        self.raycast_filtered(ray, max_t, Groups::ALL)
    }

    /// [`TerrainSet::raycast_with_part`] over the parts whose groups interact with `filter`.
    pub fn raycast_filtered(&self, ray: &Ray, max_t: f64, filter: Groups) -> Option<(usize, Hit)> {
        let mut best: Option<(usize, Hit)> = None;
        for (k, part) in self.parts.iter().enumerate().filter(|(_, part)| part.groups.interacts(filter)) {
            let local = Ray::new(part.inverse.transform_point3(ray.origin), part.inverse.transform_vector3(ray.dir));
            let limit = best.map_or(max_t, |(_, h)| h.t);
            if let Some(h) = part.terrain.raycast(&local, limit) {
                if best.is_none_or(|(_, b)| h.t < b.t) {
                    let n = part.pose.transform_vector3(h.normal);
                    best = Some((k, Hit { t: h.t, point: ray.at(h.t), normal: n, triangle: h.triangle }));
                }
            }
        }
        best
    }

    fn to_world(part: &Part, s: SurfacePoint) -> SurfacePoint {
        SurfacePoint {
            point: part.pose.transform_point3(s.point),
            normal: part.pose.transform_vector3(s.normal),
            triangle: s.triangle,
        }
    }
}

/// The box around the 8 corners of `b` moved by `m`.
fn moved(b: &Aabb, m: &DAffine3) -> Aabb {
    (0..8).fold(Aabb::EMPTY, |acc, k| {
        let c = DVec3::new(
            if k & 1 == 0 { b.min.x } else { b.max.x },
            if k & 2 == 0 { b.min.y } else { b.max.y },
            if k & 4 == 0 { b.min.z } else { b.max.z },
        );
        acc.grown(m.transform_point3(c))
    })
}

impl Terrain for TerrainSet {
    fn frame(&self) -> &Frame {
        &self.frame
    }

    fn bounds(&self) -> Aabb {
        self.parts.iter().fold(Aabb::EMPTY, |acc, p| {
            let b = moved(&p.terrain.bounds(), &p.pose);
            if b.is_empty() {
                acc
            } else {
                acc.grown(b.min).grown(b.max)
            }
        })
    }

    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(SurfacePoint)) {
        for (_, s) in self.surfaces_with_part(p) {
            visit(s);
        }
    }

    fn raycast(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        self.raycast_with_part(ray, max_t).map(|(_, h)| h)
    }

    fn triangles_in(&self, region: &Aabb, visit: &mut dyn FnMut(TriangleId, [DVec3; 3])) {
        for part in &self.parts {
            part.terrain.triangles_in(&moved(region, &part.inverse), &mut |id, t| {
                visit(id, t.map(|v| part.pose.transform_point3(v)))
            });
        }
    }
}
