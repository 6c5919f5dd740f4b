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
}

impl LineBalls {
    /// Balls at time 0 between walls at `left` and `right`. They may touch each other and the
    /// walls but not overlap them.
    pub fn new(balls: &[LineBall], left: f64, right: f64) -> Result<Self, LineError> {
        if !(left.is_finite() && right.is_finite() && left < right) {
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
            order,
            left,
            right,
        })
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
        Some(now + gap.max(0.0) / closing)
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
        if i > 0 {
            if let Some(t) = self.meeting(i - 1, now) {
                queue.schedule(t, LineEvent::Balls, obj - 1, obj);
            }
        }
        if i + 1 < n {
            if let Some(t) = self.meeting(i, now) {
                queue.schedule(t, LineEvent::Balls, obj, obj + 1);
            }
        }
        let x = self.position(obj, now);
        if i == 0 && self.v[i] < 0.0 {
            let gap = (x - self.r[i] - self.left).max(0.0);
            queue.schedule(now + gap / -self.v[i], LineEvent::LeftWall, obj, NO_OBJECT);
        }
        if i + 1 == n && self.v[i] > 0.0 {
            let gap = (self.right - x - self.r[i]).max(0.0);
            queue.schedule(now + gap / self.v[i], LineEvent::RightWall, obj, NO_OBJECT);
        }
    }

    fn fire(&mut self, e: &Event<LineEvent>, changed: &mut Vec<ObjectId>) {
        let i = e.a as usize;
        match e.kind {
            LineEvent::Balls => {
                let j = e.b as usize;
                self.rebase(i, e.time);
                self.rebase(j, e.time);
                let (mi, mj) = (self.m[i], self.m[j]);
                // Velocity of the centre of mass; each velocity is reflected about it.
                let vc = (mi * self.v[i] + mj * self.v[j]) / (mi + mj);
                self.v[i] = 2.0 * vc - self.v[i];
                self.v[j] = 2.0 * vc - self.v[j];
                changed.extend([e.a, e.b]);
            }
            LineEvent::LeftWall | LineEvent::RightWall => {
                self.rebase(i, e.time);
                self.v[i] = -self.v[i];
                changed.push(e.a);
            }
        }
    }
}
