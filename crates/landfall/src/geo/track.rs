//! Rays on a [`GeoSurface`] by their ground track: the ray is walked in grid index space
//! (u, v) = ((lon − lon₀)/Δlon, (lat − lat₀)/Δlat) with its geodetic height h, and only the cells it
//! may meet go to ECEF, where the exact test of [`walk`](super::walk) decides (so answers are those
//! of the box-tree descent: the same cells' exact tests, fewer of them).
//!
//! **Why the cells visited are enough.** Two bounds, both proven in `docs/conventions.md`'s terms:
//!
//! * *A triangle stays near its cell* ([`Track::new`]): every point p of a triangle of cell (i, j)
//!   has geodetic (u, v, h) within [i − β_u, i + 1 + β_u] × [j − β_v, j + 1 + β_v] × [h_min − γ,
//!   h_max + γ] (h_min, h_max: the cell's corner samples). p is the barycentric mix of the corners'
//!   ECEF positions P(λₖ, φₖ, hₖ); the mix of their (λ, φ, h) lies in the cell's box, and P of it
//!   is within δ = ½·sup Q of p (Taylor, the first-order terms cancel), where Q bounds P's second
//!   derivatives over a cell: ‖P_λλ‖, ‖P_λφ‖, ‖P_φφ‖ ≤ 1.1·(N_max + h⁺), ‖P_λh‖, ‖P_φh‖ ≤ 1, P_hh = 0.
//!   Geodetic coordinates move at most δ/r in λ (r: distance from the polar axis), δ/(M + h) in φ
//!   and δ in h for a move of δ.
//! * *The track stays near its chord* ([`GeoSurface::track_walk`]): along the ray p(t) = o + t·d
//!   (ECEF), |λ''| ≤ |d|²/r², |φ''| ≤ |d|²·(1.1/(M + h)² + 1/((M + h)·r)) (φ's Hessian in the
//!   meridian plane plus the curvature of r along the line), |h''| ≤ |d|²/(M + h) (the distance to
//!   a convex surface: its principal curvatures over 1 + h·κ), with r and M + h bounded below over
//!   the segment in closed form (the distance from the polar axis and from the centre along a line
//!   are minimised exactly; h ≥ |p| − a). So on a segment of length ℓ the track is within
//!   sup|f''|·ℓ²/8 of the straight chord between its ends' exact geodetic coordinates.
//!
//! A hit at t on cell (i, j) therefore has the chord's (u, v) at t within m = β + ε of the cell and
//! the chord's h at t within γ + ε_h of the cell's heights. The walk splits each segment's chord at
//! the min/max pyramid's leaf lines, keeps the pieces whose nearby leaves' height ranges meet the
//! ray's, splits those at cell lines and tests exactly every cell within m of each piece whose
//! corner heights meet the ray's. Pieces go in order of t: the walk stops after the piece that
//! holds the best hit so far. Grids reaching within 1° of a pole, rays passing near the Earth's
//! axis or deep under the ellipsoid, and rays that would need more than [`MAX_SEGMENTS`] segments
//! take the box-tree descent instead.

use super::shear::Shear;
use super::surface::{triangle_hit, GeoSurface};
use super::walk::Sink;
use super::wgs84::{ecef_to_geodetic, A, E2};
use crate::geom::{Half, Ray};
use glam::DVec3;

/// Largest deviation of the track from a segment's chord, in cells: segments are cut this short.
const EPS_TRACK: f64 = 0.125;

/// Rays needing more segments than this take the descent (each segment costs one exact
/// ECEF → geodetic conversion).
pub(crate) const MAX_SEGMENTS: f64 = 64.0;

/// Absolute room for rounding: cells in (u, v), metres in h.
const SLOP_CELLS: f64 = 1e-6;
const SLOP_H: f64 = 1e-3;

/// Lowest geodetic height a walked segment may reach (metres); deeper rays take the descent.
const H_FLOOR: f64 = -100e3;

/// A surface's margins for the track walk (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Track {
    beta_u: f64,
    beta_v: f64,
    gamma: f64,
}

