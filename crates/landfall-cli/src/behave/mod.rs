//! `landfall behave`: the thesis' two demonstrations of behaviours with levels of detail (5.2.1,
//! 5.3.2), each run twice — with levels of detail, and with every entity at full detail — and
//! checked from outside for overlaps and jumps in view.

mod dance;
mod draw;
mod monsters;
mod run;

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// The demonstrations.
#[derive(Subcommand, Debug)]
pub enum BehaveCommand {
    /// About 100 couples doing the box step on a ballroom floor while the viewer walks around it.
    ///
    /// The couples travel the line of dance in five lanes, each couple at its own speed, box
    /// stepping (a square wave along the lane), and every few bars twirl or rest. Near the
    /// viewer's camera (a 63° field of view, 14 m deep) they run at full detail: a move every beat,
    /// yielding to the couple ahead. Farther, and behind the viewer, they are approximate (closed
    /// form along the lane, passing through each other unseen); farther still, dormant (no events at
    /// all). A twirl triples a couple's importance. A couple coming into view is snapped to the
    /// nearest free place behind it in its lane.
    ///
    /// Writes into --out: `stats.csv` (one row per frame: representations, events, time, and the
    /// same run with every couple at full detail), `summary.txt` (also printed) and --stills PNG
    /// pictures from above, coloured by representation. Fails (after writing) if any two couples in
    /// view overlap or any couple in view moves faster than its speed.
    #[command(after_help = crate::examples::BEHAVE_DANCE)]
    Dance(DanceArgs),
    /// Monsters roaming a building of 3 × 3 rooms with a door in every shared wall, the viewer
    /// walking through the doors and back.
    ///
    /// Rooms the viewer sees — exact 2-D line of sight through the door openings, each door
    /// clipped to the wedge of the doors before it — run at full detail: a move every beat,
    /// yielding to the monster ahead. Rooms out of sight run approximate (closed form along the
    /// monster's loop, passing through each other unseen) near the viewer and dormant farther. A
    /// monster whose room comes into sight is snapped to the nearest free place behind it on its
    /// loop, clear of the walls.
    ///
    /// Writes the same outputs as `dance` (pictures `monsters-*.png`) and fails the same way.
    #[command(after_help = crate::examples::BEHAVE_MONSTERS)]
    Monsters(MonstersArgs),
}

/// Options every demonstration shares.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Simulated time, seconds.
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    pub seconds: f64,
    /// Frames per simulated second.
    #[arg(long, value_name = "F", default_value_t = 10.0)]
    pub fps: f64,
    /// Pictures to write, evenly spread over the run (the last at its end).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub stills: usize,
    /// Seed of the entities.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Directory of the outputs (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR", default_value = "landfall-out/behave")]
    pub out: PathBuf,
}

/// Options of `landfall behave dance`.
#[derive(Args, Debug)]
pub struct DanceArgs {
    /// Number of couples.
    #[arg(long, value_name = "N", default_value_t = 100)]
    couples: usize,
    #[command(flatten)]
    run: RunArgs,
}

/// Options of `landfall behave monsters`.
#[derive(Args, Debug)]
pub struct MonstersArgs {
    /// Monsters per room (1 to 12).
    #[arg(long, value_name = "N", default_value_t = 6)]
    per_room: usize,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs a demonstration.
pub fn run(cmd: &BehaveCommand) -> Result<()> {
    match cmd {
        BehaveCommand::Dance(a) => run::run(&dance::Ballroom::new(a.couples, a.run.seed)?, &a.run),
        BehaveCommand::Monsters(a) => run::run(&&monsters::Building::new(a.per_room, a.run.seed)?, &a.run),
    }
}
