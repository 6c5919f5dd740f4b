#![warn(missing_docs)]
//! landfall: exact answers where things meet the ground.
//!
//! The library answers terrain queries in world coordinates (right-handed, Z up, gravity (0, 0, −1)
//! unless a [`Frame`] says otherwise):
//!
//! * vertical queries — the surface on the vertical line through a point, in O(1) on a
//!   [`Heightfield`];
//! * ray casts — the first crossing of a [`Ray`] with the terrain, watertight on shared edges and
//!   vertices, accelerated by a min/max pyramid ([`heightfield::Pyramid`]);
//! * polygon terrains ([`PolygonTerrain`], QOTA) — overlapping polygons, holes, any gravity: every
//!   surface on a vertical line, floor below, ceiling above, locale containment and ray casts on one
//!   quadtree;
//! * placement ([`place`](mod@place)) — a body's position and orientation on the ground from its footprint
//!   (QOTA's three-point plane or four wheels), pitch and roll, refusals for steep ground and holes;
//! * procedural worlds ([`World`]) — an endless generated landscape kept around a moving viewer in a
//!   nested level-of-detail cache, meshed without cracks, queried on the mesh that is drawn.
//!
//! Every terrain implements [`Terrain`], so followers, controllers and the CLI work on any of them.
//!
//! ```
//! use landfall::{Heightfield, Ray};
//! use glam::DVec3;
//!
//! // A 3×3 grid, 1 m spacing, a bump in the middle.
//! let hf = Heightfield::builder(3, 3, vec![0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0])
//!     .build()
//!     .unwrap();
//! assert_eq!(hf.height_at(1.0, 1.0), Some(2.0));
//! let hit = hf.raycast(&Ray::new(DVec3::new(1.0, 1.0, 10.0), DVec3::NEG_Z), f64::INFINITY).unwrap();
//! assert!((hit.t - 8.0).abs() < 1e-12);
//! ```

pub mod broad;
pub mod collide;
pub mod events;
pub mod flat;
pub mod frame;
pub mod geo;
pub mod geom;
pub mod heightfield;
pub mod pages;
pub mod paint;
pub mod place;
pub mod polygon;
pub mod rng;
pub mod terrain;
pub mod terrain_set;
mod torus;
pub mod viewshed;
pub mod world;

pub use collide::Groups;
pub use frame::{Frame, FrameError};
pub use geom::{Aabb, Hit, Ray, RayError, SurfacePoint, TriangleId};
pub use heightfield::{Diagonal, Half, Heightfield, HeightfieldBuilder, HeightfieldError};
pub use place::{place, place_batch, Contacts, FollowParams, Placement, Refusal};
pub use polygon::{CurvedFrame, CurvedTerrain, CutRule, PolygonError, PolygonTerrain, QuadtreeParams};
pub use terrain::Terrain;
pub use terrain_set::{PoseError, TerrainSet};
pub use world::{CacheParams, LodTerrain, World, WorldError, WorldParams};

/// Re-export of the math crate used in the public API.
pub use glam;

/// The README's Rust example, compiled and run as a doctest (`scripts/run_docs.py` runs the
/// README's other blocks and checks that this one is included).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
