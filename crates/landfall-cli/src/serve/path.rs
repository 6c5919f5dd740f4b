//! `/api/world/path`: a path for an agent between two points of the served world, by the planner of
//! `landfall world path` ([`landfall::world::Planner`] over the square around the two points),
//! around the footprints of the objects the server holds now (those drawn; but for those the agent
//! steps over, no taller than 0.15 of its radius: [`landfall::world::obstacle`]) on the ground they
//! stand on (the finest drawn level, as `landfall world path` and Python's `World.paths` plan).

use super::jobs::{bad, ApiError};
use axum::http::StatusCode;
use landfall::glam::DVec2;
use landfall::world::{Agent, Disc, PathError, Planner};
use landfall::{Aabb, Terrain};
use serde_json::{json, Value};
use std::time::Instant;

/// The agent of `radius` metres climbing at most `max_slope` degrees; a bad value is a 400 naming it.
pub fn agent(radius: f64, max_slope: f64) -> Result<Agent, ApiError> {
    if !(max_slope > 0.0 && max_slope <= 90.0) {
        return Err(bad(format!(
            "max_slope: {} is not an angle in (0, 90] degrees",
            landfall::support::Num(max_slope)
        )));
    }
    let agent = Agent::default().with_radius(radius).with_max_slope(max_slope.to_radians());
    agent.validate().map_err(|e| bad(format!("{}: {}", e.field, e.why)))?;
    Ok(agent)
}

/// The longest straight distance between a path's ends, metres: the objects held are those near
/// the camera, and a plan's time grows with its region.
const MAX_DISTANCE: f64 = 1000.0;

/// Samples of the drawn line at most (a 3 km path is sampled every metre or more).
const LINE: usize = 4096;

/// The path from `a` to `b` as JSON: `points` (`[x, y, z]` on the ground, start first, goal
/// last; an end the agent cannot stand on is moved to the nearest place where it can, within the
/// agent's snap distance (5 m or two radii, whichever is more), and `moved` says how far, start and goal), `line` (the path on
/// the ground for drawing, `[x, y, z]`: each segment cut in pieces of at most max(1 m, r/2)),
/// `length` (horizontal, metres), `radius`, `obstacles` (footprints planned around) and `ms`
/// (planning time). A point off the drawn world (`bounds`), ends farther apart than 1 km or a
/// region too large for one plan is a 400; a start or goal in an obstacle or on steep ground
/// beyond the snap distance, or no way between them, a 422.
pub fn plan(
    ground: &dyn Terrain,
    discs: &[Disc],
    bounds: Aabb,
    agent: Agent,
    a: DVec2,
    b: DVec2,
) -> Result<Value, ApiError> {
    for (name, p) in [("ax, ay", a), ("bx, by", b)] {
        if p.x < bounds.min.x || p.y < bounds.min.y || p.x > bounds.max.x || p.y > bounds.max.y {
            return Err(bad(format!(
                "{name}: ({}, {}) is off the drawn world [{:.0}, {:.0}] × [{:.0}, {:.0}]",
                p.x, p.y, bounds.min.x, bounds.max.x, bounds.min.y, bounds.max.y
            )));
        }
    }
    if a.distance(b) > MAX_DISTANCE {
        return Err(bad(format!(
            "ax, ay, bx, by: {:.0} m apart; the viewer plans paths of at most {MAX_DISTANCE} m (`landfall world \
             path` plans longer ones)",
            a.distance(b)
        )));
    }
    let t0 = Instant::now();
    let explain = |e: PathError| {
        let status = match e {
            PathError::InObstacle(..) | PathError::Steep(..) | PathError::NoPath(..) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError(status, crate::path_error::explain(e, &agent, a, b))
    };
    let mut planner = Planner::around(ground, discs, agent, a, b).map_err(explain)?;
    let route = planner.find_path(a, b).map_err(explain)?;
    // The path on the ground for drawing: each segment sampled every max(1 m, r/2), at most
    // LINE samples in all.
    let step = (0.5 * agent.radius).max(1.0).max(route.length() / LINE as f64);
    let mut line = Vec::new();
    for w in route.points.windows(2) {
        let (p, q) = (w[0].truncate(), w[1].truncate());
        let n = (p.distance(q) / step).ceil().max(1.0) as usize;
        for k in 0..n {
            let s = p.lerp(q, k as f64 / n as f64);
            line.push([s.x, s.y, ground.top_surface(s.extend(0.0)).map_or(w[0].z, |g| g.point.z)]);
        }
    }
    let last = route.points[route.points.len() - 1];
    line.push(last.to_array());
    Ok(json!({
        "points": route.points.iter().map(|p| p.to_array()).collect::<Vec<_>>(),
        "line": line,
        "length": route.length(),
        "moved": route.moved,
        "radius": agent.radius,
        "obstacles": discs.len(),
        "ms": t0.elapsed().as_secs_f64() * 1e3,
    }))
}
