//! How a TIFF stores its image — chunk (strip or tile) geometry, where each chunk lies in the file,
//! the sample type and byte order, the compression and the predictor — read from the tags and
//! checked before anything is decoded.

use super::predictor::Predictor;
use crate::IoError;
use std::path::Path;
use tiff::decoder::Decoder;
use tiff::tags::Tag;

/// Largest chunk (strip or tile) decoded at once, in samples: an image stored as one strip of
/// gigabytes must be re-tiled first (`gdal_translate -co TILED=YES`).
const MAX_CHUNK_SAMPLES: u64 = 1 << 26;

/// GDAL's LercParameters tag: LERC version, then the compression around each blob.
const LERC_PARAMETERS: u16 = 50674;

/// The numeric type of the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SampleType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    F64,
}

impl SampleType {
    /// Bytes a sample.
    pub(crate) fn width(self) -> usize {
        match self {
            SampleType::U8 | SampleType::I8 => 1,
            SampleType::U16 | SampleType::I16 => 2,
            SampleType::U32 | SampleType::I32 | SampleType::F32 => 4,
            SampleType::F64 => 8,
        }
    }
}

/// The compression of the chunks, as this reader decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Codec {
    None,
    Lzw,
    Deflate,
    Zstd,
    /// LERC blobs, each inside this outer compression (`None`, `Deflate` or `Zstd`).
    Lerc(Outer),
    /// Another compression the `tiff` crate decodes itself (PackBits, JPEG, CCITT): its code.
    Tiff(u16),
}

/// The compression around each LERC blob (LercParameters' second value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outer {
    None,
    Deflate,
    Zstd,
}

/// One chunk's place: its index, the image columns and rows it covers, and how it is stored
/// (`row_len` samples a stored row, `stored_rows` rows: a tile is stored whole, padding included).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    pub index: usize,
    pub x0: usize,
    pub cols: usize,
    pub rows: usize,
    pub row_len: usize,
    pub stored_rows: usize,
}

/// The image's storage, checked.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub nx: usize,
    pub ny: usize,
    /// Chunk width (the image's width for strips) and height (rows a strip for strips).
    pub cw: usize,
    pub ch: usize,
    pub tiled: bool,
    /// Chunks across the image (1 for strips).
    pub across: usize,
    pub offsets: Vec<u64>,
    pub counts: Vec<u64>,
    pub sample: SampleType,
    pub big_endian: bool,
    pub codec: Codec,
    pub predictor: Predictor,
    /// The file's length when it was opened.
    pub file_len: u64,
}

