//! GeoTIFF tiles on one grid (a directory of them, or a list), streamed as one index.

use super::report::{check_degrees, check_degrees_held, check_size, check_stored, grid_of, report, IndexReport};
use super::write::{Conflict, Grid, Writer};
use crate::load::LoadOptions;
use crate::IoError;
use glam::DVec2;
use landfall::support::{Tiling, MAX_SIDE};
use landfall::Frame;
use std::path::{Path, PathBuf};

/// One GeoTIFF of a mosaic: where it goes in the whole grid, and its rows while they are read.
struct MosaicTile {
    path: std::path::PathBuf,
    opened: crate::tif::Opened,
    rows: Option<crate::tif::RowReader>,
    /// Column of its west column and row (from the south) of its south row in the whole grid.
    col: usize,
    row0: usize,
}

/// The GeoTIFF tiles (`.tif`, `.tiff`) of a directory, sorted by name.
pub(super) fn tiles_in_dir(dir: &Path) -> Result<Vec<PathBuf>, IoError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| IoError::os(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(crate::extension(p).as_str(), "tif" | "tiff"))
        .collect();
    files.sort();
    // A tile that is no regular file (a directory, a link to a device) is said, not passed over.
    if let Some(odd) = files.iter().find(|p| !p.is_file()) {
        return Err(IoError::format(odd, "a tile of the directory that is not a regular file: move it out"));
    }
    if files.is_empty() {
        return Err(IoError::format(dir, "no GeoTIFF tiles (.tif, .tiff) in the directory"));
    }
    Ok(files)
}

/// Largest tile list read (`gdalbuildvrt -input_file_list` style): a text file of paths.
const MAX_LIST_BYTES: u64 = 64 << 20;

/// The tiles named by a list file: one path a line (relative ones from the list's directory),
/// blank lines and lines starting with `#` skipped. A line naming no file is an error naming it.
pub(super) fn tiles_in_list(list: &Path) -> Result<Vec<PathBuf>, IoError> {
    use std::io::Read;
    let (file, len) = crate::input::open_regular(list)?;
    if len > MAX_LIST_BYTES {
        return Err(IoError::format(list, format!("{len} bytes: a list of tiles is at most {MAX_LIST_BYTES}")));
    }
    let mut text = String::new();
    file.take(MAX_LIST_BYTES).read_to_string(&mut text).map_err(|e| IoError::os(list, e))?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    // A byte-order mark (as Windows editors write) is not part of the first name.
    for (k, line) in text.strip_prefix('\u{feff}').unwrap_or(&text).lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let p = base.join(line);
        if !p.is_file() {
            return Err(IoError::field(
                list,
                format!("line {}", k + 1),
                format!("'{}' is not a file", crate::quote(line)),
            ));
        }
        files.push(p);
    }
    if files.is_empty() {
        return Err(IoError::format(list, "names no tile"));
    }
    Ok(files)
}

