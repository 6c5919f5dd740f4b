//! One level of a [`BroadPhase`](super::BroadPhase) as rebuilt (objects' fat spheres): its objects in contiguous
//! arrays sorted by cell (layers k, then rows j, then columns i; a level not split by height has one
//! layer, k = 0, whatever z), the occupied cells with where their objects start, and, where the
//! level's cells are few, a directory of every cell for lookups in constant time.

use super::boxes::Box32;
use super::levels::{half_width, Levels};
use super::sort;
use super::Vertical;
use glam::DVec3;

/// An object as the search reads it: centre and radius (32 bytes aligned: one cache line each).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(super) struct Sphere {
    pub c: DVec3,
    pub r: f64,
}

impl Sphere {
    /// Half-width of its box ([`half_width`]).
    #[inline]
    pub fn h(&self) -> f64 {
        half_width(self.c.abs().max_element(), self.r)
    }
}

/// A level's objects sorted by cell, and its cells.
#[derive(Clone, Debug, Default)]
pub(super) struct Level {
    /// The level's index in [`Levels`].
    pub t: usize,
    /// The columns, rows and layers the objects occupy: `imin ..= imin + nx − 1`,
    /// `jmin ..= jmin + ny − 1`, `kmin ..= kmin + nz − 1` (`kmin = 0, nz = 1` unless split by height).
    pub imin: i64,
    pub jmin: i64,
    pub kmin: i64,
    pub nx: i64,
    pub ny: i64,
    pub nz: i64,
    /// Whether the cells are split by height (layer k spans z in `[(k − ½)·w, (k + ½)·w)`).
    pub vertical: bool,
    /// Largest half-width of an object's box.
    pub hmax: f64,
    /// Occupied cells' keys (`((k − kmin)·ny + j − jmin)·nx + (i − imin)`), ascending.
    pub cells: Vec<u64>,
    /// Where each occupied cell's objects start (one more entry: the end).
    pub cstart: Vec<u32>,
    /// Dense levels: for every cell key c, where the objects after cell c start (so cell c holds
    /// `dense[c − 1] .. dense[c]`, `0` standing for `dense[−1]`). Empty for sparse levels.
    dense: Vec<u32>,
    /// Sparse levels: one bit per block of `2^occ_shift × 2^occ_shift` cells of the grid of columns
    /// × (layer, row) pairs (row-major, `occ_nx` blocks a row), set where the block holds an object
    /// — about one block in 16 — so that most lookups of empty cells end on one or two bits.
    occ: Vec<u64>,
    occ_shift: u32,
    occ_nx: i64,
    /// The objects in cell order: f32 boxes, spheres, proxies.
    pub boxes: Vec<Box32>,
    pub spheres: Vec<Sphere>,
    pub proxies: Vec<u32>,
    // Scratch, kept for its capacity: keys, layers and sort buffers.
    keys: Vec<u64>,
    layer: Vec<i32>,
    vals: Vec<u32>,
    tmp_keys: Vec<u64>,
    tmp_vals: Vec<u32>,
}

/// Dense when the cells spanned are at most this many per object (plus a few).
const DENSE_CELLS_PER_OBJECT: u128 = 4;

/// [`Vertical::Auto`] splits a level by height where its objects' centres span more than this many
/// layers (cells of z as wide as the level's)...
pub(super) const VERTICAL_LAYERS: i64 = 4;

/// ... and stand at least this many to a column of the rectangle of cells they span. Measured
/// (`examples/vertical_sweep.rs`, `docs/benchmarks.md`): at 2.5 objects a column a split costs
/// 10–20 % whatever the spread (the candidates it saves are cheaper than the rows it adds); at 10
/// it gains from 4–5 layers on, at 40 from 2–4 layers (2.3× at 16 layers).
const VERTICAL_CROWD: u128 = 8;

/// Layer indices allowed (beyond: the level stays unsplit): within ±2³⁰, like columns and rows.
const LAYER_SPAN: (i64, i64) = (-(1 << 30) - 1, (1 << 30) + 1);

