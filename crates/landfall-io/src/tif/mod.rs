//! (Geo)TIFF rasters: one band, georeferenced by ModelPixelScale + ModelTiepoint or by
//! ModelTransformation (or, without either, by a PAM `.aux.xml` or world `.tfw` file beside it:
//! [`sidecar`]), nodata from the GDAL_NODATA tag; strips or tiles (Cloud-Optimized GeoTIFFs
//! included) compressed as GDAL writes elevation: NONE, LZW, DEFLATE, ZSTD, LERC, LERC_DEFLATE,
//! LERC_ZSTD (and PACKBITS), with predictors 1, 2 and 3.
//!
//! The tags are read by the `tiff` crate; the chunks are read and decoded here ([`chunk`]), one
//! band of chunks at a time ([`rows`]), whether the image is read whole or streamed.
//!
//! # How it works
//!
//! The `tiff` crate reads the tags; the image is read here (`tif/`), a strip or tile ("chunk") at a
//! time, by the same code whether the raster is read whole (`read_raster`) or streamed row by row
//! (`stream_rows`, behind `landfall build`, `read_raster` and `stream_geotiff_rows`, decodes the
//! next band on a second thread while the current one is used; `RowReader` for a mosaic's tiles).
//! Every compression GDAL's COG and GTiff drivers write for elevation data is decoded, for one band
//! of u8, i8, u16, i16, u32, i32, f32 or f64, strips or tiles, either byte order:
//!
//! | compression | TIFF code | decoder | predictors |
//! |---|---|---|---|
//! | NONE | 1 | — | 1, 2, 3 |
//! | LZW | 5 | `weezl` (old-style LSB-first streams too) | 1, 2, 3 |
//! | DEFLATE | 8, 32946 | `fdeflate` | 1, 2, 3 |
//! | ZSTD | 50000 | `zstd` (the C library) | 1, 2, 3 |
//! | LERC, LERC_DEFLATE, LERC_ZSTD | 34887 + LercParameters | `lerc-rs` (LERC2 v2–6: checksums, masks, Huffman, bit-stuffed blocks), inside `fdeflate` or `zstd` | — (as libtiff: ignored) |
//! | PACKBITS, CCITT, JPEG | 32773, 2–4, 7 | the `tiff` crate | the crate's |
//!
//! Predictor 2 (horizontal differencing) applies to every sample type (GDAL writes it for floats too,
//! as differences of their bit patterns); 3 (floating point) to f32 and f64. LERC with MAX_Z_ERROR > 0
//! reads exactly as GDAL decodes it (lossy values are GDAL's values); a float pixel a LERC mask marks
//! invalid is NaN, as libtiff makes it, and an invalid integer pixel (which libtiff leaves
//! unspecified) a hole. A tile a sparse file leaves out (byte count 0) reads as the nodata value, else
//! 0, as GDAL reads it; a file that leaves out every tile holds nothing and is refused. A GDAL
//! internal nodata mask is not read (a note says so). GDAL's scale and offset are applied
//! (`scale.rs`). Not decoded: LZMA, WEBP, JPEG 2000, JPEG XL (an error names the compression and the
//! conversion: `gdal_translate -co COMPRESS=ZSTD`). Each case is checked against GDAL's own decoding,
//! bit for bit (`crates/landfall-io/tests/cog_compression.rs`: 40 files GDAL wrote, committed with
//! GDAL's decoded samples, and regenerated live when GDAL is installed).
//!
//! A chunk's byte count is checked against the file's length and against what a chunk of its size can
//! need (1.5 × its decoded bytes + 64 KiB: LZW's worst case) before its bytes are read; each
//! decompressor fills a buffer of exactly the chunk's decoded size and stops there (a Deflate or LZW
//! stream that would go on is cut, as libtiff cuts it; a ZSTD frame or LERC blob too long for the
//! chunk is an error), so a decompression bomb costs one chunk. A LERC blob must be the chunk's size,
//! type and length, one band of one value a pixel, with a good checksum. Errors name the file and the
//! chunk: `dem.tif: tile 12 (column 3, row 1 of the tile grid): LERC data is corrupt or truncated
//! (checksum mismatch: …)` (`tests/cog_hostile.rs`).

mod chunk;
mod codec;
mod georef;
mod layout;
mod predictor;
mod rows;
mod scale;
mod sidecar;

use crate::input::{open_regular, Limits};
use crate::raster::{to_height_row, GeoKeys, GeoRef, Nodata, Raster};
use crate::IoError;
use georef::{read_geokeys, read_georef};
use landfall::support::Num;
use layout::Layout;
pub(crate) use rows::{stream_rows, RowReader};
use std::path::Path;
use tiff::decoder::Decoder;
use tiff::tags::Tag;
use tiff::ColorType;

/// GDAL's metadata tag: an XML document of items (the band's scale and offset among them).
const GDAL_METADATA: u16 = 42112;

/// The decoder's limits for rasters within `limits` (8 bytes a sample at most).
fn decoder_limits(limits: &Limits) -> tiff::decoder::Limits {
    let bytes = usize::try_from(limits.max_bytes(8)).unwrap_or(usize::MAX);
    let mut l = tiff::decoder::Limits::default();
    l.decoding_buffer_size = bytes;
    l.intermediate_buffer_size = bytes;
    l
}

