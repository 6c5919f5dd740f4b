//! Collision: groups and staged object-vs-object checks; the 2004 paper's bounding-sphere tree,
//! swept spheres (face, edges and vertices), the sliding response, and a kinematic character
//! controller.

mod controller;
mod groups;
mod slide;
mod sphere_tree;
mod sphere_walk;
mod sweep;
mod target;
mod tile_view;

pub use controller::{CharacterController, CharacterMove, ControllerParams, Shape};
pub use groups::{check, colliding_pairs, obb_overlap, segment_closest, segment_distance, Body, Proxy, Stage};
pub use slide::{slide, SlideParams, SlideResult};
pub use sphere_tree::{SphereNode, SphereTree};
pub use sweep::{closest_point, segment_triangle_distance, sweep_capsule_triangle, sweep_sphere_triangle, Contact};
pub use target::{Nearby, SweepTarget, TerrainContact, TerrainSweep, NEARBY_CAPACITY};
pub use tile_view::{
    tile_tree, Tile, TileNode, TileSamples, TileTrees, TileView, TileViewError, TileViewParams, ViewChange,
};
