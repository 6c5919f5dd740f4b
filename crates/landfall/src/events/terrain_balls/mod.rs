//! Balls thrown over a terrain (thesis figure 5.1, on ground instead of in a box): ballistic between
//! events, bouncing off the exact triangles, off each other and off fixed spheres, until they rest.
//!
//! **Neighbours only** (5.1.5). Each ball's prediction covers a *window*: from its last change to
//! its next contact with the terrain or a fixed sphere (or its leaving). The box it sweeps over that
//! window is kept in a dual quad-tree ([`ProximityGrid`]); a ball predicts collisions only with the
//! balls whose boxes meet its own. Nothing is missed: two balls that touch at time t are both inside
//! their current windows at t, and when the later of those two windows began, its ball found the
//! other's box (which already covered t) meeting its own.
//!
//! **Level of detail of behaviour** (5.2, [`BallParams::lod`]): a ball whose window box lies
//! farther than the range from the viewer ignores the other balls (it still meets the terrain and the
//! fixed spheres), cutting the ball–ball predictions and events out there. A ball whose window comes
//! back into range is re-initialized to a plausible state (4.5): lifted out of any near ball it
//! overlaps, since far balls may have passed through each other.

mod reground;

pub use reground::Regrounded;

use super::ballistic::{first_contact, Arc};
use super::queue::{Event, EventQueue, ObjectId, NO_OBJECT};
use super::sim::Model;
use crate::broad::{Layout, ProximityGrid};
use crate::collide::{SweepTarget, TerrainSweep};
use crate::geom::Aabb;
use crate::params::{fraction, length, ParamError};
use crate::terrain::Terrain;
use glam::DVec3;

/// A ball as thrown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// Centre.
    pub p: DVec3,
    /// Velocity.
    pub v: DVec3,
    /// Radius (> 0).
    pub r: f64,
    /// Mass (> 0).
    pub m: f64,
}

/// How balls behave.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct BallParams {
    /// Gravity (acceleration).
    pub gravity: DVec3,
    /// Coefficient of restitution of every bounce (1 = elastic).
    pub restitution: f64,
    /// The Zeno threshold (5.1.7): a ball whose speed off the ground or a fixed sphere after a
    /// bounce is below this comes to rest there, and a ball touching a resting one this slowly comes to rest on it
    /// (0: never).
    pub rest_speed: f64,
    /// Balls collide with each other (off: each sees only the terrain and the fixed spheres).
    pub ball_collisions: bool,
    /// Level of detail of behaviour (5.2): balls out of range of the viewer ignore each other.
    pub lod: Option<BehaviourLod>,
    /// The minimum-interval rule (5.1.7): a ball whose events come [`ZENO_BURST`](super::ZENO_BURST)
    /// times in a row this close together (in simulated time) comes to rest where it is, whatever
    /// its speed (with `rest_speed` 0, or a ball caught in a crease, bounces would never end).
    pub min_interval: f64,
}

/// Where detailed behaviour is kept: balls whose window boxes come within `range` of `viewer`
/// collide with each other, the rest see only the terrain and the fixed spheres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BehaviourLod {
    /// The viewer.
    pub viewer: DVec3,
    /// Distance from the viewer within which balls meet each other.
    pub range: f64,
}

impl Default for BallParams {
    fn default() -> Self {
        Self {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            restitution: 0.8,
            rest_speed: 0.05,
            ball_collisions: true,
            lod: None,
            min_interval: 1e-6,
        }
    }
}

impl BallParams {
    /// Checks every field: `gravity` finite, `restitution` in [0, 1], `rest_speed` and
    /// `min_interval` finite and ≥ 0, a level of detail's viewer finite and its range ≥ 0 (not
    /// NaN; infinite for every ball near).
    ///
    /// ```
    /// use landfall::events::BallParams;
    ///
    /// assert!(BallParams::default().validate().is_ok());
    /// assert_eq!(BallParams::default().with_restitution(1.5).validate().unwrap_err().field, "restitution");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        if !self.gravity.is_finite() {
            return Err(ParamError::new("gravity", format!("{} is not a finite acceleration", self.gravity)));
        }
        fraction("restitution", self.restitution)?;
        length("rest_speed", self.rest_speed, false)?;
        length("min_interval", self.min_interval, false)?;
        if let Some(lod) = &self.lod {
            if !lod.viewer.is_finite() {
                return Err(ParamError::new("lod.viewer", format!("{} is not a finite point", lod.viewer)));
            }
            if lod.range.is_nan() || lod.range < 0.0 {
                return Err(ParamError::new("lod.range", format!("{} is not a distance ≥ 0", lod.range)));
            }
        }
        Ok(())
    }
}

