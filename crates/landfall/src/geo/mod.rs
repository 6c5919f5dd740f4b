//! Geodesy and surfaces on the Earth: rasters in degrees (a geographic CRS) answered in metres.
//!
//! * [`wgs84`]: the ellipsoid's constants, geodetic (lon, lat, h) ↔ ECEF;
//! * [`EnuFrame`]: an east-north-up frame at any geodetic point, ECEF ↔ ENU (rigid, exact);
//! * [`GridTables`]: every sample's ENU position as A(i, j) + h·B(i, j) from a column and a row
//!   table (no trigonometry per sample);
//! * [`GeoSurface`]: a heightfield whose grid is (lon, lat) in degrees as a surface on the ellipsoid —
//!   each sample mapped to ECEF, the same two triangles per cell, planar in ECEF; heights at
//!   (lon, lat) along the ellipsoid normal, rays in ECEF, geodetic or ENU, a [`Terrain`](crate::Terrain)
//!   in its ENU frame;
//! * [`geo_viewshed`]: exact viewsheds on such a surface (ECEF lines of sight, refraction as a raise).

mod boxes;
mod enu;
mod shear;
mod surface;
mod tables;
mod terrain;
pub(crate) mod viewshed;
mod walk;
pub mod wgs84;

pub use enu::EnuFrame;
pub use surface::{GeoError, GeoPoint, GeoSurface, DEFAULT_GEO_LEAF, MAX_CELL_DEGREES};
pub use tables::GridTables;
pub use viewshed::{geo_observer_eye, geo_viewshed};
pub use walk::{GeoHit, GEO_TOUCH};
pub use wgs84::Geodetic;

#[cfg(test)]
mod tests;
