//! The min/max pyramid (the 2017 paper's T-pyramid), array-backed, for any grid size.
//!
//! Level 0 holds one node per leaf block of `leaf × leaf` cells (the last row and column of blocks
//! may be partial); level k+1 merges 2×2 nodes of level k, until one node remains. Each node bounds
//! the valid (non-NaN) samples of its block, edges included, so the triangles of its cells lie
//! inside its range. All levels live in one flat array, each row by row with padding: a row holds
//! at least three nodes more than the level has (a multiple of four), and as many rows, all empty.
//! So the grandchildren of any node form an aligned 4 × 4 block, and any 4 × 4 block whose first
//! node is in the level can be read without a check for the level's last row or column (the stack
//! walk's node test).
//!
//! **Quantised, outward.** A node stores its range as two `u16` steps of a grid-wide quantum
//! (`base + q·step`, `step` = height range / 65534): the minimum rounded down, the maximum rounded
//! up, so a node's range always contains its samples and is at most one quantum wider (1.2 cm for
//! 800 m of relief). Rounding down and up are monotone, so a parent is just the min/max of its
//! children's codes. Four bytes per node halve the pyramid's cache footprint, which is what the ray
//! walk waits on for large grids. The exact height range of the whole grid is kept beside it.

use super::tiles::Tiling;
use crate::flat::Flat;
use rayon::prelude::*;

/// Exact height range of a block: `[min, max]`; an all-NaN block is `[+∞, −∞]`.
type Range = [f32; 2];

/// Quantised range `[min code, max code]`; `EMPTY` (min > max) for a block without valid samples.
type Code = [u16; 2];

const EMPTY_RANGE: Range = [f32::INFINITY, f32::NEG_INFINITY];
const EMPTY: Code = [u16::MAX, 0];
/// Largest code; `u16::MAX` is reserved for the empty minimum.
const TOP: f64 = 65534.0;

/// One level's layout inside the flat node array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Level {
    /// Nodes along x.
    pub nbx: usize,
    /// Nodes along y.
    pub nby: usize,
    /// Index of the level's first node in the flat array.
    pub offset: usize,
    /// Nodes per row in the flat array: a multiple of four, at least `nbx + 3` (the rest are empty).
    pub stride: usize,
    /// Cells covered by one node along each axis (leaf · 2^level).
    pub span: usize,
    /// The level's nodes are stored per tile (a tiled heightfield's lower levels): `offset` is then
    /// the level's place in a tile's nodes and `stride` the tile's nodes along a side (a power of two).
    pub tiled: bool,
}

/// The lower levels of a tiled heightfield's pyramid, stored per tile (beside its samples): each
/// block holds levels `0..k` of its tile, level j as `2^(k − j)` rows of as many nodes ([`Level`]s
/// with `tiled` say which; none for a pyramid of rows).
#[derive(Clone, Debug, Default, PartialEq)]
struct TileNodes {
    /// Tiles along x.
    ntx: usize,
    /// Block of each tile (the samples' directory).
    dir: Flat<u32>,
    /// The blocks' nodes, `per_block` each.
    nodes: Flat<Code>,
    per_block: usize,
}

/// Min/max pyramid over a heightfield's samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Pyramid {
    leaf: usize,
    ncx: usize,
    ncy: usize,
    levels: Vec<Level>,
    /// The levels stored whole (every level, or a tiled heightfield's levels above its tiles).
    nodes: Flat<Code>,
    tiles: TileNodes,
    /// Height of code 0.
    base: f64,
    /// Height of one code step (> 0).
    step: f64,
    /// Exact range of the valid samples of the whole grid (`EMPTY_RANGE` when there are none).
    exact: Range,
}

/// Number of bits needed to write `x`: 0 for 0, else `b` with `2^(b − 1) ≤ x < 2^b`.
#[inline(always)]
pub(crate) fn bit_length(x: u64) -> usize {
    (u64::BITS - x.leading_zeros()) as usize
}

#[inline]
fn merge(a: Code, b: Code) -> Code {
    [a[0].min(b[0]), a[1].max(b[1])]
}

