//! Input polygons → convex faces in the local frame: QOTA's polygon record (2-D bounding box, 2-D
//! edge equations, plane), with non-convex and non-planar polygons triangulated.

use super::{BuildReport, PolygonError};
use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3};
use rayon::prelude::*;

/// Face flag: zero area seen along gravity; kept for ray casts, left out of vertical queries.
pub const VERTICAL: u16 = 1;
/// Face flag: removed by an edit; referenced by no leaf.
pub const REMOVED: u16 = 2;

/// A convex face in the local frame (gravity −Z): the exact containment test and plane — height
/// plane (the normal follows from it), the first three edge equations (all of a triangle's), a
/// bounding box for quick rejection, the source polygon — in two adjacent cache lines (128 bytes).
/// Vertical queries read the face's [`QuickFace`] first, and this record only near an edge or for a
/// face that is not a ground triangle. The rest of QOTA's Table 1 record is in [`FaceGeom`].
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Face {
    /// Height plane `z = a·x + b·y + c` as `[a, b, c]` (zeros for vertical faces).
    pub slope: [f64; 3],
    /// Edge equations 0..3 `[A, B, C]` (`A·x + B·y + C ≥ 0` inside): a triangle's all, the first
    /// three of a larger face (whose `count` equations are all in the terrain's edge array from
    /// `more_edges`).
    pub edges: [[f64; 3]; 3],
    /// 2-D bounding box `[x0, y0, x1, y1]` (as [`FaceGeom::bbox`]) rounded outward to f32, for
    /// quick rejection.
    pub bbox: [f32; 4],
    /// First vertex of the face in the terrain's vertex array.
    pub first: u32,
    /// Number of vertices (and edge equations).
    pub count: u16,
    /// [`VERTICAL`], [`REMOVED`].
    pub flags: u16,
    /// Index of the input polygon the face came from (as in [`FaceGeom::source`]), so that a
    /// vertical query answers from this record alone.
    pub source: u32,
    /// First of the face's edge equations in the terrain's edge array when it has more than three
    /// vertices; zero for a triangle, whose equations are only in `edges`.
    pub more_edges: u32,
}

/// What ray casts, the quadtree build and reports need of a face besides [`Face`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct FaceGeom {
    /// 2-D bounding box `[x0, y0, x1, y1]` of the vertices grown by the edge slack (so that it
    /// holds every point the face's edge equations take in), local frame.
    pub bbox: [f64; 4],
    /// Unit normal, local frame, pointing up (z ≥ 0).
    pub normal: [f64; 3],
    /// `normal · v` for any vertex v of the face.
    pub d: f64,
    /// Height range `[z_min, z_max]` of the vertices.
    pub z: [f64; 2],
    /// Index of the input polygon the face came from.
    pub source: u32,
    /// Unused, zero.
    pub pad: u32,
}

const _: () = assert!(std::mem::size_of::<Face>() == 128, "a face record is two cache lines");

/// Most vertices a convex face may have (larger polygons are triangulated).
pub const MAX_FACE_VERTICES: usize = u16::MAX as usize;

impl Face {
    /// The record with `more_edges` moved by `base` (for faces that have them), for when its
    /// edge equations move in the edge array.
    #[inline]
    pub(crate) fn with_edges_moved(self, base: u32) -> Self {
        let more_edges = if self.count > 3 { self.more_edges + base } else { self.more_edges };
        Self { more_edges, ..self }
    }

    /// True when the face takes part in vertical queries.
    #[inline]
    pub fn is_ground(&self) -> bool {
        self.flags & (VERTICAL | REMOVED) == 0
    }

    /// All of the face's edge equations: its own three for a triangle, else its run of `edges` (the
    /// terrain's edge array); `None` when the run is out of bounds (a corrupt file).
    #[inline]
    pub fn edge_equations<'a>(&'a self, edges: &'a [[f64; 3]]) -> Option<&'a [[f64; 3]]> {
        if self.count == 3 {
            Some(&self.edges)
        } else {
            edges.get(self.more_edges as usize..self.more_edges as usize + self.count as usize)
        }
    }

    /// Upward unit normal of the face's height plane, local frame (vertical faces have none: +Z).
    #[inline]
    pub fn up_normal(&self) -> DVec3 {
        up_normal(&self.slope)
    }

    /// Height of the face's plane at local (x, y).
    #[inline]
    pub fn height(&self, x: f64, y: f64) -> f64 {
        height(&self.slope, x, y)
    }
}

/// Height of the plane `z = a·x + b·y + c` (`slope = [a, b, c]`) at (x, y).
#[inline(always)]
fn height(slope: &[f64; 3], x: f64, y: f64) -> f64 {
    slope[0] * x + slope[1] * y + slope[2]
}

/// Upward unit normal of the plane `z = a·x + b·y + c`.
#[inline(always)]
fn up_normal(slope: &[f64; 3]) -> DVec3 {
    DVec3::new(-slope[0], -slope[1], 1.0).normalize()
}

/// What a vertical query reads of a face, in one cache line: the exact height plane and source
/// polygon of [`Face`], and for a ground triangle its three edge equations scaled to `|A| + |B| = 1`
/// and rounded to f32. Those decide whether a point is inside except within a margin of an edge
/// ([`QuickFace::inside`]); there, and for every other face (more than three vertices, vertical,
/// removed: their equations are left zero), the exact test of [`Face`] decides. Derived from the
/// face record by [`QuickFace::of`] alone, so it can be checked against it.
///
/// The coefficients are stored by kind (the three A, then the three B, then the three C), so that
/// [`sides`](QuickFace::sides) tests the three edges in the lanes of one vector.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct QuickFace {
    /// The face's height plane, as [`Face::slope`].
    pub slope: [f64; 3],
    /// Edge equations `[A, B, C]` of a ground triangle divided by `|A| + |B|`, rounded to f32, by
    /// kind: `coefs[0]` the three A, `coefs[1]` the three B, `coefs[2]` the three C ([`edges`]
    /// gives them by edge); zeros for any other face.
    ///
    /// [`edges`]: QuickFace::edges
    pub coefs: [[f32; 3]; 3],
    /// Index of the input polygon the face came from.
    pub source: u32,
}

const _: () = assert!(std::mem::size_of::<QuickFace>() == 64, "a quick face record is one cache line");

/// Rows to columns: edge by edge ↔ coefficient by kind (the layout of [`QuickFace::coefs`]).
#[inline(always)]
fn transpose([a, b, c]: [[f32; 3]; 3]) -> [[f32; 3]; 3] {
    [[a[0], b[0], c[0]], [a[1], b[1], c[1]], [a[2], b[2], c[2]]]
}

/// Where [`QuickFace::coefs`] starts, in f32 words from the start of the record.
#[cfg(target_arch = "x86_64")]
const COEFS_AT: usize = std::mem::offset_of!(QuickFace, coefs) / 4;

impl QuickFace {
    /// The record of face `f`.
    pub fn of(f: &Face) -> Self {
        let mut q = QuickFace { slope: f.slope, coefs: [[0.0; 3]; 3], source: f.source };
        if f.count == 3 && f.is_ground() {
            let scaled = f.edges.map(|[a, b, c]| {
                let s = a.abs() + b.abs();
                [a / s, b / s, c / s]
            });
            // The error bound of `inside` needs |C| within 1.5× the size of the face's coordinates
            // (it is at most their size, up to rounding, for an edge through its vertices).
            let size = f.bbox.iter().fold(0.0f64, |m, &v| m.max((v as f64).abs()));
            if scaled.iter().all(|e| e.iter().all(|v| v.is_finite()) && e[2].abs() <= 1.5 * size) {
                q.coefs = transpose(scaled.map(|e| e.map(|v| v as f32)));
            }
        }
        q
    }

    /// Whether local (x, y) — given rounded to f32 as `x32`, `y32` — is inside the face: `Some`
    /// when every scaled edge value is beyond `margin` one way or the other (one outside suffices),
    /// `None` when one is within it (or the equations are zero) and the exact test must decide.
    ///
    /// Why the answer is the exact test's: for a point inside the root rectangle, whose coordinates
    /// are at most `W` in size, with `|A| + |B| = 1` and `|C| ≤ 1.5·W` (see [`QuickFace::of`]), the
    /// f32 value differs from the exact scaled one by at most `8.001·2⁻²⁴·W` (rounding of the three
    /// coefficients, of x and y, of two products and two sums), and the f64 test's own rounding is
    /// far below that; [`quick_margin`] is `16·2⁻²⁴·W`.
    #[inline(always)]
    pub fn inside(&self, x32: f32, y32: f32, margin: f32) -> Option<bool> {
        match self.sides(x32, y32, margin) {
            (true, _) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        }
    }

