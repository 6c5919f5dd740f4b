//! A heightfield's arrays and parameters, to store them (an index file) and to load them back
//! without rebuilding: the samples, the hole mask and the min/max pyramid, each owned or borrowed
//! from shared bytes (a memory-mapped file, zero-copy).

use super::pyramid::Pyramid;
use super::tiles::{cut, TiledSamples, Tiling};
use super::{check_geometry, Diagonal, Heightfield, HeightfieldError, Samples};
use crate::flat::Flat;
use crate::frame::Frame;
use glam::DVec2;

/// Everything a [`Heightfield`] is made of.
#[derive(Clone, Debug)]
pub struct HeightfieldParts {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// World position of sample (0, 0), the south-west corner.
    pub origin: DVec2,
    /// Sample spacing.
    pub spacing: DVec2,
    /// Cell triangulation.
    pub diagonal: Diagonal,
    /// Gravity frame.
    pub frame: Frame,
    /// Samples, `heights[j·nx + i]`, row 0 south; NaN = hole. With [`tiles`](Self::tiles): the
    /// tiles' blocks instead (see [`Tiling`]).
    pub heights: Flat<f32>,
    /// Number of NaN samples.
    pub nodata: usize,
    /// One bit per cell (row-major, cells (nx − 1) × (ny − 1)), set = hole; empty for none.
    pub hole_mask: Flat<u64>,
    /// Pyramid leaf size, cells.
    pub leaf_size: usize,
    /// The pyramid's nodes: (low, high) codes. Unused with [`tiles`](Self::tiles) (the levels above
    /// the tiles' own are computed from theirs).
    pub nodes: Flat<[u16; 2]>,
    /// Height of code 0 and of one code step.
    pub quantum: (f64, f64),
    /// Exact range of the valid samples (`[∞, −∞]` for none).
    pub exact: [f32; 2],
    /// For samples stored per tile: the tiles.
    pub tiles: Option<TileParts>,
}

/// The tiles of a tiled heightfield (an index file's): which block each tile's samples are in, and
/// each block's lower pyramid levels.
#[derive(Clone, Debug)]
pub struct TileParts {
    /// The cut: it must be [`Tiling::new`] of the grid and its leaf size.
    pub tiling: Tiling,
    /// Block of each tile (`ty · ntx + tx`), 0 for a tile without data (block 0 is all NaN).
    pub directory: Flat<u32>,
    /// Each block's pyramid nodes, [`Tiling::pyramid_len`] of them
    /// ([`Pyramid::tile_nodes`](super::Pyramid::tile_nodes)).
    pub nodes: Flat<[u16; 2]>,
}

impl Heightfield {
    /// The heightfield's parts (the arrays shared, not copied, when they are memory-mapped).
    pub fn to_parts(&self) -> HeightfieldParts {
        let (nodes, quantum, exact) = self.pyramid.stored();
        let (heights, tiles) = match &self.samples {
            Samples::Rows(h) => (h.clone(), None),
            Samples::Tiles(t) => (
                t.blocks.clone(),
                Some(TileParts {
                    tiling: t.tiling,
                    directory: t.dir.clone(),
                    nodes: self.pyramid.tile_nodes_stored().clone(),
                }),
            ),
        };
        HeightfieldParts {
            nx: self.nx,
            ny: self.ny,
            origin: self.origin,
            spacing: self.spacing,
            diagonal: self.diagonal,
            frame: self.frame,
            heights,
            nodata: self.nodata,
            hole_mask: self.hole_mask.clone(),
            leaf_size: self.pyramid.leaf_size(),
            nodes: if tiles.is_some() { Flat::default() } else { nodes.to_vec().into() },
            quantum,
            exact,
            tiles,
        }
    }

