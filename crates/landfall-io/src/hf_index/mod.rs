//! The heightfield index file (`.lfh`): a raster of any size, preprocessed once by `landfall build`
//! in one streaming pass, then memory-mapped by every command — the samples and the min/max pyramid
//! used in place, so queries run the in-memory code on the file's pages and give the same answers
//! bit for bit.
//!
//! Layout (version 1, little-endian): a 256-byte header, then three sections on 64-byte boundaries:
//! the samples (f32, `nx · ny`, row 0 south, NaN = hole), the pyramid's nodes (two u16 codes each),
//! the hole mask (u64 words, usually empty).
//!
//! | bytes | field |
//! |---|---|
//! | 0..8, 8..12, 12..16 | magic `LANDFALL`, kind `HFLD`, version (1) |
//! | 16..24, 24..32 | header length (256), file length |
//! | 32..40, 40..48 | nx, ny |
//! | 48..64, 64..80 | origin (x, y), spacing (dx, dy) |
//! | 80..104 | gravity (unit, 3 × f64) |
//! | 104..112, 112..120 | diagonal code, pyramid leaf size |
//! | 120..136, 136..144 | code base and step, exact sample range (2 × f32) |
//! | 144..152 | NaN samples |
//! | 152..200 | sections: (byte offset, element count) × 3 |
//! | 200..208 | data checksum (rows of samples, then nodes, then the CRS section when there is one) |
//! | 208..248 | CRS section (all 0 when none): byte offset, byte length, then the counts of GeoKey directory entries (u16), double parameters (f64) and ASCII bytes |
//! | 248..256 | header checksum (bytes 0..248) |
//!
//! The CRS section keeps the input GeoTIFF's three GeoKey tags verbatim (the doubles, then the
//! directory, then the ASCII parameters), so that outputs made from the index (a viewshed GeoTIFF)
//! carry the input's coordinate reference system.
//!
//! Writing streams the raster's rows (a GeoTIFF a band of tiles or a strip at a time) into the
//! samples section at their places — memory is one band of rows plus the pyramid's leaf ranges, never
//! the raster — then writes the pyramid and the header, syncs, and renames the file into place.
//! Opening checks the header (magic, version, checksum, lengths, every section inside the file and
//! aligned), then reads the samples once through a small buffer (not the map, so the process's
//! resident memory stays small): the checksum, that no sample is infinite, the NaN count, and the
//! pyramid recomputed from them must equal the stored one. A corrupt or hostile file is an error,
//! never a panic or undefined behaviour. Then the file is mapped and used in place.

mod build;
mod mosaic;
mod open;
mod write;

pub use build::{build_heightfield_index, stream_geotiff_rows, IndexReport};
pub use open::{open_heightfield_index, open_heightfield_index_with_crs};

use crate::preamble::{Format, Preamble};
use crate::raster::GeoKeys;
use bytemuck::{Pod, Zeroable};
use landfall::Diagonal;
use std::path::Path;

/// Heightfield index version written and read.
pub const HEIGHTFIELD_INDEX_VERSION: u32 = 1;
/// The format's preamble and the checks of it.
const FORMAT: Format =
    Format { kind: *b"HFLD", version: HEIGHTFIELD_INDEX_VERSION, header_len: HEADER_LEN, name: "heightfield index" };
/// The extension `landfall build` recognises for a heightfield index.
pub const HEIGHTFIELD_INDEX_EXTENSION: &str = "lfh";
const ALIGN: u64 = 64;

/// The fixed header of a heightfield index file.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Header {
    preamble: Preamble,
    nx: u64,
    ny: u64,
    origin: [f64; 2],
    spacing: [f64; 2],
    gravity: [f64; 3],
    diagonal: u64,
    leaf: u64,
    quantum: [f64; 2],
    exact: [f32; 2],
    nodata: u64,
    sections: [[u64; 2]; 3],
    data_sum: u64,
    crs: [u64; 5],
    header_sum: u64,
}

const HEADER_LEN: usize = std::mem::size_of::<Header>();
const _: () = assert!(HEADER_LEN == 256);

/// Checksum of a run of bytes (the polygon index's).
fn checksum(bytes: &[u8]) -> u64 {
    crate::index::checksum(bytes)
}

/// The samples' part of the data checksum: row checksums tagged by row and summed, so rows may be
/// taken in any order (the raster gives them north first, the file holds them south first).
fn row_sum(j: usize, row: &[f32]) -> u64 {
    landfall::rng::mix(checksum(bytemuck::cast_slice(row)) ^ (j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn diagonal_code(d: Diagonal) -> u64 {
    match d {
        Diagonal::Alternating => 0,
        Diagonal::SouthWestNorthEast => 1,
        Diagonal::SouthEastNorthWest => 2,
    }
}

fn aligned(n: u64) -> u64 {
    n.div_ceil(ALIGN) * ALIGN
}

/// The data checksum: the rows' sum, then the nodes, then the CRS section's bytes (if any).
fn data_sum(rows_sum: u64, node_bytes: &[u8], crs_bytes: &[u8]) -> u64 {
    let sum = landfall::rng::mix(rows_sum ^ checksum(node_bytes).rotate_left(17));
    if crs_bytes.is_empty() {
        sum
    } else {
        landfall::rng::mix(sum ^ checksum(crs_bytes).rotate_left(31))
    }
}

/// Largest CRS section read: GeoKeys are a few hundred bytes; a file claiming more is refused
/// before anything is allocated.
const MAX_CRS_BYTES: u64 = 1 << 20;

/// The CRS section of `keys`: its bytes and the counts (directory entries, doubles, ASCII bytes).
fn encode_crs(keys: &GeoKeys) -> (Vec<u8>, [u64; 3]) {
    let mut b = Vec::new();
    for d in &keys.doubles {
        b.extend_from_slice(&d.to_le_bytes());
    }
    for k in &keys.directory {
        b.extend_from_slice(&k.to_le_bytes());
    }
    b.extend_from_slice(keys.ascii.as_bytes());
    (b, [keys.directory.len() as u64, keys.doubles.len() as u64, keys.ascii.len() as u64])
}

/// GeoKeys back from a CRS section's bytes and counts (the lengths checked by the caller).
fn decode_crs(b: &[u8], [dirs, doubles, _]: [u64; 3]) -> Result<GeoKeys, String> {
    let (nd, nk) = (doubles as usize * 8, dirs as usize * 2);
    let doubles = b[..nd].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    let directory = b[nd..nd + nk].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let ascii =
        String::from_utf8(b[nd + nk..].to_vec()).map_err(|_| "the ASCII parameters are not text".to_string())?;
    Ok(GeoKeys { directory, doubles, ascii })
}

/// True when the file starts with the heightfield index's magic and kind.
pub fn is_heightfield_index(path: &Path) -> bool {
    FORMAT.is_file(path)
}
