//! The crowd: every entity's state machine as one event-driven [`Model`](crate::events::Model).

mod model;
pub use model::BehaveEvent;
mod snap;

use super::importance::{ImportanceParams, Rep};
use super::motion::Plan;
use super::route::Route;
use super::schedule::{Activity, Schedule};
use super::BehaveError;
use crate::broad::ProximityGrid;
use crate::params::{length, ParamError};
use crate::rng::mix;
use glam::{DVec2, DVec3};

/// One entity: a seed, a route and a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    /// Its random stream: where on the route it starts, when its cycle starts, when it twirls.
    pub seed: u64,
    /// The closed route it follows.
    pub route: Route,
    /// Radius of its body (a disc in x, y), m.
    pub radius: f64,
    /// Speed along the route while it travels, m/s.
    pub speed: f64,
}

impl Entity {
    /// Diameter (the size in the importance function).
    pub fn size(&self) -> f64 {
        2.0 * self.radius
    }

    fn check(&self, index: usize) -> Result<(), BehaveError> {
        let bad = |why: String| BehaveError::Entity { index, why };
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(bad(format!("radius {} is not a finite length > 0", self.radius)));
        }
        if !(self.speed.is_finite() && self.speed >= 0.0) {
            return Err(bad(format!("speed {} is not a finite speed ≥ 0", self.speed)));
        }
        Ok(())
    }
}

/// How the crowd is simulated.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CrowdParams {
    /// The activity cycle (the parent state machine) and the beat.
    pub schedule: Schedule,
    /// Importance and the thresholds between representations.
    pub importance: ImportanceParams,
    /// Gap kept between full-detail entities beyond touching, m (covers rounding far from the
    /// origin).
    pub margin: f64,
    /// Every entity at full detail whatever its importance (the reference run).
    pub all_full: bool,
}

impl Default for CrowdParams {
    /// The default schedule and importance, a 1 mm margin, levels of detail on.
    fn default() -> Self {
        Self { schedule: Schedule::default(), importance: ImportanceParams::default(), margin: 1e-3, all_full: false }
    }
}

crate::with_setters!(CrowdParams {
    schedule: Schedule => with_schedule,
    importance: ImportanceParams => with_importance,
    margin: f64 => with_margin,
    all_full: bool => with_all_full,
});

impl CrowdParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.schedule.validate()?;
        self.importance.validate()?;
        length("margin", self.margin, false)
    }
}

/// An entity's state: its representation and, for the two that run, its closed-form motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum State {
    /// Reconstructed from seed, route and time.
    Dormant,
    /// At arc length `s0` at time `t0`, then along the route whenever the schedule travels.
    Approximate { t0: f64, s0: f64 },
    /// Moving by the plan of its current beat.
    Full(Plan),
}

/// The entities and their states; the event model of [`Behaviours`](super::Behaviours).
#[derive(Debug)]
pub(crate) struct Crowd {
    pub(crate) entities: Vec<Entity>,
    pub(crate) state: Vec<State>,
    /// In view but not shown: no clear place on its route yet.
    pub(crate) withheld: Vec<bool>,
    pub(crate) params: CrowdParams,
    /// Full-detail entities, each as the circle its current plan sweeps.
    full: ProximityGrid,
    /// Every entity's route, as a circle holding it (static): who may matter near the viewer.
    pub(crate) routes: ProximityGrid,
    /// Entities not Dormant, or withheld.
    pub(crate) active: Vec<u32>,
    /// The largest entity's size (for the wake distance around the viewer).
    pub(crate) largest: f64,
}

impl Crowd {
    pub(crate) fn new(entities: Vec<Entity>, params: CrowdParams) -> Result<Self, BehaveError> {
        params.validate()?;
        if entities.len() >= u32::MAX as usize {
            return Err(BehaveError::Entity { index: entities.len(), why: "too many entities".into() });
        }
        let mut largest: f64 = 0.0;
        for (k, e) in entities.iter().enumerate() {
            e.check(k)?;
            largest = largest.max(e.size());
        }
        // Cells an eighth of the wake distance wide: the query around the viewer each frame
        // visits a few hundred cells, however fine the routes.
        let unit = (params.importance.wake(largest) / 8.0).max(1.0);
        let mut routes = ProximityGrid::new(unit)?;
        for (k, e) in entities.iter().enumerate() {
            let (c, r) = e.route.bounds();
            routes.insert(k as u64, c.extend(0.0), r + e.radius)?;
        }
        let n = entities.len();
        Ok(Self {
            entities,
            state: vec![State::Dormant; n],
            withheld: vec![false; n],
            params,
            full: ProximityGrid::new(1.0)?,
            routes,
            active: Vec::new(),
            largest,
        })
    }

