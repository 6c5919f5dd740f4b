//! Behaviours with levels of detail (thesis 5.2–5.4): what one frame costs as the world grows and
//! the view stays the same.
//!
//! Entities box-step on squares of 0.6 m, one in every 10 m × 10 m cell of a square world
//! (jittered), radius 0.4 m, 0.3–0.7 m/s, the default beat schedule. The viewer walks a circle of
//! 100 m radius round the world's centre at 1.5 m/s, looking ahead (field of view ±0.6 rad, 60 m
//! deep), 30 frames per second; the importance thresholds are raised from the defaults so that an
//! entity is dormant beyond about 240 m ([`params`]). One iteration = one frame: the events up to
//! it, the representations picked for the entities near the viewer, the snaps. Each run is first
//! walked 10 simulated seconds into its steady state.
//!
//! - `behave_frame/lod/10k` and `lod/100k`: 10,000 entities (a 1 km square) and 100,000 (3.16 km):
//!   the cost should follow what is near the viewer, not what exists (target ≤ 1.5×);
//! - `behave_frame/all-full/100k`: the same 100,000 with every entity at full detail (a move
//!   every beat with avoidance, every entity looked at every frame) — target ≥ 10× the `lod` frame.
//!
//! `cargo bench -p landfall-bench --bench behave`

use criterion::{criterion_group, BenchmarkId, Criterion};
use landfall::behave::{Behaviours, CrowdParams, Entity, FieldOfView, ImportanceParams, Route, Viewer};
use landfall::glam::DVec2;
use landfall::support::SplitMix64;
use std::hint::black_box;
use std::time::Duration;

const CELL: f64 = 10.0;
const FPS: f64 = 30.0;
const WALK: (f64, f64) = (100.0, 1.5);

/// `n` entities, one per cell of a square world centred on the origin.
fn world(n: usize) -> Vec<Entity> {
    let side = (n as f64).sqrt().ceil() as usize;
    let mut rng = SplitMix64::new(73);
    (0..n)
        .map(|k| {
            let cell = DVec2::new((k % side) as f64, (k / side) as f64) - side as f64 / 2.0;
            let at = (cell + DVec2::new(rng.range(0.2, 0.8), rng.range(0.2, 0.8))) * CELL;
            Entity {
                seed: rng.next_u64(),
                route: Route::box_step(at, 0.6).unwrap(),
                radius: 0.4,
                speed: rng.range(0.3, 0.7),
            }
        })
        .collect()
}

/// The importance thresholds of the benchmark: dormant beyond about 240 m.
fn params() -> CrowdParams {
    let importance = ImportanceParams::default()
        .with_min_projected(0.02)
        .with_full_enter(0.04)
        .with_full_leave(0.03)
        .with_approx_enter(0.02)
        .with_approx_leave(0.015);
    CrowdParams::default().with_importance(importance)
}

/// The viewer at frame `f`.
fn view(f: u64) -> (f64, Viewer, FieldOfView) {
    let t = f as f64 / FPS;
    let (r, speed) = WALK;
    let a = speed / r * t;
    let (sin, cos) = a.sin_cos();
    let ahead = DVec2::new(-sin, cos);
    let viewer = Viewer { position: DVec2::new(cos, sin) * r, velocity: ahead * speed };
    (t, viewer, FieldOfView { direction: ahead, half_angle: 0.6, range: 60.0 })
}

/// A crowd walked into its steady state; the next frame's number.
fn warmed(n: usize, params: CrowdParams) -> (Behaviours, u64) {
    let mut b = Behaviours::new(world(n), params).unwrap();
    let warm = (10.0 * FPS) as u64;
    for f in 0..warm {
        let (t, v, fov) = view(f);
        b.frame(t, &v, &fov).unwrap();
    }
    (b, warm)
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("behave_frame");
    for (label, n, all_full) in [("lod", 10_000, false), ("lod", 100_000, false), ("all-full", 100_000, true)] {
        let (mut b, mut f) = warmed(n, params().with_all_full(all_full));
        let mut last = Default::default();
        g.bench_function(BenchmarkId::new(label, format!("{}k", n / 1000)), |bench| {
            bench.iter(|| {
                let (t, v, fov) = view(f);
                f += 1;
                last = black_box(b.frame(t, &v, &fov).unwrap());
            })
        });
        println!("behave_frame/{label}/{}k: last frame {last:?}", n / 1000);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    targets = frames
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    let m = |label: &str, n: &str| landfall_bench::report::median_ns("behave_frame", label, n);
    if let (Some(small), Some(big), Some(full)) = (m("lod", "10k"), m("lod", "100k"), m("all-full", "100k")) {
        println!("\nbehave_frame: median per frame");
        println!("  lod 10k {:.1} µs, lod 100k {:.1} µs, all-full 100k {:.1} µs", small / 1e3, big / 1e3, full / 1e3);
        println!("  100k / 10k with levels of detail: {:.2}× (target ≤ 1.5×)", big / small);
        println!("  all full / levels of detail at 100k: {:.1}× (target ≥ 10×)", full / big);
    }
}
