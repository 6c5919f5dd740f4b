//! (Geo)TIFF rasters: one band, georeferenced by ModelPixelScale + ModelTiepoint or by
//! ModelTransformation, nodata from the GDAL_NODATA tag.

use crate::input::{open_regular, Limits};
use crate::raster::{to_heights, GeoKeys, GeoRef, Raster};
use crate::IoError;
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;
use tiff::ColorType;

/// `$each!(v)` with `v` the decoded samples of whichever numeric type the TIFF holds (each type
/// converted where it is read: no f64 copy of a whole chunk); any other type returns an error naming
/// the field.
macro_rules! with_samples {
    ($path:expr, $data:expr, $each:ident) => {
        match $data {
            DecodingResult::F32(v) => $each!(v),
            DecodingResult::F64(v) => $each!(v),
            DecodingResult::I16(v) => $each!(v),
            DecodingResult::U16(v) => $each!(v),
            DecodingResult::I32(v) => $each!(v),
            DecodingResult::U32(v) => $each!(v),
            DecodingResult::U8(v) => $each!(v),
            DecodingResult::I8(v) => $each!(v),
            _ => {
                return Err(IoError::field(
                    $path,
                    "SampleFormat/BitsPerSample",
                    "unsupported sample type (expected f32, f64, i16, u16, i32, u32, u8, i8)",
                ))
            }
        }
    };
}

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

/// A TIFF's decoder after its header: size, nodata, placement and CRS read, the image not yet.
pub(crate) struct Opened {
    dec: Decoder<std::io::BufReader<SeekTake<std::fs::File>>>,
    /// Columns and rows.
    pub nx: usize,
    pub ny: usize,
    /// The GDAL_NODATA value.
    pub nodata: Option<f64>,
    /// Placement of the south-west sample.
    pub georef: Option<GeoRef>,
    /// The CRS tags.
    pub geokeys: Option<GeoKeys>,
}

/// Opens a one-band TIFF and reads its tags. `samples` checks the declared size (a whole-image read
/// against the sample limit; a streamed one against its own).
pub(crate) fn open(
    path: &Path,
    limits: &Limits,
    samples: impl Fn(u64, u64) -> Result<(), IoError>,
) -> Result<Opened, IoError> {
    let (file, len) = open_regular(path)?;
    let bad = |e: tiff::TiffError| IoError::format(path, format!("not a readable TIFF: {e}"));
    let reader = std::io::BufReader::new(SeekTake::new(file, len));
    let mut dec = Decoder::new(reader).map_err(bad)?.with_limits(decoder_limits(limits));
    let (w, h) = dec.dimensions().map_err(bad)?;
    samples(w as u64, h as u64)?;
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
    let geokeys = read_geokeys(&mut dec);
    Ok(Opened { dec, nx, ny, nodata, georef, geokeys })
}

pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let o = open(path, limits, |w, h| limits.check_samples(path, "ImageWidth × ImageLength", w, h))?;
    let Opened { mut dec, nx, ny, nodata, georef, geokeys } = o;
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
    let values = with_samples!(path, data, heights);
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

/// Largest chunk (strip or tile) decoded at once when streaming, in samples: an image stored as
/// one strip of gigabytes must be re-tiled first (`gdal_translate -co TILED=YES`).
const MAX_CHUNK_SAMPLES: u64 = 1 << 26;

/// Reads the image band of rows by band of rows — a row of tiles, or a strip, at a time — and calls
/// `each(row, values)` for every image row in file order (row 0 north), values as f64. Memory: one
/// band of rows, never the image.
pub(crate) fn stream_rows(
    path: &Path,
    o: &mut Opened,
    mut each: impl FnMut(usize, &[f64]) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let mut rows = RowReader::new(path, o)?;
    let mut r = 0;
    while let Some(row) = rows.next_row(o)? {
        each(r, row)?;
        r += 1;
    }
    Ok(())
}

/// An image's rows one at a time, in file order (north first), decoding a band of chunks when the
/// last band is used up.
pub(crate) struct RowReader {
    path: std::path::PathBuf,
    cw: u64,
    ch: u64,
    tiled: bool,
    across: u64,
    band: Vec<f64>,
    /// The band decoded now (its index) and the next row to hand out overall.
    band_index: Option<u64>,
    next: usize,
}

