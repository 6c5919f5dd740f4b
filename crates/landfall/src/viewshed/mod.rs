//! Viewsheds: which samples of a heightfield an observer can see, exactly, on the triangles the
//! heightfield draws.
//!
//! **Definition.** The observer stands at O = (X, Y, g + H), g the surface under (X, Y), H the
//! observer height; the target of sample (i, j) is P = (x_i, y_j, h_ij + T). P is visible when the
//! segment O→P meets no triangle before P: a crossing at P itself (the target's own triangles) does
//! not block, a touch anywhere earlier does (a contact within 1e-13 of the heights' magnitude counts
//! as a touch, so rounding never sees through an exact graze), and so does nothing at O itself.
//! Holes block nothing and are never targets. With curvature every sample is first lowered by
//! (1 − K)·d²/(2R), d its horizontal distance from the observer, R = 6,371,008.8 m, K the
//! refraction coefficient; visibility is then decided exactly on the lowered triangles.
//!
//! **Algorithm.** Each target's segment is tested exactly (see `sight.rs`: over each triangle the
//! terrain and the segment are both linear, so the ends of the pieces decide it), walking the
//! min/max pyramid from the target towards the observer and skipping every node that lies wholly
//! below the segment. Rows run in parallel, each in order: a target first tries where the previous
//! target of its row was blocked as a witness (one height lookup proves most hidden targets
//! hidden), and per-sector bounds of the terrain's slope seen from the eye (`horizon.rs`) prove
//! most visible targets visible with two short walks near the target and the eye.
//!
//! ```
//! use landfall::viewshed::{ViewshedParams, HIDDEN, VISIBLE};
//! use landfall::Heightfield;
//! // A wall across the middle of a 5×3 grid: the observer on the left sees the wall's face, not
//! // the ground behind it.
//! let h = vec![0.0, 0.0, 5.0, 0.0, 0.0,  0.0, 0.0, 5.0, 0.0, 0.0,  0.0, 0.0, 5.0, 0.0, 0.0];
//! let hf = Heightfield::builder(5, 3, h).build().unwrap();
//! let vis = hf.viewshed([0.0, 1.0], &ViewshedParams::default()).unwrap();
//! assert_eq!(vis.get(2, 1), VISIBLE);
//! assert_eq!(vis.get(4, 1), HIDDEN);
//! ```

mod horizon;
mod params;
mod sight;

pub use params::{ViewshedError, ViewshedParams};

use crate::heightfield::cell;
use crate::heightfield::Heightfield;
use rayon::prelude::*;
use sight::{Probe, Sight};
use std::ops::ControlFlow;

/// A visible sample.
pub const VISIBLE: u8 = 1;
/// A sample the observer cannot see.
pub const HIDDEN: u8 = 0;
/// Not a target: a hole, beyond the maximum distance, or outside the angles.
pub const NODATA: u8 = 255;

/// The Earth's mean radius (m), as GDAL uses for curvature.
pub const EARTH_RADIUS: f64 = 6_371_008.8;

/// A grid of per-sample values aligned with a heightfield's samples (`values[j·nx + i]`, row 0
/// south).
#[derive(Clone, Debug, PartialEq)]
pub struct Grid<T> {
    /// Samples along x.
    pub nx: usize,
    /// Samples along y.
    pub ny: usize,
    /// Row-major values, row 0 south.
    pub values: Vec<T>,
}

impl<T: Copy> Grid<T> {
    /// The value of sample (i, j).
    pub fn get(&self, i: usize, j: usize) -> T {
        self.values[j * self.nx + i]
    }
}

/// Visibility per sample: [`VISIBLE`], [`HIDDEN`] or [`NODATA`].
pub type Visibility = Grid<u8>;

/// Relative tolerance within which the segment touching the terrain counts as a touch.
const TOUCH: f64 = 1e-13;

