//! The terrain generator: non-stationary stochastic quad-tree subdivision (the thesis' 2.4.1).
//!
//! The terrain is a stack of grids of cells, level 0 the finest (cells `cell_size` wide), level k
//! cells `cell_size · 2^k` wide; cell (i, j) of level k spans x ∈ [i·s_k, (i+1)·s_k). Each cell
//! carries the height of its midpoint and a roughness value. The top level's cells are hashed
//! directly; every finer cell comes from the nine parent cells around its parent: the bi-quadratic
//! through their midpoints evaluated at the child's midpoint (equations 2.1–2.3, table
//! `STENCIL` in the tests), plus a random offset scaled per level (1/f-like) and by 2^roughness (Musgrave's
//! suggestion), so plains, hills and mountains alternate. The roughness is itself subdivided the
//! same way with its own offsets at the coarse levels.
//!
//! Random values come from hashing (seed, level, i, j) with the SplitMix64 finaliser — never from a
//! sequential stream — so a cell depends only on its ancestors: any cell, in any order, on any
//! thread, is bitwise the same (f32 arithmetic in a fixed order, no fused operations).

use crate::rng::mix;

/// One cell of the subdivision: the height of its midpoint and its roughness (log2 of the offset
/// multiplier).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    /// Height of the cell's midpoint, metres.
    pub h: f32,
    /// Roughness: the cell's random offset is multiplied by 2^r.
    pub r: f32,
}

/// Weights of the 1-D quadratic through parents at −1, 0, 1 evaluated at −1/4 (equation 2.2),
/// times 32; the child at +1/4 uses them reversed.
pub const WEIGHTS_32: [f32; 3] = [5.0, 30.0, -3.0];

/// Equation 2.3: the bi-quadratic weights (× 1024) of the nine parent midpoints
/// `p[row][col]` (row = y − 1 .. y + 1, col = x − 1 .. x + 1) for the child at (−1/4, −1/4); the
/// other three children reflect it about the axes. The generator evaluates it separably (rows, then
/// the column), which is the same sum.
#[cfg(test)]
const STENCIL: [[f32; 3]; 3] = [[25.0, 150.0, -15.0], [150.0, 900.0, -90.0], [-15.0, -90.0, 9.0]];

/// Parameters of the generated landscape.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct WorldParams {
    /// Seed of every random value.
    pub seed: u64,
    /// Width of the finest (level 0) cells, metres.
    pub cell_size: f64,
    /// Number of levels; the top one (`levels − 1`) is hashed directly.
    pub levels: u8,
    /// Amplitude of the top level's heights, metres (uniform in ±relief).
    pub relief: f64,
    /// Fall-off of the offsets per level: level k's offsets have amplitude
    /// `relief · 2^(−(top − k)·hurst)` (1 = 1/f).
    pub hurst: f64,
    /// Amplitude of the roughness field at the top level (log2 units; 1.5 makes the offsets vary
    /// between about 0.35× and 2.8×); the field is clamped to ±2·roughness.
    pub roughness: f64,
    /// Moves the landscape by whole top-level cells: what is at the origin with anchor (0, 0) is
    /// around `anchor · top cell width` with this anchor (used to test precision far from the origin).
    pub anchor: [i64; 2],
}

impl Default for WorldParams {
    fn default() -> Self {
        Self { seed: 1, cell_size: 1.0, levels: 16, relief: 1500.0, hurst: 0.9, roughness: 1.5, anchor: [0, 0] }
    }
}

impl WorldParams {
    /// Checks every field's range: `cell_size` from 1 mm to 1,000 km,
    /// `levels` 1..=30, `relief` finite and ≥ 0, `hurst` in [0, 4], `roughness` in [0, 8] (the
    /// generator calls this).
    pub fn validate(&self) -> Result<(), WorldParamsError> {
        let bad = |f: &'static str, why: &str| Err(WorldParamsError::Invalid(f, why.to_string()));
        if !(MIN_CELL_SIZE..=MAX_CELL_SIZE).contains(&self.cell_size) {
            return bad("cell_size", "must be a width from 1 mm to 1,000 km (in metres)");
        }
        if !(1..=30).contains(&self.levels) {
            return bad("levels", "must be 1..=30");
        }
        if !(self.relief >= 0.0 && self.relief.is_finite()) {
            return bad("relief", "must be finite and ≥ 0");
        }
        if !(self.hurst >= 0.0 && self.hurst <= 4.0) {
            return bad("hurst", "must be in [0, 4]");
        }
        if !(self.roughness >= 0.0 && self.roughness <= 8.0) {
            return bad("roughness", "must be in [0, 8]");
        }
        Ok(())
    }
}

