//! (Geo)TIFF rasters: one band, georeferenced by ModelPixelScale + ModelTiepoint or by
//! ModelTransformation, nodata from the GDAL_NODATA tag.

use crate::raster::{to_heights, GeoRef, Raster};
use crate::IoError;
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;
use tiff::ColorType;

/// GeoKey 1025 (GTRasterTypeGeoKey): 1 = PixelIsArea (default), 2 = PixelIsPoint.
const RASTER_TYPE_KEY: u16 = 1025;

/// Decoding limits: generous enough for large DEMs (a 32,768² f32 raster), bounded against
/// hostile headers.
fn limits() -> Limits {
    let mut l = Limits::default();
    l.decoding_buffer_size = crate::MAX_DECODED_BYTES;
    l.intermediate_buffer_size = crate::MAX_DECODED_BYTES;
    l
}

pub(crate) fn read(path: &Path) -> Result<Raster, IoError> {
    let file = std::fs::File::open(path).map_err(|e| IoError::os(path, e))?;
    let bad = |e: tiff::TiffError| IoError::format(path, format!("not a readable TIFF: {e}"));
    let mut dec = Decoder::new(std::io::BufReader::new(file)).map_err(bad)?.with_limits(limits());
    let (w, h) = dec.dimensions().map_err(bad)?;
    let (nx, ny) = (w as usize, h as usize);
    match dec.colortype().map_err(bad)? {
        ColorType::Gray(_) => {}
        c => {
            return Err(IoError::field(
                path,
                "SamplesPerPixel/PhotometricInterpretation",
                format!("{c:?}: expected one band of heights"),
            ))
        }
    }
    let nodata: Option<f64> = match dec.get_tag_ascii_string(Tag::GdalNodata) {
        Ok(s) => {
            let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            Some(t.parse().map_err(|_| IoError::field(path, "GDAL_NODATA", format!("'{t}' is not a number")))?)
        }
        Err(_) => None,
    };
    let georef = read_georef(path, &mut dec, ny)?;
    let data = dec.read_image().map_err(|e| IoError::format(path, format!("corrupt or truncated image data: {e}")))?;
    let raw: Vec<f64> = match data {
        DecodingResult::F32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::F64(v) => v,
        DecodingResult::I16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U8(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I8(v) => v.into_iter().map(f64::from).collect(),
        _ => {
            return Err(IoError::field(
                path,
                "SampleFormat/BitsPerSample",
                "unsupported sample type (expected f32, f64, i16, u16, i32, u32, u8, i8)",
            ))
        }
    };
    if raw.len() < nx * ny {
        return Err(IoError::format(path, format!("image data has {} samples, {nx}×{ny} expected", raw.len())));
    }
    let values = to_heights(path, &raw[..nx * ny], nodata, |k| format!("pixel (row {}, column {})", k / nx, k % nx))?;
    let mut r = Raster { nx, ny, values, georef, notes: vec![] };
    r.flip_rows();
    Ok(r)
}

/// Placement of the south-west sample from the GeoTIFF tags, if present.
fn read_georef<R: std::io::Read + std::io::Seek>(
    path: &Path,
    dec: &mut Decoder<R>,
    ny: usize,
) -> Result<Option<GeoRef>, IoError> {
    let is_point = dec
        .get_tag_u16_vec(Tag::GeoKeyDirectoryTag)
        .ok()
        .and_then(|keys| {
            keys.get(4..).map(|k| k.chunks_exact(4).any(|e| e[0] == RASTER_TYPE_KEY && e[1] == 0 && e[3] == 2))
        })
        .unwrap_or(false);
    // (x of column 0's left edge or centre, y of row 0's top edge or centre, sx, sy > 0)
    let (x0, y0, sx, sy) = if let Ok(scale) = dec.get_tag_f64_vec(Tag::ModelPixelScaleTag) {
        let tie = dec
            .get_tag_f64_vec(Tag::ModelTiepointTag)
            .map_err(|_| IoError::field(path, "ModelTiepointTag", "missing (ModelPixelScaleTag needs a tie point)"))?;
        if scale.len() < 2 || tie.len() < 6 {
            return Err(IoError::field(path, "ModelPixelScaleTag/ModelTiepointTag", "too few values"));
        }
        let (sx, sy) = (scale[0], scale[1]);
        (tie[3] - tie[0] * sx, tie[4] + tie[1] * sy, sx, sy)
    } else if let Ok(m) = dec.get_tag_f64_vec(Tag::ModelTransformationTag) {
        if m.len() < 16 {
            return Err(IoError::field(path, "ModelTransformationTag", "expected 16 values"));
        }
        if m[1] != 0.0 || m[4] != 0.0 {
            return Err(IoError::field(path, "ModelTransformationTag", "rotated rasters are not supported"));
        }
        (m[3], m[7], m[0], -m[5])
    } else {
        return Ok(None);
    };
    if !(sx.is_finite() && sy.is_finite() && sx > 0.0 && sy > 0.0 && x0.is_finite() && y0.is_finite()) {
        return Err(IoError::field(
            path,
            "ModelPixelScaleTag",
            format!("pixel size must be finite and > 0 (got {sx} × {sy}; north-up rasters only)"),
        ));
    }
    // PixelIsArea: the tie point is the corner of the pixel; the sample stands at its centre.
    let half = if is_point { 0.0 } else { 0.5 };
    let origin = (x0 + half * sx, y0 - (ny as f64 - 1.0 + half) * sy);
    Ok(Some(GeoRef { origin, spacing: (sx, sy) }))
}
