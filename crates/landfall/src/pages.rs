//! Sample buffers on 2 MiB pages where the operating system offers them.
//!
//! A large grid's samples span thousands of 4 KiB pages (16,400 for 4097²), and random vertical
//! queries miss the TLB on most of them. Marked for transparent huge pages before their first
//! write, they take 2 MiB pages instead, and `height_at` at random points on 4097² is faster
//! (`docs/benchmarks.md`). A buffer that the allocator
//! takes from memory it has used before is already mapped: the advice then only lets the kernel
//! merge its pages later.

/// Buffers smaller than this are left on the default pages.
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// A zeroed buffer of `len` samples for a grid of heights (a heightfield's builder keeps the `Vec`
/// it is given). On Linux, a buffer of 4 MiB or more is marked for transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`) before anything is written to it, so that writing the samples maps 2
/// MiB pages where the kernel allows it (its `transparent_hugepage` setting `madvise` or `always`).
/// Elsewhere, or when the kernel declines, it is an ordinary zeroed `Vec`. The synthetic terrain
/// generator, the world's `Generator::corner_grid` and `landfall_io`'s GeoTIFF and NumPy readers
/// fill their heights through it.
///
/// ```
/// let heights = landfall::support::sample_buffer(3 * 3);
/// assert_eq!(heights, vec![0.0; 9]);
/// ```
pub fn sample_buffer(len: usize) -> Vec<f32> {
    // Zeroed by the allocator: a large allocation is fresh, untouched memory from the OS.
    let v = vec![0f32; len];
    let bytes = std::mem::size_of_val(v.as_slice());
    if bytes >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(v.as_ptr().cast(), bytes);
    }
    v
}

/// Marks the whole 4 KiB pages within `len` bytes from `start` for transparent huge pages. Only a
/// hint: a failure changes nothing but the page size.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *const u8, len: usize) {
    use std::ffi::{c_int, c_void};
    extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    const MADV_HUGEPAGE: c_int = 14;
    const PAGE: usize = 4096;
    let (a, b) = ((start as usize).next_multiple_of(PAGE), (start as usize + len) / PAGE * PAGE);
    if b > a {
        // SAFETY: the range lies inside the live allocation starting at `start`; MADV_HUGEPAGE
        // changes how its pages are backed, not their contents.
        let _ = unsafe { madvise(a as *mut c_void, b - a, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *const u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small and large buffers are zeroed and of the asked length (the advice changes nothing else).
    #[test]
    fn sample_buffers_are_zeroed() {
        for len in [0, 1, 1000, (HUGE_PAGE_MIN_BYTES / 4) + 12_345] {
            let v = sample_buffer(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 0.0));
        }
    }

    /// On a Linux kernel with transparent huge pages, a large buffer's memory carries the advice
    /// (`hg` among its mapping's `VmFlags` in /proc/self/smaps).
    #[cfg(target_os = "linux")]
    #[test]
    fn large_sample_buffers_are_advised_for_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let v = sample_buffer(HUGE_PAGE_MIN_BYTES / 2);
        let addr = v.as_ptr() as usize + HUGE_PAGE_MIN_BYTES;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        // The mapping holding `addr`: its header line "start-end …", then its fields.
        let mut flags = None;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-') && !r.ends_with(':')) {
                let (a, b) = range.split_once('-').unwrap();
                let (a, b) = (usize::from_str_radix(a, 16).unwrap(), usize::from_str_radix(b, 16).unwrap());
                inside = a <= addr && addr < b;
            } else if inside && line.starts_with("VmFlags:") {
                flags = Some(line.to_string());
            }
        }
        let flags = flags.expect("the buffer's mapping in /proc/self/smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }
}