crate::with_setters!(BallParams {
    gravity: DVec3 => with_gravity,
    restitution: f64 => with_restitution,
    rest_speed: f64 => with_rest_speed,
    ball_collisions: bool => with_ball_collisions,
    lod: Option<BehaviourLod> => with_lod,
    min_interval: f64 => with_min_interval,
});

/// What happens in an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BallEvent {
    /// Ball `a` bounces off the terrain (normal at the contact).
    Ground([f64; 3]),
    /// Ball `a` bounces off fixed sphere k.
    Sphere(usize, [f64; 3]),
    /// Balls `a` and `b` collide.
    Balls,
    /// Ball `a` leaves the terrain's area (falls past its edge) and is dropped.
    Leave,
}

/// Counts of events by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BallCounts {
    /// Bounces off the terrain.
    pub ground: u64,
    /// Bounces off fixed spheres.
    pub spheres: u64,
    /// Ball–ball collisions.
    pub balls: u64,
    /// Balls that came to rest.
    pub rested: u64,
    /// Balls that left the terrain.
    pub left: u64,
    /// Balls re-initialized on coming back into the viewer's range (level of detail).
    pub reinitialized: u64,
}

/// Balls over a terrain, as a [`Model`]. `T` is the terrain, borrowed (`&Heightfield`, `&dyn
/// Terrain`) or owned: a [`World`](crate::world::World) owned by the balls can move under them
/// ([`Simulation::change_ground`](super::Simulation::change_ground)).
pub struct TerrainBalls<T: Terrain> {
    terrain: T,
    spheres: Vec<(DVec3, f64)>,
    params: BallParams,
    /// Each ball's arc since its last event (p, v at its reference time), radius, mass.
    p: Vec<DVec3>,
    v: Vec<DVec3>,
    t0: Vec<f64>,
    r: Vec<f64>,
    m: Vec<f64>,
    resting: Vec<bool>,
    alive: Vec<bool>,
    /// The lowest height a ball can touch, and the terrain's extent in x and y.
    floor: f64,
    lo: DVec3,
    hi: DVec3,
    counts: BallCounts,
    /// The balls that came to rest in the event just fired.
    just_rested: Vec<usize>,
    /// Each ball's window: the box it sweeps (radius included; clipped to the extent where it is
    /// in the grid) and when the window ends; the box as predicted, unclipped.
    boxes: Vec<(DVec3, DVec3)>,
    windows: Vec<(DVec3, DVec3)>,
    ends: Vec<f64>,
    /// The window boxes of the balls that meet others (a resting ball's is itself), by ball index.
    grid: ProximityGrid,
    /// Whether each ball is within the level-of-detail range (all are without one).
    near: Vec<bool>,
    /// Scratch list of neighbours.
    found: Vec<u64>,
}

/// The proximity grid's base unit: the smallest ball's radius (1 without balls), coarsened where
/// the box the balls live in, grown by the largest ball, would reach beyond the grid's
/// addressable range (2⁵⁰ units; 2⁴⁰ keeps a margin for the windows' growth).
fn grid_unit(r: &[f64], lo: DVec3, hi: DVec3) -> f64 {
    let smallest = r.iter().copied().fold(f64::INFINITY, f64::min);
    let smallest = if smallest.is_finite() { smallest } else { 1.0 };
    let largest = r.iter().copied().fold(0.0, f64::max);
    let reach =
        lo.x.abs().max(lo.y.abs()).max(hi.x.abs()).max(hi.y.abs()) + (hi - lo).truncate().length() + largest + 1.0;
    if reach.is_finite() {
        smallest.max(reach / 2f64.powi(40))
    } else {
        smallest
    }
}

