//! The strip walk of a ray over a [`GeoSurface`]: the method, its bounds and its tables are in
//! `strips.rs`.

use super::boxes::SlabRay;
use super::shear::{Mapped, Shear};
use super::strips::{RowLine, Strips, H_EPS, MAX_TOP, MU};
use super::surface::{map3, triangle_hit, GeoSurface};
use super::walk::Sink;
use crate::geom::{Half, Ray};
use crate::heightfield::cell::corner_offsets;
use glam::DVec3;

/// Most rows of one column whose cells are tested without halving the segment first.
const MAX_RUN: usize = 8;

/// The ray in ECEF and its prepared tests.
struct StripRay {
    x0: DVec3,
    d: DVec3,
    sh: Shear,
    t_lo: f64,
    guess: usize,
}

/// What the test of one wedge segment calls for.
enum Verdict {
    /// Nothing there (outside the sink's range or below its bounds).
    Done,
    /// Its cells tested (a single column).
    Walked,
    /// Its narrower wedges, under its own roof.
    Descend(Roof),
    /// The segment [ta, tb] (its end cut to the sink's limit) halved, under its own roof.
    Halve(Roof, f64, f64),
}

/// A wedge's row line and highest sample: the lower bound that its narrower wedges try first.
type Roof = (RowLine, f64);

/// g of column c along the ray: a + b·t (metres from its meridian plane, east positive).
#[inline(always)]
fn plane(st: &Strips, r: &StripRay, c: usize) -> (f64, f64) {
    let [cl, sl] = st.cols[c];
    (cl * r.x0.y - sl * r.x0.x, cl * r.d.y - sl * r.d.x)
}

/// The larger of `a` and `b`, `a` when `b` is NaN (one `maxss`: `f32::max` adds a NaN test).
#[inline(always)]
fn max32(a: f32, b: f32) -> f32 {
    if b > a {
        b
    } else {
        a
    }
}

