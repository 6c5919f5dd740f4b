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
//! | 200..208 | data checksum (rows of samples, then nodes and mask) |
//! | 208..248 | reserved (0) |
//! | 248..256 | header checksum (bytes 0..248) |
//!
//! Writing streams the raster's rows (a GeoTIFF a band of tiles or a strip at a time) into the
//! samples section at their places — memory is one band of rows plus the pyramid's leaf ranges, never
//! the raster — then writes the pyramid and the header, syncs, and renames the file into place.
//! Opening checks the header (magic, version, checksum, lengths, every section inside the file and
//! aligned), then reads the samples once through a small buffer (not the map, so the process's
//! resident memory stays small): the checksum, that no sample is infinite, the NaN count, and the
//! pyramid recomputed from them must equal the stored one. A corrupt or hostile file is an error,
//! never a panic or undefined behaviour. Then the file is mapped and used in place.

use crate::input::open_regular;
use crate::load::LoadOptions;
use crate::raster::GeoRef;
use crate::{IoError, OutputFile};
use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3};
use landfall::flat::{Flat, StableBytes};
use landfall::heightfield::{HeightfieldParts, LeafRanges};
use landfall::{Diagonal, Frame, Heightfield};
use std::path::Path;
use std::sync::Arc;

const MAGIC: [u8; 8] = *b"LANDFALL";
const KIND: [u8; 4] = *b"HFLD";
/// Heightfield index version written and read.
pub const HEIGHTFIELD_INDEX_VERSION: u32 = 1;
/// The extension `landfall build` recognises for a heightfield index.
pub const HEIGHTFIELD_INDEX_EXTENSION: &str = "lfh";
const ALIGN: u64 = 64;

/// The fixed header of a heightfield index file.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Header {
    magic: [u8; 8],
    kind: [u8; 4],
    version: u32,
    header_len: u64,
    file_len: u64,
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
    reserved: [u64; 5],
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

/// What [`build_heightfield_index`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexReport {
    /// Samples, columns × rows.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// NaN samples.
    pub nodata: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Whether the raster was streamed (a GeoTIFF) or loaded whole (other formats).
    pub streamed: bool,
}

