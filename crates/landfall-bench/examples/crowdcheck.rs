//! Checks the benchmark's crowd for walkers ending below the surface: `cargo run --release -p landfall-bench --example crowdcheck`
use glam::DVec3;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::Terrain;
use landfall_bench::motions::{crowd, CROWD_GRAVITY_STEP};
use landfall_bench::terrains::generated;
use rayon::prelude::*;
fn main() {
    let hf = generated(1025).hf;
    let t: &dyn Terrain = &hf;
    let mut walkers: Vec<_> = crowd(t, 10_000, 8).into_iter().map(|(p, walk)| (p, walk, false, p, false)).collect();
    let controller =
        CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    let frames: usize = std::env::var("FRAMES").ok().and_then(|f| f.parse().ok()).unwrap_or(200);
    for frame in 0..frames {
        walkers.par_iter_mut().for_each(|(p, v, g, prev, off)| {
            *prev = *p;
            let m = controller.move_by(&TerrainSweep(t), *p, *v + CROWD_GRAVITY_STEP, *g);
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
