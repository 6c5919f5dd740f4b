//! The objects' generation along the jet's path, alone (for profiling): `cargo run --release -p
//! landfall-bench --example objectsprof` (perf record it). Prints the world's update and the objects'
//! sync per frame.
use glam::DVec3;
use landfall::world::{CacheParams, ObjectParams, Objects, World, WorldParams};
use std::time::{Duration, Instant};

fn main() {
    let start = DVec3::new(100.0, 200.0, 0.0);
    let mut w: World = World::new(WorldParams::default(), CacheParams::default(), start + DVec3::Z * 500.0).unwrap();
    let mut o = Objects::new(&w, ObjectParams::default().with_roaming(None)).unwrap();
    let dir = DVec3::new(0.8, 0.6, 0.0) * 300.0 / 60.0;
    let (mut p, mut upd, mut sync, mut made) = (start, Duration::ZERO, Duration::ZERO, 0);
    let frames = 3000;
    for _ in 0..frames {
        p += dir;
        let g = w.height_at(p.x, p.y).unwrap_or(0.0);
        let t = Instant::now();
        w.update(DVec3::new(p.x, p.y, g + 500.0)).unwrap();
        upd += t.elapsed();
        let t = Instant::now();
        made += o.sync(&w).generated;
        sync += t.elapsed();
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    println!(
        "jet: update {:.1} µs, objects {:.1} µs per frame ({:.0} %), {:.1} made per frame",
        us(upd),
        us(sync),
        100.0 * us(sync) / us(upd),
        made as f64 / frames as f64
    );
}
