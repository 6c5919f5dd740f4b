//! Flat arrays that are either owned or borrowed from shared, immutable bytes (a memory-mapped index
//! file), so a structure loads without copying or rebuilding.

use bytemuck::Pod;
use std::ops::Deref;
use std::sync::Arc;

/// Bytes that stay at the same address, unchanged, for as long as the value lives.
///
/// # Safety
/// `stable_bytes` must return the same slice (same address, length and contents) on every call, and
/// the memory must stay valid and unmodified until the value is dropped. `Vec`s and boxes that are
/// never mutated after being shared, and read-only memory maps of files nobody writes, qualify.
pub unsafe trait StableBytes: Send + Sync {
    /// The bytes.
    fn stable_bytes(&self) -> &[u8];

    /// Tells the owner that the memory pages lying wholly inside bytes `range` will not be needed
    /// soon. A memory-mapped file drops them from the process (they are read from the file again
    /// when touched, unchanged); other owners ignore it. The bytes stay valid either way.
    fn release(&self, _range: std::ops::Range<usize>) {}

    /// Tells the owner that bytes `range` will be needed soon (a file map starts reading them).
    fn prefetch(&self, _range: std::ops::Range<usize>) {}

    /// Asks a file map for huge pages (fewer TLB misses over large data) or for small ones (pages
    /// let go of one by one, [`Self::release`]); other owners ignore it.
    fn huge_pages(&self, _on: bool) {}
}

// SAFETY: an immutable boxed slice never moves its heap buffer.
unsafe impl StableBytes for Box<[u64]> {
    fn stable_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
}

/// Why a section of shared bytes cannot be viewed as an array.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlatError {
    /// The section does not lie inside the bytes.
    #[error("section at byte {offset} with {len} elements of {size} bytes runs past the end ({total} bytes)")]
    OutOfBounds {
        /// Byte offset of the section.
        offset: u64,
        /// Number of elements.
        len: u64,
        /// Bytes per element.
        size: u64,
        /// Total bytes available.
        total: u64,
    },
    /// The section's start is not aligned for its element type.
    #[error("section at byte {offset} is not aligned to {align} bytes")]
    Misaligned {
        /// Byte offset of the section.
        offset: u64,
        /// Required alignment.
        align: u64,
    },
}

/// An array of plain-old-data values, owned or borrowed from [`StableBytes`].
pub struct Flat<T: Pod> {
    repr: Repr<T>,
}

enum Repr<T> {
    Owned(Vec<T>),
    Shared { ptr: *const T, len: usize, owner: Arc<dyn StableBytes> },
}

// SAFETY: the shared variant only reads immutable memory kept alive by the `Arc`; `T: Pod` values are
// plain data, safe to read from any thread.
unsafe impl<T: Pod + Send + Sync> Send for Flat<T> {}
// SAFETY: as above: no interior mutability is reachable through `&Flat<T>`.
unsafe impl<T: Pod + Send + Sync> Sync for Flat<T> {}

impl<T: Pod> Flat<T> {
    /// Views `len` elements starting at byte `offset` of `owner`, checking bounds and alignment.
    pub fn from_shared(owner: Arc<dyn StableBytes>, offset: u64, len: u64) -> Result<Self, FlatError> {
        let bytes = owner.stable_bytes();
        let size = std::mem::size_of::<T>() as u64;
        let out = || FlatError::OutOfBounds { offset, len, size, total: bytes.len() as u64 };
        let end = len.checked_mul(size).and_then(|n| n.checked_add(offset)).ok_or_else(out)?;
        if end > bytes.len() as u64 {
            return Err(out());
        }
        let section = &bytes[offset as usize..end as usize];
        let typed: &[T] = bytemuck::try_cast_slice(section)
            .map_err(|_| FlatError::Misaligned { offset, align: std::mem::align_of::<T>() as u64 })?;
        let (ptr, len) = (typed.as_ptr(), typed.len());
        Ok(Self { repr: Repr::Shared { ptr, len, owner } })
    }