    /// The same heightfield with its samples stored per tile ([`Tiling::new`] of its grid and leaf
    /// size; tiles without a valid sample store none), answering every query as this one does, bit
    /// for bit. What an index file holds; also for testing. Refused with a hole mask.
    pub fn to_tiles(&self) -> Result<Heightfield, HeightfieldError> {
        let Samples::Rows(h) = &self.samples else { return Ok(self.clone()) };
        if !self.hole_mask.is_empty() {
            return Err(HeightfieldError::BadTiles("a hole mask cannot be stored per tile".into()));
        }
        let leaf = self.pyramid.leaf_size();
        let tiling = Tiling::new(self.nx, self.ny, leaf);
        let (dir, blocks) = cut(h, self.nx, self.ny, tiling);
        let (_, quantum, _) = self.pyramid.stored();
        // Each block's tile, for its cells (block 0, all NaN, any tile's).
        let mut tile_of = vec![0; blocks.len() / tiling.block_len()];
        for (k, &b) in dir.iter().enumerate() {
            tile_of[b as usize] = k;
        }
        let (ncx, ncy) = (self.nx - 1, self.ny - 1);
        let nodes: Vec<[u16; 2]> = blocks
            .chunks_exact(tiling.block_len())
            .zip(tile_of)
            .flat_map(|(b, k)| {
                let c = tiling.tile_cells(k % tiling.ntx, k / tiling.ntx, ncx, ncy);
                Pyramid::tile_nodes(b, tiling, [c[2] - c[0], c[3] - c[1]], leaf, quantum)
            })
            .collect();
        let tiles = TileParts { tiling, directory: dir.into(), nodes: nodes.into() };
        let parts =
            HeightfieldParts { heights: blocks.into(), nodes: Flat::default(), tiles: Some(tiles), ..self.to_parts() };
        Heightfield::from_parts(parts)
    }

    /// A heightfield from stored parts, without rebuilding anything: the sizes of every array are
    /// checked against the grid (so no query reads out of bounds); the values are trusted — a
    /// loader of untrusted bytes checks them first (landfall-io's verified open recomputes the
    /// pyramid and the counts from the samples).
    pub fn from_parts(p: HeightfieldParts) -> Result<Self, HeightfieldError> {
        check_geometry(p.nx, p.ny, p.origin, p.spacing, p.leaf_size)?;
        let n = p.nx * p.ny;
        if let Some(tiles) = p.tiles {
            return Self::from_tile_parts(
                p.heights,
                tiles,
                HeightfieldParts { tiles: None, heights: Flat::default(), ..p },
            );
        }
        if p.heights.len() != n {
            return Err(HeightfieldError::WrongLength { expected: n, got: p.heights.len() });
        }
        let cells = (p.nx - 1) * (p.ny - 1);
        if !p.hole_mask.is_empty() && p.hole_mask.len() != cells.div_ceil(64) {
            return Err(HeightfieldError::WrongMaskLength { expected: cells.div_ceil(64), got: p.hole_mask.len() });
        }
        if p.nodata > n {
            return Err(HeightfieldError::WrongLength { expected: n, got: p.nodata });
        }
        let pyramid = Pyramid::from_stored(p.nx - 1, p.ny - 1, p.leaf_size, p.nodes, p.quantum, p.exact)
            .map_err(HeightfieldError::BadPyramid)?;
        Ok(Heightfield {
            nx: p.nx,
            ny: p.ny,
            origin: p.origin,
            spacing: p.spacing,
            inv_spacing: DVec2::ONE / p.spacing,
            samples: Samples::Rows(p.heights),
            diagonal: p.diagonal,
            hole_mask: p.hole_mask,
            nodata: p.nodata,
            pyramid,
            frame: p.frame,
        })
    }

