//! `landfall events`: event-driven simulations.

use crate::csv_batch::nz;
use crate::progress::Step;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use landfall::events::{LineBall, LineBalls, LineError, LineEvent, Simulation};
use landfall_io::{Batch, BatchReader, OutputFile, Outputs, Query};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The simulations.
#[derive(Subcommand, Debug)]
pub enum EventsCommand {
    /// Balls on a line between two walls, elastic collisions, every collision listed in time order.
    ///
    /// Input header `x,v,r,m`: centre, velocity, radius (≥ 0) and mass (> 0) of each ball, at time
    /// 0. Balls may touch but not overlap each other or the walls. Output header `t,a,b`: one row
    /// per collision in time order, a and b the 0-based input rows of the two balls with a < b; a
    /// ball hitting a wall is the row's a, with b = -1 for the left wall (A) and -2 for the right
    /// wall (B). Events at exactly T are included. `--final`: header `x,v`, each ball's centre and
    /// velocity at time T, one row per input row in order.
    ///
    /// Each collision is predicted in closed form between the two neighbours it can involve and
    /// carried out exactly when it happens (no time step): velocities are reflected about the
    /// centre-of-mass velocity, a wall reverses the velocity. Simultaneous contacts (a Newton's
    /// cradle) are resolved one pair at a time, in the order they were predicted.
    ///
    /// Resting contact (thesis 5.1.7): a ball in a burst of 8 collisions each less than 10⁻¹² of the
    /// fastest ball's wall-to-wall time after the one before (wedged between the walls, or squeezed
    /// between a wall and a far heavier ball) is joined to what it
    /// last hit: to a wall it stops there; to a ball, the two move on as one body (momentum kept,
    /// energy lost). The summary says how many were joined.
    ///
    /// A run is bounded: after --max-events collisions (default 10,000,000) it stops, says so on
    /// standard error, and writes what it has — every collision up to the time it reached, and with
    /// --final the state at that time — so a huge --until cannot run forever.
    ///
    /// A bad row (a field that is not a finite number or beyond ±1e300, a negative radius, a mass
    /// ≤ 0, a ball reaching past a wall or overlapping another) stops the run with an error naming
    /// the line(s) and a non-zero exit status; outputs are written to temporary files and renamed
    /// into place together, only when all are complete (--out and --final must be two files).
    #[command(after_help = crate::examples::EVENTS_LINE)]
    Line(LineArgs),
    /// Balls thrown over a terrain, bouncing off its exact triangles, off each other and off a few
    /// fixed spheres until they rest; prints the events by kind and writes a picture of their
    /// paths.
    ///
    /// Each contact is predicted on the ballistic arc against the terrain's own triangles (a
    /// sphere swept along chords of the arc, fattened by the arc's proven distance from its chord,
    /// |g|·L²/8): no time step, and no ball ever inside the ground. A ball whose speed off the
    /// ground after a bounce is below --rest-speed comes to rest (the Zeno threshold), and so does a
    /// ball with 8 events in a row each less than a microsecond (simulated) apart, whatever its
    /// speed (the minimum-interval rule, thesis 5.1.7). After --max-events events (default
    /// 10,000,000) the run stops and says so; the picture follows the first 2 simulated minutes,
    /// then the balls go on to --until without frames (a huge --until cannot hang). Sizes scale
    /// with the terrain: radii 0.2–0.6 % of its smaller side, thrown from 0.5–3 % of it above the
    /// ground; gravity 9.81 world units per second².
    ///
    /// TERRAIN `world` (when no file of that name is there) is the endless procedural world of
    /// `landfall world`: the balls are thrown over a 400 m square around its origin, on the drawn
    /// mesh the nested level-of-detail cache keeps around a viewer standing there.
    ///
    /// With --viewer and --range, the level of detail of behaviour (thesis 5.2): balls whose
    /// flight comes no nearer the viewer than the range ignore each other; a ball coming back into
    /// range is lifted out of any ball it overlaps. The full simulation is run too, and the events
    /// and predictions saved are printed.
    ///
    /// With `world` and --walk, the viewer walks while the balls fly (thesis 5.2.2): the world's
    /// cache follows it frame by frame (30 a second), so the ground under the balls is fine near the
    /// viewer and coarse far from it, and changes under them as it passes. Balls whose ground
    /// changed are lifted out of ground that rose into them, woken where it fell away, and predicted
    /// again; the others keep their predictions. With --range the level of detail follows the
    /// viewer too. The summary says how many balls each change touched.
    #[command(after_help = crate::examples::EVENTS_TERRAIN)]
    Terrain(Box<TerrainBallsArgs>),
}

