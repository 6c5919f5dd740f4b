//! ZSTD (TIFF compression 50000; LERC_ZSTD's outer layer), decoded by the reference C library
//! through the `zstd` crate (three times the speed of the pure-Rust `ruzstd` on GDAL's COG tiles,
//! `docs/benchmarks.md`). The library's default window limit (128 MiB) bounds what a frame may make
//! it allocate.

/// A ZSTD decompression context, kept from chunk to chunk.
pub(crate) struct Zstd(::zstd::bulk::Decompressor<'static>);

impl Zstd {
    /// A new context.
    pub(crate) fn new() -> Result<Self, String> {
        ::zstd::bulk::Decompressor::new().map(Zstd).map_err(|e| format!("ZSTD: {e}"))
    }

    /// Decompresses the frame `input` into `out`; returns the bytes written. A frame that holds more
    /// than `out` can take is an error (ZSTD decodes a frame whole), as is a corrupt one.
    pub(crate) fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize, String> {
        self.0.decompress_to_buffer(input, out).map_err(|e| format!("ZSTD data is corrupt or too long ({e})"))
    }
}
