//! Building an index: a raster (a GeoTIFF streamed, other formats read whole) or a mosaic of tiles.

use super::mosaic::{build_mosaic, tiles_in_dir, tiles_in_list};
use super::report::{check_degrees, check_size, check_stored, grid_of, report, IndexReport};
use super::write::{Grid, Writer};
use crate::load::LoadOptions;
use crate::raster::{GeoRef, Nodata};
use crate::IoError;
use glam::DVec2;
use landfall::support::Tiling;
use landfall::{Frame, Heightfield};
use std::path::Path;

/// Writes the index of the raster at `src` to `out`: z = value · z_scale + z_offset, placement from
/// the options, else the file's, else origin (0, 0) and spacing 1 — exactly as
/// [`load_heightfield`](crate::load_heightfield) would build it. A GeoTIFF is streamed (any size; memory is a band of
/// rows); other formats are read whole; a directory of GeoTIFF tiles on one grid (a national DEM's
/// 1° tiles), or a list of them (a `.txt` or `.lst` file, one path a line, relative to the list's
/// directory), is streamed as one mosaic. `progress(rows done, rows)` is called as rows are written.
///
/// The index stores the samples of the tiles that have data (see the format's documentation); before
/// anything is written, the samples it may store (every tile the input covers) are checked against
/// `opts.limits.max_samples` (`--max-samples`), and the grid against 2⁴² samples.
pub fn build_heightfield_index(
    src: &Path,
    out: &Path,
    opts: &LoadOptions,
    frame: Frame,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IndexReport, IoError> {
    if cfg!(target_endian = "big") {
        return Err(IoError::format(out, "index files are little-endian; this machine is not"));
    }
    if !(opts.z_scale.is_finite() && opts.z_offset.is_finite()) {
        return Err(IoError::field(src, "z-scale/z-offset", "must be finite numbers"));
    }
    if src.is_dir() {
        return build_mosaic(src, tiles_in_dir(src)?, out, opts, frame, progress);
    }
    let ext = crate::extension(src);
    if ext == "txt" || ext == "lst" {
        return build_mosaic(src, tiles_in_list(src)?, out, opts, frame, progress);
    }
    if ext != "tif" && ext != "tiff" {
        // Small formats: load whole, write the heightfield's parts.
        let loaded = crate::load_heightfield(src, opts)?;
        let hf = loaded.heightfield;
        let (nx, ny) = (hf.nx(), hf.ny());
        let grid = Grid { nx, ny, leaf: hf.pyramid().leaf_size(), origin: hf.origin(), spacing: hf.spacing() };
        check_degrees(src, &grid, loaded.geokeys.as_ref(), opts)?;
        let covered = check_grid(src, &grid, opts)?;
        let mut w = Writer::start(out, grid, covered)?;
        let mut row = vec![0f32; nx];
        for j in (0..ny).rev() {
            for (i, h) in row.iter_mut().enumerate() {
                *h = hf.sample(i, j);
            }
            w.put(j, 0, &row)?;
        }
        progress(ny as u64, ny as u64);
        let done = w.finish(src, hf.diagonal(), frame, loaded.geokeys.as_ref())?;
        return Ok(report(&grid_of(nx, ny, hf.pyramid().leaf_size()), done, false));
    }
    // GeoTIFF: its header, then its rows as they decode.
    let limits = &opts.limits;
    let mut o = crate::tif::open(src, limits, |w, h| {
        if w < 2 || h < 2 {
            return Err(IoError::format(src, format!("raster is {w}×{h}; a terrain needs at least 2×2 samples")));
        }
        check_size(src, "ImageWidth × ImageLength", w, h)
    })?;
    let (nx, ny, nodata) = (o.nx, o.ny, o.nodata);
    let geo = o.georef.unwrap_or(GeoRef { origin: (0.0, 0.0), spacing: (1.0, 1.0) });
    let (dx, dy) = opts.spacing.unwrap_or(geo.spacing);
    let (ox, oy) = opts.origin.unwrap_or(geo.origin);
    // The same checks a heightfield makes, before anything is written.
    Heightfield::builder(2, 2, vec![0.0; 4])
        .origin(ox, oy)
        .spacing(dx, dy)
        .leaf_size(opts.leaf_size)
        .build()
        .map_err(|error| IoError::Heightfield { path: src.to_owned(), error })?;
    let far = DVec2::new(ox, oy) + DVec2::new(dx, dy) * DVec2::new((nx - 1) as f64, (ny - 1) as f64);
    if !far.is_finite() {
        return Err(IoError::field(src, "origin/spacing", "the far corner is not finite"));
    }
    let grid = Grid { nx, ny, leaf: opts.leaf_size, origin: DVec2::new(ox, oy), spacing: DVec2::new(dx, dy) };
    check_degrees(src, &grid, o.geokeys.as_ref(), opts)?;
    let covered = check_grid(src, &grid, opts)?;
    let mut w = Writer::start(out, grid, covered)?;
    let mut heights = vec![0f32; nx];
    let mut done = 0u64;
    crate::tif::stream_rows(src, &mut o, |r, values| {
        if !convert_row(values, nodata, opts, &mut heights) {
            return Err(bad_value(src, r, ny, values, nodata, opts));
        }
        w.put_row(ny - 1 - r, &heights)?;
        done += 1;
        if done.is_multiple_of(256) || done == ny as u64 {
            progress(done, ny as u64);
        }
        Ok(())
    })?;
    let done = w.finish(src, opts.diagonal, frame, o.geokeys.as_ref())?;
    Ok(report(&grid_of(nx, ny, opts.leaf_size), done, true))
}

/// Converts a GeoTIFF row as `load_heightfield` does — the f32 sample, then the scale and offset
/// in f64; NaN and the nodata value (as f64 or as f32) to `f32::NAN` — into `out`. False when a
/// sample is infinite or overflows f32 after the scale and offset ([`bad_value`] names it).
fn convert_row(values: &[f64], nodata: Option<f64>, opts: &LoadOptions, out: &mut [f32]) -> bool {
    let (nodata, (scale, offset)) = (Nodata::new(nodata), (opts.z_scale, opts.z_offset));
    let mut finite = true;
    for (h, &v) in out.iter_mut().zip(values) {
        let f = v as f32;
        let z = (f as f64 * scale + offset) as f32;
        let hole = nodata.is_hole(v);
        finite &= hole | z.is_finite();
        *h = if hole { f32::NAN } else { z };
    }
    finite
}

/// The error for the first sample of row `r` (from the north) that [`convert_row`] refuses.
fn bad_value(src: &Path, r: usize, ny: usize, values: &[f64], nodata: Option<f64>, opts: &LoadOptions) -> IoError {
    let nodata = Nodata::new(nodata);
    for (k, &v) in values.iter().enumerate() {
        let f = v as f32;
        if nodata.is_hole(v) {
            continue;
        }
        if f.is_infinite() {
            return IoError::field(
                src,
                format!("pixel (row {r}, column {k})"),
                format!("{} is not a finite height", landfall::support::Num(v)),
            );
        }
        if !((f as f64 * opts.z_scale + opts.z_offset) as f32).is_finite() {
            return IoError::field(
                src,
                format!("sample (column {k}, row {} from the south)", ny - 1 - r),
                "value overflows f32 after z-scale/z-offset",
            );
        }
    }
    IoError::field(src, format!("row {r}"), "a sample is not a finite height")
}

/// [`check_stored`] for a raster that covers its whole grid; its tiles.
fn check_grid(src: &Path, grid: &Grid, opts: &LoadOptions) -> Result<Vec<u64>, IoError> {
    let tiles = Tiling::new(grid.nx, grid.ny, grid.leaf.max(1)).count() as u64;
    check_stored(src, grid, opts, tiles)?;
    Ok((0..tiles).collect())
}

/// Decodes a GeoTIFF row by row, a band of tiles or a strip at a time, calling `each(row, values)`
/// for every row in file order (row 0 north) — what `build_heightfield_index` reads, without the
/// writing (the decoder's own speed, for comparison). Returns (columns, rows).
pub fn stream_geotiff_rows(
    path: &Path,
    mut each: impl FnMut(usize, &[f64]) -> Result<(), IoError>,
) -> Result<(usize, usize), IoError> {
    let mut o = crate::tif::open(path, &crate::Limits::default(), |_, _| Ok(()))?;
    crate::tif::stream_rows(path, &mut o, &mut each)?;
    Ok((o.nx, o.ny))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The conversion one sample at a time, as `load_heightfield` states it: `Ok(height)` or the
    /// error's field.
    fn reference(v: f64, nodata: Option<f64>, opts: &LoadOptions) -> Result<f32, &'static str> {
        let f = v as f32;
        // GDAL's float32 nodata near ±f32::MAX stands for every sample that near it.
        let near = f32::MAX * (1.0 - 1e-5);
        let near_max = |n: f64| n.abs() >= near as f64 && f.abs() >= near && f.is_finite() && (f < 0.0) == (n < 0.0);
        if v.is_nan() || nodata.is_some_and(|n| n == v || n as f32 == f || near_max(n)) {
            return Ok(f32::NAN);
        }
        if f.is_infinite() {
            return Err("pixel");
        }
        let h = (f as f64 * opts.z_scale + opts.z_offset) as f32;
        if h.is_infinite() {
            return Err("sample");
        }
        Ok(h)
    }

    /// A sample drawn from the values a conversion can trip on.
    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            -1e4f64..1e4,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-9999.0),
            // Equal to the nodata value only once rounded to f32.
            Just(-9_999.000_000_1),
            Just(1e39),
            Just(3.4e38),
            Just(-0.0),
            Just(-f32::MAX as f64),
            Just(f32::MAX as f64),
            Just(-3.40282e38),
            Just(-3.4028e38),
        ]
    }

    proptest! {
        /// A row converts as the per-sample reference: the same heights bit for bit, and an error
        /// exactly when a sample has one, naming the first such sample.
        #[test]
        fn rows_convert_as_sample_by_sample(
            row in prop::collection::vec(value(), 1..40),
            nodata in prop_oneof![Just(None), Just(Some(-9999.0)), Just(Some(-3.40282e38)), Just(Some(3.402823e38))],
            scale in prop_oneof![Just(1.0), Just(2.0), Just(0.0), Just(-1e-3)],
            offset in prop_oneof![Just(0.0), Just(-0.0), Just(100.0)],
        ) {
            let opts = LoadOptions { z_scale: scale, z_offset: offset, ..Default::default() };
            let mut out = vec![0f32; row.len()];
            let ok = convert_row(&row, nodata, &opts, &mut out);
            let want: Vec<_> = row.iter().map(|&v| reference(v, nodata, &opts)).collect();
            match want.iter().position(|w| w.is_err()) {
                None => {
                    prop_assert!(ok);
                    for (h, w) in out.iter().zip(&want) {
                        prop_assert_eq!(h.to_bits(), w.unwrap().to_bits());
                    }
                }
                Some(k) => {
                    prop_assert!(!ok);
                    let err = bad_value(Path::new("x.tif"), 3, 10, &row, nodata, &opts).to_string();
                    let field = want[k].unwrap_err();
                    let named = if field == "pixel" {
                        format!("pixel (row 3, column {k})")
                    } else {
                        format!("sample (column {k}, row 6 from the south)")
                    };
                    prop_assert!(err.contains(&named), "{err} should name {named}");
                }
            }
        }
    }
}
