//! Memory maps of index files, guarded against the file changing under them
//! (`docs/robustness.md`, mapped files).
//!
//! Index files are written by rename, so a map keeps the old file whole; but another program may
//! still rewrite one in place (`cp small.lfh big.lfh` truncates it, then writes). A read of a
//! mapped page past the new end of the file then raises SIGBUS, which would kill the process. So:
//!
//! * every map is registered (its address range) in a fixed table that a SIGBUS handler reads;
//! * the handler, for a fault inside a registered map, maps a page of zeros over the faulting page
//!   (`mmap(MAP_FIXED)`: the read goes on and finds zeros) and counts the fault; a fault anywhere
//!   else is handed to the handler there was before (or the default: the process dies as it would
//!   have);
//! * [`check_mapped`] — called by the CLI after each chunk of queries and by Python after each call
//!   — reports a map that faulted, or whose file's size or modification time changed since it was
//!   mapped, as an error naming the file: the answers since the change are void.
//!
//! The guard lives here, at the one place index files are mapped, whatever the layout of the
//! structures read from the map.

use crate::IoError;
use landfall::support::StableBytes;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A read-only memory map of an index file (polygon or heightfield), registered with the guard.
pub(crate) struct Mapped {
    map: memmap2::Mmap,
    slot: Option<usize>,
}

/// Most maps guarded at once (more are mapped unguarded).
const SLOTS: usize = 256;

/// A guarded address range and its faults: read by the signal handler, so atomics only.
struct Range {
    start: AtomicUsize,
    end: AtomicUsize,
    faults: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)] // the initialiser of each slot
const EMPTY: Range = Range { start: AtomicUsize::new(0), end: AtomicUsize::new(0), faults: AtomicU64::new(0) };
static RANGES: [Range; SLOTS] = [EMPTY; SLOTS];

/// What the checks need of each guarded map (never touched by the handler).
struct Watch {
    path: PathBuf,
    file: File,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

static WATCHES: Mutex<Vec<Option<Watch>>> = Mutex::new(Vec::new());

impl Mapped {
    /// Guards `map` of `file` (opened from `path`).
    pub(crate) fn new(map: memmap2::Mmap, file: &File, path: &Path) -> Self {
        let slot = register(&map, file, path);
        Self { map, slot }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if let Some(k) = self.slot {
            RANGES[k].end.store(0, Ordering::Release);
            RANGES[k].start.store(0, Ordering::Release);
            if let Some(w) = WATCHES.lock().unwrap_or_else(|e| e.into_inner()).get_mut(k) {
                *w = None;
            }
        }
    }
}

fn register(map: &memmap2::Mmap, file: &File, path: &Path) -> Option<usize> {
    install_handler();
    let meta = file.metadata().ok()?;
    let mut watches = WATCHES.lock().unwrap_or_else(|e| e.into_inner());
    watches.resize_with(SLOTS, || None);
    let k = watches.iter().position(Option::is_none)?;
    watches[k] = Some(Watch {
        path: path.to_owned(),
        file: file.try_clone().ok()?,
        len: meta.len(),
        modified: meta.modified().ok(),
    });
    let start = map.as_ptr() as usize;
    RANGES[k].faults.store(0, Ordering::Release);
    RANGES[k].start.store(start, Ordering::Release);
    RANGES[k].end.store(start + map.len(), Ordering::Release);
    Some(k)
}

/// Reports, for every live map of the file opened as `path`, a read that faulted (the file was
/// truncated under it) or a change of the file's size or modification time since it was mapped.
///
/// ```
/// // A file that is not mapped has nothing to report.
/// assert!(landfall_io::check_mapped(std::path::Path::new("none.lfh")).is_ok());
/// ```
pub fn check_mapped(path: &Path) -> Result<(), IoError> {
    let watches = WATCHES.lock().unwrap_or_else(|e| e.into_inner());
    for (k, w) in watches.iter().enumerate() {
        let Some(w) = w.as_ref().filter(|w| w.path == path) else { continue };
        let faults = RANGES[k].faults.load(Ordering::Acquire);
        let now = w.file.metadata().ok();
        let changed = now.as_ref().is_none_or(|m| m.len() != w.len || m.modified().ok() != w.modified);
        if faults > 0 || changed {
            let what = if faults > 0 {
                format!("was truncated while being read ({faults} pages of it were gone)")
            } else {
                "was changed in place while being read".to_string()
            };
            return Err(IoError::format(
                path,
                format!(
                    "{what}; the answers since are void. Replace index files by writing a new file and renaming it"
                ),
            ));
        }
    }
    Ok(())
}

// SAFETY: a read-only private map keeps its address and length until dropped. Its pages change
// only if the file is rewritten in place, which the guard above turns from a SIGBUS into an error.
unsafe impl StableBytes for Mapped {
    fn stable_bytes(&self) -> &[u8] {
        &self.map
    }

