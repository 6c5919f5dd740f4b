//! The 2017 paper's reference methods, kept callable as the baselines of its Table 4.1:
//! * "no pruning": every triangle of the mesh is tested (Möller–Trumbore), nearest hit kept;
//! * "quadtree only": the pyramid is searched with a queue and 3-D slab tests, intersected leaves are
//!   sorted by entry distance, and every triangle of each leaf is tested (no line walk).
//!
//! They are slow by design and allocate; use [`Heightfield::raycast`] for real work.

use super::cell::Half;
use super::Heightfield;
use crate::geom::{moller_trumbore, Aabb, Hit, Ray, TriangleId};
use glam::DVec3;
use std::collections::VecDeque;

/// A reference ray-cast method of the 2017 paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Test every triangle.
    NoPruning,
    /// Quadtree search of the leaves, then every triangle of each intersected leaf.
    QuadtreeOnly,
}

impl Heightfield {
    /// Ray cast by one of the paper's reference methods (see [`Baseline`]). Same contract as
    /// [`raycast`](Self::raycast) except watertightness: Möller–Trumbore can miss rays through
    /// shared edges.
    pub fn raycast_baseline(&self, method: Baseline, ray: &Ray, max_t: f64) -> Option<Hit> {
        ray.validate(max_t).ok()?;
        match method {
            Baseline::NoPruning => self.nearest_in_cells(ray, max_t, 0..self.nx - 1, 0..self.ny - 1),
            Baseline::QuadtreeOnly => self.quadtree_only(ray, max_t),
        }
    }

    fn nearest_in_cells(
        &self,
        ray: &Ray,
        max_t: f64,
        ri: std::ops::Range<usize>,
        rj: std::ops::Range<usize>,
    ) -> Option<Hit> {
        let mut best: Option<Hit> = None;
        for j in rj {
            for i in ri.clone() {
                for half in [Half::South, Half::North] {
                    let Some(v) = self.cell_triangle(i, j, half) else {
                        continue;
                    };
                    let Some(t) = moller_trumbore(ray.origin, ray.dir, &v) else {
                        continue;
                    };
                    if t >= 0.0 && t <= max_t && best.is_none_or(|b| t < b.t) {
                        let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
                        best = Some(Hit {
                            t,
                            point: ray.at(t),
                            normal: self.frame.orient_up(n),
                            triangle: TriangleId::Cell { i: i as u32, j: j as u32, half },
                        });
                    }
                }
            }
        }
        best
    }

    fn quadtree_only(&self, ray: &Ray, max_t: f64) -> Option<Hit> {
        let pyr = &self.pyramid;
        let top = pyr.depth() - 1;
        let mut queue = VecDeque::from([(top, 0usize, 0usize)]);
        let mut leaves: Vec<(f64, usize, usize)> = Vec::new();
        let (ncx, ncy) = pyr.cells();
        while let Some((k, bi, bj)) = queue.pop_front() {
            let lv = pyr.level(k);
            let (lo, hi) = pyr.node(k, bi, bj);
            let (ci0, cj0) = (bi * lv.span, bj * lv.span);
            let (ci1, cj1) = ((ci0 + lv.span).min(ncx), (cj0 + lv.span).min(ncy));
            let a = self.sample_position(ci0, cj0);
            let b = self.sample_position(ci1, cj1);
            let bx = Aabb::new(DVec3::new(a.x, a.y, lo), DVec3::new(b.x, b.y, hi));
            let Some((t0, _)) = bx.clip_ray(ray.origin, ray.dir, 0.0, max_t) else {
                continue;
            };
            if k == 0 {
                leaves.push((t0, bi, bj));
                continue;
            }
            let c = pyr.level(k - 1);
            for (ci, cj) in [(2 * bi, 2 * bj), (2 * bi + 1, 2 * bj), (2 * bi, 2 * bj + 1), (2 * bi + 1, 2 * bj + 1)] {
                if ci < c.nbx && cj < c.nby {
                    queue.push_back((k - 1, ci, cj));
                }
            }
        }
        leaves.sort_by(|a, b| a.0.total_cmp(&b.0));
        let span = pyr.leaf_size();
        leaves.iter().find_map(|&(_, bi, bj)| {
            let ri = bi * span..((bi + 1) * span).min(ncx);
            let rj = bj * span..((bj + 1) * span).min(ncy);
            self.nearest_in_cells(ray, max_t, ri, rj)
        })
    }
}
