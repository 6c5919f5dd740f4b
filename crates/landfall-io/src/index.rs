//! The polygon terrain index file: a built QOTA quadtree that loads by memory-mapping, zero-copy.
//!
//! Layout (version 5, little-endian): a 344-byte header, then seven sections, each starting on a
//! 64-byte boundary, holding the terrain's flat arrays exactly as they are in memory (faces, face
//! geometry, vertices, edge equations of the faces of more than three vertices, quadtree nodes,
//! leaf references, quick face records).
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `LANDFALL` |
//! | 8..12 | kind `QOTA` |
//! | 12..16 | version (5) |
//! | 16..24, 24..32 | header length (344), file length |
//! | 32..56 | gravity (unit, 3 × f64) |
//! | 56..128 | rotation R (3 × 3 f64, column-major) |
//! | 128..152 | local origin (3 × f64) |
//! | 152..184 | root rectangle (4 × f64) |
//! | 184..200 | max_polys, max_depth, cut rule, input polygon count (4 × u32) |
//! | 200..208, 208..216 | min_gain, edge slack (f64) |
//! | 216..328 | sections: (byte offset, element count) × 7 |
//! | 328..336 | data checksum (every byte after the header) |
//! | 336..344 | header checksum (bytes 0..336) |
//!
//! [`open_index`] checks, in O(1), the magic, version, lengths, the header checksum and that every
//! section lies inside the file and is aligned; the arrays are then used in place, and every query
//! bounds-checks the indices it follows and bounds its walks, so even a hostile file gives wrong
//! answers at worst — never undefined behaviour, a panic or a hang. That is how a million-polygon
//! index loads in milliseconds. [`open_index_verified`] (what the CLI uses) also checks the data
//! checksum and every stored index (faces → vertices, nodes → children and references, references →
//! faces) and re-derives every quick face record from its face record, so a corrupt or hostile file
//! is an error. Like the geometry itself, a leaf's
//! single-layer mark is covered by the checksum but not re-derived: a file crafted to mark a leaf
//! whose faces overlap gives wrong answers there, never undefined behaviour. Edits run the full
//! check first. Writing goes to a temporary file in the same directory, then renames it over the
//! target: a crash leaves the old file or the new one, never half of one.

use crate::preamble::{checksum, Format, Preamble};
use crate::IoError;
use bytemuck::{Pod, Zeroable};
use glam::{DMat3, DVec3};
use landfall::support::StableBytes;
use landfall::support::{Header, SECTIONS};
use landfall::QuadtreeParams;
use landfall::{CutRule, Frame, PolygonTerrain};
use std::path::Path;
use std::sync::Arc;

/// Index file format version written and read. Version 2 marks single-layer leaves (bit 31 of a
/// leaf's count) and keeps each face's source polygon in its face
/// record; version 3 keeps a triangle's edge equations in its face record only (the edge array
/// holds those of larger faces, from the record's `more_edges`); version 4 adds the quick face
/// records that vertical queries read first; version 5 stores their
/// edge coefficients by kind (A, B, C) instead of by edge. An older file is
/// refused with a request to rebuild it (`landfall build`).
pub const INDEX_VERSION: u32 = 5;
/// The format's preamble and the checks of it.
const FORMAT: Format = Format { kind: *b"QOTA", version: INDEX_VERSION, header_len: HEADER_LEN, name: "polygon index" };
const ALIGN: u64 = 64;

/// The fixed header of an index file.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RawHeader {
    preamble: Preamble,
    gravity: [f64; 3],
    rotation: [f64; 9],
    center: [f64; 3],
    root: [f64; 4],
    max_polys: u32,
    max_depth: u32,
    cuts: u32,
    polygons: u32,
    min_gain: f64,
    slack: f64,
    /// (byte offset, element count) of faces, geoms, verts, edges, nodes, refs, quick faces.
    sections: [[u64; 2]; SECTIONS],
    data_sum: u64,
    header_sum: u64,
}

const HEADER_LEN: usize = std::mem::size_of::<RawHeader>();
const _: () = assert!(HEADER_LEN == 344);

fn cut_code(c: CutRule) -> u32 {
    match c {
        CutRule::Halves => 0,
        CutRule::Vertices => 1,
    }
}

