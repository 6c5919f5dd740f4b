//! The exact test of one sight line on a [`GeoSurface`](crate::geo::GeoSurface).
//!
//! The eye E, the target's point P₀ on the (raised) surface, its ellipsoid normal B and the target
//! P = P₀ + T·B span the plane Π through E containing B. In Π, with q the distance from E across B
//! (towards P) and w the height along B, the segment is w = w_P·q/q_P. At a point X of the surface
//! in Π with 0 < q_X < q_P the segment is on or below the surface when w_X ≥ w_P·q_X/q_P, i.e. when
//! X needs the target raised to at least `needed(X)` = w_X·q_P/q_X − w_P₀ above its ground to be
//! cleared. The surface meets Π in one
//! straight piece per triangle, and along a piece `needed` is monotone, so its largest value over
//! the part strictly between E and P is at a piece's end: where an edge of an existing triangle
//! crosses Π (or a vertex lies on it). Those points are the candidates; an edge crossing is
//! computed from its two vertices in a fixed order, so the two triangles of a shared edge give the
//! same point; a vertex within [`ON_PLANE`] of Π counts as on it (the border of the grid or of a
//! hole, where no neighbouring triangle would catch a line that rounding put a hair outside).
//!
//! P is hidden when some candidate needs at least T − [`TOUCH`]; the height a target needs is the
//! largest `needed`. Candidates are found by a descent of the surface's box tree, each box (grown
//! for the refraction raise) tested by its corners against Π, the range 0 < q < q_P and the
//! segment; [`Sight::brute`] visits every triangle instead (the reference).

use super::eye::GeoEye;
use crate::geo::boxes::Bx;
use crate::geom::Half;
use crate::heightfield::cell::corner_offsets;
use arrayvec::ArrayVec;
use glam::DVec3;

/// A target needing at least T − `TOUCH` (metres) to be seen is hidden: a touch of the sight line
/// within a nanometre counts as a touch.
pub(crate) const TOUCH: f64 = 1e-9;

/// A vertex this close to the sight line's plane (metres) is on it: a sight line along the
/// border of the grid or of a hole meets the border's vertices whatever the rounding.
pub(crate) const ON_PLANE: f64 = 1e-8;

/// A point of Π within this distance across B (metres) of the eye or of the target is that end of
/// the segment, not between them: the rounding of the eye's own vertex or edge (an observer on a
/// sample or grid line) and of the target's vertex never counts as a blocker.
pub(crate) const AT_END: f64 = 1e-6;

/// Slack of the box tests (metres): far above the rounding of a corner's coordinates in Π.
const SLACK: f64 = 1e-6;

/// One sight line in its plane.
pub(crate) struct Sight {
    e: DVec3,
    /// Π's normal, the unit across-B direction towards P, and B.
    n: DVec3,
    qa: DVec3,
    b: DVec3,
    qp: f64,
    wp0: f64,
}

/// A vertex in Π's coordinates: signed distance from Π, q, w (NaN for nodata).
type Pqw = [f64; 3];

/// The running answer: the largest `needed` at or above `floor`, and where to stop.
struct Best {
    floor: f64,
    best: f64,
    stop: f64,
    /// The cell of the candidate that said stop.
    at: Option<(usize, usize)>,
}

impl Best {
    #[inline(always)]
    fn take(&mut self, needed: f64) -> bool {
        if needed >= self.floor && needed > self.best {
            self.best = needed;
        }
        self.best >= self.stop
    }
}

impl Sight {
    /// The plane of the sight line from `eye` to the target P = `p0` + T·`b` (`p` = P); `None` when P
    /// is on the line through the eye along B (the eye's own sample: nothing lies between).
    pub fn new(eye: DVec3, p0: DVec3, b: DVec3, p: DVec3) -> Option<Self> {
        let v = p - eye;
        let across = v - b * v.dot(b);
        let qp = across.length();
        if !qp.is_finite() || qp <= 2.0 * AT_END {
            return None;
        }
        let qa = across / qp;
        Some(Self { e: eye, n: qa.cross(b), qa, b, qp, wp0: (p0 - eye).dot(b) })
    }