/// Options of `landfall events terrain`.
#[derive(Args, Debug)]
pub struct TerrainBallsArgs {
    #[command(flatten)]
    terrain: crate::terrain_args::TerrainArgs,
    /// Level of detail of behaviour: balls farther than --range from the viewer at X,Y (2 m above
    /// the ground) ignore each other (they still meet the terrain and the spheres). The full
    /// simulation is run as well, to report the events saved. With --walk, where the walk starts.
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    viewer: Option<String>,
    /// The level-of-detail range (world units), with --viewer.
    #[arg(long, value_name = "R", requires = "viewer")]
    range: Option<f64>,
    /// With TERRAIN `world`: the viewer walks at VX,VY (m/s) from --viewer (default the origin), 2 m
    /// above the drawn ground, and the world's cache follows it; frames (30 a second) go on to
    /// --until, at most 600 s.
    #[arg(long, value_name = "VX,VY", allow_hyphen_values = true)]
    walk: Option<String>,
    /// Number of balls.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    balls: usize,
    /// Number of fixed spheres (boulders) on the ground.
    #[arg(long, value_name = "K", default_value_t = 3)]
    spheres: usize,
    /// Seed of the throws.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Simulate until this time (seconds).
    #[arg(long, value_name = "T", default_value_t = 20.0)]
    until: f64,
    /// Coefficient of restitution of every bounce (0–1).
    #[arg(long, value_name = "E", default_value_t = 0.7)]
    restitution: f64,
    /// The Zeno threshold: speed off the ground below which a ball rests (world units per second).
    #[arg(long, value_name = "V", default_value_t = 0.5)]
    rest_speed: f64,
    /// The picture of the paths.
    #[arg(
        short = 'o',
        long = "out",
        visible_alias = "png",
        value_name = "PNG",
        default_value = "landfall-out/events.png"
    )]
    png: PathBuf,
    /// The picture's size in pixels.
    #[arg(long, value_name = "W,H", default_value = "1280,800")]
    png_size: String,
    /// Stop after this many events (the full simulation run for --range has its own).
    #[arg(long, value_name = "N", default_value_t = landfall::events::DEFAULT_MAX_EVENTS)]
    max_events: u64,
}

/// Options of `landfall events line`.
#[derive(Args, Debug)]
pub struct LineArgs {
    /// Input CSV of balls (header `x,v,r,m`; `-`: standard input).
    #[arg(long, value_name = "IN.csv")]
    balls: PathBuf,
    /// The walls' positions, left then right.
    #[arg(long, value_name = "A,B", allow_hyphen_values = true)]
    walls: String,
    /// Simulate until this time (≥ 0).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    until: f64,
    /// Output CSV of collisions (header `t,a,b`).
    #[arg(short, long, value_name = "EVENTS.csv")]
    out: PathBuf,
    /// Also write each ball's position and velocity at time T (header `x,v`).
    #[arg(long = "final", value_name = "FINAL.csv")]
    final_state: Option<PathBuf>,
    /// Stop after this many collisions (writing everything up to the time reached).
    #[arg(long, value_name = "N", default_value_t = landfall::events::DEFAULT_MAX_EVENTS)]
    max_events: u64,
}

/// `landfall events …`.
pub fn run(cmd: &EventsCommand) -> Result<()> {
    match cmd {
        EventsCommand::Line(args) => line(args),
        EventsCommand::Terrain(args) => terrain(args),
    }
}

