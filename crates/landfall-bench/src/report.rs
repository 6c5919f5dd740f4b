//! After criterion has measured: read its estimates and print each peer's time as a ratio of
//! landfall's, so that a noisy shared machine still gives comparable numbers from one run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use criterion::Criterion;

/// When this process made its first [`criterion()`](fn@criterion): estimates older than that are
/// another run's.
static STARTED: OnceLock<SystemTime> = OnceLock::new();

/// Where criterion's results are: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else the
/// workspace's `target/criterion`, whatever the current directory.
pub fn criterion_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CRITERION_HOME") {
        return d.into();
    }
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// The criterion every benchmark here starts from: it writes into [`criterion_dir`], where
/// [`median_ns`] reads, so a bench binary run from any directory reports what it measured.
pub fn criterion() -> Criterion {
    STARTED.get_or_init(SystemTime::now);
    Criterion::default().output_directory(&criterion_dir())
}

/// Criterion's options that take a value (the filter is the first argument that is neither an
/// option nor such a value).
const VALUED: &[&str] = &[
    "--save-baseline",
    "-s",
    "--baseline",
    "-b",
    "--baseline-lenient",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--output-format",
    "--color",
    "-c",
    "--plotting-backend",
    "--format",
];

/// The benchmark filter given on the command line (`cargo bench --bench x -- FILTER`), if any.
pub fn filter() -> Option<String> {
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

/// Whether criterion will run the benchmark `id` (`group/function/param`), so that a bench skips
/// the set-up of what the filter leaves out. A filter is a regular expression to criterion; one
/// with any of its special characters is taken to select everything (the set-up runs, criterion
/// still filters), a plain one selects the ids that contain it (equal to it under `--exact`).
pub fn selected(id: &str) -> bool {
    match filter() {
        None => true,
        Some(f) if std::env::args().any(|a| a == "--exact") => id == f,
        Some(f) if f.contains(|c: char| "\\.+*?()|[]{}^$".contains(c)) => true,
        Some(f) => id.contains(&f),
    }
}

/// Median time per iteration in nanoseconds of `group/function/param`, if criterion measured it
/// in this process (an estimate left by an earlier run, say of a benchmark filtered out now, is
/// not reported).
pub fn median_ns(group: &str, function: &str, param: &str) -> Option<f64> {
    let p = criterion_dir().join(group).join(function).join(param).join("new/estimates.json");
    let started = *STARTED.get()?;
    if std::fs::metadata(&p).and_then(|m| m.modified()).ok()? < started {
        return None;
    }
    let text = std::fs::read_to_string(p).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// Prints a table: one row per param, landfall's time, then each peer's time and ratio.
pub fn print_ratios(group: &str, peers: &[&str], params: &[String]) {
    print_ratios_over(group, "landfall", peers, params)
}

/// [`print_ratios`] with the times of label `base` (landfall's path in `group`) as the base.
pub fn print_ratios_over(group: &str, base: &str, peers: &[&str], params: &[String]) {
    println!("\n{group}: median per query, ratio = peer / {base} (higher = {base} faster)");
    let mut head = format!("  {:<10} {:>12}", "terrain", base);
    for p in peers {
        head += &format!(" {:>24}", p);
    }
    println!("{head}");
    for param in params {
        let Some(t0) = median_ns(group, base, param) else { continue };
        let mut row = format!("  {:<10} {:>12}", param, fmt_ns(t0));
        for p in peers {
            row += &match median_ns(group, p, param) {
                Some(t) => format!(" {:>14} ({:>7.1}×)", fmt_ns(t), t / t0),
                None => format!(" {:>24}", "—"),
            };
        }
        println!("{row}");
    }
}

/// Prints how many times faster `group`'s batch ran on all threads than on one, for `param`, when
/// criterion measured both (see [`crate::harness::batch_thread_counts`]).
pub fn print_batch_speedup(group: &str, param: &str, what: &str) {
    let all = rayon::current_num_threads();
    if all < 2 {
        return;
    }
    if let (Some(one), Some(many)) =
        (median_ns(group, "threads1", param), median_ns(group, &format!("threads{all}"), param))
    {
        println!("\n{what} on {param}: {:.2}× faster on {all} threads than on 1", one / many);
    }
}