impl Pyramid {
    /// Builds the pyramid for an `nx × ny` grid with leaves of `leaf × leaf` cells.
    pub(crate) fn build(heights: &[f32], nx: usize, ny: usize, leaf: usize) -> Self {
        let (ncx, ncy) = (nx - 1, ny - 1);
        let (levels, _) = layout(ncx, ncy, leaf, (0, 0));
        // Exact leaf ranges first (one pass over the samples, in parallel); the grid's exact range
        // and the quantum follow from them, then the leaves are encoded.
        let l0 = levels[0];
        let mut exact_leaves = vec![EMPTY_RANGE; l0.nbx * l0.nby];
        exact_leaves
            .par_chunks_mut(l0.nbx)
            .enumerate()
            .for_each(|(bj, row)| exact_leaf_row(heights, nx, leaf, ncx, ncy, bj, 0, row));
        Self::from_exact_leaves(&exact_leaves, ncx, ncy, leaf)
    }

    /// The pyramid of a grid of `ncx × ncy` cells whose leaves' exact ranges are `exact_leaves`
    /// (row-major, as [`LeafRanges`] accumulates them).
    pub(crate) fn from_exact_leaves(exact_leaves: &[Range], ncx: usize, ncy: usize, leaf: usize) -> Self {
        let (levels, offset) = layout(ncx, ncy, leaf, (0, 0));
        let l0 = levels[0];
        let exact = exact_leaves.iter().fold(EMPTY_RANGE, |a, b| [a[0].min(b[0]), a[1].max(b[1])]);
        let (base, step) = quantum(exact);
        let mut nodes = vec![EMPTY; offset];
        nodes[..l0.stride * l0.nby].par_chunks_mut(l0.stride).zip(exact_leaves.par_chunks(l0.nbx)).for_each(
            |(row, exact)| {
                row.iter_mut().zip(exact).for_each(|(n, &r)| *n = encode(r, (base, step)));
            },
        );
        let mut p =
            Pyramid { leaf, ncx, ncy, levels, nodes: nodes.into(), tiles: TileNodes::default(), base, step, exact };
        for k in 1..p.levels.len() {
            p.update_level(k, 0..p.levels[k].nbx, 0..p.levels[k].nby);
        }
        p
    }