fn line(args: &LineArgs) -> Result<()> {
    let [a, b] = crate::terrain_args::numbers::<2>("walls", &args.walls)?;
    if a >= b {
        bail!("--walls: the left wall {} must be below the right wall {}", nz(a), nz(b));
    }
    if !(args.until.is_finite() && args.until >= 0.0) {
        bail!("--until: {} is not a finite time ≥ 0", landfall::support::Num(args.until));
    }
    // Both outputs checked and started now, committed together at the end.
    let mut outs = Outputs::new(&[&args.balls]);
    let events_out = outs.add(&args.out, "--out")?;
    let final_out = args.final_state.as_deref().map(|p| outs.add(p, "--final")).transpose()?;
    let (balls, lines) = read_balls(&args.balls)?;
    let model = LineBalls::new(&balls, a, b).map_err(|e| match e {
        LineError::Ball { ball, why } => anyhow::anyhow!("{}: line {}: {why}", args.balls.display(), lines[ball]),
        LineError::OutsideWalls { ball, side } => anyhow::anyhow!(
            "{}: line {}: the ball reaches past the {side} wall (x ± r must lie within {a}..{b})",
            args.balls.display(),
            lines[ball]
        ),
        LineError::Overlap(p, q) => anyhow::anyhow!(
            "{}: lines {} and {}: the balls overlap (their centres are closer than the sum of their radii)",
            args.balls.display(),
            lines[p],
            lines[q]
        ),
        e => anyhow::anyhow!("{e}"),
    })?;

    let mut sim = Simulation::new(model, 0.0).with_max_events(args.max_events);
    let cannot = || format!("{}: cannot write", args.out.display());
    let mut w = BufWriter::new(outs.file(events_out));
    writeln!(w, "t,a,b").with_context(cannot)?;
    let bar = Step::bar("events line", 1000, "simulated {percent}% {wide_bar} {eta}");
    let mut events = 0u64;
    while let Some(e) = sim.step(args.until) {
        let m = sim.model();
        if m.overflowed() {
            bail!("t = {}: a collision gave a speed beyond the range of f64; nothing was written", e.time);
        }
        let i = m.input_index(e.a) as i64;
        let (p, q) = match e.kind {
            LineEvent::Balls => {
                let j = m.input_index(e.b) as i64;
                (i.min(j), i.max(j))
            }
            LineEvent::LeftWall => (i, -1),
            LineEvent::RightWall => (i, -2),
        };
        writeln!(w, "{},{p},{q}", nz(e.time)).with_context(cannot)?;
        events += 1;
        if events.is_multiple_of(65536) && args.until > 0.0 {
            bar.set_position((1000.0 * e.time / args.until) as u64);
        }
    }
    bar.done(format!("{events} collisions"));
    w.flush().with_context(cannot)?;
    drop(w);
    // Stopped at --max-events: everything up to the time reached, the final state at that time.
    let end = if sim.is_exhausted() && sim.next_time().is_none_or(|t| t <= args.until) {
        let now = sim.now();
        eprintln!(
            "landfall: note: stopped after --max-events {} collisions at t = {now}, before --until {}; the outputs \
             hold the run up to t = {now} (raise --max-events to go further)",
            args.max_events,
            nz(args.until),
            now = nz(now)
        );
        now
    } else {
        args.until
    };
    if let Some(id) = final_out {
        write_final(outs.file(id), sim.model(), end, balls.len())?;
    }
    outs.commit()?;
    let m = sim.model();
    say!(
        "{} balls, {events} collisions until t = {} → {}; energy {} (momentum {}); {} put in resting contact",
        balls.len(),
        nz(end),
        args.out.display(),
        nz(m.energy()),
        nz(m.momentum()),
        sim.settled()
    );
    Ok(())
}