    /// `v` in Π's coordinates; a vertex within [`ON_PLANE`] of Π is on it.
    #[inline(always)]
    fn pqw(&self, v: DVec3) -> Pqw {
        let r = v - self.e;
        let s = r.dot(self.n);
        [if s.abs() <= ON_PLANE { 0.0 } else { s }, r.dot(self.qa), r.dot(self.b)]
    }

    /// The target height above P₀ needed to clear a point at (q, w) of Π (−∞ unless it lies
    /// between the eye and the target, farther than [`AT_END`] from both).
    #[inline(always)]
    fn needed(&self, q: f64, w: f64) -> f64 {
        if q > AT_END && q < self.qp - AT_END {
            w * self.qp / q - self.wp0
        } else {
            f64::NEG_INFINITY
        }
    }

    /// The cell of a candidate that hides target height `th` (one needing at least `th` −
    /// [`TOUCH`]), or `None` when nothing does: the target is seen. Tried in turn: the 3 × 3 cells
    /// around each of `hints` (blockers of neighbouring targets: a ridge that hides one target
    /// mostly hides its neighbours, its sight lines crossing near the same cells), the cells
    /// around the target's own sample `at` (a slope facing away hides it), then the descent of the
    /// box tree. Any one candidate decides, so the answer is the same whichever is found first.
    /// (The order is measured: `docs/benchmarks.md`, viewsheds in degrees.)
    pub fn blocker(
        &self,
        eye: &GeoEye,
        th: f64,
        at: (usize, usize),
        hints: &[Option<(usize, usize)>],
    ) -> Option<(usize, usize)> {
        let floor = th - TOUCH;
        let mut best = Best { floor, best: f64::NEG_INFINITY, stop: floor, at: None };
        let (i, j) = at;
        for (k, hint) in hints.iter().enumerate() {
            let Some((hi, hj)) = *hint else { continue };
            if hints[..k].contains(hint) {
                continue;
            }
            if self.cells(eye, (hi.saturating_sub(1), hj.saturating_sub(1)), (hi + 2, hj + 2), &mut best) {
                return best.at;
            }
        }
        if self.cells(eye, (i.saturating_sub(1), j.saturating_sub(1)), (i + 1, j + 1), &mut best) {
            return best.at;
        }
        self.descend(eye, &mut best);
        best.at.filter(|_| best.best >= floor)
    }

