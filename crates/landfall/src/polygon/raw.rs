//! The raw-parts interface: a built terrain as the scalars of its [`Header`] and seven flat arrays
//! ("sections") of plain bytes, which is all an index file stores (`landfall-io` writes them and
//! maps them back in place). The arrays' element types stay private; a file gives back only bytes,
//! which are checked before use.

use super::face::{Face, FaceGeom, QuickFace, VERTICAL};
use super::quadtree::Node;
use super::{BuildReport, PolygonError, PolygonTerrain, QuadtreeParams, MAX_DEPTH_LIMIT};
use crate::flat::{Flat, StableBytes};
use crate::frame::Frame;
use glam::DVec3;
use rayon::prelude::*;
use std::sync::Arc;

/// The flat arrays of a built terrain, owned or borrowed from an index file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arrays {
    /// Convex faces: what vertical queries read.
    pub faces: Flat<Face>,
    /// Per face: normal, plane offset, height range, source polygon.
    pub geoms: Flat<FaceGeom>,
    /// Per face: what a vertical query reads first (one cache line), derived from `faces`.
    pub quick: Flat<QuickFace>,
    /// Face vertices, local frame.
    pub verts: Flat<[f64; 3]>,
    /// Face edge equations `[A, B, C]`, local frame, `A·x + B·y + C ≥ 0` inside.
    pub edges: Flat<[f64; 3]>,
    /// Quadtree nodes, root first.
    pub nodes: Flat<Node>,
    /// Leaf face references.
    pub refs: Flat<u32>,
}

/// Everything besides the arrays: frame, local origin, root box, parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// Gravity frame.
    pub frame: Frame,
    /// World point that maps to the local origin (local = R·(p − center)).
    pub center: DVec3,
    /// Root rectangle `[x0, y0, x1, y1]`, local frame.
    pub root: [f64; 4],
    /// Build parameters.
    pub params: QuadtreeParams,
    /// Number of input polygons (ids handed out, including removed ones).
    pub polygons: u32,
    /// How far edges are pushed outward (10⁻¹² × the input's extent), in local units.
    pub slack: f64,
}

/// Number of arrays a terrain stores.
pub const SECTIONS: usize = 7;

/// The arrays, in the order [`PolygonTerrain::raw_sections`] gives them and
/// [`PolygonTerrain::from_raw_sections`] takes them: convex faces, face geometry, vertices, edge
/// equations of faces of more than three vertices, quadtree nodes, leaf references, quick face
/// records.
pub const SECTION_NAMES: [&str; SECTIONS] =
    ["faces", "face geometry", "vertices", "edge equations", "nodes", "references", "quick faces"];

impl PolygonTerrain {
    /// The stored arrays as bytes (native endianness), in [`SECTION_NAMES`] order, each with its
    /// element count. Every array's element size divides 64, so sections stored at 64-byte
    /// boundaries load in place.
    ///
    /// ```
    /// use landfall::PolygonTerrain;
    /// use landfall::glam::DVec3;
    /// let t = PolygonTerrain::builder().polygon(&[DVec3::ZERO, DVec3::X, DVec3::Y]).build().unwrap();
    /// let sections = t.raw_sections();
    /// assert_eq!(sections.len(), landfall::support::SECTIONS);
    /// assert_eq!(sections[0].1, 1); // one face
    /// ```
    pub fn raw_sections(&self) -> [(&[u8], usize); SECTIONS] {
        let a = &self.arrays;
        [
            (bytemuck::cast_slice(&a.faces), a.faces.len()),
            (bytemuck::cast_slice(&a.geoms), a.geoms.len()),
            (bytemuck::cast_slice(&a.verts), a.verts.len()),
            (bytemuck::cast_slice(&a.edges), a.edges.len()),
            (bytemuck::cast_slice(&a.nodes), a.nodes.len()),
            (bytemuck::cast_slice(&a.refs), a.refs.len()),
            (bytemuck::cast_slice(&a.quick), a.quick.len()),
        ]
    }