    /// [`inside`](Self::inside) as two flags: every edge value above `margin` (inside), and one
    /// below `-margin` (outside); neither for the exact test.
    ///
    /// On x86-64 the three edges are the first three lanes of one SSE vector (the fourth, the next
    /// word of the record, is dropped): the same IEEE operations in the same order per edge.
    #[inline(always)]
    pub fn sides(&self, x32: f32, y32: f32, margin: f32) -> (bool, bool) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            let [a, b, c] = self.coef_vectors();
            // SAFETY: SSE is part of every x86-64 target, so these intrinsics are always available.
            unsafe {
                // The fourth lane (the next word of the record: the source index) zeroed: never a
                // subnormal operand.
                let c = _mm_and_ps(c, _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0)));
                let ax = _mm_mul_ps(a, _mm_set1_ps(x32));
                let e = _mm_add_ps(_mm_add_ps(ax, _mm_mul_ps(b, _mm_set1_ps(y32))), c);
                let above = _mm_movemask_ps(_mm_cmpgt_ps(e, _mm_set1_ps(margin))) & 7;
                let below = _mm_movemask_ps(_mm_cmplt_ps(e, _mm_set1_ps(-margin))) & 7;
                (above == 7, below != 0)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let e = self.edges().map(|[a, b, c]| a * x32 + b * y32 + c);
            (
                (e[0] > margin) & (e[1] > margin) & (e[2] > margin),
                (e[0] < -margin) | (e[1] < -margin) | (e[2] < -margin),
            )
        }
    }

    /// The scaled edge equations `[A, B, C]`, edge by edge.
    #[inline(always)]
    pub fn edges(&self) -> [[f32; 3]; 3] {
        transpose(self.coefs)
    }

    /// The coefficients as three vectors, `[A0, A1, A2, ·]`, `[B0, B1, B2, ·]`, `[C0, C1, C2, ·]`
    /// (the fourth lane is the record's next word).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn coef_vectors(&self) -> [std::arch::x86_64::__m128; 3] {
        use std::arch::x86_64::_mm_loadu_ps;
        let words: &[f32; 16] = bytemuck::cast_ref(self);
        let (a, b, c) = (&words[COEFS_AT..], &words[COEFS_AT + 3..], &words[COEFS_AT + 6..]);
        // SAFETY: SSE is part of every x86-64 target; each load reads four words of `words` (the
        // last one, of the C's, ends at the record's end).
        unsafe { [_mm_loadu_ps(a.as_ptr()), _mm_loadu_ps(b.as_ptr()), _mm_loadu_ps(c.as_ptr())] }
    }

    /// [`inside`](Self::inside) for four points at once (lane k: `x[k]`, `y[k]`, already rounded
    /// to f32): bit k of the first mask says the record puts point k inside, of the second outside;
    /// a point in neither is for the exact test. Four SSE lanes on x86-64, the same IEEE operations
    /// in the same order as `inside`, so the same answers.
    #[inline(always)]
    pub(crate) fn inside4(&self, x: [f32; 4], y: [f32; 4], margin: f32) -> (u32, u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE is part of every x86-64 target, so these intrinsics are always available.
            unsafe {
                let (xs, ys) = (_mm_loadu_ps(x.as_ptr()), _mm_loadu_ps(y.as_ptr()));
                let (above, below) = (_mm_set1_ps(margin), _mm_set1_ps(-margin));
                let (mut inside, mut outside) = (_mm_castsi128_ps(_mm_set1_epi32(-1)), _mm_setzero_ps());
                for [a, b, c] in self.edges() {
                    let ax = _mm_mul_ps(_mm_set1_ps(a), xs);
                    let v = _mm_add_ps(_mm_add_ps(ax, _mm_mul_ps(_mm_set1_ps(b), ys)), _mm_set1_ps(c));
                    inside = _mm_and_ps(inside, _mm_cmpgt_ps(v, above));
                    outside = _mm_or_ps(outside, _mm_cmplt_ps(v, below));
                }
                (_mm_movemask_ps(inside) as u32, _mm_movemask_ps(outside) as u32)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            (0..4).fold((0, 0), |(i, o), k| match self.inside(x[k], y[k], margin) {
                Some(true) => (i | 1 << k, o),
                Some(false) => (i, o | 1 << k),
                None => (i, o),
            })
        }
    }

    /// For the four quadrants of a node (lane k: x from `x[0][k]` to `x[1][k]`, y from `y[0][k]` to
    /// `y[1][k]`, corners rounded to f32, inside the root rectangle): bit k of the first mask says
    /// no edge of the record has the quadrant outside, of the second that one has it wholly
    /// outside; a quadrant in neither is for the exact test.
    ///
    /// Per edge, the largest value over a quadrant's corners (the larger product along each axis,
    /// then the same two sums as [`inside`](Self::inside)) is the f32 value at one corner, and no
    /// smaller than the f32 value at the corner where the exact value is largest (rounding is
    /// monotone): so it is within `inside`'s error bound of the exact largest value, and the same
    /// margin decides.
    #[inline(always)]
    pub(crate) fn quadrants(&self, x: [[f32; 4]; 2], y: [[f32; 4]; 2], margin: f32) -> (u32, u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE is part of every x86-64 target, so these intrinsics are always available.
            unsafe {
                let (x0, x1) = (_mm_loadu_ps(x[0].as_ptr()), _mm_loadu_ps(x[1].as_ptr()));
                let (y0, y1) = (_mm_loadu_ps(y[0].as_ptr()), _mm_loadu_ps(y[1].as_ptr()));
                let (above, below) = (_mm_set1_ps(margin), _mm_set1_ps(-margin));
                let (mut kept, mut outside) = (_mm_castsi128_ps(_mm_set1_epi32(-1)), _mm_setzero_ps());
                for [a, b, c] in self.edges() {
                    let (a, b) = (_mm_set1_ps(a), _mm_set1_ps(b));
                    let ax = _mm_max_ps(_mm_mul_ps(a, x0), _mm_mul_ps(a, x1));
                    let by = _mm_max_ps(_mm_mul_ps(b, y0), _mm_mul_ps(b, y1));
                    let v = _mm_add_ps(_mm_add_ps(ax, by), _mm_set1_ps(c));
                    kept = _mm_and_ps(kept, _mm_cmpgt_ps(v, above));
                    outside = _mm_or_ps(outside, _mm_cmplt_ps(v, below));
                }
                (_mm_movemask_ps(kept) as u32, _mm_movemask_ps(outside) as u32)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let larger = |p: f32, q: f32| if p > q { p } else { q };
            (0..4).fold((0, 0), |(kept, outside), k| {
                let v = self
                    .edges()
                    .map(|[a, b, c]| larger(a * x[0][k], a * x[1][k]) + larger(b * y[0][k], b * y[1][k]) + c);
                let all_above = v.iter().all(|&v| v > margin);
                let any_below = v.iter().any(|&v| v < -margin);
                (kept | u32::from(all_above) << k, outside | u32::from(any_below) << k)
            })
        }
    }

    /// Height of the face's plane at local (x, y), as [`Face::height`].
    #[inline]
    pub fn height(&self, x: f64, y: f64) -> f64 {
        height(&self.slope, x, y)
    }

    /// Upward unit normal of the face's height plane, as [`Face::up_normal`].
    #[inline]
    pub fn up_normal(&self) -> DVec3 {
        up_normal(&self.slope)
    }
}

/// The margin of [`QuickFace::inside`] for points in the root rectangle `root` (local frame):
/// `2⁻²⁰·W`, `W` the largest coordinate size in it, rounded up; never zero.
pub fn quick_margin(root: [f64; 4]) -> f32 {
    let w = root.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    ((w * 2f64.powi(-20)) as f32).next_up().max(f32::MIN_POSITIVE)
}

