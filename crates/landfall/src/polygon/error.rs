//! Why a polygon terrain cannot be built or loaded.

/// Why a polygon terrain cannot be built or loaded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolygonError {
    /// A vertex coordinate is NaN or infinite.
    #[error("polygon {polygon}, vertex {vertex}: coordinate is not finite")]
    NonFinite {
        /// Input polygon index.
        polygon: usize,
        /// Vertex index within the polygon.
        vertex: usize,
    },
    /// A vertex coordinate is beyond ±1e150 (`MAX_COORDINATE`).
    #[error("polygon {polygon}, vertex {vertex}: a coordinate is beyond ±1e150 (products of coordinates would overflow; scale the model down)")]
    OutOfRange {
        /// Input polygon index.
        polygon: usize,
        /// Vertex index within the polygon.
        vertex: usize,
    },
    /// No usable polygon (all empty, degenerate or duplicates).
    #[error("no usable polygon: {0}")]
    Empty(String),
    /// More polygons, vertices or references than the 32-bit indices hold.
    #[error("too many polygons or vertices for 32-bit indices")]
    TooLarge,
    /// A quadtree parameter out of its range ([`QuadtreeParams::validate`](crate::QuadtreeParams::validate)).
    #[error("bad quadtree parameters: {0}")]
    BadParams(crate::ParamError),
    /// A stored array does not lie inside its bytes, or is misaligned (a corrupt index file).
    #[error("section '{section}': {error}")]
    Section {
        /// Which array ([`SECTION_NAMES`](super::SECTION_NAMES)).
        section: &'static str,
        /// What is wrong with it.
        error: crate::flat::FlatError,
    },
    /// Stored arrays are inconsistent (a corrupt index file).
    #[error("corrupt polygon terrain: {0}")]
    Corrupt(String),
}
