//! The paths bench's query alone (for profiling): the same 334 discs over 1.6 km of flat ground,
//! one planner, `queries` warm queries from (100, 700) to (1500, 900) for the walker (0.5 m) or
//! the giant (20 m); prints the CPU time a query, the length and the corners.
//! `cargo run --profile bench -p landfall-bench --example pathprof [queries] [walker|giant]`
//! (callgrind it with `--toggle-collect=*find_path*`, or perf record it).
use glam::DVec2;
use landfall::world::{Agent, Planner};
use landfall_bench::paths_scene::{ends, ground, obstacles, SIDE};
use std::hint::black_box;

/// This thread's CPU time in seconds.
fn cpu() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let queries: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let r = if std::env::args().nth(2).is_some_and(|a| a == "giant") { 20.0 } else { 0.5 };
    let ground = ground();
    let (a, b) = ends();
    let discs = obstacles(a, b);
    let mut planner = Planner::new(&ground, &discs, Agent::default().with_radius(r), DVec2::ZERO, SIDE).unwrap();
    let first = planner.find_path(a, b).unwrap();
    let t = cpu();
    for _ in 0..queries {
        black_box(planner.find_path(black_box(a), black_box(b)).unwrap());
    }
    let per = (cpu() - t) / queries as f64;
    println!(
        "radius {r} m: {:.4} ms a query (cpu), {:.2} m, {} corners",
        per * 1e3,
        first.length(),
        first.points.len()
    );
}
