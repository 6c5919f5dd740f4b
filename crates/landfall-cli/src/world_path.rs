//! `landfall world path`: a path for an agent of a given radius across the procedural world,
//! around its objects and its steep ground, written as CSV (`x,y,z`, start first, goal last).
//!
//! The objects are those the world's cache holds as a viewer walks from the start to the goal in
//! 20 m steps (every scale: stones near each step, trees and houses hundreds of metres around),
//! each once, but for those the agent steps over (no taller than `--step` radii); the ground is the landscape they stand on (the finest drawn level). The planner is
//! the library's ([`landfall::world::Planner`]) over the square around the two points.

use anyhow::{Context, Result};
use clap::Args;
use landfall::glam::{DVec2, DVec3};
use landfall::world::{
    obstacle, Agent, CacheParams, Disc, Generator, LodTerrain, ObjectParams, Objects, PathError, Planner, World,
    WorldParams,
};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `landfall world path`.
#[derive(Args, Debug)]
pub struct PathArgs {
    /// Start, metres.
    #[arg(long, value_name = "X,Y", value_parser = parse_xy, allow_hyphen_values = true)]
    from: DVec2,
    /// Goal, metres.
    #[arg(long, value_name = "X,Y", value_parser = parse_xy, allow_hyphen_values = true)]
    to: DVec2,
    /// Radius of the agent, metres (0.3 to 30): its cells and how far it keeps from objects.
    #[arg(long, value_name = "R", default_value_t = 0.5, allow_hyphen_values = true)]
    radius: f64,
    /// Steepest ground the agent walks on, degrees.
    #[arg(long, value_name = "DEG", default_value_t = 35.0, allow_hyphen_values = true)]
    max_slope: f64,
    /// The scale at which the agent reads the ground's slope, metres (default: the radius, at least
    /// 1 m): slope cells of 1 m or less are blocked by any steeper triangle, wider ones when the
    /// ground through their corners' heights is steeper.
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    slope_step: Option<f64>,
    /// How far a start or goal inside an object (grown by the radius) or on steeper ground may be
    /// moved to the nearest place where the agent can stand, metres (0: never moved; default 5 m
    /// or two radii, whichever is more).
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    snap: Option<f64>,
    /// The tallest object the agent steps over, in radii (0.15: a 0.5 m walker goes around every
    /// stone, a 20 m giant walks over stones and boulders up to 3 m tall, not trees or houses).
    #[arg(long, value_name = "RADII", default_value_t = 0.15, allow_hyphen_values = true)]
    step: f64,
    /// Seed of the landscape.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plan on the bare ground, without the world's objects.
    #[arg(long)]
    no_objects: bool,
    /// Output CSV: header `x,y,z`, the path's corners on the ground, start first, goal last.
    #[arg(short, long, value_name = "OUT.csv")]
    out: PathBuf,
}

/// `X,Y` as two finite numbers.
fn parse_xy(s: &str) -> Result<DVec2, String> {
    let v: Vec<&str> = s.split(',').collect();
    let num = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match v.as_slice() {
        [x, y] => match (num(x), num(y)) {
            (Some(x), Some(y)) => Ok(DVec2::new(x, y)),
            _ => Err(format!("`{s}`: X,Y must be two finite numbers")),
        },
        _ => Err(format!("`{s}`: expected X,Y")),
    }
}

/// An object's identity: kind, level, cell and its bounding sphere's centre's x, y (bits).
type ObjectKey = (u16, u8, (i64, i64), [u64; 2]);

/// Steps of the viewer collecting objects, metres.
const STEP: f64 = 20.0;

