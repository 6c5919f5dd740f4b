//! Faces: QOTA's polygon record in the local frame (2-D bounding box, 2-D edge equations, plane),
//! as stored ([`Face`], [`FaceGeom`], and the one-cache-line [`QuickFace`] that vertical queries
//! read first); how input polygons become faces (`build.rs`); and the build-time classification of
//! faces against quadtree cells (`classify.rs`).

mod build;
mod classify;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use build::push_face;
pub use build::EDGE_SLACK;
pub(crate) use build::{add_polygon, FaceSet};
pub(crate) use classify::{corner_mask, overlaps_rect, quadrant_masks, QuickSet};

use bytemuck::{Pod, Zeroable};
use glam::DVec3;

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
    #[cfg(any(test, not(target_arch = "x86_64")))]
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
