//! Pulling the A* polyline straight: greedy string pulling (from each corner, on to a far later
//! corner it sees, found by galloping and bisection), then a few passes that pull each corner
//! taut between its neighbours, dropping corners that are no longer needed.
//!
//! A corner `c` between `p` and `n` (who do not see each other) is moved to the apex of the
//! smallest triangle on `p`–`n` that keeps every obstacle meeting the triangle `p c n` on the
//! same side of the path: from `p` and from `n`, the ray past the discs' outermost tangents
//! (grown by [`MARGIN`]), the two rays meeting at the new corner. The discs are the ones the
//! line-of-sight walks report as blocking (`p`–`n`, then the two new segments, until both are
//! clear): a few walks a corner, where bisection along fixed directions took ~40. The new corner
//! stays inside the triangle `p c n`, so the path only gets shorter. Two corners on one tangent
//! line are each where their neighbours put them, so a pass also tries one corner in place of
//! two (kept when shorter). A corner whose walks meet steep ground, or whose apex is not clear
//! within rounding, is slid by bisection instead (toward the apex; for steep ground toward `p`,
//! `n` and the foot on `p`–`n`, as before).
//! A pass skips the corners and runs of two the pass before left as they were with the same
//! neighbours (their answers depend on those points alone).

use super::los::Blocker;
use super::planner::Planner;
use glam::DVec2;
use std::f64::consts::PI;
use Fail::{Near, Nothing, Steep};

/// Why no apex was placed.
enum Fail {
    /// None tried, or none inside the corners' angles.
    Nothing,
    /// The last one tried was not clear (rounding at a tangent, or the rounds ran out).
    Near(DVec2),
    /// Steep ground blocks (its cells' corners are left to bisection).
    Steep,
}

/// Most passes of corner pulling (they stop earlier once no corner moves).
const PASSES: usize = 3;
/// Bisection steps of the fallback slide.
const STEPS: usize = 7;
/// Rounds of tangent placement per corner (each adds an obstacle a new segment met).
const ROUNDS: usize = 8;
/// Added to the obstacles' sizes when placing a corner on their tangents, metres (rounding).
const MARGIN: f64 = 1e-5;