crate::with_setters!(WorldParams {
    seed: u64 => with_seed,
    cell_size: f64 => with_cell_size,
    levels: u8 => with_levels,
    relief: f64 => with_relief,
    hurst: f64 => with_hurst,
    roughness: f64 => with_roughness,
    anchor: [i64; 2] => with_anchor,
});

/// A parameter outside its domain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldParamsError {
    /// A parameter outside its domain; names it and says why.
    #[error("world parameter `{0}`: {1}")]
    Invalid(&'static str, String),
}

/// Narrowest finest cell accepted, metres (1 mm).
pub const MIN_CELL_SIZE: f64 = 1e-3;
/// Widest finest cell accepted, metres (1,000 km).
pub const MAX_CELL_SIZE: f64 = 1e6;

/// Roughness offsets are skipped below this many levels under the top (their amplitude would be
/// below 1/256 of the top's): the roughness varies over kilometres, not metres.
const ROUGH_LEVELS: u8 = 8;

/// The generator of one landscape: the per-level amplitudes and keys precomputed.
#[derive(Clone, Debug)]
pub struct Generator {
    params: WorldParams,
    /// Offset amplitude per level (the top level's is `relief`).
    amp: Vec<f32>,
    /// Roughness offset amplitude per level (0 below the roughness levels).
    rough_amp: Vec<f32>,
    /// Hash key per level.
    key: Vec<u64>,
    /// Cell width per level, metres.
    widths: Vec<f64>,
    /// Bound on |height| over the whole landscape.
    max_abs_height: f64,
    /// Roughness is clamped to ±2·`roughness`.
    r_max: f32,
}

impl Generator {
    /// A generator; checks the parameters.
    pub fn new(params: WorldParams) -> Result<Self, WorldParamsError> {
        params.validate()?;
        let top = params.levels - 1;
        let mut amp = Vec::new();
        let mut rough_amp = Vec::new();
        let mut key = Vec::new();
        for k in 0..params.levels {
            let below = (top - k) as f64;
            amp.push((params.relief * (-below * params.hurst).exp2()) as f32);
            let ra = if top - k <= ROUGH_LEVELS { params.roughness * (-below * 0.5).exp2() } else { 0.0 };
            rough_amp.push(ra as f32);
            key.push(mix(params.seed ^ mix(0x6c61_6e64_6661_6c6c ^ k as u64)));
        }
        // Bound: each level adds at most amp · 2^(max roughness) to a stencil whose weights sum to 1
        // with absolute sum (38/32)² per level (rigorous, and loose).
        let r_max = 2.0 * params.roughness;
        let mut bound = params.relief;
        for k in (0..top).rev() {
            bound = bound * (38.0f64 / 32.0).powi(2) + amp[k as usize] as f64 * r_max.exp2();
        }
        let widths = (0..=top).map(|k| params.cell_size * (k as f64).exp2()).collect();
        Ok(Self { r_max: r_max as f32, params, amp, rough_amp, key, widths, max_abs_height: bound + 1.0 })
    }

    /// The parameters.
    pub fn params(&self) -> &WorldParams {
        &self.params
    }

    /// The top level (hashed directly).
    pub fn top(&self) -> u8 {
        self.params.levels - 1
    }

    /// Width of a cell of `level`, metres.
    #[inline]
    pub fn cell_width(&self, level: u8) -> f64 {
        self.widths.get(level as usize).copied().unwrap_or_else(|| self.params.cell_size * (level as f64).exp2())
    }

    /// A bound on |height| anywhere: rigorous, and loose (the stencil may overshoot its parents by
    /// (38/32)² per level, which smooth data never does), so rays use it only as a last resort.
    pub fn max_abs_height(&self) -> f64 {
        self.max_abs_height
    }