/// GeoTIFF tiles on one grid (same spacing, origins on the grid; they may share edge rows and
/// columns, and leave gaps, which become holes) as one heightfield index, streamed row by row
/// across the tiles: memory is one band of rows of the tiles in the current row, and one band of the
/// index's tiles with data. Rows no tile covers are skipped, and the index stores only the tiles
/// with data, so tiles far apart make a large, sparse grid cheaply. Tiles may overlap where they
/// agree (equal values, or nodata in one of them); where two overlapping tiles have different
/// values the mosaic is refused, naming both and the sample (unlike `gdalbuildvrt`, which lets the
/// last one win silently, an elevation service cannot tell which is right). `files` come from
/// `source` (a directory or a list), named in errors; the output may not be one of them.
pub(super) fn build_mosaic(
    source: &Path,
    files: Vec<PathBuf>,
    out: &Path,
    opts: &LoadOptions,
    frame: Frame,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IndexReport, IoError> {
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    crate::refuse_overwriting_inputs(out, &inputs)?;
    let mut tiles = Vec::new();
    let mut grid: Option<(f64, f64)> = None;
    for path in &files {
        let o = crate::tif::open(path, &opts.limits, |w, h| {
            if w < 1 || h < 1 || w > MAX_SIDE as u64 || h > MAX_SIDE as u64 {
                return Err(IoError::field(path, "ImageWidth × ImageLength", format!("{w} × {h}")));
            }
            Ok(())
        })?;
        let geo =
            o.georef.ok_or_else(|| IoError::format(path, "no georeferencing: a mosaic needs every tile placed"))?;
        let (dx, dy) = *grid.get_or_insert(geo.spacing);
        let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        if !(same(geo.spacing.0, dx) && same(geo.spacing.1, dy)) {
            return Err(IoError::field(
                path,
                "pixel size",
                format!("{} × {}, the mosaic's first tile has {dx} × {dy}", geo.spacing.0, geo.spacing.1),
            ));
        }
        tiles.push((path.clone(), o, geo));
    }
    let (dx, dy) = grid.expect("at least one tile");
    // One coordinate reference system: the first tile's, and every other tile's the same.
    let crs = tiles[0].1.geokeys.clone();
    let same = |k: &Option<crate::GeoKeys>| match (k, &crs) {
        (Some(a), Some(b)) => a.same_crs(b),
        (a, b) => a == b,
    };
    if let Some(t) = tiles.iter().find(|t| !same(&t.1.geokeys)) {
        return Err(IoError::field(
            &t.0,
            "GeoKeys",
            format!("another coordinate reference system than {}", tiles[0].0.display()),
        ));
    }
    let west = tiles.iter().map(|t| t.2.origin.0).fold(f64::INFINITY, f64::min);
    let south = tiles.iter().map(|t| t.2.origin.1).fold(f64::INFINITY, f64::min);
    let mut placed = Vec::new();
    let (mut nx, mut ny) = (0u64, 0u64);
    for (path, o, geo) in tiles {
        let (c, r) = ((geo.origin.0 - west) / dx, (geo.origin.1 - south) / dy);
        // Far apart tiles (a corrupt or hostile origin) make no grid: refused before any index.
        let side = MAX_SIDE as f64;
        if !(c.is_finite() && r.is_finite() && c <= side && r <= side) {
            return Err(IoError::field(
                &path,
                "origin",
                format!(
                    "({}, {}) lies {c:.0} columns and {r:.0} rows from the mosaic's south-west corner ({west}, {south}): \
                     a mosaic spans at most 2³¹ − 1 samples a side",
                    geo.origin.0, geo.origin.1
                ),
            ));
        }
        if (c - c.round()).abs() > 1e-6 || (r - r.round()).abs() > 1e-6 {
            return Err(IoError::field(
                &path,
                "origin",
                format!(
                    "({}, {}) is not on the mosaic's grid ({dx} × {dy} from ({west}, {south}))",
                    geo.origin.0, geo.origin.1
                ),
            ));
        }
        let (col, row0) = (c.round() as usize, r.round() as usize);
        nx = nx.max((col + o.nx) as u64);
        ny = ny.max((row0 + o.ny) as u64);
        placed.push(MosaicTile { path, opened: o, rows: None, col, row0 });
    }
    check_size(source, "the mosaic", nx, ny)?;
    let (nx, ny) = (nx as usize, ny as usize);
    let (dx, dy) = opts.spacing.unwrap_or((dx, dy));
    let (ox, oy) = opts.origin.unwrap_or((west, south));
    let grid = Grid { nx, ny, leaf: opts.leaf_size, origin: DVec2::new(ox, oy), spacing: DVec2::new(dx, dy) };
    check_degrees(source, &grid, crs.as_ref(), opts)?;
    let covered = covered_tiles(source, &grid, opts, &placed)?;
    check_degrees_held(source, &grid, crs.as_ref(), opts, covered.len())?;
    let mut w = Writer::start(out, grid, covered)?;
    // The rows some tile covers, north to south.
    let mut spans: Vec<(usize, usize)> = placed.iter().map(|t| (t.row0, t.row0 + t.opened.ny)).collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(m) if a <= m.1 => m.1 = m.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let rows: u64 = merged.iter().map(|m| (m.1 - m.0) as u64).sum();
    let mut done = 0u64;
    let mut heights = Vec::new();
    for &(a, b) in merged.iter().rev() {
        for j in (a..b).rev() {
            for k in 0..placed.len() {
                let t = &mut placed[k];
                if !(t.row0..t.row0 + t.opened.ny).contains(&j) {
                    continue;
                }
                if t.rows.is_none() {
                    t.rows = Some(crate::tif::RowReader::new(&t.path, &mut t.opened)?);
                }
                let reader = t.rows.as_mut().expect("just made");
                let values = reader
                    .next_row(&mut t.opened)?
                    .ok_or_else(|| IoError::format(&t.path, "fewer rows than declared"))?;
                let nodata = crate::raster::Nodata::new(t.opened.nodata);
                heights.clear();
                for (c, &v) in values.iter().enumerate() {
                    let f = v as f32;
                    if nodata.is_hole(v) {
                        heights.push(f32::NAN); // a hole here; a neighbour sharing the edge may fill it
                        continue;
                    }
                    if f.is_infinite() {
                        return Err(IoError::field(
                            &t.path,
                            format!("pixel (row {}, column {c})", t.row0 + t.opened.ny - 1 - j),
                            format!("{} is not a finite height", landfall::support::Num(v)),
                        ));
                    }
                    let h = (f as f64 * opts.z_scale + opts.z_offset) as f32;
                    if h.is_infinite() {
                        return Err(IoError::field(
                            &t.path,
                            format!("column {c}"),
                            "value overflows f32 after z-scale/z-offset",
                        ));
                    }
                    heights.push(h);
                }
                if j == t.row0 {
                    t.rows = None; // its last row: free its band
                }
                if let Some(c) = w.put(j, t.col, &heights)? {
                    return Err(overlap(&placed, k, c, &grid));
                }
            }
            done += 1;
            if done.is_multiple_of(256) {
                progress(done, rows);
            }
        }
    }
    progress(rows, rows);
    let finished = w.finish(source, opts.diagonal, frame, crs.as_ref())?;
    Ok(report(&grid_of(nx, ny, opts.leaf_size), finished, true))
}

/// The index's tiles under the mosaic's tiles (every index tile holding one of their samples),
/// after the samples they may store are checked against `--max-samples`.
fn covered_tiles(source: &Path, grid: &Grid, opts: &LoadOptions, placed: &[MosaicTile]) -> Result<Vec<u64>, IoError> {
    let tiling = Tiling::new(grid.nx, grid.ny, grid.leaf.max(1));
    let t = tiling.cells;
    // Index tiles holding samples a..b (end exclusive) along one axis.
    let span = |a: usize, b: usize, n: usize| (a.saturating_sub(1) / t)..=((b - 1) / t).min(n - 1);
    let under =
        |m: &MosaicTile| (span(m.col, m.col + m.opened.nx, tiling.ntx), span(m.row0, m.row0 + m.opened.ny, tiling.nty));
    // A bit per index tile (at most 2²⁶ tiles: 8 MiB), then the count checked, then the list.
    let mut bits = vec![0u64; tiling.count().div_ceil(64)];
    for m in placed {
        let (x, y) = under(m);
        for ty in y {
            for tx in x.clone() {
                let k = ty * tiling.ntx + tx;
                bits[k / 64] |= 1 << (k % 64);
            }
        }
    }
    let count: u64 = bits.iter().map(|w| w.count_ones() as u64).sum();
    check_stored(source, grid, opts, count)?;
    Ok((0..tiling.count() as u64).filter(|&k| bits[k as usize / 64] >> (k % 64) & 1 == 1).collect())
}

/// The error for two overlapping tiles with different values: tile `k` put `c.new` where another
/// had put `c.old`.
fn overlap(placed: &[MosaicTile], k: usize, c: Conflict, grid: &Grid) -> IoError {
    let inside =
        |m: &MosaicTile| (m.col..m.col + m.opened.nx).contains(&c.i) && (m.row0..m.row0 + m.opened.ny).contains(&c.j);
    let other = placed
        .iter()
        .enumerate()
        .find(|&(o, m)| o != k && inside(m))
        .map_or_else(|| "another tile".to_string(), |(_, m)| m.path.display().to_string());
    let (x, y) = (grid.origin.x + c.i as f64 * grid.spacing.x, grid.origin.y + c.j as f64 * grid.spacing.y);
    let t = &placed[k];
    IoError::field(
        &t.path,
        format!("pixel (row {}, column {})", t.row0 + t.opened.ny - 1 - c.j, c.i - t.col),
        format!(
            "overlaps {other} with another value at ({x}, {y}): {} there, {} here; overlapping tiles must agree \
             (remove one, or clip them to meet edge to edge)",
            c.old, c.new
        ),
    )
}
