//! `/api/world/crowd`: a crowd with behaviours whose detail follows the camera (`landfall::behave`,
//! issue 73) in the served world. Walkers box-step on small square routes scattered around the
//! walker's start; each request runs a frame for the camera (where it stands and looks, and the
//! field of view its picture covers on the ground, no far limit; terrain and objects hide nothing)
//! and answers every shown walker's place on the ground and representation, which the page draws
//! in one colour each. Walkers stand on the ground as drawn (the world's `Terrain`: its mesh, fine
//! near the camera and coarse far from it, and beyond the mesh its far landscape), so each stands
//! on the ground at its level of detail and none floats over or sinks into what the page shows.
//!
//! The crowd's clock advances by the wall-clock time between requests, at most [`MAX_STEP`] a
//! request: it pauses while nobody looks, so a request after a long pause costs one frame.

use super::jobs::ApiError;
use landfall::behave::{Behaviours, CrowdParams, Entity, FieldOfView, Rep, Route, Viewer};
use landfall::glam::DVec2;
use landfall::support::SplitMix64;
use landfall::Terrain;
use serde_json::{json, Value};
use std::time::Instant;

/// Walkers in the crowd.
const WALKERS: usize = 300;
/// Their routes' centres lie within this distance of the walker's start, m.
const SPREAD: f64 = 250.0;
/// A walker's radius, m.
const RADIUS: f64 = 0.45;
/// The crowd's clock advances at most this much a request, s.
const MAX_STEP: f64 = 1.0;

/// The crowd and its clock.
pub struct Crowd {
    behaviours: Behaviours,
    t: f64,
    last: Option<Instant>,
}

impl Crowd {
    /// [`WALKERS`] walkers on square routes of 4–10 m around `around`.
    pub fn new(around: DVec2) -> anyhow::Result<Self> {
        let mut rng = SplitMix64::new(73);
        let entities = (0..WALKERS)
            .map(|_| {
                // Uniform over the disc.
                let at =
                    around + DVec2::from_angle(rng.range(0.0, std::f64::consts::TAU)) * SPREAD * rng.uniform().sqrt();
                Ok(Entity {
                    seed: rng.next_u64(),
                    route: Route::box_step(at, rng.range(4.0, 10.0))?,
                    radius: RADIUS,
                    speed: rng.range(0.8, 1.4),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self { behaviours: Behaviours::new(entities, CrowdParams::default())?, t: 0.0, last: None })
    }

    /// A frame for a camera at `eye` looking along `look` (x, y) and seeing `half` radians either
    /// side of it on the ground: the shown walkers as `[x, y, z, rep]` (rep 0 dormant, 1
    /// approximate, 2 full) in `walkers`, the counts of each representation, the events fired and
    /// the crowd's time. Each walker stands on `ground` (the world as drawn).
    pub fn frame(&mut self, ground: &dyn Terrain, eye: DVec2, look: DVec2, half: f64) -> Result<Value, ApiError> {
        let now = Instant::now();
        self.t += self.last.map_or(0.0, |l| now.duration_since(l).as_secs_f64().min(MAX_STEP));
        self.last = Some(now);
        let view = FieldOfView::new(if look.length_squared() > 0.0 { look } else { DVec2::Y }, half);
        let stats = self
            .behaviours
            .frame(self.t, &Viewer { position: eye, velocity: DVec2::ZERO }, &view)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        let b = &self.behaviours;
        let walkers: Vec<[f64; 4]> = (0..b.len())
            .filter(|&i| b.shown(i))
            .map(|i| {
                let p = b.position(i);
                let z = ground.top_surface(p.extend(0.0)).map_or(0.0, |s| s.point.z);
                let rep = match b.rep(i) {
                    Rep::Dormant => 0.0,
                    Rep::Approximate => 1.0,
                    Rep::Full => 2.0,
                };
                [p.x, p.y, z, rep]
            })
            .collect();
        Ok(json!({
            "t": self.t, "walkers": walkers, "radius": RADIUS,
            "full": stats.full, "approximate": stats.approximate, "dormant": stats.dormant, "events": stats.events,
        }))
    }
}
