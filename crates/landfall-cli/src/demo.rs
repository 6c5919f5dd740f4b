//! `landfall demo`: the main workloads on a generated terrain, a throughput table and a picture.

use crate::render::{draw_paths, render, write_png, Camera};
use anyhow::Result;
use clap::Args;
use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
use landfall::glam::DVec3;
use landfall::support::workload;
use landfall::support::SplitMix64;
use landfall::world::{Generator, WorldParams};
use landfall::{Heightfield, Ray};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `landfall demo` (all have defaults; run it with none).
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Samples per side of the generated terrain.
    #[arg(long, default_value_t = 2049)]
    size: usize,
    /// Sample spacing of the generated terrain, metres.
    #[arg(long, default_value_t = 4.0)]
    spacing: f64,
    /// Seed of the generated terrain.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of vertical queries and of picking rays (line-of-sight rays: a tenth of it).
    #[arg(long, default_value_t = 1_000_000)]
    queries: usize,
    /// Directory for the picture.
    #[arg(short, long, value_name = "DIR", default_value = "landfall-out")]
    out: PathBuf,
    /// Picture width in pixels.
    #[arg(long, default_value_t = 1280)]
    width: u32,
    /// Picture height in pixels.
    #[arg(long, default_value_t = 720)]
    height: u32,
    /// Character controllers in the crowd.
    #[arg(long, default_value_t = 2000)]
    walkers: usize,
    /// Moves each walker makes (5 m each).
    #[arg(long, default_value_t = 200)]
    walk_moves: usize,
}

struct Row {
    name: &'static str,
    count: usize,
    secs: f64,
    answered: usize,
    /// What `answered` is a share of (the query count unless said).
    of: usize,
    answered_label: &'static str,
}

impl Row {
    /// A workload whose answers are a share of all its queries.
    fn of_all(name: &'static str, secs: f64, answered: usize, count: usize, answered_label: &'static str) -> Self {
        Row { name, count, secs, answered, of: count, answered_label }
    }
}

/// The value of `f` and the seconds it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let v = f();
    (v, start.elapsed().as_secs_f64())
}

/// [`timed`], shown as a step of the demo while it runs.
fn stage<T>(name: &str, f: impl FnOnce() -> T) -> (T, f64) {
    let step = crate::progress::Step::spinner(name);
    let (v, secs) = timed(f);
    step.done("done");
    (v, secs)
}

/// Largest `--size` (a 16,385² terrain: 1 GiB of heights, generated in about a minute).
const MAX_SIZE: usize = 16_385;
/// Largest `--queries` (the points, rays and answers of 10⁷ queries take about 1.5 GB).
const MAX_QUERIES: usize = 10_000_000;
/// Largest `--width` and `--height`.
const MAX_PIXELS_SIDE: u32 = 8192;
/// Largest `--walkers` × `--walk-moves` (every position of every path is kept for the picture).
const MAX_WALK_STEPS: usize = 10_000_000;

