//! Tolerances and limits shared by the build (quadtree, layering), the stored parts and the queries.

/// Surfaces on one line closer than this (relative to their height) are one surface: a point on
/// an edge shared by two polygons reports it once.
pub const SURFACE_EPS: f64 = 1e-9;

/// The tolerance of [`SURFACE_EPS`] at height `z` in a terrain whose length unit is `unit`
/// ([`eps_unit`]): `SURFACE_EPS · (unit + |z|)`.
#[inline(always)]
pub(crate) fn surface_eps(unit: f64, z: f64) -> f64 {
    SURFACE_EPS * (unit + z.abs())
}

/// The absolute part of the surface tolerance for a terrain whose edges have slack `slack`: 1, or
/// the terrain's extent when it is smaller (a terrain 1e-150 wide keeps its surfaces apart as one
/// 1 wide does).
#[inline(always)]
pub(crate) fn eps_unit(slack: f64) -> f64 {
    (slack / EDGE_SLACK).min(1.0)
}

/// Relative distance (of the terrain's extent) by which edges are pushed outward, so points on a
/// polygon's boundary count as inside despite rounding of the local transform.
pub const EDGE_SLACK: f64 = 1e-12;

/// Deepest quadtree allowed (keeps traversal stacks fixed-size).
pub const MAX_DEPTH_LIMIT: usize = 40;

/// Largest magnitude of a vertex coordinate: products of two coordinates (the faces' edge
/// equations) must stay within f64, so geometry at 1e±150 answers as at unit scale and beyond is
/// refused ([`PolygonError::OutOfRange`](super::PolygonError::OutOfRange)).
pub const MAX_COORDINATE: f64 = crate::geom::MAX_COORDINATE;

/// Smallest extent of a polygon (its largest coordinate difference) that is not degenerate: below
/// it, products of its edges would underflow to subnormal numbers.
pub const MIN_EXTENT: f64 = 1e-150;
