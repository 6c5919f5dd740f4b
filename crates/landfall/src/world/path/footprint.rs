//! The world's objects as the planner's obstacles: each collision shape's footprint on the
//! ground, as a disc that holds it (a ball's or a trunk's own radius; a building's circumscribed
//! circle — conservative for its corners' sides).

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

/// The footprints of every object `objects` holds now.
pub fn footprints(objects: &Objects) -> Vec<Disc> {
    objects.iter().map(|(_, o)| footprint(&o.shape)).collect()
}