/// Writes `terrain`'s index to `path` (crash-safe: temporary file, then rename).
pub fn write_index(terrain: &PolygonTerrain, path: &Path) -> Result<(), IoError> {
    if cfg!(target_endian = "big") {
        return Err(IoError::format(path, "index files are little-endian; this machine is not"));
    }
    let h = terrain.header();
    let raw = terrain.raw_sections();
    let parts: [&[u8]; SECTIONS] = raw.map(|(bytes, _)| bytes);
    let counts: [usize; SECTIONS] = raw.map(|(_, n)| n);
    let mut sections = [[0u64; 2]; SECTIONS];
    let mut at = (HEADER_LEN as u64).next_multiple_of(ALIGN);
    for k in 0..SECTIONS {
        sections[k] = [at, counts[k] as u64];
        at = (at + parts[k].len() as u64).next_multiple_of(ALIGN);
    }
    let file_len = at;
    // Body: the sections with zero padding, exactly as the file holds them after the header.
    let mut body = vec![0u8; (file_len - HEADER_LEN as u64) as usize];
    for k in 0..SECTIONS {
        let off = sections[k][0] as usize - HEADER_LEN;
        body[off..off + parts[k].len()].copy_from_slice(parts[k]);
    }
    let mut raw = RawHeader {
        preamble: FORMAT.preamble(file_len),
        gravity: h.frame.down().to_array(),
        rotation: h.frame.rotation().to_cols_array(),
        center: h.center.to_array(),
        root: h.root,
        max_polys: h.params.max_polys.min(u32::MAX as usize) as u32,
        max_depth: h.params.max_depth as u32,
        cuts: cut_code(h.params.cuts),
        polygons: h.polygons,
        min_gain: h.params.min_gain,
        slack: h.slack,
        sections,
        data_sum: checksum(&body),
        header_sum: 0,
    };
    raw.header_sum = checksum(&bytemuck::bytes_of(&raw)[..HEADER_LEN - 8]);
    crate::write_atomic(path, &[bytemuck::bytes_of(&raw), &body])
}

pub(crate) use crate::mapped::Mapped;

/// True when the file starts with the index magic.
pub fn is_index(path: &Path) -> bool {
    if crate::extension(path) == INDEX_EXTENSION {
        return true;
    }
    FORMAT.is_file(path)
}

/// The extension of index files (`landfall build` writes any name; a file with this extension is
/// always read as an index, so a truncated one is reported as such).
pub const INDEX_EXTENSION: &str = "lfq";

/// Loads an index file by memory-mapping it: no copy, no rebuild, O(1) checks (see the module
/// docs; [`open_index_verified`] checks everything).
pub fn open_index(path: &Path) -> Result<PolygonTerrain, IoError> {
    open(path, false)
}

/// [`open_index`], and also checks the data checksum and every stored index (reads the whole file
/// once): a corrupt or hostile file is an error.
pub fn open_index_verified(path: &Path) -> Result<PolygonTerrain, IoError> {
    open(path, true)
}

fn open(path: &Path, verify_data: bool) -> Result<PolygonTerrain, IoError> {
    let (file, _) = crate::input::open_regular(path)?;
    // SAFETY: see `Mapped`: the map is read-only and the file is not modified in place.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| IoError::os(path, e))?;
    let bad = |field: &str, msg: String| IoError::field(path, field, msg);
    FORMAT.check_length(path, map.len() as u64)?;
    FORMAT.check(path, &map[..HEADER_LEN], map.len() as u64)?;
    let raw: RawHeader = bytemuck::pod_read_unaligned(&map[..HEADER_LEN]);
    if verify_data && raw.data_sum != checksum(&map[HEADER_LEN..]) {
        return Err(bad("data checksum", "mismatch: the file is corrupt".into()));
    }
    let cuts = match raw.cuts {
        0 => CutRule::Halves,
        1 => CutRule::Vertices,
        c => return Err(bad("cut rule", format!("unknown code {c}"))),
    };
    let frame = Frame::from_rotation(DVec3::from_array(raw.gravity), DMat3::from_cols_array(&raw.rotation))
        .map_err(|e| bad("gravity", e.to_string()))?;
    let center = DVec3::from_array(raw.center);
    if !center.is_finite()
        || !raw.root.iter().all(|v| v.is_finite())
        || !raw.min_gain.is_finite()
        || !raw.slack.is_finite()
    {
        return Err(bad("local origin / root", "not finite".into()));
    }
    let params = QuadtreeParams::default()
        .with_max_polys(raw.max_polys as usize)
        .with_max_depth(raw.max_depth as usize)
        .with_cuts(cuts)
        .with_min_gain(raw.min_gain);
    let header = Header { frame, center, root: raw.root, params, polygons: raw.polygons, slack: raw.slack };
    let owner: Arc<dyn StableBytes> = Arc::new(Mapped::new(map, &file, path));
    let built = PolygonTerrain::from_raw_sections(header, owner, raw.sections, verify_data);
    built.map_err(|e| IoError::format(path, e.to_string()))
}
