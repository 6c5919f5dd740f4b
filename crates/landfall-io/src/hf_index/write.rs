//! The file being written: samples put row by row into the blocks of the band of tiles they belong
//! to; a finished tile written to its slot with its tree; then the pyramid levels of every stored
//! block (a second pass, once the grid's height range is known), the tables and the header.

use super::{
    aligned, checksum, data_sum, diagonal_code, encode_crs, layout, slot_sum, Header, DIRECTORY, FORMAT, HEADER_LEN,
    PYRAMID, RECORDS, SAMPLES, TREES, TREE_INDEX,
};
use crate::raster::GeoKeys;
use crate::{IoError, OutputFile};
use glam::DVec2;
use landfall::collide::{tile_tree, tile_tree_into, TileNode, TileSamples, TileViewParams};
use landfall::support::{Pyramid, Tiling};
use landfall::{Diagonal, Frame};
use rayon::prelude::*;
use std::collections::btree_map::{BTreeMap, Entry};
use std::path::Path;

/// A grid's size, pyramid leaf and place.
#[derive(Clone, Copy, Debug)]
pub(super) struct Grid {
    pub nx: usize,
    pub ny: usize,
    pub leaf: usize,
    pub origin: DVec2,
    pub spacing: DVec2,
}

/// A sample put twice with two different values (overlapping tiles of a mosaic).
#[derive(Clone, Copy, Debug)]
pub(super) struct Conflict {
    /// Column and row (from the south) of the sample.
    pub i: usize,
    pub j: usize,
    /// The value it had and the one put.
    pub old: f32,
    pub new: f32,
}

/// The file being written.
pub(super) struct Writer {
    out: OutputFile,
    grid: Grid,
    tiling: Tiling,
    params: TileViewParams,
    /// The tiles the input covers, sorted: tile `covered[s − 1]` may store a block in slot `s`.
    covered: Vec<u64>,
    sections: [[u64; 2]; 6],
    file_len: u64,
    tree_slot: u64,
    /// Blocks of the tiles being filled, by tile (`ty · ntx + tx`).
    live: BTreeMap<usize, Vec<f32>>,
    /// Blocks written, their room kept for the next tiles.
    spare: Vec<Vec<f32>>,
    /// The trees of a chunk of tiles being stored, their room kept from chunk to chunk.
    trees: Vec<Vec<TileNode>>,
    /// The lowest row put so far (rows come north to south).
    lowest: usize,
    directory: Vec<u32>,
    /// Per slot: [valid samples of its own, samples checksum]; [first node, node count] of its tree.
    records: Vec<[u64; 2]>,
    tree_index: Vec<[u64; 2]>,
    /// Per slot: checksum of its tree's bytes (for the data checksum).
    tree_sums: Vec<u64>,
    exact: [f32; 2],
    valid: u64,
}

impl Writer {
    /// Starts `path` for `grid`, with a slot for each tile of `covered` (tile indices, any order).
    pub(super) fn start(path: &Path, grid: Grid, mut covered: Vec<u64>) -> Result<Self, IoError> {
        covered.sort_unstable();
        covered.dedup();
        let tiling = Tiling::new(grid.nx, grid.ny, grid.leaf);
        let params = TileViewParams::default().with_tile_cells(tiling.cells);
        // The largest tree: a tile's whole, without holes.
        let full = vec![0f32; tiling.side() * tiling.side()];
        let n = tiling.side();
        let probe =
            TileSamples { block: &full, tiling, key: (0, 0), nx: n, ny: n, origin: DVec2::ZERO, spacing: DVec2::ONE };
        let bad_params = |e: landfall::ParamError| IoError::format(path, format!("tile trees: {e}"));
        let tree_slot = tile_tree(&probe, &params).map_err(bad_params)?.len() as u64;
        let slots = covered.len() as u64 + 1;
        let (sections, file_len) = layout(
            tiling.count() as u64,
            slots,
            tiling.block_len() as u64,
            tiling.pyramid_len(grid.leaf) as u64,
            tree_slot,
        );
        let out = OutputFile::create(path)?;
        let records = vec![[0; 2]; slots as usize];
        Ok(Self {
            out,
            directory: vec![0; tiling.count()],
            lowest: grid.ny,
            grid,
            tiling,
            params,
            covered,
            sections,
            file_len,
            tree_slot,
            live: BTreeMap::new(),
            spare: Vec::new(),
            trees: Vec::new(),
            tree_index: records.clone(),
            tree_sums: vec![checksum(&[]); slots as usize],
            records,
            exact: [f32::INFINITY, f32::NEG_INFINITY],
            valid: 0,
        })
    }

