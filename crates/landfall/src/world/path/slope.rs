//! Where the ground is too steep or missing, at the agent's scale: a grid of cells over the planned
//! region and its prefix sums, which count the blocked cells in any box in O(1).
//!
//! Cells of at most [`EXACT_UP_TO`] are read exactly: blocked when a terrain triangle steeper than
//! the agent's limit meets them (closed sets, so a cell touching a steep triangle's edge is blocked
//! too) or when there is no ground at their centre. Wider cells read the ground at their scale:
//! through the heights at the cell's four corners, split into two triangles by the heightfields'
//! default diagonal (`Alternating`, by the cell's index in the global grid of its side); blocked
//! when either triangle is steeper than the limit, or when there is no ground at a corner or at the
//! centre. Roughness below the cell is not the agent's concern.

use super::geom::triangle_meets_box;
use crate::geom::Aabb;
use crate::terrain::Terrain;
use glam::{DVec2, DVec3};

/// Slope cells no wider than this, metres, are read exactly (every terrain triangle); wider ones at
/// their corners.
pub(crate) const EXACT_UP_TO: f64 = 1.0;

/// Blocked slope cells over a square region.
pub(crate) struct SlopeGrid {
    origin: DVec2,
    /// Side of a cell, metres.
    pub(crate) cell: f64,
    /// Cells per side.
    pub(crate) n: usize,
    /// A slope cell is `2^shift` of the planner's finest cells wide (`shift` may be negative).
    shift: i32,
    blocked: Vec<bool>,
    /// `sum[(j) * (n + 1) + i]`: blocked cells in [0, i) × [0, j).
    sum: Vec<u32>,
}

/// Cells of a tile of triangles asked of the terrain at once (per side).
const TILE: usize = 64;

/// Whether the triangle `t` is steeper than the angle whose cosine is `cos` (degenerate ones are
/// not).
#[inline]
pub(crate) fn steep(t: [DVec3; 3], cos: f64) -> bool {
    let nrm = (t[1] - t[0]).cross(t[2] - t[0]);
    let len = nrm.length();
    len != 0.0 && nrm.z.abs() < cos * len
}

/// Whether either triangle of the cell with corners `q` (counter-clockwise from the south-west)
/// is steeper than the angle whose cosine is `cos`: split along south-east–north-west when `even`
/// (the sum of the cell's global indices is even), else south-west–north-east.
#[inline]
pub(crate) fn cell_steep(q: [DVec3; 4], even: bool, cos: f64) -> bool {
    if even {
        steep([q[0], q[1], q[3]], cos) || steep([q[1], q[2], q[3]], cos)
    } else {
        steep([q[0], q[1], q[2]], cos) || steep([q[0], q[2], q[3]], cos)
    }
}

/// Blocked cells read exactly: a steep triangle meets the cell, or no ground at its centre.
fn exact(ground: &dyn Terrain, origin: DVec2, cell: f64, n: usize, max_slope: f64) -> Vec<bool> {
    let mut blocked = vec![false; n * n];
    let cos = max_slope.cos();
    // Far enough above and below any ground.
    let (zlo, zhi) = (-1e12, 1e12);
    for tj in (0..n).step_by(TILE) {
        for ti in (0..n).step_by(TILE) {
            let lo = origin + DVec2::new(ti as f64, tj as f64) * cell;
            let hi = origin + DVec2::new((ti + TILE).min(n) as f64, (tj + TILE).min(n) as f64) * cell;
            let region = Aabb { min: lo.extend(zlo), max: hi.extend(zhi) };
            ground.triangles_in(&region, &mut |_, t| {
                if !steep(t, cos) {
                    return; // degenerate, or gentle enough
                }
                let flat = [t[0].truncate(), t[1].truncate(), t[2].truncate()];
                let (tlo, thi) = (flat[0].min(flat[1]).min(flat[2]), flat[0].max(flat[1]).max(flat[2]));
                let (i0, j0) = cell_of((tlo.max(lo) - origin) / cell, n);
                let (i1, j1) = cell_of((thi.min(hi) - origin) / cell, n);
                for j in j0..=j1 {
                    for i in i0..=i1 {
                        let clo = origin + DVec2::new(i as f64, j as f64) * cell;
                        if !blocked[j * n + i] && triangle_meets_box(flat, clo, clo + DVec2::splat(cell)) {
                            blocked[j * n + i] = true;
                        }
                    }
                }
            });
        }
    }
    for j in 0..n {
        for i in 0..n {
            if !blocked[j * n + i] {
                let c = origin + (DVec2::new(i as f64, j as f64) + 0.5) * cell;
                if ground.top_surface(DVec3::new(c.x, c.y, 0.0)).is_none() {
                    blocked[j * n + i] = true;
                }
            }
        }
    }
    blocked
}