impl Track {
    /// Margins for a grid of cells `dlon` × `dlat` degrees whose latitudes span [`south`, `north`]
    /// and heights [`h_lo`, `h_hi`]; `None` where the walk does not apply (within 1° of a pole, no
    /// valid sample, or margins of a quarter cell or more).
    pub fn new(dlon: f64, dlat: f64, south: f64, north: f64, h_lo: f64, h_hi: f64) -> Option<Self> {
        let phi_max = south.abs().max(north.abs());
        if !(phi_max <= 89.0 && h_lo <= h_hi && h_lo > H_FLOOR) {
            return None;
        }
        let (dl, dp) = (dlon.to_radians(), dlat.to_radians());
        let n_max = A / (1.0 - E2).sqrt();
        let q = 1.1 * (n_max + h_hi.max(0.0)) * (dl + dp) * (dl + dp) + 2.0 * (h_hi - h_lo) * (dl + dp);
        let delta = 0.5 * q * (1.0 + 1e-9) + 1e-6;
        let r_min = (A + h_lo.min(0.0)) * phi_max.to_radians().cos() - delta;
        let mh_min = A * (1.0 - E2) + h_lo.min(0.0) - delta;
        let beta_u = delta / r_min / dl + SLOP_CELLS;
        let beta_v = delta / mh_min / dp + SLOP_CELLS;
        (beta_u < 0.25 && beta_v < 0.25).then_some(Self { beta_u, beta_v, gamma: delta + SLOP_H })
    }
}

/// Geodetic grid coordinates of a point: u, v (cells), h (metres) and the unwrapped longitude.
#[derive(Clone, Copy, Debug)]
struct Gc {
    u: f64,
    v: f64,
    h: f64,
    lon: f64,
}

/// A piece of the ray: the chord's (u, v, h) at `t0` and their rates per unit t.
#[derive(Clone, Copy, Debug)]
struct Chord {
    t0: f64,
    a: [f64; 3],
    s: [f64; 3],
    /// Margins around the chord: (u, v) cells, h metres.
    m: [f64; 3],
}

impl Chord {
    #[inline(always)]
    fn at(&self, k: usize, t: f64) -> f64 {
        self.a[k] + self.s[k] * (t - self.t0)
    }

    /// The chord's range of coordinate `k` over [ta, tb], grown by its margin.
    #[inline(always)]
    fn range(&self, k: usize, ta: f64, tb: f64) -> (f64, f64) {
        let (x, y) = (self.at(k, ta), self.at(k, tb));
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        (lo - self.m[k], hi + self.m[k])
    }
}

/// ⌊x⌋ for |x| < 2⁶³, without the library call `floor` is on baseline x86-64.
#[inline(always)]
fn floor_i(x: f64) -> i64 {
    let k = x as i64;
    k - i64::from((k as f64) > x)
}

/// The indices `[⌊lo / span⌋, ⌊hi / span⌋]` cut to `[0, n)` (empty when outside).
#[inline(always)]
fn index_range(lo: f64, hi: f64, span: f64, n: usize) -> (usize, usize) {
    let a = floor_i((lo / span).max(-1.0)).max(0) as usize;
    let b = floor_i((hi / span).min(n as f64)).min(n as i64 - 1);
    if b < 0 {
        return (1, 0);
    }
    (a, b as usize)
}

/// Least distance from the line `o + t·d` (t in [ta, tb]) to the origin, in the coordinates
/// `o`, `d` are given in (the caller drops z for the distance from the polar axis).
#[inline(always)]
fn min_distance(o: DVec3, d: DVec3, ta: f64, tb: f64) -> f64 {
    let dd = d.length_squared();
    let t = if dd > 0.0 { (-o.dot(d) / dd).clamp(ta, tb) } else { ta };
    (o + d * t).length()
}

impl GeoSurface {
    /// (u, v, h) of the ECEF point `p`, its longitude unwrapped next to `near` (or the grid's centre).
    #[inline(always)]
    fn grid_coords(&self, p: DVec3, near: Option<f64>) -> Gc {
        let g = ecef_to_geodetic(p);
        let lon = match near {
            Some(n) => {
                let d = g.lon - n;
                n + if d.abs() <= 180.0 { d } else { d - 360.0 * (d / 360.0).round() }
            }
            None => self.wrap_lon(g.lon),
        };
        let (lon0, lat0) = self.grid_origin();
        let (inv_dlon, inv_dlat) = self.grid_inv_steps();
        Gc { u: (lon - lon0) * inv_dlon, v: (g.lat - lat0) * inv_dlat, h: g.h, lon }
    }

