//! Pulling the A* polyline straight: greedy string pulling (from each corner, on to the farthest
//! later corner it sees), then a few passes that slide each corner along its two segments and
//! toward the straight line between its neighbours as far as both its segments stay clear
//! (bisection), dropping corners that are no longer needed. Corners end near the inflated obstacles' tangents.

use super::planner::Planner;
use glam::DVec2;

/// Passes of corner sliding.
const PASSES: usize = 3;
/// Bisection steps per corner and pass.
const STEPS: usize = 7;

impl Planner<'_> {
    /// Shortens `pts` in place, keeping every segment clear and the ends fixed.
    pub(crate) fn smooth(&self, pts: &mut Vec<DVec2>) {
        self.pull(pts);
        for _ in 0..PASSES {
            let mut i = 1;
            while i + 1 < pts.len() {
                let (p, c, n) = (pts[i - 1], pts[i], pts[i + 1]);
                if self.clear(p, n) {
                    pts.remove(i);
                    continue;
                }
                // Slide the corner along its first segment toward p, along its second toward n,
                // then toward the nearest point of p–n: each keeps the path's homotopy and only
                // shortens it, and together they pull the corner onto the obstacles' tangents.
                let d = n - p;
                let t = ((c - p).dot(d) / d.length_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
                for target in [p, n, p + d * t] {
                    pts[i] = self.slide(p, pts[i], n, target);
                }
                i += 1;
            }
        }
    }

    /// Moves corner `c` (between `p` and `n`) toward `target` as far as bisection finds both
    /// segments clear.
    fn slide(&self, p: DVec2, c: DVec2, n: DVec2, target: DVec2) -> DVec2 {
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..STEPS {
            let mid = 0.5 * (lo + hi);
            let v = c.lerp(target, mid);
            if self.clear(p, v) && self.clear(v, n) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if lo > 0.0 {
            c.lerp(target, lo)
        } else {
            c
        }
    }

    /// Greedy string pulling: from each kept corner, on to the farthest next corner it sees in a
    /// row.
    fn pull(&self, pts: &mut Vec<DVec2>) {
        if pts.len() < 3 {
            return;
        }
        let mut out = vec![pts[0]];
        let mut i = 0;
        while i + 1 < pts.len() {
            let mut k = i + 1;
            while k + 1 < pts.len() && self.clear(pts[i], pts[k + 1]) {
                k += 1;
            }
            out.push(pts[k]);
            i = k;
        }
        *pts = out;
    }
}
