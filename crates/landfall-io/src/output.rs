//! The one output policy every writer follows (`docs/robustness.md`): a file is written to a
//! temporary file in the target's directory and renamed over the target only when it is complete
//! and synced, so an interrupted or failed run leaves the old file or nothing, never part of one.
//!
//! On Linux the temporary file is anonymous (`O_TMPFILE`): a run killed even by SIGKILL leaves
//! nothing behind. Elsewhere, or on a file system without `O_TMPFILE`, it is a hidden named file
//! beside the target, removed on every error. The new file's permissions are the old file's when it
//! replaces one, else `0666` less the umask, as for any file a program creates. A target that exists
//! and is not a regular file (a pipe, `/dev/stdout`) is written to directly: it cannot be replaced.
//! A target that is a symbolic link stays one: the file it leads to is replaced (as `cp` and GDAL
//! write through links).

use crate::IoError;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file being written; [`commit`](Self::commit) puts it in place. Dropped before that, it leaves
/// the target untouched.
///
/// ```
/// use std::io::Write;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("out.csv");
/// let mut out = landfall_io::OutputFile::create(&path).unwrap();
/// writeln!(out, "x,y").unwrap();
/// assert!(!path.exists()); // nothing at the target until the file is complete
/// out.commit().unwrap();
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "x,y\n");
/// ```
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    target: PathBuf,
    temp: Temp,
}

#[derive(Debug)]
enum Temp {
    /// Linux `O_TMPFILE`: no name until it is linked.
    Anonymous,
    /// A hidden named file beside the target (removed when dropped).
    Named(tempfile::TempPath),
    /// The target itself, which is not a regular file (a pipe or a device).
    Direct,
}

impl OutputFile {
    /// Starts writing `path`. Errors name the target (the directory missing, not writable, …).
    pub fn create(path: &Path) -> Result<Self, IoError> {
        if path.as_os_str() == "-" {
            return Err(IoError::format(path, "standard output is not an output here: give a file name"));
        }
        let linked = through_links(path);
        let (path, named) = (linked.as_path(), path);
        let existing = std::fs::metadata(path).ok();
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(IoError::format(named, "is a directory; give a file name to write"));
            }
            if !m.is_file() {
                let file = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| IoError::os(named, e))?;
                return Ok(Self { file, target: path.to_owned(), temp: Temp::Direct });
            }
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        match std::fs::metadata(dir) {
            Err(e) => return Err(IoError::os(named, e)),
            Ok(m) if !m.is_dir() => {
                let msg = format!("{} is not a directory", dir.display());
                return Err(IoError::os(named, std::io::Error::new(std::io::ErrorKind::NotADirectory, msg)));
            }
            Ok(_) => {}
        }
        let mode = existing.as_ref().map(permissions_of);
        let (file, temp) = match anonymous(dir, mode) {
            Some(file) => (file, Temp::Anonymous),
            None => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let prefix = format!(".{name}.");
                let mut b = tempfile::Builder::new();
                b.prefix(&prefix).suffix(".tmp");
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    b.permissions(std::fs::Permissions::from_mode(mode.unwrap_or(0o666)));
                }
                // tempfile's own errors name its temporary file, which the user never asked for.
                let named = b.tempfile_in(dir).map_err(|e| IoError::os(named, e.kind().into()))?;
                let (file, temp_path) = named.into_parts();
                (file, Temp::Named(temp_path))
            }
        };
        if let (Some(m), Temp::Named(_)) = (&existing, &temp) {
            // The umask may have narrowed the old file's permissions: set them exactly.
            let _ = file.set_permissions(m.permissions());
        }
        Ok(Self { file, target: path.to_owned(), temp })
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.target
    }

    /// Writes `buf` at byte `offset` (positioned writes, for files filled out of order); the file
    /// grows as needed.
    pub fn write_all_at(&self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.write_all_at(buf, offset)
        }
        #[cfg(not(unix))]
        {
            use std::io::Seek;
            let mut f = &self.file;
            f.seek(std::io::SeekFrom::Start(offset))?;
            f.write_all(buf)
        }
    }

    /// Sets the file's length (a file whose end was never written: the rest reads as zeros and, where
    /// the file system allows, takes no disk blocks).
    pub fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.file.set_len(len)
    }

    /// Reads `buf.len()` bytes at byte `offset` of what was written (a file filled in passes).
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, offset)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek};
            let mut f = &self.file;
            f.seek(std::io::SeekFrom::Start(offset))?;
            f.read_exact(buf)
        }
    }

    /// Syncs the file and puts it at the target, replacing what was there.
    pub fn commit(self) -> Result<(), IoError> {
        self.stage()?.finish()
    }

    /// Syncs the file and gives it a hidden name beside its target (the step of a commit that can
    /// fail for want of space or permission); [`Staged::finish`] then renames it over the target.
    fn stage(mut self) -> Result<Staged, IoError> {
        let target = self.target.clone();
        self.file.flush().map_err(|e| IoError::os(&target, e))?;
        let temp = match std::mem::replace(&mut self.temp, Temp::Direct) {
            Temp::Direct => None,
            Temp::Named(temp) => {
                self.file.sync_all().map_err(|e| IoError::os(&target, e))?;
                Some(StagedName::Named(temp))
            }
            Temp::Anonymous => {
                self.file.sync_all().map_err(|e| IoError::os(&target, e))?;
                Some(StagedName::Linked(link_anonymous(&self.file, &target)?))
            }
        };
        Ok(Staged { temp, target })
    }
}