/// Does face `f` contain local (x, y) seen along gravity? Bounding box, then the edge equations
/// (closed): the first three from the face record itself, any further ones from `edges`. False for
/// faces left out of vertical queries.
#[inline]
pub(crate) fn contains(f: &Face, edges: &[[f64; 3]], x: f64, y: f64) -> bool {
    let b = f.bbox;
    // One branch for the box, the flags and the first three edges (all evaluated: cheaper than a
    // branch each, as the compiler pairs them in vector registers).
    let in_box = (x >= b[0] as f64) & (x <= b[2] as f64) & (y >= b[1] as f64) & (y <= b[3] as f64);
    let inside = |e: &[f64; 3]| e[0] * x + e[1] * y + e[2] >= 0.0;
    let first3 = inside(&f.edges[0]) & inside(&f.edges[1]) & inside(&f.edges[2]);
    (in_box & f.is_ground() & first3)
        && (f.count <= 3
            || edges
                .get(f.more_edges as usize + 3..f.more_edges as usize + f.count as usize)
                .is_some_and(|e| e.iter().all(inside)))
}

/// Vertices of the input polygons, kept flat: polygon k is `points[starts[k]..starts[k + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct PolygonSoup {
    /// All vertices, world coordinates.
    pub points: Vec<DVec3>,
    /// Start of each polygon in `points`, plus the end.
    pub starts: Vec<usize>,
}

impl PolygonSoup {
    /// An empty soup.
    pub fn new() -> Self {
        Self { points: Vec::new(), starts: vec![0] }
    }

    /// Appends a polygon.
    pub fn push(&mut self, polygon: &[DVec3]) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.points.extend_from_slice(polygon);
        self.starts.push(self.points.len());
    }

    /// Appends the triangles `triangles` (indices into `vertices`, which the caller has checked),
    /// copied by all threads.
    pub(crate) fn extend_triangles(&mut self, vertices: &[DVec3], triangles: &[[u32; 3]]) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let base = self.points.len();
        let corner = |i: usize| vertices.get(triangles[i / 3][i % 3] as usize).copied().unwrap_or_default();
        self.points.par_extend((0..3 * triangles.len()).into_par_iter().with_min_len(4096).map(corner));
        self.starts.par_extend((1..triangles.len() + 1).into_par_iter().with_min_len(4096).map(|k| base + 3 * k));
    }

    /// Number of polygons.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when there is no polygon.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Polygon `k`.
    pub fn polygon(&self, k: usize) -> &[DVec3] {
        &self.points[self.starts[k]..self.starts[k + 1]]
    }
}

/// Faces, vertices and edge equations (of faces of more than three vertices) under construction.
#[derive(Clone, Debug, Default)]
pub(crate) struct FaceSet {
    pub faces: Vec<Face>,
    pub geoms: Vec<FaceGeom>,
    pub verts: Vec<[f64; 3]>,
    pub edges: Vec<[f64; 3]>,
}

impl FaceSet {
    /// An empty set with room for `faces` faces of `vertices` vertices in all.
    pub fn with_capacity(faces: usize, vertices: usize) -> Self {
        Self {
            faces: Vec::with_capacity(faces),
            geoms: Vec::with_capacity(faces),
            verts: Vec::with_capacity(vertices),
            edges: Vec::new(),
        }
    }

    /// The faces of every polygon of `soup` but the `duplicate` ones, polygons taken in `order` (a
    /// permutation of their indices), with what the build met. Made in parallel chunks of
    /// polygons, then concatenated.
    pub fn from_polygons(
        soup: &PolygonSoup,
        order: &[u32],
        duplicate: &[bool],
        to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
        slack: f64,
    ) -> Result<(Self, BuildReport), PolygonError> {
        const CHUNK: usize = 8192;
        let chunks: Vec<Result<(FaceSet, BuildReport), PolygonError>> = order
            .par_chunks(CHUNK)
            .map(|chunk| {
                // Room for the polygons as they come (one face each, unless triangulated).
                let vertices = chunk.iter().map(|&k| soup.polygon(k as usize).len()).sum();
                let mut set = FaceSet::with_capacity(chunk.len(), vertices);
                let mut report = BuildReport::default();
                let mut scratch = Vec::new();
                for &k in chunk {
                    if duplicate[k as usize] {
                        report.note_duplicate(k);
                    } else {
                        add_polygon(k, soup.polygon(k as usize), to_local, slack, &mut set, &mut report, &mut scratch)?;
                    }
                }
                Ok((set, report))
            })
            .collect();
        let chunks = chunks.into_iter().collect::<Result<Vec<_>, _>>()?;
        let (parts, reports): (Vec<FaceSet>, Vec<BuildReport>) = chunks.into_iter().unzip();
        let mut report = BuildReport::default();
        reports.into_iter().for_each(|r| report.absorb(r));
        Ok((Self::concat(&parts), report))
    }

    /// [`FaceSet::from_polygons`] for a soup of triangles only (every TIN): one face per triangle,
    /// written by all threads straight into the final arrays (no chunks to concatenate). A
    /// duplicate or degenerate triangle leaves an empty record there, which a serial pass then
    /// removes (rare in practice).
    pub fn from_triangles(
        soup: &PolygonSoup,
        order: &[u32],
        duplicate: &[bool],
        to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
        slack: f64,
    ) -> (Self, BuildReport) {
        let empty = || (Face::zeroed(), FaceGeom::zeroed(), [[0.0; 3]; 3]);
        let (faces, (geoms, verts)): TriangleColumns = order
            .par_iter()
            .with_min_len(1024)
            .enumerate()
            .map(|(i, &k)| {
                // The polygons are read in spatial order, not in memory order: fetch the corners of
                // one a few steps ahead (every polygon has three, so polygon k's are at 3k).
                if let Some(&ahead) = order.get(i + PREFETCH_AHEAD) {
                    let corners = soup.points.as_ptr().wrapping_add(3 * ahead as usize);
                    crate::geom::prefetch_ptr(corners);
                    crate::geom::prefetch_ptr(corners.wrapping_add(2));
                }
                let p = soup.polygon(k as usize);
                let first = 3 * i as u32;
                let records = if duplicate[k as usize] {
                    None
                } else {
                    triangle_records(k, [p[0], p[1], p[2]], to_local, slack, first)
                };
                let (face, geom, verts) = records.unwrap_or_else(empty);
                (face, (geom, verts))
            })
            .unzip();
        // Three corners to a record: the same bytes, as arrays of one each (a cast that cannot
        // fail: same alignment, and any byte length divides by one corner's). Triangles keep their
        // edge equations in their face records alone.
        let mut set = Self { faces, geoms, verts: bytemuck::cast_vec(verts), edges: Vec::new() };
        let mut report = BuildReport::default();
        // An empty record has no vertices (a face has at least three).
        if set.faces.par_iter().any(|f| f.count == 0) {
            for (&k, f) in order.iter().zip(&set.faces) {
                if f.count == 0 {
                    if duplicate[k as usize] {
                        report.note_duplicate(k);
                    } else {
                        report.note_degenerate(k);
                    }
                }
            }
            set.remove_empty();
        }
        (set, report)
    }

    /// Removes the empty records [`FaceSet::from_triangles`] left (three vertices each), moving
    /// each face's `first` to where its vertices go.
    fn remove_empty(&mut self) {
        let keep: Vec<usize> = (0..self.faces.len()).filter(|&k| self.faces[k].count != 0).collect();
        let triples = |a: &[[f64; 3]]| keep.iter().flat_map(|&k| a[3 * k..3 * k + 3].iter().copied()).collect();
        *self = Self {
            faces: keep.iter().enumerate().map(|(i, &k)| Face { first: 3 * i as u32, ..self.faces[k] }).collect(),
            geoms: keep.iter().map(|&k| self.geoms[k]).collect(),
            verts: triples(&self.verts),
            edges: std::mem::take(&mut self.edges),
        };
    }

    /// The parts one after the other (each face's `first` and `more_edges` moved past the
    /// vertices and equations before its part), copied by all threads: the page faults of the new
    /// arrays, which cost more than the copy, are then taken by all of them, not one. (No zeroing
    /// first: a face record's 64-byte alignment would make that a serial `memset`.)
    pub fn concat(parts: &[FaceSet]) -> Self {
        let bases = |len: fn(&FaceSet) -> usize| -> Vec<u32> {
            parts
                .iter()
                .scan(0u32, |base, p| {
                    *base += len(p) as u32;
                    Some(*base - len(p) as u32)
                })
                .collect()
        };
        let (vertex_bases, edge_bases) = (bases(|p| p.verts.len()), bases(|p| p.edges.len()));
        let rebase = |k: usize, f: Face| Face { first: f.first + vertex_bases[k], ..f.with_edges_moved(edge_bases[k]) };
        Self {
            faces: concat_parallel(parts, |p| &p.faces, rebase),
            geoms: concat_parallel(parts, |p| &p.geoms, |_, g| g),
            verts: concat_parallel(parts, |p| &p.verts, |_, v| v),
            edges: concat_parallel(parts, |p| &p.edges, |_, e| e),
        }
    }
}