    /// True when the elements live in shared bytes (not copied).
    pub fn is_shared(&self) -> bool {
        matches!(self.repr, Repr::Shared { .. })
    }

    /// The byte range of elements `elems` inside the owner's bytes, when shared.
    fn owner_range(&self, elems: std::ops::Range<usize>) -> Option<(&dyn StableBytes, std::ops::Range<usize>)> {
        let Repr::Shared { ptr, len, owner } = &self.repr else { return None };
        let (start, end) = (elems.start.min(*len), elems.end.min(*len));
        let base = *ptr as usize - owner.stable_bytes().as_ptr() as usize;
        let size = std::mem::size_of::<T>();
        Some((&**owner, base + start * size..base + end * size))
    }

    /// [`StableBytes::release`] for the pages wholly inside elements `elems` (clipped to the
    /// array): a mapped file's pages leave the process's memory; owned elements are untouched.
    pub fn release(&self, elems: std::ops::Range<usize>) {
        if let Some((owner, bytes)) = self.owner_range(elems) {
            owner.release(bytes);
        }
    }

    /// [`StableBytes::huge_pages`] for the owner of shared elements.
    pub fn huge_pages(&self, on: bool) {
        if let Repr::Shared { owner, .. } = &self.repr {
            owner.huge_pages(on);
        }
    }

    /// [`StableBytes::prefetch`] for elements `elems` (clipped to the array).
    pub fn prefetch(&self, elems: std::ops::Range<usize>) {
        if let Some((owner, bytes)) = self.owner_range(elems) {
            owner.prefetch(bytes);
        }
    }

    /// The elements as an owned vector (copied only when they are shared).
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => self.to_vec(),
        }
    }

    /// Mutable access, copying shared elements into an owned vector first.
    pub fn make_mut(&mut self) -> &mut Vec<T> {
        if let Repr::Shared { .. } = self.repr {
            self.repr = Repr::Owned(self.to_vec());
        }
        match &mut self.repr {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => unreachable!("converted to owned above"),
        }
    }
}

impl<T: Pod> From<Vec<T>> for Flat<T> {
    fn from(v: Vec<T>) -> Self {
        Self { repr: Repr::Owned(v) }
    }
}

impl<T: Pod> Default for Flat<T> {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl<T: Pod> Clone for Flat<T> {
    fn clone(&self) -> Self {
        match &self.repr {
            Repr::Owned(v) => v.clone().into(),
            Repr::Shared { ptr, len, owner } => {
                Self { repr: Repr::Shared { ptr: *ptr, len: *len, owner: owner.clone() } }
            }
        }
    }
}

impl<T: Pod> Deref for Flat<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            // SAFETY: `ptr`/`len` came from a checked cast of bytes that `owner` keeps alive and
            // unchanged (the `StableBytes` contract).
            Repr::Shared { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
        }
    }
}

impl<T: Pod + PartialEq> PartialEq for Flat<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for Flat<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Flat[{}; shared: {}]", self.len(), self.is_shared())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_sections_are_checked() {
        let words: Box<[u64]> = vec![1, 2, 3, 4].into_boxed_slice();
        let owner: Arc<dyn StableBytes> = Arc::new(words);
        let f = Flat::<u64>::from_shared(owner.clone(), 8, 2).unwrap();
        assert_eq!(&*f, &[2, 3]);
        assert!(Flat::<u64>::from_shared(owner.clone(), 8, 4).is_err());
        assert!(Flat::<u64>::from_shared(owner.clone(), 4, 1).is_err());
        assert!(Flat::<u64>::from_shared(owner.clone(), u64::MAX, 2).is_err());
        let mut g = f.clone();
        g.make_mut().push(9);
        assert_eq!(&*g, &[2, 3, 9]);
        assert_eq!(&*f, &[2, 3]);
    }
}
