//! One observer's eye: where it stands, which samples are its targets, and the exact walk's
//! verdict on a target (what the sweep falls back to and is checked against).

use super::params::{ViewshedError, ViewshedParams};
use super::sight::{Probe, Sight};
use super::EARTH_RADIUS;
use crate::heightfield::cell;
use crate::heightfield::Heightfield;
use crate::polygon::MAX_COORDINATE;
use std::ops::ControlFlow;

/// Relative tolerance within which the sight line touching the terrain counts as a touch: at a
/// terrain point a fraction f of the way from the eye to the target, a touch is within
/// `TOUCH·(1 + |eye| + |target|)·f` of the line (a constant angle seen from the eye).
pub(crate) const TOUCH: f64 = 1e-13;

/// One observer's eye: the sight and the target filter.
pub(crate) struct Eye<'a> {
    pub sight: Sight<'a>,
    pub params: &'a ViewshedParams,
}

impl<'a> Eye<'a> {
    pub fn new(hf: &'a Heightfield, observer: [f64; 2], params: &'a ViewshedParams) -> Result<Self, ViewshedError> {
        params.validate()?;
        if !hf.frame().is_z_up() {
            return Err(ViewshedError::NotZUp);
        }
        let sp = hf.spacing();
        let span = (sp.x.abs() * (hf.nx() - 1) as f64, sp.y.abs() * (hf.ny() - 1) as f64);
        if !(span.0 <= MAX_COORDINATE && span.1 <= MAX_COORDINATE) {
            return Err(ViewshedError::TooWide { x: span.0, y: span.1 });
        }
        let [x, y] = observer;
        if !(x.is_finite() && y.is_finite()) {
            return Err(ViewshedError::ObserverOutside { x, y });
        }
        let (ou, ov) = hf.to_grid(x, y);
        let curv = if params.curvature { (1.0 - params.refraction) / (2.0 * EARTH_RADIUS) } else { 0.0 };
        let mut sight = Sight { hf, curv, ou, ov, zo: 0.0 };
        let inside = (0.0..=(hf.nx() - 1) as f64).contains(&ou) && (0.0..=(hf.ny() - 1) as f64).contains(&ov);
        let l = hf.locate(ou, ov).ok_or(if inside {
            ViewshedError::ObserverOverHole { x, y }
        } else {
            ViewshedError::ObserverOutside { x, y }
        })?;
        // Within the border's tolerance outside the grid, the eye is on its edge (as `locate` says).
        (sight.ou, sight.ov) = (ou.clamp(0.0, (hf.nx() - 1) as f64), ov.clamp(0.0, (hf.ny() - 1) as f64));
        let k = sight.corners(l.i, l.j);
        let g = cell::plane(hf.diagonal().is_anti(l.i, l.j), l.half, &k).eval(l.fu, l.fv);
        sight.zo = g + params.observer_height;
        Ok(Self { sight, params })
    }

    /// Whether sample (i, j) at elevation `zp` (lowered, with the target height) is a target.
    pub fn is_target(&self, i: usize, j: usize, zp: f64) -> bool {
        if zp.is_nan() {
            return false;
        }
        let s = &self.sight;
        let sp = s.hf.spacing();
        let (ex, ny) = ((i as f64 - s.ou) * sp.x, (j as f64 - s.ov) * sp.y);
        let d2 = ex * ex + ny * ny;
        let p = self.params;
        if p.max_distance.is_finite() && d2 > p.max_distance * p.max_distance {
            return false;
        }
        if let Some((a, b)) = p.azimuths {
            if d2 > 0.0 {
                // Clockwise from north.
                let az = ex.atan2(ny).to_degrees().rem_euclid(360.0);
                // Each angle reduced first: (b − a) of 10 and 1e300 would lose b.
                let (a, b) = (a.rem_euclid(360.0), b.rem_euclid(360.0));
                let span = (b - a).rem_euclid(360.0);
                let from_a = (az - a).rem_euclid(360.0);
                if span != 0.0 && from_a > span {
                    return false;
                }
            }
        }
        if let Some((lo, hi)) = p.pitch {
            let pitch = (zp - s.zo).atan2(d2.sqrt()).to_degrees();
            if pitch < lo || pitch > hi {
                return false;
            }
        }
        true
    }

