//! A path planner's error in words, for the command line and the server alike (the fuzz target
//! includes this file by path, so it uses nothing of the CLI's own).

use landfall::glam::DVec2;
use landfall::world::{Agent, PathError};

/// `e` in words; a region too large for one plan said in metres, with the limit.
pub(crate) fn explain(e: PathError, agent: &Agent, a: DVec2, b: DVec2) -> String {
    match e {
        PathError::TooLarge { side, max, .. } => format!(
            "{:.0} m apart; the planning region would be {side:.0} m wide, and one plan covers at most {:.0} m ({max} \
             slope cells of {} m)",
            a.distance(b),
            max as f64 * agent.slope_cell(),
            agent.slope_cell()
        ),
        e => e.to_string(),
    }
}