/// The arrays `array(part)` of `parts` one after the other, each element passed through `fix`
/// with its part's index; each part copied in parallel (see [`FaceSet::concat`]).
fn concat_parallel<T: Pod + Send + Sync>(
    parts: &[FaceSet],
    array: impl Fn(&FaceSet) -> &Vec<T>,
    fix: impl Fn(usize, T) -> T + Sync,
) -> Vec<T> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| array(p).len()).sum());
    for (k, part) in parts.iter().enumerate() {
        out.par_extend(array(part).par_iter().with_min_len(1024).map(|&x| fix(k, x)));
    }
    out
}

/// How many polygons ahead [`FaceSet::from_triangles`] fetches the corners of.
const PREFETCH_AHEAD: usize = 12;

/// Relative distance (of the terrain's extent) by which edges are pushed outward, so points on a
/// polygon's boundary count as inside despite rounding of the local transform.
pub const EDGE_SLACK: f64 = 1e-12;

/// Turns input polygon `source` (world vertices) into convex faces appended to `out`.
pub(crate) fn add_polygon(
    source: u32,
    world: &[DVec3],
    to_local: &dyn Fn(DVec3) -> DVec3,
    slack: f64,
    out: &mut FaceSet,
    report: &mut BuildReport,
    scratch: &mut Vec<DVec3>,
) -> Result<(), PolygonError> {
    if let Some(v) = world.iter().position(|v| !v.is_finite()) {
        return Err(PolygonError::NonFinite { polygon: source as usize, vertex: v });
    }
    // Distinct consecutive vertices, closing vertex dropped.
    scratch.clear();
    for &v in world {
        if scratch.last() != Some(&v) {
            scratch.push(v);
        }
    }
    while scratch.len() > 1 && scratch.first() == scratch.last() {
        scratch.pop();
    }
    let Some((normal, extent)) = area_normal(scratch) else {
        report.note_degenerate(source);
        return Ok(());
    };
    if scratch.len() == 3 {
        // A triangle: planar and convex by nature.
        push_face(source, &[to_local(scratch[0]), to_local(scratch[1]), to_local(scratch[2])], slack, out);
        return Ok(());
    }
    let unit = normal.normalize();
    let planar = scratch.iter().all(|v| (*v - scratch[0]).dot(unit).abs() <= 1e-9 * extent);
    let local: Vec<DVec3> = scratch.iter().map(|&v| to_local(v)).collect();
    if planar && scratch.len() <= MAX_FACE_VERTICES && is_convex(scratch, unit) {
        push_face(source, &local, slack, out);
        return Ok(());
    }
    // Non-convex, self-overlapping or non-planar: triangulate in the projection along the normal.
    report.note_triangulated(source);
    let (u, v) = plane_axes(unit);
    // Projected relative to the first vertex; a polygon whose projection is not finite (coordinates
    // near f64::MAX) cannot be triangulated (earcutr panics on it) and is skipped as degenerate.
    let flat: Vec<f64> = scratch.iter().flat_map(|p| [(*p - scratch[0]).dot(u), (*p - scratch[0]).dot(v)]).collect();
    if !flat.iter().all(|c| c.is_finite()) {
        report.note_degenerate(source);
        return Ok(());
    }
    let tris = earcutr::earcut(&flat, &[], 2).unwrap_or_default();
    let before = out.faces.len();
    for t in tris.chunks_exact(3) {
        let tri = [local[t[0]], local[t[1]], local[t[2]]];
        if (tri[1] - tri[0]).cross(tri[2] - tri[0]).length() > 1e-12 * extent * extent {
            push_face(source, &tri, slack, out);
        }
    }
    if out.faces.len() == before {
        report.note_degenerate(source);
    }
    Ok(())
}

/// Newell's normal and the extent of polygon `p` (distinct consecutive vertices, world
/// coordinates), or `None` when it is degenerate: fewer than three vertices, or no area. Always
/// inlined: a triangle's test then runs with a known vertex count (unrolled loops, no `% n`).
#[inline(always)]
fn area_normal(p: &[DVec3]) -> Option<(DVec3, f64)> {
    let normal = newell(p);
    let extent = p.iter().fold(0.0f64, |m, v| m.max((*v - p[0]).abs().max_element()));
    (p.len() >= 3 && normal.length() > 1e-12 * extent * extent && extent != 0.0).then_some((normal, extent))
}

/// A triangle's three vertices.
type Triple = [[f64; 3]; 3];

/// One triangle's records: the face, its geometry, and its vertices (which go at `first` in the
/// terrain's vertex array).
pub(crate) type TriangleRecords = (Face, FaceGeom, Triple);

/// [`TriangleRecords`] of many triangles, an array each.
type TriangleColumns = (Vec<Face>, (Vec<FaceGeom>, Vec<Triple>));

/// The records of input triangle `source` (world corners), its vertices at `first`, or `None`
/// when it is degenerate: exactly what [`add_polygon`] makes of it (for three
/// corners its clean-up leaves three vertices unless two are equal), without a [`FaceSet`], so that
/// a terrain of triangles can write its faces straight into their final arrays.
pub(crate) fn triangle_records(
    source: u32,
    [a, b, c]: [DVec3; 3],
    to_local: &(dyn Fn(DVec3) -> DVec3 + Sync),
    slack: f64,
    first: u32,
) -> Option<TriangleRecords> {
    if a == b || b == c || a == c {
        return None;
    }
    area_normal(&[a, b, c])?;
    let local = [to_local(a), to_local(b), to_local(c)];
    let (face, geom) = face_records(source, &local, slack, first, &mut Vec::new());
    Some((face, geom, local.map(|p| p.to_array())))
}

/// Appends one convex, planar face given by its local vertices.
pub(crate) fn push_face(source: u32, local: &[DVec3], slack: f64, out: &mut FaceSet) {
    let first = out.verts.len() as u32;
    out.verts.extend(local.iter().map(|p| p.to_array()));
    let (face, geom) = face_records(source, local, slack, first, &mut out.edges);
    out.faces.push(face);
    out.geoms.push(geom);
}

/// The face and geometry records of one convex, planar face given by its local vertices, whose
/// vertices go at `first`; the edge equations (one per vertex) of a face of more than three
/// vertices are appended to `edges` too. Always inlined: called with a triangle's three vertices,
/// the vertex count is a constant, so the loops unroll and the `% n` of the next vertex is no
/// division.
#[inline(always)]
fn face_records(source: u32, local: &[DVec3], slack: f64, first: u32, edges: &mut Vec<[f64; 3]>) -> (Face, FaceGeom) {
    let n = local.len();
    let mut bbox = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    let mut z = [f64::INFINITY, f64::NEG_INFINITY];
    let mut area2 = 0.0;
    for k in 0..n {
        let (p, q) = (local[k], local[(k + 1) % n]);
        bbox = [bbox[0].min(p.x), bbox[1].min(p.y), bbox[2].max(p.x), bbox[3].max(p.y)];
        z = [z[0].min(p.z), z[1].max(p.z)];
        area2 += p.x * q.y - q.x * p.y;
    }
    let mut normal = newell(local).normalize();
    if normal.z < 0.0 {
        normal = -normal;
    }
    let extent = (bbox[2] - bbox[0]).max(bbox[3] - bbox[1]).max(z[1] - z[0]);
    let vertical = area2.abs() <= 1e-12 * extent * extent || normal.z <= 1e-12;
    // Edge equations A·x + B·y + C ≥ 0 inside, whatever the winding. Computed from the two
    // vertices in order and then negated as a whole if needed, so the neighbour that shares the
    // edge gets exactly the opposite numbers: no point on a shared edge falls between them.
    let sign = if area2 < 0.0 { -1.0 } else { 1.0 };
    // The boxes reach as far as the edges' slack, so that no test of a box leaves out a point
    // the slackened edge equations take in (near a coordinate of zero, rounding a box outward to
    // f32 adds next to nothing).
    let bbox = [bbox[0] - slack, bbox[1] - slack, bbox[2] + slack, bbox[3] + slack];
    let mut inline = [[0.0; 3]; 3];
    let more_edges = if n > 3 { edges.len() as u32 } else { 0 };
    for k in 0..n {
        let (p, q) = (local[k], local[(k + 1) % n]);
        let (a, b, c) = (p.y - q.y, q.x - p.x, p.x * q.y - q.x * p.y);
        let len = (a * a + b * b).sqrt();
        let e = [sign * a, sign * b, sign * c + len * slack];
        if k < 3 {
            inline[k] = e;
        }
        if n > 3 {
            edges.push(e);
        }
    }
    let centroid = local.iter().copied().sum::<DVec3>() / n as f64;
    let d = normal.dot(centroid);
    let slope = if vertical { [0.0; 3] } else { [-normal.x / normal.z, -normal.y / normal.z, d / normal.z] };
    let lo = |v: f64| if (v as f32) as f64 > v { (v as f32).next_down() } else { v as f32 };
    let hi = |v: f64| if ((v as f32) as f64) < v { (v as f32).next_up() } else { v as f32 };
    let face = Face {
        slope,
        edges: inline,
        bbox: [lo(bbox[0]), lo(bbox[1]), hi(bbox[2]), hi(bbox[3])],
        first,
        count: n as u16,
        flags: if vertical { VERTICAL } else { 0 },
        source,
        more_edges,
    };
    (face, FaceGeom { bbox, normal: normal.to_array(), d, z, source, pad: 0 })
}

