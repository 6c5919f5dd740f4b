//! Vertical queries: the surface on the vertical line through (x, y), in O(1).
//!
//! Index the cell, pick the triangle by the side of the diagonal, evaluate its plane (the 2017
//! paper's section 3.6). Points on the grid's closed boundary are inside. A point on the border of a
//! removed triangle still lies on the existing triangle next to it, so the neighbours that contain
//! the point are tried before answering "hole". "On" allows [`BORDER_EPS`] cell of rounding: world
//! coordinates of a vertex rarely convert to exact grid coordinates.

use super::cell::{self, cell_index, to_f, Half};
use super::Heightfield;
use crate::geom::{SurfacePoint, TriangleId};
use glam::DVec3;
use rayon::prelude::*;

/// Tolerance, in cells, within which a point counts as on the grid's edge or on a triangle's border.
pub const BORDER_EPS: f64 = 1e-9;

/// A triangle chosen for a point: cell, half, local coordinates in that cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located {
    pub i: usize,
    pub j: usize,
    pub half: Half,
    pub plane: cell::CellPlane,
    pub fu: f64,
    pub fv: f64,
}

impl Heightfield {
    /// Height of the terrain at world (x, y), or `None` outside the grid or over a hole.
    #[inline]
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        let (u, v) = self.to_grid(x, y);
        self.locate(u, v).map(|l| l.plane.eval(l.fu, l.fv))
    }

    /// The surface point at world (x, y) with its upward unit normal and triangle, or `None`
    /// outside the grid or over a hole.
    #[inline]
    pub fn surface_at(&self, x: f64, y: f64) -> Option<SurfacePoint> {
        let (u, v) = self.to_grid(x, y);
        let l = self.locate(u, v)?;
        Some(SurfacePoint {
            point: DVec3::new(x, y, l.plane.eval(l.fu, l.fv)),
            normal: self.plane_normal(&l.plane),
            triangle: TriangleId::Cell { i: l.i as u32, j: l.j as u32, half: l.half },
        })
    }

    /// [`height_at`](Self::height_at) for many points, in parallel.
    pub fn height_batch(&self, points: &[[f64; 2]]) -> Vec<Option<f64>> {
        points.par_iter().with_min_len(4096).map(|p| self.height_at(p[0], p[1])).collect()
    }

    /// [`surface_at`](Self::surface_at) for many points, in parallel.
    pub fn surface_batch(&self, points: &[[f64; 2]]) -> Vec<Option<SurfacePoint>> {
        points.par_iter().with_min_len(4096).map(|p| self.surface_at(p[0], p[1])).collect()
    }

    /// The existing triangle containing grid point (u, v), if any.
    #[inline(always)]
    pub(crate) fn locate(&self, u: f64, v: f64) -> Option<Located> {
        let (ncx, ncy) = (to_f(self.nx - 1), to_f(self.ny - 1));
        // Also rejects NaN.
        if !(u >= -BORDER_EPS && u <= ncx + BORDER_EPS && v >= -BORDER_EPS && v <= ncy + BORDER_EPS) {
            return None;
        }
        let (u, v) = (u.clamp(0.0, ncx), v.clamp(0.0, ncy));
        let i = cell_index(u, 0, self.nx - 2);
        let j = cell_index(v, 0, self.ny - 2);
        let (fu, fv) = (u - to_f(i), v - to_f(j));
        let anti = self.diagonal.is_anti(i, j);
        let (half, plane) = cell::half_and_plane(anti, fu, fv, &self.corners(i, j));
        if !plane.is_hole() && !self.is_cell_masked(i, j) {
            return Some(Located { i, j, half, plane, fu, fv });
        }
        self.locate_on_border(u, v, i, j)
    }

    /// Slow path: the point's own triangle is a hole; try every triangle around it that contains
    /// the point (the point is then on their shared border).
    #[cold]
    fn locate_on_border(&self, u: f64, v: f64, i0: usize, j0: usize) -> Option<Located> {
        for j in j0.saturating_sub(1)..=(j0 + 1).min(self.ny - 2) {
            for i in i0.saturating_sub(1)..=(i0 + 1).min(self.nx - 2) {
                let (fu, fv) = (u - to_f(i), v - to_f(j));
                let inside = |f: f64| (-BORDER_EPS..=1.0 + BORDER_EPS).contains(&f);
                if !inside(fu) || !inside(fv) || self.is_cell_masked(i, j) {
                    continue;
                }
                let anti = self.diagonal.is_anti(i, j);
                let side = cell::diagonal_side(anti, fu, fv);
                for half in [Half::South, Half::North] {
                    let inside = match half {
                        Half::South => side <= BORDER_EPS,
                        Half::North => side >= -BORDER_EPS,
                    };
                    let plane = cell::plane(anti, half, &self.corners(i, j));
                    if inside && !plane.is_hole() {
                        return Some(Located { i, j, half, plane, fu, fv });
                    }
                }
            }
        }
        None
    }
}
