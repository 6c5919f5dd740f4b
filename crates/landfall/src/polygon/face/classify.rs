//! Build-time classification of faces against quadtree cells: overlap with a rectangle, the
//! quadrants of a cell a face meets (four at a time), and which quick records a leaf may answer from.

use super::{Face, FaceGeom, QuickFace, VERTICAL};

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
pub(super) const BOX_CLASSES: [u8; 64] = {
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
pub(super) fn box_classes(b: [f64; 4], r: [f64; 4], div: [f64; 2]) -> u8 {
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
pub(super) fn quadrant_lanes(r: [f64; 4], div: [f64; 2]) -> ([[f32; 4]; 2], [[f32; 4]; 2]) {
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
pub(super) fn edge_quadrants(
    face: &Face,
    edges: &[[f64; 3]],
    r: [f64; 4],
    div: [f64; 2],
    mag: f64,
    mut mask: u8,
) -> u8 {
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
