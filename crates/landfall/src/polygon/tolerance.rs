//! Tolerances shared by the build (layering) and the queries (vertical lines).

/// Surfaces on one line closer than this (relative to their height) are one surface: a point on
/// an edge shared by two polygons reports it once.
pub const SURFACE_EPS: f64 = 1e-9;
