//! `landfall events`: event-driven simulations.

use crate::csv_batch::nz;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use landfall::events::{LineBall, LineBalls, LineError, LineEvent, Simulation};
use landfall_io::{Batch, BatchReader, OutputFile, Query};
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
    /// A bad row (a field that is not a finite number, a negative radius, a mass ≤ 0, a ball
    /// reaching past a wall or overlapping another) stops the run with an error naming the line(s)
    /// and a non-zero exit status; outputs are written to temporary files and renamed into place
    /// only when complete.
    Line(LineArgs),
}

/// Options of `landfall events line`.
#[derive(Args, Debug)]
pub struct LineArgs {
    /// Input CSV of balls (header `x,v,r,m`).
    #[arg(long, value_name = "IN.csv")]
    balls: PathBuf,
    /// The walls' positions, left then right.
    #[arg(long, value_name = "A,B", allow_hyphen_values = true)]
    walls: String,
    /// Simulate until this time (≥ 0).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    until: f64,
    /// Output CSV of collisions (header `t,a,b`).
    #[arg(long, value_name = "EVENTS.csv")]
    out: PathBuf,
    /// Also write each ball's position and velocity at time T (header `x,v`).
    #[arg(long = "final", value_name = "FINAL.csv")]
    final_state: Option<PathBuf>,
}

/// `landfall events …`.
pub fn run(cmd: &EventsCommand) -> Result<()> {
    match cmd {
        EventsCommand::Line(args) => line(args),
    }
}

fn line(args: &LineArgs) -> Result<()> {
    let [a, b] = crate::terrain_args::numbers::<2>("walls", &args.walls)?;
    if a >= b {
        bail!("--walls: the left wall {a} must be below the right wall {b}");
    }
    if !(args.until.is_finite() && args.until >= 0.0) {
        bail!("--until: {} is not a finite time ≥ 0", args.until);
    }
    let mut outputs = vec![args.out.as_path()];
    outputs.extend(args.final_state.as_deref());
    for o in &outputs {
        landfall_io::refuse_overwriting_inputs(o, &[&args.balls])?;
    }
    if args.final_state.as_deref() == Some(args.out.as_path()) {
        bail!("--final and --out name the same file {}", args.out.display());
    }
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

    let mut sim = Simulation::new(model, 0.0);
    let mut w = BufWriter::new(OutputFile::create(&args.out)?);
    let cannot = || format!("{}: cannot write", args.out.display());
    writeln!(w, "t,a,b").with_context(cannot)?;
    let bar = ProgressBar::new(1000)
        .with_style(ProgressStyle::with_template("{spinner} simulated {percent}% {wide_bar} {eta}").expect("template"));
    let mut events = 0u64;
    while let Some(e) = sim.step(args.until) {
        let m = sim.model();
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
        if events % 65536 == 0 && args.until > 0.0 {
            bar.set_position((1000.0 * e.time / args.until) as u64);
        }
    }
    bar.finish_and_clear();
    let file = w.into_inner().map_err(|e| e.into_error()).with_context(cannot)?;
    // Write the final state before committing either file, so that an error leaves both as they were.
    let final_file = match &args.final_state {
        Some(path) => Some(write_final(path, sim.model(), args.until, balls.len())?),
        None => None,
    };
    file.commit()?;
    if let Some(f) = final_file {
        f.commit()?;
    }
    let m = sim.model();
    say!(
        "{} balls, {events} collisions until t = {} → {}; energy {} (momentum {})",
        balls.len(),
        args.until,
        args.out.display(),
        m.energy(),
        m.momentum()
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

/// Each ball's centre and velocity at time `t`, in input order, to a file not yet committed.
fn write_final(path: &Path, m: &LineBalls, t: f64, n: usize) -> Result<OutputFile> {
    let mut state = vec![(0.0, 0.0); n];
    for obj in 0..n as u32 {
        state[m.input_index(obj)] = (m.position(obj, t), m.velocity(obj));
    }
    let mut w = BufWriter::new(OutputFile::create(path)?);
    let cannot = || format!("{}: cannot write", path.display());
    writeln!(w, "x,v").with_context(cannot)?;
    for (x, v) in state {
        writeln!(w, "{},{}", nz(x), nz(v)).with_context(cannot)?;
    }
    w.into_inner().map_err(|e| e.into_error()).with_context(cannot)
}
