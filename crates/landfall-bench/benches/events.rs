//! Event-driven behaviours: events per second of the balls-on-a-line simulation (thesis 5.1.6).
//!
//! - `events_line/landfall/100k`: 100,000 balls of random sizes (slots of 1 m, radii 5–45 %),
//!   masses 0.1–10 and speeds ±5 m/s between walls 100 km apart; one iteration = 100,000 events
//!   (collisions and wall bounces) carried out, each with its four re-predictions. The simulation
//!   continues from iteration to iteration, so the queue is in its steady state.
//!
//! - `terrain vs fixed step` (printed): 1,000 balls thrown over a generated 513² terrain (10 m
//!   cells), restitution 0.7, 10 simulated seconds, simulated by events (`events::TerrainBalls`)
//!   and by the usual game loop at 60 and 240 steps per second (semi-implicit Euler; after each
//!   step a ball below the ground is pushed out along the normal and its velocity reflected, balls
//!   that overlap are separated and their velocities exchanged along the centre line, found with the
//!   dual quad-tree). Tunnelling = balls whose centre ends a frame below the ground surface or that
//!   passed through another ball; energy drift = the total energy's change with restitution 1.
//!
//! - `100,000 balls` (printed): 100,000 balls thrown over a generated 4097² terrain (10 m cells,
//!   1,500 m relief), restitution 0.7, 10 simulated seconds at 60 frames per second: the full event
//!   simulation (ball–ball predictions only between neighbours, by the dual quad-tree of the window
//!   boxes), the same with the level of detail of behaviour (balls more than 3 km from a viewer at
//!   the centre ignore each other: events and predictions saved), and the 60 Hz loop.
//!
//! `cargo bench -p landfall-bench --bench events`

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use landfall::events::{LineBall, LineBalls, Simulation};
use landfall::support::SplitMix64;
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

/// The balls of the terrain comparisons: radii 2–6 m, 10–60 m above the ground, none overlapping.
fn throw(t: &dyn landfall::Terrain, n: usize) -> Vec<landfall::events::Ball> {
    use landfall::broad::ProximityGrid;
    use landfall::glam::DVec3;
    let mut rng = SplitMix64::new(5);
    let b = t.bounds();
    let mut balls: Vec<landfall::events::Ball> = Vec::new();
    let mut grid = ProximityGrid::new(2.0).unwrap();
    while balls.len() < n {
        let (x, y) = (rng.range(b.min.x + 500.0, b.max.x - 500.0), rng.range(b.min.y + 500.0, b.max.y - 500.0));
        let z = t.top_surface(DVec3::new(x, y, 0.0)).unwrap().point.z;
        let r = rng.range(2.0, 6.0);
        let p = DVec3::new(x, y, z + r + rng.range(10.0, 60.0));
        let mut clear = true;
        grid.within_radius(p, r, |_| clear = false);
        if clear {
            let v = DVec3::new(rng.range(-8.0, 8.0), rng.range(-8.0, 8.0), rng.range(0.0, 15.0));
            grid.insert(balls.len() as u64, p, r).unwrap();
            balls.push(landfall::events::Ball { p, v, r, m: r * r * r });
        }
    }
    balls
}

/// The usual game loop: fixed steps, push-out and reflection. Returns (tunnelled balls, energy).
fn fixed_step(
    hf: &landfall::Heightfield,
    balls: &[landfall::events::Ball],
    hz: f64,
    until: f64,
    e: f64,
) -> (usize, f64) {
    use landfall::broad::ProximityGrid;
    use landfall::glam::DVec3;
    let g = DVec3::new(0.0, 0.0, -9.81);
    let (mut p, mut v): (Vec<DVec3>, Vec<DVec3>) =
        (balls.iter().map(|b| b.p).collect(), balls.iter().map(|b| b.v).collect());
    let mut tunnelled = vec![false; balls.len()];
    let mut grid = ProximityGrid::new(1.0).unwrap();
    for (k, b) in balls.iter().enumerate() {
        grid.insert(k as u64, b.p, b.r).unwrap();
    }
    let dt = 1.0 / hz;
    for _ in 0..(until * hz) as usize {
        for k in 0..balls.len() {
            v[k] += g * dt;
            let before = p[k];
            p[k] += v[k] * dt;
            let r = balls[k].r;
            match hf.surface_at(p[k].x, p[k].y) {
                Some(s) if p[k].z - r < s.point.z => {
                    // Tunnelled: the ball's path crossed a ridge it never touched in a step, or its
                    // centre went below the ground.
                    if p[k].z < s.point.z
                        || hf
                            .raycast(&landfall::Ray::new(before, p[k] - before), 1.0)
                            .is_some_and(|h| h.t < 1.0 && (h.point - before).length() > r)
                    {
                        tunnelled[k] = true;
                    }
                    let n = s.normal;
                    let depth = (s.point.z + r - p[k].z) * n.z;
                    p[k] += n * depth;
                    let vn = v[k].dot(n);
                    if vn < 0.0 {
                        v[k] -= n * ((1.0 + e) * vn);
                    }
                }
                _ => {}
            }
            let _ = grid.update(k as u64, p[k], r);
        }
        let mut pairs = Vec::new();
        grid.pairs(|a, b| pairs.push((a as usize, b as usize)));
        for (a, b) in pairs {
            let n = (p[b] - p[a]).normalize_or_zero();
            let rel = (v[b] - v[a]).dot(n);
            let (ma, mb) = (balls[a].m, balls[b].m);
            if rel < 0.0 {
                let j = (1.0 + e) * rel / (1.0 / ma + 1.0 / mb);
                v[a] += n * (j / ma);
                v[b] -= n * (j / mb);
            }
            let overlap = balls[a].r + balls[b].r - (p[b] - p[a]).length();
            if overlap > 0.5 * balls[a].r.min(balls[b].r) {
                tunnelled[a] = true;
                tunnelled[b] = true;
            }
        }
    }
    let energy = (0..balls.len()).map(|k| balls[k].m * (0.5 * v[k].length_squared() - g.dot(p[k]))).sum();
    (tunnelled.iter().filter(|&&t| t).count(), energy)
}

