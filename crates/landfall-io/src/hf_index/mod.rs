//! The heightfield index file (`.lfh`): a raster of any size (up to 2⁴² samples), preprocessed once
//! by `landfall build` in one streaming pass, then memory-mapped by every command — the samples, the
//! min/max pyramid and each tile's sphere tree used in place, so queries run the in-memory code on
//! the file's pages and give the same answers bit for bit.
//!
//! **Tiles.** The grid is cut into tiles of `tile_cells` × `tile_cells` cells (256 for the default
//! leaf of 8: [`Tiling`](landfall::support::Tiling)). A tile with a valid sample stores a
//! *block* in a *slot*: its `(tile_cells + 1)²` samples (its edge rows and columns are its
//! neighbours' too), row-major from its south-west sample, NaN past the grid, padded to whole
//! 4 KiB pages; its pyramid levels below the tile; and its sphere tree (the 2004 collision paper's
//! forward-serialized form, [`TileNode`](landfall::collide::TileNode)s of 56 bytes). A tile without
//! data stores nothing: its directory entry names slot 0, all NaN, shared. The slots are laid out
//! for the tiles the input covers (every tile of one raster; the tiles under a mosaic's rasters),
//! each at a fixed place; a slot whose tile turned out empty, and a tree shorter than its slot, are
//! never written, so they take no disk blocks (a sparse file: its apparent size is larger than what
//! it allocates).
//!
//! Layout (version 2, little-endian): a 384-byte header, then sections on 4 KiB boundaries:
//!
//! | section | elements |
//! |---|---|
//! | directory | u32 slot of each tile, row-major from the south-west tile (0: no data) |
//! | records | per slot: [valid samples of the tile (its own, not its neighbours'), checksum of its samples] |
//! | tree index | per slot: [first node, node count] of its tree |
//! | samples | per slot: the block |
//! | pyramid | per slot: the tile's lower pyramid levels, two u16 codes a node |
//! | trees | per slot: room for the largest tree of a tile, nodes from the slot's first |
//! | CRS | the input GeoTIFF's three GeoKey tags verbatim (the doubles, the directory, the ASCII parameters) |
//!
//! | header bytes | field |
//! |---|---|
//! | 0..8, 8..12, 12..16 | magic `LANDFALL`, kind `HFLD`, version (2) |
//! | 16..24, 24..32 | header length (384), file length |
//! | 32..48 | nx, ny |
//! | 48..64, 64..80 | origin (x, y), spacing (dx, dy) |
//! | 80..104 | gravity (unit, 3 × f64) |
//! | 104..112, 112..120 | diagonal code, pyramid leaf size |
//! | 120..136, 136..144 | code base and step, exact sample range (2 × f32) |
//! | 144..152 | NaN samples |
//! | 152..160, 160..168 | tile cells, slots (slot 0 included) |
//! | 168..192 | the trees' parameters: tile cells, leaf cells, levels |
//! | 192..200 | nodes a tree slot holds |
//! | 200..296 | sections: (byte offset, element count) × 6 (directory … trees) |
//! | 296..336 | CRS section (all 0 when none): byte offset, byte length, then the counts of GeoKey directory entries (u16), double parameters (f64) and ASCII bytes |
//! | 336..344 | data checksum (directory, records, tree index, each used slot's samples, pyramid and tree, CRS) |
//! | 344..376 | reserved (0) |
//! | 376..384 | header checksum (bytes 0..376) |
//!
//! Writing streams the raster's rows (a GeoTIFF a band of tiles or a strip at a time; a mosaic's
//! tiles side by side) into the blocks of the current band of tiles; a finished tile is written to
//! its slot with its tree, so memory is about one band of tiles with data plus the decoder's two
//! bands, never the raster. The pyramid's codes need the whole grid's height range: a second pass reads each
//! stored block back and writes its pyramid levels. Then the directory and the header, a sync, and
//! the file is renamed into place.
//!
//! Opening checks the header (magic, version — an older index is refused with a request to rebuild
//! it —, checksum, lengths, every section inside the file and aligned), then reads every used slot
//! once through a small buffer (not the map, so the process's resident memory stays small): the
//! checksums, that no sample is infinite, the NaN count, the tile's pyramid levels recomputed from
//! its samples, the trees' structure (every `next` moves forward inside its tree). A corrupt or
//! hostile file is an error, never a panic or undefined behaviour. Then the file is mapped and used in
//! place: a tile's pages are read when a query first touches it.
//!
//! # How it works
//!
//! `landfall build dem.tif -o dem.lfh` (`landfall_io::build_heightfield_index`) writes a raster of any
//! size — up to 2⁴² samples, 2³¹ − 1 a side — into a heightfield index in one pass. The index stores the
//! samples **per tile**: the grid is cut into tiles of 256 cells (the pyramid's leaf times a power of two,
//! `heightfield::Tiling`), and each tile with a valid sample keeps a block of its 257² samples (its
//! edge rows and columns are also its neighbours'), row-major, NaN past the grid, padded to whole 4 KiB
//! pages, beside its lower pyramid levels and its **sphere tree** (below). A tile without data stores
//! nothing: its directory entry names the shared block 0, all NaN. So a tile's samples are contiguous,
//! a tile view maps only its tiles, and a sparse mosaic costs its tiles: tiles far apart make a grid
//! of 10¹⁰ samples in a few MiB.
//!
//! A GeoTIFF is decoded a strip or a row of tiles at a time (`tif::stream_rows`: strips, tiles,
//! Cloud-Optimized GeoTIFFs, every compression of the table above), each row converted
//! exactly as `load_heightfield` would (f32 sample, then `v·S + O` in f64, nodata → NaN) and put into
//! the blocks of the current band of tiles (`hf_index/write.rs`); a tile whose rows have all come is
//! written to its slot with its tree. The pyramid's codes need the whole grid's height range, so a
//! second pass reads each stored block back and writes its pyramid levels (`Pyramid::tile_nodes`, the
//! same code the library uses), then the directory and the header; the file is synced and renamed
//! into place. The slots are laid out up front for the tiles the input covers, each at a fixed place;
//! a slot whose tile turned out empty, and the room of a tree shorter than the largest, are never
//! written, so they take no disk blocks (a sparse file). Memory: the decoder's two bands (the next one
//! is decoded on a second thread while the current one is written) plus one band of
//! tiles with data (1 MiB each); the 100,000² sparse test peaks at 8 MiB. Other formats are read whole
//! and written the same way. A directory of GeoTIFF tiles on one grid, or a list of them (`landfall build
//! tiles/ -o dem.lfh`, `landfall build tiles.txt -o dem.lfh` with one path a line, relative to the list,
//! `#` comments — as `gdalbuildvrt -input_file_list` takes them: a national DEM's 1° tiles; same pixel
//! size, origins on the grid, shared edge rows and columns and gaps allowed — gaps become holes) is
//! streamed as one mosaic: each output row put together from the rows of the tiles it crosses, read
//! in step (`tif::RowReader`); rows no tile covers are skipped. Refused, naming the tile: one off the
//! grid or of another pixel size, one so far from the others that the grid would pass 2³¹ samples a
//! side (a tile at x = 10³⁰⁰ panicked before), an output that is one of the tiles, and **overlapping
//! tiles whose values differ** (equal values, or nodata in one, are one surface): `gdalbuildvrt` lets
//! the last tile win silently, but an elevation service cannot tell which of two surveys is right, so
//! the error names both tiles and the sample. **`--max-samples`** bounds the samples the index stores
//! (257² a tile the input covers), checked before anything is written.
//!
//! The file (`hf_index/mod.rs` documents the layout, version 2) holds the directory, per-slot records
//! and tree index, the blocks, the tiles' pyramid levels, the trees and the input GeoTIFF's CRS (its
//! three GeoKey tags verbatim, in the data checksum; `info` names the EPSG code and a viewshed of the
//! index carries it into its GeoTIFF), sections on 4 KiB boundaries: about 8.7 bytes a stored sample
//! of apparent size (4.0 for the block, 4.6 of room for the tree, which a tile without holes fills,
//! 0.08 for the pyramid levels; 8.84 bytes a grid sample at 4097², `docs/benchmarks.md`). A mosaic's tiles must share one CRS. Opening checks the header (magic,
//! version — a version-1 file, rows, is refused with a request to rebuild it —, checksum, lengths,
//! every section in the file and aligned), then reads each used slot once through a small buffer — not
//! through the map, so the process's resident memory stays small — checking its samples' checksum,
//! that no sample is infinite or lies past the grid, its count of valid samples, that its pyramid
//! levels recomputed from its samples are the stored ones, and that every tree's `next` moves forward
//! inside the tree (so a walk ends); the data checksum covers the rest, the spheres included. A corrupt
//! or hostile file is an error naming the field (tested: truncations, 300 random bit flips, a forged
//! header, the hf_index fuzz target). Then the file is memory-mapped and `Heightfield::from_parts`
//! uses the mapped blocks and pyramid levels in place (`flat::Flat`). A tiled heightfield is
//! read-only (`set_samples` is an error: load the raster to edit it); `heights()` is `None` for it
//! (`sample`, `samples()` read either store).
//!
//! **The tiled store in the library** (`heightfield/tiles.rs`). `Heightfield`'s samples are
//! `Samples::Rows` (a raster in memory, as before) or `Samples::Tiles` (directory + blocks); the hot
//! accessors (`corners_f32`, the leaf prefetch) take one well-predicted branch on which, and a tile's
//! cell is one directory read and one block read (`cell_base`: shifts when the tile side is a power of
//! two). The pyramid keeps its levels and its walk: a tiled pyramid stores levels 0..k (k = log₂(tile /
//! leaf), 5 for the default) per tile, beside the tile's samples, and the levels above — one node per
//! tile up to the root — as before (dense, padded), computed at open from the tiles' top nodes, a few
//! bytes per tile. `Level::tiled` says which; a node read (`range`) and the stack walk's 4 × 4 block
//! (`block16`: a slice of one tile's level, or sixteen nodes gathered when the block lies across tiles)
//! branch on it. Node for node the codes are the in-memory pyramid's (same leaves, same grid-wide
//! quantum), so a tiled heightfield answers bit for bit as the raster (`tests/tiled.rs`: property
//! tests of vertical queries, rays from every height through both walks, crossings, triangles in a
//! region, every pyramid node; `Heightfield::to_tiles` makes one in memory). Empty areas cost their
//! directory entry (4 bytes a tile) and one coarse node; a grid of 2⁴² samples has 2²⁶ tiles, 256 MiB
//! of directory. Indices: sample and cell indices are `usize` (64-bit) throughout; a column or row
//! index fits an `i32` (the walks' float conversions, `TriangleId`'s `u32`), hence 2³¹ − 1 a side.
//!
//! **Tiles in the view** (`collide::TileView`, the 2004 paper's 3.1–3.2): the grid is cut into
//! tiles of 256 × 256 cells and `update(viewer, radius)` keeps exactly the tiles whose rectangle comes
//! within the radius (tested against brute force), returning those added and dropped. A tile entering
//! gets its bounding-sphere tree, built with the paper's stop rule (4 × 4-cell leaves = 32
//! triangles, at most 20 levels; quadrant splits) and serialized depth-first with next offsets, so the
//! walk only moves forward; its leaves hold cell ranges, not copies of triangles (56-byte nodes, about
//! 4.7 bytes a cell). On an index the trees were built once by `landfall build` and stored per tile
//! (`collide::tile_tree` builds one from a tile's samples alone, node for node the tree a view builds):
//! `TileView::with_trees(hf, trees)` (`landfall_io::open_heightfield_index_with_trees`) takes a tile's
//! tree from the map as the tile enters, so entering costs a page-in, not a build (`trees_built` stays
//! 0). A tile leaving drops its tree and, on a mapped index, the pages of the blocks no tile in the view
//! uses (a block is whole pages of its own); on a mapped raster of rows, the pages of samples no tile
//! uses, and the pages the kernel's fault-around mapped beside them.
//! Sweeps (sphere, capsule, ellipsoid, and `gather` for the controller's `Nearby`) run the paper's
//! access algorithm over the tiles in the view — the global motion test against each tile's main
//! sphere, then down its tree — on the heightfield's own triangles: they equal sweeps over the whole
//! grid (property tests: random motions, motions aimed at seam vertices and edges, holes across seams),
//! and a walker driven through a view that follows it moves exactly as on the whole grid across tile
//! borders (tests, mapped and in memory). Only tiles in the view collide. The resident file memory
//! stays at about the view's tiles while the viewer crosses the raster (a test measures `RssFile`; the
//! example `cargo run --release -p landfall-io --example tiles_in_view` walks 52 km across a 4097² DEM
//! with 4.5–7 MiB of the 64 MiB map resident).
//!
//! **`--cache-mb N`** (`height`, `raycast` on an `.lfh`): the queries go in chunks of N MiB / 256 KiB
//! (a query touches a few pages, each fault maps up to 64 KiB), and after a chunk that leaves more than
//! N MiB of file maps resident (`RssFile`, counted from what stays after the previous let-go: the
//! program's own code), the whole map is let go (`madvise(MADV_DONTNEED)` on the read-only private map:
//! the next read faults the same bytes in again from the page cache or the file). The run prints its
//! peak. Measured by the CLI test on a 47 MiB index and 30,000 points spread over it: peak 17.4 MiB for
//! one point alone, 17.7 MiB with `--cache-mb 4`, 57.7 MiB with a budget that never binds; the answers
//! are the same bytes.
//!
//! Not built: edits of an index (copy-on-write of the touched tiles); a view's tiles of another size
//! than the index's use built trees; a more compact stored tree (f32 spheres relative to the tile would
//! halve the file); GeoTIFFs with LZW tiles narrower than 128 samples, which the
//! `tiff` crate (0.11) cannot decode ("no lzw end code found", also when read whole; Deflate and wider
//! LZW tiles are fine).