/// Writes the index of the raster at `src` to `out`: z = value · z_scale + z_offset, placement from
/// the options, else the file's, else origin (0, 0) and spacing 1 — exactly as [`load_heightfield`]
/// (crate::load_heightfield) would build it. A GeoTIFF is streamed (any size; memory is a band of
/// rows); other formats are read whole; a directory of GeoTIFF tiles on one grid (a national DEM's
/// 1° tiles) is streamed as one mosaic. `progress(rows done, rows)` is called as rows are written.
pub fn build_heightfield_index(
    src: &Path,
    out: &Path,
    opts: &LoadOptions,
    frame: Frame,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IndexReport, IoError> {
    if cfg!(target_endian = "big") {
        return Err(IoError::format(out, "index files are little-endian; this machine is not"));
    }
    if !(opts.z_scale.is_finite() && opts.z_offset.is_finite()) {
        return Err(IoError::field(src, "z-scale/z-offset", "must be finite numbers"));
    }
    if src.is_dir() {
        return build_mosaic(src, out, opts, frame, progress);
    }
    let ext = crate::extension(src);
    if ext != "tif" && ext != "tiff" {
        // Small formats: load whole, write the heightfield's parts.
        let loaded = crate::load_heightfield(src, opts)?;
        let mut hf = loaded.heightfield;
        hf.set_frame(frame);
        let (nx, ny) = (hf.nx(), hf.ny());
        let p = hf.to_parts();
        let mut w = Writer::start(out, nx, ny, p.leaf_size)?;
        for j in 0..ny {
            w.row(j, &p.heights[j * nx..(j + 1) * nx])?;
        }
        progress(ny as u64, ny as u64);
        let origin = p.origin.to_array();
        let spacing = p.spacing.to_array();
        let (bytes, nodata) = w.finish(origin, spacing, p.diagonal, p.frame)?;
        return Ok(IndexReport { nx, ny, nodata, bytes, streamed: false });
    }
    // GeoTIFF: its header, then its rows as they decode.
    let limits = &opts.limits;
    let mut o = crate::tif::open(src, limits, |w, h| {
        if w < 2 || h < 2 {
            return Err(IoError::format(src, format!("raster is {w}×{h}; a terrain needs at least 2×2 samples")));
        }
        if w.checked_mul(h).is_none_or(|n| n > u32::MAX as u64 / 2) {
            return Err(IoError::field(src, "ImageWidth × ImageLength", format!("{w} × {h}: at most 2³¹ samples")));
        }
        Ok(())
    })?;
    let (nx, ny, nodata) = (o.nx, o.ny, o.nodata);
    let geo = o.georef.unwrap_or(GeoRef { origin: (0.0, 0.0), spacing: (1.0, 1.0) });
    let (dx, dy) = opts.spacing.unwrap_or(geo.spacing);
    let (ox, oy) = opts.origin.unwrap_or(geo.origin);
    // The same checks a heightfield makes, before anything is written.
    Heightfield::builder(2, 2, vec![0.0; 4])
        .origin(ox, oy)
        .spacing(dx, dy)
        .leaf_size(opts.leaf_size)
        .build()
        .map_err(|error| IoError::Heightfield { path: src.to_owned(), error })?;
    let far = DVec2::new(ox, oy) + DVec2::new(dx, dy) * DVec2::new((nx - 1) as f64, (ny - 1) as f64);
    if !far.is_finite() {
        return Err(IoError::field(src, "origin/spacing", "the far corner is not finite"));
    }
    let mut w = Writer::start(out, nx, ny, opts.leaf_size)?;
    let mut heights = vec![0f32; nx];
    let mut done = 0u64;
    crate::tif::stream_rows(src, &mut o, |r, values| {
        let name = |k: usize| format!("pixel (row {r}, column {k})");
        for (k, (h, &v)) in heights.iter_mut().zip(values).enumerate() {
            let f = v as f32;
            *h = if v.is_nan() || nodata.is_some_and(|n| n == v || n as f32 == f) {
                f32::NAN
            } else if f.is_infinite() {
                return Err(IoError::field(src, name(k), format!("{v} is not a finite height")));
            } else {
                // As `load_heightfield`: the f32 sample, then the scale and offset in f64.
                (f as f64 * opts.z_scale + opts.z_offset) as f32
            };
            if h.is_infinite() {
                return Err(IoError::field(
                    src,
                    format!("sample (column {k}, row {} from the south)", ny - 1 - r),
                    "value overflows f32 after z-scale/z-offset",
                ));
            }
        }
        w.row(ny - 1 - r, &heights)?;
        done += 1;
        if done.is_multiple_of(256) || done == ny as u64 {
            progress(done, ny as u64);
        }
        Ok(())
    })?;
    let (bytes, nodata) = w.finish([ox, oy], [dx, dy], opts.diagonal, frame)?;
    Ok(IndexReport { nx, ny, nodata, bytes, streamed: true })
}

/// One GeoTIFF of a mosaic: where it goes in the whole grid, and its rows while they are read.
struct MosaicTile {
    path: std::path::PathBuf,
    opened: crate::tif::Opened,
    rows: Option<crate::tif::RowReader>,
    /// Column of its west column and row (from the south) of its south row in the whole grid.
    col: usize,
    row0: usize,
}

/// A directory of GeoTIFF tiles on one grid (same spacing, origins on the grid; they may share
/// edge rows and columns, and leave gaps, which become holes) as one heightfield index, streamed
/// row by row across the tiles: memory is one band of rows of the tiles in the current row.
fn build_mosaic(
    dir: &Path,
    out: &Path,
    opts: &LoadOptions,
    frame: Frame,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IndexReport, IoError> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| IoError::os(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(crate::extension(p).as_str(), "tif" | "tiff") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(IoError::format(dir, "no GeoTIFF tiles (.tif, .tiff) in the directory"));
    }
    let mut tiles = Vec::new();
    let mut grid: Option<(f64, f64)> = None;
    for path in &files {
        let o = crate::tif::open(path, &opts.limits, |w, h| {
            if w < 1 || h < 1 || w.checked_mul(h).is_none_or(|n| n > u32::MAX as u64 / 2) {
                return Err(IoError::field(path, "ImageWidth × ImageLength", format!("{w} × {h}")));
            }
            Ok(())
        })?;
        let geo =
            o.georef.ok_or_else(|| IoError::format(path, "no georeferencing: a mosaic needs every tile placed"))?;
        let (dx, dy) = *grid.get_or_insert(geo.spacing);
        let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        if !(same(geo.spacing.0, dx) && same(geo.spacing.1, dy)) {
            return Err(IoError::field(
                path,
                "pixel size",
                format!("{} × {}, the mosaic's first tile has {dx} × {dy}", geo.spacing.0, geo.spacing.1),
            ));
        }
        tiles.push((path.clone(), o, geo));
    }
    let (dx, dy) = grid.expect("at least one tile");
    let west = tiles.iter().map(|t| t.2.origin.0).fold(f64::INFINITY, f64::min);
    let south = tiles.iter().map(|t| t.2.origin.1).fold(f64::INFINITY, f64::min);
    let mut placed = Vec::new();
    let (mut nx, mut ny) = (0usize, 0usize);
    for (path, o, geo) in tiles {
        let (c, r) = ((geo.origin.0 - west) / dx, (geo.origin.1 - south) / dy);
        if (c - c.round()).abs() > 1e-6 || (r - r.round()).abs() > 1e-6 {
            return Err(IoError::field(
                &path,
                "origin",
                format!(
                    "({}, {}) is not on the mosaic's grid ({dx} × {dy} from ({west}, {south}))",
                    geo.origin.0, geo.origin.1
                ),
            ));
        }
        let (col, row0) = (c.round() as usize, r.round() as usize);
        nx = nx.max(col + o.nx);
        ny = ny.max(row0 + o.ny);
        placed.push(MosaicTile { path, opened: o, rows: None, col, row0 });
    }
    if nx < 2 || ny < 2 || nx.checked_mul(ny).is_none_or(|n| n > u32::MAX as usize / 2) {
        return Err(IoError::format(dir, format!("the mosaic is {nx} × {ny} samples (2 × 2 to 2³¹)")));
    }
    let (dx, dy) = opts.spacing.unwrap_or((dx, dy));
    let (ox, oy) = opts.origin.unwrap_or((west, south));
    let mut w = Writer::start(out, nx, ny, opts.leaf_size)?;
    let mut row = vec![f32::NAN; nx];
    for j in (0..ny).rev() {
        row.fill(f32::NAN);
        for t in placed.iter_mut().filter(|t| (t.row0..t.row0 + t.opened.ny).contains(&j)) {
            if t.rows.is_none() {
                t.rows = Some(crate::tif::RowReader::new(&t.path, &mut t.opened)?);
            }
            let reader = t.rows.as_mut().expect("just made");
            let values =
                reader.next_row(&mut t.opened)?.ok_or_else(|| IoError::format(&t.path, "fewer rows than declared"))?;
            let nodata = t.opened.nodata;
            for (k, &v) in values.iter().enumerate() {
                let f = v as f32;
                if v.is_nan() || nodata.is_some_and(|n| n == v || n as f32 == f) {
                    continue; // a hole here; a neighbour sharing the edge may fill it
                }
                if f.is_infinite() {
                    return Err(IoError::field(
                        &t.path,
                        format!("pixel (row {}, column {k})", t.row0 + t.opened.ny - 1 - j),
                        format!("{v} is not a finite height"),
                    ));
                }
                let h = (f as f64 * opts.z_scale + opts.z_offset) as f32;
                if h.is_infinite() {
                    return Err(IoError::field(
                        &t.path,
                        format!("column {k}"),
                        "value overflows f32 after z-scale/z-offset",
                    ));
                }
                row[t.col + k] = h;
            }
            if j == t.row0 {
                t.rows = None; // its last row: free its band
            }
        }
        w.row(j, &row)?;
        if j % 256 == 0 {
            progress((ny - j) as u64, ny as u64);
        }
    }
    progress(ny as u64, ny as u64);
    let (bytes, nodata) = w.finish([ox, oy], [dx, dy], opts.diagonal, frame)?;
    Ok(IndexReport { nx, ny, nodata, bytes, streamed: true })
}

/// Decodes a GeoTIFF row by row, a band of tiles or a strip at a time, calling `each(row, values)`
/// for every row in file order (row 0 north) — what `build_heightfield_index` reads, without the
/// writing (the decoder's own speed, for comparison). Returns (columns, rows).
pub fn stream_geotiff_rows(
    path: &Path,
    mut each: impl FnMut(usize, &[f64]) -> Result<(), IoError>,
) -> Result<(usize, usize), IoError> {
    let mut o = crate::tif::open(path, &crate::Limits::default(), |_, _| Ok(()))?;
    crate::tif::stream_rows(path, &mut o, &mut each)?;
    Ok((o.nx, o.ny))
}

/// The file being written: rows go to their places as they come, the pyramid's leaf ranges and the
/// checksum accumulate; the pyramid and the header go last.
struct Writer {
    out: OutputFile,
    nx: usize,
    ny: usize,
    leaf: usize,
    leaves: LeafRanges,
    rows_sum: u64,
    nodata: usize,
    rows_seen: usize,
}

impl Writer {
    fn start(path: &Path, nx: usize, ny: usize, leaf: usize) -> Result<Self, IoError> {
        let out = OutputFile::create(path)?;
        let leaves = LeafRanges::new(nx, ny, leaf);
        Ok(Self { out, nx, ny, leaf, leaves, rows_sum: 0, nodata: 0, rows_seen: 0 })
    }

    fn os(&self, e: std::io::Error) -> IoError {
        IoError::os(self.out.path(), e)
    }

    /// Row `j` (0 south) of the samples.
    fn row(&mut self, j: usize, row: &[f32]) -> Result<(), IoError> {
        let at = aligned(HEADER_LEN as u64) + (j * self.nx * 4) as u64;
        self.out.write_all_at(bytemuck::cast_slice(row), at).map_err(|e| self.os(e))?;
        self.rows_sum = self.rows_sum.wrapping_add(row_sum(j, row));
        self.nodata += row.iter().filter(|h| h.is_nan()).count();
        self.leaves.add_row(j, row);
        self.rows_seen += 1;
        Ok(())
    }

    /// Writes the pyramid and the header and puts the file in place; its length and NaN count.
    fn finish(
        mut self,
        origin: [f64; 2],
        spacing: [f64; 2],
        diagonal: Diagonal,
        frame: Frame,
    ) -> Result<(u64, usize), IoError> {
        if self.rows_seen != self.ny {
            return Err(IoError::format(self.out.path(), format!("{} rows of {} written", self.rows_seen, self.ny)));
        }
        let leaves = std::mem::replace(&mut self.leaves, LeafRanges::new(2, 2, 1));
        let (nodes, quantum, exact) = leaves.finish();
        let heights_at = aligned(HEADER_LEN as u64);
        let nodes_at = aligned(heights_at + (self.nx * self.ny * 4) as u64);
        let mask_at = aligned(nodes_at + (nodes.len() * 4) as u64);
        let file_len = mask_at;
        let node_bytes: &[u8] = bytemuck::cast_slice(&nodes);
        self.out.write_all_at(node_bytes, nodes_at).map_err(|e| self.os(e))?;
        // Pad to the full length (the mask is empty).
        if file_len > nodes_at + node_bytes.len() as u64 {
            let pad = vec![0u8; (file_len - nodes_at - node_bytes.len() as u64) as usize];
            self.out.write_all_at(&pad, nodes_at + node_bytes.len() as u64).map_err(|e| self.os(e))?;
        }
        let mut h = Header {
            magic: MAGIC,
            kind: KIND,
            version: HEIGHTFIELD_INDEX_VERSION,
            header_len: HEADER_LEN as u64,
            file_len,
            nx: self.nx as u64,
            ny: self.ny as u64,
            origin,
            spacing,
            gravity: frame.down().to_array(),
            diagonal: diagonal_code(diagonal),
            leaf: self.leaf as u64,
            quantum: [quantum.0, quantum.1],
            exact,
            nodata: self.nodata as u64,
            sections: [[heights_at, (self.nx * self.ny) as u64], [nodes_at, nodes.len() as u64], [mask_at, 0]],
            data_sum: data_sum(self.rows_sum, node_bytes),
            reserved: [0; 5],
            header_sum: 0,
        };
        h.header_sum = checksum(&bytemuck::bytes_of(&h)[..HEADER_LEN - 8]);
        let mut head = vec![0u8; heights_at as usize];
        head[..HEADER_LEN].copy_from_slice(bytemuck::bytes_of(&h));
        self.out.write_all_at(&head, 0).map_err(|e| self.os(e))?;
        let nodata = self.nodata;
        self.out.commit()?;
        Ok((file_len, nodata))
    }
}

/// The data checksum: the rows' sum, then the nodes.
fn data_sum(rows_sum: u64, node_bytes: &[u8]) -> u64 {
    landfall::rng::mix(rows_sum ^ checksum(node_bytes).rotate_left(17))
}

/// True when the file starts with the heightfield index's magic and kind.
pub fn is_heightfield_index(path: &Path) -> bool {
    let mut head = [0u8; 12];
    crate::input::open_regular(path).is_ok_and(|(mut f, _)| std::io::Read::read_exact(&mut f, &mut head).is_ok())
        && head[..8] == MAGIC
        && head[8..12] == KIND
}

/// A read-only map of an index file (see `index.rs`'s `Mapped`).
struct Mapped(memmap2::Mmap);

// SAFETY: a read-only private map keeps its address and length until dropped; index files are
// replaced by rename, never rewritten in place, so their pages do not change under the map.
unsafe impl StableBytes for Mapped {
    fn stable_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Opens a heightfield index: checks everything (see the module's documentation), then maps the
/// file and returns the heightfield using it in place.
pub fn open_heightfield_index(path: &Path) -> Result<Heightfield, IoError> {
    use std::io::Read;
    let (mut file, len) = open_regular(path)?;
    let bad = |field: &str, msg: String| IoError::field(path, field, msg);
    if len < HEADER_LEN as u64 {
        return Err(IoError::format(path, format!("truncated: {len} bytes, the header alone is {HEADER_LEN}")));
    }
    let mut head = [0u8; HEADER_LEN];
    file.read_exact(&mut head).map_err(|e| IoError::os(path, e))?;
    let h: Header = bytemuck::pod_read_unaligned(&head);
    if h.magic != MAGIC || h.kind != KIND {
        return Err(IoError::format(path, "not a landfall heightfield index file (bad magic)"));
    }
    if h.version != HEIGHTFIELD_INDEX_VERSION {
        return Err(bad(
            "version",
            format!(
                "{} (this landfall reads version {HEIGHTFIELD_INDEX_VERSION}); rebuild it with `landfall build`",
                h.version
            ),
        ));
    }
    if h.header_sum != checksum(&head[..HEADER_LEN - 8]) {
        return Err(bad("header checksum", "mismatch: the header is corrupt".into()));
    }
    if h.header_len != HEADER_LEN as u64 {
        return Err(bad("header length", format!("{} (expected {HEADER_LEN})", h.header_len)));
    }
    if h.file_len != len {
        return Err(bad("file length", format!("header says {} bytes, the file has {len}", h.file_len)));
    }
    let (nx, ny) = (h.nx, h.ny);
    if nx < 2 || ny < 2 || nx.checked_mul(ny).is_none_or(|n| n > u32::MAX as u64 / 2) {
        return Err(bad("nx/ny", format!("{nx} × {ny}")));
    }
    let (nx, ny) = (nx as usize, ny as usize);
    let diagonal = match h.diagonal {
        0 => Diagonal::Alternating,
        1 => Diagonal::SouthWestNorthEast,
        2 => Diagonal::SouthEastNorthWest,
        d => return Err(bad("diagonal", format!("unknown code {d}"))),
    };
    let frame = Frame::from_gravity(DVec3::from_array(h.gravity)).map_err(|e| bad("gravity", e.to_string()))?;
    let leaf = usize::try_from(h.leaf)
        .ok()
        .filter(|&l| (1..=1 << 24).contains(&l))
        .ok_or_else(|| bad("leaf size", h.leaf.to_string()))?;
    let [heights, nodes, mask] = h.sections;
    for (name, [at, count], size) in [("samples", heights, 4u64), ("pyramid", nodes, 4), ("hole mask", mask, 8)] {
        let end = count.checked_mul(size).and_then(|b| b.checked_add(at));
        if at % ALIGN != 0 || at < HEADER_LEN as u64 || end.is_none_or(|e| e > len) {
            return Err(bad(name, format!("section at byte {at} with {count} elements does not fit the file")));
        }
    }
    if heights[1] != (nx * ny) as u64 {
        return Err(bad("samples", format!("{} samples for {nx} × {ny}", heights[1])));
    }
    if mask[1] != 0 {
        return Err(bad("hole mask", "not supported in version 1".into()));
    }
    // Read the samples once through a buffer: checksum, finite, NaN count, pyramid.
    let mut leaves = LeafRanges::new(nx, ny, leaf);
    let (mut rows_sum, mut nan) = (0u64, 0u64);
    let rows_per_read = (8 << 20) / (nx * 4).max(1) + 1;
    let mut buf = vec![0f32; rows_per_read.min(ny) * nx];
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(heights[0])).map_err(|e| IoError::os(path, e))?;
    let mut j = 0;
    while j < ny {
        let rows = rows_per_read.min(ny - j);
        let chunk = &mut buf[..rows * nx];
        file.read_exact(bytemuck::cast_slice_mut(chunk)).map_err(|e| IoError::os(path, e))?;
        for (r, row) in chunk.chunks_exact(nx).enumerate() {
            if let Some(i) = row.iter().position(|v| v.is_infinite()) {
                return Err(bad("samples", format!("sample (column {i}, row {} from the south) is infinite", j + r)));
            }
            nan += row.iter().filter(|v| v.is_nan()).count() as u64;
            rows_sum = rows_sum.wrapping_add(row_sum(j + r, row));
            leaves.add_row(j + r, row);
        }
        j += rows;
    }
    let mut node_bytes = vec![0u8; (nodes[1] * 4) as usize];
    file.seek(SeekFrom::Start(nodes[0])).map_err(|e| IoError::os(path, e))?;
    file.read_exact(&mut node_bytes).map_err(|e| IoError::os(path, e))?;
    if h.data_sum != data_sum(rows_sum, &node_bytes) {
        return Err(bad("data checksum", "mismatch: the file is corrupt".into()));
    }
    if nan != h.nodata {
        return Err(bad("NaN samples", format!("header says {}, the samples have {nan}", h.nodata)));
    }
    let (want_nodes, quantum, exact) = leaves.finish();
    if bytemuck::cast_slice::<[u16; 2], u8>(&want_nodes) != &node_bytes[..]
        || quantum != (h.quantum[0], h.quantum[1])
        || exact.map(f32::to_bits) != h.exact.map(f32::to_bits)
    {
        return Err(bad("pyramid", "does not match the samples".into()));
    }
    // SAFETY: see `Mapped`.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| IoError::os(path, e))?;
    if map.len() as u64 != len {
        return Err(IoError::format(path, "changed while being opened"));
    }
    let owner: Arc<dyn StableBytes> = Arc::new(Mapped(map));
    let flat_err = |e: landfall::flat::FlatError| IoError::format(path, e.to_string());
    let parts = HeightfieldParts {
        nx,
        ny,
        origin: DVec2::from_array(h.origin),
        spacing: DVec2::from_array(h.spacing),
        diagonal,
        frame,
        heights: Flat::from_shared(owner.clone(), heights[0], heights[1]).map_err(flat_err)?,
        nodata: nan as usize,
        hole_mask: Flat::default(),
        leaf_size: leaf,
        nodes: Flat::from_shared(owner, nodes[0], nodes[1]).map_err(flat_err)?,
        quantum,
        exact,
    };
    Heightfield::from_parts(parts).map_err(|error| IoError::Heightfield { path: path.to_owned(), error })
}