impl<T: Terrain> TerrainBalls<T> {
    /// Balls at time 0 over `terrain`, with fixed spheres `(centre, radius)`; refuses invalid
    /// `params` ([`BallParams::validate`]), a ball whose centre or velocity is not finite or whose
    /// radius or mass is not a finite number > 0 (field `balls`), and a fixed sphere whose centre is
    /// not finite or whose radius is not a finite number ≥ 0 (field `spheres`), naming its index.
    pub fn new(terrain: T, spheres: Vec<(DVec3, f64)>, balls: &[Ball], params: BallParams) -> Result<Self, ParamError> {
        params.validate()?;
        for (k, b) in balls.iter().enumerate() {
            let why = if !(b.p.is_finite() && b.v.is_finite()) {
                "its centre and velocity must be finite"
            } else if !(b.r.is_finite() && b.r > 0.0 && b.m.is_finite() && b.m > 0.0) {
                "its radius and mass must be finite numbers > 0"
            } else {
                continue;
            };
            return Err(ParamError::new("balls", format!("ball {k} ({b:?}): {why}")));
        }
        for (k, (c, r)) in spheres.iter().enumerate() {
            if !(c.is_finite() && r.is_finite() && *r >= 0.0) {
                let why = "its centre must be finite and its radius a finite number ≥ 0";
                return Err(ParamError::new("spheres", format!("sphere {k} (centre {c}, radius {r}): {why}")));
            }
        }
        let b = terrain.bounds();
        let n = balls.len();
        let r: Vec<f64> = balls.iter().map(|b| b.r).collect();
        let unit = grid_unit(&r, b.min, b.max);
        Ok(Self {
            boxes: vec![(DVec3::ZERO, DVec3::ZERO); n],
            windows: vec![(DVec3::ZERO, DVec3::ZERO); n],
            ends: vec![0.0; n],
            grid: ProximityGrid::empty(Layout::Dual, unit, None),
            near: vec![params.lod.is_none(); n],
            found: Vec::new(),
            terrain,
            spheres,
            params,
            p: balls.iter().map(|b| b.p).collect(),
            v: balls.iter().map(|b| b.v).collect(),
            t0: vec![0.0; balls.len()],
            r,
            m: balls.iter().map(|b| b.m).collect(),
            resting: vec![false; balls.len()],
            alive: vec![true; balls.len()],
            floor: b.min.z,
            lo: b.min,
            hi: b.max,
            counts: BallCounts::default(),
            just_rested: Vec::new(),
        })
    }

    /// Sets the box the balls live in (by default the terrain's bounds when they were made): a ball
    /// beyond its sides by more than its radius, or lower than its floor by more than its radius
    /// plus 1, has left. A world's ground goes on beyond its drawn mesh: give it the square the balls
    /// may roam and a floor under its lowest ground (`-generator().max_abs_height()`). Refuses a
    /// box with a NaN, a floor that is not finite, or sides the wrong way round (field `arena`).
    pub fn with_arena(mut self, arena: Aabb) -> Result<Self, ParamError> {
        let (lo, hi) = (arena.min, arena.max);
        if lo.is_nan() || hi.is_nan() || !lo.z.is_finite() || !lo.cmple(hi).all() {
            return Err(ParamError::new("arena", format!("{arena:?}: expected min ≤ max, no NaN and a finite floor")));
        }
        (self.lo, self.hi, self.floor) = (lo, hi, lo.z);
        // The grid's unit for the new box; the balls registered so far registered again.
        let unit = grid_unit(&self.r, lo, hi);
        let old = std::mem::replace(&mut self.grid, ProximityGrid::empty(Layout::Dual, unit, None));
        for k in 0..self.r.len() {
            if old.get(k as u64).is_some() {
                let window = Some(self.boxes[k]);
                self.register(k, window);
            }
        }
        Ok(self)
    }

    /// The terrain.
    pub fn terrain(&self) -> &T {
        &self.terrain
    }

