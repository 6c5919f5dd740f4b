//! The terrains the benchmarks run on.

use landfall::heightfield::synth::{generate, SynthParams};
use landfall::Heightfield;
use std::path::Path;

/// A named terrain.
pub struct Terrain {
    /// Short name used in benchmark ids.
    pub name: String,
    /// The heightfield (default triangulation and leaf size unless said).
    pub hf: Heightfield,
}

/// Generated `n × n` terrain, 1 m spacing, 800 m relief (the benchmark terrain).
pub fn generated(n: usize) -> Terrain {
    let h = generate(n, n, &SynthParams::default());
    Terrain { name: format!("gen{n}"), hf: Heightfield::builder(n, n, h).build().expect("valid terrain") }
}

/// The real DEM from `data/`, placed in metres: its cells are ≈ 2434 m on both axes (0.0333° of
/// longitude at 49° N, 0.0219° of latitude).
pub fn real_dem() -> Terrain {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    let opts =
        landfall_io::LoadOptions { spacing: Some((2434.0, 2434.0)), origin: Some((0.0, 0.0)), ..Default::default() };
    let hf = landfall_io::load_heightfield(&path, &opts).expect("data/topobathy.npz loads").heightfield;
    Terrain { name: "dem".into(), hf }
}

/// The worst case of the 2017 paper's Table 4.1: a plane rising along the diagonal with white
/// noise of 0…10 m on top (every leaf has a sample near the noise maximum close to its far corner),
/// and a ray parallel to the plane 1 cm above the noise. The ray crosses the height range of every
/// leaf along the diagonal, so no method can skip one by height, and it never hits: every method
/// must examine the whole hypotenuse.
pub fn tilted(n: usize, leaf: usize) -> (Heightfield, landfall::Ray) {
    let slope = 0.05;
    let mut rng = landfall::heightfield::workload::SplitMix64::new(7);
    let h: Vec<f32> = (0..n * n).map(|k| (10.0 * rng.uniform() + slope * ((k % n) + (k / n)) as f64) as f32).collect();
    let hf = Heightfield::builder(n, n, h).leaf_size(leaf).build().expect("valid terrain");
    let side = (n - 1) as f64;
    let origin = glam::DVec3::new(0.0, 0.0, 10.0 + 0.01);
    let dir = glam::DVec3::new(side, side, 2.0 * slope * side);
    (hf, landfall::Ray::new(origin, dir))
}
