//! Samples stored per tile (a heightfield index, `.lfh`): the grid is cut into square tiles of
//! [`Tiling::cells`] cells, and each tile that has a valid sample keeps its own block of
//! `(cells + 1)²` samples (its edge rows and columns are also its neighbours': a cell's four corners
//! are always in one block), row-major from the tile's south-west sample, NaN past the grid, padded
//! to whole 4 KiB pages. A directory gives every tile its block; every tile without data shares
//! block 0, all NaN. So a tile's samples are contiguous, a tile without data costs nothing but its
//! directory entry, and a cell's corners are one directory read and one block read away.

use crate::flat::Flat;

/// Cells on a tile's side aimed at: 257² samples (1 MiB with the padding) a block.
const TILE_CELLS_AIM: usize = 256;

/// Samples a block's length is rounded up to: 4 KiB pages, so that a block's pages are its own.
const PAGE_SAMPLES: usize = 1024;

/// How a tiled heightfield is cut into tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Cells on a tile's side: the pyramid's leaf size times a power of two, so that the pyramid's
    /// lower levels split along tile borders.
    pub cells: usize,
    /// Tiles along x.
    pub ntx: usize,
    /// Tiles along y.
    pub nty: usize,
}

impl Tiling {
    /// The tiling of an `nx × ny` grid whose pyramid has leaves of `leaf` cells: tiles of
    /// [`Tiling::cells_for_leaf`] cells.
    pub fn new(nx: usize, ny: usize, leaf: usize) -> Self {
        let cells = Self::cells_for_leaf(leaf);
        Self { cells, ntx: (nx.max(2) - 1).div_ceil(cells), nty: (ny.max(2) - 1).div_ceil(cells) }
    }

    /// Cells on a tile's side for pyramid leaves of `leaf` cells: `leaf · 2^k` with k ≥ 1, the
    /// smallest at least 256 (so a tile holds at least 2 × 2 leaves).
    pub fn cells_for_leaf(leaf: usize) -> usize {
        let mut cells = 2 * leaf.max(1);
        while cells < TILE_CELLS_AIM {
            cells *= 2;
        }
        cells
    }

    /// Pyramid levels stored in each tile (`cells = leaf · 2^levels`).
    pub fn tile_levels(&self, leaf: usize) -> usize {
        (self.cells / leaf.max(1)).trailing_zeros() as usize
    }

    /// Samples on a block's side (`cells + 1`).
    pub fn side(&self) -> usize {
        self.cells + 1
    }

    /// Samples in a block, padding included (a multiple of 1,024: whole 4 KiB pages).
    pub fn block_len(&self) -> usize {
        (self.side() * self.side()).next_multiple_of(PAGE_SAMPLES)
    }

    /// Number of tiles.
    pub fn count(&self) -> usize {
        self.ntx * self.nty
    }

    /// The cells of tile (tx, ty) in a grid of `ncx × ncy` cells: columns `[0]..[2]`, rows
    /// `[1]..[3]` (end exclusive).
    pub fn tile_cells(&self, tx: usize, ty: usize, ncx: usize, ncy: usize) -> [usize; 4] {
        let t = self.cells;
        [tx * t, ty * t, ((tx + 1) * t).min(ncx), ((ty + 1) * t).min(ncy)]
    }
}

/// A tiled sample store: the directory and the blocks (block 0 all NaN).
#[derive(Clone, Debug)]
pub(crate) struct TiledSamples {
    pub tiling: Tiling,
    /// Tile side in cells as a shift when a power of two (the default), else 0 and a division.
    shift: u32,
    side: usize,
    block_len: usize,
    /// Block of each tile, row-major (`ty · ntx + tx`); 0 for a tile without data.
    pub dir: Flat<u32>,
    /// The blocks, `block_len` samples each.
    pub blocks: Flat<f32>,
}