    fn os(&self, e: std::io::Error) -> IoError {
        IoError::os(self.out.path(), e)
    }

    /// Puts samples `i0 .. i0 + values.len()` of row `j` (0 south; NaN for none). Rows come north
    /// to south (non-increasing `j`); a row may be put in pieces, and rows without data skipped.
    /// A sample already put with another valid value is a [`Conflict`] (nothing is put then).
    pub(super) fn put(&mut self, j: usize, i0: usize, values: &[f32]) -> Result<Option<Conflict>, IoError> {
        self.put_with(j, i0, values, |row, part| {
            if let Some(k) =
                (0..row.len()).find(|&k| !row[k].is_nan() && !part[k].is_nan() && row[k].to_bits() != part[k].to_bits())
            {
                return Some(k);
            }
            for (o, &v) in row.iter_mut().zip(part) {
                if !v.is_nan() {
                    *o = v;
                }
            }
            None
        })
    }

    /// [`put`](Self::put) of a whole row `j` of an input that puts each sample once (a raster, its
    /// holes `f32::NAN`): copied as it is, nothing to check against.
    pub(super) fn put_row(&mut self, j: usize, values: &[f32]) -> Result<(), IoError> {
        self.put_with(j, 0, values, |row, part| {
            row.copy_from_slice(part);
            None
        })
        .map(|_| ())
    }

