//! Profiling aid: placement by three points and controller moves on the generated 1025² heightfield.
//! `cargo run --release -p landfall-bench --example placeprof [place|move]`
use glam::DVec3;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::heightfield::workload::SplitMix64;
use landfall::{place, FollowParams};
use landfall_bench::terrains::generated;
use std::hint::black_box;
use std::time::Instant;
fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "place".into());
    let hf = generated(1025).hf;
    let mut rng = SplitMix64::new(3);
    let set: Vec<(DVec3, DVec3)> = (0..4096)
        .map(|_| {
            let (x, y) = (rng.range(10.0, 1000.0), rng.range(10.0, 1000.0));
            let z = hf.height_at(x, y).unwrap();
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0).normalize();
            (DVec3::new(x, y, z + 0.6), d)
        })
        .collect();
    let params = FollowParams { max_slope: 1.5, ..FollowParams::default() };
    let controller = CharacterController::new(ControllerParams::default(), DVec3::Z);
    let reps = if what == "place" { 3000 } else { 50 };
    let s = Instant::now();
    for _ in 0..reps {
        for (p, d) in &set {
            if what == "place" {
                black_box(place(&hf, *p, d.y.atan2(d.x), &params).ok());
            } else {
                black_box(controller.move_by(&TerrainSweep(&hf), *p, *d * 0.05 - DVec3::Z * 0.1, true));
            }
        }
    }
    println!("{what}: {:.0} ns each", s.elapsed().as_nanos() as f64 / (reps as f64 * set.len() as f64));
}
