//! Event-driven behaviours (Dollins' thesis, chapter 5): objects follow closed-form behaviours
//! between events; the events — predicted internal ones (a ball reaching a wall, two balls
//! touching) and external ones — leave a priority queue in time order, and only the predictions
//! of objects whose behaviour changed are redone.
//!
//! * [`EventQueue`] — the queue, with per-object version stamps for O(1) invalidation;
//! * [`Model`] and [`Simulation`] — the generic engine and its frame driver
//!   ([`Simulation::advance_to`]);
//! * [`LineBalls`] — the thesis' balls on a line between two walls (5.1.6).

mod line;
mod queue;
mod sim;

pub use line::{LineBall, LineBalls, LineError, LineEvent};
pub use queue::{Event, EventQueue, ObjectId, QueueStats, NO_OBJECT};
pub use sim::{Model, Simulation};
