//! Balls on a line between two walls (thesis 5.1.6): elastic collisions, exact between events.

use super::queue::{Event, EventQueue, ObjectId, NO_OBJECT};
use super::sim::Model;

/// A ball as given: centre, velocity, radius, mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineBall {
    /// Centre.
    pub x: f64,
    /// Velocity.
    pub v: f64,
    /// Radius (≥ 0).
    pub r: f64,
    /// Mass (> 0).
    pub m: f64,
}

/// What is wrong with a set of balls (indices are the caller's, 0-based).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The walls are not finite or not in order.
    #[error("the walls {0} and {1} must be finite with the left one below the right one")]
    Walls(f64, f64),
    /// A field is not finite, a radius negative or a mass not positive.
    #[error("ball {ball}: {why}")]
    Ball {
        /// Which ball.
        ball: usize,
        /// What is wrong.
        why: String,
    },
    /// A ball reaches past a wall.
    #[error("ball {ball} reaches past the {side} wall")]
    OutsideWalls {
        /// Which ball.
        ball: usize,
        /// "left" or "right".
        side: &'static str,
    },
    /// Two balls overlap.
    #[error("balls {0} and {1} overlap")]
    Overlap(usize, usize),
}

/// What happened in an event on the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEvent {
    /// Balls `a` and `a + 1` (in order along the line) collide.
    Balls,
    /// Ball `a` bounces off the left wall.
    LeftWall,
    /// Ball `a` bounces off the right wall.
    RightWall,
}

/// Balls on a line between two walls. Balls never pass each other, so each ball's only possible
/// partners are its two neighbours along the line and, at the ends, a wall: four predictions per
/// collision whatever the number of balls.
///
/// Object ids are positions along the line (0 = leftmost); [`input_index`](Self::input_index)
/// maps them back to the order the balls were given in. Each ball moves as `x(t) = x₀ + v·(t − t₀)`
/// between events; a collision exchanges velocities about the centre of mass (momentum and energy
/// kept to rounding), a wall reverses the velocity exactly.
///
/// **Resting contact** (5.1.7, [`Model::settle`]): a ball in a burst of collisions — each less
/// than 10⁻¹² of the fastest ball's wall-to-wall crossing time after the one before (wedged between
/// two walls, squeezed between a wall and a far heavier ball) — is joined to what it
/// last hit — to a wall it stops and stays; to a ball, the two move on as one body with their
/// common momentum (an inelastic collision: energy is lost, momentum kept). A joined body collides
/// as one, with the sum of its masses; one joined to a wall acts as the wall.
#[derive(Clone, Debug)]
pub struct LineBalls {
    x0: Vec<f64>,
    t0: Vec<f64>,
    v: Vec<f64>,
    r: Vec<f64>,
    m: Vec<f64>,
    order: Vec<usize>,
    left: f64,
    right: f64,
    /// `joined[i]`: ball i − 1 and ball i move as one (`joined[0]`: ball 0 rests on the left wall,
    /// `joined[n]`: ball n − 1 on the right one).
    joined: Vec<bool>,
    /// A collision gave a velocity beyond f64 (reported by [`overflowed`](LineBalls::overflowed)).
    overflow: bool,
    /// [`Model::min_interval`]: 10⁻¹² of the time the fastest ball at the start takes to cross
    /// from wall to wall.
    min_interval: f64,
}

/// Largest magnitude of a position, velocity, radius or mass the line accepts: a collision can
/// triple a speed, so there must be room above it.
pub const MAX_LINE_VALUE: f64 = 1e300;

