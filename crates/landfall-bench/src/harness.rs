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
