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