impl Level {
    /// Rebuilds the level `t` from the objects `members` (proxies into `all`), split by height as
    /// `vertical` says (never where a layer index would leave ±2³⁰ or the keys 2⁶²).
    pub fn build(&mut self, levels: &Levels, t: usize, members: &[u32], all: &[Sphere], vertical: Vertical) {
        self.t = t;
        let (mut imin, mut imax, mut jmin, mut jmax) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
        let (mut kmin, mut kmax) = (i64::MAX, i64::MIN);
        self.keys.clear();
        self.layer.clear();
        let layered = vertical != Vertical::Never;
        for &p in members {
            let s = &all[p as usize];
            let (i, j) = (levels.index(t, s.c.x), levels.index(t, s.c.y));
            (imin, imax, jmin, jmax) = (imin.min(i), imax.max(i), jmin.min(j), jmax.max(j));
            // The cell as two biased halves (rewritten as a key below).
            self.keys.push((((j + (1 << 31)) as u64) << 32) | (i + (1 << 31)) as u64);
            if layered {
                let k = levels.index_within(t, s.c.z, LAYER_SPAN);
                (kmin, kmax) = (kmin.min(k), kmax.max(k));
                self.layer.push(k as i32);
            }
        }
        (self.imin, self.jmin, self.nx, self.ny) = (imin, jmin, imax - imin + 1, jmax - jmin + 1);
        let n = members.len();
        let nz = kmax.wrapping_sub(kmin).wrapping_add(1);
        self.vertical = layered
            && n > 0
            && LAYER_SPAN.0 < kmin
            && kmax < LAYER_SPAN.1
            && self.nx as u128 * self.ny as u128 * nz as u128 <= 1 << 62
            && (vertical == Vertical::Always
                || nz > VERTICAL_LAYERS && n as u128 >= VERTICAL_CROWD * self.nx as u128 * self.ny as u128);
        (self.kmin, self.nz) = if self.vertical { (kmin, nz) } else { (0, 1) };
        let (nx, ny) = (self.nx as u64, self.ny as u64);
        let (bi, bj) = ((imin + (1 << 31)) as u64, (jmin + (1 << 31)) as u64);
        if self.vertical {
            for (key, &k) in self.keys.iter_mut().zip(&self.layer) {
                let row = (k as i64 - kmin) as u64 * ny + ((*key >> 32) - bj);
                *key = row * nx + ((*key & 0xffff_ffff) - bi);
            }
        } else {
            for key in &mut self.keys {
                *key = ((*key >> 32) - bj) * nx + ((*key & 0xffff_ffff) - bi);
            }
        }
        self.vals.clear();
        self.vals.extend_from_slice(members);
        let cells = self.nx as u128 * self.ny as u128 * self.nz as u128;
        if cells <= DENSE_CELLS_PER_OBJECT * n as u128 + 64 {
            sort::counting(
                &self.keys,
                &self.vals,
                cells as usize,
                &mut self.dense,
                &mut self.tmp_keys,
                &mut self.tmp_vals,
            );
            std::mem::swap(&mut self.keys, &mut self.tmp_keys);
            std::mem::swap(&mut self.vals, &mut self.tmp_vals);
        } else {
            self.dense.clear();
            sort::radix(&mut self.keys, &mut self.vals, &mut self.tmp_keys, &mut self.tmp_vals);
        }
        self.cells.clear();
        self.cstart.clear();
        for (x, &k) in self.keys.iter().enumerate() {
            if self.cells.last() != Some(&k) {
                self.cells.push(k);
                self.cstart.push(x as u32);
            }
        }
        self.cstart.push(n as u32);
        self.occ.clear();
        if self.dense.is_empty() {
            self.occ_shift = 0;
            let rows = self.ny as u128 * self.nz as u128;
            let blocks = |s: u32| (self.nx as u128).div_ceil(1 << s) * rows.div_ceil(1 << s);
            while blocks(self.occ_shift) > 16 * n as u128 + 1024 {
                self.occ_shift += 1;
            }
            self.occ_nx = (self.nx as u64).div_ceil(1 << self.occ_shift) as i64;
            self.occ.resize((blocks(self.occ_shift) as usize).div_ceil(64), 0);
            for &k in &self.cells {
                let (i, j) = ((k % nx) as i64, (k / nx) as i64);
                let b = ((j >> self.occ_shift) * self.occ_nx + (i >> self.occ_shift)) as usize;
                self.occ[b / 64] |= 1 << (b % 64);
            }
        }
        self.boxes.clear();
        self.spheres.clear();
        self.proxies.clear();
        // The gather alone first (independent loads, as many in flight as the core allows), then the
        // boxes from the gathered spheres in order (with the level's largest half-width).
        self.spheres.extend(self.vals.iter().map(|&p| all[p as usize]));
        self.proxies.extend_from_slice(&self.vals);
        let mut hmax = 0.0f64;
        self.boxes.extend(self.spheres.iter().map(|s| {
            let h = s.h();
            hmax = hmax.max(h);
            let (lo, hi) = (s.c - DVec3::splat(h), s.c + DVec3::splat(h));
            Box32::around(lo.to_array(), hi.to_array())
        }));
        self.hmax = hmax;
    }

    /// The cell (i, j, k) of a key.
    #[inline]
    pub fn cell(&self, key: u64) -> (i64, i64, i64) {
        let (nx, ny) = (self.nx as u64, self.ny as u64);
        let row = key / nx;
        ((key % nx) as i64 + self.imin, (row % ny) as i64 + self.jmin, (row / ny) as i64 + self.kmin)
    }

    /// The layers `k0 ..= k1` whose objects' centres may lie in z `[lo, hi]` (bounds computed by
    /// `index`, clamped beyond the level's span; `(0, 0)` on a level not split by height).
    #[inline]
    pub fn layers(&self, levels: &Levels, lo: f64, hi: f64) -> (i64, i64) {
        if !self.vertical {
            return (0, 0);
        }
        let span = (self.kmin - 1, self.kmin + self.nz);
        (levels.index_within(self.t, lo, span), levels.index_within(self.t, hi, span))
    }