    /// [`from_parts`](Self::from_parts) for samples stored per tile (`blocks`).
    fn from_tile_parts(blocks: Flat<f32>, tiles: TileParts, p: HeightfieldParts) -> Result<Self, HeightfieldError> {
        let bad = HeightfieldError::BadTiles;
        let want = Tiling::new(p.nx, p.ny, p.leaf_size);
        if tiles.tiling != want {
            return Err(bad(format!("{:?}, the grid and leaf size make {want:?}", tiles.tiling)));
        }
        if !p.hole_mask.is_empty() {
            return Err(bad("a hole mask cannot be stored per tile".into()));
        }
        if p.nodata as u64 > p.nx as u64 * p.ny as u64 {
            return Err(HeightfieldError::WrongLength { expected: p.nx * p.ny, got: p.nodata });
        }
        let samples = TiledSamples::new(want, tiles.directory.clone(), blocks).map_err(bad)?;
        if tiles.nodes.len() != samples.block_count() * want.pyramid_len(p.leaf_size) {
            return Err(bad(format!("{} tile pyramid nodes for {} blocks", tiles.nodes.len(), samples.block_count())));
        }
        let pyramid = Pyramid::from_tiles(
            p.nx - 1,
            p.ny - 1,
            p.leaf_size,
            want,
            tiles.directory,
            tiles.nodes,
            p.quantum,
            p.exact,
        )
        .map_err(HeightfieldError::BadPyramid)?;
        Ok(Heightfield {
            nx: p.nx,
            ny: p.ny,
            origin: p.origin,
            spacing: p.spacing,
            inv_spacing: DVec2::ONE / p.spacing,
            samples: Samples::Tiles(samples),
            diagonal: p.diagonal,
            hole_mask: p.hole_mask,
            nodata: p.nodata,
            pyramid,
            frame: p.frame,
        })
    }

    /// The samples' array: rows, or the tiles' blocks.
    fn sample_array(&self) -> &Flat<f32> {
        match &self.samples {
            Samples::Rows(h) => h,
            Samples::Tiles(t) => &t.blocks,
        }
    }

    /// Whether the samples live in shared bytes (a memory-mapped file) rather than in memory of
    /// their own.
    pub fn is_mapped(&self) -> bool {
        self.sample_array().is_shared()
    }

    /// For a mapped heightfield of rows, lets go of the memory pages lying wholly inside samples
    /// `samples` (indices `j·nx + i`): they leave the process and are read from the file again,
    /// unchanged, when a query touches them. Does nothing to samples of their own, nor to tiles
    /// (see [`release_tile`](Self::release_tile)).
    pub fn release_samples(&self, samples: std::ops::Range<usize>) {
        if let Samples::Rows(h) = &self.samples {
            h.release(samples);
        }
    }

    /// For a mapped heightfield of rows, starts reading samples `samples` from the file ahead of
    /// use.
    pub fn prefetch_samples(&self, samples: std::ops::Range<usize>) {
        if let Samples::Rows(h) = &self.samples {
            h.prefetch(samples);
        }
    }

    /// For a mapped tiled heightfield, lets go of the pages of tile (tx, ty): its samples and its
    /// pyramid nodes (whole pages of its own). Does nothing for a tile without data, out of range,
    /// or for samples in rows.
    pub fn release_tile(&self, tx: usize, ty: usize) {
        if let (Samples::Tiles(t), Some(b @ 1..)) = (&self.samples, self.tile_block(tx, ty)) {
            let n = t.tiling.block_len();
            t.blocks.release(b * n..(b + 1) * n);
            self.pyramid.release_block(b);
        }
    }

    /// For a mapped tiled heightfield, starts reading tile (tx, ty)'s samples from the file.
    pub fn prefetch_tile(&self, tx: usize, ty: usize) {
        if let (Samples::Tiles(t), Some(b @ 1..)) = (&self.samples, self.tile_block(tx, ty)) {
            let n = t.tiling.block_len();
            t.blocks.prefetch(b * n..(b + 1) * n);
        }
    }

    /// For a mapped heightfield, asks for the map in huge pages (`true`, the default of an index
    /// file: queries spread over a large raster miss the TLB less) or in small ones (`false`: for
    /// letting go of pages one by one, as [`TileView`](crate::collide::TileView) and `--cache-mb`
    /// do). The answers do not change.
    pub fn set_huge_pages(&self, on: bool) {
        self.sample_array().huge_pages(on);
    }

    /// For a mapped heightfield, lets go of every page of the map (samples, pyramid, mask) — what
    /// `--cache-mb` does when the resident share of a map outgrows its budget.
    pub fn release_all(&self) {
        self.sample_array().release(0..usize::MAX);
        if let Samples::Tiles(t) = &self.samples {
            t.dir.release(0..usize::MAX);
        }
        self.pyramid.release_nodes();
        self.hole_mask.release(0..usize::MAX);
    }
}