impl LineBalls {
    /// Balls at time 0 between walls at `left` and `right`. They may touch each other and the
    /// walls but not overlap them.
    pub fn new(balls: &[LineBall], left: f64, right: f64) -> Result<Self, LineError> {
        if !(left.is_finite() && right.is_finite() && left < right && left.abs().max(right.abs()) <= MAX_LINE_VALUE) {
            return Err(LineError::Walls(left, right));
        }
        for (k, b) in balls.iter().enumerate() {
            let bad = |why: &str| Err(LineError::Ball { ball: k, why: why.into() });
            if !(b.x.is_finite() && b.v.is_finite() && b.r.is_finite() && b.m.is_finite()) {
                return bad("a field is not a finite number");
            }
            if b.r < 0.0 {
                return bad("the radius is negative");
            }
            if b.m <= 0.0 {
                return bad("the mass is not positive");
            }
            if [b.x, b.v, b.r, b.m, 1.0 / b.m].iter().any(|v| v.abs() > MAX_LINE_VALUE) {
                return bad(
                    "a field is beyond ±1e300 (or a mass below 1e-300): no room left for the collisions' arithmetic",
                );
            }
            if b.x - b.r < left {
                return Err(LineError::OutsideWalls { ball: k, side: "left" });
            }
            if b.x + b.r > right {
                return Err(LineError::OutsideWalls { ball: k, side: "right" });
            }
        }
        let mut order: Vec<usize> = (0..balls.len()).collect();
        order.sort_by(|&a, &b| balls[a].x.total_cmp(&balls[b].x).then(a.cmp(&b)));
        for w in order.windows(2) {
            let (p, q) = (&balls[w[0]], &balls[w[1]]);
            if q.x - p.x < p.r + q.r {
                return Err(LineError::Overlap(w[0].min(w[1]), w[0].max(w[1])));
            }
        }
        let pick = |f: fn(&LineBall) -> f64| order.iter().map(|&k| f(&balls[k])).collect::<Vec<_>>();
        Ok(Self {
            x0: pick(|b| b.x),
            t0: vec![0.0; balls.len()],
            v: pick(|b| b.v),
            r: pick(|b| b.r),
            m: pick(|b| b.m),
            joined: vec![false; balls.len() + 1],
            overflow: false,
            min_interval: {
                let fastest = balls.iter().fold(0.0f64, |m, b| m.max(b.v.abs()));
                if fastest > 0.0 {
                    1e-12 * ((right - left) / fastest)
                } else {
                    0.0
                }
            },
            order,
            left,
            right,
        })
    }

    /// Whether a collision gave a velocity too large for f64 (the simulation should stop: positions
    /// from then on are not finite).
    pub fn overflowed(&self) -> bool {
        self.overflow
    }

    /// Balls `lo..=hi`: the body ball `i` belongs to (the balls joined to it).
    fn body(&self, i: usize) -> (usize, usize) {
        let (mut lo, mut hi) = (i, i);
        while lo > 0 && self.joined[lo] {
            lo -= 1;
        }
        while hi + 1 < self.x0.len() && self.joined[hi + 1] {
            hi += 1;
        }
        (lo, hi)
    }

    /// Whether the body `lo..=hi` rests on a wall.
    fn on_wall(&self, (lo, hi): (usize, usize)) -> bool {
        (lo == 0 && self.joined[0]) || (hi + 1 == self.x0.len() && self.joined[hi + 1])
    }

    /// Gives every ball of body `lo..=hi` velocity `v` from time `t`, and lists them as changed.
    fn set_body(&mut self, (lo, hi): (usize, usize), v: f64, t: f64, changed: &mut Vec<ObjectId>) {
        self.overflow |= !v.is_finite();
        for k in lo..=hi {
            self.rebase(k, t);
            self.v[k] = v;
            changed.push(k as ObjectId);
        }
    }

    /// The mass of body `lo..=hi`.
    fn mass(&self, (lo, hi): (usize, usize)) -> f64 {
        self.m[lo..=hi].iter().sum()
    }

    /// The input index of the ball at position `obj` along the line.
    pub fn input_index(&self, obj: ObjectId) -> usize {
        self.order[obj as usize]
    }

    /// Centre of ball `obj` at time `t` (not before its last event).
    pub fn position(&self, obj: ObjectId, t: f64) -> f64 {
        let k = obj as usize;
        self.x0[k] + self.v[k] * (t - self.t0[k])
    }

    /// Velocity of ball `obj` since its last event.
    pub fn velocity(&self, obj: ObjectId) -> f64 {
        self.v[obj as usize]
    }

    /// Total momentum Σ m·v.
    pub fn momentum(&self) -> f64 {
        self.m.iter().zip(&self.v).map(|(m, v)| m * v).sum()
    }

    /// Total kinetic energy Σ ½·m·v².
    pub fn energy(&self) -> f64 {
        self.m.iter().zip(&self.v).map(|(m, v)| 0.5 * m * v * v).sum()
    }