/// Newell's normal (twice the vector area) of a polygon.
#[inline(always)]
pub(crate) fn newell(p: &[DVec3]) -> DVec3 {
    let n = p.len();
    let mut s = DVec3::ZERO;
    for k in 0..n {
        let (a, b) = (p[k] - p[0], p[(k + 1) % n] - p[0]);
        s += a.cross(b);
    }
    s
}

/// Two unit axes spanning the plane with normal `n`.
fn plane_axes(n: DVec3) -> (DVec3, DVec3) {
    let u = n.any_orthonormal_vector();
    (u, n.cross(u))
}

/// Convex and simple (turns all one way, once around) in the plane with normal `n`.
fn is_convex(p: &[DVec3], n: DVec3) -> bool {
    let (u, v) = plane_axes(n);
    let q: Vec<DVec2> = p.iter().map(|x| DVec2::new(x.dot(u), x.dot(v))).collect();
    let k = q.len();
    let (mut pos, mut neg, mut turning) = (false, false, 0.0);
    for i in 0..k {
        let (a, b, c) = (q[i], q[(i + 1) % k], q[(i + 2) % k]);
        let (e1, e2) = (b - a, c - b);
        let cross = e1.perp_dot(e2);
        pos |= cross > 0.0;
        neg |= cross < 0.0;
        turning += cross.atan2(e1.dot(e2));
    }
    !(pos && neg) && (turning.abs() - std::f64::consts::TAU).abs() < 1e-6
}

/// Overlap of a face with the closed rectangle `r = [x0, y0, x1, y1]`: the bounding boxes meet and
/// no edge has the whole rectangle outside (separating axes). `mag` is the largest coordinate
/// magnitude of `r`; corner values within rounding of the edge count as inside, so a point that a
/// query finds inside the face is never in a leaf that left the face out.
#[inline]
pub(crate) fn overlaps_rect(face: &Face, geom: &FaceGeom, edges: &[[f64; 3]], r: [f64; 4], mag: f64) -> bool {
    let b = geom.bbox;
    if b[0] > r[2] || b[2] < r[0] || b[1] > r[3] || b[3] < r[1] {
        return false;
    }
    if face.flags & VERTICAL != 0 {
        return true;
    }
    face.edge_equations(edges).unwrap_or_default().iter().all(|e| {
        // The corner the edge's normal points at is the one with the largest value.
        let x = if e[0] >= 0.0 { r[2] } else { r[0] };
        let y = if e[1] >= 0.0 { r[3] } else { r[1] };
        let tol = 4.0 * f64::EPSILON * ((e[0].abs() + e[1].abs()) * mag + e[2].abs());
        e[0] * x + e[1] * y + e[2] >= -tol
    })
}

/// What a face's box `b` tells of a node `r` cut at `div`, indexed by six comparisons: bit 0
/// `b[0] ≤ div[0]` (the box reaches west of the cut), 1 `b[1] ≤ div[1]` (south), 2 `b[2] ≥ div[0]`
/// (east), 3 `b[3] ≥ div[1]` (north), 4 `b` within `r`'s sides along x, 5 along y. The low four
/// bits of an entry are the quadrants the box meets (bit k = child k); bit 4 says the face needs
/// its edge tests to tell which of those it meets. It does not when its box lies on one side of
/// both cut lines, nor when it lies across one cut line only and between `r`'s sides along the other
/// axis: convex, the face then meets that cut line inside `r`, so it meets the two quadrants its box
/// reaches.
const BOX_CLASSES: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut k = 0;
    while k < 64 {
        let (west, south, east, north) = (k & 1 != 0, k & 2 != 0, k & 4 != 0, k & 8 != 0);
        let (within_x, within_y) = (k & 16 != 0, k & 32 != 0);
        let quadrants = (west & south) as u8
            | ((east & south) as u8) << 1
            | ((west & north) as u8) << 2
            | ((east & north) as u8) << 3;
        let (across_x, across_y) = (west & east, south & north);
        let needs = (across_x & across_y) | (across_x & !within_y) | (across_y & !within_x);
        t[k] = quadrants | (needs as u8) << 4;
        k += 1;
    }
    t
};

/// The [`BOX_CLASSES`] entry of box `b` in node `r` cut at `div`: its eight comparisons as four
/// two-lane SSE2 compares on x86-64, then one table lookup. Branch-free: which case a face falls in
/// is as random as the faces (and the scalar form took twice the instructions).
#[inline(always)]
fn box_classes(b: [f64; 4], r: [f64; 4], div: [f64; 2]) -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target, so these intrinsics are always available.
        unsafe {
            let (lo, hi) = (_mm_loadu_pd(b.as_ptr()), _mm_loadu_pd(b.as_ptr().add(2)));
            let (r_lo, r_hi, d) =
                (_mm_loadu_pd(r.as_ptr()), _mm_loadu_pd(r.as_ptr().add(2)), _mm_loadu_pd(div.as_ptr()));
            let sides = _mm_movemask_pd(_mm_cmple_pd(lo, d)) | _mm_movemask_pd(_mm_cmpge_pd(hi, d)) << 2;
            let within = _mm_movemask_pd(_mm_and_pd(_mm_cmpge_pd(lo, r_lo), _mm_cmple_pd(hi, r_hi)));
            BOX_CLASSES[(sides | within << 4) as usize]
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let bits = [b[0] <= div[0], b[1] <= div[1], b[2] >= div[0], b[3] >= div[1]];
        let within = [(b[0] >= r[0]) & (b[2] <= r[2]), (b[1] >= r[1]) & (b[3] <= r[3])];
        let k = bits.iter().chain(&within).enumerate().fold(0, |k, (i, &set)| k | usize::from(set) << i);
        BOX_CLASSES[k]
    }
}

/// For each face `ids[i]` (every one meeting `r`, as the faces of a node do; `bbox` gives its
/// box), writes to `masks[i]` the quadrants of `r` cut at `div` it meets (bit k = child k, in the
/// order of `quadtree::quadrants`): from its box where that suffices ([`BOX_CLASSES`]), else
/// from its edge equations too. Bit for bit the answers of [`overlaps_rect`] with each quadrant:
/// each edge equation's tolerance is computed once and evaluated at the quadrants' corners, which
/// share their coordinates.
///
/// Two passes: the boxes of all faces first, noting (without a branch) those that need their edges
/// in `pending`, then the edge tests of those. Whether a face needs them is as random as the faces,
/// and a branch on it, face by face, was mispredicted four times in ten. A face's quick record in
/// `quick` (when given) decides its edge tests for all four quadrants at once in f32, with the
/// exact answers ([`QuickFace::quadrants`]); the f64 tests run only where it cannot decide.
#[allow(clippy::too_many_arguments)]
pub(crate) fn quadrant_masks(
    faces: &[Face],
    quick: QuickSet,
    bbox: impl Fn(u32) -> [f64; 4],
    edges: &[[f64; 3]],
    ids: &[u32],
    (r, div): ([f64; 4], [f64; 2]),
    mag: f64,
    masks: &mut Vec<u8>,
    pending: &mut Vec<u32>,
) {
    masks.clear();
    // Every slot of `pending` read below is written first: it only needs to be long enough, not
    // zeroed at each call.
    if pending.len() < ids.len() {
        pending.resize(ids.len(), 0);
    }
    let mut waiting = 0;
    for (i, &f) in ids.iter().enumerate() {
        let classes = box_classes(bbox(f), r, div);
        masks.push(classes & 15);
        pending[waiting] = i as u32;
        waiting += usize::from(classes >> 4);
    }
    let (x, y) = quadrant_lanes(r, div);
    for &i in &pending[..waiting] {
        let (f, mask) = (ids[i as usize], &mut masks[i as usize]);
        // The quick record answers when it decides every quadrant the box reaches.
        let decided = quick.records.get(f as usize).map(|q| q.quadrants(x, y, quick.margin));
        *mask = match decided {
            Some((kept, outside)) if (kept | outside) as u8 & *mask == *mask => *mask & !outside as u8,
            _ => edge_quadrants(&faces[f as usize], edges, r, div, mag, *mask),
        };
    }
}

