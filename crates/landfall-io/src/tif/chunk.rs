//! One chunk (strip or tile) from the file to f64 samples in a band of rows: its bytes read (a
//! count the file cannot hold, or that no chunk of its size needs, is refused before anything is
//! allocated), decompressed, its predictor undone, converted. The buffers live from chunk to chunk.

use super::codec::{deflate, lerc, lzw, zstd::Zstd};
use super::layout::{Chunk, Codec, Layout, Outer, SampleType};
use super::predictor::{self, Predictor};
use crate::IoError;
use ::lerc::bitmask::BitMask;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult};

/// Most bytes a chunk of `n` decoded bytes may take compressed: LZW's worst case is 1.5× (12-bit
/// codes for bytes), the others' a few bytes more than `n`; LERC adds a header and a mask.
fn max_stored(n: usize) -> u64 {
    n as u64 / 2 * 3 + (64 << 10)
}

/// The ZSTD context in `slot`, made on first use.
fn zstd(slot: &mut Option<Zstd>) -> Result<&mut Zstd, String> {
    if slot.is_none() {
        *slot = Some(Zstd::new()?);
    }
    Ok(slot.as_mut().expect("just made"))
}

/// Where chunk `c` is stored (offset, byte count), once its byte count is known to fit in the file
/// and in what a chunk of `n` decoded bytes can need.
fn stored(layout: &Layout, c: &Chunk, n: usize) -> Result<(u64, u64), String> {
    let (offset, count) = (layout.offsets[c.index], layout.counts[c.index]);
    if count > max_stored(n) {
        return Err(format!("{count} bytes stored, more than a chunk of {n} bytes can need"));
    }
    if offset.checked_add(count).is_none_or(|end| end > layout.file_len) {
        let len = layout.file_len;
        return Err(format!("{count} bytes at offset {offset} run past the end of the file ({len} bytes)"));
    }
    Ok((offset, count))
}

/// `out.len()` bytes of the file from `offset` (of a chunk of `count` bytes stored there).
fn read_at<R: Read + Seek>(dec: &mut Decoder<R>, offset: u64, out: &mut [u8], count: u64) -> Result<(), String> {
    let file = dec.inner();
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(out))
        .map_err(|e| format!("cannot read its {count} bytes at offset {offset}: {e}"))
}

/// Decodes chunks, keeping its buffers.
#[derive(Default)]
pub(crate) struct ChunkDecoder {
    /// The chunk's bytes as stored.
    raw: Vec<u8>,
    /// A LERC blob, unwrapped from its outer compression.
    blob: Vec<u8>,
    /// The decoded samples, native order (u64 words: aligned for every sample type).
    words: Vec<u64>,
    /// One row, for the floating-point predictor.
    scratch: Vec<u8>,
    zstd: Option<Zstd>,
}

impl ChunkDecoder {
    /// Decodes chunk `c` of `layout` into `band` — rows of `layout.nx` samples, the chunk's first row
    /// at row 0 — at its columns. A chunk the file leaves out (byte count 0: GDAL's sparse files)
    /// reads as `fill`, as GDAL reads it (the nodata value, else 0).
    pub(crate) fn decode<R: Read + Seek>(
        &mut self,
        path: &Path,
        layout: &Layout,
        dec: &mut Decoder<R>,
        c: &Chunk,
        fill: f64,
        band: &mut [f64],
    ) -> Result<(), IoError> {
        if layout.counts[c.index] == 0 {
            for r in 0..c.rows {
                band[r * layout.nx + c.x0..][..c.cols].fill(fill);
            }
            return Ok(());
        }
        let n = c.row_len * c.stored_rows * layout.sample.width();
        self.words.resize(n.div_ceil(8), 0);
        let mask = match layout.codec {
            Codec::Tiff(_) => self.through_tiff(layout, dec, c),
            Codec::None => self.read_plain(layout, c, dec, n),
            Codec::Lerc(outer) => self.read(layout, c, dec, n).and_then(|()| self.lerc(layout, c, outer, n)),
            codec => self.read(layout, c, dec, n).and_then(|()| self.decompress(layout, c, codec, n)),
        }
        .map_err(|msg| IoError::format(path, format!("{}: {msg}", layout.name(c))))?;
        self.to_band(layout, c, mask.as_ref(), band);
        Ok(())
    }

