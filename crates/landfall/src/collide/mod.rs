//! Collision: groups and staged object-vs-object checks (so far). The bounding-sphere tree, swept
//! sphere, sliding response and character controller of issue 4 are still to come.

pub mod groups;

pub use groups::{check, colliding_pairs, obb_overlap, segment_distance, Body, Groups, Proxy, Stage};
