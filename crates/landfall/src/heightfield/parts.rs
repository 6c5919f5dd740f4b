//! A heightfield's arrays and parameters, to store them (an index file) and to load them back
//! without rebuilding: the samples, the hole mask and the min/max pyramid, each owned or borrowed
//! from shared bytes (a memory-mapped file, zero-copy).

use super::pyramid::Pyramid;
use super::{check_geometry, Diagonal, Heightfield, HeightfieldError};
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
    /// Samples, `heights[j·nx + i]`, row 0 south; NaN = hole.
    pub heights: Flat<f32>,
    /// Number of NaN samples.
    pub nodata: usize,
    /// One bit per cell (row-major, cells (nx − 1) × (ny − 1)), set = hole; empty for none.
    pub hole_mask: Flat<u64>,
    /// Pyramid leaf size, cells.
    pub leaf_size: usize,
    /// The pyramid's nodes: (low, high) codes.
    pub nodes: Flat<[u16; 2]>,
    /// Height of code 0 and of one code step.
    pub quantum: (f64, f64),
    /// Exact range of the valid samples (`[∞, −∞]` for none).
    pub exact: [f32; 2],
}

impl Heightfield {
    /// The heightfield's parts (the arrays shared, not copied, when they are memory-mapped).
    pub fn to_parts(&self) -> HeightfieldParts {
        let (nodes, quantum, exact) = self.pyramid.stored();
        HeightfieldParts {
            nx: self.nx,
            ny: self.ny,
            origin: self.origin,
            spacing: self.spacing,
            diagonal: self.diagonal,
            frame: self.frame,
            heights: self.heights.clone(),
            nodata: self.nodata,
            hole_mask: self.hole_mask.clone(),
            leaf_size: self.pyramid.leaf_size(),
            nodes: nodes.to_vec().into(),
            quantum,
            exact,
        }
    }

    /// A heightfield from stored parts, without rebuilding anything: the sizes of every array are
    /// checked against the grid (so no query reads out of bounds); the values are trusted — a
    /// loader of untrusted bytes checks them first (landfall-io's verified open recomputes the
    /// pyramid and the counts from the samples).
    pub fn from_parts(p: HeightfieldParts) -> Result<Self, HeightfieldError> {
        check_geometry(p.nx, p.ny, p.origin, p.spacing, p.leaf_size)?;
        let n = p.nx * p.ny;
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
            heights: p.heights,
            diagonal: p.diagonal,
            hole_mask: p.hole_mask,
            nodata: p.nodata,
            pyramid,
            frame: p.frame,
        })
    }

    /// Whether the samples live in shared bytes (a memory-mapped file) rather than in memory of
    /// their own.
    pub fn is_mapped(&self) -> bool {
        self.heights.is_shared()
    }

    /// For a mapped heightfield, lets go of the memory pages lying wholly inside samples `samples`
    /// (indices `j·nx + i`): they leave the process and are read from the file again, unchanged,
    /// when a query touches them. Does nothing to samples of their own.
    pub fn release_samples(&self, samples: std::ops::Range<usize>) {
        self.heights.release(samples);
    }

    /// For a mapped heightfield, starts reading samples `samples` from the file ahead of use.
    pub fn prefetch_samples(&self, samples: std::ops::Range<usize>) {
        self.heights.prefetch(samples);
    }

    /// For a mapped heightfield, asks for the map in huge pages (`true`, the default of an index
    /// file: queries spread over a large raster miss the TLB less) or in small ones (`false`: for
    /// letting go of pages one by one, as [`TileView`](crate::collide::TileView) and `--cache-mb`
    /// do). The answers do not change.
    pub fn set_huge_pages(&self, on: bool) {
        self.heights.huge_pages(on);
    }

    /// For a mapped heightfield, lets go of every page of the map (samples, pyramid, mask) — what
    /// `--cache-mb` does when the resident share of a map outgrows its budget.
    pub fn release_all(&self) {
        self.heights.release(0..usize::MAX);
        self.pyramid.release_nodes();
        self.hole_mask.release(0..usize::MAX);
    }
}
