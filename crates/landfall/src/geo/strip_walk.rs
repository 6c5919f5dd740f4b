//! The strip walk of a ray over a [`GeoSurface`]: the method, its bounds and its tables are in
//! `strips.rs`.

use super::boxes::SlabRay;
use super::shear::{Mapped, Shear};
use super::strips::{RowLine, Strips, H_EPS, MU};
use super::surface::{triangle_hit, GeoSurface};
use super::walk::Sink;
use crate::geom::{Half, Ray};
use glam::DVec3;

/// The ray in ECEF and its prepared tests.
struct StripRay {
    x0: DVec3,
    d: DVec3,
    east: bool,
    sh: Shear,
    t_lo: f64,
    guess: usize,
}

impl GeoSurface {
    /// The strip walk of `ray` over t in [`t_lo`, the sink's limit]; false when the surface has no
    /// strip tables (the caller descends the box tree).
    pub(super) fn strip_walk(&self, ray: &Ray, t_lo: f64, sink: &mut impl Sink) -> bool {
        let Some(st) = self.strips.as_ref() else { return false };
        let (o, d) = (ray.origin, ray.dir);
        let Some((t0, t1)) = SlabRay::new(o, d).hit(self.boxes.root(), t_lo, sink.limit()) else { return true };
        let f = self.frame();
        let (x0, dx) = (f.to_ecef(o), f.dir_to_ecef(d));
        let east = x0.x * dx.y - x0.y * dx.x >= 0.0;
        let mut r = StripRay { x0, d: dx, east, sh: Shear::new(o, d), t_lo, guess: self.heightfield().ny() / 2 };
        let ncx = self.heightfield().nx() - 1;
        let roof = (st.rows[0], f64::INFINITY);
        self.children(st, &mut r, st.top + 1, 0, ncx, t0, t1, roof, sink);
        true
    }

    /// The wedges of level `level − 1` between columns `c0` and `c1`, in the ray's order, each over
    /// its part of [ta, tb].
    #[allow(clippy::too_many_arguments)]
    fn children(
        &self,
        st: &Strips,
        r: &mut StripRay,
        level: usize,
        c0: usize,
        c1: usize,
        ta: f64,
        tb: f64,
        roof: (RowLine, f64),
        sink: &mut impl Sink,
    ) {
        let w = 4usize.pow(level as u32 - 1);
        let n = (c1 - c0).div_ceil(w);
        // g of column c along the ray: a + b·t (metres from its meridian plane, east positive).
        let (x0, d) = (r.x0, r.d);
        let plane = |c: usize| -> (f64, f64) {
            let [cl, sl] = st.cols[c];
            (cl * x0.y - sl * x0.x, cl * d.y - sl * d.x)
        };
        // {t : a + b t ≥ −MU}
        let east_of = |(a, b): (f64, f64)| -> (f64, f64) {
            if b > 0.0 {
                ((-MU - a) / b, f64::INFINITY)
            } else if b < 0.0 {
                (f64::NEG_INFINITY, (-MU - a) / b)
            } else if a >= -MU {
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                (f64::INFINITY, f64::NEG_INFINITY)
            }
        };
        // {t : a + b t ≤ MU}
        let west_of = |(a, b): (f64, f64)| -> (f64, f64) {
            if b > 0.0 {
                (f64::NEG_INFINITY, (MU - a) / b)
            } else if b < 0.0 {
                ((MU - a) / b, f64::INFINITY)
            } else if a <= MU {
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                (f64::INFINITY, f64::NEG_INFINITY)
            }
        };
        // In the ray's order; each boundary plane computed once (carried to the next wedge). Wedges
        // the segment's start is already past (g beyond MU there) are skipped on one plane each;
        // the walk stops at the first wedge that starts after the segment's end.
        let east = r.east;
        let mut k = 0;
        let mut prev = plane(if east { c0 } else { c1 });
        while k + 1 < n {
            let m = if east { k } else { n - 1 - k };
            let next = plane(if east { (c0 + (m + 1) * w).min(c1) } else { c0 + m * w });
            let g = next.0 + next.1 * ta;
            if (east && g > MU) || (!east && g < -MU) {
                prev = next;
                k += 1;
            } else {
                break;
            }
        }
        for k in k..n {
            let m = if east { k } else { n - 1 - k };
            let (wc, ec) = (c0 + m * w, (c0 + (m + 1) * w).min(c1));
            let next = plane(if east { ec } else { wc });
            let (west, eastp) = if east { (prev, next) } else { (next, prev) };
            prev = next;
            let (e0, e1) = east_of(west);
            let (w0, w1) = west_of(eastp);
            let lo = ta.max(e0).max(w0);
            let hi = tb.min(e1).min(w1);
            if lo > tb.min(sink.limit()) {
                break;
            }
            if lo <= hi {
                self.wedge(st, r, level - 1, wc, ec, lo, hi, roof, sink);
            }
        }
    }

