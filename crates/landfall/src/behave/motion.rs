//! A full-detail entity's motion over one beat: a straight line at constant speed between two
//! points of its route (a hold when they are equal), and the exact least distance between two such
//! motions over an interval of time.

use glam::DVec2;

/// Motion from `p0` at `t0` to `p1` at `t1`, straight and at constant speed; before `t0` the entity
/// is at `p0`, after `t1` at `p1`. `s0` and `s1` are the arc lengths along the route at the ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Start time.
    pub t0: f64,
    /// End time (≥ `t0`).
    pub t1: f64,
    /// Position at `t0`.
    pub p0: DVec2,
    /// Position at `t1`.
    pub p1: DVec2,
    /// Arc length along the route at `t0`.
    pub s0: f64,
    /// Arc length along the route at `t1`.
    pub s1: f64,
}

impl Plan {
    /// Standing at `p` (arc length `s`) from `t0` to `t1`.
    pub fn hold(t0: f64, t1: f64, p: DVec2, s: f64) -> Self {
        Self { t0, t1, p0: p, p1: p, s0: s, s1: s }
    }

    /// The fraction of the plan done at `t` (in [0, 1]).
    fn fraction(&self, t: f64) -> f64 {
        if self.t1 > self.t0 {
            ((t - self.t0) / (self.t1 - self.t0)).clamp(0.0, 1.0)
        } else if t >= self.t1 {
            1.0
        } else {
            0.0
        }
    }

    /// Position at `t`.
    pub fn at(&self, t: f64) -> DVec2 {
        let f = self.fraction(t);
        if f >= 1.0 {
            self.p1
        } else {
            self.p0 + (self.p1 - self.p0) * f
        }
    }

    /// Arc length along the route at `t`.
    pub fn s_at(&self, t: f64) -> f64 {
        self.s0 + (self.s1 - self.s0) * self.fraction(t)
    }

    /// Velocity at `t` (zero outside the plan's interval).
    pub fn velocity(&self, t: f64) -> DVec2 {
        if self.t1 > self.t0 && (self.t0..self.t1).contains(&t) {
            (self.p1 - self.p0) / (self.t1 - self.t0)
        } else {
            DVec2::ZERO
        }
    }

    /// A circle holding every position of the plan: centre and radius.
    pub fn bounds(&self) -> (DVec2, f64) {
        ((self.p0 + self.p1) / 2.0, self.p0.distance(self.p1) / 2.0)
    }
}

/// The least distance between `a` and `b` over the times `from..=to` (exact up to rounding: on each
/// piece between the plans' start and end times both move in straight lines, so their difference
/// does too, and its least length has a closed form).
pub fn least_distance(a: &Plan, b: &Plan, from: f64, to: f64) -> f64 {
    let mut marks = [from, to, a.t0, a.t1, b.t0, b.t1];
    for m in &mut marks {
        *m = m.clamp(from, to);
    }
    marks.sort_unstable_by(f64::total_cmp);
    let mut best = f64::INFINITY;
    for w in marks.windows(2) {
        let (d0, d1) = (a.at(w[0]) - b.at(w[0]), a.at(w[1]) - b.at(w[1]));
        let e = d1 - d0;
        let x = if e.length_squared() > 0.0 { (-d0.dot(e) / e.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        best = best.min((d0 + e * x).length());
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pt() -> impl Strategy<Value = DVec2> {
        (-10.0f64..10.0, -10.0f64..10.0).prop_map(|(x, y)| DVec2::new(x, y))
    }

    fn plan() -> impl Strategy<Value = Plan> {
        (0.0f64..2.0, 0.0f64..2.0, pt(), pt()).prop_map(|(t0, len, p0, p1)| Plan {
            t0,
            t1: t0 + len,
            p0,
            p1,
            s0: 0.0,
            s1: 1.0,
        })
    }

    proptest! {
        #[test]
        fn least_distance_matches_dense_sampling(a in plan(), b in plan(), from in 0.0f64..2.0, len in 0.0f64..3.0, far in prop_oneof![Just(0.0), Just(1e6)]) {
            let shift = DVec2::splat(far);
            let (a, b) = (Plan { p0: a.p0 + shift, p1: a.p1 + shift, ..a }, Plan { p0: b.p0 + shift, p1: b.p1 + shift, ..b });
            let to = from + len;
            let d = least_distance(&a, &b, from, to);
            // Brute force: 20,001 samples; the exact least is at most the sampled one and within
            // what the relative speed covers between two samples.
            let n = 20_000;
            let sampled = (0..=n).map(|k| from + len * k as f64 / n as f64).map(|t| a.at(t).distance(b.at(t))).fold(f64::INFINITY, f64::min);
            let speed = (a.p1 - a.p0).length() / (a.t1 - a.t0).max(1e-300) + (b.p1 - b.p0).length() / (b.t1 - b.t0).max(1e-300);
            let slack = speed.min(1e12) * len / n as f64 + 1e-9 * (1.0 + far);
            prop_assert!(d <= sampled + 1e-9 * (1.0 + far), "{d} > {sampled}");
            prop_assert!(d >= sampled - slack || speed > 1e6, "{d} < {sampled} − {slack}");
        }
    }

    #[test]
    fn a_hold_has_no_velocity_and_stays_put() {
        let h = Plan::hold(1.0, 2.0, DVec2::new(3.0, 4.0), 7.0);
        assert_eq!((h.at(0.0), h.at(5.0), h.velocity(1.5), h.s_at(1.5)), (h.p0, h.p0, DVec2::ZERO, 7.0));
    }
}