mod build;
mod mosaic;
mod open;
mod report;
mod write;

pub use build::{build_heightfield_index, stream_geotiff_rows};
pub use open::{
    open_heightfield_index, open_heightfield_index_with_crs, open_heightfield_index_with_trees, OpenedIndex,
};
pub(crate) use report::geo_tables_fit;
pub use report::IndexReport;

use crate::preamble::{Format, Preamble};
use crate::raster::GeoKeys;
use bytemuck::{Pod, Zeroable};
use landfall::Diagonal;
use std::path::Path;

/// Heightfield index version written and read (version 1 stored rows; it is refused with a request
/// to rebuild).
pub const HEIGHTFIELD_INDEX_VERSION: u32 = 2;
/// The format's preamble and the checks of it.
const FORMAT: Format =
    Format { kind: *b"HFLD", version: HEIGHTFIELD_INDEX_VERSION, header_len: HEADER_LEN, name: "heightfield index" };
/// The extension `landfall build` recognises for a heightfield index.
pub const HEIGHTFIELD_INDEX_EXTENSION: &str = "lfh";
/// Sections start on pages: a block's samples are whole pages of their own.
const ALIGN: u64 = 4096;
/// Largest pyramid leaf of an index (its tiles are at least two leaves a side).
pub(crate) const MAX_INDEX_LEAF: usize = 256;

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
    tile_cells: u64,
    slots: u64,
    tree_params: [u64; 3],
    tree_slot: u64,
    sections: [[u64; 2]; 6],
    crs: [u64; 5],
    data_sum: u64,
    reserved: [u64; 4],
    header_sum: u64,
}