    /// The ray over [ta, tb] in the wedge of columns c0…c1 (level `level`): rows, height bound,
    /// then the four narrower wedges or, for one column, its cells.
    #[allow(clippy::too_many_arguments)]
    fn wedge(
        &self,
        st: &Strips,
        r: &mut StripRay,
        level: usize,
        c0: usize,
        c1: usize,
        ta: f64,
        tb: f64,
        roof: (RowLine, f64),
        sink: &mut impl Sink,
    ) {
        let tb = tb.min(sink.limit());
        if ta > tb {
            return;
        }
        let [c, s] = st.cols[c0];
        let (pa, pb) = (r.x0 + r.d * ta, r.x0 + r.d * tb);
        let (ra, za) = (c * pa.x + s * pa.y, pa.z);
        let (rb, zb) = (c * pb.x + s * pb.y, pb.z);
        // Below the enclosing wedge's roof (its candidate cells' highest sample, a superset of
        // this segment's): skipped before its own rows are found.
        let (l, top) = roof;
        if l.cos * ra + l.sin * za - l.big_k > top && l.cos * rb + l.sin * zb - l.big_k > top {
            return;
        }
        let w = 4usize.pow(level as u32);
        let Some((lo, hi)) = st.block_rows(w, [(ra, za), (rb, zb)], st.margin[level], &mut r.guess) else { return };
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
            let bi = c0 / w;
            let mut h = f32::NEG_INFINITY;
            for bj in lo..=hi {
                h = h.max(mx[bj * bx + bi]);
            }
            h
        };
        let ncy = st.rows.len() - 1;
        let l = &st.rows[((lo + hi).div_ceil(2) * w).min(ncy)];
        let bound = hmax as f64 + H_EPS;
        let own = (*l, bound);
        if l.cos * ra + l.sin * za - l.big_k > bound && l.cos * rb + l.sin * zb - l.big_k > bound {
            return;
        }
        // A segment across more than two block rows of its level (a ray near a meridian's
        // direction) is halved in t first: the halves' rows and bounds are tighter.
        if hi - lo >= 2 && tb - ta > 1e-9 * (1.0 + ta.abs().max(tb.abs())) {
            let tm = 0.5 * (ta + tb);
            self.wedge(st, r, level, c0, c1, ta, tm, own, sink);
            self.wedge(st, r, level, c0, c1, tm, tb, own, sink);
            return;
        }
        if level > 0 {
            self.children(st, r, level, c0, c1, ta, tb, own, sink);
            return;
        }
        self.strip_cells(r, c0, lo, hi, sink);
    }

    /// The cells of column i, rows lo…=hi, tested exactly (as a leaf of the descent tests them).
    fn strip_cells(&self, r: &StripRay, i: usize, lo: usize, hi: usize, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        let map = |i: usize, j: usize| -> Mapped { r.sh.map(self.sample_enu(i, j)) };
        let (mut p00, mut p10) = (map(i, lo), map(i + 1, lo));
        for j in lo..=hi {
            let (p01, p11) = (map(i, j + 1), map(i + 1, j + 1));
            let m = [p00, p10, p01, p11];
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