    /// Two uniform values in [−1, 1) for cell (i, j) of `level`: one for the height offset, one for
    /// the roughness offset. The landscape repeats after 2^32 cells of a level.
    #[inline]
    fn noise(&self, level: u8, i: i64, j: i64) -> (f32, f32) {
        let shift = (self.top() - level) as u32;
        let ia = i.wrapping_sub(self.params.anchor[0].wrapping_shl(shift));
        let ja = j.wrapping_sub(self.params.anchor[1].wrapping_shl(shift));
        let packed = ((ia as u32 as u64) << 32) | ja as u32 as u64;
        let h = mix(packed ^ self.key[level as usize]);
        let scale = 1.0 / (1u32 << 23) as f32;
        let a = ((h >> 40) as i32 - (1 << 23)) as f32 * scale;
        let b = (((h >> 8) & 0xff_ffff) as i32 - (1 << 23)) as f32 * scale;
        (a, b)
    }

    /// A cell of the top level, hashed directly.
    #[inline]
    pub fn top_cell(&self, i: i64, j: i64) -> Cell {
        let top = self.top();
        let (a, b) = self.noise(top, i, j);
        Cell { h: self.amp[top as usize] * a, r: self.rough_amp[top as usize] * b }
    }

    /// The four children (2pi + a, 2pj + b), a, b ∈ {0, 1}, at `child_level` of the parent at
    /// (pi, pj), from the nine parents `p[row][col]` around it (row = pj − 1 .. pj + 1, col =
    /// pi − 1 .. pi + 1). Returns `[[c(0,0), c(1,0)], [c(0,1), c(1,1)]]` (indexed `[b][a]`).
    #[inline]
    pub fn children(&self, child_level: u8, pi: i64, pj: i64, p: &[[Cell; 3]; 3]) -> [[Cell; 2]; 2] {
        let w = WEIGHTS_32;
        let row = |r: &[Cell; 3], f: fn(&Cell) -> f32| -> [f32; 2] {
            let (a, b, c) = (f(&r[0]), f(&r[1]), f(&r[2]));
            [w[0] * a + w[1] * b + w[2] * c, w[2] * a + w[1] * b + w[0] * c]
        };
        let hr = [row(&p[0], |c| c.h), row(&p[1], |c| c.h), row(&p[2], |c| c.h)];
        let rr = [row(&p[0], |c| c.r), row(&p[1], |c| c.r), row(&p[2], |c| c.r)];
        let amp = self.amp[child_level as usize];
        let ramp = self.rough_amp[child_level as usize];
        let r_max = self.r_max;
        let scale = 1.0 / 1024.0;
        let mut out = [[Cell::default(); 2]; 2];
        for (b, wy) in [[w[0], w[1], w[2]], [w[2], w[1], w[0]]].iter().enumerate() {
            for a in 0..2 {
                let h = (wy[0] * hr[0][a] + wy[1] * hr[1][a] + wy[2] * hr[2][a]) * scale;
                let r = (wy[0] * rr[0][a] + wy[1] * rr[1][a] + wy[2] * rr[2][a]) * scale;
                let (i, j) = (2 * pi + a as i64, 2 * pj + b as i64);
                let (na, nb) = self.noise(child_level, i, j);
                let r = (r + ramp * nb).clamp(-r_max, r_max);
                out[b][a] = Cell { h: h + amp * r.exp2() * na, r };
            }
        }
        out
    }

    /// The cells [i0, i0 + nx) × [j0, j0 + ny) of `level`, row-major (`out[(j − j0)·nx + (i − i0)]`),
    /// generated from the top level down through just the ancestors they need.
    pub fn patch(&self, level: u8, i0: i64, j0: i64, nx: usize, ny: usize) -> Vec<Cell> {
        let (mut out, mut spare) = (Vec::new(), Vec::new());
        self.patch_into(level, [i0, j0], [nx, ny], &mut out, &mut spare);
        out
    }

