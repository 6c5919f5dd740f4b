//! Deflate (TIFF compression 8 and 32946; LERC_DEFLATE's outer layer): zlib streams, inflated by
//! `fdeflate` (pure Rust; the fastest of `fdeflate`, `miniz_oxide` and `zlib-rs` on GDAL's COG tiles,
//! `docs/benchmarks.md`).

/// Inflates the zlib stream `input` into `out`, stopping when `out` is full; returns the bytes
/// written (fewer than `out.len()` when the stream ends first). The Adler-32 checksum is checked
/// when the stream ends within `out`.
pub(crate) fn inflate(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let mut d = fdeflate::Decompressor::new();
    let (mut read, mut written) = (0, 0);
    while written < out.len() && !d.is_done() {
        let (r, w) = d
            .read(&input[read..], out, written, true)
            .map_err(|e| format!("Deflate data is corrupt or truncated ({e:?})"))?;
        read += r;
        written += w;
        if r == 0 && w == 0 {
            break;
        }
    }
    Ok(written)
}
