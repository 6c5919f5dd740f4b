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
//!
//! # How it works
//!
//! The thesis' chapter 5 in its general form: objects follow closed-form behaviours between events;
//! `EventQueue` holds predicted and external events in time order (ties in the order scheduled), and
//! every prediction records the version stamps of the objects it involves, so that changing an object's
//! behaviour (`invalidate`) voids all its predictions in O(1); stale entries are skipped when they reach
//! the front and swept out when they outnumber the live ones eight to one. A `Model` predicts an
//! object's next events from a time on and carries out an event, naming the objects it changed;
//! `Simulation::step` pops, fires and re-predicts only those, and `advance_to(t)` is the frame driver
//! (fire everything up to the frame time, then evaluate the behaviours at t).
//!
//! `LineBalls` is the thesis' example (5.1.6): balls between two walls never pass each other, so a
//! ball's partners are its two neighbours and, at the ends, a wall — four predictions per collision
//! whatever the number of balls. A collision reflects both velocities about the centre-of-mass
//! velocity (momentum and energy kept to rounding), a wall reverses the velocity exactly; collision
//! times come from the positions at the current time, a gap rounded below zero counting as contact now.
//! Tests check the order of events, agreement with a brute-force stepper that tests every pair and
//! every wall at each event, a Newton's cradle, and energy and momentum over 10⁶ collisions (both to
//! better than 10⁻⁹ relative). `landfall events line` runs it from CSV.
//!
//! `TerrainBalls` throws balls over any `Terrain`. Between events a ball follows its arc
//! c(τ) = p + v·τ + ½·g·τ². Its next contact with the terrain or a fixed sphere is found by
//! conservative advancement (`ballistic.rs`): over [a, b] the arc stays within δ = |g|·(b − a)²/8 of
//! its chord, so a sphere of radius r + δ swept along the chord (the collision module's exact swept
//! sphere against the terrain's candidate triangles) that touches nothing proves the ball touches
//! nothing, and its first touch at fraction f proves the ball free until a + f·(b − a). The interval
//! is advanced to that point and halved until δ ≤ 10⁻⁹; the contact is then the fat sphere's, with the
//! ball within 2·10⁻⁹ of the surface and never inside it. Two flying balls share gravity, so their
//! relative motion is a line and their contact a quadratic; a resting ball is a fixed sphere to the
//! flying ones (`after_fire` predicts their contacts with a ball that has just come to rest). The
//! Zeno threshold (5.1.7): a bounce off the ground or a fixed sphere that leaves the ball slower than
//! `rest_speed` along the normal puts it to rest, and so does a slow touch on a resting ball — the
//! cascades that otherwise stall the clock (a ball on a boulder bounced every nanosecond).
//!
//! Neighbours (5.1.5): a flying ball's prediction covers a *window*, from its last change to its next
//! contact with the terrain or a fixed sphere; the box its arc sweeps over the window (a resting
//! ball's: itself) is kept in the dual quad-tree (`broad::ProximityGrid`), and a ball predicts
//! collisions only with the balls whose boxes meet its own. None is missed: two balls touching at time
//! t are both inside their current windows at t, and when the later of the two windows began, its
//! ball found the other's box, which already covered t. The tests check it the direct way: no two balls
//! ever overlap at any event or frame.
//!
//! Level of detail of behaviour (5.2, `BallParams::lod`): a ball whose window box lies beyond the range
//! from the viewer is left out of the grid and predicts no ball–ball contacts — far balls meet only the
//! terrain and the fixed spheres. A ball whose window comes back into range is re-initialized (4.5):
//! far balls may have passed through each other, so it is lifted against gravity out of any near ball
//! it overlaps (a sweep stops the lift at anything above). With an unbounded range the run is the full
//! simulation event for event (tested).
//!
//! Ground that moves and a viewer who walks (`Simulation::change_ground`, `Simulation::move_viewer`;
//! the proofs in `terrain_balls/reground.rs`): `TerrainBalls` may own its terrain, so a
//! `world::World` whose cache follows a walking viewer can be the ground. After each update the
//! balls whose windows meet the box the update changed (`World::changed_region`) are lifted out of
//! ground that rose into them, woken where their support fell away, and predicted again; the
//! others keep their predictions, since they stand on the same triangles. Far from the viewer the
//! balls bounce off the coarse cells the cache holds there (5.2.2). When the viewer moves, the balls
//! whose windows change sides of the range are predicted again. Tests: a walk over the world with
//! balls in flight and at rest, every frame checked against brute-force distances to the ground as
//! drawn then, and a proptest that no triangle or height outside the changed box changes.
//!
//! `landfall events terrain` runs it on any terrain file or on the procedural world (`world`: the
//! drawn mesh of the nested LOD cache, a 400 m square around its origin), with `--viewer X,Y --range R`
//! runs the level of detail beside the full simulation and prints what it saved, with `--walk VX,VY`
//! walks the viewer over the world while the balls fly, and draws the paths.

pub mod ballistic;
mod line;
mod queue;
mod sim;
mod terrain_balls;

pub use line::{LineBall, LineBalls, LineError, LineEvent};
pub use queue::{Event, EventQueue, ObjectId, QueueStats, NO_OBJECT};
pub use sim::{Model, Simulation, DEFAULT_MAX_EVENTS, ZENO_BURST};
pub use terrain_balls::{Ball, BallCounts, BallEvent, BallParams, BehaviourLod, Regrounded, TerrainBalls};
