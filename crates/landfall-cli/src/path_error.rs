//! A path planner's error in words, for the command line and the server alike (the fuzz target
//! includes this file by path, so it uses nothing of the CLI's own).

use landfall::glam::DVec2;
use landfall::world::{Agent, PathError};

/// `e` in words; a region too large for one plan said in metres, with the limit.
pub(crate) fn explain(e: PathError, agent: &Agent, a: DVec2, b: DVec2) -> String {
    match e {
        PathError::TooLarge { side, max, .. } => format!(
            "{} m apart; the planning region would be {} m wide, and one plan covers at most {} m ({max} slope cells \
             of {} m)",
            metres(a.distance(b)),
            metres(side),
            metres(max as f64 * agent.slope_cell()),
            metres(agent.slope_cell())
        ),
        e => e.to_string(),
    }
}

/// A length to the metre from 1 m, to the millimetre below, in exponent form below 1 mm and from
/// 1e16 m.
fn metres(v: f64) -> String {
    if (1.0..1e16).contains(&v.abs()) {
        format!("{v:.0}")
    } else if (1e-3..1.0).contains(&v.abs()) {
        format!("{v:.3}").trim_end_matches('0').into()
    } else if v == 0.0 || !v.is_finite() {
        format!("{v}")
    } else {
        format!("{v:.3e}")
    }
}