impl Heightfield {
    /// Which samples the observer at world (x, y) sees (see the [module](crate::viewshed) for the
    /// exact definition).
    pub fn viewshed(&self, observer: [f64; 2], params: &ViewshedParams) -> Result<Visibility, ViewshedError> {
        let run = Run::new(self, observer, params)?;
        // Without holes, and with the eye above the ground, the terrain is continuous between any
        // target and the eye, which is above it: the segment meets the terrain exactly when the
        // terrain reaches the segment anywhere in (0, 1). That test can stop at the first such
        // point and can be proven by a single height (a witness).
        let continuous = !self.has_holes() && params.observer_height > 0.0;
        let horizon = continuous.then(|| horizon::Horizon::new(&run.sight));
        let reach = 1.000001 * self.spacing().x.hypot(self.spacing().y);
        let cell = self.spacing().x.min(self.spacing().y);
        Ok(run.grid(
            |sight, i, j, zp, witness: &mut Option<(f64, f64)>| {
                let eps = TOUCH * (1.0 + sight.zo.abs() + zp.abs());
                let mut probe = Blocked { zo: sight.zo, zp, eps, continuous, at: f64::NAN };
                let length = sight.dist2(i as f64, j as f64).sqrt();
                // The previous target of the row is a neighbour in angle: its blocker, at the same
                // distance from the eye (a ridge both lines cross) or from the target (the slope
                // just in front of both), likely blocks this line too. One height each to try.
                if let (true, Some((from_eye, from_target))) = (continuous, *witness) {
                    for s in [1.0 - from_eye / length, from_target / length] {
                        // Not at the target itself, where the line and the ground meet by definition.
                        if s * length >= 0.5 * cell && s < 1.0 {
                            if let Some(h) = sight.terrain_at(i, j, s) {
                                if h >= probe.line(s) - eps {
                                    return HIDDEN;
                                }
                            }
                        }
                    }
                }
                // The sector bound may prove the stretch between the eye's and the target's
                // neighbourhoods clear; then only those two are walked.
                let proven = horizon.as_ref().and_then(|hz| {
                    let (bound, cut) = hz.bound(sight, i, j, length, reach)?;
                    let slope = (zp - sight.zo) / length;
                    ((slope - bound) * hz.near > eps).then_some((cut, hz.near))
                });
                match proven {
                    Some((cut, near)) => {
                        sight.walk_part(i, j, 0.0, 1.0 - cut / length, &mut probe);
                        if probe.at.is_nan() {
                            sight.walk_part(i, j, 1.0 - near / length, 1.0, &mut probe);
                        }
                    }
                    None => sight.walk(i, j, &mut probe),
                }
                if probe.at.is_nan() {
                    *witness = None;
                    VISIBLE
                } else {
                    *witness = Some(((1.0 - probe.at) * length, probe.at * length));
                    HIDDEN
                }
            },
            NODATA,
        ))
    }

    /// The least target height above the ground at which each sample would be seen (GDAL's
    /// `GROUND` mode; add the sample heights for its `DEM` mode): 0 where a target on the ground is
    /// already visible, NaN where the sample is not a target. The target height of `params` is
    /// ignored; a target exactly at the returned height touches the line of sight (not visible),
    /// anything higher is seen. (Where holes let a line pass under the surface without meeting it,
    /// this mode still asks the line to clear the terrain.)
    pub fn viewshed_heights(&self, observer: [f64; 2], params: &ViewshedParams) -> Result<Grid<f64>, ViewshedError> {
        let params = ViewshedParams { target_height: 0.0, ..params.clone() };
        let run = Run::new(self, observer, &params)?;
        Ok(run.grid(
            |sight, i, j, zp, _: &mut ()| {
                let mut probe = Needed { zo: sight.zo, best: f64::NEG_INFINITY };
                sight.walk(i, j, &mut probe);
                (probe.best - zp).max(0.0)
            },
            f64::NAN,
        ))
    }

    /// [`viewshed`](Self::viewshed) by the plain method: every target's segment walked in full,
    /// no witnesses, no sector bounds. The same answers, slower: the baseline the benchmarks
    /// compare with, and an oracle for the fast paths in tests.
    pub fn viewshed_one_ray_per_cell(
        &self,
        observer: [f64; 2],
        params: &ViewshedParams,
    ) -> Result<Visibility, ViewshedError> {
        let run = Run::new(self, observer, params)?;
        let continuous = !self.has_holes() && params.observer_height > 0.0;
        Ok(run.grid(
            |sight, i, j, zp, _: &mut ()| {
                let eps = TOUCH * (1.0 + sight.zo.abs() + zp.abs());
                let mut probe = Blocked { zo: sight.zo, zp, eps, continuous, at: f64::NAN };
                sight.walk(i, j, &mut probe);
                if probe.at.is_nan() {
                    VISIBLE
                } else {
                    HIDDEN
                }
            },
            NODATA,
        ))
    }

    /// The elevation of the eye of an observer at world (x, y) (its ground, lowered for curvature,
    /// plus the observer height), or why no observer can stand there.
    pub fn observer_eye(&self, observer: [f64; 2], params: &ViewshedParams) -> Result<f64, ViewshedError> {
        Ok(Run::new(self, observer, params)?.sight.zo)
    }