    /// [`Self::patch`] of the `n[0] × n[1]` cells from `lo` into `out`; `spare` is scratch.
    fn patch_into(
        &self,
        level: u8,
        [i0, j0]: [i64; 2],
        [nx, ny]: [usize; 2],
        out: &mut Vec<Cell>,
        spare: &mut Vec<Cell>,
    ) {
        assert!(level <= self.top(), "level {level} above the top level {}", self.top());
        out.clear();
        if nx == 0 || ny == 0 {
            return;
        }
        let (i1, j1) = (i0 + nx as i64 - 1, j0 + ny as i64 - 1);
        if level == self.top() {
            for j in j0..=j1 {
                out.extend((i0..=i1).map(|i| self.top_cell(i, j)));
            }
            return;
        }
        // Parents of the children's parents, with one parent of margin each side (into `spare`,
        // with `out` as its scratch).
        let (pi0, pj0) = (i0.div_euclid(2) - 1, j0.div_euclid(2) - 1);
        let (pi1, pj1) = (i1.div_euclid(2) + 1, j1.div_euclid(2) + 1);
        let pnx = (pi1 - pi0 + 1) as usize;
        self.patch_into(level + 1, [pi0, pj0], [pnx, (pj1 - pj0 + 1) as usize], spare, out);
        let parents = &*spare;
        let at = |i: i64, j: i64| parents[(j - pj0) as usize * pnx + (i - pi0) as usize];
        out.clear();
        out.resize(nx * ny, Cell::default());
        for pj in pj0 + 1..pj1 {
            for pi in pi0 + 1..pi1 {
                let p = [
                    [at(pi - 1, pj - 1), at(pi, pj - 1), at(pi + 1, pj - 1)],
                    [at(pi - 1, pj), at(pi, pj), at(pi + 1, pj)],
                    [at(pi - 1, pj + 1), at(pi, pj + 1), at(pi + 1, pj + 1)],
                ];
                let kids = self.children(level, pi, pj, &p);
                for (b, row) in kids.iter().enumerate() {
                    for (a, &c) in row.iter().enumerate() {
                        let (i, j) = (2 * pi + a as i64, 2 * pj + b as i64);
                        if (i0..=i1).contains(&i) && (j0..=j1).contains(&j) {
                            out[(j - j0) as usize * nx + (i - i0) as usize] = c;
                        }
                    }
                }
            }
        }
    }

    /// Corner heights (the mean of the four cells around each corner, as the mesh uses them) at grid
    /// lines [i0, i0 + nx) × [j0, j0 + ny) of `level`, row-major, south row first: a heightfield of
    /// the landscape with `cell_width(level)` spacing whose sample (0, 0) stands at
    /// (i0, j0) · `cell_width(level)`.
    pub fn corner_grid(&self, level: u8, i0: i64, j0: i64, nx: usize, ny: usize) -> Vec<f32> {
        let cells = self.patch(level, i0 - 1, j0 - 1, nx + 1, ny + 1);
        let at = |a: usize, b: usize| cells[b * (nx + 1) + a].h;
        // A heightfield's samples: on 2 MiB pages where the OS offers them (see `sample_buffer`).
        let mut out = crate::pages::sample_buffer(nx * ny);
        for (b, row) in out.chunks_mut(nx.max(1)).enumerate() {
            for (a, h) in row.iter_mut().enumerate() {
                *h = corner_height(at(a, b), at(a + 1, b), at(a, b + 1), at(a + 1, b + 1));
            }
        }
        out
    }

    /// One cell (slow: generates its ancestors; for tests and one-off queries).
    pub fn cell(&self, level: u8, i: i64, j: i64) -> Cell {
        self.patch(level, i, j, 1, 1)[0]
    }
}

