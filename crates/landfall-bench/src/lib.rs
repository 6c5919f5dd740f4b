#![warn(missing_docs)]
//! Shared set-up of the benchmarks: terrains, the peer libraries on the same data, and the ratio
//! report printed after criterion has measured. The ray sets are `landfall::support::workload`,
//! the same the demo casts.

pub mod box2d_broad;
pub mod broad_peers;
#[cfg(feature = "embree")]
pub mod embree;
pub mod geo_tiles;
pub mod geotiff;
pub mod grid;
pub mod harness;
#[cfg(feature = "jolt")]
pub mod jolt;
#[cfg(feature = "jolt")]
pub mod jolt_broad;
pub mod motions;
pub mod paths_scene;
pub mod peers;
pub mod rapier_peer;
pub mod report;
pub mod terrains;
pub mod viewshed_peers;