/// The balls of `path` and the file line of each.
fn read_balls(path: &Path) -> Result<(Vec<LineBall>, Vec<u64>)> {
    let mut reader = BatchReader::open(path, Batch::LineBalls)?;
    let (mut balls, mut lines, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    while reader.next_chunk(&mut rows, 1 << 16)? > 0 {
        for (q, &line) in rows.iter().zip(reader.lines()) {
            if let Query::LineBall { x, v, r, m } = *q {
                balls.push(LineBall { x, v, r, m });
                lines.push(line);
            }
        }
    }
    Ok((balls, lines))
}

/// Each ball's centre and velocity at time `t`, in input order, to an output not yet committed.
fn write_final(out: &mut OutputFile, m: &LineBalls, t: f64, n: usize) -> Result<()> {
    let mut state = vec![(0.0, 0.0); n];
    for obj in 0..n as u32 {
        state[m.input_index(obj)] = (m.position(obj, t), m.velocity(obj));
    }
    let cannot = format!("{}: cannot write", out.path().display());
    let mut w = BufWriter::new(out);
    writeln!(w, "x,v").context(cannot.clone())?;
    for (x, v) in state {
        writeln!(w, "{},{}", nz(x), nz(v)).context(cannot.clone())?;
    }
    w.flush().context(cannot)
}

fn terrain(a: &TerrainBallsArgs) -> Result<()> {
    use landfall::events::{BallParams, BehaviourLod};
    use landfall::glam::DVec3;
    if !(a.until.is_finite() && a.until > 0.0) {
        bail!("--until: {} is not a finite time > 0", landfall::support::Num(a.until));
    }
    if a.balls == 0 || a.balls > 100_000 {
        bail!("--balls: {} (expected 1 to 100,000)", a.balls);
    }
    if a.spheres > 1000 {
        bail!("--spheres: at most 1,000");
    }
    let [w, h] = crate::terrain_args::numbers::<2>("png-size", &a.png_size)?;
    if !((16.0..=8192.0).contains(&w) && (16.0..=8192.0).contains(&h) && w.fract() == 0.0 && h.fract() == 0.0) {
        bail!("--png-size: {},{} (expected whole numbers of pixels from 16 to 8192)", w, h);
    }
    let (w, h) = (w as u32, h as u32);
    let at = a.viewer.as_ref().map(|v| crate::terrain_args::numbers::<2>("viewer", v)).transpose()?;
    if at.is_some() && a.range.is_none() && a.walk.is_none() {
        bail!("--viewer: needs --range (the level of detail) or --walk (where the walk starts)");
    }
    let lod_at = a.range.map(|r| (at.unwrap_or_default(), r));
    let path = &a.terrain.path;
    let is_world = path.as_os_str() == "world" && !path.exists();
    let walk = match &a.walk {
        None => None,
        Some(_) if !is_world => bail!("--walk: only over TERRAIN `world`, whose cache follows the viewer"),
        Some(_) if a.until > MAX_WALK_SECONDS => {
            bail!("--until: {} s; a walk is simulated frame by frame, at most {MAX_WALK_SECONDS} s", nz(a.until))
        }
        Some(v) => Some(Walk {
            from: at.unwrap_or_default().into(),
            velocity: crate::terrain_args::numbers::<2>("walk", v)?.into(),
        }),
    };
    let world;
    let loaded;
    let (t, area): (&dyn landfall::Terrain, landfall::Aabb) = if is_world {
        world = procedural_world()?;
        let t: &dyn landfall::Terrain = &world;
        (t, square_around_origin(t, 200.0))
    } else {
        landfall_io::refuse_overwriting_inputs(&a.png, &[path])?;
        loaded = a.terrain.load()?;
        loaded.warn_notes(path);
        let t = loaded.terrain.as_dyn();
        (t, t.bounds())
    };
    if !t.frame().is_z_up() {
        bail!("events terrain: the terrain must have the default gravity (0, 0, -1)");
    }
    let (spheres, balls) = throw(t, &area, a.seed, a.spheres, a.balls);
    if balls.len() < a.balls {
        eprintln!("landfall: note: room for {} balls of {} asked", balls.len(), a.balls);
    }
    let full = BallParams::default().with_restitution(a.restitution).with_rest_speed(a.rest_speed);
    let params = match lod_at {
        None => full,
        Some(([x, y], range)) => {
            let ground = t.top_surface(DVec3::new(x, y, 0.0)).map_or(area.max.z, |s| s.point.z);
            full.with_lod(Some(BehaviourLod { viewer: DVec3::new(x, y, ground + 2.0), range }))
        }
    };
    if let Err(e) = params.validate() {
        let option = match e.field {
            "restitution" => "--restitution",
            "rest_speed" => "--rest-speed",
            "lod.range" => "--range",
            "lod.viewer" => "--viewer",
            field => field,
        };
        bail!("{option}: {}", e.why);
    }
    // A walk moves the ground: each run on a world of its own.
    let run_with = |params, paths| match walk {
        None => simulate(t, &spheres, &balls, params, a.until, paths, a.max_events, None),
        Some(w) => simulate(procedural_world()?, &spheres, &balls, params, a.until, paths, a.max_events, Some(w)),
    };
    let run = run_with(params, true)?;
    if let Some(at) = run.stopped_at {
        eprintln!(
            "landfall: note: stopped after --max-events {} events at t = {at}, before --until {} (raise --max-events \
             to go further)",
            a.max_events,
            nz(a.until),
            at = nz(at)
        );
    }
    let n = balls.len();
    let c = run.counts;
    let simulated = run.stopped_at.unwrap_or(a.until);
    let secs = if simulated < 1e16 { format!("{simulated:.1}") } else { nz(simulated).to_string() };
    say!("{n} balls, {} fixed spheres, {secs} simulated seconds in {:.2} s", spheres.len(), run.wall);
    say!("events        {} ({:.0} per second of wall time)", run.events, run.events as f64 / run.wall.max(1e-9));
    say!("  ground      {}", c.ground);
    say!("  spheres     {}", c.spheres);
    say!("  ball–ball   {}", c.balls);
    say!("  came to rest {} ({} by the minimum-interval rule)", c.rested, run.settled);
    say!("  left        {}", c.left);
    say!("predictions   {} scheduled, {} dropped as stale", run.stats.scheduled, run.stats.invalidated);
    say!("at rest       {} of {} still on the terrain", run.resting, n - c.left as usize);
    say!("energy        {:.6e} → {:.6e} (restitution {})", run.energy.0 + 0.0, run.energy.1 + 0.0, a.restitution);
    if let (Some(w), Some(g)) = (walk, &run.walked) {
        let r = g.regrounded;
        say!(
            "walk          {:.0} m at ({}, {}) m/s from ({}, {}); {} cache updates changed the ground under balls",
            w.velocity.length() * simulated,
            nz(w.velocity.x),
            nz(w.velocity.y),
            nz(w.from.x),
            nz(w.from.y),
            g.changes
        );
        say!(
            "  under balls {} looked at, {} predicted again, {} lifted out of risen ground, {} woken where it fell away",
            r.looked_at,
            r.predicted,
            r.lifted,
            r.woken
        );
        if params.lod.is_some() {
            say!("  level of detail: {} balls changed sides of the range as the viewer walked", g.viewer_changes);
        }
    }
    if let Some(lod) = params.lod {
        let all = run_with(full, false)?;
        let saved = |x: u64, y: u64| if y == 0 { 0.0 } else { 100.0 * (1.0 - x as f64 / y as f64) };
        say!(
            "level of detail: range {} around ({}, {}, {}); {} balls re-initialized on coming into range",
            nz(lod.range),
            nz((lod.viewer.x * 10.0).round() / 10.0),
            nz((lod.viewer.y * 10.0).round() / 10.0),
            nz((lod.viewer.z * 10.0).round() / 10.0),
            c.reinitialized
        );
        say!(
            "  events      {} vs {} in the full simulation ({:.1} % saved); ball–ball {} vs {}; predictions {} vs {} ({:.1} % saved); {:.2} s vs {:.2} s",
            run.events,
            all.events,
            saved(run.events, all.events),
            c.balls,
            all.counts.balls,
            run.stats.scheduled,
            all.stats.scheduled,
            saved(run.stats.scheduled, all.stats.scheduled),
            run.wall,
            all.wall
        );
    }
    a.terrain.unchanged()?;
    let paths = run.paths;
    // The picture: the terrain from above its south-west, the paths as dots.
    let step = Step::spinner("drawing the paths with landfall's ray casts");
    let cam = crate::render::Camera::over(t, area);
    let (mut px, _, _) = crate::render::render(t, &cam, w, h, 0.0);
    crate::render::draw_paths(t, &cam, &paths, w, h, &mut px);
    crate::render::write_png(&a.png, w, h, &px)?;
    step.done(format!("{w}×{h} pixels"));
    say!("picture       {}", a.png.display());
    Ok(())
}

/// The procedural world of `landfall world` (its default generator) around a viewer standing at the
/// origin, the cache cut to the 10 finest layers and the mesh drawn from layer 1 to 7 (5 km across).
fn procedural_world() -> Result<landfall::world::World> {
    use landfall::glam::DVec3;
    use landfall::world::{CacheParams, LodTerrain, WorldParams};
    let params = WorldParams::default();
    let far = LodTerrain::new(landfall::world::Generator::new(params.clone())?, 4, 64);
    let ground = far.height_at(0.0, 0.0).unwrap_or(0.0);
    let cache = CacheParams::default().with_layers(10).with_mesh_coarsest(7).with_far_distance(0.0);
    Ok(landfall::world::World::new(params, cache, DVec3::new(0.0, 0.0, ground + 2.0))?)
}

/// The square of half-width `half` around the origin, with the terrain's height range over it.
fn square_around_origin(t: &dyn landfall::Terrain, half: f64) -> landfall::Aabb {
    use landfall::glam::DVec3;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..=64 {
        for j in 0..=64 {
            let (x, y) = (-half + i as f64 * half / 32.0, -half + j as f64 * half / 32.0);
            if let Some(s) = t.top_surface(DVec3::new(x, y, 0.0)) {
                lo = lo.min(s.point.z);
                hi = hi.max(s.point.z);
            }
        }
    }
    landfall::Aabb::new(DVec3::new(-half, -half, lo), DVec3::new(half, half, hi))
}

/// `balls` balls and `spheres` boulders over `area` of the terrain, none overlapping. Sizes scale
/// with the area: radii 0.2–0.6 % of its smaller side, thrown from 0.5–3 % of it above the ground.
fn throw(
    t: &dyn landfall::Terrain,
    area: &landfall::Aabb,
    seed: u64,
    spheres: usize,
    balls: usize,
) -> (Vec<(landfall::glam::DVec3, f64)>, Vec<landfall::events::Ball>) {
    use landfall::events::Ball;
    use landfall::glam::DVec3;
    use landfall::support::SplitMix64;
    let b = area;
    let size = (b.max.x - b.min.x).min(b.max.y - b.min.y);
    let mut rng = SplitMix64::new(seed);
    let ground = |x: f64, y: f64| t.top_surface(DVec3::new(x, y, 0.0)).map(|s| s.point.z);
    let inner = |rng: &mut SplitMix64| {
        (
            rng.range(b.min.x + 0.1 * (b.max.x - b.min.x), b.max.x - 0.1 * (b.max.x - b.min.x)),
            rng.range(b.min.y + 0.1 * (b.max.y - b.min.y), b.max.y - 0.1 * (b.max.y - b.min.y)),
        )
    };
    let mut fixed: Vec<(DVec3, f64)> = Vec::new();
    let mut tries = 0;
    while fixed.len() < spheres && tries < 100 * (spheres + 1) {
        tries += 1;
        let (x, y) = inner(&mut rng);
        if let Some(z) = ground(x, y) {
            fixed.push((DVec3::new(x, y, z), rng.range(0.02, 0.05) * size));
        }
    }
    let mut out: Vec<Ball> = Vec::new();
    // Neighbours for the overlap test, by cell of the largest ball's diameter.
    let cell = 0.012 * size;
    let key = |p: DVec3| ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64);
    let mut near: std::collections::HashMap<(i64, i64), Vec<usize>> = Default::default();
    let speed = (9.81 * size).sqrt() * 0.05;
    tries = 0;
    while out.len() < balls && tries < 100 * balls {
        tries += 1;
        let (x, y) = inner(&mut rng);
        let Some(z) = ground(x, y) else { continue };
        let r = rng.range(0.002, 0.006) * size;
        let p = DVec3::new(x, y, z + r + rng.range(0.005, 0.03) * size);
        let (ki, kj) = key(p);
        let clear_of_balls = (ki.saturating_sub(1)..=ki.saturating_add(1)).all(|i| {
            (kj.saturating_sub(1)..=kj.saturating_add(1))
                .all(|j| near.get(&(i, j)).is_none_or(|l| l.iter().all(|&o| (out[o].p - p).length() > out[o].r + r)))
        });
        let clear = clear_of_balls
            && fixed.iter().all(|&(s, rs)| (s - p).length() > rs + r)
            && t.floor_below(p).is_some_and(|s| (p - s.point).length() > r);
        if clear {
            let v = DVec3::new(rng.range(-speed, speed), rng.range(-speed, speed), rng.range(0.0, 2.0 * speed));
            near.entry((ki, kj)).or_default().push(out.len());
            out.push(Ball { p, v, r, m: r * r * r });
        }
    }
    (fixed, out)
}

