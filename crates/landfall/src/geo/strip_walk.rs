//! The strip walk of a ray over a [`GeoSurface`]: the method, its bounds and its tables are in
//! `strips.rs`.

use super::boxes::SlabRay;
use super::shear::{Mapped, Shear};
use super::strips::{RowLine, Strips, H_EPS, MAX_TOP, MU};
use super::surface::{triangle_hit, GeoSurface};
use super::walk::Sink;
use crate::geom::{Half, Ray};
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
    /// μ·|D|
    mu_d: f64,
}

/// What the test of one wedge segment calls for.
enum Verdict {
    /// Nothing there (below its bounds).
    Done,
    /// A single column's candidate rows lo…=hi, to be tested cell by cell.
    Cells(usize, usize),
    /// Its narrower wedges, under its own roof.
    Descend(Roof),
    /// The segment [ta, tb] halved, under its own roof.
    Halve(Roof),
}

/// A wedge's row line and highest sample: the lower bound that its narrower wedges try first.
type Roof = (RowLine, f64);

/// No boundary column: an [`End`] of its own.
const OWN: usize = usize::MAX;

/// One end of a wedge segment. Where the segment ends on a meridian boundary, the end is that
/// plane's crossing (g = 0), shared by the wedges on both sides of it with its point, radius and
/// block lines computed once; its `run` (the ray's run |D|·μ/|b| from the crossing to either
/// widened interval's end) is added to every margin and bound that it serves.
#[derive(Clone, Copy)]
struct End {
    /// The boundary column whose crossing it is, or [`OWN`] (the ray's start or end, the sink's
    /// limit, a halving, a crossing too oblique to share).
    col: usize,
    t: f64,
    p: DVec3,
    /// Distance from the Earth's axis.
    r: f64,
    /// Metres added to the margins: |D|·μ/|b| for a crossing, 0 for an end of its own.
    run: f64,
    /// The level whose block lines `lines` holds (`OWN`: none yet).
    level: usize,
    lines: (usize, usize),
}

impl End {
    /// The end at t, of its own.
    #[inline(always)]
    fn own(r: &StripRay, t: f64) -> Self {
        Self::at(r, OWN, t, 0.0)
    }

    #[inline(always)]
    fn at(r: &StripRay, col: usize, t: f64, run: f64) -> Self {
        let p = r.x0 + r.d * t;
        Self { col, t, p, r: (p.x * p.x + p.y * p.y).sqrt(), run, level: OWN, lines: (0, 0) }
    }

    /// The crossing of column `col`'s plane (a, b) that stands for the widened end `t` (μ/|b| from
    /// it in t), or an end of its own at `t` where the crossing is oblique enough to make its run
    /// larger than `cap`.
    #[inline(always)]
    fn crossing(r: &StripRay, col: usize, (a, b): (f64, f64), t: f64, cap: f64) -> Self {
        let run = r.mu_d / b.abs();
        if run <= cap {
            Self::at(r, col, -a / b, run)
        } else {
            Self::own(r, t)
        }
    }

    /// Its block lines at `level` (see [`Strips::block_lines`]), kept for the next wedge of that
    /// level.
    #[inline(always)]
    fn lines(&mut self, st: &Strips, level: usize, guess: &mut usize) -> (usize, usize) {
        if self.level != level {
            self.lines = st.block_lines(2 * level as u32, self.r, self.p.z, st.margin[level] + self.run, guess);
            self.level = level;
        }
        self.lines
    }
}

/// g of column c along the ray: a + b·t (metres from its meridian plane, east positive).
#[inline(always)]
fn plane(st: &Strips, r: &StripRay, c: usize) -> (f64, f64) {
    let [cl, sl] = st.cols[c];
    (cl * r.x0.y - sl * r.x0.x, cl * r.d.y - sl * r.d.x)
}

