//! Instruction counts of rays on an index (samples per tile) or the same raster in memory, which a
//! noisy shared machine cannot blur: `valgrind --tool=callgrind --toggle-collect='tilesprof::cast'
//! target/release/examples/tilesprof [size] [index|memory]` (2049 and the index by default): the
//! tiles benchmark's 20,000 rays, cast once, on a generated DEM written as a GeoTIFF, built into an
//! `.lfh` and opened, or loaded. Prints the hits (the same on both).
use glam::DVec3;
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray};
use std::hint::black_box;

#[inline(never)]
fn cast(t: &Heightfield, r: &[Ray]) -> usize {
    r.iter().filter(|ray| black_box(t).raycast(ray, 1e6).is_some()).count()
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2049);
    let h = landfall::bench::synth::generate(
        n,
        n,
        &landfall::bench::synth::SynthParams { relief: 1500.0, ..Default::default() },
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (tif, lfh) = (dir.path().join("dem.tif"), dir.path().join("dem.lfh"));
    let geo = landfall_io::GeoRef { origin: (500_000.0, 4_000_000.0), spacing: (10.0, 10.0) };
    landfall_io::write_geotiff(&tif, n, n, landfall_io::Band::F32(&h), &geo, None, None).expect("writes the DEM");
    let opts = landfall_io::LoadOptions::default();
    landfall_io::build_heightfield_index(&tif, &lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {}).expect("builds");
    let index = landfall_io::open_heightfield_index(&lfh).expect("opens");
    let memory = landfall_io::load_heightfield(&tif, &opts).expect("loads").heightfield;
    let mut rng = SplitMix64::new(6);
    let (o, w) = (memory.origin(), 10.0 * (n - 1) as f64);
    let rays: Vec<Ray> = (0..20_000)
        .map(|_| {
            let p = DVec3::new(o.x + rng.range(0.1, 0.9) * w, o.y + rng.range(0.1, 0.9) * w, 2500.0);
            let a = rng.range(0.0, std::f64::consts::TAU);
            Ray::new(p, DVec3::new(a.cos(), a.sin(), -0.15))
        })
        .collect();
    let on = std::env::args().nth(2).unwrap_or_default();
    let t = if on == "memory" { &memory } else { &index };
    println!("{} hits on the {}", cast(t, &rays), if on == "memory" { "raster in memory" } else { "index" });
}
