//! Checks the benchmark's crowd for walkers ending below the surface: `cargo run --release -p landfall-bench --example crowdcheck`
use glam::DVec3;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::heightfield::workload::SplitMix64;
use landfall::Terrain;
use landfall_bench::terrains::generated;
use rayon::prelude::*;
fn main() {
    let hf = generated(1025).hf;
    let t: &dyn Terrain = &hf;
    let b = t.bounds();
    let mut rng = SplitMix64::new(8);
    let mut walkers = Vec::new();
    while walkers.len() < 10_000 {
        let (x, y) = (rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
        let Some(g) = t.top_surface(DVec3::new(x, y, b.max.z + 1.0)) else { continue };
        let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.3)).normalize_or_zero();
        walkers.push((
            g.point + DVec3::Z * 0.6,
            DVec3::new(d.x, d.y, 0.0).normalize_or_zero() * (1.5 / 60.0),
            false,
            g.point + DVec3::Z * 0.6,
            false,
        ));
    }
    let controller = CharacterController::new(ControllerParams::default(), DVec3::Z);
    let gravity = DVec3::Z * (-9.81 / 60.0 / 60.0 * 10.0);
    let frames: usize = std::env::var("FRAMES").ok().and_then(|f| f.parse().ok()).unwrap_or(200);
    for frame in 0..frames {
        walkers.par_iter_mut().for_each(|(p, v, g, prev, off)| {
            *prev = *p;
            let m = controller.move_by(&TerrainSweep(t), *p, *v + gravity, *g);
            (*p, *g) = (m.position, m.grounded);
            // A heightfield has no side walls: a walker that went past its edge may walk back in
            // under it without crossing the surface.
            *off |= t.top_surface(*p).is_none();
        });
        let below: Vec<_> = walkers
            .iter()
            .filter(|(p, _, _, _, off)| !*off && t.top_surface(*p).is_some_and(|s| s.point.z > p.z))
            .collect();
        if !below.is_empty() {
            println!(
                "frame {frame}: {} below; first: from {:?} to {:?} (ground {:?})",
                below.len(),
                below[0].3,
                below[0].0,
                t.top_surface(below[0].0).map(|s| s.point.z)
            );
            return;
        }
    }
    println!("none below after {frames} frames");
}