    /// Moves ball `k`'s reference point to time `t`.
    fn rebase(&mut self, k: usize, t: f64) {
        self.x0[k] = self.position(k as ObjectId, t);
        self.t0[k] = t;
    }

    /// When balls `i` and `i + 1` meet after `now`, if they are closing.
    fn meeting(&self, i: usize, now: f64) -> Option<f64> {
        let closing = self.v[i] - self.v[i + 1];
        if closing <= 0.0 {
            return None;
        }
        let gap = self.position(i as ObjectId + 1, now) - self.position(i as ObjectId, now) - self.r[i] - self.r[i + 1];
        Some(now + gap.max(0.0) / closing).filter(|t| t.is_finite())
    }
}

impl Model for LineBalls {
    type Kind = LineEvent;

    fn objects(&self) -> usize {
        self.x0.len()
    }

    fn predict(&mut self, obj: ObjectId, now: f64, queue: &mut EventQueue<LineEvent>) {
        let i = obj as usize;
        let n = self.x0.len();
        if i > 0 && !self.joined[i] {
            if let Some(t) = self.meeting(i - 1, now) {
                queue.schedule(t, LineEvent::Balls, obj - 1, obj);
            }
        }
        if i + 1 < n && !self.joined[i + 1] {
            if let Some(t) = self.meeting(i, now) {
                queue.schedule(t, LineEvent::Balls, obj, obj + 1);
            }
        }
        let x = self.position(obj, now);
        if i == 0 && self.v[i] < 0.0 && !self.joined[0] {
            let gap = (x - self.r[i] - self.left).max(0.0);
            let t = now + gap / -self.v[i];
            if t.is_finite() {
                queue.schedule(t, LineEvent::LeftWall, obj, NO_OBJECT);
            }
        }
        if i + 1 == n && self.v[i] > 0.0 && !self.joined[n] {
            let gap = (self.right - x - self.r[i]).max(0.0);
            let t = now + gap / self.v[i];
            if t.is_finite() {
                queue.schedule(t, LineEvent::RightWall, obj, NO_OBJECT);
            }
        }
    }

    fn fire(&mut self, e: &Event<LineEvent>, changed: &mut Vec<ObjectId>) {
        let i = e.a as usize;
        match e.kind {
            LineEvent::Balls => {
                let (a, b) = (self.body(i), self.body(e.b as usize));
                let (va, vb) = (self.v[i], self.v[e.b as usize]);
                // Each velocity reflected about the centre of mass's, a body on a wall being the
                // wall; weights in [0, 1] so that no product of a mass and a speed overflows.
                let vc = match (self.on_wall(a), self.on_wall(b)) {
                    (true, _) | (_, true) => 0.0,
                    _ => {
                        let (ma, mb) = (self.mass(a), self.mass(b));
                        va / (1.0 + mb / ma) + vb / (1.0 + ma / mb)
                    }
                };
                if !self.on_wall(a) {
                    self.set_body(a, vc + (vc - va), e.time, changed);
                }
                if !self.on_wall(b) {
                    self.set_body(b, vc + (vc - vb), e.time, changed);
                }
            }
            LineEvent::LeftWall | LineEvent::RightWall => {
                let body = self.body(i);
                let v = -self.v[i];
                self.set_body(body, v, e.time, changed);
            }
        }
    }

    fn min_interval(&self) -> f64 {
        self.min_interval
    }

    fn settle(&mut self, obj: ObjectId, e: &Event<LineEvent>, changed: &mut Vec<ObjectId>) {
        let n = self.x0.len();
        match e.kind {
            LineEvent::LeftWall | LineEvent::RightWall => {
                let body = self.body(obj as usize);
                self.joined[if e.kind == LineEvent::LeftWall { 0 } else { n }] = true;
                self.set_body(body, 0.0, e.time, changed);
            }
            LineEvent::Balls => {
                let (a, b) = (self.body(e.a as usize), self.body(e.b as usize));
                let v = if self.on_wall(a) || self.on_wall(b) {
                    0.0
                } else {
                    let (ma, mb) = (self.mass(a), self.mass(b));
                    self.v[a.0] / (1.0 + mb / ma) + self.v[b.0] / (1.0 + ma / mb)
                };
                self.joined[e.b as usize] = true;
                self.set_body((a.0, b.1), v, e.time, changed);
            }
        }
    }
}
