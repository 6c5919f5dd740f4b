//! Behaviours with levels of detail that follow the viewer (Dollins' thesis, 5.1–5.4): entities
//! whose behaviour is a hierarchical state machine driven by the event queue of [`events`](crate::events),
//! each state with three representations, picked every frame by importance.
//!
//! * [`Entity`] — a seed, a closed [`Route`] and a body;
//! * [`Schedule`] — the parent state machine: cycles of travel, then a twirl or a rest
//!   ([`Activity`]), drawn from the seed, with a closed form at any time;
//! * [`Rep`] — the representations: **Full** (an event per beat; each move is the longest stride
//!   along the route that stays clear of every other full-detail entity), **Approximate** (closed
//!   form along the route, no avoidance, an event only when the activity changes), **Dormant** (no
//!   events; the state follows from seed, route and time);
//! * [`ImportanceParams`] — the importance function (projected size, visibility, speed contrast,
//!   attention) and its thresholds with hysteresis;
//! * [`Scene`] — visibility and solids, supplied by the caller ([`FieldOfView`] for an open floor);
//! * [`Behaviours`] — the crowd and its frame driver; [`Checker`] — the brute-force reference for
//!   overlaps and teleports in view.
//!
//! # How it works
//!
//! **States and events.** An entity's parent state ([`Activity`]) follows a cycle of beats drawn
//! from its seed, so the arc length along its route at any time has a closed form: its start (from
//! the seed) plus speed × time spent travelling. That is the Dormant state: nothing is stored, no
//! event fires. An Approximate entity is anchored at an arc length and a time and follows the same
//! closed form from there; its only events are the changes of activity. A Full entity has an event
//! on every beat ([`BehaveEvent::Beat`]), at which it chooses its move for the next beat — the longest
//! of a full, half or quarter stride along its route whose straight motion keeps a margin clear of
//! every other full-detail entity over the beat (neighbours from a [`ProximityGrid`](crate::broad::ProximityGrid)
//! holding each one's swept circle, then the exact least distance of two straight motions), or
//! else it holds. Holding is always clear: each entity that moved this beat checked its move
//! against the others holding, and those yet to move hold until they do. So full-detail entities
//! never overlap, by induction over the events.
//!
//! **Importance and hysteresis** ([`ImportanceParams`] has the formula). Only entities whose route
//! comes within [`ImportanceParams::wake`] of the viewer (a second grid, of the routes' bounding
//! circles, answers) and those not dormant are looked at each frame: farther ones are dormant
//! whatever they do, so a frame's cost follows what is near the viewer, not what exists. An entity in
//! view is always Full.
//!
//! **The snap.** An entity that takes full detail is placed at the nearest state *behind* it on its
//! route where it can hold until the next beat clear of every full-detail entity and of the scene's
//! solids; entities in view are placed first, the most important first. Why this is plausible: the
//! entity was out of view, so the viewer has no memory of where it was; it is on its own route,
//! where it might be; behind its approximate position is where avoidance would have left it, since
//! a full-detail entity only ever yields; and it touches nothing. An entity with no clear place on
//! its whole route is *withheld* — not shown — and tries again next frame. Entities in view move
//! only by their plans, at most their speed, so nothing in view jumps.
//!
//! **Reference.** [`Checker`] evaluates every entity from outside after each frame and tests every
//! pair in view for overlap and every entity in view twice in a row for a jump beyond speed × time;
//! the tests run it over random crowds, viewer paths and far coordinates.

mod behaviours;
mod check;
mod crowd;
mod importance;
mod motion;
mod route;
mod scene;
mod schedule;

pub use behaviours::{Behaviours, FrameStats};
pub use check::{overlapping_pairs, Checker, Seen};
pub use crowd::{BehaveEvent, CrowdParams, Entity};
pub use importance::{ImportanceParams, Rep};
pub use motion::{least_distance, Plan};
pub use route::Route;
pub use scene::{FieldOfView, Scene, Viewer};
pub use schedule::{Activity, Schedule};

use crate::broad::ProximityError;
use crate::params::ParamError;

/// What can go wrong building or running behaviours.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BehaveError {
    /// A route is not a usable closed polyline.
    #[error("route: {0}")]
    Route(String),
    /// An entity is unusable (its index, and why).
    #[error("entity {index}: {why}")]
    Entity {
        /// Its index.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// A parameter is out of range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// An entity lies beyond the proximity grid's range.
    #[error(transparent)]
    Grid(#[from] ProximityError),
    /// A frame's time is not finite or before the last frame's.
    #[error("frame time {t}: not finite or before the last frame ({last})")]
    Time {
        /// The time asked for.
        t: f64,
        /// The last frame's.
        last: f64,
    },
    /// The viewer's position or velocity is not finite.
    #[error("viewer: {0}")]
    Viewer(String),
}

#[cfg(test)]
mod tests;
