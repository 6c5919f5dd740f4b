//! Format dispatch by extension, and the step from raster to heightfield.

use crate::input::Limits;
use crate::raster::{GeoKeys, GeoRef, Raster};
use crate::{asc, npy, png_raster, tif, IoError};
use landfall::{Diagonal, Heightfield};
use std::path::Path;

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
    /// What the file may make the reader allocate.
    pub limits: Limits,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            spacing: None,
            origin: None,
            z_scale: 1.0,
            z_offset: 0.0,
            diagonal: Diagonal::default(),
            leaf_size: landfall::support::DEFAULT_LEAF_SIZE,
            limits: Limits::default(),
        }
    }
}

/// Reads a raster, choosing the format by the file extension, within the default [`Limits`].
pub fn read_raster(path: &Path) -> Result<Raster, IoError> {
    read_raster_with(path, &Limits::default())
}

/// Reads a raster within `limits`: a file that declares more samples is an error naming the limit.
pub fn read_raster_with(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let ext = crate::extension(path);
    let r = match ext.as_str() {
        "asc" => asc::read(path, limits)?,
        "png" => png_raster::read(path, limits)?,
        "tif" | "tiff" => tif::read(path, limits)?,
        "npy" => npy::read_npy(path, limits)?,
        "npz" => npy::read_npz(path, limits)?,
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
    /// The file's GeoTIFF CRS, if any.
    pub geokeys: Option<GeoKeys>,
}

/// Reads a raster and builds a heightfield: z = value · z_scale + z_offset, placement from the
/// options, else the file's georeferencing, else origin (0, 0) and spacing 1.
pub fn load_heightfield(path: &Path, opts: &LoadOptions) -> Result<Loaded, IoError> {
    let mut r = read_raster_with(path, &opts.limits)?;
    if !(opts.z_scale.is_finite() && opts.z_offset.is_finite()) {
        return Err(IoError::field(path, "z-scale/z-offset", "must be finite numbers"));
    }
    let geo = r.georef.unwrap_or(GeoRef { origin: (0.0, 0.0), spacing: (1.0, 1.0) });
    let (dx, dy) = opts.spacing.unwrap_or(geo.spacing);
    let (ox, oy) = opts.origin.unwrap_or(geo.origin);
    // In place: the raster's buffer becomes the heightfield's (a national DEM is not held twice).
    if (opts.z_scale, opts.z_offset) != (1.0, 0.0) {
        for h in r.values.iter_mut() {
            *h = (*h as f64 * opts.z_scale + opts.z_offset) as f32;
        }
        if let Some(k) = r.values.iter().position(|v| v.is_infinite()) {
            return Err(IoError::field(
                path,
                format!("sample (column {}, row {} from the south)", k % r.nx, k / r.nx),
                "value overflows f32 after z-scale/z-offset",
            ));
        }
    }
    let values = std::mem::take(&mut r.values);
    let hf = Heightfield::builder(r.nx, r.ny, values)
        .origin(ox, oy)
        .spacing(dx, dy)
        .diagonal(opts.diagonal)
        .leaf_size(opts.leaf_size)
        .build()
        .map_err(|error| IoError::Heightfield { path: path.to_owned(), error })?;
    Ok(Loaded { heightfield: hf, georef: r.georef, notes: r.notes, geokeys: r.geokeys })
}
