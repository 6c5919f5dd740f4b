//! The raster in memory, format dispatch, and the step from raster to heightfield.

use crate::{asc, npy, png_raster, tif, IoError};
use landfall::{Diagonal, Heightfield};
use std::path::Path;

/// World placement of a raster's samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoRef {
    /// World (x, y) of the south-west sample (its centre, where the value stands).
    pub origin: (f64, f64),
    /// Distance between samples along x and y (both > 0).
    pub spacing: (f64, f64),
}

/// A grid of samples as read from a file, already flipped so that row 0 is the south row.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// `values[j·nx + i]`, row 0 south; NaN for nodata.
    pub values: Vec<f32>,
    /// Placement from the file, when it has one.
    pub georef: Option<GeoRef>,
    /// Remarks a user should see (approximations made while reading).
    pub notes: Vec<String>,
}

impl Raster {
    /// Reverses the row order (file order north-first → south-first).
    pub(crate) fn flip_rows(&mut self) {
        let nx = self.nx;
        for j in 0..self.ny / 2 {
            let (a, b) = self.values.split_at_mut((self.ny - 1 - j) * nx);
            a[j * nx..(j + 1) * nx].swap_with_slice(&mut b[..nx]);
        }
    }
}

/// Samples read as f64 → heights: NaN and `nodata` become holes (NaN); a value that is infinite as
/// an f32 is an error naming the sample with `name(index)`.
pub(crate) fn to_heights(
    path: &Path,
    raw: &[f64],
    nodata: Option<f64>,
    name: impl Fn(usize) -> String,
) -> Result<Vec<f32>, IoError> {
    raw.iter()
        .enumerate()
        .map(|(k, &v)| {
            let f = v as f32;
            if v.is_nan() || nodata.is_some_and(|n| n == v || n as f32 == f) {
                Ok(f32::NAN)
            } else if f.is_infinite() {
                Err(IoError::field(path, name(k), format!("{v} is not a finite height")))
            } else {
                Ok(f)
            }
        })
        .collect()
}

/// How to turn a raster into a heightfield. Options left `None` come from the file.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Sample spacing (dx, dy); overrides the file's.
    pub spacing: Option<(f64, f64)>,
    /// World (x, y) of the south-west sample; overrides the file's.
    pub origin: Option<(f64, f64)>,
    /// z = value · z_scale + z_offset.
    pub z_scale: f64,
    /// z = value · z_scale + z_offset.
    pub z_offset: f64,
    /// Cell triangulation.
    pub diagonal: Diagonal,
    /// Pyramid leaf size in cells.
    pub leaf_size: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            spacing: None,
            origin: None,
            z_scale: 1.0,
            z_offset: 0.0,
            diagonal: Diagonal::default(),
            leaf_size: landfall::heightfield::DEFAULT_LEAF_SIZE,
        }
    }
}

/// Reads a raster, choosing the format by the file extension.
pub fn read_raster(path: &Path) -> Result<Raster, IoError> {
    let ext = crate::extension(path);
    let r = match ext.as_str() {
        "asc" => asc::read(path)?,
        "png" => png_raster::read(path)?,
        "tif" | "tiff" => tif::read(path)?,
        "npy" => npy::read_npy(path)?,
        "npz" => npy::read_npz(path)?,
        _ => {
            return Err(IoError::format(
                path,
                format!("unknown raster extension '{ext}' (expected .asc, .png, .tif, .tiff, .npy or .npz)"),
            ))
        }
    };
    if r.nx < 2 || r.ny < 2 {
        return Err(IoError::format(
            path,
            format!("raster is {}×{}; a terrain needs at least 2×2 samples", r.nx, r.ny),
        ));
    }
    Ok(r)
}

/// A heightfield loaded from a file, with what the file said about it.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The terrain.
    pub heightfield: Heightfield,
    /// The file's own georeferencing, if any (the options may have overridden it).
    pub georef: Option<GeoRef>,
    /// Remarks a user should see (approximations made while reading).
    pub notes: Vec<String>,
}

/// Reads a raster and builds a heightfield: z = value · z_scale + z_offset, placement from the
/// options, else the file's georeferencing, else origin (0, 0) and spacing 1.
pub fn load_heightfield(path: &Path, opts: &LoadOptions) -> Result<Loaded, IoError> {
    let r = read_raster(path)?;
    if !(opts.z_scale.is_finite() && opts.z_offset.is_finite()) {
        return Err(IoError::field(path, "z-scale/z-offset", "must be finite numbers"));
    }
    let geo = r.georef.unwrap_or(GeoRef { origin: (0.0, 0.0), spacing: (1.0, 1.0) });
    let (dx, dy) = opts.spacing.unwrap_or(geo.spacing);
    let (ox, oy) = opts.origin.unwrap_or(geo.origin);
    let mut values = landfall::pages::sample_buffer(r.values.len());
    for (h, &v) in values.iter_mut().zip(&r.values) {
        *h = (v as f64 * opts.z_scale + opts.z_offset) as f32;
    }
    if let Some(k) = values.iter().position(|v| v.is_infinite()) {
        return Err(IoError::field(
            path,
            format!("sample (column {}, row {} from the south)", k % r.nx, k / r.nx),
            "value overflows f32 after z-scale/z-offset",
        ));
    }
    let hf = Heightfield::builder(r.nx, r.ny, values)
        .origin(ox, oy)
        .spacing(dx, dy)
        .diagonal(opts.diagonal)
        .leaf_size(opts.leaf_size)
        .build()
        .map_err(|error| IoError::Heightfield { path: path.to_owned(), error })?;
    Ok(Loaded { heightfield: hf, georef: r.georef, notes: r.notes })
}
