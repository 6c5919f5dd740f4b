//! GeoTIFF tiles on one grid (a directory of them, or a list), streamed as one index.

use super::build::IndexReport;
use super::write::Writer;
use crate::load::LoadOptions;
use crate::IoError;
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
        .filter(|p| matches!(crate::extension(p).as_str(), "tif" | "tiff") && p.is_file())
        .collect();
    files.sort();
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
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let p = base.join(line);
        if !p.is_file() {
            return Err(IoError::field(list, format!("line {}", k + 1), format!("'{line}' is not a file")));
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
/// across the tiles: memory is one band of rows of the tiles in the current row. `files` come from
/// `source` (a directory or a list), named in errors.
pub(super) fn build_mosaic(
    source: &Path,
    files: Vec<PathBuf>,
    out: &Path,
    opts: &LoadOptions,
    frame: Frame,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IndexReport, IoError> {
    let mut tiles = Vec::new();
    let mut grid: Option<(f64, f64)> = None;
    for path in &files {
        let o = crate::tif::open(path, &opts.limits, |w, h| {
            if w < 1 || h < 1 || w.checked_mul(h).is_none_or(|n| n > u32::MAX as u64 / 2) {
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
    if let Some(t) = tiles.iter().find(|t| t.1.geokeys != crs) {
        return Err(IoError::field(
            &t.0,
            "GeoKeys",
            format!("another coordinate reference system than {}", tiles[0].0.display()),
        ));
    }
    let west = tiles.iter().map(|t| t.2.origin.0).fold(f64::INFINITY, f64::min);
    let south = tiles.iter().map(|t| t.2.origin.1).fold(f64::INFINITY, f64::min);
    let mut placed = Vec::new();
    let (mut nx, mut ny) = (0usize, 0usize);
    for (path, o, geo) in tiles {
        let (c, r) = ((geo.origin.0 - west) / dx, (geo.origin.1 - south) / dy);
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
        nx = nx.max(col + o.nx);
        ny = ny.max(row0 + o.ny);
        placed.push(MosaicTile { path, opened: o, rows: None, col, row0 });
    }
    if nx < 2 || ny < 2 || nx.checked_mul(ny).is_none_or(|n| n > u32::MAX as usize / 2) {
        return Err(IoError::format(source, format!("the mosaic is {nx} × {ny} samples (2 × 2 to 2³¹)")));
    }
    let (dx, dy) = opts.spacing.unwrap_or((dx, dy));
    let (ox, oy) = opts.origin.unwrap_or((west, south));
    let mut w = Writer::start(out, nx, ny, opts.leaf_size)?;
    let mut row = vec![f32::NAN; nx];
    for j in (0..ny).rev() {
        row.fill(f32::NAN);
        for t in placed.iter_mut().filter(|t| (t.row0..t.row0 + t.opened.ny).contains(&j)) {
            if t.rows.is_none() {
                t.rows = Some(crate::tif::RowReader::new(&t.path, &mut t.opened)?);
            }
            let reader = t.rows.as_mut().expect("just made");
            let values =
                reader.next_row(&mut t.opened)?.ok_or_else(|| IoError::format(&t.path, "fewer rows than declared"))?;
            let nodata = t.opened.nodata;
            for (k, &v) in values.iter().enumerate() {
                let f = v as f32;
                if v.is_nan() || nodata.is_some_and(|n| n == v || n as f32 == f) {
                    continue; // a hole here; a neighbour sharing the edge may fill it
                }
                if f.is_infinite() {
                    return Err(IoError::field(
                        &t.path,
                        format!("pixel (row {}, column {k})", t.row0 + t.opened.ny - 1 - j),
                        format!("{v} is not a finite height"),
                    ));
                }
                let h = (f as f64 * opts.z_scale + opts.z_offset) as f32;
                if h.is_infinite() {
                    return Err(IoError::field(
                        &t.path,
                        format!("column {k}"),
                        "value overflows f32 after z-scale/z-offset",
                    ));
                }
                row[t.col + k] = h;
            }
            if j == t.row0 {
                t.rows = None; // its last row: free its band
            }
        }
        w.row(j, &row)?;
        if j % 256 == 0 {
            progress((ny - j) as u64, ny as u64);
        }
    }
    progress(ny as u64, ny as u64);
    let (bytes, nodata) = w.finish([ox, oy], [dx, dy], opts.diagonal, frame, crs.as_ref())?;
    Ok(IndexReport { nx, ny, nodata, bytes, streamed: true })
}