    /// The pyramid of a tiled grid of `ncx × ncy` cells (see `tiles.rs`): the lower levels stored
    /// per tile (`nodes`, [`Tiling::pyramid_len`] per block of the directory `dir`), the levels
    /// above them computed here from the tiles' top nodes. The sizes are checked; the codes trusted.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_tiles(
        ncx: usize,
        ncy: usize,
        leaf: usize,
        tiling: Tiling,
        dir: Flat<u32>,
        nodes: Flat<Code>,
        (base, step): (f64, f64),
        exact: Range,
    ) -> Result<Self, String> {
        check_quantum(base, step, exact)?;
        let tl = tiling.tile_levels(leaf);
        if leaf == 0 || tl == 0 || tiling.cells != leaf << tl {
            return Err(format!("tiles of {} cells for leaves of {leaf}", tiling.cells));
        }
        let per_block = tile_layout(tl).1;
        if !nodes.len().is_multiple_of(per_block) || dir.len() != tiling.count() {
            return Err(format!("{} tile pyramid nodes, not whole tiles of {per_block}", nodes.len()));
        }
        let blocks = nodes.len() / per_block;
        if dir.iter().any(|&b| b as usize >= blocks) {
            return Err(format!("a tile names a block past the {blocks} tile pyramids"));
        }
        // The tiles' top level (2 × 2 nodes a tile) is copied whole: a 4 × 4 block of its nodes
        // always lies across tiles, and the walks would gather it node by node (`gather16`).
        let kept = tl - 1;
        let (levels, offset) = layout(ncx, ncy, leaf, (tl, kept));
        let mut p = Pyramid {
            leaf,
            ncx,
            ncy,
            levels,
            nodes: vec![EMPTY; offset].into(),
            tiles: TileNodes { ntx: tiling.ntx, dir, nodes, per_block },
            base,
            step,
            exact,
        };
        if p.levels.len() > kept {
            let (l, at) = (p.levels[kept], tile_layout(tl).0[kept]);
            let (tiles, nodes) = (&p.tiles, p.nodes.make_mut());
            for bj in 0..l.nby {
                for bi in 0..l.nbx {
                    let b = tiles.dir[(bj >> 1) * tiling.ntx + (bi >> 1)] as usize;
                    nodes[l.offset + bj * l.stride + bi] = tiles.nodes[b * per_block + at + (bj & 1) * 2 + (bi & 1)];
                }
            }
            for k in kept + 1..p.levels.len() {
                p.update_level(k, 0..p.levels[k].nbx, 0..p.levels[k].nby);
            }
        }
        Ok(p)
    }

    /// The codes for heights in `exact` (a grid's exact range): (base, step).
    pub fn quantum_for(exact: [f32; 2]) -> (f64, f64) {
        quantum(exact)
    }

    /// The nodes a tile stores (levels `0..tiling.tile_levels(leaf)`, see [`Tiling::pyramid_len`])
    /// from its block of samples (`(cells + 1)²` row-major from its south-west sample, NaN past the
    /// grid) and its cells along x and y (fewer than `tiling.cells` at the grid's far edges: the
    /// leaves past them are empty), coded with `quantum` (the whole grid's,
    /// [`Pyramid::quantum_for`]).
    pub fn tile_nodes(
        block: &[f32],
        tiling: Tiling,
        [cw, ch]: [usize; 2],
        leaf: usize,
        quantum: (f64, f64),
    ) -> Vec<[u16; 2]> {
        let tl = tiling.tile_levels(leaf);
        let (offsets, per_block) = tile_layout(tl);
        let (side, n0) = (tiling.side(), 1usize << tl);
        let mut out = vec![EMPTY; per_block];
        for lj in 0..n0.min(ch.div_ceil(leaf)) {
            for li in 0..n0.min(cw.div_ceil(leaf)) {
                let rows =
                    (lj * leaf..=(lj + 1) * leaf).map(|j| &block[j * side + li * leaf..=j * side + (li + 1) * leaf]);
                out[lj * n0 + li] = encode(range_of_rows(rows), quantum);
            }
        }
        for k in 1..tl {
            let (n, c) = (n0 >> k, n0 >> (k - 1));
            for j in 0..n {
                for i in 0..n {
                    let child = |di: usize, dj: usize| out[offsets[k - 1] + (2 * j + dj) * c + 2 * i + di];
                    out[offsets[k] + j * n + i] =
                        merge(merge(child(0, 0), child(1, 0)), merge(child(0, 1), child(1, 1)));
                }
            }
        }
        out
    }

    /// A pyramid from its stored nodes and quantisation (an index file): the layout follows from the
    /// grid and the leaf size, and the nodes must fill it.
    pub(crate) fn from_stored(
        ncx: usize,
        ncy: usize,
        leaf: usize,
        nodes: Flat<Code>,
        (base, step): (f64, f64),
        exact: Range,
    ) -> Result<Self, String> {
        if leaf == 0 || ncx == 0 || ncy == 0 {
            return Err("empty grid or leaf size".into());
        }
        let (levels, offset) = layout(ncx, ncy, leaf, (0, 0));
        if nodes.len() != offset {
            return Err(format!("{} pyramid nodes, the layout has {offset}", nodes.len()));
        }
        check_quantum(base, step, exact)?;
        Ok(Pyramid { leaf, ncx, ncy, levels, nodes, tiles: TileNodes::default(), base, step, exact })
    }

    /// The stored form: nodes (of the levels stored whole), (base, step) of the codes, the exact
    /// range of the samples.
    pub(crate) fn stored(&self) -> (&[Code], (f64, f64), Range) {
        (&self.nodes, (self.base, self.step), self.exact)
    }

    /// A tiled pyramid's per-tile nodes (empty for a pyramid of rows).
    pub(crate) fn tile_nodes_stored(&self) -> &Flat<Code> {
        &self.tiles.nodes
    }

    /// Recomputes nodes `bi_range × bj_range` of level `k ≥ 1` from their children.
    fn update_level(&mut self, k: usize, bi: std::ops::Range<usize>, bj: std::ops::Range<usize>) {
        let (c, l) = (self.levels[k - 1], self.levels[k]);
        let nodes = self.nodes.make_mut();
        for j in bj {
            for i in bi.clone() {
                let mut r = EMPTY;
                for (ci, cj) in [(2 * i, 2 * j), (2 * i + 1, 2 * j), (2 * i, 2 * j + 1), (2 * i + 1, 2 * j + 1)] {
                    if ci < c.nbx && cj < c.nby {
                        r = merge(r, nodes[c.offset + cj * c.stride + ci]);
                    }
                }
                nodes[l.offset + j * l.stride + i] = r;
            }
        }
    }

    /// Updates the pyramid after samples `i0..i1` × `j0..j1` (half-open) changed from values whose
    /// range was `old` to values whose range is `new`: only the leaves touching those samples and
    /// their ancestors are recomputed, unless the new values fall outside the quantisation range
    /// (then everything is rebuilt on a new range).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn update_samples(
        &mut self,
        heights: &[f32],
        nx: usize,
        i0: usize,
        i1: usize,
        j0: usize,
        j1: usize,
        old: Range,
        new: Range,
    ) {
        if i0 >= i1 || j0 >= j1 {
            return;
        }
        // The exact grid range: widen by the new values; rescan when an old extreme was overwritten.
        let widened = [self.exact[0].min(new[0]), self.exact[1].max(new[1])];
        self.exact = if old[0] <= self.exact[0] || old[1] >= self.exact[1] { exact_range(heights) } else { widened };
        let fits = |v: f32| {
            let c = (v as f64 - self.base) / self.step;
            (0.0..=TOP).contains(&c)
        };
        if new[0] <= new[1] && !(fits(new[0]) && fits(new[1])) {
            *self = Pyramid::build(heights, nx, self.ncy + 1, self.leaf);
            return;
        }
        let leaf = self.leaf;
        let l0 = self.levels[0];
        let q = (self.base, self.step);
        // Sample s belongs to the leaves whose sample range [b·leaf, b·leaf + leaf] contains it.
        let lo = |s: usize| s.saturating_sub(1) / leaf;
        let (mut bi0, mut bi1) = (lo(i0), ((i1 - 1) / leaf).min(l0.nbx - 1) + 1);
        let (mut bj0, mut bj1) = (lo(j0), ((j1 - 1) / leaf).min(l0.nby - 1) + 1);
        let mut exact = vec![EMPTY_RANGE; bi1 - bi0];
        for bj in bj0..bj1 {
            exact_leaf_row(heights, nx, leaf, self.ncx, self.ncy, bj, bi0, &mut exact);
            for (n, &r) in self.nodes.make_mut()[bj * l0.stride + bi0..bj * l0.stride + bi1].iter_mut().zip(&exact) {
                *n = encode(r, q);
            }
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

    /// The leaf (along one axis) holding cell `c`: a shift when the leaf size is a power of two (the
    /// default), else a division.
    #[inline(always)]
    pub(crate) fn leaf_of(&self, c: usize) -> usize {
        if self.leaf.is_power_of_two() {
            c >> self.leaf.trailing_zeros()
        } else {
            c / self.leaf
        }
    }

    /// Number of levels (leaves are level 0, the root is the last).
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// The lowest level whose nodes span at least `extent` cells (the root's when none does), from
    /// the bit length of the leaves it takes: no loop over the levels.
    #[inline(always)]
    pub(crate) fn level_spanning(&self, extent: f64) -> usize {
        // Spans are whole cells: `leaf · 2^k ≥ extent` ⇔ `2^k ≥ ⌈⌈extent⌉ / leaf⌉`.
        // ⌈extent⌉ without `ceil`, a library call on baseline x86-64 (saturating for a huge extent).
        let whole = extent as u64;
        let whole = whole.saturating_add(u64::from((whole as f64) < extent));
        let leaves = whole.div_ceil(self.leaf as u64);
        bit_length(leaves.saturating_sub(1)).min(self.levels.len() - 1)
    }

    /// Total number of nodes (padding not included).
    pub fn node_count(&self) -> usize {
        self.levels.iter().map(|l| l.nbx * l.nby).sum()
    }

    /// For nodes in a memory-mapped file: lets go of their pages (read again when used).
    pub(crate) fn release_nodes(&self) {
        self.nodes.release(0..usize::MAX);
        self.tiles.nodes.release(0..usize::MAX);
    }

    /// For a tiled pyramid in a memory-mapped file: lets go of the pages of block `b`'s nodes.
    pub(crate) fn release_block(&self, b: usize) {
        let n = self.tiles.per_block;
        self.tiles.nodes.release(b * n..(b + 1) * n);
    }

    /// Bytes used by the nodes, padding included.
    pub fn memory_bytes(&self) -> usize {
        (self.nodes.len() + self.tiles.nodes.len()) * std::mem::size_of::<Code>()
    }

    /// Exact height range of the whole grid (`(+∞, −∞)` when every sample is NaN).
    pub fn root(&self) -> (f32, f32) {
        (self.exact[0], self.exact[1])
    }

    /// Height of one quantisation step of the node ranges.
    pub fn quantum(&self) -> f64 {
        self.step
    }

    /// Range of node (bi, bj) of level `k` (0 = leaves): it contains every valid sample of the
    /// node's block (edges included) and is at most one [`quantum`](Self::quantum) wider at each
    /// end; `(+∞, −∞)` for a block without valid samples. Panics when `k`, `bi` or `bj` is out of
    /// range (see [`depth`](Self::depth) and [`level_size`](Self::level_size)), like slice indexing.
    pub fn node(&self, k: usize, bi: usize, bj: usize) -> (f64, f64) {
        let l = self.levels[k];
        assert!(bi < l.nbx && bj < l.nby, "node ({bi}, {bj}) outside level {k} of {} × {} nodes", l.nbx, l.nby);
        self.range(l, bi, bj)
    }

    /// Nodes along (x, y) at level `k` (panics when `k ≥ depth()`).
    pub fn level_size(&self, k: usize) -> (usize, usize) {
        (self.levels[k].nbx, self.levels[k].nby)
    }

    #[inline(always)]
    pub(crate) fn level(&self, k: usize) -> Level {
        self.levels[k]
    }

    /// Codes of node (bi, bj) of level `l`.
    #[inline(always)]
    fn code(&self, l: Level, bi: usize, bj: usize) -> Code {
        if l.tiled {
            self.tile_code(l, bi, bj)
        } else {
            self.nodes[l.offset + bj * l.stride + bi]
        }
    }

    /// Index in the tiles' nodes of node (bi, bj) of tiled level `l`.
    #[inline(always)]
    fn tile_index(&self, l: Level, bi: usize, bj: usize) -> usize {
        let (sh, m) = (l.stride.trailing_zeros(), l.stride - 1);
        let t = &self.tiles;
        let b = t.dir[(bj >> sh) * t.ntx + (bi >> sh)] as usize;
        b * t.per_block + l.offset + (bj & m) * l.stride + (bi & m)
    }

    #[inline(always)]
    fn tile_code(&self, l: Level, bi: usize, bj: usize) -> Code {
        self.tiles.nodes[self.tile_index(l, bi, bj)]
    }

    /// Decoded range of a node (see [`node`](Self::node)).
    #[inline(always)]
    pub(crate) fn range(&self, l: Level, bi: usize, bj: usize) -> (f64, f64) {
        let [a, b] = self.code(l, bi, bj);
        if a > b {
            return (f64::INFINITY, f64::NEG_INFINITY);
        }
        (self.base + a as f64 * self.step, self.base + b as f64 * self.step)
    }

    /// Codes of the 4 × 4 block of nodes of level `l` from node (bi, bj), and the stride of its
    /// rows: row r of the block at `r · stride`, nodes past the level empty. One bounds check for the
    /// sixteen, unless the block lies across tiles: then they are gathered into `scratch`.
    #[inline(always)]
    pub(crate) fn block16<'a>(
        &'a self,
        l: Level,
        bi: usize,
        bj: usize,
        scratch: &'a mut [Code; 16],
    ) -> (&'a [Code], usize) {
        if !l.tiled {
            let first = l.offset + bj * l.stride + bi;
            return (&self.nodes[first..first + 3 * l.stride + 4], l.stride);
        }
        let m = l.stride - 1;
        if (bi & m) + 4 <= l.stride && (bj & m) + 4 <= l.stride {
            let first = self.tile_index(l, bi, bj);
            return (&self.tiles.nodes[first..first + 3 * l.stride + 4], l.stride);
        }
        self.gather16(l, bi, bj, scratch)
    }

    /// [`block16`](Self::block16) across tiles.
    #[cold]
    #[inline(never)]
    fn gather16<'a>(&'a self, l: Level, bi: usize, bj: usize, scratch: &'a mut [Code; 16]) -> (&'a [Code], usize) {
        for (n, c) in scratch.iter_mut().enumerate() {
            let (i, j) = (bi + (n & 3), bj + (n >> 2));
            *c = if i < l.nbx && j < l.nby { self.tile_code(l, i, j) } else { EMPTY };
        }
        (&scratch[..], 4)
    }

    /// Hints the CPU to fetch the descendants `d` levels down of the `n` × `n` block of nodes from
    /// (bi, bj) of level `k ≥ d` (`n · 2^d` rows of as many nodes at level k − d): whichever of
    /// them the walk tests next, its codes are on their way. The stackless walk fetches a node's
    /// children (n = 1, d = 1), the stack walk a 4 × 4 block's grandchildren (n = 4, d = 2).
    /// Nothing is read; indices past the level are harmless.
    #[inline(always)]
    pub(crate) fn prefetch_descendants(&self, k: usize, bi: usize, bj: usize, n: usize, d: usize) {
        let c = self.levels[k - d];
        let (bi, bj) = (bi << d, bj << d);
        let first = if !c.tiled {
            self.nodes.as_ptr().wrapping_add(c.offset + bj * c.stride + bi)
        } else if bi < c.nbx && bj < c.nby {
            self.tiles.nodes.as_ptr().wrapping_add(self.tile_index(c, bi, bj))
        } else {
            return;
        };
        crate::geom::prefetch_rows(first, c.stride, n << d);
    }

    /// (step, base − eps, base + eps): a code's height is `code · step + base`.
    #[inline(always)]
    pub(crate) fn quantum_eps(&self, eps: f64) -> [f64; 3] {
        [self.step, self.base - eps, self.base + eps]
    }

    /// Cells along (x, y).
    #[inline(always)]
    pub(crate) fn cells(&self) -> (usize, usize) {
        (self.ncx, self.ncy)
    }
}

