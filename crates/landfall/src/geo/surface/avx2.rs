//! [`GeoSurface::height_at`]'s usual case with AVX2 registers: a position's three components in
//! one register of four f64 lanes. Every lane computes the same IEEE operations, in the same
//! order, as the scalar path (`locate`, `GridTables::normal_line`, `sin_cos_small`, `UpShear`,
//! `Shear::hit`; no fused multiply-adds), so the heights are the scalar path's bit for bit
//! (`geoprof`'s digest; the test `avx2_heights_are_the_scalar_heights`). Anything unusual — an
//! offset beyond the short series' range, a pole, a line not mostly up, a hole, a line missing
//! the triangle under (lon, lat) — takes the scalar path.

use super::{GeoSurface, Half, Shear};
use crate::geo::tables::{GridTables, Row};
use crate::geo::wgs84::{A, E2};
use std::arch::x86_64::*;

/// The height at (lon, lat), as [`GeoSurface::height_at`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn height_at(s: &GeoSurface, lon: f64, lat: f64) -> Option<f64> {
    match fast(s, lon, lat) {
        Some(found) => found,
        None => scalar(s, lon, lat),
    }
}

/// The scalar path (kept out of line: it is the rare case here).
#[inline(never)]
#[cold]
fn scalar(s: &GeoSurface, lon: f64, lat: f64) -> Option<f64> {
    s.locate(lon, lat).map(|l| l.h)
}

/// `Some(answer)` where the usual case decides, `None` to take the scalar path.
#[inline(always)]
unsafe fn fast(s: &GeoSurface, lon: f64, lat: f64) -> Option<Option<f64>> {
    if !(lon.is_finite() && lat.abs() < 90.0) {
        return None;
    }
    let lon = s.wrap_lon(lon);
    let u = (lon - s.lon0) * s.inv_dlon;
    let v = (lat - s.lat0) * s.inv_dlat;
    if !(u >= -0.5 && v >= -0.5 && u <= s.grid_limit[0] && v <= s.grid_limit[1]) {
        return Some(None);
    }
    let (ci, cj) = (u.max(0.0).min(s.last_cell[0]) as i64, v.max(0.0).min(s.last_cell[1]) as i64);
    let (fi, fj) = (ci as f64, cj as f64);
    let (i, j) = (ci as usize, cj as usize);
    let dl = (lon - (s.lon0 + fi * s.dlon)).to_radians();
    let dp = (lat - (s.lat0 + fj * s.dlat)).to_radians();
    if !(dl.abs() <= 0.1 && dp.abs() <= 0.1) {
        return None;
    }
    let t = &s.tables;
    let (sl, cl, sd, cd) = sin_cos_pair(dl, dp);
    let (a, b) = normal_line(t, i, j, sl, cl, sd, cd);
    // `UpShear::new`: b mostly up.
    let [bx, by, bz, _] = lanes(b);
    if !(bz > 0.0 && bz >= bx.abs() && bz >= by.abs()) {
        return None;
    }
    let sz = 1.0 / bz;
    let shear = _mm256_setr_pd(bx * sz, by * sz, sz, 0.0);
    let anti = s.hf.diagonal().is_anti(i, j);
    let (fu, fv) = (u - fi, v - fj);
    let side = if anti { fu + fv - 1.0 } else { fv - fu };
    let half = if side > 0.0 { Half::North } else { Half::South };
    if s.hf.is_cell_masked(i, j) {
        return None;
    }
    let h = s.hf.corners_f32(i, j);
    let (c0, c1) = (&t.columns[i], &t.columns[i + 1]);
    let (r0, r1) = (&t.rows[j], &t.rows[j + 1]);
    // The corners in `corner_offsets`' order (the hit's sums are taken in that order).
    // (Functions, not closures: a closure would not be compiled for AVX2 unless inlined.)
    let [p, q, r] = match (anti, half) {
        (true, Half::South) => {
            [corner(&c0.c, r0, h[0], a, shear), corner(&c1.c, r0, h[1], a, shear), corner(&c0.c, r1, h[2], a, shear)]
        }
        (true, Half::North) => {
            [corner(&c1.c, r1, h[3], a, shear), corner(&c0.c, r1, h[2], a, shear), corner(&c1.c, r0, h[1], a, shear)]
        }
        (false, Half::South) => {
            [corner(&c0.c, r0, h[0], a, shear), corner(&c1.c, r0, h[1], a, shear), corner(&c1.c, r1, h[3], a, shear)]
        }
        (false, Half::North) => {
            [corner(&c0.c, r0, h[0], a, shear), corner(&c1.c, r1, h[3], a, shear), corner(&c0.c, r1, h[2], a, shear)]
        }
    };
    Shear::hit(&p, &q, &r).map(Some)
}

/// The first three lanes of `x` and the fourth.
#[inline(always)]
unsafe fn lanes(x: __m256d) -> [f64; 4] {
    let mut out = [0.0; 4];
    _mm256_storeu_pd(out.as_mut_ptr(), x);
    out
}