    /// Centre of ball `k` at time `t` (not before its last event).
    pub fn position(&self, k: ObjectId, t: f64) -> DVec3 {
        let k = k as usize;
        if self.resting[k] {
            return self.p[k];
        }
        self.arc(k).at(t - self.t0[k])
    }

    /// Velocity of ball `k` at time `t`.
    pub fn velocity(&self, k: ObjectId, t: f64) -> DVec3 {
        let k = k as usize;
        if self.resting[k] {
            return DVec3::ZERO;
        }
        self.arc(k).velocity(t - self.t0[k])
    }

    /// Radius of ball `k`.
    pub fn radius(&self, k: ObjectId) -> f64 {
        self.r[k as usize]
    }

    /// Whether ball `k` rests.
    pub fn is_resting(&self, k: ObjectId) -> bool {
        self.resting[k as usize]
    }

    /// Whether ball `k` meets other balls: within the level-of-detail range (always without one).
    pub fn is_near(&self, k: ObjectId) -> bool {
        self.near[k as usize]
    }

    /// Whether ball `k` is still over the terrain.
    pub fn is_alive(&self, k: ObjectId) -> bool {
        self.alive[k as usize]
    }

    /// Total energy (kinetic + potential against gravity) of the balls still there, at time `t`.
    pub fn energy(&self, t: f64) -> f64 {
        let g = self.params.gravity;
        (0..self.p.len() as ObjectId)
            .filter(|&k| self.alive[k as usize])
            .map(|k| {
                let m = self.m[k as usize];
                0.5 * m * self.velocity(k, t).length_squared() - m * g.dot(self.position(k, t))
            })
            .sum()
    }

    /// Events so far, by kind.
    pub fn counts(&self) -> BallCounts {
        self.counts
    }

    fn arc(&self, k: usize) -> Arc {
        Arc { p: self.p[k], v: self.v[k], g: self.params.gravity }
    }

    fn rebase(&mut self, k: usize, t: f64) {
        if !self.resting[k] {
            let a = self.arc(k);
            self.p[k] = a.at(t - self.t0[k]);
            self.v[k] = a.velocity(t - self.t0[k]);
        }
        self.t0[k] = t;
    }

    /// How long ball k may fly before it is certainly below the terrain's lowest point or outside
    /// its extent (then it has left).
    fn horizon(&self, k: usize) -> f64 {
        let a = self.arc(k);
        let g = self.params.gravity;
        let mut t = f64::INFINITY;
        // Falling below the floor: z(τ) = floor − r − 1 (gravity along −z).
        if g.z < 0.0 {
            let (z0, vz, h) = (a.p.z, a.v.z, self.floor - self.r[k] - 1.0);
            let disc = vz * vz + 2.0 * (-g.z) * (z0 - h);
            if disc >= 0.0 {
                t = t.min((vz + disc.sqrt()) / -g.z);
            }
        }
        // Leaving the extent in x or y (gravity has no horizontal part here).
        for (p, v, lo, hi) in [(a.p.x, a.v.x, self.lo.x, self.hi.x), (a.p.y, a.v.y, self.lo.y, self.hi.y)] {
            let margin = self.r[k];
            if v > 0.0 {
                t = t.min(((hi + margin - p) / v).max(0.0));
            } else if v < 0.0 {
                t = t.min(((lo - margin - p) / v).max(0.0));
            }
        }
        t
    }

    /// Ball k's new window, and whether it meets other balls over it (within range, with ball
    /// collisions on). A ball coming into range is re-initialized first: `None` when that moved it
    /// (predict it again from where it is).
    fn take_window(&mut self, k: usize, now: f64, window: (DVec3, DVec3)) -> Option<bool> {
        self.windows[k] = window;
        let near = self.params.ball_collisions && self.in_range(window);
        if near && !self.near[k] {
            self.near[k] = true;
            let before = self.p[k];
            self.reinitialize(k, now);
            if self.p[k] != before {
                return None;
            }
        }
        self.near[k] = near;
        Some(near)
    }

    /// Whether a window box comes within the level-of-detail range (always without one).
    fn in_range(&self, (lo, hi): (DVec3, DVec3)) -> bool {
        self.params.lod.is_none_or(|l| l.viewer.clamp(lo, hi).distance(l.viewer) <= l.range)
    }