impl TiledSamples {
    /// The store of `tiling` with directory `dir` and blocks `blocks`; the sizes checked (every
    /// directory entry names a block), the values trusted.
    pub fn new(tiling: Tiling, dir: Flat<u32>, blocks: Flat<f32>) -> Result<Self, String> {
        let block_len = tiling.block_len();
        if dir.len() != tiling.count() {
            return Err(format!("{} directory entries for {} × {} tiles", dir.len(), tiling.ntx, tiling.nty));
        }
        if blocks.is_empty() || !blocks.len().is_multiple_of(block_len) {
            return Err(format!("{} samples is not a whole number of blocks of {block_len}", blocks.len()));
        }
        let n = blocks.len() / block_len;
        if let Some(k) = dir.iter().position(|&b| b as usize >= n) {
            return Err(format!("tile {k} names block {}, there are {n}", dir[k]));
        }
        if blocks[..block_len].iter().any(|h| !h.is_nan()) {
            return Err("block 0 (tiles without data) is not all NaN".into());
        }
        let shift = if tiling.cells.is_power_of_two() { tiling.cells.trailing_zeros() } else { 0 };
        Ok(Self { tiling, shift, side: tiling.side(), block_len, dir, blocks })
    }

    /// Samples on a block's side.
    #[inline(always)]
    pub fn side(&self) -> usize {
        self.side
    }

    /// The tile (along one axis) holding cell `c`.
    #[inline(always)]
    fn tile_of(&self, c: usize) -> usize {
        if self.shift != 0 {
            c >> self.shift
        } else {
            (c as u32 / self.tiling.cells as u32) as usize
        }
    }

    /// The block of tile (tx, ty).
    #[inline(always)]
    pub fn block(&self, tx: usize, ty: usize) -> usize {
        self.dir[ty * self.tiling.ntx + tx] as usize
    }

    /// Index in `blocks` of the south-west corner of cell (i, j) (a cell of the grid).
    #[inline(always)]
    pub fn cell_base(&self, i: usize, j: usize) -> usize {
        let (tx, ty) = (self.tile_of(i), self.tile_of(j));
        let t = self.tiling.cells;
        self.block(tx, ty) * self.block_len + (j - ty * t) * self.side + (i - tx * t)
    }

    /// Index in `blocks` of sample (i, j) of an `nx × ny` grid (through the cell it is a corner of).
    #[inline(always)]
    pub fn sample_index(&self, i: usize, j: usize, nx: usize, ny: usize) -> usize {
        let (ci, cj) = (i.min(nx - 2), j.min(ny - 2));
        self.cell_base(ci, cj) + (j - cj) * self.side + (i - ci)
    }

    /// Number of blocks (block 0 included).
    pub fn block_count(&self) -> usize {
        self.blocks.len() / self.block_len
    }
}

/// Cuts an `nx × ny` grid of row-major samples into blocks: the directory and the blocks of the tiles
/// that have a valid sample (block 0 all NaN first), in tile order.
pub(crate) fn cut(heights: &[f32], nx: usize, ny: usize, tiling: Tiling) -> (Vec<u32>, Vec<f32>) {
    let (side, block_len, t) = (tiling.side(), tiling.block_len(), tiling.cells);
    let mut dir = vec![0u32; tiling.count()];
    let mut blocks = vec![f32::NAN; block_len];
    let mut block = vec![f32::NAN; block_len];
    for ty in 0..tiling.nty {
        for tx in 0..tiling.ntx {
            block.fill(f32::NAN);
            let (i0, j0) = (tx * t, ty * t);
            let (w, h) = (side.min(nx - i0), side.min(ny - j0));
            for r in 0..h {
                let row = &heights[(j0 + r) * nx + i0..][..w];
                block[r * side..r * side + w].copy_from_slice(row);
            }
            if block.iter().any(|v| !v.is_nan()) {
                dir[ty * tiling.ntx + tx] = (blocks.len() / block_len) as u32;
                blocks.extend_from_slice(&block);
            }
        }
    }
    (dir, blocks)
}
