//! `landfall world`: a viewer moves through the endless procedural world (walking, driving, flying,
//! teleporting); per-frame update cost, cells generated and memory; a top-down picture of the
//! nested layers and their regions and a view rendered with landfall's own ray casts.

use crate::progress::Step;
use crate::render::{render, Camera};
use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use landfall::glam::DVec3;
use landfall::support::SplitMix64;
use landfall::world::{
    CacheParams, LodTerrain, ObjectParams, Objects, World, WorldError, WorldParams, WorldParamsError,
};
use std::path::PathBuf;
use std::time::Instant;

/// How the viewer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Path {
    /// 1.5 m/s, eyes 1.8 m above the ground.
    Walk,
    /// 30 m/s, 1.5 m above the ground.
    Drive,
    /// 300 m/s, 500 m above the ground.
    Fly,
    /// A jump to a random place up to 5,000 km away every frame.
    Teleport,
    /// All of the above, one after the other.
    All,
}

/// `landfall world`: the flight through the world with its options, or one of its subcommands.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorldCli {
    #[command(subcommand)]
    pub command: Option<WorldCommand>,
    #[command(flatten)]
    pub args: WorldArgs,
}

/// Subcommands of `landfall world`.
#[derive(Subcommand, Debug)]
pub enum WorldCommand {
    /// A path for an agent of radius R across the world, around its objects and its steep ground.
    ///
    /// The objects are those the world's cache holds as a viewer walks from the start to the goal
    /// (stones near the way, trees and houses hundreds of metres around it), their footprints
    /// inflated by the radius; the ground is the landscape they stand on, and ground steeper than
    /// --max-slope is avoided, read at the agent's scale (--slope-step: by default the radius, at
    /// least 1 m; cells of 1 m are read on every triangle, wider ones through their corners'
    /// heights, so a giant steps over a steep metre). The planner cuts a quad-tree around the two points whose finest cells
    /// follow the radius (a 0.5 m walker plans on 0.25 m cells, a 20 m giant on 8 m ones). Output:
    /// CSV with header `x,y,z`, the path's corners on the ground, the start first and the goal last
    /// (written to a temporary file and renamed). Prints the length and the time taken.
    #[command(after_help = crate::examples::WORLD_PATH)]
    Path(crate::world_path::PathArgs),
}

/// Runs `landfall world` or its subcommand.
pub fn dispatch(cli: &WorldCli) -> Result<()> {
    match &cli.command {
        Some(WorldCommand::Path(args)) => crate::world_path::run(args),
        None => run(&cli.args),
    }
}

/// Options of `landfall world`.
#[derive(Args, Debug)]
pub struct WorldArgs {
    /// How the viewer moves.
    #[arg(long, value_enum, default_value = "all")]
    path: Path,
    /// Frames per path (60 frames per second of motion).
    #[arg(long, default_value_t = 1200)]
    frames: usize,
    /// Seed of the landscape.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Layers of the cache.
    #[arg(long, default_value_t = 16)]
    layers: u8,
    /// Inner radius: the window of each layer is 4 × this many cells wide.
    #[arg(long, default_value_t = 10)]
    inner_radius: u32,
    /// Width of the finest cells, metres.
    #[arg(long, default_value_t = 1.0)]
    cell_size: f64,
    /// Hysteresis band, in parent cells (0 = none; below 1/6).
    #[arg(long, default_value_t = 0.125, allow_hyphen_values = true)]
    hysteresis: f64,
    /// Start this far east of the origin, metres (e.g. 1e7 for 10,000 km).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    east: f64,
    /// Directory for the pictures.
    #[arg(short, long, value_name = "DIR", default_value = "landfall-out")]
    out: PathBuf,
    /// Also write the final mesh to this file (.glb or .obj).
    #[arg(long, value_name = "FILE")]
    export: Option<PathBuf>,
    /// Width of the rendered view, pixels.
    #[arg(long, default_value_t = 960)]
    width: u32,
    /// Height of the rendered view, pixels.
    #[arg(long, default_value_t = 540)]
    height: u32,
    /// Fill the world: objects generated per cell as cells enter the cache and dropped as they
    /// leave, every pair found every frame by the broad phase (the objects' among themselves again
    /// only when cells came or went), roaming entities; prints their costs and draws them in both
    /// pictures.
    #[arg(long)]
    objects: bool,
}

