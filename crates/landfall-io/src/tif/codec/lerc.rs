//! LERC (TIFF compression 34887, alone or inside Deflate or ZSTD as GDAL's LERC_DEFLATE and
//! LERC_ZSTD write it): one LERC2 blob a chunk, decoded by the pure-Rust `lerc-rs` (checksums,
//! masks, Huffman and bit-stuffed blocks of versions 2–6; chosen over `lerc-reader` by speed on
//! GDAL's COG tiles, `docs/benchmarks.md`, both matching GDAL bit for bit).
//!
//! As libtiff reads it: the blob must be exactly the chunk's size, type and length (one band, one
//! value a pixel); a float pixel the blob's mask marks invalid is NaN (libtiff's NaN, before the
//! byte swap of a big-endian file, as libtiff orders them); an invalid integer pixel, which libtiff
//! leaves unspecified, is returned in the mask, for the caller to make a hole.

use ::lerc::bitmask::BitMask;
use ::lerc::{DataType, Sample};

/// Decodes the LERC blob `blob` of `cols × rows` values of type `T` into `out` (exactly that many
/// values, native order); returns the validity mask of an integer blob with invalid pixels.
pub(crate) fn decode<T: Sample>(
    blob: &[u8],
    cols: usize,
    rows: usize,
    out: &mut [T],
) -> Result<Option<BitMask>, String> {
    let bad = |e: ::lerc::LercError| format!("LERC data is corrupt or truncated ({e})");
    let info = ::lerc::decode_info(blob).map_err(bad)?;
    let (w, h) = (info.width as usize, info.height as usize);
    if (w, h) != (cols, rows) {
        return Err(format!("LERC blob is {w} × {h} samples, the chunk {cols} × {rows}"));
    }
    if info.depth != 1 || info.bands != 1 {
        return Err(format!("LERC blob has {} values a pixel in {} bands, expected one band", info.depth, info.bands));
    }
    if info.data_type != T::DATA_TYPE {
        return Err(format!("LERC blob holds {}, the TIFF says {}", name(info.data_type), name(T::DATA_TYPE)));
    }
    if info.blob_size as usize != blob.len() {
        return Err(format!("LERC blob says it is {} bytes, the chunk has {}", info.blob_size, blob.len()));
    }
    let r = ::lerc::decode_into(blob, out).map_err(bad)?;
    let Some(mask) = r.valid_masks.into_iter().next().filter(|m| !m.is_all_valid()) else {
        return Ok(None);
    };
    if T::is_integer() {
        return Ok(Some(mask));
    }
    // f32: 0x7fc00000; f64: that NaN widened, 0x7ff8000000000000 (libtiff's `nan_float64`).
    let nan = T::from_f64(f64::from(f32::NAN));
    for (k, v) in out.iter_mut().enumerate() {
        if !mask.is_valid(k) {
            *v = nan;
        }
    }
    Ok(None)
}

/// The sample type's name in TIFF terms.
fn name(t: DataType) -> &'static str {
    match t {
        DataType::Char => "i8",
        DataType::Byte => "u8",
        DataType::Short => "i16",
        DataType::UShort => "u16",
        DataType::Int => "i32",
        DataType::UInt => "u32",
        DataType::Float => "f32",
        DataType::Double => "f64",
    }
}
