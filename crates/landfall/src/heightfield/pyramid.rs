//! The min/max pyramid (the 2017 paper's T-pyramid), array-backed, for any grid size.
//!
//! Level 0 holds one node per leaf block of `leaf × leaf` cells (the last row and column of blocks
//! may be partial); level k+1 merges 2×2 nodes of level k, until one node remains. Each node stores
//! the lowest and highest valid (non-NaN) sample of its block, edges included, so the triangles of
//! its cells lie inside `[min, max]`. All levels live in one flat array.

use rayon::prelude::*;

/// Height range of a block: `[min, max]`; an all-NaN block is `[+∞, −∞]` (never hit).
pub type Range = [f32; 2];

const EMPTY: Range = [f32::INFINITY, f32::NEG_INFINITY];

/// One level's layout inside the flat node array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Level {
    /// Nodes along x.
    pub nbx: usize,
    /// Nodes along y.
    pub nby: usize,
    /// Index of the level's first node in the flat array.
    pub offset: usize,
    /// Cells covered by one node along each axis (leaf · 2^level).
    pub span: usize,
}

/// Min/max pyramid over a heightfield's samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Pyramid {
    leaf: usize,
    ncx: usize,
    ncy: usize,
    levels: Vec<Level>,
    nodes: Vec<Range>,
}

#[inline]
fn merge(a: Range, b: Range) -> Range {
    [a[0].min(b[0]), a[1].max(b[1])]
}

impl Pyramid {
    /// Builds the pyramid for an `nx × ny` grid with leaves of `leaf × leaf` cells.
    pub(crate) fn build(heights: &[f32], nx: usize, ny: usize, leaf: usize) -> Self {
        let (ncx, ncy) = (nx - 1, ny - 1);
        let mut levels = Vec::new();
        let (mut nbx, mut nby, mut span, mut offset) = (ncx.div_ceil(leaf), ncy.div_ceil(leaf), leaf, 0);
        loop {
            levels.push(Level { nbx, nby, offset, span });
            offset += nbx * nby;
            if nbx == 1 && nby == 1 {
                break;
            }
            nbx = nbx.div_ceil(2);
            nby = nby.div_ceil(2);
            span *= 2;
        }
        let mut p = Pyramid { leaf, ncx, ncy, levels, nodes: vec![EMPTY; offset] };
        let l0 = p.levels[0];
        p.nodes[..l0.nbx * l0.nby]
            .par_chunks_mut(l0.nbx)
            .enumerate()
            .for_each(|(bj, row)| fill_leaf_row(heights, nx, leaf, ncx, ncy, bj, 0, row));
        for k in 1..p.levels.len() {
            p.update_level(k, 0..p.levels[k].nbx, 0..p.levels[k].nby);
        }
        p
    }

    /// Recomputes nodes `bi_range × bj_range` of level `k ≥ 1` from their children.
    fn update_level(&mut self, k: usize, bi: std::ops::Range<usize>, bj: std::ops::Range<usize>) {
        let (c, l) = (self.levels[k - 1], self.levels[k]);
        for j in bj {
            for i in bi.clone() {
                let mut r = EMPTY;
                for (ci, cj) in [(2 * i, 2 * j), (2 * i + 1, 2 * j), (2 * i, 2 * j + 1), (2 * i + 1, 2 * j + 1)] {
                    if ci < c.nbx && cj < c.nby {
                        r = merge(r, self.nodes[c.offset + cj * c.nbx + ci]);
                    }
                }
                self.nodes[l.offset + j * l.nbx + i] = r;
            }
        }
    }

    /// Updates the pyramid after samples `i0..i1` × `j0..j1` (half-open) changed: only the leaves
    /// touching those samples and their ancestors are recomputed.
    pub(crate) fn update_samples(&mut self, heights: &[f32], nx: usize, i0: usize, i1: usize, j0: usize, j1: usize) {
        if i0 >= i1 || j0 >= j1 {
            return;
        }
        let leaf = self.leaf;
        let l0 = self.levels[0];
        // Sample s belongs to the leaves whose sample range [b·leaf, b·leaf + leaf] contains it.
        let lo = |s: usize| s.saturating_sub(1) / leaf;
        let (mut bi0, mut bi1) = (lo(i0), ((i1 - 1) / leaf).min(l0.nbx - 1) + 1);
        let (mut bj0, mut bj1) = (lo(j0), ((j1 - 1) / leaf).min(l0.nby - 1) + 1);
        for bj in bj0..bj1 {
            let row = &mut self.nodes[bj * l0.nbx..(bj + 1) * l0.nbx];
            fill_leaf_row(heights, nx, leaf, self.ncx, self.ncy, bj, bi0, &mut row[bi0..bi1]);
        }
        for k in 1..self.levels.len() {
            (bi0, bi1, bj0, bj1) = (bi0 / 2, (bi1 - 1) / 2 + 1, bj0 / 2, (bj1 - 1) / 2 + 1);
            self.update_level(k, bi0..bi1, bj0..bj1);
        }
    }

    /// Leaf size in cells.
    pub fn leaf_size(&self) -> usize {
        self.leaf
    }

    /// Number of levels (leaves are level 0, the root is the last).
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Total number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes used by the nodes.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Range>()
    }

    /// Height range of the whole grid (`[+∞, −∞]` when every sample is NaN).
    pub fn root(&self) -> (f32, f32) {
        let r = *self.nodes.last().expect("pyramid has a root");
        (r[0], r[1])
    }

    /// Height range of node (bi, bj) of level `k` (0 = leaves).
    pub fn node(&self, k: usize, bi: usize, bj: usize) -> (f32, f32) {
        let l = self.levels[k];
        let r = self.nodes[l.offset + bj * l.nbx + bi];
        (r[0], r[1])
    }

    /// Nodes along (x, y) at level `k`.
    pub fn level_size(&self, k: usize) -> (usize, usize) {
        (self.levels[k].nbx, self.levels[k].nby)
    }

    #[inline(always)]
    pub(crate) fn level(&self, k: usize) -> Level {
        self.levels[k]
    }

    #[inline(always)]
    pub(crate) fn range(&self, l: Level, bi: usize, bj: usize) -> Range {
        self.nodes[l.offset + bj * l.nbx + bi]
    }

    /// Cells along (x, y).
    #[inline(always)]
    pub(crate) fn cells(&self) -> (usize, usize) {
        (self.ncx, self.ncy)
    }
}

/// Fills leaves `bi0..bi0 + out.len()` of leaf row `bj` from the samples.
#[allow(clippy::too_many_arguments)]
fn fill_leaf_row(
    heights: &[f32],
    nx: usize,
    leaf: usize,
    ncx: usize,
    ncy: usize,
    bj: usize,
    bi0: usize,
    out: &mut [Range],
) {
    out.fill(EMPTY);
    let j_end = ((bj + 1) * leaf).min(ncy);
    for j in bj * leaf..=j_end {
        let row = &heights[j * nx..(j + 1) * nx];
        for (n, r) in out.iter_mut().enumerate() {
            let bi = bi0 + n;
            let i_end = ((bi + 1) * leaf).min(ncx);
            let (mut lo, mut hi) = (r[0], r[1]);
            for &h in &row[bi * leaf..=i_end] {
                lo = lo.min(h);
                hi = hi.max(h);
            }
            *r = [lo, hi];
        }
    }
}
