use glam::DVec3;

/// An axis-aligned box, `min` ≤ `max` component-wise (an empty box has `min` > `max`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: DVec3,
    /// Largest corner.
    pub max: DVec3,
}

impl Aabb {
    /// The empty box (contains nothing; growing it by a point gives that point).
    pub const EMPTY: Aabb = Aabb { min: DVec3::splat(f64::INFINITY), max: DVec3::splat(f64::NEG_INFINITY) };

    /// A box from its corners.
    pub const fn new(min: DVec3, max: DVec3) -> Self {
        Self { min, max }
    }

    /// True when the box contains no point.
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y && self.min.z <= self.max.z)
    }

    /// The smallest box containing `self` and `p`.
    pub fn grown(&self, p: DVec3) -> Self {
        Self::new(self.min.min(p), self.max.max(p))
    }

    /// The smallest box containing `self` and `other` (either may be empty).
    pub fn union(&self, other: &Aabb) -> Self {
        Self::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// The horizontal extent for people, `x 0 … 289170, y 48.01637 … 49.98418` (seven significant
    /// digits): what error messages about a position outside a terrain show.
    pub fn xy_extent(&self) -> String {
        if self.is_empty() {
            return "nothing (an empty terrain)".into();
        }
        let s = |v: f64| {
            let digits = if v == 0.0 { 0 } else { (6 - v.abs().log10().floor() as i32).clamp(0, 15) as usize };
            let t = format!("{v:.digits$}");
            let t = if t.contains('.') { t.trim_end_matches('0').trim_end_matches('.') } else { &t };
            if t == "-0" {
                "0".to_string()
            } else {
                t.to_string()
            }
        };
        format!("x {} … {}, y {} … {}", s(self.min.x), s(self.max.x), s(self.min.y), s(self.max.y))
    }

    /// Slab test: the parameter interval `[t0, t1]` of `origin + t·dir` inside the box, clipped to
    /// `[t_min, t_max]`, or `None`. Axis-parallel rays are handled exactly (no 0·∞).
    pub fn clip_ray(&self, origin: DVec3, dir: DVec3, t_min: f64, t_max: f64) -> Option<(f64, f64)> {
        let mut t0 = t_min;
        let mut t1 = t_max;
        for a in 0..3 {
            let (o, d, lo, hi) = (origin[a], dir[a], self.min[a], self.max[a]);
            if d == 0.0 {
                if o < lo || o > hi {
                    return None;
                }
            } else {
                let inv = 1.0 / d;
                let (mut ta, mut tb) = ((lo - o) * inv, (hi - o) * inv);
                if ta > tb {
                    std::mem::swap(&mut ta, &mut tb);
                }
                t0 = t0.max(ta);
                t1 = t1.min(tb);
            }
        }
        (t0 <= t1).then_some((t0, t1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_print_in_seven_digits() {
        let b = Aabb::new(DVec3::new(234.01669311523438, -0.0, -1.0), DVec3::new(289170.0, 48.0163688659668, 2.0));
        assert_eq!(b.xy_extent(), "x 234.0167 … 289170, y 0 … 48.01637");
        assert_eq!(Aabb::EMPTY.xy_extent(), "nothing (an empty terrain)");
    }
}
