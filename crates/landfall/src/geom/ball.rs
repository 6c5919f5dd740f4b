//! Where a moving point first enters a ball: the quadratic that ray–sphere queries, swept spheres
//! against spheres and two balls under the same gravity all reduce to.

use glam::DVec3;

/// The first t ≥ 0 at which `o + t·d` lies in the closed ball of centre `c` and radius `r`: 0 when
/// `o` is already inside, `None` when the line never enters it going forward. At magnitudes whose
/// squares would overflow or underflow (beyond 2^±250), the same quadratic at a power-of-two scale.
#[inline]
pub fn ray_ball(o: DVec3, d: DVec3, c: DVec3, r: f64) -> Option<f64> {
    const SAFE: std::ops::RangeInclusive<f64> =
        1.0 / (1u128 << 125) as f64 / (1u128 << 125) as f64..=(1u128 << 125) as f64 * (1u128 << 125) as f64;
    let m = o - c;
    let (s, k) = (m.abs().max_element().max(r), d.abs().max_element());
    if (SAFE.contains(&s) || s == 0.0) && (SAFE.contains(&k) || k == 0.0) {
        return quadratic(m, d, r);
    }
    // Exponents that bring both lengths near 1 (scaling by powers of two is exact).
    let e = |v: f64| if v == 0.0 { 0 } else { v.log2().round() as i32 };
    let (es, ek) = (e(s), e(k));
    let t = quadratic(m * pow2(-es), d * pow2(-ek), r * pow2(-es))?;
    // o + t·d = c + 2^es·(m' + t'·d') with t = t'·2^(es − ek).
    let x = es - ek;
    Some(t * pow2(x / 2) * pow2(x - x / 2))
}

/// 2^e for |e| ≤ 1023 (applied in steps where needed).
#[inline]
fn pow2(e: i32) -> f64 {
    let half = (e / 2).clamp(-1022, 1023);
    2f64.powi(half) * 2f64.powi((e - half).clamp(-1022, 1023))
}

/// The ray–ball quadratic in `m = o − c`.
#[inline]
fn quadratic(m: DVec3, d: DVec3, r: f64) -> Option<f64> {
    let c0 = m.length_squared() - r * r;
    if c0 <= 0.0 {
        return Some(0.0);
    }
    let b = m.dot(d);
    if b >= 0.0 {
        return None;
    }
    let disc = b * b - d.length_squared() * c0;
    if disc < 0.0 {
        return None;
    }
    // The nearer root, in the form that does not cancel.
    Some(c0 / (-b + disc.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enters_ahead_and_never_behind() {
        assert_eq!(ray_ball(DVec3::ZERO, DVec3::X, DVec3::new(5.0, 0.0, 0.0), 1.0), Some(4.0));
        assert_eq!(ray_ball(DVec3::ZERO, -DVec3::X, DVec3::new(5.0, 0.0, 0.0), 1.0), None);
    }

    /// The same answers, scaled, at 1e±150 and with rays of any length: no square underflows into a
    /// false hit or overflows into a miss.
    #[test]
    fn extreme_magnitudes_scale() {
        let (o, d, c) = (DVec3::new(0.0, 9.0, 0.0), DVec3::new(18.0, -9.0, 0.0), DVec3::ZERO);
        assert_eq!(ray_ball(o, d, c, 0.0), None, "passes the point at a distance");
        for s in [1e-150, 1e-300, 1e150, 1e300, 1.0] {
            for k in [1e-150, 1.0, 1e150] {
                assert_eq!(ray_ball(o * s, d * k, c * s, 0.0), None, "{s} {k}");
                let t = ray_ball(DVec3::ZERO, DVec3::X * k, DVec3::new(5.0, 0.0, 0.0) * s, s).unwrap();
                let want = 4.0 * s / k;
                // (beyond f64's range: +∞, the nearest f64)
                assert!(t == want || (t - want).abs() <= 1e-12 * want, "{s} {k}: {t} against {want}");
            }
        }
    }
}
