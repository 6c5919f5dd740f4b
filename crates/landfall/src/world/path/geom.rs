//! Exact 2-D tests the planner is made of: point and segment against discs, segment and triangle
//! against boxes (closed sets: touching counts as meeting).

use glam::DVec2;

/// An obstacle's footprint: a disc on the ground plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    /// Centre (x, y), metres.
    pub center: DVec2,
    /// Radius, metres.
    pub radius: f64,
}

/// Squared distance from `p` to the segment `a`–`b`.
#[inline]
pub(crate) fn segment_dist2(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let d = b - a;
    let len2 = d.length_squared();
    let t = if len2 > 0.0 { ((p - a).dot(d) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (a + d * t - p).length_squared()
}

/// Squared distance from `p` to the box [`lo`, `hi`] (0 inside).
#[inline]
pub(crate) fn box_dist2(lo: DVec2, hi: DVec2, p: DVec2) -> f64 {
    (p.clamp(lo, hi) - p).length_squared()
}

/// Squared distance from `p` to the farthest point of the box.
#[inline]
pub(crate) fn box_far2(lo: DVec2, hi: DVec2, p: DVec2) -> f64 {
    let f = DVec2::new((p.x - lo.x).abs().max((hi.x - p.x).abs()), (p.y - lo.y).abs().max((hi.y - p.y).abs()));
    f.length_squared()
}

/// Whether the segment `a`–`b` meets the closed box [`lo`, `hi`] (slab clipping).
pub(crate) fn segment_meets_box(a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> bool {
    crate::broad::queries::clip(a, b - a, lo, hi, 1.0).is_some()
}

/// Whether the closed triangle `t` meets the closed box [`lo`, `hi`] (separating axes: the box's
/// two, the triangle's three edge normals).
pub(crate) fn triangle_meets_box(t: [DVec2; 3], lo: DVec2, hi: DVec2) -> bool {
    for k in 0..2 {
        if t.iter().all(|p| p[k] < lo[k]) || t.iter().all(|p| p[k] > hi[k]) {
            return false;
        }
    }
    let corners = [lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)];
    for e in 0..3 {
        let (p, q, r) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
        let n = (q - p).perp();
        let side = n.dot(r - p);
        if side == 0.0 {
            continue; // degenerate triangle: the box's axes decide
        }
        if corners.iter().all(|c| n.dot(*c - p) * side < 0.0) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The box tests against dense sampling of the segment and triangle.
    #[test]
    fn box_tests_match_sampling() {
        let mut rng = SplitMix64::new(7);
        let (lo, hi) = (DVec2::new(-1.0, -1.0), DVec2::new(1.0, 2.0));
        let inside = |p: DVec2| p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y;
        for _ in 0..3000 {
            let mut r = || DVec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 4.0));
            let (a, b, c) = (r(), r(), r());
            let n = 400;
            let seg = (0..=n).any(|k| inside(a.lerp(b, k as f64 / n as f64)));
            if seg {
                assert!(segment_meets_box(a, b, lo, hi), "{a} {b}");
            }
            let tri = (0..=n).any(|i| {
                (0..=n - i).any(|j| inside(a + (b - a) * (i as f64 / n as f64) + (c - a) * (j as f64 / n as f64)))
            });
            if tri {
                assert!(triangle_meets_box([a, b, c], lo, hi), "{a} {b} {c}");
            }
            // Far from the box by more than the sampling step: the tests must say no.
            let far = |p: DVec2| box_dist2(lo, hi, p);
            if (0..=n).all(|k| far(a.lerp(b, k as f64 / n as f64)) > 0.1) {
                assert!(!segment_meets_box(a, b, lo, hi), "{a} {b}");
            }
        }
    }

    #[test]
    fn distances() {
        let (a, b) = (DVec2::new(0.0, 0.0), DVec2::new(4.0, 0.0));
        assert_eq!(segment_dist2(a, b, DVec2::new(2.0, 3.0)), 9.0);
        assert_eq!(segment_dist2(a, b, DVec2::new(-3.0, 4.0)), 25.0);
        assert_eq!(segment_dist2(a, a, DVec2::new(3.0, 4.0)), 25.0);
        assert_eq!(box_dist2(a, b, DVec2::new(5.0, 0.0)), 1.0);
        assert_eq!(box_far2(DVec2::ZERO, DVec2::new(2.0, 2.0), DVec2::new(1.0, 0.0)), 5.0);
    }
}
