//! Polygon terrain: QOTA (Barrus & Waters 1996), convex polygons sorted into a quadtree over their
//! projection along gravity.
//!
//! Polygons may overlap (bridges, overhangs) and leave gaps (holes: walls, lakes). Each input
//! polygon becomes one convex face, or several triangles when it is non-convex, self-overlapping or
//! not planar. Every face keeps QOTA's record — 2-D bounding box, 2-D edge equations, plane — in the
//! local frame where gravity is −Z (R and R⁻¹ from the [`Frame`]); callers use world coordinates.
//!
//! Queries: every surface on the vertical line through a point ([`PolygonTerrain::surfaces_on_line`]),
//! the topmost, floor below and ceiling above, the locale test [`PolygonTerrain::contains`], and ray
//! casts on the same quadtree ([`PolygonTerrain::raycast`]). All are allocation-free; batch
//! versions run in parallel.

mod builder;
mod curved;
mod edit;
mod error;
mod face;
mod jump;
mod layer;
mod limits;
mod order;
mod quadtree;
mod raw;
mod raycast;
mod report;
mod seal;
mod soup;
mod stats;
mod terrain;
mod triangles;
mod vertical;

pub use builder::PolygonTerrainBuilder;
pub use curved::{CurvedFrame, CurvedTerrain};
pub use error::PolygonError;
pub use limits::{MAX_COORDINATE, MAX_DEPTH_LIMIT, SURFACE_EPS};
pub use quadtree::{CutRule, QuadtreeParams};
pub use raw::{Header, SECTIONS, SECTION_NAMES};
pub use report::BuildReport;
pub use soup::PolygonSoup;
pub use stats::QuadtreeStats;

pub(crate) use face::{quick_margin, Face, EDGE_SLACK, REMOVED};
pub(crate) use raw::Arrays;

use crate::frame::Frame;
use crate::geom::Aabb;
use glam::DVec3;
use layer::Layering;
use rayon::prelude::*;

/// A polygon terrain with its QOTA quadtree: overlapping convex polygons in 3D, any gravity. Build
/// it with [`PolygonTerrain::builder`].
///
/// ```
/// use landfall::PolygonTerrain;
/// use landfall::glam::DVec3;
///
/// // A floor at z = 0 and a bridge over half of it at z = 5.
/// let floor = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(10.0, 0.0, 0.0), DVec3::new(10.0, 10.0, 0.0), DVec3::new(0.0, 10.0, 0.0)];
/// let bridge = [DVec3::new(0.0, 4.0, 5.0), DVec3::new(10.0, 4.0, 5.0), DVec3::new(10.0, 6.0, 5.0), DVec3::new(0.0, 6.0, 5.0)];
/// let t = PolygonTerrain::builder().polygon(&floor).polygon(&bridge).build()?;
/// let mut heights = Vec::new();
/// t.surfaces_on_line(DVec3::new(5.0, 5.0, 0.0), |s| heights.push(s.point.z));
/// assert_eq!(heights, [0.0, 5.0]);
/// // Under the bridge, the floor; on it, the bridge.
/// assert_eq!(t.floor_below(DVec3::new(5.0, 5.0, 3.0)).unwrap().point.z, 0.0);
/// assert_eq!(t.floor_below(DVec3::new(5.0, 5.0, 6.0)).unwrap().point.z, 5.0);
/// # Ok::<(), landfall::PolygonError>(())
/// ```
#[derive(Clone, Debug)]
pub struct PolygonTerrain {
    header: Header,
    arrays: Arrays,
    report: BuildReport,
    /// Derived from the tree (halves cuts only), rebuilt whenever the tree changes.
    jump: Option<jump::Jump>,
    /// The margin of [`QuickFace::inside`] for the root rectangle, derived with `jump`.
    margin: f32,
    /// Face indices sorted by source polygon (faces are stored in spatial order, see `order.rs`):
    /// made by the first removal, extended by insertions, empty until then.
    by_source: Vec<u32>,
    /// The stored indices passed the full check (always for a build).
    validated: bool,
}

impl PolygonTerrain {
    /// Surfaces on one vertical line closer than this (relative to their height) are one surface:
    /// a point on an edge shared by two polygons reports it once.
    pub const SURFACE_EPS: f64 = SURFACE_EPS;
    /// Largest magnitude of a vertex coordinate; beyond it a build is refused
    /// ([`PolygonError::OutOfRange`]).
    pub const MAX_COORDINATE: f64 = MAX_COORDINATE;

