//! Profiling aid: 10 cm swept spheres on the generated 1025² heightfield through its candidates.
use glam::DVec3;
use landfall::collide::{SweepTarget, TerrainSweep};
use landfall::heightfield::workload::SplitMix64;
use landfall_bench::terrains::generated;
use std::time::Instant;
fn main() {
    let hf = generated(1025).hf;
    let mut rng = SplitMix64::new(3);
    let set: Vec<(DVec3, DVec3)> = (0..4096)
        .map(|_| {
            let (x, y) = (rng.range(10.0, 1000.0), rng.range(10.0, 1000.0));
            let z = hf.height_at(x, y).unwrap();
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.3)).normalize() * 0.1;
            (DVec3::new(x, y, z + 1.01), d)
        })
        .collect();
    let t = TerrainSweep(&hf);
    let s = Instant::now();
    let mut n = 0;
    for _ in 0..100 {
        for (c, v) in &set {
            n += usize::from(t.sweep(*c, 1.0, *v).is_some());
        }
    }
    println!("{:.0} ns per sweep ({n} contacts)", s.elapsed().as_nanos() as f64 / (100.0 * set.len() as f64));
}