/// A world's parameter error named by the flag that set it.
fn flag(e: WorldError) -> anyhow::Error {
    let (field, why) = match &e {
        WorldError::Params(WorldParamsError::Invalid(f, why)) | WorldError::Cache(f, why) => (*f, why),
        _ => return anyhow::Error::new(e).context("cannot make the world"),
    };
    match field {
        "levels" | "layers" => anyhow::anyhow!("--layers: {why}"),
        "inner_radius" => anyhow::anyhow!("--inner-radius: {why}"),
        "cell_size" => anyhow::anyhow!("--cell-size: {why}"),
        "hysteresis" => anyhow::anyhow!("--hysteresis: {why}"),
        _ => anyhow::Error::new(e).context("cannot make the world"),
    }
}

/// Per-path figures of the objects.
#[derive(Default)]
struct ObjectRun {
    times_us: Vec<f64>,
    /// Of which generating and dropping (sync), moving the entities, finding the pairs.
    sync_us: f64,
    step_us: f64,
    pairs_us: f64,
    generated: usize,
    dropped: usize,
    pairs: usize,
    alive: usize,
    alive_max: usize,
    spawned: usize,
    duplicates: usize,
    held: usize,
}

/// Per-path figures.
struct Run {
    name: &'static str,
    speed: &'static str,
    times_us: Vec<f64>,
    cells: usize,
    regions: usize,
    incremental: usize,
    memory: usize,
    objects: Option<ObjectRun>,
}

