//! A walk through the procedural world: the cache follows the walker, a character controller walks on
//! the drawn mesh, and the heights agree with what is drawn.
//!
//! `cargo run --release -p landfall --example world`

use glam::DVec3;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::world::{CacheParams, World, WorldParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The thesis' configuration: 16 layers of 40 × 40 cells, 1 m finest cells.
    let start = DVec3::new(0.0, 0.0, 500.0);
    let mut world: World = World::new(WorldParams::default(), CacheParams::default(), start)?;
    let radius = 0.4;
    // Come down to the ground; the cache refines as the viewer gets low, so look again.
    for _ in 0..2 {
        let ground = world.height_at(0.0, 0.0).ok_or("the viewer is inside the mesh")?;
        world.update(DVec3::new(0.0, 0.0, ground + radius + 0.1))?;
    }
    let mut pos = world.viewer();
    // Walk downhill (the origin is on a mountainside steeper than the 30° slide angle).
    let n = world.surface_at(pos.x, pos.y).ok_or("ground")?.normal;
    let heading = DVec3::new(n.x, n.y, 0.0).normalize_or(DVec3::X);
    let walker = CharacterController::new(ControllerParams::default().with_radius(radius), DVec3::Z)
        .expect("valid controller parameters");
    let (mut grounded, mut cells, mut regions) = (false, 0, 0);
    // 60 seconds at 60 frames per second, 1.5 m/s plus gravity.
    for frame in 0..3600 {
        let step = heading * (1.5 / 60.0) - DVec3::Z * 0.1;
        let m = walker.move_by(&TerrainSweep(&world), pos, step, grounded);
        (pos, grounded) = (m.position, m.grounded);
        let s = world.update(pos)?;
        // A change of depth redraws the ground under the walker: keep it on what is drawn.
        if s.layers_changed != 0 {
            if let Some(g) = world.height_at(pos.x, pos.y) {
                pos.z = pos.z.max(g + radius);
            }
        }
        cells += s.cells_generated;
        regions += s.regions_rebuilt;
        if frame % 900 == 0 {
            let z = world.height_at(pos.x, pos.y).unwrap_or(f64::NAN);
            println!(
                "t = {:>3} s: walker at ({:>6.1}, {:>6.1}, {:>7.2}) m, ground {z:>7.2} m, grounded {grounded}",
                frame / 60,
                pos.x,
                pos.y,
                pos.z - radius
            );
        }
    }
    println!(
        "walked {:.0} m; {cells} cells generated and {regions} mesh regions rewritten in 3,600 frames; {} triangles drawn, {:.1} MB",
        pos.truncate().length(),
        world.meshes().map(|m| m.triangles()).sum::<usize>(),
        world.memory_bytes() as f64 / 1048576.0
    );
    Ok(())
}