/// Blocked cells read at their corners: either triangle through the corners' heights steep, or no
/// ground at a corner or at the centre. Each corner's height is asked once.
fn sampled(ground: &dyn Terrain, origin: DVec2, cell: f64, n: usize, max_slope: f64) -> Vec<bool> {
    let cos = max_slope.cos();
    let w = n + 1;
    let at = |i: usize, j: usize| origin + DVec2::new(i as f64, j as f64) * cell;
    let height = |p: DVec2| ground.top_surface(p.extend(0.0)).map(|s| s.point.z);
    let z: Vec<Option<f64>> = (0..w * w).map(|k| height(at(k % w, k / w))).collect();
    // The parity of the region's first cell in the global grid of cells of this side.
    let first = ((origin.x / cell).round() as i64 + (origin.y / cell).round() as i64).rem_euclid(2) as usize;
    let mut blocked = vec![true; n * n];
    for j in 0..n {
        for i in 0..n {
            let corner = |di: usize, dj: usize| z[(j + dj) * w + i + di].map(|h| at(i + di, j + dj).extend(h));
            let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
            if let [Some(a), Some(b), Some(c), Some(d)] = q {
                let centre = origin + (DVec2::new(i as f64, j as f64) + 0.5) * cell;
                blocked[j * n + i] =
                    height(centre).is_none() || cell_steep([a, b, c, d], (first + i + j).is_multiple_of(2), cos);
            }
        }
    }
    blocked
}

impl SlopeGrid {
    /// The grid of `n × n` cells of side `cell` from `origin`, blocked where `ground` is steeper
    /// than `max_slope` or absent: read exactly when `cell` is at most [`EXACT_UP_TO`], else at the
    /// cells' corners.
    pub(crate) fn new(ground: &dyn Terrain, origin: DVec2, cell: f64, n: usize, shift: i32, max_slope: f64) -> Self {
        let blocked = if cell <= EXACT_UP_TO {
            exact(ground, origin, cell, n, max_slope)
        } else {
            sampled(ground, origin, cell, n, max_slope)
        };
        let w = n + 1;
        let mut sum = vec![0u32; w * w];
        for j in 0..n {
            let mut row = 0u32;
            for i in 0..n {
                row += u32::from(blocked[j * n + i]);
                sum[(j + 1) * w + i + 1] = sum[j * w + i + 1] + row;
            }
        }
        Self { origin, cell, n, shift, blocked, sum }
    }

    /// The slope cells [i0, i1) meeting the finest cells [x0, x1) (one axis).
    #[inline]
    pub(crate) fn span(&self, x0: u32, x1: u32) -> (usize, usize) {
        let (x0, x1) = (x0 as usize, x1 as usize);
        if self.shift >= 0 {
            let s = self.shift as usize;
            (x0 >> s, ((x1 + (1 << s) - 1) >> s).min(self.n))
        } else {
            let s = (-self.shift) as usize;
            (x0 << s, (x1 << s).min(self.n))
        }
    }

    /// Blocked cells among cells [i0, i1) × [j0, j1).
    #[inline]
    pub(crate) fn count(&self, i0: usize, j0: usize, i1: usize, j1: usize) -> u32 {
        let w = self.n + 1;
        self.sum[j1 * w + i1] + self.sum[j0 * w + i0] - self.sum[j0 * w + i1] - self.sum[j1 * w + i0]
    }

    /// Whether cell (i, j) is blocked.
    #[inline]
    pub(crate) fn blocked(&self, i: usize, j: usize) -> bool {
        self.blocked[j * self.n + i]
    }

    /// The box of cell (i, j).
    #[inline]
    pub(crate) fn cell_box(&self, i: usize, j: usize) -> (DVec2, DVec2) {
        let lo = self.origin + DVec2::new(i as f64, j as f64) * self.cell;
        (lo, lo + DVec2::splat(self.cell))
    }

    /// The cells [i0, i1] × [j0, j1] meeting the box [lo, hi] (clamped to the grid).
    pub(crate) fn cells_in(&self, lo: DVec2, hi: DVec2) -> (usize, usize, usize, usize) {
        let (i0, j0) = cell_of((lo - self.origin) / self.cell, self.n);
        let (i1, j1) = cell_of((hi - self.origin) / self.cell, self.n);
        (i0, j0, i1, j1)
    }

    /// Whether a blocked cell contains the point `p` (closed cells).
    pub(crate) fn blocks_point(&self, p: DVec2) -> bool {
        let u = (p - self.origin) / self.cell;
        let (i0, j0) = cell_of(u - 1e-9, self.n);
        let (i1, j1) = cell_of(u + 1e-9, self.n);
        (j0..=j1).any(|j| (i0..=i1).any(|i| self.blocked(i, j)))
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.blocked.len() + 4 * self.sum.len()
    }
}

/// The cell holding the point `u` (in cell units), clamped to the grid.
#[inline]
pub(crate) fn cell_of(u: DVec2, n: usize) -> (usize, usize) {
    let c = |v: f64| (v.floor().max(0.0) as usize).min(n - 1);
    (c(u.x), c(u.y))
}

#[cfg(test)]
#[path = "slope_tests.rs"]
mod tests;