/// What one run of the balls gives.
struct BallRun {
    /// With a walk: what the moving ground and viewer did.
    walked: Option<Walked>,
    events: u64,
    counts: landfall::events::BallCounts,
    stats: landfall::events::QueueStats,
    wall: f64,
    resting: usize,
    energy: (f64, f64),
    paths: Vec<Vec<landfall::glam::DVec3>>,
    /// The time reached when the run stopped at its --max-events.
    stopped_at: Option<f64>,
    /// Balls put to rest by the minimum-interval rule.
    settled: u64,
}

/// The viewer's walk over the world (`--walk`).
#[derive(Clone, Copy, Debug)]
struct Walk {
    from: landfall::glam::DVec2,
    velocity: landfall::glam::DVec2,
}

/// What a walk did to the balls.
struct Walked {
    /// Cache updates that changed the ground under balls.
    changes: usize,
    regrounded: landfall::events::Regrounded,
    /// Balls that changed sides of the level of detail's range.
    viewer_changes: usize,
}

/// The longest walk, simulated seconds (every frame updates the world).
const MAX_WALK_SECONDS: f64 = 600.0;

/// Ground that follows a walking viewer (the world's cache) or stays as it is.
trait Ground: landfall::Terrain {
    /// Moves the viewer; the box whose ground changed.
    fn follow(&mut self, viewer: landfall::glam::DVec3) -> Result<Option<landfall::Aabb>>;
    /// The box balls live in, when not the terrain's bounds.
    fn arena(&self) -> Option<landfall::Aabb> {
        None
    }
}

