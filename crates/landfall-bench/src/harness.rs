//! Small helpers every benchmark file uses.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Benchmarks one query per iteration, cycling through the set.
pub fn cycle<T>(b: &mut criterion::Bencher, set: &[T], mut f: impl FnMut(&T)) {
    let mut k = 0;
    b.iter(|| {
        f(black_box(&set[k]));
        k = if k + 1 == set.len() { 0 } else { k + 1 };
    })
}

/// The value of `f()` and how long it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let s = Instant::now();
    let v = f();
    (v, s.elapsed())
}

/// The thread counts a batch benchmark compares: one thread, and every thread of rayon's global
/// pool when that is more than one (`RAYON_NUM_THREADS=1` leaves only the first).
pub fn batch_thread_counts() -> Vec<usize> {
    let all = rayon::current_num_threads();
    if all > 1 {
        vec![1, all]
    } else {
        vec![1]
    }
}

/// A rayon pool of `threads` threads, for timing work on a fixed number of threads.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon thread pool")
}

/// A memory figure of this process from `/proc/self/status` in bytes (`VmRSS`: resident now,
/// `VmHWM`: the peak since the last [`reset_peak_memory`]); `None` off Linux.
pub fn process_memory(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    let kib: u64 = line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Resets this process's `VmHWM` to its resident size now (Linux: `5` into
/// `/proc/self/clear_refs`), so that the next peak measures what runs after; false if it cannot.
pub fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