/// The corners of the four quadrants of `r` cut at `div`, rounded to f32, as
/// [`QuickFace::quadrants`] takes them: quadrant k (in the order of `quadtree::quadrants`) spans
/// x from `x[0][k]` to `x[1][k]` and y from `y[0][k]` to `y[1][k]`.
#[inline(always)]
fn quadrant_lanes(r: [f64; 4], div: [f64; 2]) -> ([[f32; 4]; 2], [[f32; 4]; 2]) {
    let (xs, ys) = ([r[0], div[0], r[2]].map(|v| v as f32), [r[1], div[1], r[3]].map(|v| v as f32));
    let x = [[xs[0], xs[1], xs[0], xs[1]], [xs[1], xs[2], xs[1], xs[2]]];
    let y = [[ys[0], ys[0], ys[1], ys[1]], [ys[1], ys[1], ys[2], ys[2]]];
    (x, y)
}

/// The quick face records of a build whose root rectangle holds every face, with their margin for
/// that root ([`quick_margin`]): the f32 tests that decide for the exact ones but near edges.
/// Empty (the default) leaves every test exact.
#[derive(Clone, Copy, Default)]
pub(crate) struct QuickSet<'a> {
    /// One record per face (empty: none given).
    pub records: &'a [QuickFace],
    /// The margin of [`QuickFace::inside`] for the build's root.
    pub margin: f32,
}

/// The quadrants of `mask` (bit k = child k of `r` cut at `div`) that no edge of `face` has wholly
/// outside, for a face whose box meets those of `mask` (a vertical face meets them all).
#[inline]
fn edge_quadrants(face: &Face, edges: &[[f64; 3]], r: [f64; 4], div: [f64; 2], mag: f64, mut mask: u8) -> u8 {
    if mask == 0 || face.flags & VERTICAL != 0 {
        return mask;
    }
    // A triangle's equations from its own record, which the flags test above has just fetched.
    for e in face.edge_equations(edges).unwrap_or_default() {
        // Per quadrant, the value at the corner the edge's normal points at (the largest): the
        // larger of the two products along each axis, which is the product at that corner, bit for
        // bit (rounding is monotone). Maxima rather than a choice of corner by the normal's signs:
        // those signs are as random as the faces, and the choices compiled to mispredicted branches.
        let [ax_w, ax_mid, ax_e] = [e[0] * r[0], e[0] * div[0], e[0] * r[2]];
        let [by_s, by_mid, by_n] = [e[1] * r[1], e[1] * div[1], e[1] * r[3]];
        // (Finite numbers: a plain comparison, one instruction, not the NaN-aware `f64::max`; a
        // zero's sign cannot change the tests below.)
        let larger = |a: f64, b: f64| if a > b { a } else { b };
        let (xw, xe) = (larger(ax_w, ax_mid), larger(ax_mid, ax_e));
        let (ys, yn) = (larger(by_s, by_mid), larger(by_mid, by_n));
        let tol = 4.0 * f64::EPSILON * ((e[0].abs() + e[1].abs()) * mag + e[2].abs());
        mask &= corner_mask([xw, xe], [ys, yn], e[2], -tol) as u8;
        if mask == 0 {
            break;
        }
    }
    mask
}

/// The corners k = 0..4 (bit k) where `(ax[k & 1] + by[k >> 1]) + c ≥ floor`: an edge equation's
/// value at the four corners of a grid cell, `ax` and `by` its two terms along each axis. Two SSE2
/// compares of two lanes each (every x86-64 has SSE2), the same IEEE operations as the scalar
/// form, so the same answers bit for bit.
#[inline(always)]
pub(crate) fn corner_mask(ax: [f64; 2], by: [f64; 2], c: f64, floor: f64) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target, so these intrinsics are always available.
        unsafe {
            let (ax, c, floor) = (_mm_set_pd(ax[1], ax[0]), _mm_set1_pd(c), _mm_set1_pd(floor));
            let row = |by: f64| _mm_movemask_pd(_mm_cmpge_pd(_mm_add_pd(_mm_add_pd(ax, _mm_set1_pd(by)), c), floor));
            (row(by[0]) | row(by[1]) << 2) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (0..4).fold(0, |m, k| m | ((ax[k & 1] + by[k >> 1] + c >= floor) as u32) << k)
    }
}

impl PolygonSoup {
    /// Every existing triangle of a heightfield (holes left out), one polygon each, cell by cell
    /// (south half first): a raster as a polygon terrain.
    pub fn from_heightfield(hf: &crate::Heightfield) -> Self {
        let mut soup = Self::new();
        for j in 0..hf.ny() - 1 {
            for i in 0..hf.nx() - 1 {
                for half in [crate::Half::South, crate::Half::North] {
                    if let Some(t) = hf.cell_triangle(i, j, half) {
                        soup.push(&t);
                    }
                }
            }
        }
        soup
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When a quick record answers, its answer is the exact test's: random triangles of every size
    /// at scales from 10⁻³ to 10⁷, queried at random points, at their vertices, on their edges, a
    /// few ulps either side of an edge and at multiples of the margin from it. Without the margin
    /// the f32 values would get some of these points wrong (so the points do probe the bound), and
    /// the records do answer nearly all random points themselves.
    #[test]
    fn quick_faces_agree_with_the_exact_test() {
        let mut rng = crate::rng::SplitMix64::new(11);
        let (mut checked, mut unsure_random, mut random, mut wrong_without_margin) = (0, 0, 0, 0);
        for case in 0..3000 {
            let scale = 10f64.powi(case % 11 - 3);
            // A root rectangle off the origin now and then (local frames are centred, but edits
            // and curved frames need not be).
            let shift = if case % 4 == 0 { scale * rng.range(-0.5, 0.5) } else { 0.0 };
            let root = [-scale + shift, -scale, scale + shift, scale];
            let size = scale * 10f64.powi(-((case / 11) % 5)) * 2.0;
            let centre = DVec2::new(rng.range(root[0], root[2]), rng.range(root[1], root[3]));
            let corner = |rng: &mut crate::rng::SplitMix64| {
                let p = centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size;
                DVec3::new(p.x.clamp(root[0], root[2]), p.y.clamp(root[1], root[3]), rng.range(0.0, 1.0))
            };
            let tri = [corner(&mut rng), corner(&mut rng), corner(&mut rng)];
            let mut set = FaceSet::default();
            push_face(case as u32, &tri, EDGE_SLACK * 2.0 * scale, &mut set);
            let face = set.faces[0];
            if !face.is_ground() {
                continue;
            }
            let quick = QuickFace::of(&face);
            assert!(quick.coefs != [[0.0; 3]; 3], "case {case}: a ground triangle gets a quick record");
            let margin = quick_margin(root);
            let mut check = |x: f64, y: f64, counted: bool| {
                if !(x >= root[0] && x <= root[2] && y >= root[1] && y <= root[3]) {
                    return;
                }
                let exact = contains(&face, &[], x, y);
                let answer = quick.inside(x as f32, y as f32, margin);
                assert!(answer.is_none_or(|a| a == exact), "case {case}: ({x}, {y}) quick {answer:?}, exact {exact}");
                wrong_without_margin += quick.inside(x as f32, y as f32, 0.0).is_some_and(|a| a != exact) as usize;
                checked += 1;
                if counted {
                    random += 1;
                    unsure_random += answer.is_none() as usize;
                }
            };
            for _ in 0..20 {
                check(rng.range(root[0], root[2]), rng.range(root[1], root[3]), false);
                let p = centre + DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * size;
                check(p.x, p.y, true);
            }
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                check(a.x, a.y, false);
                let normal = DVec2::new(a.y - b.y, b.x - a.x).normalize();
                for _ in 0..6 {
                    let on = a.lerp(b, rng.range(0.0, 1.0));
                    for ulps in -3i32..=3 {
                        let step = |v: f64| if ulps < 0 { v.next_down() } else { v.next_up() };
                        let (mut x, mut y) = (on.x, on.y);
                        for _ in 0..ulps.unsigned_abs() {
                            (x, y) = (step(x), step(y));
                        }
                        check(x, y, false);
                        check(on.x, y, false);
                    }
                    for d in [-4.0, -2.0, -1.0, -0.5, -0.25, 0.25, 0.5, 1.0, 2.0, 4.0] {
                        let p = DVec2::new(on.x, on.y) + normal * (d * margin as f64);
                        check(p.x, p.y, false);
                    }
                }
            }
        }
        assert!(checked > 500_000, "{checked}");
        assert!(wrong_without_margin > 0, "the f32 values alone never erred: the points do not probe the margin");
        assert!(unsure_random * 50 < random, "{unsure_random} of {random} random points left to the exact test");
    }

