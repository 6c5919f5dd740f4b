//! A jump table over the first levels of a halves-cut quadtree: the node reached after `level`
//! descents for each cell of a 2^level × 2^level grid, so a query replaces those dependent loads by
//! one lookup in a table that stays in L1 cache.
//!
//! Exact, not approximate: the grid lines are computed by the same halving as the quadtree's cut
//! lines (bit for bit), and a point's cell is found by comparing against those lines, so the jump
//! lands on the node the full descent would reach.

use super::quadtree::Node;

/// Deepest level the table covers (256 × 256 cells, 256 KiB: stays in L2 cache).
pub const JUMP_LEVEL: u32 = 8;

/// Cells of the table along each axis.
const N: usize = 1 << JUMP_LEVEL;

/// See the [module docs](self).
///
/// The arrays have fixed sizes, so that a lookup (a cell index clamped to `N − 1`) needs no
/// bounds checks.
#[derive(Clone, Debug)]
pub struct Jump {
    /// The grid lines along x and y, except that the first is −∞ and the last +∞ (a point inside
    /// the root is then never left of line 0 or right of line `N`, without a bounds test).
    xs: Box<[f64; N + 1]>,
    ys: Box<[f64; N + 1]>,
    /// The root's south-west corner and cells per unit length: a first guess of a point's cell.
    origin: [f64; 2],
    scale: [f64; 2],
    /// The node of each cell, row by row from the south-west.
    cells: Box<[u32; N * N]>,
}

/// The 2^level + 1 lines of `[lo, hi]` cut in halves `level` times, as the quadtree computes them.
pub(crate) fn lines(lo: f64, hi: f64, level: u32) -> Vec<f64> {
    let n = 1usize << level;
    let mut v = vec![0.0; n + 1];
    (v[0], v[n]) = (lo, hi);
    for l in 1..=level {
        let step = n >> l;
        for k in (1..1usize << l).step_by(2) {
            v[k * step] = 0.5 * (v[(k - 1) * step] + v[(k + 1) * step]);
        }
    }
    v
}

impl Jump {
    /// The table for a tree whose root rectangle is `root`: one walk over the nodes of the first
    /// [`JUMP_LEVEL`] levels, each filling the block of cells it covers (indices checked: the tree
    /// may come from an unvalidated file).
    pub fn new(nodes: &[Node], root: [f64; 4]) -> Self {
        let (level, n) = (JUMP_LEVEL, N);
        let (xs, ys) = (lines(root[0], root[2], level), lines(root[1], root[3], level));
        let mut cells: Box<[u32; N * N]> = vec![0u32; N * N].into_boxed_slice().try_into().expect("N² cells");
        // (node, level, first cell column, first cell row).
        let mut stack = vec![(0usize, 0u32, 0usize, 0usize)];
        let mut visits = nodes.len().min(4 * n * n);
        while let Some((k, l, i0, j0)) = stack.pop() {
            let size = n >> l;
            let Some(node) = nodes.get(k).filter(|_| visits > 0) else { continue };
            visits -= 1;
            if node.is_leaf() || l == level {
                for j in j0..j0 + size {
                    cells[j * n + i0..j * n + i0 + size].fill(k as u32);
                }
                continue;
            }
            let half = size / 2;
            if l + 1 == level {
                // Children one cell each (most of the nodes visited): written here, not pushed.
                for c in 0..4 {
                    let child = node.first as usize + c;
                    if child < nodes.len() && visits > 0 {
                        visits -= 1;
                        cells[(j0 + (c >> 1)) * n + i0 + (c & 1)] = child as u32;
                    }
                }
                continue;
            }
            for c in 0..4 {
                let child = node.first as usize + c;
                stack.push((child, l + 1, i0 + (c & 1) * half, j0 + (c >> 1) * half));
            }
        }
        let w = [(root[2] - root[0]).max(f64::MIN_POSITIVE), (root[3] - root[1]).max(f64::MIN_POSITIVE)];
        let guarded = |v: Vec<f64>| {
            let mut v: Box<[f64; N + 1]> = v.into_boxed_slice().try_into().expect("N + 1 lines");
            (v[0], v[n]) = (f64::NEG_INFINITY, f64::INFINITY);
            v
        };
        let (origin, scale) = ([root[0], root[1]], [n as f64 / w[0], n as f64 / w[1]]);
        Self { xs: guarded(xs), ys: guarded(ys), origin, scale, cells }
    }

    /// First guesses of the cells holding local (x, y), `(p − origin)·scale` truncated, each in
    /// `[0, N − 1]` (the caller checked the point is within the root, so they are in `[0, N]`; a
    /// rounded guess is put right by [`find`](Self::find)).
    #[inline(always)]
    fn guess(&self, x: f64, y: f64) -> (usize, usize) {
        #[cfg(target_arch = "x86_64")]
        let (i, j) = {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of every x86-64 target. Both axes in one vector, never met
            // here but defined for every input: the min gives its second operand (N − 1) for a
            // NaN, and the conversion gives i32::MIN for a value out of range (the clamp below
            // turns it into a valid guess).
            unsafe {
                let p = _mm_sub_pd(_mm_set_pd(y, x), _mm_loadu_pd(self.origin.as_ptr()));
                let v = _mm_min_pd(_mm_mul_pd(p, _mm_loadu_pd(self.scale.as_ptr())), _mm_set1_pd((N - 1) as f64));
                let g = _mm_cvttpd_epi32(v);
                (_mm_cvtsi128_si32(g) as u32 as usize, _mm_cvtsi128_si32(_mm_srli_si128::<4>(g)) as u32 as usize)
            }
        };
        // Through i32: one conversion instruction (f64 → usize takes a dozen).
        #[cfg(not(target_arch = "x86_64"))]
        let (i, j) = (
            ((x - self.origin[0]) * self.scale[0]) as i32 as usize,
            ((y - self.origin[1]) * self.scale[1]) as i32 as usize,
        );
        (i.min(N - 1), j.min(N - 1))
    }

    /// Index of the cell of `lines` (guarded, see [`Jump::xs`]) holding `x`, from the guess `g`
    /// (in `[0, N − 1]`).
    #[inline(always)]
    fn find(lines: &[f64; N + 1], mut g: usize, x: f64) -> usize {
        // The guess holds nearly always: one test of both lines, then a walk when rounding put it
        // a cell off.
        if x >= lines[g] && x < lines[g + 1] {
            return g;
        }
        while x < lines[g] {
            g -= 1;
        }
        while x >= lines[g + 1] {
            g += 1;
        }
        g
    }

    /// The node to continue the descent from for local (x, y) inside the root.
    #[inline(always)]
    pub fn start(&self, x: f64, y: f64) -> usize {
        let (gi, gj) = self.guess(x, y);
        let (i, j) = (Self::find(&self.xs, gi, x), Self::find(&self.ys, gj, y));
        self.cells[j * N + i] as usize
    }
}