/// A complete output under a hidden name beside its target, waiting to be renamed over it; dropped
/// before that, the hidden name is removed.
struct Staged {
    temp: Option<StagedName>,
    target: PathBuf,
}

enum StagedName {
    /// A named temporary file (removed when dropped).
    Named(tempfile::TempPath),
    /// An anonymous file linked under this name.
    Linked(PathBuf),
}

impl Staged {
    /// Renames the file over its target (atomic: the target is the old file or the new one).
    fn finish(mut self) -> Result<(), IoError> {
        match self.temp.take() {
            None => Ok(()),
            Some(StagedName::Named(temp)) => temp.persist(&self.target).map_err(|e| IoError::os(&self.target, e.error)),
            Some(StagedName::Linked(tmp)) => std::fs::rename(&tmp, &self.target).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                IoError::os(&self.target, e)
            }),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(StagedName::Linked(tmp)) = &self.temp {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Which output of an [`Outputs`] group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputId(usize);

/// The outputs of one run, checked before any work and committed together at its end: all of them
/// or none (`docs/robustness.md`).
///
/// * Each is refused up front if it is one of the run's inputs (or a file an input reads, such as a
///   glTF model's buffers), or if two outputs name the same file (`out.tif` and `./out.tif`, or
///   two links to one file): one would silently replace the other.
/// * Each is created (as a temporary file) when added, so a missing or read-only directory is an
///   error before the work starts, not after a first output was already replaced.
/// * [`commit`](Self::commit) first gives every complete file a hidden name beside its target (the
///   step that can fail: space, permissions), removing them all if any fails, and only then renames
///   each over its target. Dropped before that, the group leaves every target as it was.
///
/// ```
/// use std::io::Write;
/// let dir = tempfile::tempdir().unwrap();
/// let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
/// let mut outs = landfall_io::Outputs::new(&[]);
/// let (ida, idb) = (outs.add(&a, "--out").unwrap(), outs.add(&b, "--final").unwrap());
/// assert!(outs.add(&dir.path().join(".").join("a.csv"), "--png").is_err()); // the same file twice
/// writeln!(outs.file(ida), "x").unwrap();
/// writeln!(outs.file(idb), "y").unwrap();
/// assert!(!a.exists() && !b.exists());
/// outs.commit().unwrap();
/// assert!(a.exists() && b.exists());
/// ```
#[derive(Debug, Default)]
pub struct Outputs {
    files: Vec<(OutputFile, String)>,
    inputs: Vec<PathBuf>,
}

impl Outputs {
    /// A group for a run that reads `inputs` (the files each of them reads are added: a glTF
    /// model's buffers).
    pub fn new(inputs: &[&Path]) -> Self {
        Self { files: Vec::new(), inputs: with_dependencies(inputs) }
    }

    /// Checks and starts output `path`, given by option `what` (named in errors).
    pub fn add(&mut self, path: &Path, what: &str) -> Result<OutputId, IoError> {
        refuse_inputs(path, &self.inputs)?;
        for (f, other) in &self.files {
            if same_target(path, f.path()) {
                return Err(IoError::format(
                    path,
                    format!("{what} and {other} name the same file; give each output its own file"),
                ));
            }
        }
        self.files.push((OutputFile::create(path)?, what.to_string()));
        Ok(OutputId(self.files.len() - 1))
    }

    /// The file of output `id`, to write to.
    pub fn file(&mut self, id: OutputId) -> &mut OutputFile {
        &mut self.files[id.0].0
    }

    /// Puts every output in place, or none (see the type's docs).
    pub fn commit(self) -> Result<(), IoError> {
        let mut staged = Vec::with_capacity(self.files.len());
        for (f, _) in self.files {
            // On an error the outputs staged so far are dropped: their hidden names go.
            staged.push(f.stage()?);
        }
        staged.into_iter().try_for_each(Staged::finish)
    }
}

/// Whether two output paths name the same file: the same existing file, or the same name in the
/// same directory (for files not there yet).
fn same_target(a: &Path, b: &Path) -> bool {
    let key = |p: &Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::canonicalize(dir).ok().map(|d| d.join(p.file_name().unwrap_or_default()))
    };
    same_file(a, b) || a == b || matches!((key(a), key(b)), (Some(x), Some(y)) if x == y)
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl std::io::Seek for OutputFile {
    /// Seeks within the temporary file (formats such as TIFF write their directory last); fails on
    /// a pipe or a device.
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(to)
    }
}

/// The permission bits of an existing file.
/// `path`, or the file its chain of symbolic links leads to (given up after 40 links, as the kernel
/// does: the rename then fails naming `path`).
fn through_links(path: &Path) -> PathBuf {
    let mut p = path.to_owned();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(t) if t.is_absolute() => p = t,
            Ok(t) => p = p.parent().unwrap_or(Path::new("")).join(t),
            Err(_) => break,
        }
    }
    p
}

