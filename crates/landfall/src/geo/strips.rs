//! The strip walk: rays on a [`GeoSurface`] walked through the columns of cells they cross, with
//! whole blocks of columns skipped by a height bound. It serves every ray of a surface that
//! [`Strips::new`] accepts; the box-tree descent (`walk.rs`) serves the others. This module holds
//! the method and its tables; the walk itself is `strip_walk.rs`.
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
//! of rows. An end's first block lines are guessed by one Newton step (sⱼ at the previous end's
//! row line j is nearly the end's distance north of it: row j + sⱼ / (M(φ)Δφ)), then checked, two
//! values where the end lies farther than M from both block lines around it, else by unit steps:
//! the guess costs no exactness.
//!
//! **Heights, a lower bound.** For P outside the ellipsoid's evolute, f(φ) = r cos φ + Z sin φ −
//! a√(1 − e² sin² φ) has f′ = s(φ), decreasing over the tile's latitudes, and its maximum f(φ_P) is
//! P's geodetic height; so h(P) ≥ L(P) = cos φⱼ·(u·X) + sin φⱼ·Z − Nⱼ(1 − e² sin² φⱼ) for any row j
//! and any horizontal unit u (u·X ≤ r, cos φⱼ ≥ 0), and L is linear along the ray. The set
//! {h ≤ hmax} is convex (the ellipsoid's parallel body), so every triangle with vertices at most
//! hmax high lies in it. A wedge segment whose L exceeds its cells' highest sample (by 1e-6 m) at
//! both ends meets none of them: it is skipped. Blocks of 4ᵏ × 4ᵏ cells keep their highest sample
//! (levels 1…2; single columns read their samples).
//!
//! **The walk** (`strip_walk.rs`) is stackless, in the ray's order, over wedges of 16, 4 and 1
//! columns: it tests the wedge of its level that holds the ray, first against the enclosing
//! wedge's bound (a wedge's t interval, from its own two planes, lies in its parent's, longitude
//! being monotone, so the parent's rows are a superset), then by its own rows and bound; a wedge
//! it cannot skip it descends into (to the first child the ray's start is not past), one it can
//! it steps over to the next wedge of its level, climbing while the step left the parent unless it
//! has just walked a column's cells (near the ground a climb would only descend again; the
//! parents' roofs are then dropped). It starts at the first column whose widened wedge may hold
//! the ray's start (g decreases with the column at any point of the root box, which lies within
//! 82° of the grid's longitudes): guessed from the start's longitude east of the middle column,
//! then stepped while the planes say so, which gives the bisection's column. A ray starting below
//! the highest sample of its top block (a line of sight) starts in that column, any other in the
//! top wedge holding it. The walk stops at the first wedge that starts after the ray's end or its
//! first hit so far, before that wedge's exit plane is found. A wedge whose exit plane the start
//! is past by more than μ is stepped over: the ray stays past it (g ≥ its start value · 1e6/7.4e6
//! along the box, far above the vertices' rounding). A single column's run of more than 8 rows (a ray near a meridian's
//! direction) is halved in t until it is short or skipped. Each candidate cell is tested with the
//! descent's exact watertight test, its corners mapped once by the same arithmetic (so the answers
//! are the descent's bit for bit where the first triangle is the same), and the first hit's
//! triangle is handed over for its normal rather than mapped again.
//!
//! **Where it serves.** Grids spanning at most 10° of longitude and of latitude, heights within
//! ±1,000 km, whose root box lies at least 1,000 km from the Earth's axis (so at least that far
//! from its centre, outside the evolute, and the ray never meets the axis): not within ~80 km of a
//! pole for a 1° tile. Elsewhere the descent.

use super::boxes::Boxes;
use super::enu::EnuFrame;
use super::wgs84::{prime_vertical_radius, sin_cos_deg, E2};
use crate::Heightfield;
use glam::DVec3;