/// The levels of a pyramid over `ncx × ncy` cells with leaves of `leaf` cells, the first `tiled` of
/// them read from the tiles, which store `per_tile ≥ tiled` levels each (see [`tile_layout`]), and
/// the number of nodes the others take (padding included).
fn layout(ncx: usize, ncy: usize, leaf: usize, (per_tile, tiled): (usize, usize)) -> (Vec<Level>, usize) {
    let mut levels = Vec::new();
    let tile_offsets = tile_layout(per_tile).0;
    let (mut nbx, mut nby, mut span, mut offset) = (ncx.div_ceil(leaf), ncy.div_ceil(leaf), leaf, 0);
    loop {
        let k = levels.len();
        if k < tiled {
            levels.push(Level { nbx, nby, offset: tile_offsets[k], span, stride: 1 << (per_tile - k), tiled: true });
        } else {
            let stride = padded(nbx);
            levels.push(Level { nbx, nby, offset, span, stride, tiled: false });
            offset += stride * padded(nby);
        }
        if nbx == 1 && nby == 1 {
            break;
        }
        nbx = nbx.div_ceil(2);
        nby = nby.div_ceil(2);
        span *= 2;
    }
    (levels, offset)
}

/// The exact ranges of a grid's pyramid leaves, accumulated from its rows in any order — for
/// building a pyramid while the samples stream past (`landfall build` of a raster larger than
/// memory) — giving exactly the pyramid [`Heightfield::builder`](super::Heightfield::builder)
/// would build.
#[derive(Clone, Debug)]
pub struct LeafRanges {
    nx: usize,
    ny: usize,
    leaf: usize,
    nbx: usize,
    ranges: Vec<Range>,
}

