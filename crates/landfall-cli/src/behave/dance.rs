//! The ballroom: lanes of couples box-stepping along the line of dance, the viewer walking round.

use super::draw::{Map, Picture};
use super::run::Stage;
use anyhow::{bail, Result};
use landfall::behave::{CrowdParams, Entity, FieldOfView, ImportanceParams, Route, Viewer};
use landfall::glam::DVec2;
use landfall::support::SplitMix64;

/// Lanes of the line of dance: half sizes of their rectangles, m.
const LANES: [(f64, f64); 5] = [(16.0, 10.0), (14.0, 8.0), (12.0, 6.0), (10.0, 4.0), (8.0, 2.0)];
/// The box step: forward this far, then across the lane by `SIDE`.
const STEP: f64 = 0.5;
/// Width of the box step across the lane, m.
const SIDE: f64 = 0.3;
/// A couple's radius, m.
const RADIUS: f64 = 0.45;
/// The viewer's walk: an ellipse round the floor (half axes, m) at this speed (m/s).
const WALK: (f64, f64, f64) = (19.5, 13.0, 1.2);

/// The ballroom and its couples.
pub struct Ballroom {
    entities: Vec<Entity>,
    lanes: Vec<Vec<DVec2>>,
}

/// The centre line of a lane: the rectangle of half sizes `(a, b)`, counter-clockwise.
fn lane_point(a: f64, b: f64, s: f64) -> (DVec2, DVec2) {
    let sides = [
        (DVec2::new(a, -b), DVec2::Y, 2.0 * b),
        (DVec2::new(a, b), -DVec2::X, 2.0 * a),
        (DVec2::new(-a, b), -DVec2::Y, 2.0 * b),
        (DVec2::new(-a, -b), DVec2::X, 2.0 * a),
    ];
    let mut s = s.rem_euclid(4.0 * (a + b));
    for (start, dir, len) in sides {
        if s <= len {
            // Outward normal: the direction turned clockwise.
            return (start + dir * s, DVec2::new(dir.y, -dir.x));
        }
        s -= len;
    }
    (sides[0].0, DVec2::X)
}

/// The box step along a lane as a closed route: a square wave `SIDE` wide about its centre line.
fn box_step_lane(a: f64, b: f64) -> Result<Route> {
    let perimeter = 4.0 * (a + b);
    let stations = ((perimeter / STEP / 2.0).round() as usize * 2).max(4);
    let step = perimeter / stations as f64;
    let mut points = Vec::with_capacity(2 * stations);
    for k in 0..stations {
        let (p, n) = lane_point(a, b, k as f64 * step);
        let (first, second) = if k % 2 == 0 { (-1.0, 1.0) } else { (1.0, -1.0) };
        points.push(p + n * (first * SIDE / 2.0));
        points.push(p + n * (second * SIDE / 2.0));
    }
    Ok(Route::closed(points)?)
}

impl Ballroom {
    /// `couples` couples spread over the lanes by their lengths.
    pub fn new(couples: usize, seed: u64) -> Result<Self> {
        if !(1..=10_000).contains(&couples) {
            bail!("--couples: {couples} (expected 1 to 10000)");
        }
        let total: f64 = LANES.iter().map(|(a, b)| a + b).sum();
        let mut rng = SplitMix64::new(seed);
        let mut entities = Vec::with_capacity(couples);
        let mut lanes = Vec::new();
        for (k, &(a, b)) in LANES.iter().enumerate() {
            let route = box_step_lane(a, b)?;
            let n = if k + 1 == LANES.len() {
                couples - entities.len()
            } else {
                (couples as f64 * (a + b) / total).round() as usize
            };
            for _ in 0..n.min(couples - entities.len()) {
                entities.push(Entity {
                    seed: rng.next_u64(),
                    route: route.clone(),
                    radius: RADIUS,
                    speed: rng.range(0.3, 0.7),
                });
            }
            lanes.push([(a, -b), (a, b), (-a, b), (-a, -b), (a, -b)].map(|(x, y)| DVec2::new(x, y)).to_vec());
        }
        Ok(Self { entities, lanes })
    }
}

impl Stage for Ballroom {
    type View = FieldOfView;

    fn name(&self) -> &'static str {
        "dance"
    }

    fn entities(&self) -> Vec<Entity> {
        self.entities.clone()
    }

    fn params(&self) -> CrowdParams {
        // Out of the camera a couple counts a tenth: approximate within about 20 m, dormant beyond.
        CrowdParams::default().with_importance(ImportanceParams::default().with_hidden_weight(0.1))
    }

    fn view(&self, t: f64) -> (Viewer, FieldOfView) {
        let (a, b, speed) = WALK;
        // Arc length is close enough to angle × mean radius for a walk; the speed is exact.
        let w = speed / ((a + b) / 2.0);
        let angle = -std::f64::consts::FRAC_PI_2 + w * t;
        let position = DVec2::new(a * angle.cos(), b * angle.sin());
        let velocity = DVec2::new(-a * angle.sin(), b * angle.cos()) * w;
        let fov = FieldOfView { direction: -position, half_angle: 0.55, range: 14.0 };
        (Viewer { position, velocity }, fov)
    }

    fn extent(&self) -> (DVec2, DVec2) {
        (DVec2::new(-WALK.0 - 1.0, -WALK.1 - 1.0), DVec2::new(WALK.0 + 1.0, WALK.1 + 1.0))
    }

    fn draw_scene(&self, pic: &mut Picture, map: &Map, viewer: &Viewer, view: &FieldOfView) {
        for lane in &self.lanes {
            pic.polyline(map, lane, [225, 222, 212]);
        }
        pic.view_cone(map, viewer.position, view.direction, view.half_angle, view.range);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_apart_and_couples_placed() {
        let room = Ballroom::new(100, 1).unwrap();
        assert_eq!(room.entities.len(), 100);
        // Couples of neighbouring lanes never touch: 2 m between centre lines, the step ±0.15 m.
        let gap = (LANES[0].0 - LANES[1].0) - SIDE - 2.0 * RADIUS;
        assert!(gap > 0.0);
        for e in &room.entities {
            for p in e.route.points() {
                let lane = LANES
                    .iter()
                    .map(|&(a, b)| (p.x.abs() - a).abs().min((p.y.abs() - b).abs()))
                    .fold(f64::INFINITY, f64::min);
                assert!(lane <= SIDE / 2.0 + 1e-9, "{p:?} off its lane");
            }
        }
        assert!(Ballroom::new(0, 1).is_err());
    }
}
