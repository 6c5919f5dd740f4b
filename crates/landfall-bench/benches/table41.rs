//! The 2017 paper's Table 4.1: speed-up of "quadtree only" and of the full method over "no pruning"
//! on 1024² … 8192² maps with 32×32 leaves, worst-case diagonal ray (see `terrains::tilted`).
//!
//! `cargo bench -p landfall-bench --bench table41` (set LANDFALL_BENCH_QUICK=1 to stop at 2048²).

use criterion::{criterion_group, BenchmarkId, Criterion};
use landfall::bench::Baseline;
use landfall_bench::report::median_ns;
use landfall_bench::terrains::tilted;
use std::hint::black_box;
use std::time::Duration;

/// (map size, paper's "quadtree only" speed-up, paper's full-method speed-up).
const PAPER: [(usize, f64, f64); 4] =
    [(1024, 11.9, 743.2), (2048, 21.8, 1317.9), (4096, 43.6, 2298.5), (8192, 83.0, 3966.0)];

fn sizes() -> Vec<usize> {
    let quick = std::env::var("LANDFALL_BENCH_QUICK").is_ok();
    PAPER.iter().map(|p| p.0).filter(|&n| !quick || n <= 2048).collect()
}

fn table41(c: &mut Criterion) {
    let mut g = c.benchmark_group("table41");
    for n in sizes() {
        let (hf, ray) = tilted(n, 32);
        let mut leaf8 = hf.clone();
        leaf8.rebuild_pyramid(landfall::support::DEFAULT_LEAF_SIZE).unwrap();
        // The worst case must stay a miss for every method (it crosses every leaf's height range).
        assert_eq!(hf.raycast(&ray, 1.0), None);
        assert_eq!(hf.raycast_baseline(Baseline::QuadtreeOnly, &ray, 1.0), None);
        let id = format!("{n}");
        g.bench_function(BenchmarkId::new("no_pruning", &id), |b| {
            b.iter(|| black_box(hf.raycast_baseline(Baseline::NoPruning, &ray, 1.0)))
        });
        g.bench_function(BenchmarkId::new("quadtree_only", &id), |b| {
            b.iter(|| black_box(hf.raycast_baseline(Baseline::QuadtreeOnly, &ray, 1.0)))
        });
        g.bench_function(BenchmarkId::new("landfall", &id), |b| b.iter(|| black_box(hf.raycast(&ray, 1.0))));
        g.bench_function(BenchmarkId::new("landfall_leaf8", &id), |b| b.iter(|| black_box(leaf8.raycast(&ray, 1.0))));
    }
    g.finish();
}

fn summary() {
    println!(
        "\nTable 4.1 (2017 paper) reproduced: speed-up over \"no pruning\", 32×32 leaves, worst-case diagonal ray"
    );
    println!(
        "  {:<6} {:>12} {:>16} {:>16} {:>14} {:>14}",
        "map", "no pruning", "quadtree only", "landfall", "paper q-only", "paper method"
    );
    for (n, pq, pm) in PAPER {
        let id = format!("{n}");
        let (Some(np), Some(q), Some(l)) = (
            median_ns("table41", "no_pruning", &id),
            median_ns("table41", "quadtree_only", &id),
            median_ns("table41", "landfall", &id),
        ) else {
            continue;
        };
        let l8 = median_ns("table41", "landfall_leaf8", &id)
            .map_or(String::new(), |t| format!("   (leaf 8: {:.0}×, {:.2} µs)", np / t, t / 1e3));
        println!(
            "  {:<6} {:>9.2} ms {:>15.1}× {:>15.0}× {:>13.1}× {:>13.1}×   landfall {:.2} µs{l8}",
            n,
            np / 1e6,
            np / q,
            np / l,
            pq,
            pm,
            l / 1e3
        );
    }
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(1));
    targets = table41
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    summary();
}