    /// The vector test of one point ([`QuickFace::sides`]) gives the scalar formula's flags on the
    /// record's coefficients, whatever the word after them (the source index, read as a fourth
    /// lane) holds, including points within the margin and on an edge.
    #[test]
    fn vector_sides_match_the_scalar_formula() {
        let mut rng = crate::rng::SplitMix64::new(31);
        let mut both = [0usize; 3];
        for case in 0..3000usize {
            let scale = 10f64.powi(case as i32 % 7 - 2);
            let mut corner = || DVec3::new(rng.range(-1.0, 1.0) * scale, rng.range(-1.0, 1.0) * scale, 0.0);
            let tri = [corner(), corner(), corner()];
            let mut set = FaceSet::default();
            push_face(case as u32, &tri, 0.0, &mut set);
            let mut quick = QuickFace::of(&set.faces[0]);
            quick.source = [0, 1, 0x7fc0_0000, 0xffff_ffff, 0x7f80_0000][case % 5];
            let margin = quick_margin([-scale, -scale, scale, scale]);
            let (a, b) = (tri[case % 3], tri[(case + 1) % 3]);
            let on = a.lerp(b, rng.range(0.0, 1.0));
            let (u, v) = (rng.range(0.0, 1.0), rng.range(0.0, 1.0));
            let p = match case % 4 {
                0 => DVec3::new(rng.range(-1.0, 1.0) * scale, rng.range(-1.0, 1.0) * scale, 0.0),
                1 if u + v < 1.0 => tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v,
                1 => tri[0] + (tri[1] - tri[0]) * (1.0 - u) + (tri[2] - tri[0]) * (1.0 - v),
                2 => on,
                _ => on + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * margin as f64,
            };
            let (x, y) = (p.x as f32, p.y as f32);
            let e = quick.edges().map(|[a, b, c]| a * x + b * y + c);
            let scalar = (e.iter().all(|&v| v > margin), e.iter().any(|&v| v < -margin));
            assert_eq!(quick.sides(x, y, margin), scalar, "case {case}: {e:?}");
            both[usize::from(scalar.0) + 2 * usize::from(!scalar.0 && !scalar.1)] += 1;
        }
        // Inside, outside and undecided points all met.
        assert!(both.iter().all(|&n| n > 100), "{both:?}");
    }