pub fn run(args: &PathArgs) -> Result<()> {
    anyhow::ensure!(
        args.max_slope > 0.0 && args.max_slope <= 90.0,
        "--max-slope: {} is not an angle in (0, 90] degrees",
        landfall::support::Num(args.max_slope)
    );
    let mut agent =
        Agent::default().with_radius(args.radius).with_max_slope(args.max_slope.to_radians()).with_step(args.step);
    if let Some(m) = args.slope_step {
        agent = agent.with_slope_step(m);
    }
    if let Some(m) = args.snap {
        agent = agent.with_snap(m);
    }
    agent.validate().map_err(|e| anyhow::anyhow!("--{}: {}", e.field.replace('_', "-"), e.why))?;
    anyhow::ensure!(
        args.from.abs().max_element() < 1e9 && args.to.abs().max_element() < 1e9,
        "--from/--to: within ±1e9 m of the origin"
    );
    let (a, b) = (args.from, args.to);
    let refused = |e: PathError| {
        let which = match (&e, args.slope_step) {
            (PathError::TooLarge { .. }, None) => "--from/--to: ",
            (PathError::TooLarge { .. }, Some(_)) => "--from/--to or --slope-step: ",
            _ => "",
        };
        anyhow::anyhow!("{which}{}", crate::path_error::explain(e, &agent, a, b))
    };
    // What can be refused without the world is refused first: the region's size, the output's
    // directory (nothing is written unless the path is found).
    Planner::check_around(&agent, a, b).map_err(refused)?;
    let out = landfall_io::OutputFile::create(&args.out)?;
    let t0 = Instant::now();
    let params = WorldParams::default().with_seed(args.seed);
    let cache = CacheParams::default();
    let gen = Generator::new(params.clone())?;
    // The landscape the objects stand on, tiles for the region and its margin.
    let ground = LodTerrain::new(gen, cache.mesh_finest, 1024);
    let on = |p: DVec2| p.extend(ground.height_at(p.x, p.y).unwrap_or(0.0) + 1.8);
    let (discs, over) =
        if args.no_objects { (Vec::new(), 0) } else { collect_objects(params, cache, &agent, a, b, &on)? };
    let gathered = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut planner = Planner::around(&ground, &discs, agent, a, b).map_err(refused)?;
    let built = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let route = planner.find_path(a, b)?;
    let query = t2.elapsed().as_secs_f64();
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "x,y,z")?;
    for p in &route.points {
        writeln!(w, "{},{},{}", p.x, p.y, p.z)?;
    }
    let file = w.into_inner().map_err(|e| e.into_error()).context("cannot write the path")?;
    file.commit()?;
    let stats = planner.stats();
    let (lo, hi) = planner.region();
    say!(
        "landfall world path: {:.2} m long, {} corners, radius {} m, slope ≤ {}°: {}",
        route.length(),
        route.points.len(),
        args.radius,
        args.max_slope,
        args.out.display()
    );
    say!(
        "  time {:.1} ms: objects {:.1} ms ({} footprints, {over} objects stepped over), planner {:.1} ms ({} leaves over {:.0}×{:.0} m, {:.1} MB), query {:.2} ms",
        (gathered + built + query) * 1e3,
        gathered * 1e3,
        discs.len(),
        built * 1e3,
        stats.leaves,
        hi.x - lo.x,
        hi.y - lo.y,
        stats.bytes as f64 / 1048576.0,
        query * 1e3
    );
    let ends = [route.points[0], route.points[route.points.len() - 1]];
    for ((what, moved), p) in ["start", "goal"].into_iter().zip(route.moved).zip(ends) {
        if moved > 0.0 {
            say!("  the {what} was moved {moved:.2} m to walkable ground, to ({:.3}, {:.3})", p.x, p.y);
        }
    }
    Ok(())
}

/// The obstacles to `agent` among the objects the cache holds while a viewer walks from `a` to
/// `b`, each once, and how many objects it steps over.
fn collect_objects(
    params: WorldParams,
    cache: CacheParams,
    agent: &Agent,
    a: DVec2,
    b: DVec2,
    on: &dyn Fn(DVec2) -> DVec3,
) -> Result<(Vec<Disc>, usize)> {
    let mut world: World = World::new(params, cache, on(a)).context("cannot make the world")?;
    let mut objects = Objects::new(&world, ObjectParams::default().with_roaming(None))?;
    let mut seen: HashMap<ObjectKey, Option<Disc>> = HashMap::new();
    let steps = (a.distance(b) / STEP).ceil().max(1.0) as usize;
    let bar = crate::progress::Step::bar(
        "objects along the path",
        steps as u64 + 1,
        &format!("{{pos}}/{{len}} steps of {STEP} m {{wide_bar}} {{eta}}"),
    );
    for k in 0..=steps {
        if k > 0 {
            world.update(on(a.lerp(b, k as f64 / steps as f64)))?;
            objects.sync(&world);
        }
        for (_, o) in objects.iter() {
            let c = o.shape.bounding_sphere().0;
            seen.entry((o.kind, o.level, o.cell, [c.x.to_bits(), c.y.to_bits()]))
                .or_insert_with(|| obstacle(&o.shape, agent));
        }
        bar.inc(1);
    }
    bar.done(format!("{} objects", seen.len()));
    let over = seen.values().filter(|d| d.is_none()).count();
    Ok((seen.into_values().flatten().collect(), over))
}
