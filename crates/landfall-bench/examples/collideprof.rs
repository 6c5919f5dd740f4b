//! Profiling aid on the generated 1025² heightfield: placement by three points, controller moves,
//! 10 cm swept spheres through the terrain's candidates, what a move gathers, and the crowd benchmark's
//! walkers (walked to the benchmark's age, then timed on one thread).
//!
//! `cargo run --release -p landfall-bench --example collideprof [place|move|sweep|count|crowd]`
//!
//! Env: `HOT=k` k bodies (`HOT=1`: 16; data in cache), `REPS=k` passes, `TIN=1` the crowd or the
//! sweeps on the TIN, `AGE=k` frames the crowd walks before it is timed; for `move`, `FRESH=1` the
//! benchmark's fresh (mostly embedded) starts instead of settled ones, and `STATE=1` the grounded
//! state settling reported instead of "was grounded" on every move.
use glam::DVec3;
use landfall::collide::{CharacterController, ControllerParams, SweepTarget, TerrainSweep};
use landfall::support::SplitMix64;
use landfall::{place, FollowParams};
use landfall_bench::motions::{crowd_frame, crowd_walkers, CROWD_AGE_FRAMES};
use landfall_bench::terrains::generated;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;
fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "place".into());
    let hf = generated(1025).hf;
    let mut rng = SplitMix64::new(3);
    // Random ground points with a random horizontal heading.
    // HOT=k: k points (HOT=1 or any non-number: 16), so that the terrain's data stays in cache and, for
    // k ≤ 64, the branch predictor learns every move (what is left is computation).
    let n = std::env::var("HOT").ok().map_or(4096, |h| h.parse().ok().filter(|&k| k > 1).unwrap_or(16));
    let set: Vec<(DVec3, DVec3)> = (0..n)
        .map(|_| {
            let (x, y) = (rng.range(10.0, 1000.0), rng.range(10.0, 1000.0));
            let z = hf.height_at(x, y).unwrap();
            let d = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0).normalize();
            (DVec3::new(x, y, z), d)
        })
        .collect();
    let params = FollowParams::default().with_max_slope(1.5);
    let controller =
        CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    if what == "crowd" {
        // The crowd benchmark's walkers, walked AGE frames (default: the benchmark's age), then REPS
        // frames timed (default 20), on one thread.
        let frames: usize = std::env::var("REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(20);
        let age: usize = std::env::var("AGE").ok().and_then(|r| r.parse().ok()).unwrap_or(CROWD_AGE_FRAMES);
        // TIN=1: on the ~13,000-triangle TIN of the DEM instead.
        let tin = std::env::var("TIN").is_ok().then(|| {
            let tin = landfall_bench::terrains::dem_tin(13_000);
            landfall::PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).build().unwrap()
        });
        let t: &dyn landfall::Terrain = match &tin {
            Some(tin) => tin,
            None => &hf,
        };
        let mut walkers = crowd_walkers(t, 10_000, 8);
        // The walk to the timed age on all threads (it is not what is timed).
        for _ in 0..age {
            crowd_frame(t, &controller, &mut walkers, true);
        }
        let s = Instant::now();
        for _ in 0..frames {
            crowd_frame(t, &controller, &mut walkers, false);
        }
        let per_move = s.elapsed().as_nanos() as f64 / (frames * walkers.len()) as f64;
        let grounded = walkers.iter().filter(|w| w.2).count();
        let frame_ms = per_move * 1e-2;
        println!("crowd at frame {age}: {per_move:.0} ns per move, {frame_ms:.2} ms per frame on one thread ({grounded} grounded)");
        return;
    }
    if what == "count" {
        // With NOSTEP set, steps are off.
        let counting = CountingTerrain(&hf, AtomicUsize::new(0), AtomicUsize::new(0));
        let nostep = CharacterController::new(ControllerParams::default().with_step_height(0.0), DVec3::Z)
            .expect("valid controller parameters");
        let c = if std::env::var("NOSTEP").is_ok() { nostep } else { controller };
        // The benchmark's settled moves (every move may step and snap).
        let walk = landfall_bench::motions::settled_walk(&hf, &TerrainSweep(&hf), &c, n, 6);
        let mut stepped = 0;
        for &(p, d, _) in &walk {
            let m = c.move_by(&TerrainSweep(&counting), p, d, true);
            stepped += usize::from(m.stepped);
        }
        let (gathers, tris) = (counting.1.load(Relaxed), counting.2.load(Relaxed));
        // A move gathers its candidates once (`collide::Nearby`) unless a sweep leaves the box.
        println!(
            "{stepped} of {} moves stepped; {:.2} candidate gatherings per move, {:.1} triangles per gathering",
            set.len(),
            gathers as f64 / set.len() as f64,
            tris as f64 / gathers.max(1) as f64
        );
        return;
    }
    if what == "place" {
        // Bodies the placement accepts (the benchmark's set), REPS passes (default 3000 × 4096 / n).
        let bodies = landfall_bench::motions::placeable(&hf, n, 7, &params);
        let reps = std::env::var("REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(3000) * 4096 / n;
        let s = Instant::now();
        for _ in 0..reps {
            for (p, heading) in &bodies {
                let _ = black_box(place(&hf, *p, *heading, &params));
            }
        }
        println!("place: {:.0} ns each", s.elapsed().as_nanos() as f64 / (reps * n) as f64);
        return;
    }
    // REPS=k: k passes over the points (for callgrind's instruction counts).
    let reps = std::env::var("REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(50) * 4096 / n;
    if what == "move" {
        // The benchmark's moves: settled (a walking character between frames), or FRESH=1 for its
        // spawns (0.6 m above the ground, mostly embedded on this steep terrain).
        let walk: Vec<(DVec3, DVec3, bool)> = if std::env::var("FRESH").is_ok() {
            landfall_bench::motions::fresh_walk(&hf, n, 6).into_iter().map(|(p, d)| (p, d, true)).collect()
        } else {
            landfall_bench::motions::settled_walk(&hf, &TerrainSweep(&hf), &controller, n, 6)
        };
        // STATE=1: pass the grounded state the settling reported (a sliding walker does not try
        // steps or snap), instead of "was grounded" for every move (the benchmark's full path).
        let always = std::env::var("STATE").is_err();
        let grounded = walk.iter().filter(|w| w.2).count();
        eprintln!("{grounded} of {} walkers start grounded", walk.len());
        let s = Instant::now();
        for _ in 0..reps {
            for &(p, d, grounded) in &walk {
                black_box(controller.move_by(&TerrainSweep(&hf), p, d, grounded || always));
            }
        }
        println!("move: {:.0} ns each", s.elapsed().as_nanos() as f64 / (reps * n) as f64);
        return;
    }
    if what != "sweep" {
        eprintln!("unknown mode {what}: place, move, sweep, count or crowd");
        std::process::exit(2);
    }
    // "sweep": a 10 cm swept sphere from just above the ground; with TIN=1, the benchmark's 10 cm
    // set on the TIN.
    let tin = std::env::var("TIN").is_ok().then(|| {
        let tin = landfall_bench::terrains::dem_tin(13_000);
        landfall::PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).build().unwrap()
    });
    let (t, sweeps): (&dyn landfall::Terrain, Vec<(DVec3, DVec3)>) = match &tin {
        Some(tin) => (
            tin,
            landfall_bench::motions::sweep_motions(tin, n, 5)
                .into_iter()
                .map(|(c, v)| (c - DVec3::Z * 0.99, v.normalize_or_zero() * 0.1))
                .collect(),
        ),
        None => {
            (&hf, set.iter().map(|(p, d)| (*p + DVec3::Z * 1.01, (*d - DVec3::Z * 0.5).normalize() * 0.1)).collect())
        }
    };
    let s = Instant::now();
    let mut contacts = 0;
    for _ in 0..reps {
        for (c, v) in &sweeps {
            contacts += usize::from(TerrainSweep(t).sweep(*c, 1.0, *v).is_some());
        }
    }
    println!(
        "{what}: {:.0} ns each ({contacts} sweep contacts)",
        s.elapsed().as_nanos() as f64 / (reps as f64 * set.len() as f64)
    );
}

/// Counts candidate gatherings and the triangles they give (run with `count`).
struct CountingTerrain<'a>(&'a landfall::Heightfield, AtomicUsize, AtomicUsize);

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
        self.1.fetch_add(1, Relaxed);
        self.0.triangles_in(region, &mut |id, t| {
            self.2.fetch_add(1, Relaxed);
            visit(id, t)
        });
    }
}
