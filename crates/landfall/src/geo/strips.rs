//! The strip walk: rays on a [`GeoSurface`] walked through the columns of cells they cross, with
//! whole blocks of columns skipped by a height bound. It serves every ray of a surface that
//! [`Strips::new`] accepts; the box-tree descent (`walk.rs`) serves the others.
//!
//! **Columns, exactly.** The samples of column i (longitude λᵢ) lie in the meridian half-plane
//! gᵢ(X) = −sin λᵢ·X + cos λᵢ·Y = 0 (ECEF), so every triangle of the cells between columns i and
//! i + w lies in the wedge {gᵢ ≥ 0, gᵢ₊w ≤ 0} (less than 180° wide: the antipodal wedge is excluded
//! by the tile's half-space below). Along the ray X(t) = X₀ + t·D, g is linear in t; the ray is in a
//! wedge on one t interval, widened by μ = 1e-6 m of g (rounding of the vertices and of g is below
//! 1e-8 m), and longitude is monotone along a line that does not meet the axis, so the wedges come
//! in the order of `X₀ × D`'s z (east or west).
//!
//! **Rows, with a margin.** With r the distance from the axis, sⱼ(X) = Z cos φⱼ − r sin φⱼ +
//! Nⱼe² sin φⱼ cos φⱼ is the signed distance (metres, in the meridian plane) from the ellipsoid
//! normal line at latitude φⱼ: ≥ 0 north of it, decreasing in j. Samples of rows ≥ j have sⱼ ≥ 0
//! and samples of rows ≤ j have sⱼ ≤ 0 (exactly up to rounding; heights above −1,000 km). sⱼ is
//! concave or convex in X (±r), so a chord triangle of a cell Δλ wide leaves that half-space by at
//! most r·(1 − cos(Δλ/2)) ≤ r_max·Δλ²/8, and along a segment of the ray inside a wedge w cells
//! wide sⱼ stays within r_max·(wΔλ)²/8 of the range of its ends' values. At the ends r is taken as
//! u·X with u the wedge's western column's radial direction (linear in t, ≤ r, short by at most
//! r_max·(wΔλ)²/1.99 for wΔλ ≤ 0.1 rad). So the segment may meet cells of row j only if
//! max(sⱼ(ends)) ≥ −M and min(sⱼ₊₁(ends)) ≤ M with M = r_max·(wΔλ)² + 1e-6 m: a contiguous range
//! of rows, found from the previous end's rows by a Newton guess and unit steps.
//!
//! **Heights, a lower bound.** For P outside the ellipsoid's evolute, f(φ) = r cos φ + Z sin φ −
//! a√(1 − e² sin² φ) has f′ = s(φ), decreasing over the tile's latitudes, and its maximum f(φ_P) is
//! P's geodetic height; so h(P) ≥ L(P) = cos φⱼ·(u·X) + sin φⱼ·Z − Nⱼ(1 − e² sin² φⱼ) for any row j
//! and any horizontal unit u (u·X ≤ r, cos φⱼ ≥ 0), and L is linear along the ray. The set
//! {h ≤ hmax} is convex (the ellipsoid's parallel body), so every triangle with vertices at most
//! hmax high lies in it. A wedge segment whose L exceeds its cells' highest sample (by 1e-6 m) at
//! both ends meets none of them: it is skipped. Blocks of 4ᵏ × 4ᵏ cells keep their highest sample
//! (levels 1…3; single columns read their samples). The walk takes the wedges of 64 columns in the
//! ray's order and splits each wedge it cannot skip into four, down to single columns; a wedge is
//! first tested against the enclosing wedge's bound (its rows are a subset), before its own rows
//! are found; a segment across more than two block rows (a ray near a meridian's direction) is
//! halved in t. In a single column each candidate cell is tested with the descent's exact
//! watertight test, its corners mapped by the same arithmetic, so the answers are the descent's
//! bit for bit where the first triangle is the same.
//!
//! **Where it serves.** Grids spanning at most 10° of longitude and of latitude, heights within
//! ±1,000 km, whose root box lies at least 1,000 km from the Earth's axis (so at least that far
//! from its centre, outside the evolute, and the ray never meets the axis): not within ~80 km of a
//! pole for a 1° tile. Elsewhere the descent.