    /// Rebuilds the quadtree from the live faces with the same parameters (after many edits, or to
    /// time the build).
    pub fn rebuild(&mut self) -> Result<(), PolygonError> {
        self.validate()?;
        self.rebuild_quadtree()
    }

    /// The single-layer test over this terrain's faces, for a quadtree over `root` (see `layer.rs`).
    pub(crate) fn layering(&self, root: [f64; 4]) -> Layering<'_> {
        let mag = root.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        Layering::new(&self.arrays.faces, &self.arrays.verts, &self.arrays.edges, self.header.slack, mag)
    }

    /// Rebuilds the quadtree from the live faces (root box fitted to them).
    pub(crate) fn rebuild_quadtree(&mut self) -> Result<(), PolygonError> {
        let faces = &self.arrays.faces;
        let ids: Vec<u32> =
            (0..faces.len() as u32).into_par_iter().filter(|&f| faces[f as usize].flags & REMOVED == 0).collect();
        let bounds = quadtree::PackedBounds::of(&self.arrays.geoms);
        let (empty, union) = (quadtree::EMPTY_RECT, quadtree::union_rect);
        let mut root =
            ids.par_iter().fold(|| empty, |r, &f| union(r, quadtree::Bounds::bbox(&bounds, f))).reduce(|| empty, union);
        if ids.is_empty() {
            root = [0.0; 4];
        }
        // The build puts every face into every leaf it touches, so it may use sealed faces.
        let sealed = seal::sealed_faces(faces, &self.arrays.verts);
        let layers = Some(self.layering(root).with_sealed(&sealed).with_quick(&self.arrays.quick, quick_margin(root)));
        let mut tree = quadtree::build(faces, &bounds, &self.arrays.edges, layers, ids, root, self.header.params);
        // The build reserved room generously; give back what it did not use when that is much: more
        // than half again what it used. (Shrinking the nodes copies them into fresh memory, 32-byte
        // alignment rules out an in-place realloc — on a 13k TIN the copy and its page faults cost
        // a sixth of the build — and room never written costs no memory when the array is large
        // enough to be mapped lazily.)
        if tree.nodes.capacity() > tree.nodes.len() + tree.nodes.len() / 2 {
            tree.nodes.shrink_to_fit();
        }
        tree.refs.shrink_to_fit();
        if tree.refs.len() >= u32::MAX as usize || tree.nodes.len() >= u32::MAX as usize {
            return Err(PolygonError::TooLarge);
        }
        self.header.root = root;
        self.arrays.nodes = tree.nodes.into();
        self.arrays.refs = tree.refs.into();
        self.refresh_derived();
        Ok(())
    }

    /// Recomputes what is derived from the tree (the jump table, the quick faces' margin) after it
    /// changed.
    pub(crate) fn refresh_derived(&mut self) {
        self.jump =
            (self.header.params.cuts == CutRule::Halves).then(|| jump::Jump::new(&self.arrays.nodes, self.header.root));
        self.margin = quick_margin(self.header.root);
    }

    /// Frame, local origin, root box and parameters.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// What the build did with the input.
    pub fn report(&self) -> &BuildReport {
        &self.report
    }

    /// The gravity frame.
    pub fn frame(&self) -> &Frame {
        &self.header.frame
    }

    /// Number of convex faces (after triangulation).
    pub fn face_count(&self) -> usize {
        self.arrays.faces.len()
    }

    /// World vertices of face `f` (none for an unknown face).
    pub fn face_vertices(&self, f: usize) -> impl Iterator<Item = DVec3> + '_ {
        let range = self
            .arrays
            .faces
            .get(f)
            .map_or(0..0, |face| face.first as usize..face.first as usize + face.count as usize);
        self.arrays.verts.get(range).unwrap_or_default().iter().map(move |v| self.to_world_point(DVec3::from_array(*v)))
    }

    /// World bounds of the geometry.
    pub fn bounds(&self) -> Aabb {
        self.arrays.verts.iter().fold(Aabb::EMPTY, |b, v| b.grown(self.to_world_point(DVec3::from_array(*v))))
    }

    /// World → local point.
    #[inline]
    pub(crate) fn to_local_point(&self, p: DVec3) -> DVec3 {
        self.header.frame.to_local(p - self.header.center)
    }

    /// Local → world point.
    #[inline]
    pub(crate) fn to_world_point(&self, l: DVec3) -> DVec3 {
        self.header.frame.to_world(l) + self.header.center
    }
}
