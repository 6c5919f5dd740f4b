use super::Aabb;
use glam::DVec3;

/// The points within `radius` of a box (the box with rounded edges and corners): everything a
/// sphere of that radius whose center stays in the box can touch. Its corners reject what the plain
/// grown box ([`Self::bounds`]) lets through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundedBox {
    /// The box the center stays in.
    pub core: Aabb,
    /// `core` grown by the radius on every side.
    pub bounds: Aabb,
    /// The squared radius, with room for the rounding of the gaps measured against it.
    reach2: f64,
}

impl RoundedBox {
    /// The points within `radius` of `core`.
    #[inline]
    pub fn new(core: Aabb, radius: f64) -> Self {
        let grow = DVec3::splat(radius);
        let bounds = Aabb::new(core.min - grow, core.max + grow);
        // The gaps are exact differences when small (Sterbenz) and accurate to an ulp when not: a
        // relative margin keeps a box exactly `radius` away from being rejected.
        Self { core, bounds, reach2: radius * radius * (1.0 + 1e-9) + 1e-300 }
    }

    /// The points within `radius` of the bounding box of the segment `a`–`b`: what a sphere whose
    /// center moves from `a` to `b` can touch.
    #[inline]
    pub fn around_segment(a: DVec3, b: DVec3, radius: f64) -> Self {
        Self::new(Aabb::new(a.min(b), a.max(b)), radius)
    }

    /// Whether the box [`lo`, `hi`] comes within the radius of the core.
    #[inline(always)]
    pub fn reaches(&self, lo: DVec3, hi: DVec3) -> bool {
        let gap = (lo - self.core.max).max(self.core.min - hi).max(DVec3::ZERO);
        gap.length_squared() <= self.reach2
    }

    /// [`Self::reaches`] in two steps, for boxes that share their x-y extent: the squared x-y gap
    /// of the extent [`x0`, `x1`] × [`y0`, `y1`] when it is within reach (`None` when no box over
    /// it can be)…
    #[inline(always)]
    pub fn xy_gap2(&self, x0: f64, x1: f64, y0: f64, y1: f64) -> Option<f64> {
        let gap =
            (DVec3::new(x0, y0, 0.0) - self.core.max).max(self.core.min - DVec3::new(x1, y1, 0.0)).max(DVec3::ZERO);
        let xy = gap.x * gap.x + gap.y * gap.y;
        (xy <= self.reach2).then_some(xy)
    }

    /// …then whether the box over it from height `z0` to `z1` comes within reach: the same answer,
    /// bit for bit, as [`Self::reaches`] of that box.
    #[inline(always)]
    pub fn reaches_over(&self, xy_gap2: f64, z0: f64, z1: f64) -> bool {
        let gap = (z0 - self.core.max.z).max(self.core.min.z - z1).max(0.0);
        xy_gap2 + gap * gap <= self.reach2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box exactly r from the core is reached, along an axis and across a corner, also for small
    /// radii far from the origin (where a coordinate's ulp is a sizeable part of r), in one step or
    /// two; one a thousandth of r further is not. (Fails when the margin is taken away.)
    #[test]
    fn boxes_exactly_r_away_are_reached() {
        for origin in [0.0, 1.0, 145_000.0, 3.0e6] {
            for r in [0.01, 0.5, 3.0] {
                let c = DVec3::new(origin + 0.3, -origin - 0.7, origin * 0.5);
                let v = DVec3::new(0.25, 0.0, -0.125);
                let rounded = RoundedBox::around_segment(c, c + v, r);
                let (lo, hi) = (c.min(c + v), c.max(c + v));
                let diagonal = DVec3::new(1.0, 1.0, 0.0).normalize();
                for (dir, corner) in [(DVec3::X, hi), (-DVec3::Y, lo), (diagonal, DVec3::new(hi.x, hi.y, lo.z))] {
                    for (scale, reached) in [(1.0, true), (1.001, false)] {
                        // A point box at distance `scale·r` from the core (rounded outward for the
                        // reached case, inward for the other).
                        let mut p = corner + dir * (r * scale);
                        let step = if reached { -1.0 } else { 1.0 };
                        for k in 0..3 {
                            if dir[k] != 0.0 {
                                p[k] = if dir[k] * step > 0.0 { p[k].next_up() } else { p[k].next_down() };
                            }
                        }
                        assert_eq!(rounded.reaches(p, p), reached, "origin {origin}, r {r}, dir {dir}, scale {scale}");
                        let two_steps =
                            rounded.xy_gap2(p.x, p.x, p.y, p.y).is_some_and(|xy| rounded.reaches_over(xy, p.z, p.z));
                        assert_eq!(two_steps, reached, "two steps: origin {origin}, r {r}, dir {dir}, scale {scale}");
                    }
                }
            }
        }
    }
}