use super::boxes::{Boxes, SlabRay};
use super::enu::EnuFrame;
use super::shear::{Mapped, Shear};
use super::surface::{triangle_hit, GeoSurface};
use super::walk::Sink;
use super::wgs84::{prime_vertical_radius, sin_cos_deg, E2};
use crate::geom::{Half, Ray};
use crate::Heightfield;
use glam::DVec3;

/// Slack of the meridian-plane tests, metres of g.
const MU: f64 = 1e-6;
/// Slack of the height bound, metres.
const H_EPS: f64 = 1e-6;
/// Widest top wedge, radians (the margins' series hold below it).
const MAX_WEDGE: f64 = 0.1;
/// Highest level of wedges (4³ = 64 columns): the walk starts there, the wedges of the top level
/// taken in the ray's order (fewer levels above the cells cost less than the pruning they bring:
/// see `docs/benchmarks.md`).
const MAX_TOP: usize = 3;
/// Widest grid the walk serves, degrees.
const MAX_SPAN: f64 = 10.0;
/// Closest the root box may come to the Earth's axis, metres.
const MIN_AXIS: f64 = 1.0e6;

/// One row line: cos φ, sin φ, N e² sin φ cos φ (for s), N (1 − e² sin² φ) (for L).
#[derive(Clone, Copy, Debug)]
struct RowLine {
    cos: f64,
    sin: f64,
    k: f64,
    big_k: f64,
}

/// The strip walk's tables: columns' (cos λ, sin λ), row lines, highest samples of 4ᵏ blocks.
#[derive(Clone, Debug)]
pub(crate) struct Strips {
    cols: Vec<[f64; 2]>,
    rows: Vec<RowLine>,
    /// Per level k ≥ 1: (blocks per row, highest sample per block of 4ᵏ × 4ᵏ cells, NaN-free;
    /// −∞ where every sample is nodata).
    maxes: Vec<(usize, Vec<f32>)>,
    /// Level of the top wedges.
    top: usize,
    /// Row margin per level (see the module docs).
    margin: Vec<f64>,
}

impl Strips {
    /// The tables for `hf` (x longitude, y latitude, degrees) in `frame`, or `None` where the walk
    /// does not serve (see the module docs).
    pub fn new(hf: &Heightfield, frame: &EnuFrame, boxes: &Boxes) -> Option<Self> {
        let (o, s) = (hf.origin(), hf.spacing());
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        if ncx as f64 * s.x > MAX_SPAN || ncy as f64 * s.y > MAX_SPAN || !(s.x > 0.0 && s.y > 0.0) {
            return None;
        }
        if let Some((lo, hi)) = hf.height_range() {
            if !(lo as f64 >= -1.0e6 && hi as f64 <= 1.0e6) {
                return None;
            }
        }
        // Every point of the root box at least MIN_AXIS from the axis, on the tile's side of it.
        let b = boxes.root();
        let (lo, hi) =
            (DVec3::new(b[0] as f64, b[1] as f64, b[2] as f64), DVec3::new(b[3] as f64, b[4] as f64, b[5] as f64));
        if !(lo.cmple(hi).all()) {
            return None;
        }
        let centre = frame.to_ecef((lo + hi) * 0.5);
        let half = ((hi - lo) * 0.5).length();
        let mid = (o.x + ncx as f64 * s.x * 0.5).to_radians();
        let axis = centre.x * mid.cos() + centre.y * mid.sin();
        if axis - half < MIN_AXIS || axis.is_nan() || half.is_nan() {
            return None;
        }
        let r_max = centre.length() + half;
        let cols = (0..=ncx)
            .map(|i| {
                let (sl, cl) = (o.x + i as f64 * s.x).to_radians().sin_cos();
                [cl, sl]
            })
            .collect();
        let rows = (0..=ncy)
            .map(|j| {
                let (sin, cos) = sin_cos_deg(o.y + j as f64 * s.y);
                let n = prime_vertical_radius(sin);
                RowLine { cos, sin, k: n * E2 * sin * cos, big_k: n * (1.0 - E2 * sin * sin) }
            })
            .collect();
        let dl = s.x.to_radians();
        let mut top = 0;
        while (4usize.pow(top as u32 + 1) as f64) * dl <= MAX_WEDGE && 4usize.pow(top as u32) < ncx {
            top += 1;
        }
        top = top.min(MAX_TOP);
        let margin = (0..=top).map(|k| r_max * (4usize.pow(k as u32) as f64 * dl).powi(2) + 1e-6).collect();
        let mut maxes = Vec::new();
        for k in 1..=top {
            let w = 4usize.pow(k as u32);
            let (bx, by) = (ncx.div_ceil(w), ncy.div_ceil(w));
            let mut m = vec![f32::NEG_INFINITY; bx * by];
            for j in 0..=ncy {
                // A sample is a corner of the cells of blocks on both sides of a block line.
                let bjs = [j.saturating_sub(1) / w, j.min(ncy - 1) / w];
                for i in 0..=ncx {
                    let h = hf.sample(i, j);
                    if h.is_nan() {
                        continue;
                    }
                    let bis = [i.saturating_sub(1) / w, i.min(ncx - 1) / w];
                    for bj in bjs {
                        for bi in bis {
                            let e = &mut m[bj * bx + bi];
                            *e = e.max(h);
                        }
                    }
                }
            }
            maxes.push((bx, m));
        }
        Some(Self { cols, rows, maxes, top, margin })
    }

