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

mod curved;
mod edit;
mod face;
mod jump;
mod layer;
mod order;
mod quadtree;
mod raycast;
mod seal;
mod soup;
mod stats;
mod terrain;
mod tolerance;
mod triangles;
mod vertical;

pub use curved::{CurvedFrame, CurvedTerrain};
pub use face::{quick_margin, Face, FaceGeom, QuickFace, EDGE_SLACK, MAX_FACE_VERTICES, REMOVED, VERTICAL};
pub use soup::PolygonSoup;
pub use quadtree::{CutRule, Node, QuadtreeParams, INLINE_REFS, INTERNAL, MAX_DEPTH_LIMIT, SINGLE_LAYER};
pub use stats::QuadtreeStats;
pub use tolerance::SURFACE_EPS;
pub use vertical::BATCH_LANES;

use crate::flat::Flat;
use crate::frame::Frame;
use crate::geom::Aabb;
use face::FaceSet;
use glam::DVec3;
use layer::Layering;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why a polygon terrain cannot be built or loaded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PolygonError {
    /// A vertex coordinate is NaN or infinite.
    #[error("polygon {polygon}, vertex {vertex}: coordinate is not finite")]
    NonFinite {
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
    /// `max_polys` is 0 or `max_depth` exceeds the limit.
    #[error("bad quadtree parameters: max_polys must be ≥ 1 and max_depth ≤ {MAX_DEPTH_LIMIT}")]
    BadParams,
    /// Stored arrays are inconsistent (a corrupt index file).
    #[error("corrupt polygon terrain: {0}")]
    Corrupt(String),
}

/// What the build did with the input: triangulated, vertical, degenerate and duplicate polygons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildReport {
    /// Input polygons.
    pub polygons: usize,
    /// Convex faces after triangulation.
    pub faces: usize,
    /// Polygons that were non-convex, self-overlapping or not planar, and were triangulated.
    pub triangulated: usize,
    /// Faces with zero area seen along gravity (ray casts only).
    pub vertical: usize,
    /// Polygons skipped: fewer than 3 distinct vertices or zero area.
    pub degenerate: usize,
    /// Polygons skipped because an identical polygon came earlier.
    pub duplicates: usize,
    /// The lowest (up to 8) input indices of skipped polygons, for the error message a user reads.
    pub examples: Vec<usize>,
}

impl BuildReport {
    /// Keeps `k` among the examples if it is one of the 8 lowest indices seen (polygons are not
    /// visited in input order).
    fn note_example(&mut self, k: u32) {
        let at = self.examples.partition_point(|&e| e < k as usize);
        if at < 8 {
            self.examples.insert(at, k as usize);
            self.examples.truncate(8);
        }
    }
    pub(crate) fn note_degenerate(&mut self, k: u32) {
        self.degenerate += 1;
        self.note_example(k);
    }
    pub(crate) fn note_triangulated(&mut self, _k: u32) {
        self.triangulated += 1;
    }
    pub(crate) fn note_duplicate(&mut self, k: u32) {
        self.duplicates += 1;
        self.note_example(k);
    }
    /// Adds the counts and examples of `other` (a report of later polygons).
    pub(crate) fn absorb(&mut self, other: BuildReport) {
        self.degenerate += other.degenerate;
        self.duplicates += other.duplicates;
        self.triangulated += other.triangulated;
        for k in other.examples {
            self.note_example(k as u32);
        }
    }

    /// One line per kind of trouble, empty when the input was clean.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.degenerate > 0 {
            w.push(format!(
                "{} degenerate polygon(s) skipped (fewer than 3 distinct vertices or no area)",
                self.degenerate
            ));
        }
        if self.duplicates > 0 {
            w.push(format!("{} duplicate polygon(s) skipped", self.duplicates));
        }
        if !w.is_empty() {
            w.push(format!("first skipped polygon indices: {:?}", self.examples));
        }
        w
    }
}

/// The flat arrays of a built terrain, owned or borrowed from an index file.
#[derive(Clone, Debug, Default)]
pub struct Arrays {
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
    /// How far edges are pushed outward ([`EDGE_SLACK`] × the input's extent), in local units.
    pub slack: f64,
}

/// A polygon terrain with its QOTA quadtree. See the [module docs](self).
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

/// Builder for [`PolygonTerrain`].
#[derive(Clone, Debug)]
pub struct PolygonTerrainBuilder {
    soup: PolygonSoup,
    frame: Frame,
    params: QuadtreeParams,
    align: bool,
}

