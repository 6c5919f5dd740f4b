//! What every landfall index file starts with — magic, kind, version, header length, file length —
//! and the checks of it that the polygon index (`.lfq`) and the heightfield index (`.lfh`) share:
//! the length, the magic and kind, the version, the header's checksum (its last 8 bytes, over the
//! rest) and the lengths it states.

use crate::error::IoError;
use bytemuck::{Pod, Zeroable};
use std::path::Path;

const MAGIC: [u8; 8] = *b"LANDFALL";

/// The first 32 bytes of an index file's header.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct Preamble {
    magic: [u8; 8],
    kind: [u8; 4],
    version: u32,
    header_len: u64,
    file_len: u64,
}

/// One index format.
pub(crate) struct Format {
    /// Its kind tag (bytes 8..12).
    pub kind: [u8; 4],
    /// The version written and read.
    pub version: u32,
    /// Bytes of its fixed header (the preamble first, the header checksum last).
    pub header_len: usize,
    /// What errors call it ("polygon index").
    pub name: &'static str,
}

impl Format {
    /// The preamble of a file of this format `file_len` bytes long.
    pub fn preamble(&self, file_len: u64) -> Preamble {
        Preamble { magic: MAGIC, kind: self.kind, version: self.version, header_len: self.header_len as u64, file_len }
    }

    /// Whether the file at `path` starts with this format's magic and kind (only a regular file is
    /// opened to look: opening a FIFO would block).
    pub fn is_file(&self, path: &Path) -> bool {
        let mut head = [0u8; 12];
        crate::input::open_regular(path).is_ok_and(|(mut f, _)| std::io::Read::read_exact(&mut f, &mut head).is_ok())
            && head[..8] == MAGIC
            && head[8..12] == self.kind
    }

    /// Refuses a file of `len` bytes too short for the header.
    pub fn check_length(&self, path: &Path, len: u64) -> Result<(), IoError> {
        let need = self.header_len;
        if len < need as u64 {
            return Err(IoError::format(path, format!("truncated: {len} bytes, the header alone is {need}")));
        }
        Ok(())
    }

    /// Checks the preamble alone (`head`, at least its 32 bytes): magic and kind, and version (an
    /// older file is asked to be rebuilt) — what a file of another version's header length is
    /// refused by.
    pub fn check_preamble(&self, path: &Path, head: &[u8]) -> Result<(), IoError> {
        let size = std::mem::size_of::<Preamble>();
        if head.len() < size {
            return Err(IoError::format(
                path,
                format!("truncated: {} bytes, the header alone is {}", head.len(), self.header_len),
            ));
        }
        let p: Preamble = bytemuck::pod_read_unaligned(&head[..size]);
        if p.magic != MAGIC || p.kind != self.kind {
            return Err(IoError::format(path, format!("not a landfall {} file (bad magic)", self.name)));
        }
        if p.version != self.version {
            let hint =
                if p.version < self.version { "; rebuild it from the terrain with `landfall build`" } else { "" };
            let msg = format!("{} (this landfall reads version {}){hint}", p.version, self.version);
            return Err(IoError::field(path, "version", msg));
        }
        Ok(())
    }

    /// Checks `head` (the header's `header_len` bytes) of a file `len` bytes long: the preamble
    /// ([`check_preamble`](Self::check_preamble)), the header checksum, and the header and file
    /// lengths it states.
    pub fn check(&self, path: &Path, head: &[u8], len: u64) -> Result<(), IoError> {
        let bad = |field: &str, msg: String| IoError::field(path, field, msg);
        let n = self.header_len;
        self.check_preamble(path, head)?;
        let p: Preamble = bytemuck::pod_read_unaligned(&head[..std::mem::size_of::<Preamble>()]);
        let stored = u64::from_ne_bytes(head[n - 8..n].try_into().expect("8 bytes"));
        if stored != checksum(&head[..n - 8]) {
            return Err(bad("header checksum", "mismatch: the header is corrupt".into()));
        }
        if p.header_len != n as u64 {
            return Err(bad("header length", format!("{} (expected {n})", p.header_len)));
        }
        if p.file_len != len {
            return Err(bad("file length", format!("header says {} bytes, the file has {len}", p.file_len)));
        }
        Ok(())
    }
}

/// Checksum of a byte run (4 lanes of multiply–rotate over 64-bit words): detects corruption, not
/// tampering — hostile files are caught by the structural checks.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const P: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = [P, P ^ 1, P ^ 2, P ^ 3];
    let mut words = bytes.chunks_exact(32);
    for c in &mut words {
        for (k, lane) in h.iter_mut().enumerate() {
            let w = u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
            *lane = (*lane ^ w).wrapping_mul(P).rotate_left(29);
        }
    }
    let mut tail = [0u8; 32];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    for (k, lane) in h.iter_mut().enumerate() {
        *lane = (*lane ^ u64::from_le_bytes(tail[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]))).wrapping_mul(P);
    }
    h.iter().fold(bytes.len() as u64, |a, &b| (a ^ b).wrapping_mul(P).rotate_left(31))
}