    /// The index into the grid of columns × (layer, row) pairs of row `j` of layer `k`, `None`
    /// outside the level's span.
    #[inline]
    fn grid_row(&self, j: i64, k: i64) -> Option<i64> {
        let (j, k) = (j - self.jmin, k - self.kmin);
        ((0..self.ny).contains(&j) && (0..self.nz).contains(&k)).then_some(k * self.ny + j)
    }

    /// Whether the cells `i0 ..= i1` × `j0 ..= j1` × `k0 ..= k1` may hold an object (false: they
    /// hold none).
    #[inline]
    pub fn may_hold(&self, (i0, i1): (i64, i64), (j0, j1): (i64, i64), (k0, k1): (i64, i64)) -> bool {
        let (i0, i1) = (i0.max(self.imin), i1.min(self.imin + self.nx - 1));
        let (j0, j1) = (j0.max(self.jmin), j1.min(self.jmin + self.ny - 1));
        let (k0, k1) = (k0.max(self.kmin), k1.min(self.kmin + self.nz - 1));
        if i0 > i1 || j0 > j1 || k0 > k1 {
            return false;
        }
        if self.occ.is_empty() {
            return true;
        }
        let s = self.occ_shift;
        let (b0, b1) = ((i0 - self.imin) >> s, (i1 - self.imin) >> s);
        for k in k0..=k1 {
            let r = (k - self.kmin) * self.ny - self.jmin;
            for bj in (r + j0) >> s..=(r + j1) >> s {
                for b in b0..=b1 {
                    let b = (bj * self.occ_nx + b) as usize;
                    if self.occ[b / 64] & (1 << (b % 64)) != 0 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The objects (a range of the sorted arrays) in the cells `i0 ..= i1` of row `j` of layer `k`
    /// (0 on a level not split by height). `finger` is a place in [`Self::cells`] near the answer
    /// (sparse levels search from it and leave it there).
    #[inline]
    pub fn row(&self, j: i64, k: i64, i0: i64, i1: i64, finger: &mut usize) -> (usize, usize) {
        let (i0, i1) = (i0.max(self.imin), i1.min(self.imin + self.nx - 1));
        let Some(r) = self.grid_row(j, k).filter(|_| i0 <= i1) else { return (0, 0) };
        let (k0, k1) = ((r * self.nx + i0 - self.imin) as u64, (r * self.nx + i1 - self.imin) as u64);
        if !self.dense.is_empty() {
            let from = if k0 == 0 { 0 } else { self.dense[k0 as usize - 1] };
            return (from as usize, self.dense[k1 as usize] as usize);
        }
        let (bj, b0, b1) =
            (r >> self.occ_shift, (i0 - self.imin) >> self.occ_shift, (i1 - self.imin) >> self.occ_shift);
        if (b0..=b1).all(|b| {
            let b = (bj * self.occ_nx + b) as usize;
            self.occ[b / 64] & (1 << (b % 64)) == 0
        }) {
            return (0, 0);
        }
        let p = gallop(&self.cells, k0, *finger);
        *finger = p;
        let mut q = p;
        while q < self.cells.len() && self.cells[q] <= k1 {
            q += 1;
        }
        (self.cstart[p] as usize, self.cstart[q] as usize)
    }
}

/// The first place in the ascending `keys` holding a key ≥ `k`, searched outward from `from`
/// (exponential steps, then bisection): O(log distance).
#[inline]
fn gallop(keys: &[u64], k: u64, from: usize) -> usize {
    let n = keys.len();
    let from = from.min(n);
    // The answer lies in (lo, hi]: keys[lo] < k (or lo = −1), keys[hi] ≥ k (or hi = n).
    let (mut lo, mut hi): (isize, isize);
    if from < n && keys[from] < k {
        let mut step = 1;
        lo = from as isize;
        loop {
            let at = from + step;
            if at >= n {
                hi = n as isize;
                break;
            }
            if keys[at] >= k {
                hi = at as isize;
                break;
            }
            lo = at as isize;
            step *= 2;
        }
    } else {
        let mut step = 1;
        hi = from as isize;
        loop {
            if step > from {
                lo = -1;
                break;
            }
            let at = from - step;
            if keys[at] < k {
                lo = at as isize;
                break;
            }
            hi = at as isize;
            step *= 2;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if keys[mid as usize] < k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search from any place finds what a bisection from scratch finds.
    #[test]
    fn gallop_equals_partition_point() {
        let keys: Vec<u64> = vec![1, 3, 3, 4, 9, 12, 12, 13, 20, 40, 41, 42];
        for k in 0..45 {
            let want = keys.partition_point(|&x| x < k);
            for from in 0..=keys.len() + 2 {
                assert_eq!(gallop(&keys, k, from), want, "k {k} from {from}");
            }
        }
        assert_eq!(gallop(&[], 5, 0), 0);
    }
}
