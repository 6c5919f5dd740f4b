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
//! * exact viewsheds on such a surface ([`viewshed`](crate::viewshed::viewshed) takes a
//!   [`GeoSurface`] as it takes a heightfield; ECEF lines of sight, refraction as a raise).
//!
//! # Viewsheds
//!
//! [`viewshed`](crate::viewshed::viewshed) on a [`GeoSurface`] takes observers at x = longitude,
//! y = latitude (degrees), with the same parameters, modes and hooks as on a heightfield.
//!
//! **Definition.** An observer at (lon, lat) (degrees; [`Observer`](crate::viewshed::Observer)'s
//! x and y) stands on the
//! surface where the ellipsoid normal through (lon, lat) meets it; the eye E is `observer_height`
//! metres further along that normal. The target of sample (i, j) is P = P₀ + T·B: P₀ the sample on
//! the surface, B its ellipsoid normal, T the target height. P is hidden when some point of the
//! segment strictly between E and P is on or below the surface, "below" taken along B (the surface
//! is a graph along it), within a nanometre; over a hole or beyond the grid there is no
//! surface, so nothing there blocks. The segment is straight in ECEF: the Earth's curvature is in
//! the model, not an option ([`ViewshedParams::curvature`](crate::viewshed::ViewshedParams::curvature) is not read).
//!
//! **Refraction** stays a coefficient K ([`ViewshedParams::refraction`](crate::viewshed::ViewshedParams::refraction), default 1/7 as in
//! gdal_viewshed and r.viewshed): every sample is raised along its normal by K·d²/(2R), d the
//! straight-line distance between the observer's and the sample's points on the ellipsoid,
//! R = 6,371,008.8 m ([`EARTH_RADIUS`](crate::viewshed::EARTH_RADIUS)); visibility is then
//! decided exactly on the raised triangles (the planar model's (1 − K)·d²/(2R) lowering, whose
//! d²/(2R) the ECEF surface already has). K = 0 is the bare geometric line of sight.
//!
//! **Targets**: [`ViewshedParams::max_distance`](crate::viewshed::ViewshedParams::max_distance) is in metres, along that same chord between the
//! points on the ellipsoid (within 1 m of the geodesic up to 100 km); azimuths are clockwise from
//! true north at the observer (the direction of that chord in the observer's east-north plane);
//! the pitch is the elevation angle of P above the observer's horizon.
//!
//! **Method.** Each target is tested on its own, in parallel: the plane through E containing B
//! meets the surface in one straight piece per triangle; the candidates are the pieces' ends, found
//! by a descent of the surface's box tree (see `viewshed/sight.rs`). The same candidates over every
//! triangle are the reference the tests compare with.
//!
//! ```
//! use landfall::geo::GeoSurface;
//! use landfall::viewshed::{viewshed, Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN, VISIBLE};
//! use landfall::Heightfield;
//! // Flat sea level, 1° × 1° at 0.01°; an observer 10 m up sees a 10 m mast 20 km east, not 30 km.
//! let hf = Heightfield::builder(101, 101, vec![0.0; 101 * 101]).origin(10.0, 45.0).spacing(0.01, 0.01).build().unwrap();
//! let s = GeoSurface::new(hf).unwrap();
//! let p = ViewshedParams::default().with_observer_height(10.0).with_target_height(10.0);
//! let out = viewshed(&s, &[Observer::at(10.2, 45.5)], &p, ViewshedMode::Visibility, &Hooks::default()).unwrap();
//! let ViewshedOutput::Visibility(vis, _) = out else { unreachable!() };
//! // 0.01° of longitude at 45.5° N is 781 m.
//! assert_eq!(vis.get(20 + 26, 50), VISIBLE); // 20.3 km
//! assert_eq!(vis.get(20 + 38, 50), HIDDEN); // 29.7 km
//! ```

mod boxes;
mod enu;
mod shear;
mod strip_walk;
mod strips;
mod surface;
mod tables;
mod terrain;
pub(crate) mod viewshed;
mod walk;
pub mod wgs84;

pub use enu::EnuFrame;
pub use surface::{GeoError, GeoPoint, GeoSurface, DEFAULT_GEO_LEAF, MAX_CELL_DEGREES};
pub use tables::GridTables;
pub use walk::{GeoHit, GEO_TOUCH};
pub use wgs84::Geodetic;

#[cfg(test)]
mod tests;