    /// The exact walk's verdict on target (i, j) at elevation `zp`.
    pub fn visible_by_walk(&self, i: usize, j: usize, zp: f64) -> bool {
        let mut probe =
            Blocked { zo: self.sight.zo, zp, eps: TOUCH * (1.0 + self.sight.zo.abs() + zp.abs()), at: false };
        self.sight.walk(i, j, &mut probe);
        !probe.at
    }

    /// The exact walk's least target elevation (lowered) at which (i, j) is seen; −∞ when nothing
    /// stands between.
    pub fn needed_by_walk(&self, i: usize, j: usize) -> f64 {
        let mut probe = Needed { zo: self.sight.zo, best: f64::NEG_INFINITY };
        self.sight.walk(i, j, &mut probe);
        probe.best
    }

    /// The eye's own sample, when the eye stands exactly on one: (i, j).
    pub fn own_sample(&self) -> Option<(usize, usize)> {
        let s = &self.sight;
        let (i, j) = (s.ou as usize, s.ov as usize);
        (i as f64 == s.ou && j as f64 == s.ov).then_some((i, j))
    }
}

/// Visibility probe: hidden when the terrain at some breakpoint strictly between the eye and the
/// target (s ∈ (0, 1), s = 0 at the target) is on or above the line, within the touch tolerance
/// scaled by the breakpoint's distance from the eye. The walk reports pieces only over existing
/// triangles, so holes block nothing.
struct Blocked {
    zo: f64,
    zp: f64,
    eps: f64,
    at: bool,
}

impl Blocked {
    /// Height of the segment at s, less the touch tolerance there.
    #[inline(always)]
    fn line(&self, s: f64) -> f64 {
        self.zp + s * (self.zo - self.zp) - self.eps * (1.0 - s)
    }
}

impl Probe for Blocked {
    #[inline(always)]
    fn matters(&self, hi: f64, sa: f64, sb: f64) -> bool {
        hi >= self.line(sa).min(self.line(sb))
    }

    #[inline(always)]
    fn piece(&mut self, s1: f64, h1: f64, s2: f64, h2: f64) -> ControlFlow<()> {
        // Over one triangle the terrain and the line are both linear in s: the highest difference
        // is at an end.
        for (s, h) in [(s1, h1), (s2, h2)] {
            if s > 0.0 && s < 1.0 && h >= self.line(s) {
                self.at = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// Needed-height probe: the least target elevation E with E·(1 − s) + s·zo above every breakpoint.
struct Needed {
    zo: f64,
    best: f64,
}

impl Needed {
    /// The target elevation at which the segment just touches height `h` at s.
    #[inline(always)]
    fn needed(&self, s: f64, h: f64) -> f64 {
        (h - s * self.zo) / (1.0 - s)
    }
}

impl Probe for Needed {
    #[inline(always)]
    fn matters(&self, hi: f64, sa: f64, sb: f64) -> bool {
        // `needed` grows with s when hi > zo, else shrinks: its largest value is at one end.
        let bound = if hi > self.zo { self.needed(sb, hi) } else { self.needed(sa, hi) };
        bound > self.best
    }

    #[inline(always)]
    fn piece(&mut self, s1: f64, h1: f64, s2: f64, h2: f64) -> ControlFlow<()> {
        for (s, h) in [(s1, h1), (s2, h2)] {
            if s > 0.0 && s < 1.0 {
                self.best = self.best.max(self.needed(s, h));
            }
        }
        ControlFlow::Continue(())
    }
}