    /// The candidates of cell (i, j); true once `best` says stop.
    fn one_cell(&self, eye: &GeoEye, i: usize, j: usize, best: &mut Best) -> bool {
        let c = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(di, dj)| self.pqw(eye.vertex(i + di, j + dj)));
        self.cell(eye, i, j, &c, best)
    }

    /// The candidates of the cells (i, j) with `i0` ≤ i < `i1`, `j0` ≤ j < `j1` (at most 3 × 3,
    /// clipped to the grid); true once `best` says stop.
    fn cells(&self, eye: &GeoEye, (i0, j0): (usize, usize), (i1, j1): (usize, usize), best: &mut Best) -> bool {
        let hf = eye.s.heightfield();
        let (i1, j1) = (i1.min(hf.nx() - 1), j1.min(hf.ny() - 1));
        debug_assert!(i1 <= i0 + 3 && j1 <= j0 + 3);
        let mut m = [[0.0; 3]; 16];
        let w = i1 + 1 - i0;
        for jj in j0..=j1 {
            for ii in i0..=i1 {
                m[(jj - j0) * w + (ii - i0)] = self.pqw(eye.vertex(ii, jj));
            }
        }
        for jj in j0..j1 {
            for ii in i0..i1 {
                let k = (jj - j0) * w + (ii - i0);
                if self.cell(eye, ii, jj, &[m[k], m[k + 1], m[k + w], m[k + w + 1]], best) {
                    return true;
                }
            }
        }
        false
    }

    /// The least target height (≥ 0) above P₀ at which the target is seen (a target at exactly that
    /// height touches the sight line).
    pub fn needed_height(&self, eye: &GeoEye) -> f64 {
        let mut best = Best { floor: 0.0, best: 0.0, stop: f64::INFINITY, at: None };
        self.descend(eye, &mut best);
        best.best
    }

    /// Reference: [`Sight::hidden`] over every triangle of the grid.
    pub fn brute_hidden(&self, eye: &GeoEye, th: f64) -> bool {
        let floor = th - TOUCH;
        let mut best = Best { floor, best: f64::NEG_INFINITY, stop: f64::INFINITY, at: None };
        self.brute(eye, &mut best);
        best.best >= floor
    }

    /// Reference: [`Sight::needed_height`] over every triangle of the grid.
    pub fn brute_needed(&self, eye: &GeoEye) -> f64 {
        let mut best = Best { floor: 0.0, best: 0.0, stop: f64::INFINITY, at: None };
        self.brute(eye, &mut best);
        best.best
    }

    fn brute(&self, eye: &GeoEye, best: &mut Best) {
        let hf = eye.s.heightfield();
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        for j in 0..ncy {
            for i in 0..ncx {
                self.one_cell(eye, i, j, best);
            }
        }
    }

    /// Candidates of cell (i, j) with corners `c` = [(i, j), (i+1, j), (i, j+1), (i+1, j+1)] in Π's
    /// coordinates; true once `best` says stop.
    #[inline(always)]
    fn cell(&self, eye: &GeoEye, i: usize, j: usize, c: &[Pqw; 4], best: &mut Best) -> bool {
        let hf = eye.s.heightfield();
        if hf.is_cell_masked(i, j) {
            return false;
        }
        let anti = hf.diagonal().is_anti(i, j);
        for half in [Half::South, Half::North] {
            let k = corner_offsets(anti, half).map(|(di, dj)| dj * 2 + di);
            if k.iter().any(|&k| c[k][0].is_nan()) {
                continue;
            }
            for (a, b) in [(k[0], k[1]), (k[1], k[2]), (k[2], k[0])] {
                // A fixed order per edge: the same crossing from both of its triangles.
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                if self.edge(&c[a], &c[b], best) {
                    best.at = Some((i, j));
                    return true;
                }
            }
        }
        false
    }

    /// The candidates of edge (a, b): its ends on Π, or its crossing.
    #[inline(always)]
    fn edge(&self, a: &Pqw, b: &Pqw, best: &mut Best) -> bool {
        let (sa, sb) = (a[0], b[0]);
        if sa == 0.0 && best.take(self.needed(a[1], a[2])) {
            return true;
        }
        if sb == 0.0 && best.take(self.needed(b[1], b[2])) {
            return true;
        }
        if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
            let l = sa / (sa - sb);
            let (q, w) = (a[1] + l * (b[1] - a[1]), a[2] + l * (b[2] - a[2]));
            return best.take(self.needed(q, w));
        }
        false
    }

    /// The descent of the box tree: boxes that may hold a candidate above `best`'s floor.
    fn descend(&self, eye: &GeoEye, best: &mut Best) {
        let boxes = &eye.s.boxes;
        let top = boxes.levels.len() - 1;
        // At most 3 waiting per level plus one (the tree has at most 33 levels).
        let mut stack: ArrayVec<(usize, usize, usize), 112> = ArrayVec::new();
        if self.may_hold(eye, boxes.root(), best).is_some() {
            stack.push((top, 0, 0));
        }
        while let Some((level, bi, bj)) = stack.pop() {
            if level == 0 {
                if self.leaf(eye, bi, bj, best) {
                    return;
                }
                continue;
            }
            let (w, h, _) = boxes.levels[level - 1];
            let mut kids: ArrayVec<(f64, usize, usize), 4> = ArrayVec::new();
            for (ci, cj) in [(2 * bi, 2 * bj), (2 * bi + 1, 2 * bj), (2 * bi, 2 * bj + 1), (2 * bi + 1, 2 * bj + 1)] {
                if ci < w && cj < h {
                    if let Some(near) = self.may_hold(eye, boxes.get(level - 1, ci, cj), best) {
                        kids.push((near, ci, cj));
                    }
                }
            }
            // The box reaching nearest the target is popped first: blockers of a hidden target
            // are most often near it.
            kids.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            for (_, ci, cj) in kids {
                stack.push((level - 1, ci, cj));
            }
        }
    }

    /// Whether box `bx`, grown by the largest raise of its vertices, may hold a candidate whose
    /// `needed` reaches `best`'s current floor: it straddles Π, overlaps 0 < q < q_P, and some
    /// corner is not below the segment to a target at that height (each a linear function, so
    /// its extremes over the box are at corners). `Some` with how near to the target the box
    /// reaches (its largest q, at most q_P) when it may.
    fn may_hold(&self, eye: &GeoEye, bx: &Bx, best: &Best) -> Option<f64> {
        if bx[0] > bx[3] {
            return None;
        }
        let (lo, hi) = (
            DVec3::new(bx[0] as f64, bx[1] as f64, bx[2] as f64),
            DVec3::new(bx[3] as f64, bx[4] as f64, bx[5] as f64),
        );
        // Every vertex V = A + h·B in the box has |A − A_o| ≤ |V − A_o| + |h|; its raise moves it
        // by at most |k|·(that)² in any direction: the box grows by that much.
        let grow = if eye.k == 0.0 {
            0.0
        } else {
            let far = (lo - eye.ao).abs().max((hi - eye.ao).abs()).length() + eye.hmax;
            eye.k.abs() * far * far * (1.0 + 1e-9) + SLACK
        };
        let (lo, hi) = (lo - grow, hi + grow);
        // s, q and w − slope·q are linear in the point: over the box each ranges over its value at
        // the centre ± |gradient|·half-extent (the extremes at corners, without the 8 corners).
        let (r, half) = ((lo + hi) * 0.5 - self.e, (hi - lo) * 0.5);
        let range = |g: DVec3| {
            let (mid, reach) = (r.dot(g), g.abs().dot(half));
            (mid - reach, mid + reach)
        };
        let m = SLACK;
        let t = best.floor.max(best.best);
        let slope = (self.wp0 + t) / self.qp;
        let a = self.b - self.qa * slope;
        let (smin, smax) = range(self.n);
        let (qmin, qmax) = range(self.qa);
        let (_, amax) = range(a);
        // The rounding of the last, whose gradient grows with the slope (n and qa are unit).
        let tol = 8.0 * f64::EPSILON * (r.abs() + half).dot(a.abs());
        (smin <= m && smax >= -m && qmax >= -m && qmin <= self.qp + m && amax >= -m - TOUCH - tol)
            .then_some(qmax.min(self.qp))
    }

    /// The candidates of leaf block (bi, bj); true once `best` says stop.
    fn leaf(&self, eye: &GeoEye, bi: usize, bj: usize, best: &mut Best) -> bool {
        let hf = eye.s.heightfield();
        let n = eye.s.boxes.leaf;
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        let (i0, j0) = (bi * n, bj * n);
        let (i1, j1) = ((i0 + n).min(ncx), (j0 + n).min(ncy));
        let w = i1 - i0 + 1;
        let mut m = [[0.0; 3]; 81];
        for j in j0..=j1 {
            for i in i0..=i1 {
                m[(j - j0) * w + (i - i0)] = self.pqw(eye.vertex(i, j));
            }
        }
        for j in j0..j1 {
            for i in i0..i1 {
                let k = (j - j0) * w + (i - i0);
                let c = [m[k], m[k + 1], m[k + w], m[k + w + 1]];
                // No edge of a cell whose corners are all strictly on one side of Π crosses it.
                if c.iter().all(|p| p[0] > 0.0) || c.iter().all(|p| p[0] < 0.0) {
                    continue;
                }
                if self.cell(eye, i, j, &c, best) {
                    return true;
                }
            }
        }
        false
    }
}
