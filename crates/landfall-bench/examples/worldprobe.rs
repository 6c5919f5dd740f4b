//! Quick timing of the world's update paths (for profiling): `cargo run --release -p landfall-bench --example worldprobe`.
use glam::DVec3;
use landfall::bench::Hashed;
use landfall::world::{CacheParams, Generator, World, WorldParams};
use std::time::Instant;

fn run<S: landfall::world::CellStore>(name: &str, speed: f64, frames: usize, above: f64) {
    let start = DVec3::new(100.0, 200.0, 0.0);
    let mut w: World<S> =
        World::new(WorldParams::default(), CacheParams::default(), start + DVec3::Z * 2000.0).unwrap();
    let dir = DVec3::new(0.8, 0.6, 0.0) * speed / 60.0;
    let mut p = start;
    let g = w.height_at(p.x, p.y).unwrap_or(0.0);
    w.teleport(DVec3::new(p.x, p.y, g + above)).unwrap();
    let t = Instant::now();
    let (mut cells, mut verts) = (0, 0);
    for _ in 0..frames {
        p += dir;
        let g = w.height_at(p.x, p.y).unwrap_or(0.0);
        let s = w.update(DVec3::new(p.x, p.y, g + above)).unwrap();
        cells += s.cells_generated;
        verts += s.vertices_written;
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{name:<10} {:>8.2} µs/frame  {:>7.1} cells/frame {:>8.1} vertices/frame  mem {:.2} MB",
        dt / frames as f64 * 1e6,
        cells as f64 / frames as f64,
        verts as f64 / frames as f64,
        w.memory_bytes() as f64 / 1048576.0
    );
}

fn main() {
    let g = Generator::new(WorldParams::default()).unwrap();
    let t = Instant::now();
    let mut n = 0;
    for k in 0..20 {
        n += g.patch(0, k * 1000, 0, 256, 256).len();
    }
    println!("generation: {:.1} M cells/s", n as f64 / t.elapsed().as_secs_f64() / 1e6);
    if std::env::var("ONLY_CAR").is_ok() {
        run::<landfall::world::Toroidal>("car", 30.0, 200000, 1.5);
        return;
    }
    run::<landfall::world::Toroidal>("walker", 1.5, 20000, 1.8);
    run::<landfall::world::Toroidal>("car", 30.0, 20000, 1.5);
    run::<landfall::world::Toroidal>("jet", 300.0, 5000, 500.0);
    run::<Hashed>("car/hash", 30.0, 20000, 1.5);
    let mut w: World = World::new(WorldParams::default(), CacheParams::default(), DVec3::new(0.0, 0.0, 2.0)).unwrap();
    let t = Instant::now();
    for k in 0..20 {
        let s = w.teleport(DVec3::new(k as f64 * 97_000.0, 13.0, 30.0)).unwrap();
        assert!(s.cells_generated > 0);
    }
    println!("teleport: {:.2} ms", t.elapsed().as_secs_f64() / 20.0 * 1e3);
    let t = Instant::now();
    for k in 0..20 {
        w.rebuild(DVec3::new(k as f64 * 97_000.0, 13.0, 30.0)).unwrap();
    }
    println!("rebuild: {:.2} ms", t.elapsed().as_secs_f64() / 20.0 * 1e3);
}