    /// Reassembles a terrain from its header and arrays held in shared bytes (a memory-mapped index
    /// file): section k is `sections[k] = [byte offset, element count]` in `owner`, used in place.
    /// Each section must lie inside the bytes and be aligned; with `verify`, every stored index is
    /// then checked (O(n): faces → vertices, nodes → children, leaves → faces) and every quick
    /// record re-derived, so corrupt or hostile bytes are an error. Without it only the header is
    /// checked, in O(1), for loading a huge file in milliseconds: nothing unsafe follows from bad
    /// indices (every query bounds-checks its reads and bounds its walks, so hostile bytes give
    /// wrong answers, never undefined behaviour, a panic or a hang), and the full check runs before
    /// the first edit.
    pub fn from_raw_sections(
        header: Header,
        owner: Arc<dyn StableBytes>,
        sections: [[u64; 2]; SECTIONS],
        verify: bool,
    ) -> Result<Self, PolygonError> {
        fn section<T: bytemuck::Pod>(
            owner: &Arc<dyn StableBytes>,
            sections: &[[u64; 2]; SECTIONS],
            k: usize,
        ) -> Result<Flat<T>, PolygonError> {
            let [off, len] = sections[k];
            Flat::from_shared(owner.clone(), off, len)
                .map_err(|error| PolygonError::Section { section: SECTION_NAMES[k], error })
        }
        let arrays = Arrays {
            faces: section(&owner, &sections, 0)?,
            geoms: section(&owner, &sections, 1)?,
            verts: section(&owner, &sections, 2)?,
            edges: section(&owner, &sections, 3)?,
            nodes: section(&owner, &sections, 4)?,
            refs: section(&owner, &sections, 5)?,
            quick: section(&owner, &sections, 6)?,
        };
        if verify {
            Self::from_parts(header, arrays)
        } else {
            Self::from_parts_unchecked(header, arrays)
        }
    }

    /// Whether the arrays are borrowed from shared bytes (an index file mapped in place) rather
    /// than owned; an edit makes them owned.
    pub fn is_shared(&self) -> bool {
        self.arrays.faces.is_shared() && self.arrays.nodes.is_shared()
    }

    /// Reassembles a terrain from stored parts (an index file), checking every stored index
    /// (O(n): faces → vertices, nodes → children, leaves → faces).
    fn from_parts(header: Header, arrays: Arrays) -> Result<Self, PolygonError> {
        validate(&header, &arrays)?;
        let mut t = Self::from_parts_unchecked(header, arrays)?;
        t.validated = true;
        t.report.vertical = t.arrays.faces.iter().filter(|f| f.flags & VERTICAL != 0).count();
        Ok(t)
    }

    /// Reassembles a terrain from stored parts checking only the header, in O(1) (plus the jump
    /// table): for loading a huge index file in milliseconds. Nothing unsafe follows from bad
    /// indices — every query bounds-checks its reads and bounds its walks, so a hostile file gives
    /// wrong answers, never undefined behaviour, a panic or a hang — and the full check runs before
    /// the first edit (or call [`PolygonTerrain::validate`]).
    fn from_parts_unchecked(header: Header, arrays: Arrays) -> Result<Self, PolygonError> {
        validate_header(&header)?;
        let n = arrays.faces.len();
        if arrays.nodes.is_empty() || arrays.geoms.len() != n || arrays.quick.len() != n {
            return Err(PolygonError::Corrupt("no quadtree nodes, or face arrays of different lengths".into()));
        }
        let faces = &arrays.faces;
        let report = BuildReport {
            polygons: header.polygons as usize,
            faces: faces.len(),
            vertical: 0,
            ..BuildReport::default()
        };
        let mut t = Self { header, arrays, report, jump: None, margin: 0.0, by_source: Vec::new(), validated: false };
        t.refresh_derived();
        Ok(t)
    }

    /// Runs the full structural check of the stored indices (once; a built terrain is valid).
    pub fn validate(&mut self) -> Result<(), PolygonError> {
        if !self.validated {
            validate(&self.header, &self.arrays)?;
            self.validated = true;
        }
        Ok(())
    }
}