    /// Bytes used.
    pub fn memory_bytes(&self) -> usize {
        self.cols.len() * 16 + self.rows.len() * 32 + self.maxes.iter().map(|(_, m)| m.len() * 4).sum::<usize>()
    }

    /// s of row line j at the point (u·X, Z).
    #[inline(always)]
    fn s(&self, j: usize, r: f64, z: f64) -> f64 {
        let l = &self.rows[j];
        z * l.cos - r * l.sin + l.k
    }

    /// For one end (r = u·X, z = Z): (the first block line with s ≤ `m`, the first with s ≤ −`m`),
    /// block lines b = 0…=⌈ncy / w⌉ at row lines min(b·w, ncy) (s decreases along them), stepped
    /// from `guess` (a row line, kept for the next end).
    #[inline(always)]
    fn block_lines(&self, w: usize, r: f64, z: f64, m: f64, guess: &mut usize) -> (usize, usize) {
        let ncy = self.rows.len() - 1;
        let nb = ncy.div_ceil(w);
        let line = |b: usize| self.s((b * w).min(ncy), r, z);
        let mut b = (*guess / w).min(nb);
        while b > 0 && line(b - 1) <= m {
            b -= 1;
        }
        while b <= nb && line(b) > m {
            b += 1;
        }
        let first = b;
        while b <= nb && line(b) > -m {
            b += 1;
        }
        *guess = (first * w).min(ncy);
        (first, b)
    }

    /// The block rows (of `w` rows) that a wedge segment with ends (ra, za), (rb, zb) may meet
    /// (see the module docs): `lo..=hi`, or `None`.
    #[inline(always)]
    fn block_rows(&self, w: usize, ends: [(f64, f64); 2], m: f64, guess: &mut usize) -> Option<(usize, usize)> {
        let nb = (self.rows.len() - 1).div_ceil(w);
        let (a0, a1) = self.block_lines(w, ends[0].0, ends[0].1, m, guess);
        let (b0, b1) = self.block_lines(w, ends[1].0, ends[1].1, m, guess);
        // Block row k has south line k and north line k + 1: candidates where s_k ≥ −M at some end
        // (k < first line with s ≤ −M) and s_(k+1) ≤ M at some end (k + 1 ≥ first line with s ≤ M).
        let hi = a1.max(b1).min(nb);
        let lo = a0.min(b0).saturating_sub(1);
        (hi > 0 && lo < hi).then(|| (lo, hi - 1))
    }
}

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
