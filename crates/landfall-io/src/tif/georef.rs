//! The GeoTIFF tags: placement (ModelPixelScale + ModelTiepoint, or ModelTransformation;
//! PixelIsArea or PixelIsPoint) and the CRS keys.

use crate::raster::{GeoKeys, GeoRef};
use crate::IoError;
use landfall::support::Num;
use std::path::Path;
use tiff::decoder::Decoder;
use tiff::tags::Tag;

/// GeoKey 1025 (GTRasterTypeGeoKey): 1 = PixelIsArea (default), 2 = PixelIsPoint.
const RASTER_TYPE_KEY: u16 = 1025;

/// A georeferencing tag's values: `None` when the tag is absent, an error naming it when it is
/// present but cannot be read (its values lie past the end of the file, or are not numbers).
fn tag_values<R: std::io::Read + std::io::Seek>(
    path: &Path,
    dec: &mut Decoder<R>,
    tag: Tag,
    name: &str,
) -> Result<Option<Vec<f64>>, IoError> {
    let unreadable = |e: tiff::TiffError| IoError::field(path, name, format!("present but unreadable: {e}"));
    match dec.find_tag(tag).map_err(unreadable)? {
        None => Ok(None),
        // Integer tags (the GeoKey directory) read as integers, the others as doubles.
        Some(v) => match v.clone().into_f64_vec() {
            Ok(f) => Ok(Some(f)),
            Err(_) => v.into_u64_vec().map(|u| Some(u.into_iter().map(|x| x as f64).collect())).map_err(unreadable),
        },
    }
}

/// The CRS tags, verbatim, when the directory is present and readable (a CRS that cannot be read
/// is not carried into outputs; the placement, read separately, is what queries use).
pub(super) fn read_geokeys<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Option<GeoKeys> {
    let directory = dec.find_tag(Tag::GeoKeyDirectoryTag).ok()??.into_u16_vec().ok()?;
    let doubles = match dec.find_tag(Tag::GeoDoubleParamsTag) {
        Ok(Some(v)) => v.into_f64_vec().ok()?,
        _ => Vec::new(),
    };
    let ascii = match dec.find_tag(Tag::GeoAsciiParamsTag) {
        Ok(Some(v)) => v.into_string().ok()?,
        _ => String::new(),
    };
    Some(GeoKeys { directory, doubles, ascii })
}

/// Placement of the south-west sample from the GeoTIFF tags, if present.
pub(super) fn read_georef<R: std::io::Read + std::io::Seek>(
    path: &Path,
    dec: &mut Decoder<R>,
    ny: usize,
) -> Result<Option<GeoRef>, IoError> {
    let is_point = tag_values(path, dec, Tag::GeoKeyDirectoryTag, "GeoKeyDirectoryTag")?
        .and_then(|keys| {
            keys.get(4..)
                .map(|k| k.chunks_exact(4).any(|e| e[0] == RASTER_TYPE_KEY as f64 && e[1] == 0.0 && e[3] == 2.0))
        })
        .unwrap_or(false);
    let scale = tag_values(path, dec, Tag::ModelPixelScaleTag, "ModelPixelScaleTag")?;
    let tie = tag_values(path, dec, Tag::ModelTiepointTag, "ModelTiepointTag")?;
    let transform = tag_values(path, dec, Tag::ModelTransformationTag, "ModelTransformationTag")?;
    // (x of column 0's left edge or centre, y of row 0's top edge or centre, sx, sy > 0)
    let (x0, y0, sx, sy, field) = if let Some(scale) = scale {
        let tie = tie.ok_or_else(|| {
            IoError::field(path, "ModelTiepointTag", "missing (ModelPixelScaleTag needs a tie point)")
        })?;
        if scale.len() < 2 || tie.len() < 6 {
            return Err(IoError::field(path, "ModelPixelScaleTag/ModelTiepointTag", "too few values"));
        }
        let (sx, sy) = (scale[0], scale[1]);
        (tie[3] - tie[0] * sx, tie[4] + tie[1] * sy, sx, sy, "ModelPixelScaleTag/ModelTiepointTag")
    } else if let Some(m) = transform {
        if m.len() < 16 {
            return Err(IoError::field(path, "ModelTransformationTag", "expected 16 values"));
        }
        if m[1] != 0.0 || m[4] != 0.0 {
            return Err(IoError::field(path, "ModelTransformationTag", "rotated rasters are not supported"));
        }
        (m[3], m[7], m[0], -m[5], "ModelTransformationTag")
    } else {
        return Ok(None);
    };
    if !(sx.is_finite() && sy.is_finite() && sx > 0.0 && sy > 0.0) {
        return Err(IoError::field(
            path,
            field,
            format!("pixel size must be finite and > 0 (got {} × {}; north-up rasters only)", Num(sx), Num(sy)),
        ));
    }
    if !(x0.is_finite() && y0.is_finite()) {
        return Err(IoError::field(
            path,
            field,
            format!("the raster's corner ({}, {}) is not finite", Num(x0), Num(y0)),
        ));
    }
    // PixelIsArea: the tie point is the corner of the pixel; the sample stands at its centre.
    let half = if is_point { 0.0 } else { 0.5 };
    let origin = (x0 + half * sx, y0 - (ny as f64 - 1.0 + half) * sy);
    Ok(Some(GeoRef { origin, spacing: (sx, sy) }))
}
