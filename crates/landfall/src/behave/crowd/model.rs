//! The crowd as an event model: a full-detail entity decides a move every beat, an approximate one
//! has an event only when its activity changes, a dormant one none.

use super::{Crowd, State};
use crate::behave::motion::Plan;
use crate::behave::schedule::Activity;
use crate::events::{Event, EventQueue, Model, ObjectId, NO_OBJECT};

/// An event of the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BehaveEvent {
    /// A full-detail entity's beat: it chooses its move for the next beat.
    Beat,
    /// An approximate entity's change of activity (travel ends or starts).
    Switch,
}

/// Fractions of a beat's full stride a full-detail entity tries, longest first, before it holds.
const STRIDES: [f64; 3] = [1.0, 0.5, 0.25];

impl Crowd {
    /// `i`'s move for the beat starting at `t`: the longest stride along its route that keeps clear
    /// of every other full-detail entity over the beat, or a hold. A stride ends at the next vertex
    /// of the route at the latest, so the entity is always on its route (a change of
    /// representation never moves it). A hold is always clear: every
    /// entity that moved this beat checked its move against `i` holding, and those yet to move
    /// hold until they do.
    fn beat(&mut self, i: usize, t: f64) {
        let State::Full(plan) = self.state[i] else { return };
        let sched = self.params.schedule;
        let (p, s, end) = (plan.at(t), plan.s_at(t), t + sched.beat);
        let e = &self.entities[i];
        let mut chosen = Plan::hold(t, end, p, s);
        if e.speed > 0.0 && sched.activity(e.seed, t + sched.beat / 2.0) == Activity::Travel {
            let stride = (e.speed * sched.beat).min(e.route.to_next_vertex(s));
            for f in STRIDES {
                let s1 = s + f * stride;
                let moved = Plan { t0: t, t1: end, p0: p, p1: e.route.point_at(s1), s0: s, s1 };
                if self.clear(i, &moved, t, end) {
                    chosen = moved;
                    break;
                }
            }
        }
        // The grid took this entity at its last plan; an update of a known id fails only beyond
        // the grid's range (±2⁵⁰ m), where the route was refused already.
        let _ = self.set(i, State::Full(chosen));
    }
}

impl Model for Crowd {
    type Kind = BehaveEvent;

    fn objects(&self) -> usize {
        self.entities.len()
    }

    fn predict(&mut self, obj: ObjectId, now: f64, queue: &mut EventQueue<BehaveEvent>) {
        let i = obj as usize;
        let sched = &self.params.schedule;
        match self.state[i] {
            State::Dormant => {}
            State::Approximate { .. } => {
                queue.schedule(sched.next_switch(self.entities[i].seed, now), BehaveEvent::Switch, obj, NO_OBJECT)
            }
            State::Full(_) => queue.schedule(sched.next_beat(now), BehaveEvent::Beat, obj, NO_OBJECT),
        }
    }

    fn fire(&mut self, event: &Event<BehaveEvent>, changed: &mut Vec<ObjectId>) {
        let i = event.a as usize;
        match (event.kind, self.state[i]) {
            (BehaveEvent::Beat, State::Full(_)) => self.beat(i, event.time),
            (BehaveEvent::Switch, State::Approximate { .. }) => {
                // The parent state changes; the closed form starts again from here.
                let s0 = self.s_at(i, event.time);
                self.state[i] = State::Approximate { t0: event.time, s0 };
            }
            _ => return,
        }
        changed.push(event.a);
    }
}