/// The larger of `a` and `b` (NaN-free: the walk's t bounds), as one `maxsd`.
#[inline(always)]
fn max64(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// The smaller of `a` and `b` (NaN-free: the walk's t bounds), as one `minsd`.
#[inline(always)]
fn min64(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// {t : a + b t ≥ −MU}
#[inline(always)]
fn east_of((a, b): (f64, f64)) -> (f64, f64) {
    if b > 0.0 {
        ((-MU - a) / b, f64::INFINITY)
    } else if b < 0.0 {
        (f64::NEG_INFINITY, (-MU - a) / b)
    } else if a >= -MU {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    }
}

/// {t : a + b t ≤ MU}: `east_of` of the negated plane (the same bits: IEEE negation and division
/// are exact).
#[inline(always)]
fn west_of((a, b): (f64, f64)) -> (f64, f64) {
    east_of((-a, -b))
}

impl GeoSurface {
    /// The strip walk of `ray` over t in [`t_lo`, the sink's limit]; false when the surface has no
    /// strip tables (the caller descends the box tree).
    ///
    /// Stackless, in the ray's order: the wedge of the current level that holds the ray is tested;
    /// when it may hold a crossing the walk descends into its first child the ray meets, else (or
    /// after its cells) it steps to the next wedge of that level and, unless it has just walked
    /// cells, climbs while that step left the parent, so that skipped ground is tested by the
    /// widest wedge that starts there. It starts in the start's column when the ray starts near
    /// the ground, else in the top wedge. Each wedge's meridian plane on the side the ray enters is
    /// the previous wedge's exit plane.
    pub(super) fn strip_walk(&self, ray: &Ray, t_lo: f64, sink: &mut impl Sink) -> bool {
        let Some(st) = self.strips.as_ref() else { return false };
        let (o, d) = (ray.origin, ray.dir);
        let Some((t0, t1)) = SlabRay::new(o, d).hit(self.boxes.root(), t_lo, sink.limit()) else { return true };
        let f = self.frame();
        let (x0, dx) = (f.to_ecef(o), f.dir_to_ecef(d));
        let east = x0.x * dx.y - x0.y * dx.x >= 0.0;
        let mut r = StripRay { x0, d: dx, sh: Shear::new(o, d), t_lo, guess: self.heightfield().ny() / 2 };
        let ncx = self.heightfield().nx() - 1;
        let top = st.top;
        // The first column in the ray's order whose widened wedge may hold the ray's start (an
        // earlier start would only cost empty wedges). A ray starting near the ground (below the
        // highest sample of its top block: a line of sight) starts in that column, as the
        // projected walk starts in its leaf; any other in the top wedge holding it.
        let p0 = x0 + dx * t0;
        let start = st.start_column(p0, east);
        let mut level = if st.near_ground(start, p0) { 0 } else { top };
        let mut m = start >> (2 * level);
        let wedges = |level: usize| (ncx + (1 << (2 * level)) - 1) >> (2 * level);
        // roofs[k]: the roof of the current wedge's parent (k < top); none above the top, nor
        // where the walk stayed low across the parent's border.
        let none = (st.rows[0], f64::INFINITY);
        let mut roofs = [none; MAX_TOP + 1];
        let edge = |level: usize, m: usize, far: bool| -> usize {
            let w = 1 << (2 * level);
            if east == far {
                ((m + 1) * w).min(ncx)
            } else {
                m * w
            }
        };
        let mut entry = plane(st, &r, edge(level, m, false));
        loop {
            // The walk stops at the first wedge that starts after the ray's end, before its exit
            // plane is found (such a wedge is not past: at the start g decreases with the column).
            let enter = if east { east_of(entry).0 } else { west_of(entry).0 };
            if enter > min64(t1, sink.limit()) {
                break;
            }
            let exit = plane(st, &r, edge(level, m, true));
            // A wedge the ray's start is already past (beyond its exit plane's slack: it stays past,
            // longitude being monotone along the ray) is stepped over; the walk stops at the first
            // other wedge that starts after the ray's end.
            let g = exit.0 + exit.1 * t0;
            let past = if east { g > MU } else { g < -MU };
            let (west, eastp) = if east { (entry, exit) } else { (exit, entry) };
            let (e0, e1) = east_of(west);
            let (w0, w1) = west_of(eastp);
            let ta = max64(max64(t0, e0), w0);
            let tb = min64(min64(t1, e1), w1);
            if !past && ta > min64(t1, sink.limit()) {
                break;
            }
            // Whether the wedge's cells were walked: the walk then stays at its level past the
            // parent's border (near the ground, a climb would only descend again), as the
            // projected walk does.
            let mut walked = false;
            if !past && ta <= tb {
                let c0 = m << (2 * level);
                match self.judge(st, &mut r, level, c0, ta, tb, roofs[level], sink) {
                    Verdict::Done => {}
                    Verdict::Walked => walked = true,
                    Verdict::Descend(own) => {
                        level -= 1;
                        roofs[level] = own;
                        // The first child the ray's start is not past (see the start column).
                        let k = start >> (2 * level);
                        m = if east { (4 * m).max(k) } else { (4 * m + 3).min(wedges(level) - 1).min(k) };
                        entry = plane(st, &r, edge(level, m, false));
                        continue;
                    }
                    Verdict::Halve(own, ta, tb) => {
                        let tm = 0.5 * (ta + tb);
                        self.halves(st, &mut r, c0, (ta, tm), own, sink);
                        self.halves(st, &mut r, c0, (tm, tb), own, sink);
                        walked = true;
                    }
                }
            }
            // The next wedge of this level; past the parent's border, a climb while the step left
            // the parent unless the cells were walked (then the parents' roofs no longer hold).
            entry = exit;
            let border = if east {
                m += 1;
                m % 4 == 0
            } else {
                if m == 0 {
                    break;
                }
                m -= 1;
                m % 4 == 3
            };
            if border && level < top {
                if walked {
                    roofs[level..top].fill(none);
                } else {
                    let edge = if east { 0 } else { 3 };
                    while level < top && m % 4 == edge {
                        m /= 4;
                        level += 1;
                    }
                }
            }
            if east && m >= wedges(level) {
                break;
            }
        }
        true
    }

    /// The ray over [ta, tb] in column `i`, its run of rows halved until each half is short, skipped
    /// or walked.
    fn halves(&self, st: &Strips, r: &mut StripRay, i: usize, (ta, tb): (f64, f64), roof: Roof, sink: &mut impl Sink) {
        match self.judge(st, r, 0, i, ta, tb, roof, sink) {
            // (Descend: not in a single column.)
            Verdict::Done | Verdict::Walked | Verdict::Descend(_) => {}
            Verdict::Halve(own, ta, tb) => {
                let tm = 0.5 * (ta + tb);
                self.halves(st, r, i, (ta, tm), own, sink);
                self.halves(st, r, i, (tm, tb), own, sink);
            }
        }
    }

    /// The test of the ray over [ta, tb] in the wedge of level `level` whose western column is
    /// `c0`: the roof of its parent, its rows, its own height bound; a single column's cells are
    /// tested here.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn judge(
        &self,
        st: &Strips,
        r: &mut StripRay,
        level: usize,
        c0: usize,
        ta: f64,
        tb: f64,
        roof: Roof,
        sink: &mut impl Sink,
    ) -> Verdict {
        let tb = min64(tb, sink.limit());
        if ta > tb {
            return Verdict::Done;
        }
        let [c, s] = st.cols[c0];
        let (pa, pb) = (r.x0 + r.d * ta, r.x0 + r.d * tb);
        let (ra, za) = (c * pa.x + s * pa.y, pa.z);
        let (rb, zb) = (c * pb.x + s * pb.y, pb.z);
        // Below the enclosing wedge's roof (its candidate cells' highest sample, a superset of
        // this segment's): skipped before its own rows are found.
        let (l, top) = roof;
        if l.cos * ra + l.sin * za - l.big_k > top && l.cos * rb + l.sin * zb - l.big_k > top {
            return Verdict::Done;
        }
        let sh = 2 * level as u32;
        let m = st.margin[level];
        let (la, lb) = (st.block_lines(sh, ra, za, m, &mut r.guess), st.block_lines(sh, rb, zb, m, &mut r.guess));
        let Some((lo, hi)) = st.block_rows(sh, la, lb) else {
            return Verdict::Done;
        };
        // Highest sample of the candidate cells.
        let hmax = if level == 0 {
            let hf = self.heightfield();
            let q = hf.corners_f32(c0, lo);
            let mut h = max32(max32(f32::NEG_INFINITY, q[0]), q[1]);
            // (Each row's upper samples: its lower ones are the row below's upper ones.)
            for j in lo..=hi {
                let q = hf.corners_f32(c0, j);
                h = max32(max32(h, q[2]), q[3]);
            }
            h
        } else {
            let (bx, ref mx) = st.maxes[level - 1];
            let bi = c0 >> sh;
            let mut h = f32::NEG_INFINITY;
            for bj in lo..=hi {
                h = max32(h, mx[bj * bx + bi]);
            }
            h
        };
        let ncy = st.rows.len() - 1;
        let l = &st.rows[(((lo + hi + 1) >> 1) << sh).min(ncy)];
        let bound = hmax as f64 + H_EPS;
        let own = (*l, bound);
        if l.cos * ra + l.sin * za - l.big_k > bound && l.cos * rb + l.sin * zb - l.big_k > bound {
            return Verdict::Done;
        }
        // Wider wedges descend. A single column's run of more than MAX_RUN rows (a ray near a
        // meridian's direction) is halved in t first: the halves' rows and bounds are tighter.
        if level > 0 {
            return Verdict::Descend(own);
        }
        if hi - lo >= MAX_RUN && tb - ta > 1e-9 * (1.0 + ta.abs().max(tb.abs())) {
            return Verdict::Halve(own, ta, tb);
        }
        self.strip_cells(r, c0, lo, hi, sink);
        Verdict::Walked
    }

    /// The cells of column i, rows lo…=hi, tested exactly (as a leaf of the descent tests them).
    fn strip_cells(&self, r: &StripRay, i: usize, lo: usize, hi: usize, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        // The corners by the cell's tables: the same bits as `sample_enu`, one bounds check a cell.
        let tables = self.tables();
        // Each corner mapped once (and its sides found once), the upper two carried to the next row.
        let (mut p00, mut p10) = ([0.0; 3], [0.0; 3]);
        let (mut s00, mut s10) = (0, 0);
        for j in lo..=hi {
            let (tc, h) = (tables.cell(i, j), hf.corners_f32(i, j));
            if j == lo {
                (p00, p10) = (r.sh.map(tc.position(0, 0, h[0] as f64)), r.sh.map(tc.position(1, 0, h[1] as f64)));
                (s00, s10) = (Shear::sides(&p00), Shear::sides(&p10));
            }
            let (p01, p11) = (r.sh.map(tc.position(0, 1, h[2] as f64)), r.sh.map(tc.position(1, 1, h[3] as f64)));
            let (s01, s11) = (Shear::sides(&p01), Shear::sides(&p11));
            let m: [Mapped; 4] = [p00, p10, p01, p11];
            let sides = s00 & s10 & s01 & s11;
            (p00, p10, s00, s10) = (p01, p11, s01, s11);
            let border = i == 0 || j == 0 || i + 1 == ncx || j + 1 == ncy;
            if sides != 0 && !border {
                continue;
            }
            let limit = sink.limit();
            if m.iter().all(|p| p[2] < r.t_lo) || m.iter().all(|p| p[2] > limit) || hf.is_cell_masked(i, j) {
                continue;
            }
            let anti = hf.diagonal().is_anti(i, j);
            let eps = if border { crate::heightfield::BORDER_EPS } else { 0.0 };
            for half in [Half::South, Half::North] {
                if let Some(t) = triangle_hit(&m, anti, half, eps) {
                    if t >= r.t_lo && t <= sink.limit() {
                        // The triangle's vertices as `cell_triangle` maps them (the same bits).
                        let v = map3(corner_offsets(anti, half), |(di, dj)| tc.position(di, dj, h[dj * 2 + di] as f64));
                        sink.take_with(t, i, j, half, &v);
                    }
                }
            }
        }
    }
}