impl PolygonTerrainBuilder {
    /// Adds a polygon (world coordinates, any vertex count, any winding).
    pub fn polygon(mut self, vertices: &[DVec3]) -> Self {
        self.soup.push(vertices);
        self
    }

    /// Adds many polygons.
    pub fn polygons<P: AsRef<[DVec3]>>(mut self, polygons: impl IntoIterator<Item = P>) -> Self {
        for p in polygons {
            self.soup.push(p.as_ref());
        }
        self
    }

    /// Adds an indexed triangle mesh (`triangles` index `vertices`); out-of-range indices make the
    /// triangle degenerate (reported, skipped).
    pub fn triangles(mut self, vertices: &[DVec3], triangles: &[[u32; 3]]) -> Self {
        if triangles.par_iter().all(|t| t.iter().all(|&k| (k as usize) < vertices.len())) {
            // Every index in range (the usual case): the corners are copied by all threads.
            self.soup.extend_triangles(vertices, triangles);
            return self;
        }
        for t in triangles {
            let get = |k: u32| vertices.get(k as usize).copied().unwrap_or(DVec3::ZERO);
            if t.iter().any(|&k| k as usize >= vertices.len()) {
                self.soup.push(&[]);
            } else {
                self.soup.push(&[get(t[0]), get(t[1]), get(t[2])]);
            }
        }
        self
    }

    /// Gravity frame (default Z up).
    pub fn frame(mut self, frame: Frame) -> Self {
        self.frame = frame;
        self
    }

    /// Quadtree parameters (default [`QuadtreeParams::default`]).
    pub fn params(mut self, params: QuadtreeParams) -> Self {
        self.params = params;
        self
    }

    /// Turn the quadtree's axes to the terrain's long axis when that shrinks its bounding rectangle
    /// by more than 10 % (QOTA's future directions). Answers do not change, only the tree. Default
    /// off: measured on a long diagonal strip, equal-quadrant cells of an aligned root keep the
    /// strip's aspect ratio and the tree got 8× bigger (`docs/benchmarks.md`).
    pub fn align_long_axis(mut self, align: bool) -> Self {
        self.align = align;
        self
    }

    /// Builds faces and quadtree.
    pub fn build(self) -> Result<PolygonTerrain, PolygonError> {
        PolygonTerrain::from_soup_aligned(&self.soup, self.frame, self.params, self.align)
    }
}

impl PolygonTerrain {
    /// A builder with no polygons, Z-up gravity and default parameters.
    pub fn builder() -> PolygonTerrainBuilder {
        PolygonTerrainBuilder {
            soup: PolygonSoup::new(),
            frame: Frame::z_up(),
            params: QuadtreeParams::default(),
            align: false,
        }
    }

    /// Builds a terrain from a polygon soup.
    pub fn from_soup(soup: &PolygonSoup, frame: Frame, params: QuadtreeParams) -> Result<Self, PolygonError> {
        Self::from_soup_aligned(soup, frame, params, false)
    }