    /// Keeps ball k's window box (clipped to where balls can meet: over the terrain's extent) in
    /// the grid, or takes it out.
    fn register(&mut self, k: usize, window: Option<(DVec3, DVec3)>) {
        let id = k as u64;
        let Some((lo, hi)) = window else {
            if self.grid.get(id).is_some() {
                let _ = self.grid.remove(id);
            }
            return;
        };
        let margin = DVec3::new(self.r[k], self.r[k], f64::INFINITY) + DVec3::ONE;
        let (lo, hi) = (lo.max(self.lo - margin), hi.min(self.hi + margin));
        self.boxes[k] = (lo, hi);
        let (c, r) = ((lo + hi) * 0.5, (hi - lo).length() * 0.5);
        let ok = if self.grid.get(id).is_some() { self.grid.update(id, c, r) } else { self.grid.insert(id, c, r) };
        debug_assert!(ok.is_ok(), "window box of ball {k}: {ok:?}");
    }

    /// The balls whose window boxes meet `(lo, hi)`, other than `k`, into `self.found`.
    fn neighbours(&mut self, k: usize, (lo, hi): (DVec3, DVec3)) {
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let boxes = &self.boxes;
        self.grid.within_box(lo, hi, |j| {
            let (a, b) = boxes[j as usize];
            if j as usize != k && a.cmple(hi).all() && lo.cmple(b).all() {
                found.push(j);
            }
        });
        found.sort_unstable();
        self.found = found;
    }

    /// A ball coming back into range (4.5): far balls ignore each other, so it may be inside a near
    /// one; lift it (against gravity, which keeps it off the ground) until it overlaps none, as far as
    /// the terrain above lets it.
    fn reinitialize(&mut self, k: usize, now: f64) {
        self.rebase(k, now);
        let up = -self.params.gravity.normalize_or(DVec3::Z);
        let mut moved = false;
        for _ in 0..8 {
            let (p, r) = (self.p[k], self.r[k]);
            let mut lift: f64 = 0.0;
            let mut found = std::mem::take(&mut self.found);
            found.clear();
            self.grid.within_radius(p, r, |j| found.push(j));
            for &j in &found {
                let j = j as usize;
                if j == k || !self.alive[j] || !self.near[j] {
                    continue;
                }
                let (d, rr) = (p - self.position(j as ObjectId, now), r + self.r[j]);
                if d.length_squared() < rr * rr {
                    let (along, across) = (d.dot(up), (d - up * d.dot(up)).length());
                    lift = lift.max((rr * rr - across * across).max(0.0).sqrt() - along + 1e-9);
                }
            }
            self.found = found;
            if lift <= 0.0 {
                break;
            }
            let step = up * lift;
            let blocked = TerrainSweep(&self.terrain).sweep(p, r, step).map(|c| c.contact.t);
            self.p[k] = p + step * blocked.map_or(1.0, |t| (t * 0.99).max(0.0));
            moved = true;
            if blocked.is_some() {
                break;
            }
        }
        if moved {
            self.counts.reinitialized += 1;
        }
    }
}

/// A target with no terrain (for contacts with spheres alone).
struct NoTerrain;

impl crate::collide::SweepTarget for NoTerrain {
    fn sweep(&self, _: DVec3, _: f64, _: DVec3) -> Option<crate::collide::TerrainContact> {
        None
    }
    fn sweep_ellipsoid(&self, _: DVec3, _: DVec3, _: DVec3) -> Option<crate::collide::TerrainContact> {
        None
    }
    fn sweep_capsule(&self, _: DVec3, _: DVec3, _: f64, _: DVec3) -> Option<crate::collide::TerrainContact> {
        None
    }
    fn gather(&self, _: &crate::geom::Aabb, _: &mut dyn FnMut(crate::geom::TriangleId, [DVec3; 3])) {}
}

