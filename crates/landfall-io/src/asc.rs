//! ESRI ASCII grid (`.asc`): a header of `key value` lines, then the rows, north first.

use crate::input::{open_regular, Limits};
use crate::raster::{GeoRef, Raster};
use crate::IoError;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

#[derive(Default)]
struct Header {
    ncols: Option<usize>,
    nrows: Option<usize>,
    xll: Option<(f64, bool)>, // (value, is_center)
    yll: Option<(f64, bool)>,
    cellsize: Option<f64>,
    dx: Option<f64>,
    dy: Option<f64>,
    nodata: Option<f64>,
}

/// Reads an ESRI ASCII grid. Samples are cell centres: with `xllcorner` the south-west sample
/// stands at (xllcorner + cellsize/2, yllcorner + cellsize/2); with `xllcenter` at (xllcenter,
/// yllcenter). Values equal to `NODATA_value` (as `raster::Nodata` matches them) and `nan` become
/// holes.
pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let (file, len) = open_regular(path)?;
    let mut lines = BufReader::new(std::io::Read::take(file, len)).lines().enumerate();
    let mut h = Header::default();
    let mut pending: Option<(usize, String)> = None;
    // Header: lines that start with a letter.
    for (n, line) in lines.by_ref() {
        let line = line.map_err(|e| IoError::line(path, n + 1, e.to_string()))?;
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if !t.starts_with(|c: char| c.is_ascii_alphabetic()) {
            pending = Some((n + 1, line));
            break;
        }
        let mut it = t.split_whitespace();
        let key = it.next().unwrap_or("").to_ascii_lowercase();
        let val = it
            .next()
            .ok_or_else(|| IoError::line(path, n + 1, format!("header key '{}' has no value", crate::quote(&key))))?;
        let num = |what: &str| -> Result<f64, IoError> {
            val.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() || what == "nodata_value")
                .ok_or_else(|| IoError::line(path, n + 1, format!("{what}: '{}' is not a number", crate::quote(val))))
        };
        let count = |what: &str| -> Result<usize, IoError> {
            val.parse::<usize>().ok().filter(|&v| v > 0).ok_or_else(|| {
                IoError::line(path, n + 1, format!("{what}: '{}' is not a positive whole number", crate::quote(val)))
            })
        };
        match key.as_str() {
            "ncols" => h.ncols = Some(count("ncols")?),
            "nrows" => h.nrows = Some(count("nrows")?),
            "xllcorner" => h.xll = Some((num("xllcorner")?, false)),
            "xllcenter" => h.xll = Some((num("xllcenter")?, true)),
            "yllcorner" => h.yll = Some((num("yllcorner")?, false)),
            "yllcenter" => h.yll = Some((num("yllcenter")?, true)),
            "cellsize" => h.cellsize = Some(num("cellsize")?),
            "dx" => h.dx = Some(num("dx")?),
            "dy" => h.dy = Some(num("dy")?),
            "nodata_value" => h.nodata = Some(num("nodata_value")?),
            _ => return Err(IoError::line(path, n + 1, format!("unknown header key '{}'", crate::quote(&key)))),
        }
    }
    let missing = |k: &str| IoError::field(path, k, "missing from the header");
    let nx = h.ncols.ok_or_else(|| missing("ncols"))?;
    let ny = h.nrows.ok_or_else(|| missing("nrows"))?;
    let (xll, xc) = h.xll.ok_or_else(|| missing("xllcorner or xllcenter"))?;
    let (yll, yc) = h.yll.ok_or_else(|| missing("yllcorner or yllcenter"))?;
    let dx = h.dx.or(h.cellsize).ok_or_else(|| missing("cellsize"))?;
    let dy = h.dy.or(h.cellsize).ok_or_else(|| missing("cellsize"))?;
    if !(dx > 0.0 && dy > 0.0) {
        return Err(IoError::field(path, "cellsize", format!("must be > 0, got {dx} × {dy}")));
    }
    limits.check_samples(path, "ncols/nrows", nx as u64, ny as u64)?;
    let total = nx * ny;
    // Reserve what a plausible file holds; a hostile header cannot make us allocate gigabytes.
    let mut values = Vec::with_capacity(total.min(1 << 24));
    let nodata = crate::raster::Nodata::new(h.nodata);
    let parse_line = |n: usize, line: &str, values: &mut Vec<f32>| -> Result<(), IoError> {
        for tok in line.split_whitespace() {
            if values.len() == total {
                return Err(IoError::line(path, n, format!("more values than ncols × nrows = {total}")));
            }
            let v: f64 = tok.parse().map_err(|_| {
                let (row, col) = (values.len() / nx + 1, values.len() % nx + 1);
                IoError::line(path, n, format!("row {row}, column {col}: '{}' is not a number", crate::quote(tok)))
            })?;
            let v = if nodata.is_hole(v) { f32::NAN } else { v as f32 };
            if v.is_infinite() {
                let (row, col) = (values.len() / nx + 1, values.len() % nx + 1);
                return Err(IoError::line(
                    path,
                    n,
                    format!("row {row}, column {col}: '{}' is not a finite height", crate::quote(tok)),
                ));
            }
            values.push(v);
        }
        Ok(())
    };
    if let Some((n, line)) = pending {
        parse_line(n, &line, &mut values)?;
    }
    let mut last_line = 0;
    for (n, line) in lines {
        let line = line.map_err(|e| IoError::line(path, n + 1, e.to_string()))?;
        parse_line(n + 1, &line, &mut values)?;
        last_line = n + 1;
    }
    if values.len() != total {
        return Err(IoError::line(
            path,
            last_line.max(1),
            format!("file ends after {} of {} values (ncols {nx} × nrows {ny}): truncated?", values.len(), total),
        ));
    }
    let ox = if xc { xll } else { xll + 0.5 * dx };
    let oy = if yc { yll } else { yll + 0.5 * dy };
    let mut r = Raster {
        nx,
        ny,
        values,
        georef: Some(GeoRef { origin: (ox, oy), spacing: (dx, dy) }),
        notes: vec![],
        geokeys: None,
    };
    r.flip_rows();
    Ok(r)
}

/// Writes an ESRI ASCII grid (`xllcenter`/`yllcenter`, north row first, NaN as `NODATA_value
/// -9999`). `values` are row-major with row 0 south; dx must equal dy unless `dx`/`dy` keys are
/// acceptable to the reader (they are to landfall and GDAL).
pub fn write_asc(path: &Path, nx: usize, ny: usize, values: &[f32], georef: GeoRef) -> Result<(), IoError> {
    let err = |e| IoError::os(path, e);
    let mut w = std::io::BufWriter::new(crate::OutputFile::create(path)?);
    let (dx, dy) = georef.spacing;
    let mut head = format!("ncols {nx}\nnrows {ny}\nxllcenter {}\nyllcenter {}\n", georef.origin.0, georef.origin.1);
    if dx == dy {
        head += &format!("cellsize {dx}\n");
    } else {
        head += &format!("dx {dx}\ndy {dy}\n");
    }
    head += "NODATA_value -9999\n";
    w.write_all(head.as_bytes()).map_err(err)?;
    for j in (0..ny).rev() {
        let row: Vec<String> = values[j * nx..(j + 1) * nx]
            .iter()
            .map(|v| if v.is_nan() { "-9999".to_string() } else { v.to_string() })
            .collect();
        writeln!(w, "{}", row.join(" ")).map_err(err)?;
    }
    w.into_inner().map_err(|e| IoError::os(path, e.into_error()))?.commit()
}