    /// [`PolygonTerrain::from_soup`], choosing whether to align the axes to the long axis.
    pub fn from_soup_aligned(
        soup: &PolygonSoup,
        frame: Frame,
        params: QuadtreeParams,
        align: bool,
    ) -> Result<Self, PolygonError> {
        if params.max_polys == 0 || params.max_depth > MAX_DEPTH_LIMIT {
            return Err(PolygonError::BadParams);
        }
        if soup.points.len() >= u32::MAX as usize / 2 || soup.len() >= u32::MAX as usize / 2 {
            return Err(PolygonError::TooLarge);
        }
        // Whether any point is bad, by all threads; which one only then (rayon's `position_first`
        // took three times as long as a serial scan, 30–45 ms against 12 ms for 3M points).
        let bad = soup.points.par_iter().with_min_len(1 << 16).any(|p| !p.is_finite());
        if let Some(k) = bad.then(|| soup.points.iter().position(|p| !p.is_finite())).flatten() {
            let polygon = soup.starts.partition_point(|&s| s <= k) - 1;
            return Err(PolygonError::NonFinite { polygon, vertex: k - soup.starts[polygon] });
        }
        let world =
            soup.points.par_iter().fold(|| Aabb::EMPTY, |b, &p| b.grown(p)).reduce(|| Aabb::EMPTY, |a, b| a.union(&b));
        let center = if world.is_empty() { DVec3::ZERO } else { (world.min + world.max) * 0.5 };
        let extent = if world.is_empty() { 0.0 } else { (world.max - world.min).max_element() };
        let frame = if align { aligned(frame, center, &soup.points) } else { frame };
        let to_local = move |p: DVec3| frame.to_local(p - center);
        let slack = EDGE_SLACK * extent;
        let duplicate = duplicates(soup);
        let order = order::spatial_order(soup, &to_local);
        let (set, mut report) = if soup.starts.windows(2).all(|w| w[1] - w[0] == 3) {
            FaceSet::from_triangles(soup, &order, &duplicate, &to_local, slack)
        } else {
            FaceSet::from_polygons(soup, &order, &duplicate, &to_local, slack)?
        };
        report.polygons = soup.len();
        report.faces = set.faces.len();
        let (quick, vertical) = quick_faces(&set.faces);
        report.vertical = vertical;
        if set.faces.is_empty() {
            return Err(PolygonError::Empty(format!(
                "{} polygon(s) given, {} degenerate, {} duplicate",
                soup.len(),
                report.degenerate,
                report.duplicates
            )));
        }
        let header = Header { frame, center, root: [0.0; 4], params, polygons: soup.len() as u32, slack };
        let mut terrain = Self {
            header,
            arrays: Arrays::default(),
            report,
            jump: None,
            margin: 0.0,
            by_source: Vec::new(),
            validated: true,
        };
        terrain.arrays.quick = quick.into();
        terrain.arrays.faces = set.faces.into();
        terrain.arrays.geoms = set.geoms.into();
        terrain.arrays.verts = set.verts.into();
        terrain.arrays.edges = set.edges.into();
        terrain.rebuild_quadtree()?;
        Ok(terrain)
    }

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