fn permissions_of(m: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        m.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        0o666
    }
}

/// An anonymous file in `dir` (Linux `O_TMPFILE`), or `None` where the system or the file system
/// has none.
#[cfg(target_os = "linux")]
fn anonymous(dir: &Path, mode: Option<u32>) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(mode.unwrap_or(0o666))
        .open(dir)
        .ok()?;
    if let Some(m) = mode {
        // The umask applied to `mode`: give the old file's permissions back exactly.
        use std::os::unix::fs::PermissionsExt;
        let _ = file.set_permissions(std::fs::Permissions::from_mode(m));
    }
    Some(file)
}

#[cfg(not(target_os = "linux"))]
fn anonymous(_dir: &Path, _mode: Option<u32>) -> Option<File> {
    None
}

/// Gives the anonymous `file` a unique hidden name in `target`'s directory (`linkat`: rename then
/// replaces the target atomically, which linkat would not) and returns it.
#[cfg(target_os = "linux")]
fn link_anonymous(file: &File, target: &Path) -> Result<PathBuf, IoError> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let proc_path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap_or_default();
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for attempt in 0..100u32 {
        let tmp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        let Ok(c_tmp) = CString::new(tmp.as_os_str().as_bytes()) else {
            return Err(IoError::format(target, "the path holds a NUL byte"));
        };
        // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
        let rc = unsafe {
            libc::linkat(libc::AT_FDCWD, proc_path.as_ptr(), libc::AT_FDCWD, c_tmp.as_ptr(), libc::AT_SYMLINK_FOLLOW)
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                continue;
            }
            return Err(IoError::os(target, e));
        }
        return Ok(tmp);
    }
    Err(IoError::format(target, "could not find a free temporary name beside it"))
}

#[cfg(not(target_os = "linux"))]
fn link_anonymous(_file: &File, target: &Path) -> Result<PathBuf, IoError> {
    Err(IoError::format(target, "anonymous temporary files are Linux-only"))
}

/// Writes `chunks` to `path` through an [`OutputFile`].
pub(crate) fn write_atomic(path: &Path, chunks: &[&[u8]]) -> Result<(), IoError> {
    let mut out = OutputFile::create(path)?;
    for c in chunks {
        out.write_all(c).map_err(|e| IoError::os(path, e))?;
    }
    out.commit()
}

/// True when `a` and `b` name the same existing file (same device and inode, so hard links and
/// symbolic links count).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Refuses an output that is one of the inputs, or a file an input reads (a glTF model's buffers):
/// writing it would destroy what is being read. `Err` names both.
pub fn refuse_overwriting_inputs(output: &Path, inputs: &[&Path]) -> Result<(), IoError> {
    refuse_inputs(output, &with_dependencies(inputs))
}

/// `inputs` and the files each reads besides itself.
fn with_dependencies(inputs: &[&Path]) -> Vec<PathBuf> {
    inputs.iter().flat_map(|p| std::iter::once(p.to_path_buf()).chain(crate::mesh::model_buffers(p))).collect()
}

fn refuse_inputs(output: &Path, inputs: &[PathBuf]) -> Result<(), IoError> {
    for input in inputs {
        if same_file(output, input) {
            return Err(IoError::format(
                output,
                format!("is also an input ({}); write the output to another file", input.display()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropped before commit: the old file stays as it was and no temporary file is left.
    #[test]
    fn an_uncommitted_output_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        std::fs::write(&p, "old").unwrap();
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"new, half").unwrap();
        drop(o);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"new").unwrap();
        o.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A target that is a symbolic link (relative, through another link) stays one; the file it
    /// leads to is replaced, also when it does not exist yet.
    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (file, link, link2) = (dir.path().join("data.csv"), dir.path().join("l1"), dir.path().join("l2"));
        std::os::unix::fs::symlink("data.csv", &link).unwrap();
        std::os::unix::fs::symlink(&link, &link2).unwrap();
        for content in ["first", "second"] {
            let mut o = OutputFile::create(&link2).unwrap();
            o.write_all(content.as_bytes()).unwrap();
            o.commit().unwrap();
            assert_eq!(std::fs::read_to_string(&file).unwrap(), content);
            assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            assert!(std::fs::symlink_metadata(&link2).unwrap().is_symlink());
        }
    }

    /// A new file gets 0666 less the umask (not tempfile's 0600); a replaced one keeps its mode.
    #[cfg(unix)]
    #[test]
    fn permissions_follow_the_umask_or_the_old_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let expected = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        let p = dir.path().join("new.csv");
        OutputFile::create(&p).unwrap().commit().unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, expected);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        OutputFile::create(&p).unwrap().commit().unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "x").unwrap();
        let b = dir.path().join("sub/../a");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(refuse_overwriting_inputs(&b, &[&a]).is_err());
        assert!(refuse_overwriting_inputs(&dir.path().join("c"), &[&a]).is_ok());
    }
}