impl RowReader {
    pub(crate) fn new(path: &Path, o: &mut Opened) -> Result<Self, IoError> {
        let (nx, ny) = (o.nx, o.ny);
        let dec = &mut o.dec;
        let tag = |dec: &mut Decoder<_>, t: Tag| -> Result<Option<u64>, IoError> {
            match dec.find_tag(t) {
                Ok(None) => Ok(None),
                Ok(Some(v)) => {
                    v.into_u64().map(Some).map_err(|e| IoError::field(path, format!("{t:?}"), e.to_string()))
                }
                Err(e) => Err(IoError::field(path, format!("{t:?}"), e.to_string())),
            }
        };
        let tiled = tag(dec, Tag::TileWidth)?;
        let (cw, ch) = match tiled {
            Some(tw) => (tw, tag(dec, Tag::TileLength)?.unwrap_or(0)),
            None => (nx as u64, tag(dec, Tag::RowsPerStrip)?.unwrap_or(ny as u64).min(ny as u64)),
        };
        if cw == 0 || ch == 0 {
            return Err(IoError::field(path, "TileWidth/TileLength/RowsPerStrip", "zero"));
        }
        if cw.saturating_mul(ch) > MAX_CHUNK_SAMPLES {
            return Err(IoError::field(
                path,
                "RowsPerStrip/TileWidth × TileLength",
                format!(
                    "chunks of {cw} × {ch} samples are too large to stream; re-tile it (gdal_translate -co TILED=YES)"
                ),
            ));
        }
        Ok(Self {
            path: path.to_owned(),
            cw,
            ch,
            tiled: tiled.is_some(),
            across: (nx as u64).div_ceil(cw),
            band: vec![0f64; nx * ch as usize],
            band_index: None,
            next: 0,
        })
    }

    /// The next row (north first), or `None` after the last.
    pub(crate) fn next_row(&mut self, o: &mut Opened) -> Result<Option<&[f64]>, IoError> {
        let (nx, ny) = (o.nx, o.ny);
        if self.next >= ny {
            return Ok(None);
        }
        let ty = self.next as u64 / self.ch;
        if self.band_index != Some(ty) {
            self.decode_band(o, ty)?;
            self.band_index = Some(ty);
        }
        let r = self.next - (ty * self.ch) as usize;
        self.next += 1;
        Ok(Some(&self.band[r * nx..(r + 1) * nx]))
    }

    fn decode_band(&mut self, o: &mut Opened, ty: u64) -> Result<(), IoError> {
        let (nx, ny) = (o.nx, o.ny);
        let path = self.path.as_path();
        let (cw, ch) = (self.cw, self.ch);
        let bad = |e: tiff::TiffError| IoError::format(path, format!("corrupt or truncated image data: {e}"));
        let rows = (ch.min(ny as u64 - ty * ch)) as usize;
        for tx in 0..self.across {
            let index = u32::try_from(ty * self.across + tx).map_err(|_| IoError::format(path, "too many chunks"))?;
            let cols = (cw.min(nx as u64 - tx * cw)) as usize;
            let data = o.dec.read_chunk(index).map_err(bad)?;
            let band = &mut self.band;
            let tiled = self.tiled;
            macro_rules! copy {
                ($v:expr) => {{
                    let v = $v;
                    if v.len() < cols * rows {
                        return Err(IoError::format(
                            path,
                            format!("chunk {index}: {} samples, {cols}×{rows} expected", v.len()),
                        ));
                    }
                    // A tile's data may be padded to the full tile width.
                    let stride = if v.len() >= cw as usize * rows && tiled { cw as usize } else { cols };
                    for r in 0..rows {
                        let dst = &mut band[r * nx + (tx * cw) as usize..][..cols];
                        for (d, &x) in dst.iter_mut().zip(&v[r * stride..r * stride + cols]) {
                            *d = f64::from(x);
                        }
                    }
                }};
            }
            with_samples!(path, data, copy)
        }
        Ok(())
    }
}
