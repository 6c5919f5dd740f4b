//! (Geo)TIFF rasters: one band, georeferenced by ModelPixelScale + ModelTiepoint or by
//! ModelTransformation, nodata from the GDAL_NODATA tag.

use crate::input::{open_regular, Limits};
use crate::raster::{to_heights, GeoKeys, GeoRef, Raster};
use crate::IoError;
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;
use tiff::ColorType;

/// GeoKey 1025 (GTRasterTypeGeoKey): 1 = PixelIsArea (default), 2 = PixelIsPoint.
const RASTER_TYPE_KEY: u16 = 1025;

/// The decoder's limits for rasters within `limits` (8 bytes a sample at most).
fn decoder_limits(limits: &Limits) -> tiff::decoder::Limits {
    let bytes = usize::try_from(limits.max_bytes(8)).unwrap_or(usize::MAX);
    let mut l = tiff::decoder::Limits::default();
    l.decoding_buffer_size = bytes;
    l.intermediate_buffer_size = bytes;
    l
}

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

pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let (file, len) = open_regular(path)?;
    let bad = |e: tiff::TiffError| IoError::format(path, format!("not a readable TIFF: {e}"));
    let reader = std::io::BufReader::new(SeekTake::new(file, len));
    let mut dec = Decoder::new(reader).map_err(bad)?.with_limits(decoder_limits(limits));
    let (w, h) = dec.dimensions().map_err(bad)?;
    limits.check_samples(path, "ImageWidth × ImageLength", w as u64, h as u64)?;
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
    let nodata: Option<f64> = match dec.find_tag(Tag::GdalNodata) {
        Ok(None) => None,
        Ok(Some(v)) => {
            let s = v.into_string().map_err(|e| IoError::field(path, "GDAL_NODATA", format!("not text: {e}")))?;
            let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            let bad = || IoError::field(path, "GDAL_NODATA", format!("'{}' is not a number", crate::quote(t)));
            Some(t.parse().map_err(|_| bad())?)
        }
        Err(e) => return Err(IoError::field(path, "GDAL_NODATA", format!("present but unreadable: {e}"))),
    };
    let georef = read_georef(path, &mut dec, ny)?;
    let data = dec.read_image().map_err(|e| IoError::format(path, format!("corrupt or truncated image data: {e}")))?;
    let n = nx * ny;
    let name = |k: usize| format!("pixel (row {}, column {})", k / nx, k % nx);
    let short = |have: usize| IoError::format(path, format!("image data has {have} samples, {nx}×{ny} expected"));
    // Each sample type converted straight to heights: no f64 copy of the whole raster.
    macro_rules! heights {
        ($v:expr) => {{
            let v = $v;
            if v.len() < n {
                return Err(short(v.len()));
            }
            to_heights(path, v[..n].iter().map(|&x| f64::from(x)), nodata, name)?
        }};
    }
    let values = match data {
        DecodingResult::F32(v) => heights!(v),
        DecodingResult::F64(v) => heights!(v),
        DecodingResult::I16(v) => heights!(v),
        DecodingResult::U16(v) => heights!(v),
        DecodingResult::I32(v) => heights!(v),
        DecodingResult::U32(v) => heights!(v),
        DecodingResult::U8(v) => heights!(v),
        DecodingResult::I8(v) => heights!(v),
        _ => {
            return Err(IoError::field(
                path,
                "SampleFormat/BitsPerSample",
                "unsupported sample type (expected f32, f64, i16, u16, i32, u32, u8, i8)",
            ))
        }
    };
    let geokeys = read_geokeys(&mut dec);
    let mut r = Raster { nx, ny, values, georef, notes: vec![], geokeys };
    r.flip_rows();
    Ok(r)
}

/// The CRS tags, verbatim, when the directory is present and readable (a CRS that cannot be read
/// is not carried into outputs; the placement, read separately, is what queries use).
fn read_geokeys<R: std::io::Read + std::io::Seek>(dec: &mut Decoder<R>) -> Option<GeoKeys> {
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
fn read_georef<R: std::io::Read + std::io::Seek>(
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
    let (x0, y0, sx, sy) = if let Some(scale) = scale {
        let tie = tie.ok_or_else(|| {
            IoError::field(path, "ModelTiepointTag", "missing (ModelPixelScaleTag needs a tie point)")
        })?;
        if scale.len() < 2 || tie.len() < 6 {
            return Err(IoError::field(path, "ModelPixelScaleTag/ModelTiepointTag", "too few values"));
        }
        let (sx, sy) = (scale[0], scale[1]);
        (tie[3] - tie[0] * sx, tie[4] + tie[1] * sy, sx, sy)
    } else if let Some(m) = transform {
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

/// A reader that stops at the length the file had when opened (a file that grows while it is read
/// cannot make the decoder read more), and seeks within it.
struct SeekTake<R> {
    inner: R,
    len: u64,
    pos: u64,
}

impl<R> SeekTake<R> {
    fn new(inner: R, len: u64) -> Self {
        Self { inner, len, pos: 0 }
    }
}

impl<R: std::io::Read> std::io::Read for SeekTake<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: std::io::Seek> std::io::Seek for SeekTake<R> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.pos = self.inner.seek(to)?;
        Ok(self.pos)
    }
}
