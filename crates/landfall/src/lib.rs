#![deny(missing_docs)]
//! landfall: exact answers where things meet the ground.
//!
//! The library answers terrain queries in world coordinates (right-handed, Z up, gravity (0, 0, −1)
//! unless a [`Frame`] says otherwise). Every terrain implements [`Terrain`] — vertical queries
//! along gravity, watertight ray casts, candidate triangles for swept shapes — so followers,
//! controllers and the command line work on any of them.
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
//!
//! # Where is what
//!
//! The terrains, and the types every query shares, are at the crate root; each other family of
//! queries is one module. A type's methods may be spread over several files of its folder, one
//! file per query family (the file is named below).
//!
//! | you want | use | source |
//! |---|---|---|
//! | a grid of heights (DEM, raster) | [`Heightfield`] (built by [`Heightfield::builder`]) | `heightfield/`: `vertical.rs` heights and surfaces, `raycast.rs` rays, `triangles.rs` candidates, `edit.rs` edits, `parts.rs` index files |
//! | overlapping convex polygons (QOTA), any gravity | [`PolygonTerrain`] (built by [`PolygonTerrain::builder`]) | `polygon/`: `vertical.rs` surfaces, floor, ceiling, locale; `raycast.rs`; `edit.rs` |
//! | polygons around a planet or a station's axis | [`CurvedTerrain`] | `polygon/curved.rs` |
//! | several terrains with moving poses as one | [`TerrainSet`] | `terrain_set.rs` |
//! | a DEM in degrees on the WGS84 ellipsoid | [`geo::GeoSurface`] | [`geo`] |
//! | an endless procedural world around a viewer | [`world::World`] | [`world`] |
//! | a body standing on the ground (footprint, wheels, slope) | [`place()`], [`FollowParams`] | `place.rs` |
//! | swept spheres and capsules, sliding, a character controller | [`collide::CharacterController`], [`collide::slide`] | [`collide`] |
//! | which samples an observer sees, on a heightfield or a DEM in degrees (on the ellipsoid) | [`viewshed::viewshed`] | [`viewshed`]; on the ellipsoid `geo/viewshed/` |
//! | pairs, neighbours and rays among many moving spheres | [`broad::ProximityGrid`] | [`broad`] |
//! | behaviours driven by predicted events | [`events::Simulation`] | [`events`] |
//! | crowds whose behaviour follows the viewer (levels of detail, snapping into view) | [`behave::Behaviours`] | [`behave`] |
//! | a line of sight on any terrain | [`segment_crossing`] | `terrain.rs` |
//!
//! Parameter structs and error enums are `#[non_exhaustive]`: build parameters from `Default` and
//! their `with_*` setters, and check them with their `validate` (the queries that take them call it).
//!
//! # Features
//!
//! * `stats`: count the ray walk's work per ray (for profiling).
//! * `bench-support`: the benchmarks' generated terrains and the papers' slow baselines (hidden;
//!   not part of the API).

/// `with_<field>` setters for a `#[non_exhaustive]` parameter struct, so users outside the crate
/// build one in an expression: `Params::default().with_radius(2.0)`.
macro_rules! with_setters {
    ($t:ty { $($field:ident: $fty:ty => $setter:ident),* $(,)? }) => {
        impl $t {
            $(
                #[doc = concat!("`self` with [`", stringify!($field), "`](Self::", stringify!($field), ") set to `", stringify!($field), "`.")]
                #[must_use]
                pub fn $setter(mut self, $field: $fty) -> Self {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}
pub(crate) use with_setters;

pub mod behave;
pub mod broad;
pub mod collide;
pub mod events;
mod flat;
mod frame;
pub mod geo;
mod geom;
mod groups;
mod heightfield;
mod pages;
mod paint;
mod params;
mod place;
mod polygon;
mod rng;
mod terrain;
mod terrain_set;
mod torus;
pub mod viewshed;
pub mod world;

pub use frame::{Frame, FrameError};
pub use geom::{Aabb, Half, Hit, Ray, RayError, SurfacePoint, TriangleId};
pub use groups::Groups;
pub use heightfield::{Diagonal, Heightfield, HeightfieldBuilder, HeightfieldError};
pub use params::ParamError;
pub use place::{pitch_ahead, place, place_batch, Contacts, FollowParams, Placement, Refusal};
pub use polygon::{
    BuildReport, CurvedFrame, CurvedTerrain, CutRule, PolygonError, PolygonSoup, PolygonTerrain, PolygonTerrainBuilder,
    QuadtreeParams, QuadtreeStats,
};
pub use terrain::{segment_crossing, Terrain};
pub use terrain_set::{PoseError, TerrainSet};

/// Re-export of the math crate used in the public API.
pub use glam;

/// Building blocks that landfall's own crates (landfall-io's index files and rasters, the command
/// line's pictures and demo, the benchmarks) share with the library: storage layouts, zero-copy
/// arrays, page-backed sample buffers, the colour map, seeded random streams, tolerances, the
/// standard seeded point and ray sets.
///
/// Not part of the API: hidden from the documentation and free to change in any release.
#[doc(hidden)]
pub mod support {
    pub use crate::flat::{Flat, FlatError, StableBytes};
    pub use crate::geom::{moller_trumbore, moller_trumbore_grown};
    #[cfg(feature = "stats")]
    pub use crate::heightfield::take_stats;
    pub use crate::heightfield::workload;
    pub use crate::heightfield::{
        HeightfieldParts, LeafRanges, Pyramid, TileParts, Tiling, BORDER_EPS, DEFAULT_LEAF_SIZE, MAX_LEAF_SIZE,
        MAX_SAMPLES, MAX_SIDE, TOUCH_EPS,
    };
    pub use crate::pages::sample_buffer;
    pub use crate::paint::{vertex_normals, ColourMap};
    pub use crate::params::{Fixed, Num};
    pub use crate::polygon::{Header, MAX_DEPTH_LIMIT, SECTIONS, SECTION_NAMES};
    pub use crate::rng::{mix, SplitMix64};
    pub use crate::world::{corner_height, fan_height};
}

/// Benchmark and test scaffolding (feature `bench-support`): generated terrains and the papers'
/// slow reference methods kept to measure against. Not part of
/// the API.
#[cfg(feature = "bench-support")]
#[doc(hidden)]
pub mod bench {
    pub use crate::geo::viewshed::geo_viewshed_reference;
    pub use crate::geom::round::{f32_down, f32_up};
    pub use crate::heightfield::{synth, Baseline};
    pub use crate::viewshed::reference as viewshed_reference;
    pub use crate::world::{CellStore, Hashed, Toroidal};
}

/// The README's Rust example, compiled and run as a doctest (`scripts/run_docs.py` runs the
/// README's other blocks and checks that this one is included).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