const HEADER_LEN: usize = std::mem::size_of::<Header>();
const _: () = assert!(HEADER_LEN == 384);

/// The sections' indices, in file order.
const DIRECTORY: usize = 0;
const RECORDS: usize = 1;
const TREE_INDEX: usize = 2;
const SAMPLES: usize = 3;
const PYRAMID: usize = 4;
const TREES: usize = 5;

/// Name and bytes per element of each section.
const SECTION_SIZES: [(&str, u64); 6] =
    [("directory", 4), ("records", 16), ("tree index", 16), ("samples", 4), ("pyramid", 4), ("trees", 56)];

/// Where each section goes in a file of `slots` slots: (offset, count) in file order, and the end.
fn layout(tiles: u64, slots: u64, block_len: u64, pyramid_len: u64, tree_slot: u64) -> ([[u64; 2]; 6], u64) {
    let counts = [tiles, slots, slots, slots * block_len, slots * pyramid_len, slots * tree_slot];
    let mut at = aligned(HEADER_LEN as u64);
    let mut out = [[0; 2]; 6];
    for (k, &n) in counts.iter().enumerate() {
        out[k] = [at, n];
        at = aligned(at + n * SECTION_SIZES[k].1);
    }
    (out, at)
}

/// Checksum of a run of bytes (the polygon index's).
fn checksum(bytes: &[u8]) -> u64 {
    crate::preamble::checksum(bytes)
}