    fn release(&self, range: std::ops::Range<usize>) {
        // Only the pages wholly inside the range: a page shared with bytes outside it stays.
        let page = page_size();
        let base = self.map.as_ptr() as usize;
        let start = (base + range.start).next_multiple_of(page) - base;
        let end = ((base + range.end.min(self.map.len())) / page * page).saturating_sub(base);
        if end > start {
            // SAFETY: the map is a read-only private map whose pages were never written, so
            // dropping them only makes the next read fault them in again from the file, with the
            // same contents (other threads reading meanwhile included).
            let _ = unsafe { self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start) };
        }
    }

    fn huge_pages(&self, on: bool) {
        let _ = self.map.advise(if on { memmap2::Advice::HugePage } else { memmap2::Advice::NoHugePage });
    }

    fn prefetch(&self, range: std::ops::Range<usize>) {
        let end = range.end.min(self.map.len());
        if end > range.start {
            let _ = self.map.advise_range(memmap2::Advice::WillNeed, range.start, end - range.start);
        }
    }
}

#[cfg(target_os = "linux")]
mod handler {
    use super::{page_size, Ordering, RANGES};
    use std::sync::atomic::AtomicPtr;

    /// The SIGBUS action there was before ours.
    static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());
    /// The page size, read before the handler can run.
    static PAGE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(4096);

    pub(super) fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            PAGE.store(page_size(), Ordering::Release);
            // SAFETY: sigaction with a zeroed, then filled struct; the old action is kept for
            // ever (leaked box) for the handler to hand foreign faults to.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_sigbus as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut act.sa_mask);
                let old = Box::into_raw(Box::new(std::mem::zeroed::<libc::sigaction>()));
                if libc::sigaction(libc::SIGBUS, &act, old) == 0 {
                    PREVIOUS.store(old, Ordering::Release);
                }
            }
        });
    }

    /// The handler: async-signal-safe (atomics, `mmap`, `sigaction`).
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        for r in &RANGES {
            let (start, end) = (r.start.load(Ordering::Acquire), r.end.load(Ordering::Acquire));
            if start <= addr && addr < end {
                let page = PAGE.load(Ordering::Acquire);
                let at = addr / page * page;
                // SAFETY: replaces one page of our own read-only map with zeros, at its address.
                let p = unsafe {
                    libc::mmap(
                        at as *mut libc::c_void,
                        page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if p != libc::MAP_FAILED {
                    r.faults.fetch_add(1, Ordering::AcqRel);
                    return;
                }
            }
        }
        // Not ours: what would have happened without us.
        let prev = PREVIOUS.load(Ordering::Acquire);
        // SAFETY: `prev` is the action saved at installation (or null).
        unsafe {
            if !prev.is_null() {
                let h = (*prev).sa_sigaction;
                if (*prev).sa_flags & libc::SA_SIGINFO != 0 && h > libc::SIG_IGN {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(h);
                    return f(sig, info, ctx);
                }
                if h > libc::SIG_IGN {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                    return f(sig);
                }
            }
            // The default action: restored, and the faulting read runs again and dies of it.
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
        }
    }
}

fn install_handler() {
    #[cfg(target_os = "linux")]
    handler::install();
}

/// The memory page size (4 KiB where the system does not say).
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf only reads a system value.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}