impl Layout {
    /// Reads and checks the layout of the `nx × ny` image the decoder is at.
    pub(crate) fn read<R: std::io::Read + std::io::Seek>(
        path: &Path,
        dec: &mut Decoder<R>,
        nx: usize,
        ny: usize,
        file_len: u64,
    ) -> Result<Self, IoError> {
        let field = |t: Tag, e: tiff::TiffError| IoError::field(path, format!("{t:?}"), format!("unreadable: {e}"));
        let u64s = |dec: &mut Decoder<R>, t: Tag| -> Result<Option<Vec<u64>>, IoError> {
            match dec.find_tag(t).map_err(|e| field(t, e))? {
                None => Ok(None),
                Some(v) => v.into_u64_vec().map(Some).map_err(|e| field(t, e)),
            }
        };
        let first = |v: Option<Vec<u64>>, default: u64| v.and_then(|v| v.first().copied()).unwrap_or(default);
        let tile_width = u64s(dec, Tag::TileWidth)?;
        let tiled = tile_width.is_some();
        let (cw, ch, offsets, counts) = if tiled {
            let cw = first(tile_width, 0);
            let ch = first(u64s(dec, Tag::TileLength)?, 0);
            (cw, ch, u64s(dec, Tag::TileOffsets)?, u64s(dec, Tag::TileByteCounts)?)
        } else {
            let ch = first(u64s(dec, Tag::RowsPerStrip)?, ny as u64).min(ny as u64);
            (nx as u64, ch, u64s(dec, Tag::StripOffsets)?, u64s(dec, Tag::StripByteCounts)?)
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
        let (cw, ch) = (cw as usize, ch as usize);
        let across = nx.div_ceil(cw);
        let chunks = across * ny.div_ceil(ch);
        let what = if tiled { "TileOffsets/TileByteCounts" } else { "StripOffsets/StripByteCounts" };
        let (offsets, counts) = match (offsets, counts) {
            (Some(o), Some(c)) if o.len() >= chunks && c.len() >= chunks => (o, c),
            (o, c) => {
                let (o, c) = (o.map_or(0, |v| v.len()), c.map_or(0, |v| v.len()));
                return Err(IoError::field(path, what, format!("{o} offsets and {c} byte counts for {chunks} chunks")));
            }
        };
        // A sparse file leaves out its nodata chunks; one that leaves out all of them claims a raster
        // it does not hold (and would take memory for nothing).
        if counts[..chunks].iter().all(|&c| c == 0) {
            return Err(IoError::field(
                path,
                what,
                format!("all {chunks} chunks are absent (a sparse file holding no data): every sample would be nodata"),
            ));
        }
        let format = first(u64s(dec, Tag::SampleFormat)?, 1);
        let bits = first(u64s(dec, Tag::BitsPerSample)?, 1);
        let sample = match (format, bits) {
            (1, 8) => SampleType::U8,
            (2, 8) => SampleType::I8,
            (1, 16) => SampleType::U16,
            (2, 16) => SampleType::I16,
            (1, 32) => SampleType::U32,
            (2, 32) => SampleType::I32,
            (3, 32) => SampleType::F32,
            (3, 64) => SampleType::F64,
            _ => {
                return Err(IoError::field(
                    path,
                    "SampleFormat/BitsPerSample",
                    format!(
                    "format {format} with {bits} bits is not supported (expected f32, f64, i16, u16, i32, u32, u8, i8)"
                ),
                ))
            }
        };
        let compression = first(u64s(dec, Tag::Compression)?, 1);
        let codec = match compression {
            1 => Codec::None,
            5 => Codec::Lzw,
            8 | 32946 => Codec::Deflate,
            50000 => Codec::Zstd,
            34887 => {
                let params = u64s(dec, Tag::Unknown(LERC_PARAMETERS))?.unwrap_or_default();
                Codec::Lerc(match params.get(1).copied().unwrap_or(0) {
                    0 => Outer::None,
                    1 => Outer::Deflate,
                    2 => Outer::Zstd,
                    c => {
                        return Err(IoError::field(
                            path,
                            "LercParameters",
                            format!("additional compression {c} is unknown (0 none, 1 Deflate, 2 ZSTD)"),
                        ))
                    }
                })
            }
            // What the tiff crate decodes: PackBits, CCITT, JPEG.
            2..=4 | 7 | 32773 => Codec::Tiff(compression as u16),
            c => {
                return Err(IoError::field(
                    path,
                    "Compression",
                    format!(
                        "method {c}{} is not supported (NONE, LZW, DEFLATE, ZSTD, LERC, LERC_DEFLATE, LERC_ZSTD, \
                         PACKBITS are; gdal_translate -co COMPRESS=ZSTD converts)",
                        known_name(c).map(|n| format!(" ({n})")).unwrap_or_default()
                    ),
                ))
            }
        };
        let predictor = match (first(u64s(dec, Tag::Predictor)?, 1), sample) {
            // libtiff ignores the predictor of uncompressed and LERC chunks (only the codecs that
            // take one apply it); the tiff crate applies its own.
            (_, _) if matches!(codec, Codec::None | Codec::Lerc(_) | Codec::Tiff(_)) => Predictor::None,
            (1, _) => Predictor::None,
            (2, _) => Predictor::Horizontal,
            (3, SampleType::F32 | SampleType::F64) => Predictor::Float,
            (p, _) => {
                return Err(IoError::field(
                    path,
                    "Predictor",
                    format!("{p} with {sample:?} samples is not supported (1, 2, and 3 for floats)"),
                ))
            }
        };
        let big_endian = matches!(dec.byte_order(), tiff::tags::ByteOrder::BigEndian);
        Ok(Layout { nx, ny, cw, ch, tiled, across, offsets, counts, sample, big_endian, codec, predictor, file_len })
    }

    /// The chunk at (tx, ty) in the grid of chunks (ty alone for strips).
    pub(crate) fn chunk(&self, tx: usize, ty: usize) -> Chunk {
        let (x0, y0) = (tx * self.cw, ty * self.ch);
        let rows = self.ch.min(self.ny - y0);
        Chunk {
            index: ty * self.across + tx,
            x0,
            cols: self.cw.min(self.nx - x0),
            rows,
            row_len: self.cw,
            stored_rows: if self.tiled { self.ch } else { rows },
        }
    }

    /// The chunk's name in an error: tile (and its place) or strip (and its rows).
    pub(crate) fn name(&self, c: &Chunk) -> String {
        if self.tiled {
            let (tx, ty) = (c.index % self.across, c.index / self.across);
            format!("tile {} (column {tx}, row {ty} of the tile grid)", c.index)
        } else {
            let y0 = c.index * self.ch;
            format!("strip {} (rows {y0}–{})", c.index, y0 + c.rows - 1)
        }
    }
}

/// The name of a compression code this reader does not decode, when it has one.
fn known_name(code: u64) -> Option<&'static str> {
    Some(match code {
        6 => "old-style JPEG",
        34712 => "JPEG 2000",
        34925 => "LZMA",
        34926 => "ZSTD (old code)",
        50001 => "WebP",
        50002 => "JPEG XL",
        _ => return None,
    })
}
