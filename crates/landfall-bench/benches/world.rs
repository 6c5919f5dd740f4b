//! The procedural world (thesis `004`, section 6.1 configuration: 16 layers of 40 × 40 cells, 1 m
//! finest cells, mesh layers 1–12): cells generated per second, and the per-frame update at 60 fps
//! (cache shift, cell generation, mesh regions) for a walker, a car, a jet and a teleport — with
//! toroidal arrays (`landfall`), with a hash table of cells (`hashed`, the alternative the thesis
//! mentions) and rebuilding the whole cache and mesh every frame (`rebuild`).
//!
//! Printed after them, `objects`: the same motions (600 frames) with the world filled
//! (`world::Objects`, default kinds and roaming entities): per frame the world's update, the objects'
//! (cells that entered generate theirs, those that left drop theirs), the roaming entities' moves and
//! every pair from the dual quad-tree; pairs per second and grid cells entered or left per frame.
//!
//! `cargo bench -p landfall-bench --bench world`

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use glam::DVec3;
use landfall::bench::{CellStore, Hashed, Toroidal};
use landfall::support::SplitMix64;
use landfall::world::{CacheParams, Generator, World, WorldParams};
use landfall_bench::report::print_ratios;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn generation(c: &mut Criterion) {
    let mut g = c.benchmark_group("world_generate");
    let gen = Generator::new(WorldParams::default()).unwrap();
    let n = 256usize;
    g.throughput(Throughput::Elements((n * n) as u64));
    let mut k = 0i64;
    g.bench_function(BenchmarkId::new("landfall", "level0_256x256"), |b| {
        b.iter(|| {
            // A new place each time: nothing is reused between iterations.
            k += 1;
            black_box(gen.patch(0, k * 4096, -k * 2048, n, n))
        })
    });
    g.finish();
}

/// A way of moving: metres per frame along a heading, height above the ground; or teleports.
#[derive(Clone, Copy)]
struct Motion {
    name: &'static str,
    step: f64,
    above: f64,
    teleport: bool,
}

const MOTIONS: [Motion; 4] = [
    Motion { name: "walker", step: 1.5 / 60.0, above: 1.8, teleport: false },
    Motion { name: "car", step: 30.0 / 60.0, above: 1.5, teleport: false },
    Motion { name: "jet", step: 300.0 / 60.0, above: 500.0, teleport: false },
    Motion { name: "teleport", step: 0.0, above: 2.0, teleport: true },
];

/// Runs `iters` frames of `m` on `w`, timing only the updates; `rebuild` regenerates everything
/// each frame instead of updating.
fn frames<S: CellStore>(w: &mut World<S>, m: Motion, iters: u64, rng: &mut SplitMix64, rebuild: bool) -> Duration {
    let heading = DVec3::new(0.8, 0.6, 0.0);
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let p = w.viewer();
        let next = if m.teleport {
            DVec3::new(rng.range(-1e6, 1e6), rng.range(-1e6, 1e6), 0.0)
        } else {
            let q = p + heading * m.step;
            // Keep clear of the addressable limit on very long runs.
            if q.x > 5e8 {
                DVec3::new(0.0, 0.0, 0.0)
            } else {
                q
            }
        };
        let ground = w.height_at(next.x, next.y).unwrap_or(0.0);
        let next = DVec3::new(next.x, next.y, ground + m.above);
        let t = Instant::now();
        let s = if rebuild {
            w.rebuild(next)
        } else if m.teleport {
            w.teleport(next)
        } else {
            w.update(next)
        };
        total += t.elapsed();
        black_box(s.unwrap());
    }
    total
}

fn world_at<S: CellStore>(m: Motion) -> World<S> {
    let mut w = World::<S>::new(WorldParams::default(), CacheParams::default(), DVec3::new(0.3, 0.7, 2000.0)).unwrap();
    let g = w.height_at(0.3, 0.7).unwrap_or(0.0);
    w.teleport(DVec3::new(0.3, 0.7, g + m.above)).unwrap();
    w
}

fn updates(c: &mut Criterion) {
    let mut g = c.benchmark_group("world_frame");
    for m in MOTIONS {
        let mut rng = SplitMix64::new(7);
        let mut w = world_at::<Toroidal>(m);
        eprintln!(
            "{}: cache + mesh {:.2} MB, {} triangles drawn, finest active layer {}",
            m.name,
            w.memory_bytes() as f64 / 1048576.0,
            w.meshes().map(|l| l.triangles()).sum::<usize>(),
            w.finest_active()
        );
        g.bench_function(BenchmarkId::new("landfall", m.name), |b| {
            b.iter_custom(|iters| frames(&mut w, m, iters, &mut rng, false))
        });
        let mut h = world_at::<Hashed>(m);
        g.bench_function(BenchmarkId::new("hashed", m.name), |b| {
            b.iter_custom(|iters| frames(&mut h, m, iters, &mut rng, false))
        });
        let mut r = world_at::<Toroidal>(m);
        g.bench_function(BenchmarkId::new("rebuild", m.name), |b| {
            b.iter_custom(|iters| frames(&mut r, m, iters, &mut rng, true))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = generation, updates
}

/// The objects' costs beside the world's update, per motion (printed).
fn objects() {
    use landfall::world::{ObjectParams, Objects};
    println!("\nobjects (thesis configuration, 600 frames at 60 fps; µs per frame, one thread)");
    println!(
        "{:<10} {:>10} {:>10} {:>9} {:>9} {:>10} {:>12} {:>9}",
        "motion", "world", "objects", "entities", "pairs", "objects/%", "pairs/s", "held"
    );
    for m in MOTIONS {
        let mut rng = SplitMix64::new(9);
        let mut w = world_at::<Toroidal>(m);
        let mut o = Objects::new(&w, ObjectParams::default()).unwrap();
        let (mut tw, mut to, mut te, mut tp, mut pairs) = (0.0, 0.0, 0.0, 0.0, 0usize);
        let frames_n = 600;
        for _ in 0..frames_n {
            tw += frames(&mut w, m, 1, &mut rng, false).as_secs_f64();
            let t = Instant::now();
            black_box(o.sync(&w));
            to += t.elapsed().as_secs_f64();
            let t = Instant::now();
            o.step(&w, 1.0 / 60.0);
            te += t.elapsed().as_secs_f64();
            let t = Instant::now();
            o.pairs(|_, _| pairs += 1);
            tp += t.elapsed().as_secs_f64();
        }
        let n = frames_n as f64;
        println!(
            "{:<10} {:>10.1} {:>10.1} {:>9.1} {:>9.1} {:>9.0}% {:>12.0} {:>9}",
            m.name,
            tw / n * 1e6,
            to / n * 1e6,
            te / n * 1e6,
            tp / n * 1e6,
            100.0 * to / tw.max(1e-12),
            pairs as f64 / tp.max(1e-12),
            o.len()
        );
    }
}

fn main() {
    benches();
    objects();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    let params: Vec<String> = MOTIONS.iter().map(|m| m.name.to_string()).collect();
    print_ratios("world_frame", &["hashed", "rebuild"], &params);
    if let Some(ns) = landfall_bench::report::median_ns("world_generate", "landfall", "level0_256x256") {
        println!("\nworld_generate: {:.1} M cells per second (one thread)", 65536.0 / ns * 1e3);
    }
}
