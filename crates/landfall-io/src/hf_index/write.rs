//! The file being written: rows at their places, then the pyramid and the header.

use super::{aligned, checksum, data_sum, diagonal_code, encode_crs, row_sum, Header, FORMAT, HEADER_LEN};
use crate::raster::GeoKeys;
use crate::{IoError, OutputFile};
use landfall::heightfield::LeafRanges;
use landfall::{Diagonal, Frame};
use std::path::Path;

/// The file being written: rows go to their places as they come, the pyramid's leaf ranges and the
/// checksum accumulate; the pyramid and the header go last.
pub(super) struct Writer {
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
    pub(super) fn start(path: &Path, nx: usize, ny: usize, leaf: usize) -> Result<Self, IoError> {
        let out = OutputFile::create(path)?;
        let leaves = LeafRanges::new(nx, ny, leaf);
        Ok(Self { out, nx, ny, leaf, leaves, rows_sum: 0, nodata: 0, rows_seen: 0 })
    }

    fn os(&self, e: std::io::Error) -> IoError {
        IoError::os(self.out.path(), e)
    }

    /// Row `j` (0 south) of the samples.
    pub(super) fn row(&mut self, j: usize, row: &[f32]) -> Result<(), IoError> {
        let at = aligned(HEADER_LEN as u64) + (j * self.nx * 4) as u64;
        self.out.write_all_at(bytemuck::cast_slice(row), at).map_err(|e| self.os(e))?;
        self.rows_sum = self.rows_sum.wrapping_add(row_sum(j, row));
        self.nodata += row.iter().filter(|h| h.is_nan()).count();
        self.leaves.add_row(j, row);
        self.rows_seen += 1;
        Ok(())
    }

    /// Writes the pyramid and the header and puts the file in place; its length and NaN count.
    pub(super) fn finish(
        mut self,
        origin: [f64; 2],
        spacing: [f64; 2],
        diagonal: Diagonal,
        frame: Frame,
        crs: Option<&GeoKeys>,
    ) -> Result<(u64, usize), IoError> {
        if self.rows_seen != self.ny {
            return Err(IoError::format(self.out.path(), format!("{} rows of {} written", self.rows_seen, self.ny)));
        }
        let leaves = std::mem::replace(&mut self.leaves, LeafRanges::new(2, 2, 1));
        let (nodes, quantum, exact) = leaves.finish();
        let heights_at = aligned(HEADER_LEN as u64);
        let nodes_at = aligned(heights_at + (self.nx * self.ny * 4) as u64);
        let mask_at = aligned(nodes_at + (nodes.len() * 4) as u64);
        // The CRS section after the (empty) mask.
        let (crs_bytes, counts) = crs.map(encode_crs).unwrap_or_default();
        let crs_field = if crs_bytes.is_empty() {
            [0; 5]
        } else {
            [mask_at, crs_bytes.len() as u64, counts[0], counts[1], counts[2]]
        };
        let file_len = aligned(mask_at + crs_bytes.len() as u64);
        let node_bytes: &[u8] = bytemuck::cast_slice(&nodes);
        self.out.write_all_at(node_bytes, nodes_at).map_err(|e| self.os(e))?;
        // Pad to the mask (empty), then the CRS section padded to the full length.
        let mut tail = vec![0u8; (mask_at - nodes_at - node_bytes.len() as u64) as usize];
        tail.extend_from_slice(&crs_bytes);
        tail.resize((file_len - nodes_at - node_bytes.len() as u64) as usize, 0);
        self.out.write_all_at(&tail, nodes_at + node_bytes.len() as u64).map_err(|e| self.os(e))?;
        let mut h = Header {
            preamble: FORMAT.preamble(file_len),
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
            data_sum: data_sum(self.rows_sum, node_bytes, &crs_bytes),
            crs: crs_field,
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
