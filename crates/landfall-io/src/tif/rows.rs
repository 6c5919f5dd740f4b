//! The image row by row, north first: a band of chunks — a row of tiles, or a strip — decoded when
//! the last band is used up. [`stream_rows`] decodes the next band on a second thread while the
//! caller uses the current one (memory: two bands of rows as f64, and one chunk's buffers);
//! [`RowReader`] decodes in the caller's thread (one band).

use super::chunk::ChunkDecoder;
use super::Opened;
use crate::IoError;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Reads the image band by band and calls `each(row, values)` for every image row in file order
/// (row 0 north), values as f64. Memory: two bands of rows, never the image. The next band is
/// decoded on a scoped thread while `each` runs over the current one; an error from either side
/// stops both, and the first is returned.
pub(crate) fn stream_rows(
    path: &Path,
    o: &mut Opened,
    mut each: impl FnMut(usize, &[f64]) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let (nx, ny, ch) = (o.nx, o.ny, o.layout.ch);
    let bands = ny.div_ceil(ch);
    if bands < 2 {
        let mut rows = RowReader::new(path, o)?;
        let mut r = 0;
        while let Some(row) = rows.next_row(o)? {
            each(r, row)?;
            r += 1;
        }
        return Ok(());
    }
    std::thread::scope(|s| {
        // Decoded bands to the caller (at most one waiting), and used ones back: two buffers.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<Vec<f64>, IoError>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<f64>>();
        for _ in 0..2 {
            empty_tx.send(vec![0f64; nx * ch]).expect("the receiver is alive");
        }
        s.spawn(move || {
            let mut chunks = ChunkDecoder::default();
            for ty in 0..bands {
                // The caller stopped (an error of its own): so does the decoding.
                let Ok(mut band) = empty_rx.recv() else { return };
                let decoded = decode_band(path, o, &mut chunks, ty, &mut band).map(|()| band);
                let failed = decoded.is_err();
                if full_tx.send(decoded).is_err() || failed {
                    return;
                }
            }
        });
        for ty in 0..bands {
            // The decoder sends every band or stops at its error (a panic there is re-raised by
            // the scope).
            let Ok(band) = full_rx.recv() else { break };
            let band = band?;
            let rows = ch.min(ny - ty * ch);
            for (k, row) in band.chunks_exact(nx).take(rows).enumerate() {
                each(ty * ch + k, row)?;
            }
            // Only refused once the decoder has finished: nothing more to decode.
            let _ = empty_tx.send(band);
        }
        Ok(())
    })
}

/// Decodes band `ty` (a row of tiles, or a strip) of `o` into `band`.
fn decode_band(
    path: &Path,
    o: &mut Opened,
    chunks: &mut ChunkDecoder,
    ty: usize,
    band: &mut [f64],
) -> Result<(), IoError> {
    for tx in 0..o.layout.across {
        let c = o.layout.chunk(tx, ty);
        chunks.decode(path, &o.layout, &mut o.dec, &c, o.fill, band)?;
    }
    if let Some((k, off)) = o.scale {
        band.iter_mut().for_each(|v| *v = *v * k + off);
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
            decode_band(&self.path, o, &mut self.chunks, ty, &mut self.band)?;
            self.band_index = Some(ty);
        }
        let r = self.next - ty * ch;
        self.next += 1;
        Ok(Some(&self.band[r * nx..(r + 1) * nx]))
    }
}
