//! What a build reports, and the checks of a grid's size, stored samples and degrees before anything is
//! written (shared by a single raster's build and a mosaic's).

use super::write::Grid;
use super::MAX_INDEX_LEAF;
use crate::load::LoadOptions;
use crate::IoError;
use glam::DVec2;
use landfall::support::{Tiling, MAX_SAMPLES, MAX_SIDE};
use std::path::Path;

/// What [`build_heightfield_index`](super::build_heightfield_index) did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexReport {
    /// Samples, columns × rows.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// NaN samples.
    pub nodata: usize,
    /// Bytes of the file (its apparent length: the room of tiles without data takes no disk).
    pub bytes: u64,
    /// Tiles that store samples (of [`Tiling::new`] of the grid), and the samples they store (each
    /// its `(cells + 1)²`, what `--max-samples` bounds).
    pub tiles_stored: usize,
    /// Samples stored.
    pub samples_stored: u64,
    /// Whether the raster was streamed (a GeoTIFF) or loaded whole (other formats).
    pub streamed: bool,
}

/// A grid's size and leaf size alone (for [`report`]).
pub(super) fn grid_of(nx: usize, ny: usize, leaf: usize) -> Grid {
    Grid { nx, ny, leaf, origin: DVec2::ZERO, spacing: DVec2::ONE }
}

/// The report of a finished index: (bytes, NaN samples, tiles stored) from the writer.
pub(super) fn report(grid: &Grid, (bytes, nodata, stored): (u64, usize, usize), streamed: bool) -> IndexReport {
    let side = Tiling::new(grid.nx, grid.ny, grid.leaf).side() as u64;
    let (nx, ny) = (grid.nx, grid.ny);
    IndexReport { nx, ny, nodata, bytes, streamed, tiles_stored: stored, samples_stored: stored as u64 * side * side }
}

/// Refuses a grid of `w × h` samples that no heightfield can hold (2 to 2³¹ − 1 along an axis, at
/// most 2⁴² samples).
pub(super) fn check_size(src: &Path, field: &str, w: u64, h: u64) -> Result<(), IoError> {
    if w < 2 || h < 2 || w > MAX_SIDE as u64 || h > MAX_SIDE as u64 || w.checked_mul(h).is_none_or(|n| n > MAX_SAMPLES)
    {
        return Err(IoError::field(src, field, format!("{w} × {h} samples: 2 to 2³¹ − 1 a side, at most 2⁴² samples")));
    }
    Ok(())
}

/// Checks the leaf size of an index and the samples it may store: those of `covered` tiles (the
/// tiles the input covers), against `--max-samples`.
pub(super) fn check_stored(src: &Path, grid: &Grid, opts: &LoadOptions, covered: u64) -> Result<(), IoError> {
    if !(1..=MAX_INDEX_LEAF).contains(&grid.leaf) {
        return Err(IoError::field(src, "leaf size", format!("{}: an index takes 1 to {MAX_INDEX_LEAF}", grid.leaf)));
    }
    let side = Tiling::new(grid.nx, grid.ny, grid.leaf).side() as u64;
    let stored = covered.saturating_mul(side * side);
    if stored > opts.limits.max_samples {
        return Err(IoError::format(
            src,
            format!(
                "the index would store up to {stored} samples ({covered} tiles of {side}² samples), more than the \
                 limit of {} (--max-samples counts the samples an index stores; raise it)",
                opts.limits.max_samples
            ),
        ));
    }
    Ok(())
}

/// A grid in degrees (geographic `geokeys`, placed by the file, not by `--origin`/`--spacing`)
/// must be one that opens as a surface on the ellipsoid: checked before anything is written.
pub(super) fn check_degrees(
    src: &Path,
    grid: &Grid,
    geokeys: Option<&crate::GeoKeys>,
    opts: &LoadOptions,
) -> Result<(), IoError> {
    if in_degrees(geokeys, opts) {
        landfall::geo::GeoSurface::check_grid(grid.origin, grid.spacing, grid.nx, grid.ny)
            .map_err(|e| IoError::format(src, format!("geographic CRS: {e}")))?;
    }
    Ok(())
}

/// A grid in degrees whose `tiles` stored tiles are few beside its span (a mosaic of tiles far
/// apart) is refused before anything is written, as opening it would be.
pub(super) fn check_degrees_held(
    src: &Path,
    grid: &Grid,
    geokeys: Option<&crate::GeoKeys>,
    opts: &LoadOptions,
    tiles: usize,
) -> Result<(), IoError> {
    if in_degrees(geokeys, opts) {
        let side = Tiling::new(grid.nx, grid.ny, grid.leaf).side();
        geo_tables_fit(src, grid.nx, grid.ny, tiles.saturating_mul(side * side * 4))?;
    }
    Ok(())
}

/// Whether the grid is in degrees: geographic `geokeys`, placed by the file, not by
/// `--origin`/`--spacing`.
fn in_degrees(geokeys: Option<&crate::GeoKeys>, opts: &LoadOptions) -> bool {
    let placed = opts.origin.is_some() || opts.spacing.is_some();
    geokeys.is_some_and(crate::GeoKeys::is_geographic) && !placed
}

/// Refuses a grid in degrees whose surface tables (`GeoSurface::extra_memory`, over the whole grid,
/// holes included) would dwarf the `held` bytes of heights a file holds: an index of tiles far
/// apart is not allowed to allocate what its header merely spans.
pub(crate) fn geo_tables_fit(path: &Path, nx: usize, ny: usize, held: usize) -> Result<(), IoError> {
    let extra = landfall::geo::GeoSurface::extra_memory(nx, ny);
    if extra > 4 * held + (256 << 20) {
        return Err(IoError::format(
            path,
            format!(
                "geographic CRS: its tiles span {nx} × {ny} samples but hold {:.1} MiB; a raster in degrees builds \
                 its tables on the ellipsoid over the whole grid, holes included ({:.0} MiB here): index distant \
                 groups of tiles separately",
                held as f64 / 1048576.0,
                extra as f64 / 1048576.0
            ),
        ));
    }
    Ok(())
}
