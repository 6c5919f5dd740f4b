//! Opening an index: every check first (see the module's documentation), then the map.

use super::{
    checksum, data_sum, decode_crs, slot_sum, Header, ALIGN, DIRECTORY, FORMAT, HEADER_LEN, MAX_CRS_BYTES,
    MAX_INDEX_LEAF, PYRAMID, RECORDS, SAMPLES, SECTION_SIZES, TREES, TREE_INDEX,
};
use crate::input::open_regular;
use crate::mapped::Mapped;
use crate::raster::GeoKeys;
use crate::IoError;
use glam::{DVec2, DVec3};
use landfall::collide::{TileNode, TileTrees, TileViewParams};
use landfall::support::{Flat, StableBytes};
use landfall::support::{HeightfieldParts, Pyramid, TileParts, Tiling, MAX_SAMPLES, MAX_SIDE};
use landfall::{Diagonal, Frame, Heightfield};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// An opened heightfield index: the heightfield (its samples and pyramid in the map), the CRS of
/// the raster it was built from, and its tiles' stored sphere trees (for
/// [`TileView::with_trees`](landfall::collide::TileView::with_trees)).
pub struct OpenedIndex {
    /// The heightfield.
    pub heightfield: Heightfield,
    /// The input GeoTIFF's GeoKeys, if it had them.
    pub crs: Option<GeoKeys>,
    /// The tiles' sphere trees.
    pub trees: TileTrees,
}

/// Opens a heightfield index: checks everything (see the module's documentation), then maps the
/// file and returns the heightfield using it in place.
pub fn open_heightfield_index(path: &Path) -> Result<Heightfield, IoError> {
    open_heightfield_index_with_trees(path).map(|o| o.heightfield)
}

/// [`open_heightfield_index`], and the coordinate reference system of the raster it was built
/// from (its GeoTIFF's GeoKeys), if it had one.
pub fn open_heightfield_index_with_crs(path: &Path) -> Result<(Heightfield, Option<GeoKeys>), IoError> {
    open_heightfield_index_with_trees(path).map(|o| (o.heightfield, o.crs))
}

