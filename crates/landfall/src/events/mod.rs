//! Event-driven behaviours (Dollins' thesis, chapter 5): objects follow closed-form behaviours
//! between events; the events — predicted internal ones (a ball reaching a wall, two balls
//! touching) and external ones — leave a priority queue in time order, and only the predictions
//! of objects whose behaviour changed are redone.
//!
//! * [`EventQueue`] — the queue, with per-object version stamps for O(1) invalidation;
//! * [`Model`] and [`Simulation`] — the generic engine and its frame driver
//!   ([`Simulation::advance_to`]);
//! * [`LineBalls`] — the thesis' balls on a line between two walls (5.1.6);
//! * [`TerrainBalls`] — balls thrown over any terrain, bouncing off its exact triangles, off each
//!   other and off fixed spheres until they rest, their contacts predicted on the ballistic arc
//!   with a proven bound ([`ballistic`]).

pub mod ballistic;
mod line;
mod queue;
mod sim;
mod terrain_balls;

pub use line::{LineBall, LineBalls, LineError, LineEvent};
pub use queue::{Event, EventQueue, ObjectId, QueueStats, NO_OBJECT};
pub use sim::{Model, Simulation, DEFAULT_MAX_EVENTS, ZENO_BURST};
pub use terrain_balls::{Ball, BallCounts, BallEvent, BallParams, BehaviourLod, TerrainBalls};
