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
//!
//! # How it works
//!
//! `PolygonTerrain` follows Barrus & Waters' QOTA: convex polygons, a gravity frame (points are moved
//! to the local frame `R·(p − center)`, gravity −Z; R and R⁻¹ from the `Frame`, which skips them when R
//! is the identity, as in the default frame; the center keeps local
//! coordinates small for UTM-sized input), each polygon with a 2-D bounding box, 2-D edge equations and
//! its plane, sorted into a quadtree by their projection.
//!
//! **Input.** Each input polygon (any vertex count, any winding) is checked: a non-finite coordinate is
//! an error naming polygon and vertex; fewer than 3 distinct vertices or no area is skipped and counted
//! (`BuildReport`, with the first skipped indices); an exact duplicate of an earlier polygon (same vertex
//! set) likewise. Planar convex polygons are kept whole; non-convex, self-overlapping (winding number
//! ≠ 1) or non-planar ones are triangulated with `earcutr` in the plane of their Newell normal, every
//! triangle keeping the polygon's id. Faces with zero area seen along gravity are flagged vertical: ray
//! casts hit them, vertical queries ignore them. Faces are made in parallel. A soup of triangles only
//! (every TIN) is written in one indexed pass straight into the final arrays (`FaceSet::from_triangles`).
//! Any other soup is made in chunks of polygons, which are then concatenated (`FaceSet::from_polygons`).
//!
//! **Edge equations.** For edge p→q: `A = p.y − q.y, B = q.x − p.x, C = p.x·q.y − q.x·p.y`, negated as a
//! whole when the face winds clockwise, so inside is `A·x + B·y + C ≥ 0` whatever the winding. The
//! neighbour across a shared edge computes exactly the opposite numbers (products commute, IEEE negation
//! is exact), so a point on the edge is inside one of them or both — never neither. Edges are pushed
//! outward by `EDGE_SLACK` (1e-12 of the terrain's extent) so points on the outer boundary survive the
//! rounding of the local transform.
//!
//! **Memory layout.** Per face, the exact test sits in one 128-byte, 64-byte-aligned record (`Face`:
//! height plane `z = a·x + b·y + c`, the first three edge equations — all of a triangle's —, an f32
//! bounding box rounded outward for quick rejection, vertex range, flags); what a vertical query reads
//! first in a 64-byte one (`QuickFace`, below); the rest in `FaceGeom` (exact f64 box, unit normal,
//! plane offset, height range, source polygon). Vertices are a flat
//! array indexed by the face's `first`; a triangle's edge equations live in its record alone, and only
//! faces of more than three vertices keep all theirs in a flat edge array, from the record's
//! `more_edges` (72 bytes less per triangle than an edge array beside every vertex). Nodes are 32 bytes, aligned to 32 so none
//! straddles two cache lines: the cut point (two f64),
//! the node's height range (f32, rounded outward), and either four contiguous children or a leaf's face
//! references — inline in the cut point's bytes for up to 4 faces, else a run of the `refs` array — with
//! bit 31 of the leaf's count marking a single-layer leaf (below). One copy of each face, referenced from
//! every leaf it overlaps; no per-node allocation, no pointers.
//!
//! **Build.** The root is the faces' bounding rectangle. A leaf is split while it holds more than
//! `max_polys` faces and is above `max_depth` (QOTA's rule), with two guards measured necessary: no split
//! when no child would be lighter, and no split that lowers the expected number of containment tests
//! (over the whole terrain) by less than `min_gain / faces` — without it, any place where more than
//! `max_polys` surfaces stack up (a bridge over a TIN) splits down to `max_depth` along every edge.
//! The defaults (`max_polys` 1, `max_depth` 16, `min_gain` 0.6) leave every split of a leaf of two or
//! more faces to the gain rule: on the 13k TIN that gives fewer nodes and fewer expected tests than
//! QOTA-style `max_polys` 2 (see `docs/benchmarks.md`).
//! A face goes to every child it overlaps: bounding boxes first, and only faces straddling a cut get the
//! exact separating-axis test against the child's rectangle (closed, with rounding slack, so a point a
//! query finds inside a face is never in a leaf that left the face out). A node's faces are classified
//! in two passes (`face::quadrant_masks`): the boxes of all (four two-lane compares and a table lookup
//! per box, `face::BOX_CLASSES`), noting without a branch which need their edges, then the edge tests
//! of those. A whole build packs the boxes and height ranges into arrays
//! of their own once (`quadtree::PackedBounds`, 40 bytes a face; the root box is folded from them) and
//! reads them rather than `FaceGeom`; an edit's rebuild of one leaf reads the records. A split that could not gain
//! enough even with every face in its smallest child is refused before any face is classified (most
//! attempts near the bottom of the tree). Big nodes build their children
//! in parallel (rayon). Each of those subtrees is then copied into its parent's arrays by all threads
//! (`quadtree::graft`): on large terrains that copy, and the first touch of its memory, is a large part
//! of the build. Cut rules: `Halves` (the paper's equal quadrants, the default) and `Vertices`
//! (through the polygon vertex nearest the middle of the node); measurement on the DEM TIN (below) found
//! vertex cuts *worse* for expected tests at equal memory on a Delaunay TIN — what pays is the gain
//! rule, which lets small leaves go where polygons are small and keeps big empty or single-polygon ones
//! (the paper's "increase the size of leaves containing zero or one polygon"). `align_long_axis` turns the local frame about gravity
//! so the smallest rectangle around the polygons is axis-aligned (the paper's other future direction);
//! measured worse with equal quadrants on a thin diagonal strip, it is off by default.
//!
//! **Vertical queries.** Find the leaf — a jump table replaces the first 8 levels (256×256 cells whose
//! lines are computed by the very halving the tree used, so the jump lands on the node the descent would
//! reach; a point's cell is guessed from its coordinate and put right by comparing against those lines,
//! the outer two stored as ∓∞ so the comparisons need no bounds tests; both axes' guesses come from one
//! packed SSE2 conversion, defined for any input, clamped to the table), then two comparisons per level — then per face its quick record, and the plane. Every surface on
//! the line is collected on the stack (32 entries, heap beyond), sorted, and coincident surfaces (a point
//! on a shared edge, within `SURFACE_EPS`) reported once. **Single-layer leaves** (`layer.rs`): the build
//! marks a leaf whose ground faces cannot overlap seen along gravity — for every pair, the line of an edge
//! of one has all of the other on its far side, and the other's vertices *on* that line are at the first
//! face's height (within `SURFACE_EPS`), so a step whose upper and lower edges meet seen from above, or a
//! bridge, leaves the leaf unmarked. The build first tries a test without pairs (`seal.rs`): walk every
//! ground face's boundary counter-clockwise; the number of faces over a point is the winding number of
//! all those boundaries, in which edges walked once each way (same vertices, bit for bit) cancel. A leaf
//! whose faces have no uncancelled edge has the same count all over, so if one centre of its quarters
//! lies in at most one face (counted with a tolerance that only over-counts), it is one layer; a mesh's
//! rim, holes, folds and steps leave edges open, and leaves holding them take the pair test. A vertical line through a marked leaf meets at most one surface
//! (others only on shared edges, at the same height), so the query stops at the first face holding the
//! point; the leaf's faces are ordered by how many of the centres of its four quarters each contains.
//! On the 13k TIN every leaf is marked, and a query with a hit tests 1.65 faces instead of the 3.31 its
//! leaf holds. Edits re-mark the leaves they touch.
//!
//! A whole build (whose root, fitted to the faces, holds every face and every node) lets the faces'
//! quick records (below) decide its two exact tests in f32, four lanes at a time: which quadrants a
//! straddling face meets (`QuickFace::quadrants`: per edge, the largest value over each quadrant's
//! corners) and which quarter centres a face holds (`QuickFace::inside4`). The margin argument below
//! carries over unchanged — the largest f32 value over a quadrant's corners is the f32 value at one
//! corner, and no smaller than at the corner where the exact value is largest — so where the record
//! decides, it gives the f64 test's answer, and the f64 test runs only within the margin of an edge. The
//! index files are byte for byte those of the f64 tests (13k, 200k and 1M TINs); a 13k build takes 10 %
//! fewer instructions. Edits and the curved frames' key boxes keep the f64 tests.
//!
//! **Quick face records** (`QuickFace`, one cache line per face): the exact height plane (f64) and
//! source polygon — all a hit's answer needs, the normal following from the plane — and a ground
//! triangle's three edge equations scaled to `|A| + |B| = 1` and rounded to f32. The query rounds its
//! point to f32 once and evaluates the three equations in f32 — in the first three lanes of one SSE
//! vector, the coefficients being stored by kind (the three A, the three B, the three C; the fourth lane,
//! the record's next word, is zeroed and its flags dropped), the same IEEE operations in the same order
//! as one edge at a time (test `vector_sides_match_the_scalar_formula`). For a point in the root rectangle, whose
//! coordinates are at most `W` in size, the f32 value is within `8.001·2⁻²⁴·W` of the exact scaled one
//! (rounding of the coefficients, of the point, of two products and two sums, with `|C| ≤ 1.5·W`, which
//! the record checks against the face's box); so when all three values exceed the margin `2⁻²⁰·W` the
//! point is inside, and when one is below minus the margin it is outside, exactly as the f64 test would
//! say. Only within the margin of an edge (0.04 % of the hit tests on the 13k TIN, 0.5 % on the 1M one,
//! where W is 145 km and the margin 14 cm) does the query read the 128-byte `Face` and run the exact
//! test; faces that are not ground triangles (more than three vertices, vertical, removed) have zero
//! equations in their quick record and always go there. Why: a hit read two cache lines per face tested
//! (3.3 D1 misses and 1.8 misses of a 1 MB L2 per query, cachegrind) and the faces were 1.7 MB of the
//! 13k TIN's working set; one line per face made the hit faster (`docs/benchmarks.md` has its
//! current time). The record is derived from
//! `Face` alone (`QuickFace::of`), built in the same pass that counts vertical faces, kept in step by
//! edits, stored in the index file (format version 4, 5 since the coefficients are stored by kind: the load
//! stays O(1)), and re-derived and compared
//! by the full check of a loaded file. The test `quick_faces_agree_with_the_exact_test` probes the bound
//! with points on edges, a few ulps off them and at multiples of the margin from them, at scales from
//! 10⁻³ to 10⁷: it fails with a margin of `2⁻²³·W` and passes with `2⁻²²·W`, so the margin used has
//! four times the room the probes need and twice the proven bound. (Older index files are refused with
//! a request to rebuild them.)
//!
//! `top_surface`, `floor_below`, `ceiling_above`
//! pick in one pass without sorting; "at or below" allows `SURFACE_EPS` so a point on the surface finds
//! it. `contains` is the locale test (floor below and ceiling above, the ceiling from the same or a
//! second terrain); `has_ground` refuses moves into holes; `is_lit` is the shadow use (a terrain built
//! with the light direction as gravity: lit iff no surface above the point on the light line). Batch
//! versions run chunks of points with rayon, and within a chunk keep `BATCH_LANES` (16) queries in
//! flight, each turn moving one query one node down with a prefetch of the next node (or of the leaf's
//! quick face records), so that the cache misses of several queries overlap (3.3× on one thread over single
//! calls for 65,536 points on a 1M-triangle TIN; no change for data in cache).
//!
//! **Ray casts** run on the same quadtree: each node is its rectangle × its height range. The ray is
//! clipped to the root box once, and the walk starts at the deepest node whose rectangle holds the whole
//! clipped segment (found by comparing the segment's box with the cut lines, with a margin far above
//! the rounding of its ends: about five levels skipped on a 13k-triangle TIN). Below it, a node's piece of the ray [t_in, t_out] is split where the ray
//! crosses the node's two cut lines (two multiplications), each piece belongs to the child holding its
//! middle, and a piece is kept when the ray's height over it meets that child's height range. Pieces are
//! pushed farthest first, so leaves come front to back, and the walk stops when the next piece starts
//! beyond the best hit. No rectangles, slab tests or sorts below the root; the stack (3 entries per
//! level) is fixed-size and not zero-filled. Which side of a cut line the ray starts on, and where it
//! crosses, are computed without branches (they are as random as the rays, and mispredicted branches
//! were a third of a ray's time); a kept node's children are prefetched as it is pushed. Every index a walk follows is checked and walks are bounded
//! (depth ≤ 40, at most one visit per node), so a hostile index file cannot make a query panic or hang.
//! The ray–face test is Woop, Benthin & Wald's watertight test: vertices moved into ray space
//! once (translated to the origin, sheared so the ray is an axis) and the side of each edge the 2-D
//! cross product of its two projected vertices — exactly opposite for the two faces of an edge, and
//! around a shared vertex the projected faces tile the plane. (A first version used the 3-D triple
//! product `dir·((a−o)×(b−o))`; the tests caught rays through vertices slipping between all the faces,
//! because at a vertex every such value is rounding noise of one sign.)
//!
//! **Edits** (`insert_polygon`, `remove_polygon`): an inserted polygon's faces are appended and sorted
//! into the leaves they overlap, widening height ranges; an overflowing leaf is replaced by a subtree
//! built by the same code as the full build; a polygon outside the root rebuilds. A removed polygon's
//! faces are flagged and taken out of their leaves. Memory-mapped arrays are copied first
//! (copy-on-write). A property test compares every query after random edits with a fresh build.
//!
//! **Several terrains** (`TerrainSet`): parts with rigid poses that keep them upright (translate, turn
//! about the vertical), queried as one terrain — the paper's moving pieces with one quadtree each.
//!
//! **Curved frames** (`CurvedTerrain`, the paper's future directions): the same quadtree over
//! (longitude, latitude) around a planet's center, or (angle, axial position) around a station's axis.
//! Key boxes cover each face's vertices and points along its edges (padded for great-circle bulge); a
//! face across ±180° gets a box on each side, a face around a pole spans every longitude. The quadtree
//! only picks candidates; the answer is the exact crossing of the radial line with the face (the
//! watertight test), so seams and poles cost no accuracy. Their ray casts test every face whose box the
//! ray meets (O(n)): the key-space tree serves radial queries only.
//!
//! **Index files** (landfall-io `write_index` / `open_index`): the header (magic, version, lengths,
//! frame as gravity + rotation matrix bit for bit, local origin, root, parameters, section table, a data
//! checksum and a header checksum) and the seven arrays as they are in memory (the quick face records
//! the last), each on a 64-byte boundary.
//! Loading maps the file and views the arrays in place (`Flat<T>` over the map, alignment and bounds
//! checked), then validates every stored index: faces → vertex ranges, nodes → children after their
//! parent, reached exactly once, depth ≤ 40, leaf references → faces. A corrupt, truncated or hostile file
//! is an error, never a panic or an out-of-bounds read. `open_index_verified` (what the CLI uses) also
//! checks the data checksum; `open_index` skips that full read for speed. Writes go to a temporary file
//! in the target's directory, synced, then renamed.

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
