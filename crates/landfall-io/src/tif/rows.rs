//! The image row by row, north first: a band of chunks — a row of tiles, or a strip — decoded when
//! the last band is used up. Memory: one band of rows as f64, and one chunk's buffers.

use super::chunk::ChunkDecoder;
use super::Opened;
use crate::IoError;
use std::path::{Path, PathBuf};

/// Reads the image band by band and calls `each(row, values)` for every image row in file order
/// (row 0 north), values as f64. Memory: one band of rows, never the image.
pub(crate) fn stream_rows(
    path: &Path,
    o: &mut Opened,
    mut each: impl FnMut(usize, &[f64]) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let mut rows = RowReader::new(path, o)?;
    let mut r = 0;
    while let Some(row) = rows.next_row(o)? {
        each(r, row)?;
        r += 1;
    }
    Ok(())
}

/// An image's rows one at a time, in file order (north first), decoding a band of chunks when the
/// last band is used up.
pub(crate) struct RowReader {
    path: PathBuf,
    band: Vec<f64>,
    /// The band decoded now (its index) and the next row to hand out overall.
    band_index: Option<usize>,
    next: usize,
    chunks: ChunkDecoder,
}

impl RowReader {
    /// A reader of `o`'s image from its first row.
    pub(crate) fn new(path: &Path, o: &mut Opened) -> Result<Self, IoError> {
        Ok(Self {
            path: path.to_owned(),
            band: vec![0f64; o.nx * o.layout.ch],
            band_index: None,
            next: 0,
            chunks: ChunkDecoder::default(),
        })
    }

    /// The next row (north first), or `None` after the last.
    pub(crate) fn next_row(&mut self, o: &mut Opened) -> Result<Option<&[f64]>, IoError> {
        let (nx, ny, ch) = (o.nx, o.ny, o.layout.ch);
        if self.next >= ny {
            return Ok(None);
        }
        let ty = self.next / ch;
        if self.band_index != Some(ty) {
            // A band that fails is not kept: the next call tries it again.
            self.band_index = None;
            let fill = o.nodata.unwrap_or(0.0);
            for tx in 0..o.layout.across {
                let c = o.layout.chunk(tx, ty);
                self.chunks.decode(&self.path, &o.layout, &mut o.dec, &c, fill, &mut self.band)?;
            }
            self.band_index = Some(ty);
        }
        let r = self.next - ty * ch;
        self.next += 1;
        Ok(Some(&self.band[r * nx..(r + 1) * nx]))
    }
}
