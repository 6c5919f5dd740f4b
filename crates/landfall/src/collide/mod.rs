//! Collision: groups and staged object-vs-object checks; the 2004 paper's bounding-sphere tree,
//! swept spheres (face, edges and vertices), the sliding response, and a kinematic character
//! controller.

pub mod controller;
pub mod groups;
pub mod slide;
pub mod sphere_tree;
mod sphere_walk;
pub mod sweep;
pub mod target;
pub mod tile_view;

pub use controller::{CharacterController, CharacterMove, ControllerParams};
pub use groups::{check, colliding_pairs, obb_overlap, segment_closest, segment_distance, Body, Groups, Proxy, Stage};
pub use slide::{slide, SlideParams, SlideResult};
pub use sphere_tree::{SphereNode, SphereTree};
pub use sweep::{closest_point, segment_triangle_distance, sweep_capsule_triangle, sweep_sphere_triangle, Contact};
pub use target::{Nearby, SweepTarget, TerrainContact, TerrainSweep, NEARBY_CAPACITY};
pub use tile_view::{
    tile_tree, Tile, TileNode, TileSamples, TileTrees, TileView, TileViewError, TileViewParams, ViewChange,
};