impl Planner<'_> {
    /// Shortens `pts` in place, keeping every segment clear and the ends fixed.
    pub(crate) fn smooth(&self, pts: &mut Vec<DVec2>) {
        self.pull(pts);
        // What the last pass found to stay as it was: corners `p c n` left in place, and runs
        // `p c1 c2 n` not merged. Both answers depend on those points alone, so a later pass
        // skips them (the same path, fewer walks).
        let (mut kept, mut unmerged): (Vec<[DVec2; 3]>, Vec<[DVec2; 4]>) = (Vec::new(), Vec::new());
        for _ in 0..PASSES {
            let mut moved = false;
            let (was_kept, was_unmerged) = (std::mem::take(&mut kept), std::mem::take(&mut unmerged));
            let mut i = 1;
            while i + 1 < pts.len() {
                let (p, c, n) = (pts[i - 1], pts[i], pts[i + 1]);
                if was_kept.contains(&[p, c, n]) {
                    kept.push([p, c, n]);
                    i += 1;
                    continue;
                }
                let Some(first) = self.blocker(p, n) else {
                    pts.remove(i);
                    moved = true;
                    continue;
                };
                let v = self.taut(p, c, n, first);
                if v == c {
                    kept.push([p, c, n]);
                }
                moved |= v != c;
                pts[i] = v;
                i += 1;
            }
            // Two corners on one tangent line are each where their neighbours put them, but
            // one corner past the same obstacles may be shorter.
            let mut i = 1;
            while i + 2 < pts.len() {
                let run = [pts[i - 1], pts[i], pts[i + 1], pts[i + 2]];
                if was_unmerged.contains(&run) {
                    unmerged.push(run);
                } else if let Some(v) = self.merged(run[0], run[1], run[2], run[3]) {
                    pts.splice(i..i + 2, [v]);
                    moved = true;
                } else {
                    unmerged.push(run);
                }
                i += 1;
            }
            if !moved {
                break;
            }
        }
    }

    /// Where corner `c` goes between `p` and `n` (`first` blocks `p`–`n`): the apex of the rays
    /// from `p` and `n` past the blocking obstacles' tangents on `c`'s side, checked clear; if
    /// that fails (rounding at a tangent), as far toward it as bisection finds clear.
    fn taut(&self, p: DVec2, c: DVec2, n: DVec2, first: Blocker) -> DVec2 {
        match self.apex(p, (c, c), n, first) {
            Ok(v) => v,
            Err(Near(v)) => self.slide(p, c, n, v),
            Err(Nothing) => c,
            // Steep ground: bisection toward p, n and the nearest point of p–n.
            Err(Steep) => {
                let d = n - p;
                let t = ((c - p).dot(d) / d.length_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
                [p, n, p + d * t].into_iter().fold(c, |c, target| self.slide(p, c, n, target))
            }
        }
    }

    /// The one corner that may replace corners `c1`, `c2` (the path `p c1 c2 n`), if it is
    /// shorter: the apex of the rays from `p` and `n` past the obstacles blocking `p`–`n`.
    fn merged(&self, p: DVec2, c1: DVec2, c2: DVec2, n: DVec2) -> Option<DVec2> {
        let first = self.blocker(p, n)?;
        let v = self.apex(p, (c1, c2), n, first).ok()?;
        let shorter = p.distance(v) + v.distance(n) < p.distance(c1) + c1.distance(c2) + c2.distance(n);
        shorter.then_some(v)
    }

    /// The apex of the rays from `p` toward `cp` and from `n` toward `cn` (on one side of
    /// `p`–`n`), each turned no farther than it must to pass the obstacles the walks report
    /// (`first`, then those meeting the new segments), both segments clear; `Err` with the last
    /// apex tried when the rounds run out or a walk reports an obstacle already passed.
    fn apex(&self, p: DVec2, (cp, cn): (DVec2, DVec2), n: DVec2, first: Blocker) -> Result<DVec2, Fail> {
        let (bp, bn) = (n - p, p - n);
        let side = bp.perp_dot(cp - p);
        if side == 0.0 || !side.is_finite() || side * bp.perp_dot(cn - p) <= 0.0 {
            return Err(Fail::Nothing);
        }
        let s = side.signum();
        // The rays may turn no farther than toward the corners they replace.
        let (cap_p, cap_n) = (angle(bp, s, cp - p), angle(bn, -s, cn - n));
        let (mut tp, mut tn) = (0.0f64, 0.0f64);
        // At most two obstacles a round; kept on the stack (a hot path).
        let (mut seen, mut count) = ([Blocker::Region; 2 * ROUNDS], 0);
        let mut next = [Some(first), None];
        let mut v = None;
        for _ in 0..ROUNDS {
            for b in next.into_iter().flatten() {
                if matches!(b, Blocker::Box(..)) {
                    return Err(Fail::Steep);
                }
                if b == Blocker::Region || seen[..count].contains(&b) {
                    return Err(v.map_or(Fail::Nothing, Fail::Near));
                }
                seen[count] = b;
                count += 1;
                tp = tp.max(reach(p, bp, s, b));
                tn = tn.max(reach(n, bn, -s, b));
            }
            let (ap, an) = (tp.min(cap_p), tn.min(cap_n));
            if (tp >= cap_p && tn >= cap_n) || ap + an >= PI {
                return Err(Fail::Nothing);
            }
            let l = bp.length() * an.sin() / (ap + an).sin();
            let w = p + DVec2::from_angle(s * ap).rotate(bp.normalize()) * l;
            if !w.is_finite() {
                return Err(Fail::Nothing);
            }
            v = Some(w);
            next = [self.blocker(p, w), self.blocker(w, n)];
            if next == [None, None] {
                return Ok(w);
            }
        }
        Err(v.map_or(Fail::Nothing, Fail::Near))
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

    /// Greedy string pulling: from each kept corner on to a far later corner it sees, found by
    /// galloping (the corners 1, 2, 4, … on, until one is hidden) and bisection between the last
    /// seen and the first hidden: O(log k) walks to reach k corners on, where trying each in a
    /// row walked the path's long clear stretches k times over.
    pub(crate) fn pull(&self, pts: &mut Vec<DVec2>) {
        if pts.len() < 3 {
            return;
        }
        let last = pts.len() - 1;
        let mut out = vec![pts[0]];
        let mut i = 0;
        while i < last {
            // `k` is seen from `i` (the next corner always is); `hidden` is not (or past the end).
            let (mut k, mut hidden, mut step) = (i + 1, last + 1, 1);
            while k < last {
                let t = (k + step).min(last);
                if self.clear(pts[i], pts[t]) {
                    k = t;
                    step *= 2;
                } else {
                    hidden = t;
                    break;
                }
            }
            while hidden - k > 1 && k < last {
                let mid = k + (hidden - k) / 2;
                if self.clear(pts[i], pts[mid]) {
                    k = mid;
                } else {
                    hidden = mid;
                }
            }
            out.push(pts[k]);
            i = k;
        }
        *pts = out;
    }
}

/// The angle from `base` to `w`, turning toward side `s` (±1): in (−π, π].
fn angle(base: DVec2, s: f64, w: DVec2) -> f64 {
    (s * base.perp_dot(w)).atan2(base.dot(w))
}

/// How far a ray from `o` must turn from `base` toward side `s` to pass obstacle `b` on that side
/// (its outermost tangent, or outermost corner), with [`MARGIN`]; π when `o` is inside it.
fn reach(o: DVec2, base: DVec2, s: f64, b: Blocker) -> f64 {
    match b {
        Blocker::Disc(d) => {
            let w = d.center - o;
            let dist = w.length();
            if dist == 0.0 {
                return PI;
            }
            angle(base, s, w) + ((d.radius + MARGIN) / dist).min(1.0).asin()
        }
        Blocker::Box(lo, hi) => {
            let (lo, hi) = (lo - MARGIN, hi + MARGIN);
            if o.x >= lo.x && o.y >= lo.y && o.x <= hi.x && o.y <= hi.y {
                return PI;
            }
            [lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)]
                .into_iter()
                .map(|k| angle(base, s, k - o))
                .fold(f64::NEG_INFINITY, f64::max)
        }
        Blocker::Region => PI,
    }
}

#[cfg(test)]
#[path = "smooth_tests.rs"]
mod tests;
