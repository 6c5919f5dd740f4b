//! After criterion has measured: read its estimates and print each peer's time as a ratio of
//! landfall's, so that a noisy shared machine still gives comparable numbers from one run.

use std::path::{Path, PathBuf};

fn criterion_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CRITERION_HOME") {
        return d.into();
    }
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// Median time per iteration in nanoseconds of `group/function/param`, if criterion has it.
pub fn median_ns(group: &str, function: &str, param: &str) -> Option<f64> {
    let p = criterion_dir().join(group).join(function).join(param).join("new/estimates.json");
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
    println!("\n{group}: median per query, ratio = peer / landfall (higher = landfall faster)");
    let mut head = format!("  {:<10} {:>12}", "terrain", "landfall");
    for p in peers {
        head += &format!(" {:>24}", p);
    }
    println!("{head}");
    for param in params {
        let Some(base) = median_ns(group, "landfall", param) else { continue };
        let mut row = format!("  {:<10} {:>12}", param, fmt_ns(base));
        for p in peers {
            row += &match median_ns(group, p, param) {
                Some(t) => format!(" {:>14} ({:>7.1}×)", fmt_ns(t), t / base),
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