    /// The track walk of the ENU `ray` from `t_lo` (see the module docs); false when it does not
    /// apply (the caller descends the box tree instead).
    pub(super) fn track_walk(&self, ray: &Ray, t_lo: f64, sink: &mut impl Sink) -> bool {
        let Some(track) = self.track else { return false };
        let (o, d) = (ray.origin, ray.dir);
        let sr = super::boxes::SlabRay::new(o, d);
        let Some((ta, tb)) = sr.hit(self.boxes.root(), t_lo, sink.limit()) else { return true };
        let f = self.frame();
        let (oe, de) = (f.to_ecef(o), f.dir_to_ecef(d));
        let xy = |p: DVec3| DVec3::new(p.x, p.y, 0.0);
        let r_min = min_distance(xy(oe), xy(de), ta, tb);
        let h_lo = min_distance(oe, de, ta, tb) - A;
        if !(h_lo > H_FLOOR && r_min > 0.01 * A) {
            return false;
        }
        // Second-derivative bounds per unit t², in cells (u, v) and metres (h).
        let dd = de.length_squared();
        let mh = A * (1.0 - E2) + h_lo;
        let (inv_dlon, inv_dlat) = self.grid_inv_steps();
        let k = [
            dd / (r_min * r_min) * inv_dlon.to_degrees(),
            dd * (1.1 / (mh * mh) + 1.0 / (mh * r_min)) * inv_dlat.to_degrees(),
            dd / mh,
        ];
        let seg = (8.0 * EPS_TRACK / k[0].max(k[1])).sqrt();
        if !(seg > 0.0) || (tb - ta) > MAX_SEGMENTS * seg {
            return false;
        }
        let sh = Shear::new(o, d);
        let mut t = ta;
        let mut ga = self.grid_coords(oe + de * ta, None);
        loop {
            let t1 = (t + seg).min(tb);
            let gb = self.grid_coords(oe + de * t1, Some(ga.lon));
            let l = t1 - t;
            let e = |k: f64| k * l * l * (1.0 / 8.0) * (1.0 + 1e-9);
            let s = |x: f64, y: f64| if l > 0.0 { (y - x) / l } else { 0.0 };
            let chord = Chord {
                t0: t,
                a: [ga.u, ga.v, ga.h],
                s: [s(ga.u, gb.u), s(ga.v, gb.v), s(ga.h, gb.h)],
                m: [
                    track.beta_u + e(k[0]) + SLOP_CELLS,
                    track.beta_v + e(k[1]) + SLOP_CELLS,
                    track.gamma + e(k[2]) + SLOP_H * (1.0 + ga.h.abs().max(gb.h.abs()) * 1e-9),
                ],
            };
            self.walk_chord(&sh, &chord, t, t1, t_lo, sink);
            if t1 >= tb || sink.limit() <= t1 {
                return true;
            }
            (t, ga) = (t1, gb);
        }
    }

    /// One segment [t0, t1]: pieces between the pyramid's leaf lines, the cells of those whose
    /// leaves' heights meet the ray's.
    fn walk_chord(&self, sh: &Shear, c: &Chord, t0: f64, t1: f64, t_lo: f64, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let p = hf.pyramid();
        let span = p.leaf_size() as f64;
        let (nbx, nby) = p.level_size(0);
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        split(c, t0, t1, span, |ta, tb| {
            let (u0, u1) = c.range(0, ta, tb);
            let (v0, v1) = c.range(1, ta, tb);
            let (h0, h1) = c.range(2, ta, tb);
            // The leaves holding a cell within the margin of the piece.
            let (ci0, ci1) = index_range(u0, u1, 1.0, ncx);
            let (cj0, cj1) = index_range(v0, v1, 1.0, ncy);
            if ci0 > ci1 || cj0 > cj1 {
                return true;
            }
            let (bi0, bi1) = ((ci0 as f64 / span) as usize, ((ci1 as f64 / span) as usize).min(nbx - 1));
            let (bj0, bj1) = ((cj0 as f64 / span) as usize, ((cj1 as f64 / span) as usize).min(nby - 1));
            let meets = (bj0..=bj1).any(|bj| {
                (bi0..=bi1).any(|bi| {
                    let (lo, hi) = p.node(0, bi, bj);
                    hi >= h0 && lo <= h1
                })
            });
            if meets {
                split(c, ta, tb, 1.0, |sa, sb| {
                    self.piece_cells(sh, c, sa, sb, t_lo, sink);
                    true
                });
            }
            sink.limit() > tb
        });
    }