/// The box around a ball of radius `r` on `arc` for τ ∈ [0, end].
fn arc_box(arc: &Arc, end: f64, r: f64) -> (DVec3, DVec3) {
    let (a, b) = (arc.at(0.0), arc.at(end.min(1e6)));
    let (mut lo, mut hi) = (a.min(b), a.max(b));
    // Interior extremes, where a velocity component turns.
    for axis in 0..3 {
        let (v, g) = (arc.v[axis], arc.g[axis]);
        if g != 0.0 {
            let t = -v / g;
            if t > 0.0 && t < end {
                let p = arc.at(t);
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
    }
    (lo - DVec3::splat(r), hi + DVec3::splat(r))
}

/// The first τ ≥ 0 at which two balls on arcs under the same gravity touch, approaching: their
/// relative motion is a straight line.
fn balls_meet(dp: DVec3, dv: DVec3, rr: f64) -> Option<f64> {
    if dp.dot(dv) >= 0.0 {
        return None;
    }
    crate::geom::ray_ball(dp, dv, DVec3::ZERO, rr)
}

impl<T: Terrain> Model for TerrainBalls<T> {
    type Kind = BallEvent;

    fn objects(&self) -> usize {
        self.p.len()
    }

    fn predict(&mut self, obj: ObjectId, now: f64, queue: &mut EventQueue<BallEvent>) {
        let k = obj as usize;
        if !self.alive[k] {
            self.register(k, None);
            return;
        }
        if self.resting[k] {
            // A resting ball waits: flying balls predict their contacts with it.
            let window = (self.p[k] - DVec3::splat(self.r[k]), self.p[k] + DVec3::splat(self.r[k]));
            let Some(near) = self.take_window(k, now, window) else {
                // Lifted out of a near ball (the viewer came): it falls back onto what is under it.
                self.resting[k] = false;
                self.v[k] = DVec3::ZERO;
                return self.predict(obj, now, queue);
            };
            self.ends[k] = f64::INFINITY;
            self.register(k, near.then_some(window));
            return;
        }
        self.rebase(k, now);
        let arc = self.arc(k);
        // The terrain and the fixed spheres (the terrain changes only through `change_ground`,
        // which predicts again the balls it concerns): this prediction involves the ball alone.
        let until = self.horizon(k);
        let target = TerrainSweep(&self.terrain);
        let (end, event) = match first_contact(&target, &self.spheres, &arc, self.r[k], until) {
            Some(c) => {
                let n = c.normal.to_array();
                let kind = match c.sphere {
                    None => BallEvent::Ground(n),
                    Some(s) => BallEvent::Sphere(s, n),
                };
                (c.tau, kind)
            }
            None => (until, BallEvent::Leave),
        };
        let window = arc_box(&arc, end, self.r[k]);
        let Some(near) = self.take_window(k, now, window) else {
            // Predict again from where it now is.
            return self.predict(obj, now, queue);
        };
        queue.schedule(now + end, event, obj, NO_OBJECT);
        self.ends[k] = now + end;
        self.register(k, near.then_some(window));
        if !near {
            return;
        }
        // The other balls whose windows meet this one's, until its window ends (after it this
        // ball is predicted again).
        self.neighbours(k, self.boxes[k]);
        for fi in 0..self.found.len() {
            let j = self.found[fi] as usize;
            let tau = if self.resting[j] {
                first_contact(&NoTerrain, &[(self.p[j], self.r[j])], &arc, self.r[k], end).map(|c| c.tau)
            } else {
                let (pj, vj) = (self.position(j as ObjectId, now), self.velocity(j as ObjectId, now));
                balls_meet(pj - arc.p, vj - arc.v, self.r[k] + self.r[j]).filter(|&t| t <= end)
            };
            if let Some(tau) = tau {
                let (a, b) = (obj.min(j as ObjectId), obj.max(j as ObjectId));
                queue.schedule(now + tau, BallEvent::Balls, a, b);
            }
        }
    }

    fn fire(&mut self, e: &Event<BallEvent>, changed: &mut Vec<ObjectId>) {
        let k = e.a as usize;
        let params = self.params;
        match e.kind {
            BallEvent::Ground(n) | BallEvent::Sphere(_, n) => {
                self.rebase(k, e.time);
                let n = DVec3::from_array(n);
                let vn = self.v[k].dot(n);
                if vn < 0.0 {
                    let out = -vn * params.restitution;
                    if out < params.rest_speed {
                        self.resting[k] = true;
                        self.v[k] = DVec3::ZERO;
                        self.counts.rested += 1;
                        // Flying balls see it now (`after_fire`).
                        self.just_rested.push(k);
                    } else {
                        self.v[k] += n * (out - vn);
                    }
                }
                match e.kind {
                    BallEvent::Ground(_) => self.counts.ground += 1,
                    _ => self.counts.spheres += 1,
                }
                changed.push(e.a);
            }
            BallEvent::Balls => {
                let j = e.b as usize;
                self.rebase(k, e.time);
                self.rebase(j, e.time);
                let n = (self.p[j] - self.p[k]).normalize_or_zero();
                let rel = (self.v[j] - self.v[k]).dot(n);
                let (rk, rj) = (self.resting[k], self.resting[j]);
                if rel < 0.0 && (rk || rj) && -rel * params.restitution < params.rest_speed {
                    // The Zeno threshold between balls: a slow touch on a resting ball does not
                    // wake it, and the other comes to rest on it.
                    let moving = if rk { j } else { k };
                    self.resting[moving] = true;
                    self.v[moving] = DVec3::ZERO;
                    self.counts.rested += 1;
                    self.just_rested.push(moving);
                } else if rel < 0.0 {
                    // Along the line of centres, with restitution; a resting ball wakes.
                    let (mk, mj) = (self.m[k], self.m[j]);
                    let impulse = (1.0 + params.restitution) * rel / (1.0 / mk + 1.0 / mj);
                    self.v[k] += n * (impulse / mk);
                    self.v[j] -= n * (impulse / mj);
                    self.resting[k] = false;
                    self.resting[j] = false;
                }
                self.counts.balls += 1;
                changed.extend([e.a, e.b]);
            }
            BallEvent::Leave => {
                self.alive[k] = false;
                self.counts.left += 1;
                changed.push(e.a);
            }
        }
    }

    fn after_fire(&mut self, e: &Event<BallEvent>, queue: &mut EventQueue<BallEvent>) {
        let rested = std::mem::take(&mut self.just_rested);
        for &k in &rested {
            self.after_rest(k, e, queue);
        }
        self.just_rested = rested;
        self.just_rested.clear();
    }

    fn min_interval(&self) -> f64 {
        self.params.min_interval
    }

    fn settle(&mut self, obj: ObjectId, e: &Event<BallEvent>, changed: &mut Vec<ObjectId>) {
        let k = obj as usize;
        if !self.alive[k] || self.resting[k] {
            return;
        }
        self.rebase(k, e.time);
        self.resting[k] = true;
        self.v[k] = DVec3::ZERO;
        self.counts.rested += 1;
        self.just_rested.push(k);
        changed.push(obj);
    }
}

impl<T: Terrain> TerrainBalls<T> {
    /// After ball `k` came to rest in event `e`: the flying balls whose windows meet it predict
    /// their contact with it.
    fn after_rest(&mut self, k: usize, e: &Event<BallEvent>, queue: &mut EventQueue<BallEvent>) {
        if !(self.params.ball_collisions && self.near[k]) {
            return;
        }
        // The flying balls whose windows meet the ball now resting: their contact with it, up to the
        // end of their windows (later ones they find when they predict again).
        let (pk, rk) = (self.p[k], self.r[k]);
        self.neighbours(k, (pk - DVec3::splat(rk), pk + DVec3::splat(rk)));
        for fi in 0..self.found.len() {
            let j = self.found[fi] as usize;
            if self.resting[j] {
                continue;
            }
            self.rebase(j, e.time);
            let arc = self.arc(j);
            if let Some(c) = first_contact(&NoTerrain, &[(pk, rk)], &arc, self.r[j], self.ends[j] - e.time) {
                let (a, b) = ((j as ObjectId).min(k as ObjectId), (j as ObjectId).max(k as ObjectId));
                queue.schedule(e.time + c.tau, BallEvent::Balls, a, b);
            }
        }
    }
}
