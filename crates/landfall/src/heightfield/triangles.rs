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
            TriangleId::Polygon(_) | TriangleId::Lod { .. } | TriangleId::Object { .. } => None,
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
        // Floor and ceiling of values in [0, n] by truncation (`f64::floor` and `ceil` are library
        // calls on the baseline x86-64 target): `lo` floors max(u, 0), `hi` ceils u ≥ 0 (checked).
        let lo = |u: f64, n: f64| u.max(0.0).min(n - 1.0) as usize;
        let hi = |u: f64, n: f64| {
            let x = u.min(n);
            let t = x as usize;
            (t + usize::from((t as f64) < x)).max(1)
        };
        let ri = lo(u0, ncx)..hi(u1, ncx).max(lo(u0, ncx) + 1);
        let rj = lo(v0, ncy)..hi(v1, ncy).max(lo(v0, ncy) + 1);
        Some((ri, rj))
    }

    /// Calls `visit` with every existing triangle of the cells under the x-y extent of `region`
    /// whose height range meets the region's z extent (candidates for a swept volume).
    pub fn triangles_in(&self, region: &Aabb, mut visit: impl FnMut(TriangleId, [DVec3; 3])) {
        let Some((ri, rj)) = self.cells_overlapping(region) else {
            return;
        };
        // Every row the walk will read, requested at once: otherwise each row's cache miss waits
        // for the previous row's triangles to be visited.
        for j in rj.start..=rj.end {
            self.prefetch_row(ri.start, ri.end, j);
        }
        // Sample coordinates exactly as `sample_position` computes them (indices fit in u32, as in
        // `TriangleId`; the conversion is then one instruction).
        let x_of = |i: usize| self.origin.x + (i as u32) as f64 * self.spacing.x;
        let y_of = |j: usize| self.origin.y + (j as u32) as f64 * self.spacing.y;
        let (z_min, z_max) = (region.min.z, region.max.z);
        let tiling = self.tiling();
        for j in rj {
            let (y0, y1) = (y_of(j), y_of(j + 1));
            // The row's cells in runs: a tiled heightfield's tile by tile, those of tiles without
            // data (all holes: most of a sparse index) passed over whole.
            let mut run = ri.start;
            while run < ri.end {
                let end = match tiling {
                    Some(t) => ((run / t.cells + 1) * t.cells).min(ri.end),
                    None => ri.end,
                };
                let (start, x0) = (run, x_of(run));
                run = end;
                if tiling.is_some_and(|t| !self.tile_has_data(start / t.cells, j / t.cells)) {
                    continue;
                }
                self.row_triangles(j, start..end, [x0, y0, y1], [z_min, z_max], &x_of, &mut visit);
            }
        }
    }

    /// [`Self::triangles_in`]'s cells `ri` of row `j` (south and north edges at `y0`, `y1`; the
    /// first cell's west edge at `x0`).
    #[inline(always)]
    fn row_triangles(
        &self,
        j: usize,
        ri: std::ops::Range<usize>,
        [mut x0, y0, y1]: [f64; 3],
        [z_min, z_max]: [f64; 2],
        x_of: &impl Fn(usize) -> f64,
        visit: &mut impl FnMut(TriangleId, [DVec3; 3]),
    ) {
        for i in ri {
            let x1 = x_of(i + 1);
            if self.is_cell_masked(i, j) {
                x0 = x1;
                continue;
            }
            // The cell's four corners once, shared by its two triangles (as `cell_triangle`
            // builds them).
            let [s0, s1, n0, n1] = self.corners_f32(i, j);
            let corner = [
                [DVec3::new(x0, y0, s0 as f64), DVec3::new(x0, y1, n0 as f64)],
                [DVec3::new(x1, y0, s1 as f64), DVec3::new(x1, y1, n1 as f64)],
            ];
            let anti = self.diagonal.is_anti(i, j);
            for half in [Half::South, Half::North] {
                let o = cell::corner_offsets(anti, half);
                let t = [corner[o[0].0][o[0].1], corner[o[1].0][o[1].1], corner[o[2].0][o[2].1]];
                let (a, b, c) = (t[0].z, t[1].z, t[2].z);
                // Plain comparisons: with a NaN corner (a hole) they mean nothing, and the last
                // test rejects the triangle.
                let lo = if a < b { a } else { b };
                let lo = if c < lo { c } else { lo };
                let hi = if a > b { a } else { b };
                let hi = if c > hi { c } else { hi };
                if hi >= z_min && lo <= z_max && !(a.is_nan() || b.is_nan() || c.is_nan()) {
                    visit(TriangleId::Cell { i: i as u32, j: j as u32, half }, t);
                }
            }
            x0 = x1;
        }
    }

    /// Number of existing triangles (two per cell, minus holes; a tiled heightfield's tiles without
    /// data are skipped whole).
    pub fn triangle_count(&self) -> usize {
        let count = |ci: std::ops::Range<usize>, cj: std::ops::Range<usize>| {
            let mut n = 0;
            for j in cj {
                for i in ci.clone() {
                    n += [Half::South, Half::North].iter().filter(|&&h| self.cell_triangle(i, j, h).is_some()).count();
                }
            }
            n
        };
        let (ncx, ncy) = (self.nx - 1, self.ny - 1);
        let Some(tiling) = self.tiling() else { return count(0..ncx, 0..ncy) };
        let mut n = 0;
        for ty in 0..tiling.nty {
            for tx in (0..tiling.ntx).filter(|&tx| self.tile_has_data(tx, ty)) {
                let c = tiling.tile_cells(tx, ty, ncx, ncy);
                n += count(c[0]..c[2], c[1]..c[3]);
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cell range is the one `floor` and `ceil` give, for region corners on grid lines, an ulp
    /// either side of them, between them and outside the grid.
    #[test]
    fn cells_overlapping_floors_and_ceils_exactly() {
        let (nx, ny) = (9, 6);
        let hf = Heightfield::builder(nx, ny, vec![0.0; nx * ny]).origin(-3.5, 2.25).spacing(0.7, 1.3).build().unwrap();
        let reference = |region: &Aabb| {
            let (u0, v0) = hf.to_grid(region.min.x, region.min.y);
            let (u1, v1) = hf.to_grid(region.max.x, region.max.y);
            let (ncx, ncy) = ((nx - 1) as f64, (ny - 1) as f64);
            if !(u1 >= 0.0 && v1 >= 0.0 && u0 <= ncx && v0 <= ncy) {
                return None;
            }
            let lo = |u: f64, n: f64| (u.max(0.0).floor().min(n - 1.0)) as usize;
            let hi = |u: f64, n: f64| (u.min(n).ceil().max(1.0)) as usize;
            Some((lo(u0, ncx)..hi(u1, ncx).max(lo(u0, ncx) + 1), lo(v0, ncy)..hi(v1, ncy).max(lo(v0, ncy) + 1)))
        };
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for k in -2..=(nx as i32 + 1) {
            let x = -3.5 + k as f64 * 0.7;
            xs.extend([x, x.next_up(), x.next_down(), x + 0.35]);
        }
        for k in -2..=(ny as i32 + 1) {
            let y = 2.25 + k as f64 * 1.3;
            ys.extend([y, y.next_up(), y.next_down(), y + 0.65]);
        }
        let mut checked = 0;
        for (a, &x0) in xs.iter().enumerate() {
            for &x1 in &xs[a..] {
                for (b, &y0) in ys.iter().enumerate().step_by(3) {
                    for &y1 in ys[b..].iter().step_by(2) {
                        let region = Aabb::new(DVec3::new(x0, y0, 0.0), DVec3::new(x1, y1, 1.0));
                        assert_eq!(hf.cells_overlapping(&region), reference(&region), "{region:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