    /// Where `i` starts on its route at time 0 (arc length), from its seed.
    fn start(&self, i: usize) -> f64 {
        let e = &self.entities[i];
        (mix(e.seed ^ 0x0073_7461_7274) >> 11) as f64 / (1u64 << 53) as f64 * e.route.length()
    }

    /// The dormant state at `t`: arc length from seed, route and time alone (closed form).
    pub(crate) fn dormant_s(&self, i: usize, t: f64) -> f64 {
        let e = &self.entities[i];
        self.start(i) + e.speed * self.params.schedule.travel_time(e.seed, 0.0, t)
    }

    /// Arc length of `i` at `t` (≥ its last event).
    pub(crate) fn s_at(&self, i: usize, t: f64) -> f64 {
        let e = &self.entities[i];
        match self.state[i] {
            State::Dormant => self.dormant_s(i, t),
            State::Approximate { t0, s0 } => s0 + e.speed * self.params.schedule.travel_time(e.seed, t0, t),
            State::Full(plan) => plan.s_at(t),
        }
    }

    /// Position of `i` at `t` (≥ its last event).
    pub(crate) fn position(&self, i: usize, t: f64) -> DVec2 {
        match self.state[i] {
            State::Full(plan) => plan.at(t),
            _ => self.entities[i].route.point_at(self.s_at(i, t)),
        }
    }

    /// Position, velocity and activity of `i` at `t` (the closed form evaluated once).
    pub(crate) fn motion(&self, i: usize, t: f64) -> (DVec2, DVec2, Activity) {
        let e = &self.entities[i];
        let activity = self.params.schedule.activity(e.seed, t);
        match self.state[i] {
            State::Full(plan) => (plan.at(t), plan.velocity(t), activity),
            _ => {
                let (at, dir) = e.route.point_and_direction(self.s_at(i, t));
                (at, if activity == Activity::Travel { dir * e.speed } else { DVec2::ZERO }, activity)
            }
        }
    }

    /// The representation of `i`.
    pub(crate) fn rep(&self, i: usize) -> Rep {
        match self.state[i] {
            State::Dormant => Rep::Dormant,
            State::Approximate { .. } => Rep::Approximate,
            State::Full(_) => Rep::Full,
        }
    }

    /// Sets `i`'s state, keeping the grid of full-detail entities in step.
    pub(crate) fn set(&mut self, i: usize, state: State) -> Result<(), BehaveError> {
        let was_full = matches!(self.state[i], State::Full(_));
        self.state[i] = state;
        match state {
            State::Full(plan) => {
                let (c, h) = plan.bounds();
                let r = h + self.entities[i].radius;
                if was_full {
                    self.full.update(i as u64, c.extend(0.0), r)?;
                } else {
                    self.full.insert(i as u64, c.extend(0.0), r)?;
                }
            }
            _ if was_full => self.full.remove(i as u64)?,
            _ => {}
        }
        Ok(())
    }

    /// Whether `plan` for `i` keeps `margin` clear of every other full-detail entity over
    /// `from..=to` (its neighbours from the grid, then the exact least distance).
    pub(crate) fn clear(&self, i: usize, plan: &Plan, from: f64, to: f64) -> bool {
        let (c, h) = plan.bounds();
        let (r, margin) = (self.entities[i].radius, self.params.margin);
        let mut ok = true;
        self.full.within_radius(DVec3::new(c.x, c.y, 0.0), h + r + margin, |j| {
            let j = j as usize;
            if !ok || j == i {
                return;
            }
            if let State::Full(other) = &self.state[j] {
                let need = r + self.entities[j].radius + margin;
                ok = super::motion::least_distance(plan, other, from, to) >= need;
            }
        });
        ok
    }
}