/// Height of the corner shared by cells (i−1..i) × (j−1..j): the mean of the four midpoints around
/// it (the thesis' 3.3.4), summed in one fixed order so every caller gets the same bits.
#[inline]
pub fn corner_height(sw: f32, se: f32, nw: f32, ne: f32) -> f32 {
    0.25 * ((sw + se) + (nw + ne))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equation 2.3 is the outer product of equation 2.2 with itself.
    #[test]
    fn stencil_is_the_square_of_the_1d_weights() {
        for r in 0..3 {
            for c in 0..3 {
                assert_eq!(STENCIL[r][c], WEIGHTS_32[r] * WEIGHTS_32[c]);
            }
        }
        assert_eq!(WEIGHTS_32.iter().sum::<f32>(), 32.0);
        // Equation 2.1 at −1/4 reproduces equation 2.2.
        let f = |x: f64, p: [f64; 3]| {
            -0.5 * p[0] * x * (1.0 - x) + p[1] * (1.0 + x) * (1.0 - x) + 0.5 * p[2] * (1.0 + x) * x
        };
        for (k, e) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].iter().enumerate() {
            assert!((f(-0.25, *e) * 32.0 - WEIGHTS_32[k] as f64).abs() < 1e-12);
        }
    }

    /// A quadratic surface is reproduced exactly by the stencil (no noise: zero amplitudes).
    #[test]
    fn stencil_reproduces_quadratics() {
        let g = Generator::new(WorldParams { relief: 0.0, roughness: 0.0, ..WorldParams::default() }).unwrap();
        let q = |x: f64, y: f64| 0.5 * x * x - 0.25 * x * y + 2.0 * y * y + x - 3.0 * y + 1.0;
        let mut p = [[Cell::default(); 3]; 3];
        for (r, row) in p.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                cell.h = q(c as f64 - 1.0, r as f64 - 1.0) as f32;
            }
        }
        let kids = g.children(3, 10, 20, &p);
        for (b, row) in kids.iter().enumerate() {
            for (a, cell) in row.iter().enumerate() {
                let (x, y) = (if a == 0 { -0.25 } else { 0.25 }, if b == 0 { -0.25 } else { 0.25 });
                assert!((cell.h as f64 - q(x, y)).abs() < 1e-5, "{a},{b}: {} vs {}", cell.h, q(x, y));
            }
        }
    }

    /// A patch equals its cells generated one at a time, in any order, and a shifted patch overlaps it
    /// bitwise.
    #[test]
    fn cells_depend_only_on_their_ancestors() {
        let g = Generator::new(WorldParams { levels: 8, ..WorldParams::default() }).unwrap();
        let p = g.patch(0, -7, 5, 9, 6);
        for (n, c) in p.iter().enumerate() {
            let (i, j) = (-7 + (n % 9) as i64, 5 + (n / 9) as i64);
            assert_eq!(g.cell(0, i, j), *c);
        }
        let q = g.patch(0, -3, 7, 4, 3);
        for j in 0..3 {
            for i in 0..4 {
                assert_eq!(q[j * 4 + i], p[(j + 2) * 9 + i + 4]);
            }
        }
        // A different seed is a different landscape.
        let h = Generator::new(WorldParams { levels: 8, seed: 2, ..WorldParams::default() }).unwrap();
        assert_ne!(h.patch(0, -7, 5, 9, 6), p);
    }

    /// The anchor moves the landscape by whole top-level cells.
    #[test]
    fn anchor_translates_the_landscape() {
        let g = Generator::new(WorldParams { levels: 6, ..WorldParams::default() }).unwrap();
        let a = Generator::new(WorldParams { levels: 6, anchor: [3, -2], ..WorldParams::default() }).unwrap();
        let shift = 1 << 5;
        assert_eq!(g.patch(0, 10, 20, 5, 5), a.patch(0, 10 + 3 * shift, 20 - 2 * shift, 5, 5));
    }

    #[test]
    fn bad_parameters_are_named() {
        for (p, field) in [
            (WorldParams { cell_size: 0.0, ..WorldParams::default() }, "cell_size"),
            (WorldParams { levels: 0, ..WorldParams::default() }, "levels"),
            (WorldParams { relief: f64::NAN, ..WorldParams::default() }, "relief"),
            (WorldParams { hurst: -1.0, ..WorldParams::default() }, "hurst"),
            (WorldParams { roughness: 9.0, ..WorldParams::default() }, "roughness"),
        ] {
            let e = Generator::new(p).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
    }

    /// Heights stay within the documented bound.
    #[test]
    fn heights_within_bound() {
        let g = Generator::new(WorldParams::default()).unwrap();
        let p = g.patch(4, -50, -50, 100, 100);
        let m = p.iter().map(|c| c.h.abs() as f64).fold(0.0, f64::max);
        assert!(m > 50.0 && m < g.max_abs_height(), "{m} vs {}", g.max_abs_height());
    }
}
