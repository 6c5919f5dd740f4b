//! When a ball on a ballistic arc first touches the terrain or a fixed sphere, predicted on the
//! exact triangles with a proven bound — never by stepping.
//!
//! Over [a, b] the arc c(τ) = p + v·τ + ½·g·τ² stays within δ = |g|·(b − a)²/8 of its chord (the
//! straight segment from c(a) to c(b), at the same parameter). So if a sphere of radius r + δ swept
//! along the chord touches nothing, the ball of radius r touches nothing on [a, b]; and if it first
//! touches at fraction f, the ball touches nothing before a + f·(b − a). Conservative advancement:
//! move a to that point, halve the interval, sweep again; once δ ≤ [`TOLERANCE`] the fat sphere's
//! first touch is the answer, at which the ball's surface is within 2δ of the obstacle and never
//! inside it (every earlier point of the arc is more than r away).

use crate::collide::SweepTarget;
use glam::DVec3;

/// Largest gap (world units) left between a ball and what it touches at a predicted contact.
pub const TOLERANCE: f64 = 1e-9;

/// A contact predicted on an arc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArcContact {
    /// Time from the arc's start.
    pub tau: f64,
    /// Unit normal at the contact, from the obstacle toward the ball's centre.
    pub normal: DVec3,
    /// What was touched: `None` the terrain, `Some(k)` fixed sphere k.
    pub sphere: Option<usize>,
}

/// A ballistic arc: centre p + v·τ + ½·g·τ².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arc {
    /// Centre at τ = 0.
    pub p: DVec3,
    /// Velocity at τ = 0.
    pub v: DVec3,
    /// Acceleration (gravity).
    pub g: DVec3,
}

impl Arc {
    /// Centre at τ.
    pub fn at(&self, tau: f64) -> DVec3 {
        self.p + self.v * tau + self.g * (0.5 * tau * tau)
    }

    /// Velocity at τ.
    pub fn velocity(&self, tau: f64) -> DVec3 {
        self.v + self.g * tau
    }
}

/// The first contact in (0, `t_max`] of a ball of radius `r` on `arc` with the terrain (`target`)
/// or the fixed spheres `(centre, radius)`, ignoring contacts it is leaving (velocity along the
/// normal ≥ 0: a ball that has just bounced, or rests, touching).
pub fn first_contact(
    target: &dyn SweepTarget,
    spheres: &[(DVec3, f64)],
    arc: &Arc,
    r: f64,
    t_max: f64,
) -> Option<ArcContact> {
    let g = arc.g.length();
    // The first interval: long enough to cross a few metres in one sweep, short enough that the
    // chord's fat sphere is not the whole terrain.
    let speed = arc.v.length() + g;
    let mut len = (4.0 * r.max(1.0) / speed.max(1e-9)).min(t_max).max(1e-6);
    let mut a = 0.0f64;
    // Skip used past a contact the ball is leaving (grows while it keeps finding it).
    let mut skip = 1e-9f64;
    while a < t_max {
        let b = (a + len).min(t_max);
        let (ca, cb) = (arc.at(a), arc.at(b));
        let delta = g * (b - a) * (b - a) / 8.0;
        match earliest(target, spheres, ca, cb - ca, r + delta) {
            None => {
                a = b;
                len *= 2.0;
            }
            Some((f, normal, sphere)) => {
                let at = a + f * (b - a);
                if delta <= TOLERANCE {
                    if arc.velocity(at).dot(normal) < 0.0 {
                        return Some(ArcContact { tau: at.max(f64::MIN_POSITIVE), normal, sphere });
                    }
                    // Leaving it: look again a little later.
                    a = at + skip;
                    skip *= 2.0;
                    len = (len * 0.5).max(1e-9);
                    continue;
                }
                a = at;
                len = (b - a).max(0.0) * 0.5;
                // The tolerance is reached in a few more halvings.
                len = len.max((8.0 * TOLERANCE / g.max(1e-12)).sqrt() * 0.5);
            }
        }
    }
    None
}

/// Earliest touch of a sphere of radius `r` moving from `c` along `v` (fraction in [0, 1]) with
/// the terrain or a fixed sphere: (fraction, normal, which sphere).
fn earliest(
    target: &dyn SweepTarget,
    spheres: &[(DVec3, f64)],
    c: DVec3,
    v: DVec3,
    r: f64,
) -> Option<(f64, DVec3, Option<usize>)> {
    let mut best = target.sweep(c, r, v).map(|tc| (tc.contact.t, tc.contact.normal, None));
    for (k, &(s, rs)) in spheres.iter().enumerate() {
        if let Some(f) = crate::geom::ray_ball(c, v, s, r + rs).filter(|&f| f <= 1.0) {
            if best.is_none_or(|b| f < b.0) {
                let n = (c + v * f - s).normalize_or_zero();
                best = Some((f, n, Some(k)));
            }
        }
    }
    best
}