/// A TIFF's decoder after its header: size, nodata, placement and CRS read, the image not yet.
pub(crate) struct Opened {
    dec: Decoder<std::io::BufReader<SeekTake<std::fs::File>>>,
    /// Columns and rows.
    pub nx: usize,
    pub ny: usize,
    /// The GDAL_NODATA value (or the PAM file's `NoDataValue`), scaled as the samples are.
    pub nodata: Option<f64>,
    /// GDAL's scale and offset of the samples (`scale.rs`), applied as each band is decoded.
    scale: Option<(f64, f64)>,
    /// What a chunk a sparse file leaves out holds, before the scale: the nodata value, else 0.
    fill: f64,
    /// Placement of the south-west sample.
    pub georef: Option<GeoRef>,
    /// The CRS tags.
    pub geokeys: Option<GeoKeys>,
    /// How the image is stored.
    layout: Layout,
    /// Remarks for the user (placement from a sidecar file).
    pub notes: Vec<String>,
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
    // The crate's default limits while the chunks' offsets are read (as `Decoder::new` read them).
    let mut dec = Decoder::new(reader).map_err(bad)?;
    let (w, h) = dec.dimensions().map_err(bad)?;
    samples(w as u64, h as u64)?;
    let (nx, ny) = (w as usize, h as usize);
    match dec.colortype().map_err(bad)? {
        ColorType::Gray(_) => {}
        c => {
            return Err(IoError::field(
                path,
                "SamplesPerPixel/PhotometricInterpretation",
                match c {
                    ColorType::Palette(_) => "a palette (colour) image: expected one band of heights".to_string(),
                    c => format!(
                        "{} samples per pixel (bands): expected one band of heights (the first band alone: \
                         gdal_translate -b 1 IN OUT)",
                        c.num_samples()
                    ),
                },
            ))
        }
    }
    let nodata: Option<f64> = match dec.find_tag(Tag::GdalNodata) {
        Ok(None) => None,
        Ok(Some(v)) => {
            let s = v.into_string().map_err(|e| IoError::field(path, "GDAL_NODATA", format!("not text: {e}")))?;
            let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            let bad = || IoError::field(path, "GDAL_NODATA", format!("'{}' is not a number", crate::quote(t)));
            // As written: `raster::Nodata` matches the samples near ±f32::MAX to one near it.
            Some(t.parse().map_err(|_| bad())?)
        }
        Err(e) => return Err(IoError::field(path, "GDAL_NODATA", format!("present but unreadable: {e}"))),
    };
    let layout = Layout::read(path, &mut dec, nx, ny, len)?;
    let mut dec = dec.with_limits(decoder_limits(limits));
    let mut georef = read_georef(path, &mut dec, ny)?;
    let mut geokeys = read_geokeys(&mut dec);
    let mut nodata = nodata;
    let mut notes = Vec::new();
    if georef.is_none() {
        if let Some(s) = sidecar::read(path, ny)? {
            georef = Some(s.georef);
            geokeys = geokeys.or(s.geokeys);
            nodata = nodata.or(s.nodata);
            notes.push(format!("placed by {} (the TIFF itself has no georeferencing)", s.from.display()));
        }
    }
    let scale = match dec.find_tag(Tag::Unknown(GDAL_METADATA)) {
        Ok(Some(v)) => match v.into_string() {
            Ok(xml) => scale::scale_offset(path, &xml)?,
            Err(e) => return Err(IoError::field(path, "GDAL_METADATA", format!("not text: {e}"))),
        },
        _ => None,
    };
    let fill = nodata.unwrap_or(0.0);
    if let Some((k, o)) = scale {
        nodata = nodata.map(|n| n * k + o);
        notes.push(format!(
            "GDAL's scale {} and offset {} applied: heights are the stored values × {} + {}, as GDAL and QGIS \
             read them",
            Num(k),
            Num(o),
            Num(k),
            Num(o)
        ));
    }
    // Opened again only for a file with a second image (most have one image).
    if dec.more_images() && has_internal_mask(path) {
        notes.push(
            "has an internal nodata mask (GDAL's), which landfall does not read: the masked samples are read as \
             the values stored under them; to make them nodata: gdalwarp -dstnodata -9999 IN OUT"
                .into(),
        );
    }
    Ok(Opened { dec, nx, ny, nodata, scale, fill, georef, geokeys, layout, notes })
}

/// Whether the TIFF's second image is GDAL's mask of the first (NewSubfileType 4, as
/// `GDAL_TIFF_INTERNAL_MASK` and COGs with a mask write it); an unreadable one counts as none.
fn has_internal_mask(path: &Path) -> bool {
    let Ok((file, len)) = open_regular(path) else { return false };
    let Ok(mut dec) = Decoder::new(std::io::BufReader::new(SeekTake::new(file, len))) else { return false };
    dec.more_images()
        && dec.next_image().is_ok()
        && matches!(dec.find_tag_unsigned::<u32>(Tag::NewSubfileType), Ok(Some(t)) if t & 4 != 0)
}

/// Reads the whole image: row by row, as it streams, each row converted straight into its place
/// (row 0 south) in the one buffer of heights (no copy of the decoded file, no second pass).
pub(crate) fn read(path: &Path, limits: &Limits) -> Result<Raster, IoError> {
    let mut o = open(path, limits, |w, h| limits.check_samples(path, "ImageWidth × ImageLength", w, h))?;
    let (nx, ny, nodata) = (o.nx, o.ny, Nodata::new(o.nodata));
    let mut values = landfall::support::sample_buffer(nx * ny);
    stream_rows(path, &mut o, |r, row| {
        let out = &mut values[(ny - 1 - r) * nx..][..nx];
        to_height_row(path, row, out, &nodata, |k| format!("pixel (row {r}, column {k})"))
    })?;
    Ok(Raster { nx, ny, values, georef: o.georef, notes: std::mem::take(&mut o.notes), geokeys: o.geokeys })
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
