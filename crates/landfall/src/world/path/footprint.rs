//! The world's objects as the planner's obstacles: each collision shape's footprint on the
//! ground, as a disc that holds it (a ball's or a trunk's own radius; a building's circumscribed
//! circle — conservative for its corners' sides), unless the agent steps over it.

use super::agent::Agent;
use super::geom::Disc;
use crate::world::{Objects, Shape};

/// The footprint of a collision shape: a disc holding its projection on the ground plane.
pub fn footprint(shape: &Shape) -> Disc {
    match *shape {
        Shape::Sphere { c, r } => Disc { center: c.truncate(), radius: r },
        Shape::Column { a, r, .. } => Disc { center: a.truncate(), radius: r },
        Shape::Box { c, half, .. } => Disc { center: c.truncate(), radius: half.truncate().length() },
    }
}

/// What a collision shape is to `agent`: its footprint, or `None` when the agent steps over it
/// (its [`height`](Shape::height) is at most [`Agent::step`] radii).
///
/// ```
/// use landfall::glam::DVec3;
/// use landfall::world::{obstacle, Agent, Shape};
///
/// let stone = Shape::Sphere { c: DVec3::new(3.0, 4.0, 0.3), r: 0.3 };
/// assert!(obstacle(&stone, &Agent::default()).is_some()); // 0.6 m tall: the walker goes around
/// assert!(obstacle(&stone, &Agent::default().with_radius(20.0)).is_none()); // a giant steps over
/// ```
pub fn obstacle(shape: &Shape, agent: &Agent) -> Option<Disc> {
    (shape.height() > agent.step * agent.radius).then(|| footprint(shape))
}

/// The obstacles to `agent` among every object `objects` holds now ([`obstacle`]).
pub fn obstacles(objects: &Objects, agent: &Agent) -> Vec<Disc> {
    objects.iter().filter_map(|(_, o)| obstacle(&o.shape, agent)).collect()
}