impl LeafRanges {
    /// For a grid of `nx × ny` samples and leaves of `leaf` cells (`nx, ny ≥ 2`, `leaf ≥ 1`).
    pub fn new(nx: usize, ny: usize, leaf: usize) -> Self {
        let (ncx, ncy, leaf) = (nx.max(2) - 1, ny.max(2) - 1, leaf.max(1));
        let (nbx, nby) = (ncx.div_ceil(leaf), ncy.div_ceil(leaf));
        Self { nx: nx.max(2), ny: ny.max(2), leaf, nbx, ranges: vec![EMPTY_RANGE; nbx * nby] }
    }

    /// Takes in sample row `j` (row 0 south, `nx` samples). Rows outside the grid or of the wrong
    /// length are ignored.
    pub fn add_row(&mut self, j: usize, row: &[f32]) {
        if j >= self.ny || row.len() != self.nx {
            return;
        }
        let (leaf, ncx) = (self.leaf, self.nx - 1);
        let nby = self.ranges.len() / self.nbx.max(1);
        // Leaf row b holds sample rows b·leaf ..= (b + 1)·leaf.
        let mut rows = vec![j / leaf];
        if j.is_multiple_of(leaf) && j > 0 {
            rows.push(j / leaf - 1);
        }
        for bj in rows.into_iter().filter(|&b| b < nby) {
            let out = &mut self.ranges[bj * self.nbx..(bj + 1) * self.nbx];
            for (bi, r) in out.iter_mut().enumerate() {
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

    /// The pyramid's stored form: nodes, (base, step) of the codes, the exact range of the samples.
    pub fn finish(self) -> (Vec<[u16; 2]>, (f64, f64), [f32; 2]) {
        let p = Pyramid::from_exact_leaves(&self.ranges, self.nx - 1, self.ny - 1, self.leaf);
        drop(self.ranges);
        let (q, exact) = ((p.base, p.step), p.exact);
        (p.nodes.into_vec(), q, exact)
    }
}

/// A tile's nodes, levels `0..levels`: each level's offset among them, and their number. Level k is
/// `2^(levels − k)` rows of as many nodes.
fn tile_layout(levels: usize) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(levels);
    let mut n = 0;
    for k in 0..levels {
        offsets.push(n);
        n += 1 << (2 * (levels - k));
    }
    (offsets, n)
}

impl Tiling {
    /// Pyramid nodes a tile stores for leaves of `leaf` cells.
    pub fn pyramid_len(&self, leaf: usize) -> usize {
        tile_layout(self.tile_levels(leaf)).1
    }
}

/// Checks a stored quantisation and exact range.
fn check_quantum(base: f64, step: f64, exact: Range) -> Result<(), String> {
    if !(base.is_finite() && step.is_finite() && step > 0.0) || exact[0].is_infinite() || exact[1].is_infinite() {
        return Err(format!("quantisation base {base}, step {step}, range {exact:?}"));
    }
    Ok(())
}

/// Rows (or nodes per row) in the flat array of a level `n` rows (or nodes) long: a multiple of
/// four, at least `n + 3`.
fn padded(n: usize) -> usize {
    (n + 6) & !3
}

/// Exact range of the valid samples (NaN-aware).
fn exact_range(heights: &[f32]) -> Range {
    heights
        .par_iter()
        .fold(|| EMPTY_RANGE, |r, &h| [r[0].min(h), r[1].max(h)])
        .reduce(|| EMPTY_RANGE, |a, b| [a[0].min(b[0]), a[1].max(b[1])])
}

/// (base, step) of the codes for heights in `r` (a flat or empty grid still gets a positive step).
fn quantum(r: Range) -> (f64, f64) {
    if r[0] > r[1] {
        return (0.0, 1.0);
    }
    let (lo, hi) = (r[0] as f64, r[1] as f64);
    let span = (hi - lo).max(1e-6 * (1.0 + lo.abs().max(hi.abs())));
    (lo, span / TOP)
}

/// `r` widened to the valid samples of `row`: a NaN (a hole) compares false, so it is left out;
/// of two equal values (±0) the one already in `r` stays. One compare a bound, no NaN fix-up.
#[inline]
pub(crate) fn widen(mut r: Range, row: &[f32]) -> Range {
    for &z in row {
        if z < r[0] {
            r[0] = z;
        }
        if z > r[1] {
            r[1] = z;
        }
    }
    r
}

/// The range of the valid samples of `rows`, as [`widen`] over them in order would make it (ties
/// too), each row's range made on its own first: independent chains the processor overlaps.
#[inline]
pub(crate) fn range_of_rows<'a>(rows: impl Iterator<Item = &'a [f32]>) -> Range {
    rows.map(|row| widen(EMPTY_RANGE, row))
        .fold(EMPTY_RANGE, |r, [lo, hi]| [if lo < r[0] { lo } else { r[0] }, if hi > r[1] { hi } else { r[1] }])
}

/// Codes of an exact range, rounded outward.
#[inline]
fn encode(r: Range, (base, step): (f64, f64)) -> Code {
    if r[0] > r[1] {
        return EMPTY;
    }
    let lo = ((r[0] as f64 - base) / step).floor().clamp(0.0, TOP);
    let hi = ((r[1] as f64 - base) / step).ceil().clamp(0.0, TOP);
    [lo as u16, hi as u16]
}

/// Exact ranges of leaves `bi0..bi0 + out.len()` of leaf row `bj`, from the samples (NaN, a hole,
/// left out). Each column's range over the leaf row's rows first (element by element, which
/// vectorises), then each leaf's over its columns.
#[allow(clippy::too_many_arguments)]
fn exact_leaf_row(
    heights: &[f32],
    nx: usize,
    leaf: usize,
    ncx: usize,
    ncy: usize,
    bj: usize,
    bi0: usize,
    out: &mut [Range],
) {
    if out.is_empty() {
        return;
    }
    let i0 = bi0 * leaf;
    let i_last = ((bi0 + out.len()) * leaf).min(ncx);
    let width = i_last - i0 + 1;
    let (mut lo, mut hi) = (vec![f32::INFINITY; width], vec![f32::NEG_INFINITY; width]);
    let j_end = ((bj + 1) * leaf).min(ncy);
    for j in bj * leaf..=j_end {
        let row = &heights[j * nx + i0..][..width];
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(row) {
            // `f32::min`/`max` as compares: a NaN sample compares false and is left out.
            *l = if x < *l { x } else { *l };
            *h = if x > *h { x } else { *h };
        }
    }
    for (n, r) in out.iter_mut().enumerate() {
        let a = n * leaf;
        let b = (((bi0 + n + 1) * leaf).min(ncx) - i0).min(width - 1);
        let l = lo[a..=b].iter().fold(f32::INFINITY, |m, &x| if x < m { x } else { m });
        let h = hi[a..=b].iter().fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
        *r = [l, h];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4 × 4 block from any node of any level lies inside the node array (the padding), for
    /// grids of many shapes and leaf sizes.
    #[test]
    fn every_block_of_sixteen_is_inside_the_nodes() {
        for (nx, ny, leaf) in
            [(2, 2, 1), (3, 9, 2), (33, 17, 8), (100, 7, 3), (257, 257, 8), (1025, 300, 16), (70, 70, 1)]
        {
            let p = Pyramid::build(&vec![0.0; nx * ny], nx, ny, leaf);
            for k in 0..p.depth() {
                let l = p.level(k);
                for bj in 0..l.nby {
                    for bi in 0..l.nbx {
                        let mut scratch = [EMPTY; 16];
                        assert_eq!(p.block16(l, bi, bj, &mut scratch).0.len(), 3 * l.stride + 4);
                    }
                }
            }
        }
    }

    /// `level_spanning` picks the level the plain search over the levels picks, for grids of many
    /// shapes and leaf sizes, extents on and around every span, and extents past the root's.
    #[test]
    fn level_spanning_matches_a_search_over_the_levels() {
        for (nx, ny, leaf) in [(2, 2, 1), (3, 9, 2), (33, 17, 8), (100, 7, 3), (257, 257, 8), (1025, 300, 16)] {
            let p = Pyramid::build(&vec![0.0; nx * ny], nx, ny, leaf);
            let search = |extent: f64| {
                let mut k = 0;
                while k + 1 < p.depth() && (p.level(k).span as f64) < extent {
                    k += 1;
                }
                k
            };
            let mut extents = vec![0.0, 1e-300, 0.5, 4.0 * (nx.max(ny) as f64), 1e12, 1e30, f64::INFINITY];
            for k in 0..p.depth() {
                let s = p.level(k).span as f64;
                extents.extend([s.next_down(), s, s.next_up(), s - 0.5, s + 0.5]);
            }
            for e in extents {
                assert_eq!(p.level_spanning(e), search(e), "{nx}×{ny}, leaf {leaf}, extent {e}");
            }
        }
    }
}