pub fn run(args: &WorldArgs) -> Result<()> {
    anyhow::ensure!((1..=1_000_000).contains(&args.frames), "--frames: from 1 to 1,000,000");
    anyhow::ensure!(
        (1..=8192).contains(&args.width) && (1..=8192).contains(&args.height),
        "--width/--height: from 1 to 8192 pixels"
    );
    anyhow::ensure!(args.east.is_finite(), "--east: must be finite");
    anyhow::ensure!(args.layers >= 2, "--layers: {} is fewer than the 2 a cache needs", args.layers);
    if let Some(p) = &args.export {
        let ext = landfall_io::extension(p);
        anyhow::ensure!(
            ext == "glb" || ext == "obj",
            "--export {}: cannot write `.{ext}`: use .glb or .obj",
            p.display()
        );
    }
    // Every output checked and started before the long work, committed together at the end.
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("-o {}: cannot create the directory", args.out.display()))?;
    let (layers_png, view_png) = (args.out.join("world-layers.png"), args.out.join("world-view.png"));
    let mut outs = landfall_io::Outputs::new(&[]);
    let (layers_id, view_id) = (outs.add(&layers_png, "-o")?, outs.add(&view_png, "-o")?);
    let export_id = args.export.as_deref().map(|p| outs.add(p, "--export")).transpose()?;
    let params = WorldParams::default().with_seed(args.seed).with_cell_size(args.cell_size).with_levels(args.layers);
    let cache = CacheParams::default()
        .with_layers(args.layers)
        .with_inner_radius(args.inner_radius)
        .with_mesh_coarsest((args.layers.saturating_sub(4)).max(1).min(args.layers.saturating_sub(1)))
        .with_hysteresis(args.hysteresis);
    let start = DVec3::new(args.east + 0.3, 0.7, 0.0);
    let far = LodTerrain::new(
        landfall::world::Generator::new(params.clone()).map_err(WorldError::from).map_err(flag)?,
        4,
        64,
    );
    let ground = |p: DVec3| far.height_at(p.x, p.y).unwrap_or(0.0);
    let t0 = Instant::now();
    let mut world: World = World::new(params, cache.clone(), start + DVec3::Z * (ground(start) + 1.8)).map_err(flag)?;
    let build = t0.elapsed().as_secs_f64();
    let s0 = world.generator().cell_width(0);
    say!(
        "landfall world: {} layers of {w}×{w} cells, finest {s0} m, mesh layers {}–{} (at least {:.0} m to the edge), hysteresis {}",
        cache.layers,
        cache.mesh_finest,
        cache.mesh_coarsest,
        // The viewer's cell is anywhere in the middle one: a whole cell less than half the window.
        world.generator().cell_width(cache.mesh_coarsest) * (world.width() / 2 - 1) as f64,
        cache.hysteresis,
        w = world.width()
    );
    say!(
        "  built around ({:.0}, {:.0}) in {:.2} ms: {} cells, {} triangles drawn, {:.2} MB",
        start.x,
        start.y,
        build * 1e3,
        world.width() * world.width() * (cache.layers - world.finest_active()) as usize,
        world.meshes().map(|m| m.triangles()).sum::<usize>(),
        world.memory_bytes() as f64 / 1048576.0
    );
    let paths: Vec<Path> = match args.path {
        Path::All => vec![Path::Walk, Path::Drive, Path::Fly, Path::Teleport],
        p => vec![p],
    };
    let mut objects = None;
    if args.objects {
        let step = Step::spinner("placing the objects of the cached cells");
        let o = Objects::new(&world, ObjectParams::default())?;
        step.done(format!("{} objects", o.len()));
        objects = Some(o);
    }
    if let Some(o) = &objects {
        say!(
            "  objects: {} kinds ({}), {} held, {} roaming entities alive",
            o.kinds().len(),
            o.kinds()
                .iter()
                .map(|k| format!("{} {}–{} m on level {}", k.name, k.size.0, k.size.1, k.level(args.cell_size)))
                .collect::<Vec<_>>()
                .join(", "),
            o.len(),
            o.entities().count()
        );
    }
    let mut runs = Vec::new();
    let mut rng = SplitMix64::new(args.seed ^ 0x77);
    for p in paths {
        let step = Step::bar(&format!("{p:?}").to_lowercase(), args.frames as u64, "{pos}/{len} frames {wide_bar}");
        let run = fly(&mut world, objects.as_mut(), p, args.frames, &mut rng, &ground, &step)?;
        step.done(format!("{} frames", run.times_us.len()));
        runs.push(run);
    }
    say!();
    say!(
        "{:<9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>8} {:>8}",
        "path",
        "speed",
        "frames",
        "mean µs",
        "p99 µs",
        "max µs",
        "cells/frame",
        "regions",
        "increm.",
        "MB"
    );
    say!("{}", "-".repeat(100));
    let (mut all_cells, mut all_secs) = (0usize, 0.0f64);
    for r in &runs {
        let mut sorted = r.times_us.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        all_cells += r.cells;
        all_secs += sorted.iter().sum::<f64>() * 1e-6;
        say!(
            "{:<9} {:>8} {:>9} {:>9.1} {:>9.1} {:>9.1} {:>11.1} {:>9.2} {:>7.0}% {:>8.2}",
            r.name,
            r.speed,
            n,
            mean,
            sorted[(n * 99 / 100).min(n - 1)],
            sorted[n - 1],
            r.cells as f64 / n as f64,
            r.regions as f64 / n as f64,
            100.0 * r.incremental as f64 / n as f64,
            r.memory as f64 / 1048576.0
        );
    }
    say!(
        "(update = cache shift + cell generation + mesh regions, one thread; increm. = frames placed by the lowest-set-bit rule, which needs --hysteresis 0; {:.1} M cells generated per second of update)",
        all_cells as f64 / all_secs.max(1e-12) / 1e6
    );
    if objects.is_some() {
        say!();
        say!(
            "{:<9} {:>9} {:>22} {:>9} {:>11} {:>10} {:>11} {:>9} {:>8} {:>10}",
            "objects",
            "mean µs",
            "(make/move/pairs µs)",
            "held",
            "made/frame",
            "gone/frame",
            "pairs/frame",
            "roaming",
            "born",
            "duplicates"
        );
        say!("{}", "-".repeat(117));
        for r in &runs {
            let Some(o) = &r.objects else { continue };
            let n = o.times_us.len().max(1) as f64;
            let mean = o.times_us.iter().sum::<f64>() / n;
            say!(
                "{:<9} {:>9.1} {:>22} {:>9} {:>11.1} {:>10.1} {:>11.1} {:>9} {:>8} {:>10}",
                r.name,
                mean,
                format!("{:.1} / {:.1} / {:.1}", o.sync_us / n, o.step_us / n, o.pairs_us / n),
                o.held,
                o.generated as f64 / n,
                o.dropped as f64 / n,
                o.pairs as f64 / n,
                format!("{:.1}/{}", o.alive as f64 / n, o.alive_max),
                o.spawned,
                o.duplicates
            );
        }
        say!("(objects per frame = make: generating the cells that entered and dropping those that left; move: the roaming entities' character controllers; pairs: every pair of bounding spheres from the broad phase, the objects' own found again only when cells came or went. The objects are found through the cells that made them: make only writes a cell's spheres. roaming = mean/max alive; duplicates: an entity alive twice in a frame, must be 0)");
    }

    // Pictures from a viewer 300 m up, looking along the walk.
    let here = world.viewer();
    let eye_ground = world.height_at(here.x, here.y).unwrap_or_else(|| ground(here));
    world.update(DVec3::new(here.x, here.y, eye_ground + 300.0))?;
    if let Some(o) = &mut objects {
        o.sync(&world);
    }
    let (w, h, px) = crate::world_map::draw(&world, 1024, objects.as_ref());
    landfall_io::write_png_rgb_into(outs.file(layers_id), w, h, &px)?;
    let eye = world.viewer();
    let cam = Camera { eye, target: eye + DVec3::new(0.8, 0.6, 0.0) * 4000.0 - DVec3::Z * 700.0, fov_deg: 60.0 };
    let step = Step::spinner("rendering the view with landfall's ray casts");
    let t0 = Instant::now();
    let (px, n_hit, n_shadow) = match &objects {
        None => render(&world, &cam, args.width, args.height, 25_000.0),
        Some(o) => {
            let solids = o.solids(&world);
            let tint = |h: &landfall::Hit| match h.triangle {
                landfall::TriangleId::Object { object, .. } => {
                    o.get(object).map(|ob| crate::world_map::kind_colour(ob.kind as usize))
                }
                _ => None,
            };
            crate::render::render_tinted(&solids, &cam, args.width, args.height, 25_000.0, &tint)
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    step.done(format!("{}×{} pixels", args.width, args.height));
    landfall_io::write_png_rgb_into(outs.file(view_id), args.width, args.height, &px)?;
    let export = match (&args.export, export_id) {
        (Some(path), Some(id)) => {
            let step = Step::spinner(&format!("writing {}", path.display()));
            let parts = landfall_io::world_parts(&world);
            landfall_io::write_mesh_into(outs.file(id), &parts)?;
            step.done("written");
            Some((path, parts.len(), parts.iter().map(|p| p.indices.len() / 3).sum::<usize>()))
        }
        _ => None,
    };
    outs.commit()?;
    say!(
        "\nwrote {} (top-down: the drawn layers, outer rings dark, inner regions light, seams pale; viewer in red)",
        layers_png.display()
    );
    say!(
        "wrote {} (from ({:.0}, {:.0}, {:.0}); {}×{}, {:.0} primary + shadow rays per second on the drawn mesh, {:.0}% of the ground in shadow)",
        view_png.display(),
        eye.x,
        eye.y,
        eye.z,
        args.width,
        args.height,
        ((args.width * args.height) as usize + n_hit) as f64 / secs,
        100.0 * n_shadow as f64 / n_hit.max(1) as f64
    );
    if let Some((path, layers, triangles)) = export {
        say!("wrote {} ({layers} layers, {triangles} triangles)", path.display());
    }
    Ok(())
}

/// Moves the viewer along `path` for `frames` frames at 60 fps, timing each update (and the
/// objects' when there are objects).
fn fly(
    world: &mut World,
    mut objects: Option<&mut Objects>,
    path: Path,
    frames: usize,
    rng: &mut SplitMix64,
    far_ground: &dyn Fn(DVec3) -> f64,
    step: &Step,
) -> Result<Run> {
    let (name, speed, mps, above) = match path {
        Path::Walk => ("walk", "1.5 m/s", 1.5, 1.8),
        Path::Drive => ("drive", "30 m/s", 30.0, 1.5),
        Path::Fly => ("fly", "300 m/s", 300.0, 500.0),
        _ => ("teleport", "jumps", 0.0, 2.0),
    };
    let heading = DVec3::new(0.8, 0.6, 0.0);
    let mut p = world.viewer();
    // Start on the ground at this path's height.
    let g = world.height_at(p.x, p.y).unwrap_or_else(|| far_ground(p));
    world.teleport(DVec3::new(p.x, p.y, g + above))?;
    if let Some(o) = objects.as_deref_mut() {
        o.sync(world);
    }
    let mut run = Run {
        name,
        speed,
        times_us: Vec::with_capacity(frames),
        cells: 0,
        regions: 0,
        incremental: 0,
        memory: 0,
        objects: objects.is_some().then(ObjectRun::default),
    };
    for _ in 0..frames {
        let next = if path == Path::Teleport {
            // Random jumps, kept within 500,000 km of the origin.
            let q = (p + DVec3::new(rng.range(-5e6, 5e6), rng.range(-5e6, 5e6), 0.0))
                .clamp(DVec3::splat(-5e8), DVec3::splat(5e8));
            DVec3::new(q.x, q.y, far_ground(q) + above)
        } else {
            let q = p + heading * (mps / 60.0);
            let g = world.height_at(q.x, q.y).unwrap_or_else(|| far_ground(q));
            DVec3::new(q.x, q.y, g + above)
        };
        let t = Instant::now();
        let s = if path == Path::Teleport { world.teleport(next)? } else { world.update(next)? };
        run.times_us.push(t.elapsed().as_secs_f64() * 1e6);
        run.cells += s.cells_generated;
        run.regions += s.regions_rebuilt;
        run.incremental += usize::from(s.incremental);
        if let (Some(o), Some(or)) = (objects.as_deref_mut(), run.objects.as_mut()) {
            let t = Instant::now();
            let s = o.sync(world);
            let t1 = Instant::now();
            o.step(world, 1.0 / 60.0);
            let t2 = Instant::now();
            let mut pairs = 0;
            o.pairs(|_, _| pairs += 1);
            let t3 = Instant::now();
            or.times_us.push((t3 - t).as_secs_f64() * 1e6);
            or.sync_us += (t1 - t).as_secs_f64() * 1e6;
            or.step_us += (t2 - t1).as_secs_f64() * 1e6;
            or.pairs_us += (t3 - t2).as_secs_f64() * 1e6;
            or.generated += s.generated;
            or.dropped += s.dropped;
            or.pairs += pairs;
            or.alive += s.roaming.alive;
            or.alive_max = or.alive_max.max(s.roaming.alive);
            or.spawned += s.roaming.spawned;
            or.duplicates += o.duplicates();
            or.held = o.len();
        }
        p = next;
        step.inc(1);
    }
    run.memory = world.memory_bytes();
    Ok(run)
}
