//! Where a moving point first enters a ball: the quadratic that ray–sphere queries, swept spheres
//! against spheres and two balls under the same gravity all reduce to.

use glam::DVec3;

/// The first t ≥ 0 at which `o + t·d` lies in the closed ball of centre `c` and radius `r`: 0 when
/// `o` is already inside, `None` when the line never enters it going forward.
#[inline]
pub fn ray_ball(o: DVec3, d: DVec3, c: DVec3, r: f64) -> Option<f64> {
    let m = o - c;
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
}