/// Slack of the meridian-plane tests, metres of g.
pub(super) const MU: f64 = 1e-6;
/// Slack of the height bound, metres.
pub(super) const H_EPS: f64 = 1e-6;
/// Widest top wedge, radians (the margins' series hold below it).
const MAX_WEDGE: f64 = 0.1;
/// Highest level of wedges (4² = 16 columns): the walk starts there (the stackless walk counted
/// fewest instructions with it: see `docs/benchmarks.md`).
pub(super) const MAX_TOP: usize = 2;
/// Widest grid the walk serves, degrees.
const MAX_SPAN: f64 = 10.0;
/// Closest the root box may come to the Earth's axis, metres.
const MIN_AXIS: f64 = 1.0e6;

/// One row line: cos φ, sin φ, N e² sin φ cos φ (for s), N (1 − e² sin² φ) (for L).
#[derive(Clone, Copy, Debug)]
pub(super) struct RowLine {
    pub cos: f64,
    pub sin: f64,
    pub k: f64,
    pub big_k: f64,
}

/// The strip walk's tables: columns' (cos λ, sin λ), row lines, highest samples of 4ᵏ blocks.
#[derive(Clone, Debug)]
pub(crate) struct Strips {
    pub(super) cols: Vec<[f64; 2]>,
    pub(super) rows: Vec<RowLine>,
    /// Per level k ≥ 1: (blocks per row, highest sample per block of 4ᵏ × 4ᵏ cells, NaN-free;
    /// −∞ where every sample is nodata).
    pub(super) maxes: Vec<(usize, Vec<f32>)>,
    /// Level of the top wedges.
    pub(super) top: usize,
    /// Row margin per level (see the module docs).
    pub(super) margin: Vec<f64>,
    /// Row lines per metre of s, roughly (1 / (M(φ) Δφ) at the grid's middle latitude): the
    /// first guess of an end's rows (only a guess: the lines are then checked).
    per_m: f64,
    /// The middle column, whose plane the start column's guess is measured from, and columns per
    /// radian of longitude (only a guess: the columns' planes are then checked).
    mid: usize,
    per_rad: f64,
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
        let (sin, _) = sin_cos_deg(o.y + ncy as f64 * s.y * 0.5);
        let meridian = prime_vertical_radius(sin) * (1.0 - E2) / (1.0 - E2 * sin * sin);
        let per_m = 1.0 / (meridian * s.y.to_radians());
        Some(Self { cols, rows, maxes, top, margin, per_m, mid: ncx / 2, per_rad: 1.0 / dl })
    }

    /// Bytes used.
    pub fn memory_bytes(&self) -> usize {
        self.cols.len() * 16 + self.rows.len() * 32 + self.maxes.iter().map(|(_, m)| m.len() * 4).sum::<usize>()
    }

    /// s of row line j at the point (u·X, Z).
    #[inline(always)]
    pub(super) fn s(&self, j: usize, r: f64, z: f64) -> f64 {
        let l = &self.rows[j];
        z * l.cos - r * l.sin + l.k
    }

    /// g of column c at the point (x, y) (ECEF): metres east of the column's meridian plane.
    #[inline(always)]
    fn g(&self, c: usize, x: f64, y: f64) -> f64 {
        let [cl, sl] = self.cols[c];
        cl * y - sl * x
    }

    /// The first column in the ray's order (`east`: increasing columns) whose wedge, widened by
    /// [`MU`], may hold the point p (ECEF, in the root box: g decreases with the column there): the
    /// first column c with g(c + 1) ≤ MU going east, the last with g(c) ≥ −MU going west, clamped to
    /// the grid's columns. Guessed from p's longitude east of the middle column (tan Δλ = g / r
    /// there, Δλ ≈ tan Δλ · (1 − tan² Δλ / 3)), then stepped while the planes say so: the same
    /// column as a bisection on the planes, in one or two plane tests.
    #[inline(always)]
    pub(super) fn start_column(&self, p: DVec3, east: bool) -> usize {
        let last = self.cols.len() - 2;
        let [cm, sm] = self.cols[self.mid];
        let tan = (cm * p.y - sm * p.x) / (cm * p.x + sm * p.y);
        let pos = self.mid as u32 as f64 + tan * (1.0 - tan * tan * (1.0 / 3.0)) * self.per_rad;
        // (A NaN guess is column 0: the steps below still find the column. Through i32, whose
        // conversions are single instructions.)
        let mut c = ((pos as i32).max(0) as usize).min(last);
        let g = |c: usize| self.g(c, p.x, p.y);
        if east {
            while c > 0 && g(c) <= MU {
                c -= 1;
            }
            while c < last && g(c + 1) > MU {
                c += 1;
            }
        } else {
            while c < last && g(c + 1) >= -MU {
                c += 1;
            }
            while c > 0 && g(c) < -MU {
                c -= 1;
            }
        }
        c
    }

    /// True when the point p (ECEF) in column `c` may lie below the highest sample of its top
    /// block (a lower bound of its height, the row line nearest it, against that sample): a ray
    /// starting there, near the ground, starts its walk in its column rather than in the top
    /// wedge (only a choice of where to start, no bound of the walk's).
    #[inline(always)]
    pub(super) fn near_ground(&self, c: usize, p: DVec3) -> bool {
        if self.top == 0 {
            return false;
        }
        let [cl, sl] = self.cols[c];
        let r = cl * p.x + sl * p.y;
        let ncy = self.rows.len() - 1;
        let jm = ncy / 2;
        let pos = jm as u32 as f64 + self.s(jm, r, p.z) * self.per_m;
        let j = ((pos as i32).max(0) as usize).min(ncy);
        let l = &self.rows[j];
        let low = l.cos * r + l.sin * p.z - l.big_k;
        let sh = 2 * self.top;
        let (bx, ref mx) = self.maxes[self.top - 1];
        low <= mx[(j.min(ncy - 1) >> sh) * bx + (c >> sh)] as f64
    }

    /// For one end (r its distance from the axis, or short of it by no more than the margin
    /// allows; z = Z): (the first block line with s ≤ `m`, the first with s ≤ −`m`), block lines
    /// b = 0…=⌈ncy / w⌉ at row lines min(b·w, ncy) (w = 2^`sh`; s decreases along them), stepped
    /// from `guess` (a row line, kept for the next end).
    #[inline(always)]
    pub(super) fn block_lines(&self, sh: u32, r: f64, z: f64, m: f64, guess: &mut usize) -> (usize, usize) {
        let ncy = self.rows.len() - 1;
        let nb = (ncy + (1 << sh) - 1) >> sh;
        let line = |b: usize| self.s((b << sh).min(ncy), r, z);
        // The end's row position from s at the guess's row line (s is nearly the distance north
        // of the line); the first block line north of it.
        let j = (*guess).min(ncy);
        // (Through i32, whose conversions are single instructions; a NaN guess is row 0.)
        let pos = j as u32 as f64 + self.s(j, r, z) * self.per_m;
        let mut b = ((((pos as i32).max(0) as usize).min(ncy) >> sh) + 1).min(nb);
        // Usually the end lies between line b − 1 and line b, farther than m from both: two values.
        if b > 0 {
            let (above, below) = (line(b - 1), line(b));
            if above > m && below <= -m {
                *guess = (b << sh).min(ncy);
                return (b, b);
            }
        }
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
        *guess = (first << sh).min(ncy);
        (first, b)
    }

    /// The block rows (of 2^`sh` rows) that a wedge segment may meet, from its two ends'
    /// [`block_lines`](Self::block_lines) `a` and `b` (see the module docs): `lo..=hi`, or `None`.
    #[inline(always)]
    pub(super) fn block_rows(
        &self,
        sh: u32,
        (a0, a1): (usize, usize),
        (b0, b1): (usize, usize),
    ) -> Option<(usize, usize)> {
        let nb = (self.rows.len() - 1 + (1 << sh) - 1) >> sh;
        // Block row k has south line k and north line k + 1: candidates where s_k ≥ −M at some end
        // (k < first line with s ≤ −M) and s_(k+1) ≤ M at some end (k + 1 ≥ first line with s ≤ M).
        let hi = a1.max(b1).min(nb);
        let lo = a0.min(b0).saturating_sub(1);
        (hi > 0 && lo < hi).then(|| (lo, hi - 1))
    }
}
