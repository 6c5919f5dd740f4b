//! GeoTIFF output: one band of u8, u16 or f32, georeferenced (ModelPixelScale + ModelTiepoint), with
//! GDAL's nodata tag and, when given, the CRS keys of the raster it was computed from.

use crate::raster::{GeoKeys, GeoRef};
use crate::{IoError, OutputFile};
use std::path::Path;
use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

/// One band of samples, row 0 south (as every raster in landfall); written north row first.
#[derive(Clone, Copy, Debug)]
pub enum Band<'a> {
    /// Bytes.
    U8(&'a [u8]),
    /// 16-bit counts.
    U16(&'a [u16]),
    /// Floats.
    F32(&'a [f32]),
}

impl Band<'_> {
    fn len(&self) -> usize {
        match self {
            Band::U8(v) => v.len(),
            Band::U16(v) => v.len(),
            Band::F32(v) => v.len(),
        }
    }
}

/// Writes a `nx × ny` band as a GeoTIFF at `path` (through [`OutputFile`]: whole or not at all).
///
/// The sample (i, j) (j from the south) lands at pixel column i, row ny − 1 − j; the pixel grid is
/// placed so that each sample stands at its pixel's centre (PixelIsArea with the tie point at the
/// north-west corner), unless `keys` says PixelIsPoint, in which case the tie point is the
/// north-west sample itself. `keys` (the input's CRS) are copied verbatim; without them a minimal
/// directory says only the raster type.
///
/// ```
/// use landfall_io::{write_geotiff, Band, GeoRef};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("v.tif");
/// let geo = GeoRef { origin: (100.0, 200.0), spacing: (10.0, 10.0) };
/// write_geotiff(&path, 2, 2, Band::U8(&[1, 0, 255, 1]), &geo, Some(255.0), None).unwrap();
/// let r = landfall_io::read_raster(&path).unwrap();
/// assert_eq!(r.georef, Some(geo));
/// assert!(r.values[2].is_nan()); // 255 is nodata
/// ```
pub fn write_geotiff(
    path: &Path,
    nx: usize,
    ny: usize,
    band: Band,
    georef: &GeoRef,
    nodata: Option<f64>,
    keys: Option<&GeoKeys>,
) -> Result<(), IoError> {
    let mut out = OutputFile::create(path)?;
    write_geotiff_into(&mut out, nx, ny, band, georef, nodata, keys)?;
    out.commit()
}

/// [`write_geotiff`] into an output not yet committed (one of several [`Outputs`](crate::Outputs)).
pub fn write_geotiff_into(
    out: &mut OutputFile,
    nx: usize,
    ny: usize,
    band: Band,
    georef: &GeoRef,
    nodata: Option<f64>,
    keys: Option<&GeoKeys>,
) -> Result<(), IoError> {
    let path = &out.path().to_path_buf();
    if band.len() != nx * ny || nx == 0 || ny == 0 {
        return Err(IoError::format(path, format!("{} samples for a {nx}×{ny} raster", band.len())));
    }
    let (w, h) = match (u32::try_from(nx), u32::try_from(ny)) {
        (Ok(w), Ok(h)) => (w, h),
        _ => return Err(IoError::format(path, format!("{nx}×{ny} is too large for a TIFF"))),
    };
    let fail = |e: tiff::TiffError| IoError::format(path, format!("cannot write the TIFF: {e}"));
    {
        let mut enc = TiffEncoder::new(std::io::BufWriter::new(out)).map_err(fail)?;
        let (dx, dy) = georef.spacing;
        let point = keys.is_some_and(GeoKeys::is_pixel_is_point);
        let half = if point { 0.0 } else { 0.5 };
        let west = georef.origin.0 - half * dx;
        let north = georef.origin.1 + (ny as f64 - 1.0 + half) * dy;
        let minimal;
        let keys = match keys {
            Some(k) => k,
            None => {
                // Version 1.1.0, one key: GTRasterTypeGeoKey = PixelIsArea.
                minimal = GeoKeys { directory: vec![1, 1, 0, 1, 1025, 0, 1, 1], ..Default::default() };
                &minimal
            }
        };
        macro_rules! image {
            ($ct:ty, $v:expr) => {{
                let mut img = enc.new_image::<$ct>(w, h).map_err(fail)?;
                let d = img.encoder();
                d.write_tag(Tag::ModelPixelScaleTag, &[dx, dy, 0.0][..]).map_err(fail)?;
                d.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, west, north, 0.0][..]).map_err(fail)?;
                d.write_tag(Tag::GeoKeyDirectoryTag, &keys.directory[..]).map_err(fail)?;
                if !keys.doubles.is_empty() {
                    d.write_tag(Tag::GeoDoubleParamsTag, &keys.doubles[..]).map_err(fail)?;
                }
                if !keys.ascii.is_empty() {
                    d.write_tag(Tag::GeoAsciiParamsTag, keys.ascii.as_str()).map_err(fail)?;
                }
                if let Some(n) = nodata {
                    d.write_tag(Tag::GdalNodata, format!("{n}").as_str()).map_err(fail)?;
                }
                // Strip by strip, north row first: one strip's rows copied at a time, never the
                // whole band flipped.
                let v = $v;
                let mut strip = Vec::new();
                let mut rows = (0..ny).rev();
                while img.next_strip_sample_count() > 0 {
                    let n = img.next_strip_sample_count() as usize / nx;
                    strip.clear();
                    for j in rows.by_ref().take(n) {
                        strip.extend_from_slice(&v[j * nx..(j + 1) * nx]);
                    }
                    img.write_strip(&strip).map_err(fail)?;
                }
                img.finish().map_err(fail)?;
            }};
        }
        match band {
            Band::U8(v) => image!(colortype::Gray8, v),
            Band::U16(v) => image!(colortype::Gray16, v),
            Band::F32(v) => image!(colortype::Gray32Float, v),
        }
    }
    Ok(())
}