    /// How many of the observers see each sample: `counts[k] ≤ observers.len()`, `None` for a
    /// sample that is a target of no observer (a hole, or out of every observer's range). Each
    /// observer is `(x, y, observer height)`; the other parameters are shared. Observers run in
    /// parallel, and each one's grid too.
    pub fn cumulative_viewshed(
        &self,
        observers: &[[f64; 3]],
        params: &ViewshedParams,
    ) -> Result<Grid<Option<u32>>, ViewshedError> {
        let n = self.nx() * self.ny();
        let each = |o: &[f64; 3]| -> Result<Visibility, ViewshedError> {
            self.viewshed([o[0], o[1]], &ViewshedParams { observer_height: o[2], ..params.clone() })
        };
        // Validate every observer before the long work.
        for (k, o) in observers.iter().enumerate() {
            self.observer_eye([o[0], o[1]], &ViewshedParams { observer_height: o[2], ..params.clone() })
                .map_err(|e| ViewshedError::Observer { index: k, why: e.to_string() })?;
        }
        let sum = observers
            .par_iter()
            .try_fold(
                || vec![(0u32, false); n],
                |mut acc, o| {
                    let v = each(o)?;
                    for (a, &s) in acc.iter_mut().zip(&v.values) {
                        a.0 += u32::from(s == VISIBLE);
                        a.1 |= s != NODATA;
                    }
                    Ok(acc)
                },
            )
            .try_reduce(
                || vec![(0u32, false); n],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(&b) {
                        x.0 += y.0;
                        x.1 |= y.1;
                    }
                    Ok(a)
                },
            )?;
        Ok(Grid { nx: self.nx(), ny: self.ny(), values: sum.into_iter().map(|(c, t)| t.then_some(c)).collect() })
    }
}

/// One observer's run: the sight and the target filter.
struct Run<'a> {
    sight: Sight<'a>,
    params: &'a ViewshedParams,
}

impl<'a> Run<'a> {
    fn new(hf: &'a Heightfield, observer: [f64; 2], params: &'a ViewshedParams) -> Result<Self, ViewshedError> {
        params.validate()?;
        if !hf.frame().is_z_up() {
            return Err(ViewshedError::NotZUp);
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
        let k = sight.corners(l.i, l.j);
        let g = cell::plane(hf.diagonal().is_anti(l.i, l.j), l.half, &k).eval(l.fu, l.fv);
        sight.zo = g + params.observer_height;
        Ok(Self { sight, params })
    }

    /// Whether sample (i, j) at elevation `zp` (lowered, with the target height) is a target.
    fn is_target(&self, i: usize, j: usize, zp: f64) -> bool {
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

    /// Every sample: `nodata` where it is not a target, else `f(sight, i, j, target elevation,
    /// row state)`. Rows run in parallel; each row in order, with a state that `f` carries from one
    /// target to the next.
    fn grid<T: Copy + Send + Sync, S: Default>(
        &self,
        f: impl Fn(&Sight, usize, usize, f64, &mut S) -> T + Sync,
        nodata: T,
    ) -> Grid<T> {
        let hf = self.sight.hf;
        let (nx, ny) = (hf.nx(), hf.ny());
        let mut values = vec![nodata; nx * ny];
        values.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
            let mut state = S::default();
            for (i, v) in row.iter_mut().enumerate() {
                let zp = self.sight.lowered(i, j) + self.params.target_height;
                if self.is_target(i, j, zp) {
                    *v = f(&self.sight, i, j, zp, &mut state);
                }
            }
        });
        Grid { nx, ny, values }
    }
}

/// Visibility probe: blocked when the segment meets a triangle at some s ∈ (0, 1) (`at` is then
/// where, else NaN). `continuous`: the terrain has no holes and the eye is above it, so the terrain
/// reaching the segment anywhere is a meeting.
struct Blocked {
    zo: f64,
    zp: f64,
    eps: f64,
    continuous: bool,
    at: f64,
}

impl Blocked {
    /// Height of the segment at s.
    #[inline(always)]
    fn line(&self, s: f64) -> f64 {
        self.zp + s * (self.zo - self.zp)
    }
}

impl Probe for Blocked {
    #[inline(always)]
    fn matters(&self, hi: f64, sa: f64, sb: f64) -> bool {
        hi >= self.line(sa).min(self.line(sb)) - self.eps
    }

    #[inline(always)]
    fn piece(&mut self, s1: f64, h1: f64, s2: f64, h2: f64) -> ControlFlow<()> {
        if self.continuous {
            for (s, h) in [(s1, h1), (s2, h2)] {
                if s > 0.0 && s < 1.0 && h >= self.line(s) - self.eps {
                    self.at = s;
                    return ControlFlow::Break(());
                }
            }
            return ControlFlow::Continue(());
        }
        // Terrain minus line at both ends, a touch within eps counting as zero.
        let snap = |d: f64| if d.abs() <= self.eps { 0.0 } else { d };
        let (d1, d2) = (snap(h1 - self.line(s1)), snap(h2 - self.line(s2)));
        let meets = if d1 == 0.0 && d2 == 0.0 {
            s1 < s2 || (s1 > 0.0 && s1 < 1.0)
        } else if d1 == 0.0 {
            s1 > 0.0 && s1 < 1.0
        } else if d2 == 0.0 {
            s2 > 0.0 && s2 < 1.0
        } else {
            // Opposite signs: the zero lies strictly inside [s1, s2] ⊂ [0, 1].
            (d1 < 0.0) != (d2 < 0.0)
        };
        if meets {
            self.at = if d1 == 0.0 && s1 > 0.0 { s1 } else { s2.min(0.5 * (s1 + s2)) };
            return ControlFlow::Break(());
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