pub fn run(args: &DemoArgs) -> Result<()> {
    anyhow::ensure!((2..=MAX_SIZE).contains(&args.size), "--size: from 2 to {MAX_SIZE} samples per side");
    anyhow::ensure!(
        (1..=MAX_PIXELS_SIDE).contains(&args.width) && (1..=MAX_PIXELS_SIDE).contains(&args.height),
        "--width/--height: from 1 to {MAX_PIXELS_SIDE} pixels"
    );
    anyhow::ensure!(args.queries <= MAX_QUERIES, "--queries: at most {MAX_QUERIES}");
    anyhow::ensure!(
        args.walkers.checked_mul(args.walk_moves).is_some_and(|n| n <= MAX_WALK_STEPS),
        "--walkers × --walk-moves: at most {MAX_WALK_STEPS} moves in all"
    );
    let threads = rayon::current_num_threads();
    anyhow::ensure!((1e-3..=1e6).contains(&args.spacing), "--spacing: from 0.001 to 1,000,000 m");
    say!(
        "landfall demo: generating a {0}×{0} piece of the procedural world (seed {1}, {2} m spacing)…",
        args.size,
        args.seed,
        args.spacing
    );
    let (heights, gen_secs) = stage("generating the terrain", || world_heights(args.size, args.spacing, args.seed));
    let heights = heights?;
    let half = (args.size / 2) as f64 * args.spacing;
    let (hf, build_secs) = timed(|| {
        Heightfield::builder(args.size, args.size, heights)
            .spacing(args.spacing, args.spacing)
            .origin(-half, -half)
            .build()
    });
    let hf = hf?;
    say!(
        "  generated in {:.2} s; pyramid built in {:.1} ms; {:.1} MiB ({:.2} bytes/sample)",
        gen_secs,
        build_secs * 1e3,
        hf.memory_bytes() as f64 / 1048576.0,
        hf.memory_bytes() as f64 / (args.size * args.size) as f64
    );
    let seed = args.seed ^ 0x5eed;
    let mut rng = SplitMix64::new(seed);
    let mut rows = Vec::new();

    // 1. Vertical queries at random points.
    let pts = workload::points(&hf, args.queries, seed);
    let (got, secs) = stage("vertical queries", || hf.surface_batch(&pts));
    rows.push(Row::of_all("vertical queries", secs, got.iter().flatten().count(), pts.len(), "on ground"));

    // 2. Picking rays: from the overview camera through random screen positions.
    let cam = Camera::overview(&hf);
    let rays: Vec<(Ray, f64)> = (0..args.queries)
        .map(|_| (cam.ray((rng.uniform() * 4096.0) as u32, (rng.uniform() * 2304.0) as u32, 4096, 2304), f64::INFINITY))
        .collect();
    let (got, secs) = stage("picking rays", || hf.raycast_batch(&rays));
    rows.push(Row::of_all("picking rays", secs, got.iter().flatten().count(), rays.len(), "hit"));

    // 3. Line of sight between random points 2 m above the ground.
    let los = workload::line_of_sight(&hf, args.queries / 10, seed);
    let (got, secs) = stage("line-of-sight rays", || hf.raycast_batch(&los));
    rows.push(Row::of_all(
        "line-of-sight rays",
        secs,
        got.iter().filter(|h| h.is_none()).count(),
        los.len(),
        "visible",
    ));

    // 4. A crowd of character controllers walking the terrain (swept spheres, sliding, steps).
    let ((paths, grounded, moves, crowd_secs), _) = stage("a crowd of walkers", || crowd(&hf, &cam, args, &mut rng));
    rows.push(Row::of_all("crowd moves (controller)", crowd_secs, grounded, moves, "grounded"));

    // 5. The picture: primary rays plus shadow rays, and the walkers' paths.
    let ((mut px, n_hit, n_shadow), render_secs) =
        stage("rendering the picture", || render(&hf, &cam, args.width, args.height, 0.0));
    // Draw a sample of the walkers (all of them would cover the picture).
    let shown: Vec<Vec<DVec3>> = paths.iter().step_by((paths.len() / 40).max(1)).cloned().collect();
    let drawn = draw_paths(&hf, &cam, &shown, args.width, args.height, &mut px);
    let n_rays = (args.width * args.height) as usize + n_hit;
    rows.push(Row {
        name: "render (primary + shadow)",
        count: n_rays,
        secs: render_secs,
        answered: n_shadow,
        of: n_hit,
        answered_label: "of the terrain in shadow",
    });

    say!();
    say!("{:<27} {:>10} {:>10} {:>14}   answers", "workload", "queries", "time (ms)", "queries/s");
    say!("{}", "-".repeat(80));
    for r in &rows {
        say!(
            "{:<27} {:>10} {:>10.1} {:>14.0}   {:.1}% {}",
            r.name,
            r.count,
            r.secs * 1e3,
            r.count as f64 / r.secs.max(1e-12),
            100.0 * r.answered as f64 / r.of.max(1) as f64,
            r.answered_label
        );
    }
    // The README's demo runs in the dev profile (optimised, shared with the test suite's build):
    // say so, since these rates are not the release build's.
    let build = if cfg!(debug_assertions) {
        "a dev build with debug assertions: `--release` answers faster"
    } else {
        "a release build"
    };
    say!("({threads} threads; batch APIs, rayon; {build})");
    let path = args.out.join("demo.png");
    write_png(&path, args.width, args.height, &px)?;
    say!(
        "\nwrote {} ({}×{}, {} terrain pixels, {} in shadow, {} visible path points of {} of the walkers)",
        path.display(),
        args.width,
        args.height,
        n_hit,
        n_shadow,
        drawn,
        shown.len()
    );
    Ok(())
}

/// The procedural world's landscape (`landfall world`'s) as a `size × size` grid of `spacing`
/// centred on the origin: the corner heights of the subdivision level whose cells are `spacing`
/// wide.
fn world_heights(size: usize, spacing: f64, seed: u64) -> Result<Vec<f32>> {
    let level = spacing.log2().round().clamp(0.0, 14.0) as u8;
    let params = WorldParams::default().with_seed(seed).with_cell_size(spacing / (level as f64).exp2());
    let gen = Generator::new(params)?;
    let half = (size / 2) as i64;
    Ok(gen.corner_grid(level, -half, -half, size, size))
}

/// Walkers dropped where random pixels of the view meet the ground, each walking straight ahead
/// (5 m per move, gravity 2 m per move) with a character controller; returns their paths, the
/// grounded moves, all moves and the time.
fn crowd(
    hf: &Heightfield,
    cam: &Camera,
    args: &DemoArgs,
    rng: &mut SplitMix64,
) -> (Vec<Vec<DVec3>>, usize, usize, f64) {
    let params = ControllerParams::default()
        .with_radius(2.0)
        .with_skin(0.05)
        .with_max_climb(40f64.to_radians())
        .with_min_slide(30f64.to_radians())
        .with_step_height(1.0)
        .with_snap(3.0);
    let controller = CharacterController::new(params, DVec3::Z).expect("valid controller parameters");
    let starts: Vec<(DVec3, f64)> = (0..args.walkers)
        .filter_map(|_| {
            let ray = cam.ray((rng.uniform() * 1024.0) as u32, (288.0 + rng.uniform() * 288.0) as u32, 1024, 576);
            let heading = rng.uniform() * std::f64::consts::TAU;
            hf.raycast(&ray, f64::INFINITY).map(|h| (h.point + DVec3::Z * (params.radius + 0.5), heading))
        })
        .collect();
    let target = TerrainSweep(hf);
    let frames = args.walk_moves;
    let (results, secs) = timed(|| {
        starts
            .par_iter()
            .map(|&(start, heading)| {
                let step = DVec3::new(heading.cos(), heading.sin(), 0.0) * 5.0 - DVec3::Z * 2.0;
                let (mut pos, mut grounded, mut on) = (start, false, 0usize);
                let mut path = Vec::with_capacity(frames);
                for _ in 0..frames {
                    let m = controller.move_by(&target, pos, step, grounded);
                    pos = m.position;
                    grounded = m.grounded;
                    on += usize::from(grounded);
                    path.push(pos - DVec3::Z * params.radius);
                }
                (path, on)
            })
            .collect::<Vec<_>>()
    });
    let grounded = results.iter().map(|r| r.1).sum();
    let moves = results.len() * frames;
    (results.into_iter().map(|r| r.0).collect(), grounded, moves, secs)
}
