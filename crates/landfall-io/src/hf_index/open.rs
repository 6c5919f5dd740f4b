//! Opening an index: every check, then the map.

use super::{data_sum, decode_crs, row_sum, Header, ALIGN, FORMAT, HEADER_LEN, MAX_CRS_BYTES};
use crate::index::Mapped;
use crate::input::open_regular;
use crate::raster::GeoKeys;
use crate::IoError;
use glam::{DVec2, DVec3};
use landfall::flat::{Flat, StableBytes};
use landfall::heightfield::{HeightfieldParts, LeafRanges};
use landfall::{Diagonal, Frame, Heightfield};
use std::path::Path;
use std::sync::Arc;

/// Opens a heightfield index: checks everything (see the module's documentation), then maps the
/// file and returns the heightfield using it in place.
pub fn open_heightfield_index(path: &Path) -> Result<Heightfield, IoError> {
    open_heightfield_index_with_crs(path).map(|(hf, _)| hf)
}

/// [`open_heightfield_index`], and the coordinate reference system of the raster it was built
/// from (its GeoTIFF's GeoKeys), if it had one.
pub fn open_heightfield_index_with_crs(path: &Path) -> Result<(Heightfield, Option<GeoKeys>), IoError> {
    use std::io::Read;
    let (mut file, len) = open_regular(path)?;
    let bad = |field: &str, msg: String| IoError::field(path, field, msg);
    FORMAT.check_length(path, len)?;
    let mut head = [0u8; HEADER_LEN];
    file.read_exact(&mut head).map_err(|e| IoError::os(path, e))?;
    FORMAT.check(path, &head, len)?;
    let h: Header = bytemuck::pod_read_unaligned(&head);
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
    let mut crs_bytes = vec![0u8; if has_crs { crs_len as usize } else { 0 }];
    if has_crs {
        file.seek(SeekFrom::Start(crs_at)).map_err(|e| IoError::os(path, e))?;
        file.read_exact(&mut crs_bytes).map_err(|e| IoError::os(path, e))?;
    }
    if h.data_sum != data_sum(rows_sum, &node_bytes, &crs_bytes) {
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
    let crs =
        if has_crs { Some(decode_crs(&crs_bytes, [dirs, doubles, ascii]).map_err(|e| bad("CRS", e))?) } else { None };
    let hf = Heightfield::from_parts(parts).map_err(|error| IoError::Heightfield { path: path.to_owned(), error })?;
    Ok((hf, crs))
}