/// `sin_cos_small(dl)` and `sin_cos_small(dp)` (|dl|, |dp| ≤ 0.1) in one register: lanes
/// (sin dl, cos dl, sin dp, cos dp). Both series as one nest, 1 − x²k₅, then four times
/// 1 − (x²kₘ)·(the level inside), then a factor: the cosine's is 1 (exact), the sine's is x, its
/// k₅ is 0 (its innermost level then is 1 − 0 = 1, and (x²k₄)·1 = x²k₄: the scalar series' bits).
#[inline(always)]
unsafe fn sin_cos_pair(dl: f64, dp: f64) -> (f64, f64, f64, f64) {
    let x = _mm256_setr_pd(dl, dl, dp, dp);
    let x2 = _mm256_mul_pd(x, x);
    let one = _mm256_set1_pd(1.0);
    let l = _mm256_sub_pd(one, _mm256_mul_pd(x2, _mm256_setr_pd(0.0, 1.0 / 90.0, 0.0, 1.0 / 90.0)));
    let l = level(x2, l, 1.0 / 72.0, 1.0 / 56.0);
    let l = level(x2, l, 1.0 / 42.0, 1.0 / 30.0);
    let l = level(x2, l, 1.0 / 20.0, 1.0 / 12.0);
    let l = level(x2, l, 1.0 / 6.0, 0.5);
    // (x, 1, x, 1): lanes 1 and 3 from `one`.
    let f = _mm256_blend_pd::<0b1010>(x, one);
    let [sl, cl, sd, cd] = lanes(_mm256_mul_pd(f, l));
    (sl, cl, sd, cd)
}

/// 1 − (x²·k)·inner, k = (s, c, s, c).
#[inline(always)]
unsafe fn level(x2: __m256d, inner: __m256d, s: f64, c: f64) -> __m256d {
    _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(_mm256_mul_pd(x2, _mm256_setr_pd(s, c, s, c)), inner))
}

/// A corner: column table `c`, row `r`, height `h`, mapped by `UpShear` (`o`, `shear`).
#[inline(always)]
unsafe fn corner(c: &[f64; 4], r: &Row, h: f32, o: __m256d, shear: __m256d) -> [f64; 3] {
    map(position(c, r, h as f64), o, shear)
}

/// `GridTables::normal_line` from the series' values: A and B in lanes 0–2.
#[inline(always)]
unsafe fn normal_line(t: &GridTables, i: usize, j: usize, sl: f64, cl: f64, sd: f64, cd: f64) -> (__m256d, __m256d) {
    let col = &t.columns[i];
    let c = _mm256_add_pd(
        _mm256_mul_pd(_mm256_loadu_pd(col.c.as_ptr()), _mm256_set1_pd(cl)),
        _mm256_mul_pd(_mm256_loadu_pd(col.d.as_ptr()), _mm256_set1_pd(sl)),
    );
    let r0 = &t.rows[j];
    let (sin, cos) = (r0.sin * cd + r0.cos * sd, r0.cos * cd - r0.sin * sd);
    // `GridTables::row` (at dp = 0 the scalar path takes the table's row: the same values).
    let n = A / (1.0 - E2 * sin * sin).sqrt();
    let q = n * (1.0 - E2) * sin;
    let rz = _mm256_setr_pd(t.rz[0], t.rz[1], t.rz[2], 0.0);
    let ro = _mm256_setr_pd(t.ro[0], t.ro[1], t.ro[2], 0.0);
    let rs = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(q), rz), ro);
    let rt = _mm256_mul_pd(_mm256_set1_pd(sin), rz);
    let a = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(n * cos), c), rs);
    let b = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(cos), c), rt);
    (a, b)
}

/// `GridTables::position` of a sample of column table `c`, row `r`, height `h`.
#[inline(always)]
unsafe fn position(c: &[f64; 4], r: &Row, h: f64) -> __m256d {
    let rho = r.p + h * r.cos;
    let st =
        _mm256_add_pd(_mm256_loadu_pd(r.s.as_ptr()), _mm256_mul_pd(_mm256_set1_pd(h), _mm256_loadu_pd(r.t.as_ptr())));
    _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(rho), _mm256_loadu_pd(c.as_ptr())), st)
}

/// `UpShear::map`: (x − sx·z, y − sy·z, sz·z) of p − o, with `shear` = (sx, sy, sz, 0).
#[inline(always)]
unsafe fn map(p: __m256d, o: __m256d, shear: __m256d) -> [f64; 3] {
    let d = _mm256_sub_pd(p, o);
    let z = _mm256_permute4x64_pd::<0b1010_1010>(d);
    let k = _mm256_mul_pd(shear, z);
    let m = _mm256_blend_pd::<0b0100>(_mm256_sub_pd(d, k), k);
    let [x, y, z, _] = lanes(m);
    [x, y, z]
}
