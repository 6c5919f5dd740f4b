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
    if what == "count" {
        let (mut sweeps, mut tris) = (0usize, 0usize);
        let counting =
            CountingTerrain(&hf, std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0));
        let nostep =
            CharacterController::new(ControllerParams { step_height: 0.0, ..ControllerParams::default() }, DVec3::Z);
        let c = if std::env::var("NOSTEP").is_ok() { nostep } else { controller };
        let mut walled = 0;
        for (p, d) in &set {
            let m = c.move_by(&TerrainSweep(&counting), *p, *d * 0.05 - DVec3::Z * 0.1, true);
            walled += usize::from(m.stepped);
        }
        println!("stepped {walled}");
        sweeps += counting.1.load(std::sync::atomic::Ordering::Relaxed);
        tris += counting.2.load(std::sync::atomic::Ordering::Relaxed);
        println!(
            "{:.2} sweeps per move, {:.1} triangles per sweep",
            sweeps as f64 / set.len() as f64,
            tris as f64 / sweeps as f64
        );
        return;
    }
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

/// Counts candidate gatherings (one per sweep) and triangles (run with `count`).
struct CountingTerrain<'a>(&'a landfall::Heightfield, std::sync::atomic::AtomicUsize, std::sync::atomic::AtomicUsize);

impl landfall::Terrain for CountingTerrain<'_> {
    fn frame(&self) -> &landfall::Frame {
        landfall::Terrain::frame(self.0)
    }
    fn bounds(&self) -> landfall::Aabb {
        landfall::Terrain::bounds(self.0)
    }
    fn surfaces_on_line(&self, p: DVec3, visit: &mut dyn FnMut(landfall::SurfacePoint)) {
        self.0.surfaces_on_line(p, visit)
    }
    fn raycast(&self, ray: &landfall::Ray, max_t: f64) -> Option<landfall::Hit> {
        landfall::Terrain::raycast(self.0, ray, max_t)
    }
    fn triangles_in(&self, region: &landfall::Aabb, visit: &mut dyn FnMut(landfall::TriangleId, [DVec3; 3])) {
        use std::sync::atomic::Ordering::Relaxed;
        self.1.fetch_add(1, Relaxed);
        self.0.triangles_in(region, &mut |id, t| {
            self.2.fetch_add(1, Relaxed);
            visit(id, t)
        });
    }
}
