//! The triangles themselves, in world coordinates: by identity, and all those in a region.

use super::cell::{self, Half};
use super::Heightfield;
use crate::geom::{Aabb, TriangleId};
use glam::DVec3;

impl Heightfield {
    /// World vertices of triangle `half` of cell (i, j), or `None` when the cell is out of range or
    /// the triangle is removed (NaN corner or masked cell). Vertices are counter-clockwise seen from
    /// above.
    pub fn cell_triangle(&self, i: usize, j: usize, half: Half) -> Option<[DVec3; 3]> {
        if i + 1 >= self.nx || j + 1 >= self.ny || self.is_cell_masked(i, j) {
            return None;
        }
        let anti = self.diagonal.is_anti(i, j);
        let v = cell::corner_offsets(anti, half).map(|(di, dj)| self.sample_position(i + di, j + dj));
        if v.iter().any(|p| p.z.is_nan()) {
            return None;
        }
        Some(v)
    }

    /// World vertices of a triangle by its identity (`None` for another terrain's id or a removed triangle).
    pub fn triangle(&self, id: TriangleId) -> Option<[DVec3; 3]> {
        match id {
            TriangleId::Cell { i, j, half } => self.cell_triangle(i as usize, j as usize, half),
            TriangleId::Polygon(_) | TriangleId::Lod { .. } => None,
        }
    }

    /// Range of cells (half-open, per axis) whose footprint meets the x-y extent of `region`.
    pub fn cells_overlapping(&self, region: &Aabb) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let (u0, v0) = self.to_grid(region.min.x, region.min.y);
        let (u1, v1) = self.to_grid(region.max.x, region.max.y);
        let (ncx, ncy) = ((self.nx - 1) as f64, (self.ny - 1) as f64);
        if !(u1 >= 0.0 && v1 >= 0.0 && u0 <= ncx && v0 <= ncy) {
            return None;
        }
        let lo = |u: f64, n: f64| (u.max(0.0).floor().min(n - 1.0)) as usize;
        let hi = |u: f64, n: f64| (u.min(n).ceil().max(1.0)) as usize;
        let ri = lo(u0, ncx)..hi(u1, ncx).max(lo(u0, ncx) + 1);
        let rj = lo(v0, ncy)..hi(v1, ncy).max(lo(v0, ncy) + 1);
        Some((ri, rj))
    }

    /// Calls `visit` with every existing triangle of the cells under the x-y extent of `region`
    /// whose height range meets the region's z extent (candidates for a swept volume).
    pub fn for_each_triangle_in(&self, region: &Aabb, mut visit: impl FnMut(TriangleId, [DVec3; 3])) {
        let Some((ri, rj)) = self.cells_overlapping(region) else {
            return;
        };
        // Every row the walk will read, requested at once: otherwise each row's cache miss waits
        // for the previous row's triangles to be visited.
        for j in rj.start..=rj.end {
            self.prefetch_row(ri.start, ri.end, j);
        }
        for j in rj {
            for i in ri.clone() {
                if self.is_cell_masked(i, j) {
                    continue;
                }
                // The cell's four corners once, shared by its two triangles (as `cell_triangle`
                // builds them).
                let corner = [
                    [self.sample_position(i, j), self.sample_position(i, j + 1)],
                    [self.sample_position(i + 1, j), self.sample_position(i + 1, j + 1)],
                ];
                let anti = self.diagonal.is_anti(i, j);
                for half in [Half::South, Half::North] {
                    let t = cell::corner_offsets(anti, half).map(|(di, dj)| corner[di][dj]);
                    let (lo, hi) = (t[0].z.min(t[1].z).min(t[2].z), t[0].z.max(t[1].z).max(t[2].z));
                    // A NaN corner (a hole) fails both comparisons.
                    if hi >= region.min.z && lo <= region.max.z && !t.iter().any(|p| p.z.is_nan()) {
                        visit(TriangleId::Cell { i: i as u32, j: j as u32, half }, t);
                    }
                }
            }
        }
    }

    /// Number of existing triangles (two per cell, minus holes).
    pub fn triangle_count(&self) -> usize {
        let mut n = 0;
        for j in 0..self.ny - 1 {
            for i in 0..self.nx - 1 {
                n += [Half::South, Half::North].iter().filter(|&&h| self.cell_triangle(i, j, h).is_some()).count();
            }
        }
        n
    }
}