/// Events beside the 60 and 240 Hz loops, on the same balls.
fn terrain_vs_fixed_step() {
    use landfall::bench::synth::{generate, SynthParams};
    use landfall::events::{BallParams, TerrainBalls};
    use std::time::Instant;
    let n = 513;
    let h = generate(n, n, &SynthParams { relief: 300.0, ..Default::default() });
    let hf = landfall::Heightfield::builder(n, n, h).spacing(10.0, 10.0).build().unwrap();
    let balls = throw(&hf, 1000);
    let until = 10.0;
    println!("terrain vs fixed step: 1,000 balls over 513² (10 m cells, 300 m relief), {until} s simulated");
    println!("{:<28} {:>9} {:>10} {:>14} {:>18}", "", "time", "events", "tunnelled", "energy drift (e=1)");
    for elastic in [false, true] {
        let e = if elastic { 1.0 } else { 0.7 };
        let params = BallParams::default().with_restitution(e).with_rest_speed(if elastic { 0.0 } else { 0.5 });
        let start = Instant::now();
        let mut sim = Simulation::new(TerrainBalls::new(&hf, vec![], &balls, params).unwrap(), 0.0);
        let e0 = sim.model().energy(0.0);
        let mut events = 0;
        for f in 1..=(until * 60.0) as usize {
            events += sim.advance_to(f as f64 / 60.0, |_, _| {});
        }
        let t_events = start.elapsed().as_secs_f64();
        let drift = (sim.model().energy(until) - e0) / e0;
        // Below the ground at the end (brute force on every ball).
        let m = sim.model();
        let under = (0..balls.len() as u32)
            .filter(|&k| {
                m.is_alive(k)
                    && hf
                        .height_at(m.position(k, until).x, m.position(k, until).y)
                        .is_some_and(|g| m.position(k, until).z < g)
            })
            .count();
        if elastic {
            println!("{:<28} {:>9.3} {:>10} {:>14} {:>18.2e}", "events (e = 1)", t_events, events, under, drift);
        } else {
            println!("{:<28} {:>9.3} {:>10} {:>14} {:>18}", "events (e = 0.7)", t_events, events, under, "-");
        }
        for hz in [60.0, 240.0] {
            let start = Instant::now();
            let (tunnelled, energy) = fixed_step(&hf, &balls, hz, until, e);
            let t = start.elapsed().as_secs_f64();
            let label = format!("fixed step {hz} Hz (e = {e})");
            if elastic {
                println!(
                    "{:<28} {:>9.3} {:>10} {:>14} {:>18.2e}",
                    label,
                    t,
                    (hz * until) as u64,
                    tunnelled,
                    (energy - e0) / e0
                );
            } else {
                println!("{:<28} {:>9.3} {:>10} {:>14} {:>18}", label, t, (hz * until) as u64, tunnelled, "-");
            }
        }
    }
}

/// 100,000 balls over 4097²: events with and without the level of detail of behaviour, and the
/// 60 Hz loop.
fn many_balls() {
    use landfall::bench::synth::{generate, SynthParams};
    use landfall::events::{BallParams, BehaviourLod, TerrainBalls};
    use landfall::glam::DVec3;
    use std::time::Instant;
    let n = 4097;
    let h = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() });
    let hf = landfall::Heightfield::builder(n, n, h).spacing(10.0, 10.0).build().unwrap();
    let balls = throw(&hf, 100_000);
    let until = 10.0;
    let centre = DVec3::new(20_480.0, 20_480.0, hf.height_at(20_480.0, 20_480.0).unwrap() + 2.0);
    println!("100,000 balls over 4097² (10 m cells, 1,500 m relief), e = 0.7, {until} s simulated at 60 frames/s");
    println!("{:<34} {:>9} {:>10} {:>11} {:>12}", "", "time", "events", "ball–ball", "predictions");
    let base = BallParams::default().with_restitution(0.7).with_rest_speed(0.5);
    let lod = base.with_lod(Some(BehaviourLod { viewer: centre, range: 3000.0 }));
    for (label, params) in [("events, full", base), ("events, LOD (3 km around centre)", lod)] {
        let start = Instant::now();
        let mut sim = Simulation::new(TerrainBalls::new(&hf, vec![], &balls, params).unwrap(), 0.0);
        let mut events = 0;
        for f in 1..=(until * 60.0) as usize {
            events += sim.advance_to(f as f64 / 60.0, |_, _| {});
        }
        let t = start.elapsed().as_secs_f64();
        let c = sim.model().counts();
        println!("{label:<34} {t:>9.2} {events:>10} {:>11} {:>12}", c.balls, sim.stats().scheduled);
    }
    let start = Instant::now();
    let (tunnelled, _) = fixed_step(&hf, &balls, 60.0, until, 0.7);
    let t = start.elapsed().as_secs_f64();
    println!("{:<34} {t:>9.2} {:>10} {:>11} {:>12}   ({tunnelled} balls tunnelled)", "fixed step 60 Hz", 600, "-", "-");
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = line
}

fn main() {
    terrain_vs_fixed_step();
    many_balls();
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
}