/// Whether [ta, tb] is long enough to halve.
#[inline(always)]
fn halvable(ta: f64, tb: f64) -> bool {
    tb - ta > 1e-9 * (1.0 + ta.abs().max(tb.abs()))
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
    /// after its cells) it steps to the next wedge of that level and climbs while that step left
    /// the parent, so that skipped ground is tested by the widest wedge that starts there. Each
    /// wedge's meridian plane on the side the ray enters is the previous wedge's exit plane.
    pub(super) fn strip_walk(&self, ray: &Ray, t_lo: f64, sink: &mut impl Sink) -> bool {
        let Some(st) = self.strips.as_ref() else { return false };
        let (o, d) = (ray.origin, ray.dir);
        let Some((t0, t1)) = SlabRay::new(o, d).hit(self.boxes.root(), t_lo, sink.limit()) else { return true };
        let f = self.frame();
        let (x0, dx) = (f.to_ecef(o), f.dir_to_ecef(d));
        let east = x0.x * dx.y - x0.y * dx.x >= 0.0;
        let mut r =
            StripRay { x0, d: dx, sh: Shear::new(o, d), t_lo, guess: self.heightfield().ny() / 2, mu_d: MU * dx.length() };
        let ncx = self.heightfield().nx() - 1;
        let top = st.top;
        // The first column in the ray's order whose widened wedge may hold the ray's start (g
        // decreases with the column at a point of the root box, which lies within 82° of the
        // grid's longitudes; an earlier start would only cost empty wedges).
        let p0 = x0 + dx * t0;
        let g = |c: usize| {
            let [cl, sl] = st.cols[c];
            cl * p0.y - sl * p0.x
        };
        let (mut lo, mut hi) = (0, ncx - 1);
        while lo < hi {
            if east {
                let mid = (lo + hi) / 2;
                if g(mid + 1) <= MU {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            } else {
                let mid = (lo + hi).div_ceil(2);
                if g(mid) >= -MU {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
        }
        let start = lo;
        let mut level = top;
        let mut m = start >> (2 * top);
        let wedges = |level: usize| (ncx + (1 << (2 * level)) - 1) >> (2 * level);
        // roofs[k]: the roof of the current wedge's parent (k < top); none above the top.
        let mut roofs = [(st.rows[0], f64::INFINITY); MAX_TOP + 1];
        let edge = |level: usize, m: usize, far: bool| -> usize {
            let w = 1 << (2 * level);
            if east == far {
                ((m + 1) * w).min(ncx)
            } else {
                m * w
            }
        };
        let mut entry = plane(st, &r, edge(level, m, false));
        // The current wedge's entry end (kept while it is the same: the previous wedge's exit, or
        // the parent's entry for its first child).
        let cap = st.margin[0];
        let mut near = End::own(&r, t0);
        loop {
            let exit = plane(st, &r, edge(level, m, true));
            // A wedge the ray's start is already past (beyond its exit plane's slack: it stays past,
            // longitude being monotone along the ray) is stepped over; the walk stops at the first
            // other wedge that starts after the ray's end.
            let g = exit.0 + exit.1 * t0;
            let past = if east { g > MU } else { g < -MU };
            let (west, eastp) = if east { (entry, exit) } else { (exit, entry) };
            let (e0, e1) = east_of(west);
            let (w0, w1) = west_of(eastp);
            let ta = t0.max(e0).max(w0);
            let tb = t1.min(e1).min(w1);
            let limit = sink.limit();
            if !past && ta > t1.min(limit) {
                break;
            }
            let tc = tb.min(limit);
            if !past && ta <= tc {
                let c0 = m << (2 * level);
                // Each end is its boundary's crossing where the widened interval ends there.
                let (entry_lo, exit_hi) = if east { (e0, w1) } else { (w0, e1) };
                let ce = edge(level, m, false);
                if ta > t0 && ta == entry_lo {
                    if near.col != ce {
                        near = End::crossing(&r, ce, entry, ta, cap);
                    }
                } else if near.col != OWN || near.t != ta {
                    near = End::own(&r, ta);
                }
                let mut far = if tc < t1 && tc == exit_hi {
                    End::crossing(&r, edge(level, m, true), exit, tc, cap)
                } else {
                    End::own(&r, tc)
                };
                match self.judge(st, &mut r, level, c0, [&mut near, &mut far], roofs[level], (ta, tc)) {
                    Verdict::Done => {}
                    Verdict::Cells(lo, hi) => self.strip_cells(&r, c0, lo, hi, sink),
                    Verdict::Descend(own) => {
                        level -= 1;
                        roofs[level] = own;
                        // The first child the ray's start is not past (see the start column).
                        let k = start >> (2 * level);
                        m = if east { (4 * m).max(k) } else { (4 * m + 3).min(wedges(level) - 1).min(k) };
                        entry = plane(st, &r, edge(level, m, false));
                        continue;
                    }
                    Verdict::Halve(own) => {
                        let mid = End::own(&r, 0.5 * (ta + tc));
                        self.halves(st, &mut r, c0, (ta, mid.t), [near, mid], own, sink);
                        self.halves(st, &mut r, c0, (mid.t, tc), [mid, far], own, sink);
                    }
                }
                near = far;
            }
            // The next wedge of this level, climbing while the step left the parent.
            entry = exit;
            if east {
                m += 1;
                while level < top && m % 4 == 0 {
                    m /= 4;
                    level += 1;
                }
                if m >= wedges(level) {
                    break;
                }
            } else {
                if m == 0 {
                    break;
                }
                m -= 1;
                while level < top && m % 4 == 3 {
                    m /= 4;
                    level += 1;
                }
            }
        }
        true
    }

    /// The ray over [ta, tb] (ends `ends`) in column `i`, its run of rows halved until each half is
    /// short, skipped or walked.
    #[allow(clippy::too_many_arguments)]
    fn halves(
        &self,
        st: &Strips,
        r: &mut StripRay,
        i: usize,
        (ta, tb): (f64, f64),
        [mut a, mut b]: [End; 2],
        roof: Roof,
        sink: &mut impl Sink,
    ) {
        let tb = tb.min(sink.limit());
        if ta > tb {
            return;
        }
        if b.t > tb {
            b = End::own(r, tb);
        }
        match self.judge(st, r, 0, i, [&mut a, &mut b], roof, (ta, tb)) {
            Verdict::Halve(own) => {
                let mid = End::own(r, 0.5 * (ta + tb));
                self.halves(st, r, i, (ta, mid.t), [a, mid], own, sink);
                self.halves(st, r, i, (mid.t, tb), [mid, b], own, sink);
            }
            Verdict::Cells(lo, hi) => self.strip_cells(r, i, lo, hi, sink),
            // (Descend: not in a single column.)
            Verdict::Done | Verdict::Descend(_) => {}
        }
    }

    /// The test of the ray between the ends `ends` in the wedge of level `level` whose western
    /// column is `c0`: the roof of its parent, its rows, its own height bound; a single column's
    /// long run of rows is halved while [ta, tb] is long enough.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn judge(
        &self,
        st: &Strips,
        r: &mut StripRay,
        level: usize,
        c0: usize,
        [a, b]: [&mut End; 2],
        roof: Roof,
        (ta, tb): (f64, f64),
    ) -> Verdict {
        // The height bound L along the western column's radial direction u (the same u at both
        // ends: L is linear along the ray), less each end's run.
        let [c, s] = st.cols[c0];
        let (ra, za, da) = (c * a.p.x + s * a.p.y, a.p.z, a.run);
        let (rb, zb, db) = (c * b.p.x + s * b.p.y, b.p.z, b.run);
        // Below the enclosing wedge's roof (its candidate cells' highest sample, a superset of
        // this segment's): skipped before its own rows are found.
        let (l, top) = roof;
        if l.cos * ra + l.sin * za - l.big_k - da > top && l.cos * rb + l.sin * zb - l.big_k - db > top {
            return Verdict::Done;
        }
        let sh = 2 * level as u32;
        let (la, lb) = (a.lines(st, level, &mut r.guess), b.lines(st, level, &mut r.guess));
        let Some((lo, hi)) = st.block_rows(sh, la, lb) else {
            return Verdict::Done;
        };
        // Highest sample of the candidate cells.
        let hmax = if level == 0 {
            let hf = self.heightfield();
            let mut h = f32::NEG_INFINITY;
            for j in lo..=hi {
                let q = hf.corners_f32(c0, j);
                h = h.max(q[0]).max(q[1]).max(q[2]).max(q[3]);
            }
            h
        } else {
            let (bx, ref mx) = st.maxes[level - 1];
            let bi = c0 >> sh;
            let mut h = f32::NEG_INFINITY;
            for bj in lo..=hi {
                h = h.max(mx[bj * bx + bi]);
            }
            h
        };
        let ncy = st.rows.len() - 1;
        let l = &st.rows[(((lo + hi + 1) >> 1) << sh).min(ncy)];
        let bound = hmax as f64 + H_EPS;
        let own = (*l, bound);
        if l.cos * ra + l.sin * za - l.big_k - da > bound && l.cos * rb + l.sin * zb - l.big_k - db > bound {
            return Verdict::Done;
        }
        // Wider wedges descend. A single column's run of more than MAX_RUN rows (a ray near a
        // meridian's direction) is halved in t first: the halves' rows and bounds are tighter.
        if level > 0 {
            return Verdict::Descend(own);
        }
        if hi - lo >= MAX_RUN && halvable(ta, tb) {
            return Verdict::Halve(own);
        }
        Verdict::Cells(lo, hi)
    }

    /// The cells of column i, rows lo…=hi, tested exactly (as a leaf of the descent tests them).
    fn strip_cells(&self, r: &StripRay, i: usize, lo: usize, hi: usize, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        // The corners by the cell's tables: the same bits as `sample_enu`, one bounds check a cell.
        let tables = self.tables();
        let (mut p00, mut p10) = ([0.0; 3], [0.0; 3]);
        for j in lo..=hi {
            let (t, h) = (tables.cell(i, j), hf.corners_f32(i, j));
            if j == lo {
                p00 = r.sh.map(t.position(0, 0, h[0] as f64));
                p10 = r.sh.map(t.position(1, 0, h[1] as f64));
            }
            let (p01, p11) = (r.sh.map(t.position(0, 1, h[2] as f64)), r.sh.map(t.position(1, 1, h[3] as f64)));
            let m: [Mapped; 4] = [p00, p10, p01, p11];
            (p00, p10) = (p01, p11);
            let border = i == 0 || j == 0 || i + 1 == ncx || j + 1 == ncy;
            let sides = Shear::sides(&m[0]) & Shear::sides(&m[1]) & Shear::sides(&m[2]) & Shear::sides(&m[3]);
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
                        sink.take(t, i, j, half);
                    }
                }
            }
        }
    }
}