/// A used slot's part of the data checksum: its samples', pyramid's and tree's checksums (`samples`
/// and `tree` given as checksums) tagged by the slot, so slots may be summed in any order.
fn slot_sum(slot: u64, samples: u64, pyramid: &[u8], tree: u64) -> u64 {
    let tag = slot.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    landfall::support::mix(samples ^ tag ^ checksum(pyramid).rotate_left(17) ^ tree.rotate_left(41))
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

/// The data checksum: the tables (directory, records, tree index), the used slots' sum, then the
/// CRS section's bytes (if any).
fn data_sum(tables: [&[u8]; 3], slots_sum: u64, crs_bytes: &[u8]) -> u64 {
    let t = tables.iter().enumerate().fold(0u64, |a, (k, b)| a ^ checksum(b).rotate_left(7 * k as u32 + 3));
    let sum = landfall::support::mix(slots_sum ^ t);
    if crs_bytes.is_empty() {
        sum
    } else {
        landfall::support::mix(sum ^ checksum(crs_bytes).rotate_left(31))
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

/// True when the file is named `*.lfh` (so a truncated or damaged one is reported as an index) or
/// starts with the heightfield index's magic and kind.
pub fn is_heightfield_index(path: &Path) -> bool {
    crate::extension(path) == HEIGHTFIELD_INDEX_EXTENSION || FORMAT.is_file(path)
}