    /// The four-lane quick tests agree with the exact ones wherever they decide: `inside4` with
    /// `inside` lane by lane, and `quadrants` with the exact edge tests of the classification
    /// (`edge_quadrants`), for random triangles at scales from 10⁻³ to 10⁷ and nodes whose corners
    /// and cut point lie at a vertex, on an edge, or a fraction or a few multiples of the margin
    /// from it. Without the margin the f32 values would get some quadrants wrong, and with it they
    /// decide nearly all random nodes.
    #[test]
    fn quick_lanes_agree_with_the_exact_tests() {
        let mut rng = crate::rng::SplitMix64::new(12);
        let (mut decided, mut random, mut random_undecided, mut wrong_without_margin) = (0, 0, 0, 0);
        for case in 0..4000usize {
            let scale = 10f64.powi(case as i32 % 11 - 3);
            let root = [-scale, -scale, scale, scale];
            let size = scale * 10f64.powi(-((case as i32 / 11) % 4));
            let centre = DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * scale;
            let mut corner = || {
                let p = centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size;
                DVec3::new(p.x, p.y, 0.0)
            };
            let tri = [corner(), corner(), corner()];
            let mut set = FaceSet::default();
            push_face(case as u32, &tri, EDGE_SLACK * 2.0 * scale, &mut set);
            let face = set.faces[0];
            if !face.is_ground() {
                continue;
            }
            let (quick, margin) = (QuickFace::of(&face), quick_margin(root));
            // The cut point: random, at a vertex, or off an edge by a multiple of the margin.
            let (a, b) = (tri[case % 3], tri[(case + 1) % 3]);
            let on = a.lerp(b, rng.range(0.0, 1.0));
            let normal = DVec2::new(a.y - b.y, b.x - a.x).normalize();
            let off = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, -0.5, -1.0, -4.0][case % 9] * margin as f64;
            let at_random = case % 4 == 0;
            let div = match case % 4 {
                0 => centre + DVec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) * size,
                1 => DVec2::new(a.x, a.y),
                _ => DVec2::new(on.x, on.y) + normal * off,
            };
            let reach = |rng: &mut crate::rng::SplitMix64| rng.range(0.0, 1.0) * size;
            let r = [
                (div.x - reach(&mut rng)).max(root[0]),
                (div.y - reach(&mut rng)).max(root[1]),
                (div.x + reach(&mut rng)).min(root[2]),
                (div.y + reach(&mut rng)).min(root[3]),
            ];
            let div = [div.x.clamp(r[0], r[2]), div.y.clamp(r[1], r[3])];
            let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let exact = edge_quadrants(&face, &set.edges, r, div, mag, 15) as u32;
            let (x, y) = quadrant_lanes(r, div);
            let (kept, outside) = quick.quadrants(x, y, margin);
            assert_eq!(kept & outside, 0, "case {case}");
            assert_eq!(kept & !exact, 0, "case {case}: kept {kept:04b}, exact {exact:04b} ({r:?} cut at {div:?})");
            assert_eq!(
                outside & exact,
                0,
                "case {case}: outside {outside:04b}, exact {exact:04b} ({r:?} cut at {div:?})"
            );
            let (kept0, outside0) = quick.quadrants(x, y, 0.0);
            wrong_without_margin += ((kept0 & !exact) | (outside0 & exact) != 0) as usize;
            decided += (kept | outside).count_ones();
            if at_random {
                random += 1;
                random_undecided += (kept | outside != 15) as usize;
            }
            // The four corners of the cut as points: lane by lane what `inside` says.
            let (px, py) = ([x[0][1], x[1][1], x[0][2], x[1][2]], [y[0][2], y[0][2], y[1][1], y[1][1]]);
            let (inside, outside) = quick.inside4(px, py, margin);
            for k in 0..4 {
                let want = quick.inside(px[k], py[k], margin);
                let got = (inside >> k & 1 != 0, outside >> k & 1 != 0);
                assert_eq!(got, (want == Some(true), want == Some(false)), "case {case}, lane {k}");
            }
        }
        assert!(decided > 8000, "{decided}");
        assert!(wrong_without_margin > 0, "the f32 values alone never erred: the nodes do not probe the margin");
        assert!(random_undecided * 50 < random, "{random_undecided} of {random} random nodes left to the exact test");
    }

    /// Faces that are not ground triangles get no quick equations: the exact test decides for them.
    #[test]
    fn quick_records_leave_other_faces_to_the_exact_test() {
        let quad = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        let wall = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 0.0, 1.0)];
        let mut set = FaceSet::default();
        push_face(0, &quad, 0.0, &mut set);
        push_face(1, &wall, 0.0, &mut set);
        push_face(2, &quad[..3], 0.0, &mut set);
        set.faces[2].flags |= REMOVED;
        for f in &set.faces {
            let q = QuickFace::of(f);
            assert_eq!((q.slope, q.source, q.coefs), (f.slope, f.source, [[0.0; 3]; 3]));
            assert_eq!(q.inside(0.25, 0.5, quick_margin([0.0, 0.0, 1.0, 1.0])), None);
        }
    }

    #[test]
    fn convexity() {
        let sq = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        assert!(is_convex(&sq, DVec3::Z));
        let l = [
            DVec3::ZERO,
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, 2.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
        ];
        assert!(!is_convex(&l, DVec3::Z));
        // A pentagram turns one way but twice around.
        let star: Vec<DVec3> = (0..5)
            .map(|k| {
                let a = k as f64 * 4.0 * std::f64::consts::PI / 5.0;
                DVec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        assert!(!is_convex(&star, DVec3::Z));
    }

    /// A soup of triangles gives the same faces, bit for bit, and the same report through the
    /// triangles' straight path as through the general one: with duplicates (in any vertex order)
    /// and degenerate triangles (collinear, or with two equal corners) among them.
    #[test]
    fn triangles_path_matches_the_polygon_path() {
        let mut rng = crate::rng::SplitMix64::new(5);
        let mut soup = PolygonSoup::new();
        let mut kept: Vec<[DVec3; 3]> = Vec::new();
        let (mut duplicates, mut degenerate) = (0, 0);
        for k in 0..3000 {
            let mut p = || DVec3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.range(0.0, 9.0));
            let (a, b, c) = (p(), p(), p());
            let tri = match k % 16 {
                3 if !kept.is_empty() => {
                    duplicates += 1;
                    let t = kept[k % kept.len()];
                    [t[1], t[2], t[0]]
                }
                5 => {
                    degenerate += 1;
                    [a, b, a + (b - a) * 0.25]
                }
                7 => {
                    degenerate += 1;
                    [a, a, b]
                }
                9 => {
                    degenerate += 1;
                    [a, b, a]
                }
                _ => {
                    kept.push([a, b, c]);
                    [a, b, c]
                }
            };
            soup.push(&tri);
        }
        let duplicate = super::super::duplicates(&soup);
        let to_local = |p: DVec3| DVec3::new(p.y - 3.0, -p.x + 1.0, p.z);
        let order = super::super::order::spatial_order(&soup, &to_local);
        let (fast, fast_report) = FaceSet::from_triangles(&soup, &order, &duplicate, &to_local, 1e-9);
        let (slow, slow_report) = FaceSet::from_polygons(&soup, &order, &duplicate, &to_local, 1e-9).unwrap();
        assert_eq!(fast_report, slow_report);
        assert_eq!((fast_report.duplicates, fast_report.degenerate), (duplicates, degenerate));
        // The examples a user reads are the first skipped polygons of the input, although the
        // polygons are visited in spatial order.
        let skipped: Vec<usize> =
            (0..soup.len()).filter(|&k| !fast.faces.iter().any(|f| f.source == k as u32)).collect();
        assert_eq!(fast_report.examples, skipped[..8]);
        assert_eq!(fast.faces.len(), 3000 - duplicates - degenerate);
        assert!(fast.faces == slow.faces && fast.geoms == slow.geoms);
        assert!(fast.verts == slow.verts && fast.edges == slow.edges);
    }

    /// `quadrant_masks` is the four `overlaps_rect` calls for each face meeting the rectangle: same
    /// bits, including faces that touch a cut line or a quadrant's corner and cut lines through
    /// vertices, whether the box alone decides or the edges do; one face at a time, then all the
    /// faces meeting random rectangles at once (the edge tests of some after the boxes of all).
    #[test]
    fn quadrant_masks_equal_four_overlap_tests() {
        let mut rng = crate::rng::SplitMix64::new(0);
        let mut next = move || rng.range(0.0, 1.0);
        let (mut set, mut checked, mut one_line, mut box_only) = (FaceSet::default(), 0, 0, 0);
        let (mut all, mut masks, mut pending) = (FaceSet::default(), Vec::new(), Vec::new());
        let four_tests = |set: &FaceSet, f: usize, r: [f64; 4], div: [f64; 2], mag: f64| {
            super::super::quadtree::quadrants(r, div).iter().enumerate().fold(0u8, |m, (k, q)| {
                m | (overlaps_rect(&set.faces[f], &set.geoms[f], &set.edges, *q, mag) as u8) << k
            })
        };
        for case in 0..4000 {
            // A convex polygon of 3–6 vertices on a random ellipse, or a vertical face.
            let n = 3 + case % 4;
            let (cx, cy, rx, ry) = (next() * 8.0 - 4.0, next() * 8.0 - 4.0, 0.2 + next() * 3.0, 0.2 + next() * 3.0);
            let mut angles: Vec<f64> = (0..n).map(|_| next() * std::f64::consts::TAU).collect();
            angles.sort_by(f64::total_cmp);
            let mut poly: Vec<DVec3> =
                angles.iter().map(|a| DVec3::new(cx + rx * a.cos(), cy + ry * a.sin(), next())).collect();
            if case % 3 == 0 {
                // A vertical face over the first edge.
                poly = vec![poly[0], poly[1], poly[1] + DVec3::Z, poly[0] + DVec3::Z];
            } else if n > 3 {
                // Planar.
                poly.iter_mut().for_each(|v| v.z = 0.5 * v.x - 0.25 * v.y);
            }
            set.faces.clear();
            set.geoms.clear();
            set.verts.clear();
            set.edges.clear();
            push_face(case as u32, &poly, 0.0, &mut set);
            push_face(case as u32, &poly, 0.0, &mut all);
            let geom = &set.geoms[0];
            // A rectangle around part of it, cut through a vertex's coordinates half of the time.
            let r = [cx - 4.0 * next(), cy - 4.0 * next(), cx + 4.0 * next(), cy + 4.0 * next()];
            let v = poly[case % poly.len()];
            let div = if case % 2 == 0 && v.x > r[0] && v.x < r[2] && v.y > r[1] && v.y < r[3] {
                [v.x, v.y]
            } else {
                [r[0] + (r[2] - r[0]) * next(), r[1] + (r[3] - r[1]) * next()]
            };
            let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let four = four_tests(&set, 0, r, div, mag);
            // Faces meeting the rectangle, as every face of a node does.
            if four != 0 {
                quadrant_masks(
                    &set.faces,
                    QuickSet::default(),
                    |f| set.geoms[f as usize].bbox,
                    &set.edges,
                    &[0],
                    (r, div),
                    mag,
                    &mut masks,
                    &mut pending,
                );
                assert_eq!(masks, [four], "case {case}: {poly:?} in {r:?} cut at {div:?}");
                checked += (four != 15) as usize;
                if box_classes(geom.bbox, r, div) >> 4 == 0 {
                    box_only += 1;
                    one_line += (four.count_ones() == 2) as usize;
                }
            }
        }
        assert!(checked > 500, "only {checked} cases straddle a cut");
        assert!(one_line > 200 && box_only > 400, "box only: {box_only}, of them across one line: {one_line}");
        let (mut straddling, mut all_four) = (0, 0);
        for case in 0..50 {
            let (x, y, w) = (next() * 8.0 - 4.0, next() * 8.0 - 4.0, 0.5 + next() * 4.0);
            let (r, div) = ([x, y, x + w, y + w], [x + w * next(), y + w * next()]);
            let mag = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let (ids, want): (Vec<u32>, Vec<u8>) = (0..all.faces.len())
                .map(|f| (f as u32, four_tests(&all, f, r, div, mag)))
                .filter(|&(_, four)| four != 0)
                .unzip();
            quadrant_masks(
                &all.faces,
                QuickSet::default(),
                |f| all.geoms[f as usize].bbox,
                &all.edges,
                &ids,
                (r, div),
                mag,
                &mut masks,
                &mut pending,
            );
            assert_eq!(masks, want, "rectangle {case}: {r:?} cut at {div:?}");
            assert!(ids.len() > 100, "rectangle {case}: {} faces", ids.len());
            straddling += want.iter().filter(|m| m.count_ones() > 1).count();
            all_four += want.iter().filter(|&&m| m == 15).count();
        }
        assert!(straddling > 1000 && all_four > 100, "{straddling} faces across a cut, {all_four} in all four");
    }
}