    /// Puts `values` (samples `i0..` of row `j`) into the blocks holding them: `merge(block's row,
    /// part)` for each, which returns the index of a conflicting sample, if any.
    fn put_with(
        &mut self,
        j: usize,
        i0: usize,
        values: &[f32],
        mut merge: impl FnMut(&mut [f32], &[f32]) -> Option<usize>,
    ) -> Result<Option<Conflict>, IoError> {
        if values.is_empty() {
            return Ok(None);
        }
        if j > self.lowest || i0 + values.len() > self.grid.nx {
            return Err(IoError::format(self.out.path(), format!("row {j} put out of order or out of the grid")));
        }
        if j < self.lowest {
            self.lowest = j;
            self.flush_above(j)?;
        }
        let (t, side, ntx) = (self.tiling.cells, self.tiling.side(), self.tiling.ntx);
        let i1 = i0 + values.len();
        // The tiles holding this row: the one it starts (or is inside), and the one it ends.
        for ty in [j / t, (j / t).wrapping_sub(1)] {
            if ty >= self.tiling.nty || j > ty * t + t {
                continue;
            }
            let r = j - ty * t;
            for tx in (i0.saturating_sub(1) / t)..=((i1 - 1) / t).min(ntx - 1) {
                let (a, b) = (i0.max(tx * t), i1.min(tx * t + side));
                if a >= b {
                    continue;
                }
                let part = &values[a - i0..b - i0];
                let key = ty * ntx + tx;
                let block = match self.live.entry(key) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(_) if part.iter().all(|v| v.is_nan()) => continue,
                    Entry::Vacant(e) => e.insert(match self.spare.pop() {
                        Some(mut block) => {
                            block.fill(f32::NAN);
                            block
                        }
                        None => vec![f32::NAN; self.tiling.block_len()],
                    }),
                };
                let row = &mut block[r * side + (a - tx * t)..][..b - a];
                if let Some(k) = merge(row, part) {
                    return Ok(Some(Conflict { i: a + k, j, old: row[k], new: part[k] }));
                }
            }
        }
        Ok(None)
    }

    /// Writes the tiles whose rows all lie above row `j` (all of them for `j` = 0 past the end).
    fn flush_above(&mut self, j: usize) -> Result<(), IoError> {
        let t = self.tiling.cells;
        let done: Vec<usize> = self.live.keys().copied().filter(|k| (k / self.tiling.ntx) * t > j).collect();
        let blocks: Vec<(usize, Vec<f32>)> =
            done.into_iter().map(|k| (k, self.live.remove(&k).expect("listed"))).collect();
        self.store(blocks)
    }

    /// Writes the blocks of tiles `(key, block)` in their slots with their trees (built in parallel,
    /// 64 at a time: their trees are held until written); the blocks' room is kept for the next.
    fn store(&mut self, blocks: Vec<(usize, Vec<f32>)>) -> Result<(), IoError> {
        for chunk in blocks.chunks(64) {
            self.store_chunk(chunk)?;
        }
        self.spare.extend(blocks.into_iter().map(|(_, block)| block));
        Ok(())
    }

    /// [`store`](Self::store) for one chunk: each tile's tree, its valid samples, its range and its
    /// checksums made in parallel, then the blocks and trees written in order.
    fn store_chunk(&mut self, blocks: &[(usize, Vec<f32>)]) -> Result<(), IoError> {
        let (side, t, ntx) = (self.tiling.side(), self.tiling.cells, self.tiling.ntx);
        let mut trees = std::mem::take(&mut self.trees);
        trees.resize_with(trees.len().max(blocks.len()), Vec::new);
        let made: Result<Vec<Made>, landfall::ParamError> = blocks
            .par_iter()
            .zip(&mut trees[..blocks.len()])
            .map(|((key, block), tree)| {
                let (tx, ty) = (key % ntx, key / ntx);
                // Its own samples: all but its east column and north row, unless it is the grid's last.
                let own_w = if tx + 1 == ntx { self.grid.nx - tx * t } else { t };
                let own_h = if ty + 1 == self.tiling.nty { self.grid.ny - ty * t } else { t };
                let valid: usize =
                    (0..own_h).map(|r| block[r * side..r * side + own_w].iter().filter(|v| !v.is_nan()).count()).sum();
                let samples = TileSamples {
                    block,
                    tiling: self.tiling,
                    key: (tx as u32, ty as u32),
                    nx: self.grid.nx,
                    ny: self.grid.ny,
                    origin: self.grid.origin,
                    spacing: self.grid.spacing,
                };
                let range = tile_tree_into(&samples, &self.params, tree)?;
                Ok(Made {
                    valid: valid as u64,
                    range,
                    samples_sum: checksum(bytemuck::cast_slice(block)),
                    tree_sum: checksum(bytemuck::cast_slice(tree)),
                })
            })
            .collect();
        let made = made.map_err(|e| IoError::format(self.out.path(), format!("tile trees: {e}")));
        let written = made.and_then(|made| {
            for ((m, tree), (key, block)) in made.into_iter().zip(&trees).zip(blocks) {
                self.write_tile(*key, block, tree, m)?;
            }
            Ok(())
        });
        self.trees = trees;
        written
    }

    /// Writes tile `key`'s block and tree to its slot and records them.
    fn write_tile(&mut self, key: usize, block: &[f32], tree: &[TileNode], m: Made) -> Result<(), IoError> {
        let Ok(k) = self.covered.binary_search(&(key as u64)) else {
            return Err(IoError::format(self.out.path(), format!("tile {key} has data but no slot")));
        };
        let slot = k + 1;
        if let Some([lo, hi]) = m.range {
            self.exact = [self.exact[0].min(lo), self.exact[1].max(hi)];
        }
        let at = self.sections[SAMPLES][0] + (slot * self.tiling.block_len() * 4) as u64;
        self.out.write_all_at(bytemuck::cast_slice(block), at).map_err(|e| self.os(e))?;
        let first = slot as u64 * self.tree_slot;
        let at = self.sections[TREES][0] + first * std::mem::size_of::<TileNode>() as u64;
        self.out.write_all_at(bytemuck::cast_slice(tree), at).map_err(|e| self.os(e))?;
        self.tree_index[slot] = [first, tree.len() as u64];
        self.tree_sums[slot] = m.tree_sum;
        self.records[slot] = [m.valid, m.samples_sum];
        self.directory[key] = slot as u32;
        self.valid += m.valid;
        Ok(())
    }

    /// Writes the rest (the last tiles, the pyramid levels, the tables, the header) and puts the file
    /// in place; its length (apparent: the slots of tiles without data take no disk), its NaN count
    /// and the blocks stored. Refuses an index without one valid sample (of `src`), which no
    /// command could read.
    pub(super) fn finish(
        mut self,
        src: &Path,
        diagonal: Diagonal,
        frame: Frame,
        crs: Option<&GeoKeys>,
    ) -> Result<(u64, usize, usize), IoError> {
        let live = std::mem::take(&mut self.live);
        self.store(live.into_iter().collect())?;
        if self.valid == 0 {
            return Err(IoError::format(
                src,
                "every sample is nodata: there is nothing to index (check its nodata value)",
            ));
        }
        let quantum = Pyramid::quantum_for(self.exact);
        // Slot 0: all NaN, empty pyramid, no tree.
        let nan = vec![f32::NAN; self.tiling.block_len()];
        let nan_bytes: &[u8] = bytemuck::cast_slice(&nan);
        self.out.write_all_at(nan_bytes, self.sections[SAMPLES][0]).map_err(|e| self.os(e))?;
        self.records[0] = [0, checksum(nan_bytes)];
        // The pyramid levels of every used slot, from its samples read back (in parallel).
        let used: Vec<(usize, usize)> = std::iter::once((0, 0))
            .chain(self.directory.iter().enumerate().filter(|(_, &s)| s != 0).map(|(k, &s)| (k, s as usize)))
            .collect();
        let per_block = self.tiling.pyramid_len(self.grid.leaf);
        let sums: Vec<Result<u64, IoError>> = used
            .par_iter()
            .map_init(
                || vec![0f32; self.tiling.block_len()],
                |block, &(key, slot)| {
                    let at = self.sections[SAMPLES][0] + (slot * self.tiling.block_len() * 4) as u64;
                    self.out.read_exact_at(bytemuck::cast_slice_mut(block), at).map_err(|e| self.os(e))?;
                    let (tx, ty) = (key % self.tiling.ntx, key / self.tiling.ntx);
                    let c = self.tiling.tile_cells(tx, ty, self.grid.nx - 1, self.grid.ny - 1);
                    let cells = if slot == 0 { [0, 0] } else { [c[2] - c[0], c[3] - c[1]] };
                    let nodes = Pyramid::tile_nodes(block, self.tiling, cells, self.grid.leaf, quantum);
                    let nodes: &[u8] = bytemuck::cast_slice(&nodes);
                    let at = self.sections[PYRAMID][0] + (slot * per_block * 4) as u64;
                    self.out.write_all_at(nodes, at).map_err(|e| self.os(e))?;
                    Ok(slot_sum(slot as u64, self.records[slot][1], nodes, self.tree_sums[slot]))
                },
            )
            .collect();
        let mut slots_sum = 0u64;
        for s in sums {
            slots_sum = slots_sum.wrapping_add(s?);
        }
        let tables: [&[u8]; 3] = [
            bytemuck::cast_slice(&self.directory),
            bytemuck::cast_slice(&self.records),
            bytemuck::cast_slice(&self.tree_index),
        ];
        for (k, bytes) in [DIRECTORY, RECORDS, TREE_INDEX].into_iter().zip(tables) {
            self.out.write_all_at(bytes, self.sections[k][0]).map_err(|e| self.os(e))?;
        }
        // The CRS section last; the file ends on a page.
        let (crs_bytes, counts) = crs.map(encode_crs).unwrap_or_default();
        let crs_at = self.file_len;
        let crs_field = if crs_bytes.is_empty() {
            [0; 5]
        } else {
            [crs_at, crs_bytes.len() as u64, counts[0], counts[1], counts[2]]
        };
        let file_len = aligned(crs_at + crs_bytes.len() as u64).max(crs_at);
        self.out.write_all_at(&crs_bytes, crs_at).map_err(|e| self.os(e))?;
        self.out.set_len(file_len).map_err(|e| self.os(e))?;
        let nodata = (self.grid.nx as u64 * self.grid.ny as u64 - self.valid) as usize;
        let stored = used.len() - 1;
        let mut h = Header {
            preamble: FORMAT.preamble(file_len),
            nx: self.grid.nx as u64,
            ny: self.grid.ny as u64,
            origin: self.grid.origin.to_array(),
            spacing: self.grid.spacing.to_array(),
            gravity: frame.down().to_array(),
            diagonal: diagonal_code(diagonal),
            leaf: self.grid.leaf as u64,
            quantum: [quantum.0, quantum.1],
            exact: self.exact,
            nodata: nodata as u64,
            tile_cells: self.tiling.cells as u64,
            slots: self.records.len() as u64,
            tree_params: [self.params.tile_cells as u64, self.params.leaf_cells as u64, self.params.max_levels as u64],
            tree_slot: self.tree_slot,
            sections: self.sections,
            crs: crs_field,
            data_sum: data_sum(tables, slots_sum, &crs_bytes),
            reserved: [0; 4],
            header_sum: 0,
        };
        h.header_sum = checksum(&bytemuck::bytes_of(&h)[..HEADER_LEN - 8]);
        self.out.write_all_at(bytemuck::bytes_of(&h), 0).map_err(|e| self.os(e))?;
        self.out.commit()?;
        Ok((file_len, nodata, stored))
    }
}

/// What the parallel part of storing a tile makes of it.
struct Made {
    /// Its own valid samples.
    valid: u64,
    /// The range of its valid samples.
    range: Option<[f32; 2]>,
    /// Checksums of its block's and its tree's bytes.
    samples_sum: u64,
    tree_sum: u64,
}
