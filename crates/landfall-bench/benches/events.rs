//! Event-driven behaviours: events per second of the balls-on-a-line simulation (thesis 5.1.6).
//!
//! - `events_line/landfall/100k`: 100,000 balls of random sizes (slots of 1 m, radii 5–45 %),
//!   masses 0.1–10 and speeds ±5 m/s between walls 100 km apart; one iteration = 100,000 events
//!   (collisions and wall bounces) carried out, each with its four re-predictions. The simulation
//!   continues from iteration to iteration, so the queue is in its steady state.
//!
//! `cargo bench -p landfall-bench --bench events`

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use landfall::events::{LineBall, LineBalls, Simulation};
use landfall::rng::SplitMix64;
use std::hint::black_box;
use std::time::Duration;

const BALLS: usize = 100_000;
const EVENTS_PER_ITER: u64 = 100_000;

fn line(c: &mut Criterion) {
    let mut rng = SplitMix64::new(11);
    let balls: Vec<LineBall> = (0..BALLS)
        .map(|k| {
            let r = rng.range(0.05, 0.45);
            LineBall { x: k as f64 + 0.5, v: rng.range(-5.0, 5.0), r, m: rng.range(0.1, 10.0) }
        })
        .collect();
    let mut sim = Simulation::new(LineBalls::new(&balls, 0.0, BALLS as f64).unwrap(), 0.0);
    // Into the steady state.
    for _ in 0..EVENTS_PER_ITER {
        sim.step(f64::INFINITY);
    }
    let mut g = c.benchmark_group("events_line");
    g.throughput(Throughput::Elements(EVENTS_PER_ITER));
    g.bench_function(BenchmarkId::new("landfall", "100k"), |b| {
        b.iter(|| {
            for _ in 0..EVENTS_PER_ITER {
                black_box(sim.step(f64::INFINITY));
            }
        })
    });
    g.finish();
    let s = sim.stats();
    println!(
        "events_line/100k: {} delivered, {} scheduled ({:.2} per event), {} invalidated, simulated time {:.3} s",
        s.delivered,
        s.scheduled,
        s.scheduled as f64 / s.delivered as f64,
        s.invalidated,
        sim.now()
    );
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = line
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
}