    /// The cells within the margin of the piece [ta, tb] whose corner heights meet the ray's there,
    /// tested exactly.
    #[inline(always)]
    fn piece_cells(&self, sh: &Shear, c: &Chord, ta: f64, tb: f64, t_lo: f64, sink: &mut impl Sink) {
        let hf = self.heightfield();
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        let (u0, u1) = c.range(0, ta, tb);
        let (v0, v1) = c.range(1, ta, tb);
        let (h0, h1) = c.range(2, ta, tb);
        let (ci0, ci1) = index_range(u0, u1, 1.0, ncx);
        let (cj0, cj1) = index_range(v0, v1, 1.0, ncy);
        for j in cj0..=cj1 {
            for i in ci0..=ci1 {
                let k = hf.corners_f32(i, j);
                // NaN corners drop out (`f32::min`/`max` keep the other operand).
                let lo = k[0].min(k[1]).min(k[2].min(k[3])) as f64;
                let hi = k[0].max(k[1]).max(k[2].max(k[3])) as f64;
                if hi >= h0 && lo <= h1 {
                    self.cell_exact(sh, i, j, t_lo, sink);
                }
            }
        }
    }

    /// Cell (i, j)'s triangles against the ray, exactly as a leaf of the descent tests them.
    #[inline(always)]
    fn cell_exact(&self, sh: &Shear, i: usize, j: usize, t_lo: f64, sink: &mut impl Sink) {
        let hf = self.heightfield();
        if hf.is_cell_masked(i, j) {
            return;
        }
        let (ncx, ncy) = (hf.nx() - 1, hf.ny() - 1);
        let m = self.mapped_corners(sh, i, j);
        let border = i == 0 || j == 0 || i + 1 == ncx || j + 1 == ncy;
        if Shear::sides(&m[0]) & Shear::sides(&m[1]) & Shear::sides(&m[2]) & Shear::sides(&m[3]) != 0 && !border {
            return;
        }
        let limit = sink.limit();
        if m.iter().all(|p| p[2] < t_lo) || m.iter().all(|p| p[2] > limit) {
            return;
        }
        let anti = hf.diagonal().is_anti(i, j);
        let eps = if border { crate::heightfield::BORDER_EPS } else { 0.0 };
        for half in [Half::South, Half::North] {
            if let Some(t) = triangle_hit(&m, anti, half, eps) {
                if t >= t_lo && t <= sink.limit() {
                    sink.take(t, i, j, half);
                }
            }
        }
    }
}

/// Calls `f` with consecutive pieces [ta, tb] covering [t0, t1], cut where the chord's u or v
/// crosses a multiple of `span`, in order, until it returns false. The cuts only save work: the
/// callers take their cells from each piece's own range, so any covering is correct (a chord whose
/// cuts would not advance, through rounding, ends in one last piece).
#[inline(always)]
fn split(c: &Chord, t0: f64, t1: f64, span: f64, mut f: impl FnMut(f64, f64) -> bool) {
    let inv = 1.0 / span;
    let mut next = [0.0f64; 2];
    let mut idx = [0i64; 2];
    let mut step = [0i64; 2];
    let mut lim = 4.0;
    for k in 0..2 {
        let x = c.at(k, t0) * inv;
        idx[k] = floor_i(x.clamp(-1e15, 1e15));
        step[k] = if c.s[k] > 0.0 { 1 } else { -1 };
        lim += (c.at(k, t1) * inv - x).abs();
    }
    let line = |k: usize, i: i64| {
        if c.s[k] == 0.0 {
            return f64::INFINITY;
        }
        let b = (i + i64::from(c.s[k] > 0.0)) as f64 * span;
        c.t0 + (b - c.a[k]) / c.s[k]
    };
    next[0] = line(0, idx[0]);
    next[1] = line(1, idx[1]);
    let mut t = t0;
    let mut n = 0.0;
    loop {
        let k = usize::from(next[1] < next[0]);
        let te = next[k].min(t1).max(t);
        n += 1.0;
        if te >= t1 || !(n <= lim) {
            f(t, t1);
            return;
        }
        if !f(t, te) {
            return;
        }
        idx[k] += step[k];
        next[k] = line(k, idx[k]);
        t = te;
    }
}