    /// The chunk's stored bytes into `raw`, once its byte count is known to fit in the file and in
    /// what a chunk of `n` decoded bytes can need.
    fn read<R: Read + Seek>(
        &mut self,
        layout: &Layout,
        c: &Chunk,
        dec: &mut Decoder<R>,
        n: usize,
    ) -> Result<(), String> {
        let (offset, count) = stored(layout, c, n)?;
        self.raw.resize(count as usize, 0);
        read_at(dec, offset, &mut self.raw, count)
    }

    /// An uncompressed chunk's first `n` bytes straight into `words` (not through `raw`), in native
    /// order.
    fn read_plain<R: Read + Seek>(
        &mut self,
        layout: &Layout,
        c: &Chunk,
        dec: &mut Decoder<R>,
        n: usize,
    ) -> Result<Option<BitMask>, String> {
        let (offset, count) = stored(layout, c, n)?;
        if count < n as u64 {
            return Err(format!("decodes to {count} bytes, {n} expected"));
        }
        let out = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n];
        read_at(dec, offset, out, count)?;
        predictor::undo(out, c.row_len, layout.sample.width(), layout.big_endian, layout.predictor, &mut self.scratch);
        Ok(None)
    }

    /// `raw` decompressed into the chunk's `n` bytes of `words`, its predictor undone.
    fn decompress(&mut self, layout: &Layout, c: &Chunk, codec: Codec, n: usize) -> Result<Option<BitMask>, String> {
        let out = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n];
        let got = match codec {
            Codec::Lzw => lzw::decode(&self.raw, out)?,
            Codec::Deflate => deflate::inflate(&self.raw, out)?,
            Codec::Zstd => zstd(&mut self.zstd)?.decompress(&self.raw, out)?,
            // NONE, LERC and the tiff crate's codecs are read by `read_plain`, `lerc`, `through_tiff`.
            other => return Err(format!("{other:?} is not decompressed here")),
        };
        if got < n {
            return Err(format!("decodes to {got} bytes, {n} expected"));
        }
        predictor::undo(out, c.row_len, layout.sample.width(), layout.big_endian, layout.predictor, &mut self.scratch);
        Ok(None)
    }

    /// `raw` as a LERC chunk: the blob unwrapped from its outer compression, decoded into `words`
    /// (`n` bytes); the mask of an integer blob's invalid pixels.
    fn lerc(&mut self, layout: &Layout, c: &Chunk, outer: Outer, n: usize) -> Result<Option<BitMask>, String> {
        // libtiff's room for a blob: the samples, a third more, 256 bytes.
        let room = n + n / 3 + 256;
        let blob: &[u8] = match outer {
            Outer::None => &self.raw,
            Outer::Deflate | Outer::Zstd => {
                self.blob.resize(room, 0);
                let got = if outer == Outer::Deflate {
                    deflate::inflate(&self.raw, &mut self.blob)?
                } else {
                    zstd(&mut self.zstd)?.decompress(&self.raw, &mut self.blob)?
                };
                &self.blob[..got]
            }
        };
        let (cols, rows) = (c.row_len, c.stored_rows);
        macro_rules! each {
            ($t:ty) => {
                lerc::decode::<$t>(blob, cols, rows, &mut bytemuck::cast_slice_mut(&mut self.words)[..cols * rows])?
            };
        }
        let mask = match layout.sample {
            SampleType::U8 => each!(u8),
            SampleType::I8 => each!(i8),
            SampleType::U16 => each!(u16),
            SampleType::I16 => each!(i16),
            SampleType::U32 => each!(u32),
            SampleType::I32 => each!(i32),
            SampleType::F32 => each!(f32),
            SampleType::F64 => each!(f64),
        };
        // libtiff swaps a big-endian file's samples after LERC as after any codec.
        let bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut self.words)[..n];
        predictor::undo(bytes, cols, layout.sample.width(), layout.big_endian, Predictor::None, &mut self.scratch);
        Ok(mask)
    }

    /// A chunk of a compression the `tiff` crate decodes (its predictor undone there), copied into
    /// `words` as rows of `c.row_len`.
    fn through_tiff<R: Read + Seek>(
        &mut self,
        layout: &Layout,
        dec: &mut Decoder<R>,
        c: &Chunk,
    ) -> Result<Option<BitMask>, String> {
        let data = dec.read_chunk(c.index as u32).map_err(|e| format!("corrupt or truncated image data: {e}"))?;
        let (cols, rows) = (c.cols, c.rows);
        let words = &mut self.words;
        macro_rules! copy {
            ($v:expr, $t:ty) => {{
                let v = $v;
                if v.len() < cols * rows {
                    return Err(format!("{} samples, {cols}×{rows} expected", v.len()));
                }
                // The crate's data may be cut to the image or padded to the whole tile.
                let stride = if v.len() >= c.row_len * rows { c.row_len } else { cols };
                let out: &mut [$t] = bytemuck::cast_slice_mut(words);
                for r in 0..rows {
                    out[r * c.row_len..][..cols].copy_from_slice(&v[r * stride..][..cols]);
                }
            }};
        }
        match (data, layout.sample) {
            (DecodingResult::U8(v), SampleType::U8) => copy!(v, u8),
            (DecodingResult::I8(v), SampleType::I8) => copy!(v, i8),
            (DecodingResult::U16(v), SampleType::U16) => copy!(v, u16),
            (DecodingResult::I16(v), SampleType::I16) => copy!(v, i16),
            (DecodingResult::U32(v), SampleType::U32) => copy!(v, u32),
            (DecodingResult::I32(v), SampleType::I32) => copy!(v, i32),
            (DecodingResult::F32(v), SampleType::F32) => copy!(v, f32),
            (DecodingResult::F64(v), SampleType::F64) => copy!(v, f64),
            _ => return Err(format!("decoded to another sample type than {:?}", layout.sample)),
        }
        Ok(None)
    }

    /// The decoded chunk (native samples in `words`) into the band as f64; pixels `mask` marks
    /// invalid become NaN.
    fn to_band(&self, layout: &Layout, c: &Chunk, mask: Option<&BitMask>, band: &mut [f64]) {
        fn rows<T: Copy + Into<f64> + bytemuck::Pod>(
            words: &[u64],
            layout: &Layout,
            c: &Chunk,
            mask: Option<&BitMask>,
            band: &mut [f64],
        ) {
            let v: &[T] = bytemuck::cast_slice(words);
            for r in 0..c.rows {
                let dst = &mut band[r * layout.nx + c.x0..][..c.cols];
                for (d, &s) in dst.iter_mut().zip(&v[r * c.row_len..][..c.cols]) {
                    *d = s.into();
                }
                if let Some(m) = mask {
                    for (k, d) in dst.iter_mut().enumerate() {
                        if !m.is_valid(r * c.row_len + k) {
                            *d = f64::NAN;
                        }
                    }
                }
            }
        }
        let w = &self.words;
        match layout.sample {
            SampleType::U8 => rows::<u8>(w, layout, c, mask, band),
            SampleType::I8 => rows::<i8>(w, layout, c, mask, band),
            SampleType::U16 => rows::<u16>(w, layout, c, mask, band),
            SampleType::I16 => rows::<i16>(w, layout, c, mask, band),
            SampleType::U32 => rows::<u32>(w, layout, c, mask, band),
            SampleType::I32 => rows::<i32>(w, layout, c, mask, band),
            SampleType::F32 => rows::<f32>(w, layout, c, mask, band),
            SampleType::F64 => rows::<f64>(w, layout, c, mask, band),
        }
    }
}