    /// Reassembles a terrain from stored parts (an index file), checking every stored index
    /// (O(n): faces → vertices, nodes → children, leaves → faces).
    pub fn from_parts(header: Header, arrays: Arrays) -> Result<Self, PolygonError> {
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
    pub fn from_parts_unchecked(header: Header, arrays: Arrays) -> Result<Self, PolygonError> {
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

    /// Frame, local origin, root box and parameters.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The flat arrays (faces, vertices, edges, nodes, references).
    pub fn arrays(&self) -> &Arrays {
        &self.arrays
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

/// `frame` turned about gravity so the smallest rectangle around the points (seen along gravity) is
/// axis-aligned — when that shrinks the rectangle by more than 10 %; else `frame` itself. The
/// rectangle is found by rotating calipers on the convex hull of (up to 65,536 sampled) points.
fn aligned(frame: Frame, center: DVec3, points: &[DVec3]) -> Frame {
    let step = points.len().div_ceil(65_536).max(1);
    let mut xy: Vec<[f64; 2]> =
        points.iter().step_by(step).map(|&p| frame.to_local(p - center)).map(|l| [l.x, l.y]).collect();
    xy.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    xy.dedup();
    if xy.len() < 3 {
        return frame;
    }
    // Monotone chain hull.
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * xy.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> =
            if pass == 0 { Box::new(xy.iter()) } else { Box::new(xy.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    let area = |theta: f64| {
        let (c, s) = (theta.cos(), theta.sin());
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in &hull {
            let (u, v) = (c * p[0] + s * p[1], -s * p[0] + c * p[1]);
            lo = [lo[0].min(u), lo[1].min(v)];
            hi = [hi[0].max(u), hi[1].max(v)];
        }
        (hi[0] - lo[0]) * (hi[1] - lo[1])
    };
    let n = hull.len();
    let best = (0..n)
        .map(|k| {
            let (a, b) = (hull[k], hull[(k + 1) % n]);
            (b[1] - a[1]).atan2(b[0] - a[0])
        })
        .map(|t| (area(t), t))
        .fold((area(0.0), 0.0), |m, x| if x.0 < m.0 { x } else { m });
    if best.0.partial_cmp(&(0.9 * area(0.0))) != Some(std::cmp::Ordering::Less) {
        return frame;
    }
    let yaw = glam::DMat3::from_rotation_z(-best.1);
    Frame::from_rotation(frame.down(), yaw * frame.rotation()).unwrap_or(frame)
}

/// Marks every polygon whose vertex set equals that of an earlier polygon: order-free hashes of
/// the vertex bits ([`set_hash`]), sorted, polygons in a group of equal (truncated) hashes
/// compared exactly.
fn duplicates(soup: &PolygonSoup) -> Vec<bool> {
    duplicates_grouped(soup, 32)
}

/// [`duplicates`] with polygons grouped by the low `bits` bits of their hashes.
fn duplicates_grouped(soup: &PolygonSoup, bits: u32) -> Vec<bool> {
    let vertex_bits = |p: &DVec3| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
    let sorted_bits = |k: usize| {
        let mut b: Vec<[u64; 3]> = soup.polygon(k).iter().map(vertex_bits).collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let mut keys: Vec<(u64, u32)> = (0..soup.len())
        .into_par_iter()
        .map(|k| {
            let poly = soup.polygon(k);
            if poly.len() == 3 {
                // The hash is order-free: a triangle's corners need no sorting, whose comparisons
                // went as randomly as the corners.
                let v: [[u64; 3]; 3] = std::array::from_fn(|i| vertex_bits(&poly[i]));
                // Degenerate: never grouped with a true triangle.
                let degenerate = (v[0] == v[1]) | (v[1] == v[2]) | (v[0] == v[2]);
                return (set_hash(&v) ^ u64::from(degenerate), k as u32);
            }
            (set_hash(&sorted_bits(k)), k as u32)
        })
        .collect();
    // Grouped by the hash's low `bits` bits only (32: half the radix sort's passes): a group may
    // then hold polygons whose hashes differ, which the exact comparison below tells apart.
    keys.iter_mut().for_each(|key| key.0 &= (1u64 << bits) - 1);
    order::sort_keyed(&mut keys);
    let mut dup = vec![false; soup.len()];
    for run in keys.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
        let sets: Vec<Vec<[u64; 3]>> = run.iter().map(|&(_, k)| sorted_bits(k as usize)).collect();
        for i in 1..run.len() {
            if sets[..i].iter().any(|s| s == &sets[i] && s.len() >= 3) {
                dup[run[i].1 as usize] = true;
            }
        }
    }
    dup
}

/// A hash of a set of vertices (their bits) for grouping candidate duplicates: equal hashes are
/// compared exactly, so it needs to spread, not to resist attacks. Order-free: the wrapping sum of
/// the vertices' hashes (the sealing's [`seal::vertex_hash`]), mixed with the count.
fn set_hash(vertices: &[[u64; 3]]) -> u64 {
    let sum = vertices.iter().fold(vertices.len() as u64, |s, &v| s.wrapping_add(seal::vertex_hash(v)));
    crate::rng::mix(sum)
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

/// The quick records of `faces`, and how many of them are vertical: one parallel pass over the
/// faces (they are read once, which matters for a million of them).
fn quick_faces(faces: &[Face]) -> (Vec<QuickFace>, usize) {
    let vertical = AtomicUsize::new(0);
    let quick = faces
        .par_iter()
        .with_min_len(4096)
        .map(|f| {
            if f.flags & VERTICAL != 0 {
                vertical.fetch_add(1, Ordering::Relaxed);
            }
            QuickFace::of(f)
        })
        .collect();
    (quick, vertical.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Duplicates are the polygons whose vertex set (bit for bit) an earlier one has, whatever the
    /// vertex order, degenerate ones never: against a plain set of sorted vertex sets, with groups
    /// of 32-bit hashes and with groups of 3-bit hashes, where most polygons in a group differ.
    #[test]
    fn duplicates_are_repeated_vertex_sets() {
        let mut rng = crate::rng::SplitMix64::new(4);
        let mut soup = PolygonSoup::new();
        let point = |rng: &mut crate::rng::SplitMix64| {
            DVec3::new(rng.range(0.0, 3.0).round(), rng.range(0.0, 3.0).round(), rng.range(0.0, 1.0).round())
        };
        for k in 0..3000 {
            let n = 3 + k % 2;
            let mut p: Vec<DVec3> = (0..n).map(|_| point(&mut rng)).collect();
            if k % 7 == 0 && !soup.is_empty() {
                // An earlier polygon's vertices, rotated.
                p = soup.polygon((rng.next_u64() % soup.len() as u64) as usize).to_vec();
                p.rotate_left(1);
            }
            soup.push(&p);
        }
        let mut seen = std::collections::HashSet::new();
        let want: Vec<bool> = (0..soup.len())
            .map(|k| {
                let mut v: Vec<[u64; 3]> =
                    soup.polygon(k).iter().map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]).collect();
                v.sort_unstable();
                v.dedup();
                v.len() >= 3 && !seen.insert(v)
            })
            .collect();
        assert!(want.iter().filter(|&&d| d).count() > 300);
        assert_eq!(duplicates(&soup), want);
        assert_eq!(duplicates_grouped(&soup, 3), want);
    }
}