/// Checks the header's parameters.
fn validate_header(h: &Header) -> Result<(), PolygonError> {
    if h.params.max_depth > MAX_DEPTH_LIMIT || h.params.max_polys == 0 {
        return Err(PolygonError::Corrupt(format!(
            "quadtree parameters {}/{}",
            h.params.max_polys, h.params.max_depth
        )));
    }
    if !(h.slack.is_finite() && h.root.iter().all(|v| v.is_finite()) && h.center.is_finite()) {
        return Err(PolygonError::Corrupt("header values are not finite".into()));
    }
    Ok(())
}

/// Checks that every stored index is in range and the tree is well formed.
fn validate(h: &Header, a: &Arrays) -> Result<(), PolygonError> {
    let bad = |m: String| Err(PolygonError::Corrupt(m));
    validate_header(h)?;
    if !a.verts.iter().flatten().chain(a.edges.iter().flatten()).all(|v| v.is_finite()) {
        return bad("a vertex or edge equation is not finite".into());
    }
    for (k, f) in a.faces.iter().enumerate() {
        let end = f.first as u64 + f.count as u64;
        if f.count < 3 || end > a.verts.len() as u64 {
            return bad(format!("face {k} points at vertices {}..{end} of {}", f.first, a.verts.len()));
        }
        let edges_end = f.more_edges as u64 + f.count as u64;
        if f.count > 3 && edges_end > a.edges.len() as u64 {
            return bad(format!(
                "face {k} points at edge equations {}..{edges_end} of {}",
                f.more_edges,
                a.edges.len()
            ));
        }
        if !f.slope.iter().chain(f.edges.iter().flatten()).all(|v| v.is_finite()) {
            return bad(format!("face {k}'s plane or edge equations are not finite"));
        }
    }
    if a.geoms.len() != a.faces.len() {
        return bad(format!("{} faces but {} face records", a.faces.len(), a.geoms.len()));
    }
    if let Some(k) = a.geoms.iter().position(|g| g.source >= h.polygons) {
        return bad(format!("face {k} comes from polygon {} of {}", a.geoms[k].source, h.polygons));
    }
    if let Some(k) = a.faces.iter().zip(a.geoms.iter()).position(|(f, g)| f.source != g.source) {
        return bad(format!("face {k}'s two records name different source polygons"));
    }
    if a.quick.len() != a.faces.len() {
        return bad(format!("{} faces but {} quick face records", a.faces.len(), a.quick.len()));
    }
    if let Some(k) = a.faces.par_iter().zip(a.quick.par_iter()).position_any(|(f, q)| QuickFace::of(f) != *q) {
        return bad(format!("face {k}'s quick record does not match its face record"));
    }
    let n = a.nodes.len();
    if n == 0 {
        return bad("no quadtree nodes".into());
    }
    // Every node reachable exactly once from the root, children after their parent, depth bounded.
    let mut depth = vec![u8::MAX; n];
    depth[0] = 0;
    for (k, node) in a.nodes.iter().enumerate() {
        if depth[k] == u8::MAX {
            return bad(format!("node {k} is not reachable from the root"));
        }
        if node.is_leaf() {
            let Some(refs) = node.leaf_refs(&a.refs) else {
                return bad(format!(
                    "leaf {k} points at references {}..+{} of {}",
                    node.first,
                    node.leaf_len(),
                    a.refs.len()
                ));
            };
            if let Some(r) = refs.iter().find(|&&r| r as usize >= a.faces.len()) {
                return bad(format!("leaf {k} references face {r} of {}", a.faces.len()));
            }
        } else {
            let first = node.first as usize;
            if first <= k || first + 4 > n || depth[k] as usize >= MAX_DEPTH_LIMIT {
                return bad(format!("node {k} has children at {first} (of {n} nodes)"));
            }
            for c in first..first + 4 {
                if depth[c] != u8::MAX {
                    return bad(format!("node {c} has two parents"));
                }
                depth[c] = depth[k] + 1;
            }
        }
    }
    if let Some(r) = a.refs.iter().find(|&&r| r as usize >= a.faces.len()) {
        return bad(format!("a leaf references face {r} of {}", a.faces.len()));
    }
    Ok(())
}
