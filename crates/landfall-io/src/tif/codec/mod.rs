//! A chunk's compressed bytes to its samples, one file per compression. Each decompressor fills a
//! buffer of the size the TIFF's tags give the chunk and stops there (a stream that would go on is
//! cut, as libtiff cuts it), so a decompression bomb costs at most one chunk's bytes; a stream that
//! ends short is an error. Errors are plain text: the caller names the file and the chunk.

pub(super) mod deflate;
pub(super) mod lerc;
pub(super) mod lzw;
pub(super) mod zstd;
