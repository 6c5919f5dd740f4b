//! The one resource policy every reader follows (`docs/robustness.md`):
//!
//! * only regular files are read (a FIFO, a device such as `/dev/zero`, a socket or a directory is
//!   refused by name, after following symbolic links), so no read is unbounded and none blocks;
//! * a reader reads at most the length the file had when it was opened (a file that grows while it
//!   is read cannot make it read more);
//! * sizes a file declares (raster dimensions, array shapes, decompressed member sizes) are checked
//!   against [`Limits`] before anything is allocated for them, and a count from the file is never
//!   trusted beyond the bytes actually present.

use crate::IoError;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Default largest raster a reader accepts, in samples: 2²⁹ (a 23,170² grid, 2 GiB of f32 heights).
/// Reading one takes a few times that at its peak (the decoded file, its samples as heights, the
/// heightfield's own copy): about 6 GiB for a GeoTIFF, 10 GiB for a `.npy`, within this machine
/// class's 24 GiB.
pub const DEFAULT_MAX_SAMPLES: u64 = 1 << 29;

/// Bounds on what a file may make a reader allocate.
///
/// ```
/// use landfall_io::Limits;
/// let small = Limits { max_samples: 1 << 20 };
/// assert!(small.max_samples < Limits::default().max_samples);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest raster (columns × rows, or an array's element count) accepted. A larger one is an
    /// error that names this limit (`--max-samples` on the command line).
    pub max_samples: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_samples: DEFAULT_MAX_SAMPLES }
    }
}

impl Limits {
    /// Whether an answer of one value of `bytes` per sample of an `nx` × `ny` grid (a viewshed's)
    /// is within [`Limits::max_samples`] and, written `to_tiff`, within a classic TIFF's 4 GiB; else
    /// why not. A sparse index may span far more samples than it holds.
    ///
    /// ```
    /// let l = landfall_io::Limits::default();
    /// assert!(l.check_answer(4097, 4097, 4, true).is_ok());
    /// assert!(l.check_answer(100_000, 100_000, 1, false).unwrap_err().contains("--max-samples"));
    /// ```
    pub fn check_answer(&self, nx: usize, ny: usize, bytes: u64, to_tiff: bool) -> Result<(), String> {
        let n = (nx as u64).saturating_mul(ny as u64);
        if n > self.max_samples {
            return Err(format!(
                "the viewshed answers each of its {nx} × {ny} = {n} samples, more than the limit of {} (raise \
                 it with --max-samples, or cut the DEM around the observer: gdal_translate -projwin)",
                self.max_samples
            ));
        }
        if to_tiff && n.saturating_mul(bytes) > (1 << 32) - (1 << 20) {
            return Err(format!(
                "the answer for {nx} × {ny} samples takes {} GiB, more than a TIFF holds (4 GiB; landfall writes \
                 no BigTIFF): cut the DEM around the observer (gdal_translate -projwin)",
                n.saturating_mul(bytes) >> 30
            ));
        }
        Ok(())
    }

    /// Checks a raster of `nx` × `ny` samples against [`Limits::max_samples`].
    pub(crate) fn check_samples(&self, path: &Path, field: &str, nx: u64, ny: u64) -> Result<(), IoError> {
        match nx.checked_mul(ny) {
            Some(n) if n <= self.max_samples => Ok(()),
            n => Err(IoError::field(
                path,
                field,
                format!(
                    "{nx} × {ny} = {} samples is more than the limit of {} (raise it with --max-samples, \
                     max_samples= in Python's landfall.open, or Limits::max_samples in the library)",
                    n.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    self.max_samples
                ),
            )),
        }
    }

    /// Largest byte count a raster within the limit can need, at `bytes_per_sample` (plus 1 MiB for
    /// headers), saturating.
    pub(crate) fn max_bytes(&self, bytes_per_sample: u64) -> u64 {
        self.max_samples.saturating_mul(bytes_per_sample).saturating_add(1 << 20)
    }
}

/// Opens `path` for reading if it is a regular file (symbolic links followed), with its length.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), IoError> {
    let meta = std::fs::metadata(path).map_err(|e| IoError::os(path, e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, a device or a socket)" };
        return Err(IoError::format(path, format!("is {kind}; terrain and batch files must be regular files")));
    }
    let file = File::open(path).map_err(|e| IoError::os(path, e))?;
    // The file could have been swapped between the two calls: check what was opened.
    let meta = file.metadata().map_err(|e| IoError::os(path, e))?;
    if !meta.is_file() {
        return Err(IoError::format(path, "is not a regular file; terrain and batch files must be regular files"));
    }
    Ok((file, meta.len()))
}

/// Reads the whole regular file `path`, refusing one longer than `max_bytes` (`what` names the
/// limit in the error), and never reading past the length it had when opened.
pub(crate) fn read_regular(path: &Path, max_bytes: u64, what: &str) -> Result<Vec<u8>, IoError> {
    let (file, len) = open_regular(path)?;
    if len > max_bytes {
        return Err(IoError::format(path, format!("is {len} bytes, more than {what} allows ({max_bytes} bytes)")));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes).map_err(|e| IoError::os(path, e))?;
    Ok(bytes)
}

/// Largest mesh or text file read whole (OBJ, glTF, GLB, an external glTF buffer): 16 GiB.
pub(crate) const MAX_WHOLE_FILE_BYTES: u64 = 16 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    /// A device, a directory and a FIFO are refused by name, without reading (a FIFO would block).
    #[cfg(unix)]
    #[test]
    fn non_regular_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.npy");
        let name = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(fifo.as_os_str())).unwrap();
        // SAFETY: a NUL-terminated path; mkfifo reads it and returns.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo {}", fifo.display());
        let mut paths = vec![Path::new("/dev/zero").to_path_buf(), dir.path().to_path_buf(), fifo];
        let link = dir.path().join("zero.asc");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        paths.push(link);
        for p in paths {
            let e = read_regular(&p, 1 << 20, "test").unwrap_err().to_string();
            assert!(e.contains("regular file") || e.contains("directory"), "{e}");
        }
    }

    #[test]
    fn sample_limit_names_itself() {
        let l = Limits { max_samples: 100 };
        assert!(l.check_samples(Path::new("a.tif"), "size", 10, 10).is_ok());
        let e = l.check_samples(Path::new("a.tif"), "size", 11, 10).unwrap_err().to_string();
        assert!(e.contains("--max-samples") && e.contains("110"), "{e}");
        assert!(l.check_samples(Path::new("a.tif"), "size", u64::MAX, 3).is_err());
    }
}
