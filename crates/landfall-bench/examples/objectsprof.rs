//! The objects' generation along the jet's path, alone (for profiling): `cargo run --release -p
//! landfall-bench --example objectsprof` (perf record it). Prints the world's update and the objects'
//! sync per frame, and a digest of the objects held every 100 frames (their kinds, cells and shapes,
//! in any order: equal digests, the same objects).
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
    let mut digest = 0u64;
    for frame in 0..frames {
        p += dir;
        let g = w.height_at(p.x, p.y).unwrap_or(0.0);
        let t = Instant::now();
        w.update(DVec3::new(p.x, p.y, g + 500.0)).unwrap();
        upd += t.elapsed();
        let t = Instant::now();
        made += o.sync(&w).generated;
        sync += t.elapsed();
        if frame % 100 == 99 {
            digest = digest.rotate_left(7) ^ objects_digest(&o);
        }
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    println!(
        "jet: update {:.1} µs, objects {:.1} µs per frame ({:.0} %), {:.1} made per frame",
        us(upd),
        us(sync),
        100.0 * us(sync) / us(upd),
        made as f64 / frames as f64
    );
    println!("{} objects at the end, digest {digest:016x}", o.len());
}

/// A sum of one hash per object (its kind, level, cell and shape's bits): independent of the slots.
fn objects_digest(o: &Objects) -> u64 {
    use std::hash::{Hash, Hasher};
    o.iter()
        .map(|(_, ob)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (ob.kind, ob.level, ob.cell, format!("{:?}", ob.shape)).hash(&mut h);
            h.finish()
        })
        .fold(0u64, u64::wrapping_add)
}
