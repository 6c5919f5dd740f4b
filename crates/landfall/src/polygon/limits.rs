//! Tolerances and limits shared by the build (quadtree, layering), the stored parts and the queries.

/// Surfaces on one line closer than this (relative to their height) are one surface: a point on
/// an edge shared by two polygons reports it once.
pub const SURFACE_EPS: f64 = 1e-9;

/// Deepest quadtree allowed (keeps traversal stacks fixed-size).
pub const MAX_DEPTH_LIMIT: usize = 40;