/// [`open_heightfield_index`] with everything the file holds: the CRS and the tiles' trees.
pub fn open_heightfield_index_with_trees(path: &Path) -> Result<OpenedIndex, IoError> {
    let (mut file, len) = open_regular(path)?;
    let bad = |field: &str, msg: String| IoError::field(path, field, msg);
    // A version-1 file (rows, a 256-byte header) is refused by its version, whatever its length.
    let mut head = [0u8; HEADER_LEN];
    let got = read_up_to(&mut file, &mut head).map_err(|e| IoError::os(path, e))?;
    FORMAT.check_preamble(path, &head[..got])?;
    FORMAT.check_length(path, len)?;
    FORMAT.check(path, &head, len)?;
    let h: Header = bytemuck::pod_read_unaligned(&head);
    let (nx, ny) = (h.nx, h.ny);
    if nx < 2 || ny < 2 || nx > MAX_SIDE as u64 || ny > MAX_SIDE as u64 || nx * ny > MAX_SAMPLES {
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
        .filter(|l| (1..=MAX_INDEX_LEAF).contains(l))
        .ok_or_else(|| bad("leaf size", h.leaf.to_string()))?;
    let tiling = Tiling::new(nx, ny, leaf);
    if h.tile_cells != tiling.cells as u64 {
        return Err(bad("tile cells", format!("{} (the grid and leaf size make {})", h.tile_cells, tiling.cells)));
    }
    let params = TileViewParams::default().with_tile_cells(tiling.cells);
    let want = [params.tile_cells as u64, params.leaf_cells as u64, params.max_levels as u64];
    if h.tree_params != want {
        return Err(bad("tree parameters", format!("{:?} (this landfall builds {want:?})", h.tree_params)));
    }
    let slots = h.slots;
    if slots == 0 || slots > tiling.count() as u64 + 1 || h.tree_slot > 1 << 24 {
        return Err(bad("slots", format!("{slots} slots of {} tree nodes for {} tiles", h.tree_slot, tiling.count())));
    }
    let counts = [
        tiling.count() as u64,
        slots,
        slots,
        slots * tiling.block_len() as u64,
        slots * tiling.pyramid_len(leaf) as u64,
        slots * h.tree_slot,
    ];
    for (k, ([at, count], (name, size))) in h.sections.iter().zip(SECTION_SIZES).enumerate() {
        let end = count.checked_mul(size).and_then(|b| b.checked_add(*at));
        if at % ALIGN != 0 || *at < HEADER_LEN as u64 || end.is_none_or(|e| e > len) || *count != counts[k] {
            return Err(bad(name, format!("section at byte {at} with {count} elements does not fit the file")));
        }
    }
    // The CRS section: all zero, or inside the file with lengths that add up (and small).
    let [crs_at, crs_len, dirs, doubles, ascii] = h.crs;
    let has_crs = h.crs != [0; 5];
    if has_crs {
        let parts =
            dirs.checked_mul(2).zip(doubles.checked_mul(8)).and_then(|(a, b)| a.checked_add(b)?.checked_add(ascii));
        let end = crs_at.checked_add(crs_len);
        if crs_at % ALIGN != 0
            || crs_at < HEADER_LEN as u64
            || crs_len > MAX_CRS_BYTES
            || end.is_none_or(|e| e > len)
            || parts != Some(crs_len)
        {
            return Err(bad(
                "CRS",
                format!("section at byte {crs_at} of {crs_len} bytes does not fit the file or its counts"),
            ));
        }
    }
    // Read what is checked through small buffers, not the map (the process's resident memory stays
    // small): the tables, then every used slot.
    let read = |file: &std::fs::File, at: u64, buf: &mut [u8]| -> Result<(), IoError> {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, at).map_err(|e| IoError::os(path, e))
    };
    let table = |k: usize| -> Result<Vec<u8>, IoError> {
        let [at, count] = h.sections[k];
        let mut b = vec![0u8; (count * SECTION_SIZES[k].1) as usize];
        read(&file, at, &mut b)?;
        Ok(b)
    };
    let (dir_bytes, rec_bytes, tidx_bytes) = (table(DIRECTORY)?, table(RECORDS)?, table(TREE_INDEX)?);
    let directory: Vec<u32> = bytemuck::pod_collect_to_vec(&dir_bytes);
    let records: Vec<[u64; 2]> = bytemuck::pod_collect_to_vec(&rec_bytes);
    let tree_index: Vec<[u64; 2]> = bytemuck::pod_collect_to_vec(&tidx_bytes);
    let mut used = vec![usize::MAX; slots as usize];
    used[0] = 0;
    for (k, &s) in directory.iter().enumerate() {
        match used.get_mut(s as usize) {
            None => return Err(bad("directory", format!("tile {k} names slot {s} of {slots}"))),
            Some(u) if s != 0 && *u != usize::MAX => {
                return Err(bad("directory", format!("tiles {} and {k} share slot {s}", *u)))
            }
            Some(u) if s != 0 => *u = k,
            Some(_) => {}
        }
    }
    let quantum = (h.quantum[0], h.quantum[1]);
    if quantum != Pyramid::quantum_for(h.exact) {
        return Err(bad("pyramid", format!("quantisation {quantum:?} is not that of the range {:?}", h.exact)));
    }
    let (block_len, per_block) = (tiling.block_len(), tiling.pyramid_len(leaf));
    let node_size = std::mem::size_of::<TileNode>() as u64;
    let (mut block, mut nodes) = (vec![0f32; block_len], vec![[0u16; 2]; per_block]);
    let (mut slots_sum, mut valid, mut exact) = (0u64, 0u64, [f32::INFINITY, f32::NEG_INFINITY]);
    for (slot, &key) in used.iter().enumerate().filter(|(_, &k)| k != usize::MAX) {
        let name = format!("slot {slot}");
        read(&file, h.sections[SAMPLES][0] + (slot * block_len * 4) as u64, bytemuck::cast_slice_mut(&mut block))?;
        read(&file, h.sections[PYRAMID][0] + (slot * per_block * 4) as u64, bytemuck::cast_slice_mut(&mut nodes))?;
        let [first, count] = tree_index[slot];
        if first != slot as u64 * h.tree_slot || count > h.tree_slot {
            return Err(bad(&name, format!("tree of {count} nodes at node {first}")));
        }
        let mut tree = vec![0u8; (count * node_size) as usize];
        read(&file, h.sections[TREES][0] + first * node_size, &mut tree)?;
        let tree_nodes: Vec<TileNode> = bytemuck::pod_collect_to_vec(&tree);
        TileTrees::check_tree(&tree_nodes).map_err(|e| bad(&name, format!("tree: {e}")))?;
        let samples_sum = checksum(bytemuck::cast_slice(&block));
        if samples_sum != records[slot][1] {
            return Err(bad(&name, "samples checksum mismatch: the file is corrupt".into()));
        }
        if let Some(k) = block.iter().position(|v| v.is_infinite()) {
            return Err(bad(&name, format!("sample {k} of its block is infinite")));
        }
        let (tx, ty) = (key % tiling.ntx, key / tiling.ntx);
        let c = tiling.tile_cells(tx, ty, nx - 1, ny - 1);
        let (side, t) = (tiling.side(), tiling.cells);
        let own_w = if tx + 1 == tiling.ntx { nx - tx * t } else { t };
        let own_h = if ty + 1 == tiling.nty { ny - ty * t } else { t };
        let mut own = 0u64;
        for (k, &v) in block.iter().enumerate() {
            let (r, col) = (k / side, k % side);
            let inside = r < side && (slot != 0 && tx * t + col < nx && ty * t + r < ny);
            if !v.is_nan() && !inside {
                return Err(bad(
                    &name,
                    format!("sample {k} of its block lies outside the grid (or slot 0) but is not NaN"),
                ));
            }
            if !v.is_nan() {
                exact = [exact[0].min(v), exact[1].max(v)];
                own += u64::from(r < own_h && col < own_w);
            }
        }
        if own != records[slot][0] {
            return Err(bad(&name, format!("record says {} valid samples, the block has {own}", records[slot][0])));
        }
        valid += own;
        let cells = if slot == 0 { [0, 0] } else { [c[2] - c[0], c[3] - c[1]] };
        if Pyramid::tile_nodes(&block, tiling, cells, leaf, quantum) != nodes {
            return Err(bad(&name, "pyramid does not match the samples".into()));
        }
        slots_sum =
            slots_sum.wrapping_add(slot_sum(slot as u64, samples_sum, bytemuck::cast_slice(&nodes), checksum(&tree)));
    }
    if tree_index.iter().enumerate().any(|(s, &[_, count])| used[s] == usize::MAX && count != 0) {
        return Err(bad("tree index", "a slot no tile uses has a tree".into()));
    }
    let mut crs_bytes = vec![0u8; if has_crs { crs_len as usize } else { 0 }];
    if has_crs {
        read(&file, crs_at, &mut crs_bytes)?;
    }
    if h.data_sum != data_sum([&dir_bytes, &rec_bytes, &tidx_bytes], slots_sum, &crs_bytes) {
        return Err(bad("data checksum", "mismatch: the file is corrupt".into()));
    }
    if nx as u64 * ny as u64 - valid != h.nodata {
        return Err(bad(
            "NaN samples",
            format!("header says {}, the samples have {}", h.nodata, nx as u64 * ny as u64 - valid),
        ));
    }
    if exact.map(f32::to_bits) != h.exact.map(f32::to_bits) {
        return Err(bad("pyramid", format!("range {:?} is not the samples' {exact:?}", h.exact)));
    }
    // SAFETY: see `index::Mapped`: the map is read-only and the file is not modified in place.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| IoError::os(path, e))?;
    if map.len() as u64 != len {
        return Err(IoError::format(path, "changed while being opened"));
    }
    let owner: Arc<dyn StableBytes> = Arc::new(Mapped::new(map, &file, path));
    // Huge pages where the kernel can map the file's page cache with them: fewer TLB misses for
    // queries spread over a large raster (measured: `docs/benchmarks.md`, terrains larger than
    // memory).
    owner.huge_pages(true);
    let flat_err = |e: landfall::support::FlatError| IoError::format(path, e.to_string());
    let section = |k: usize| (h.sections[k][0], h.sections[k][1]);
    let (dir_at, dir_n) = section(DIRECTORY);
    let (s_at, s_n) = section(SAMPLES);
    let (p_at, p_n) = section(PYRAMID);
    let (t_at, t_n) = section(TREES);
    let (i_at, i_n) = section(TREE_INDEX);
    let tile_nodes: Flat<[u16; 2]> = Flat::from_shared(owner.clone(), p_at, p_n).map_err(flat_err)?;
    let tiles = TileParts {
        tiling,
        directory: Flat::from_shared(owner.clone(), dir_at, dir_n).map_err(flat_err)?,
        nodes: tile_nodes.clone(),
    };
    let parts = HeightfieldParts {
        nx,
        ny,
        origin: DVec2::from_array(h.origin),
        spacing: DVec2::from_array(h.spacing),
        diagonal,
        frame,
        heights: Flat::from_shared(owner.clone(), s_at, s_n).map_err(flat_err)?,
        nodata: h.nodata as usize,
        hole_mask: Flat::default(),
        leaf_size: leaf,
        nodes: Flat::default(),
        quantum,
        exact,
        tiles: Some(tiles),
    };
    let tree_nodes: Flat<TileNode> = Flat::from_shared(owner.clone(), t_at, t_n).map_err(flat_err)?;
    let trees =
        TileTrees::with_checked_trees(params, tree_nodes, Flat::from_shared(owner, i_at, i_n).map_err(flat_err)?)
            .map_err(|e| bad("trees", e))?;
    let crs =
        if has_crs { Some(decode_crs(&crs_bytes, [dirs, doubles, ascii]).map_err(|e| bad("CRS", e))?) } else { None };
    let heightfield =
        Heightfield::from_parts(parts).map_err(|error| IoError::Heightfield { path: path.to_owned(), error })?;
    // The pyramid's upper levels were computed from every tile's nodes, read through the map (in
    // huge pages where the kernel maps them so): let go of those pages too, or one query on a large
    // index would start with most of its pyramid resident.
    tile_nodes.release(0..usize::MAX);
    Ok(OpenedIndex { heightfield, crs, trees })
}

/// Reads as much of `buf` as the file has; the count.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