impl Ground for &dyn landfall::Terrain {
    fn follow(&mut self, _: landfall::glam::DVec3) -> Result<Option<landfall::Aabb>> {
        Ok(None)
    }
}

impl Ground for landfall::world::World {
    fn follow(&mut self, viewer: landfall::glam::DVec3) -> Result<Option<landfall::Aabb>> {
        self.update(viewer)?;
        Ok(self.changed_region())
    }
    /// The drawn mesh's square when the run starts, over ground that may be coarser later.
    fn arena(&self) -> Option<landfall::Aabb> {
        let (b, floor) = (self.mesh_bounds(), -self.generator().max_abs_height() - 1.0);
        Some(landfall::Aabb { min: b.min.truncate().extend(floor), max: b.max.truncate().extend(f64::INFINITY) })
    }
}

/// Runs the balls to `until`, frame by frame at 30 Hz (recording each ball's path when `paths`),
/// with a progress bar; with `walk`, the viewer walks and the ground follows it every frame.
#[allow(clippy::too_many_arguments)]
fn simulate<T: Ground>(
    t: T,
    spheres: &[(landfall::glam::DVec3, f64)],
    balls: &[landfall::events::Ball],
    params: landfall::events::BallParams,
    until: f64,
    paths: bool,
    max_events: u64,
    walk: Option<Walk>,
) -> Result<BallRun> {
    use landfall::events::TerrainBalls;
    use landfall::glam::DVec3;
    let start = std::time::Instant::now();
    let arena = t.arena().filter(|_| walk.is_some());
    let mut model = TerrainBalls::new(t, spheres.to_vec(), balls, params)?;
    if let Some(arena) = arena {
        model = model.with_arena(arena)?;
    }
    let mut sim = Simulation::new(model, 0.0).with_max_events(max_events);
    let mut walked = walk.map(|_| Walked { changes: 0, regrounded: Default::default(), viewer_changes: 0 });
    let e0 = sim.model().energy(0.0);
    let n = balls.len();
    let mut tracks: Vec<Vec<_>> = if paths { balls.iter().map(|b| vec![b.p]).collect() } else { Vec::new() };
    let bar = Step::bar(
        if params.lod.is_some() { "balls with level of detail" } else { "balls" },
        1000,
        "simulated {percent}% {wide_bar} {eta}",
    );
    // Frames for the picture over the first two minutes at most (a walk: all the way); then on to
    // `until` in one go.
    let framed = if walk.is_some() { until } else { until.min(FRAMED_SECONDS) };
    let frames = (framed * 30.0).ceil() as usize;
    let (mut events, mut last) = (0u64, 0.0);
    for f in 1..=frames {
        if sim.is_exhausted() || (walk.is_none() && sim.next_time().is_none()) {
            break; // everything rests or has gone, or the run is exhausted: nothing moves
        }
        let ft = (f as f64 / 30.0).min(framed);
        events += sim.advance_to(ft, |e, _| last = e.time);
        if let (Some(w), Some(g)) = (walk, walked.as_mut()) {
            let xy = w.from + w.velocity * ft;
            let ground = sim.model().terrain().top_surface(xy.extend(0.0)).map_or(0.0, |s| s.point.z);
            let viewer = DVec3::new(xy.x, xy.y, ground + 2.0);
            let r = sim
                .change_ground(|t| t.follow(viewer))
                .with_context(|| format!("--walk: the viewer at t = {} s", nz(ft)))?;
            g.changes += usize::from(r != Default::default());
            g.regrounded += r;
            g.viewer_changes += sim.move_viewer(viewer)?;
        }
        let m = sim.model();
        let recorded = f <= (MAX_PATH_POINTS / n.max(1)).max(1);
        for (k, path) in tracks.iter_mut().enumerate().filter(|_| recorded) {
            // Flying balls every frame; a resting one once where it rests.
            let p = m.position(k as u32, ft);
            if m.is_alive(k as u32) && (!m.is_resting(k as u32) || path.last() != Some(&p)) {
                path.push(p);
            }
        }
        bar.set_position((1000 * f / frames) as u64);
    }
    events += sim.advance_to(until, |e, _| last = e.time);
    bar.done(format!("{events} events"));
    // Stopped at the bound: the state is the one at the last event (the clock went on to `until`).
    let exhausted = sim.is_exhausted();
    let end = if exhausted { last } else { until };
    let m = sim.model();
    Ok(BallRun {
        walked,
        events,
        counts: m.counts(),
        stats: sim.stats(),
        wall: start.elapsed().as_secs_f64(),
        resting: (0..n as u32).filter(|&k| m.is_alive(k) && m.is_resting(k)).count(),
        energy: (e0, m.energy(end)),
        paths: tracks,
        stopped_at: exhausted.then_some(end),
        settled: sim.settled(),
    })
}

/// Simulated seconds drawn frame by frame in the picture of `events terrain`.
const FRAMED_SECONDS: f64 = 120.0;

/// Most points of the paths kept for the picture (24 bytes each), all balls together.
const MAX_PATH_POINTS: usize = 20_000_000;
