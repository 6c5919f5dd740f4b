//! One observer's run (the eye, the target filter), what each mode makes of a target, and the
//! driver that sweeps every sector in parallel with progress and cancellation.

use super::params::{Hooks, ViewshedError, ViewshedMode, ViewshedParams};
use super::sight::{Probe, Sight};
use super::sweep::{self, Scratch, Sector, Sink};
use super::{Grid, Observer, ViewshedOutput, EARTH_RADIUS, HIDDEN, NODATA, VISIBLE};
use crate::heightfield::cell;
use crate::heightfield::Heightfield;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Relative tolerance within which the sight line touching the terrain counts as a touch: at a
/// terrain point a fraction f of the way from the eye to the target, a touch is within
/// `TOUCH·(1 + |eye| + |target|)·f` of the line (a constant angle seen from the eye).
pub(crate) const TOUCH: f64 = 1e-13;

/// One observer's run: the sight and the target filter.
pub(crate) struct Run<'a> {
    pub sight: Sight<'a>,
    pub params: &'a ViewshedParams,
}

impl<'a> Run<'a> {
    pub fn new(hf: &'a Heightfield, observer: [f64; 2], params: &'a ViewshedParams) -> Result<Self, ViewshedError> {
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
    fn own_sample(&self) -> Option<(usize, usize)> {
        let s = &self.sight;
        let (i, j) = (s.ou as usize, s.ov as usize);
        (i as f64 == s.ou && j as f64 == s.ov).then_some((i, j))
    }
}

/// Output cells that sectors running on several threads write, each to its own targets.
struct Cells<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: `set` and `update` are the only accesses; every target belongs to exactly one sector (the quadrants and
// the sectors' u-ranges partition the samples, see `sweep.rs`), so no two threads write one cell,
// and the vector outlives the scope that writes it.
unsafe impl<T: Send> Sync for Cells<T> {}

impl<T> Cells<T> {
    fn new(v: &mut [T]) -> Self {
        Self { ptr: v.as_mut_ptr(), len: v.len() }
    }

    /// Writes cell k.
    #[inline(always)]
    fn set(&self, k: usize, value: T) {
        assert!(k < self.len);
        // SAFETY: in bounds (checked); no other thread touches cell k (see the `Sync` impl).
        unsafe { *self.ptr.add(k) = value }
    }

    /// Replaces cell k by `f` of its value.
    #[inline(always)]
    fn update(&self, k: usize, f: impl FnOnce(T) -> T)
    where
        T: Copy,
    {
        assert!(k < self.len);
        // SAFETY: in bounds (checked); no other thread touches cell k (see the `Sync` impl).
        unsafe { *self.ptr.add(k) = f(*self.ptr.add(k)) }
    }
}

/// Binary visibility; targets inside the band around the horizon go to the exact walk.
struct VisibilitySink {
    out: Cells<u8>,
    nx: usize,
    band: AtomicU64,
}

/// The sweep's verdict when it is certain: `Some(visible)`, `None` inside the band where rounding
/// could decide (the exact walk does).
#[inline(always)]
fn verdict(run: &Run, zp: f64, d: f64, vp: f64, h: f64) -> Option<bool> {
    let tol = TOUCH * (1.0 + run.sight.zo.abs() + zp.abs()) / d;
    if h < vp - 3.0 * tol {
        Some(true)
    } else if h > vp + tol {
        Some(false)
    } else {
        None
    }
}

impl Sink for VisibilitySink {
    #[inline(always)]
    fn target(&self, run: &Run, i: usize, j: usize, zp: f64, d: f64, vp: f64, h: Option<f64>) {
        let visible = h.and_then(|h| verdict(run, zp, d, vp, h)).unwrap_or_else(|| {
            self.band.fetch_add(1, Ordering::Relaxed);
            run.visible_by_walk(i, j, zp)
        });
        self.out.set(j * self.nx + i, if visible { VISIBLE } else { HIDDEN });
    }
}

/// Least target heights above the ground.
struct HeightSink {
    out: Cells<f64>,
    nx: usize,
}

impl Sink for HeightSink {
    #[inline(always)]
    fn target(&self, run: &Run, i: usize, j: usize, zp: f64, d: f64, _vp: f64, h: Option<f64>) {
        let need = match h {
            Some(h) => run.sight.zo + h * d,
            None => run.needed_by_walk(i, j),
        };
        self.out.set(j * self.nx + i, (need - zp).max(0.0));
    }
}

/// Counts of one thread's observers: bit 31 marks a sample that was some observer's target.
struct CountSink {
    out: Cells<u32>,
    nx: usize,
}

const TARGETED: u32 = 1 << 31;

impl Sink for CountSink {
    #[inline(always)]
    fn target(&self, run: &Run, i: usize, j: usize, zp: f64, d: f64, vp: f64, h: Option<f64>) {
        let visible = h.and_then(|h| verdict(run, zp, d, vp, h)).unwrap_or_else(|| run.visible_by_walk(i, j, zp));
        self.out.update(j * self.nx + i, |c| ((c & !TARGETED) + u32::from(visible)) | TARGETED);
    }
}

/// Work done, for the progress hook, and the cancel flag.
struct Progress<'a> {
    hooks: &'a Hooks<'a>,
    done: AtomicU64,
    reported: AtomicU64,
    total: f64,
}

impl Progress<'_> {
    /// Counts a column of `n` samples; `Break` once cancelled.
    fn column(&self, n: usize) -> ControlFlow<()> {
        if self.hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return ControlFlow::Break(());
        }
        if let Some(report) = self.hooks.progress {
            let done = self.done.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
            // Every half per cent.
            let step = (200.0 * done as f64 / self.total) as u64;
            if step > self.reported.fetch_max(step, Ordering::Relaxed) {
                report((done as f64 / self.total).min(1.0));
            }
        }
        ControlFlow::Continue(())
    }

    fn cancelled(&self) -> bool {
        self.hooks.cancel.is_some_and(|c: &AtomicBool| c.load(Ordering::Relaxed))
    }
}

/// Eight sectors a quadrant balance an eye near a corner over the threads.
const SECTORS: usize = 8;

/// Sweeps every sector of one observer, in parallel.
fn sweep_all<S: Sink>(run: &Run, sink: &S, progress: &Progress) -> Result<(), ViewshedError> {
    let sectors = Sector::split(SECTORS);
    let stopped = AtomicBool::new(false);
    sectors.par_iter().for_each_init(Scratch::default, |scratch, &sector| {
        if sweep::sweep(run, sector, sink, scratch, &mut |n| progress.column(n)).is_break() {
            stopped.store(true, Ordering::Relaxed);
        }
    });
    if stopped.load(Ordering::Relaxed) || progress.cancelled() {
        return Err(ViewshedError::Cancelled);
    }
    Ok(())
}

/// The viewshed's one entry point (see [`super::viewshed`]).
pub(crate) fn compute(
    hf: &Heightfield,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
    hooks: &Hooks,
) -> Result<ViewshedOutput, ViewshedError> {
    params.validate()?;
    let (nx, ny) = (hf.nx(), hf.ny());
    let n = nx * ny;
    if mode != ViewshedMode::Count && observers.len() != 1 {
        return Err(ViewshedError::ObserverCount { mode, count: observers.len() });
    }
    let with_height =
        |o: &Observer| ViewshedParams { observer_height: o.height.unwrap_or(params.observer_height), ..params.clone() };
    let per: Vec<ViewshedParams> = observers.iter().map(with_height).collect();
    // Every observer checked before the long work.
    for (k, (o, p)) in observers.iter().zip(&per).enumerate() {
        if let Err(e) = Run::new(hf, [o.x, o.y], p) {
            return Err(if mode == ViewshedMode::Count {
                ViewshedError::Observer { index: k, why: e.to_string() }
            } else {
                e
            });
        }
    }
    // The work: the samples each sector's sweep loads.
    let sectors = Sector::split(if mode == ViewshedMode::Count { 1 } else { SECTORS });
    let total: u64 = if hooks.progress.is_some() {
        observers
            .iter()
            .zip(&per)
            .map(|(o, p)| {
                let run = Run::new(hf, [o.x, o.y], p).expect("checked above");
                sectors.iter().map(|&s| sweep::work(&run, s)).sum::<u64>()
            })
            .sum()
    } else {
        1
    };
    let total = (total as f64).max(1.0);
    let progress = Progress { hooks, done: AtomicU64::new(0), reported: AtomicU64::new(0), total };
    match mode {
        ViewshedMode::Visibility => {
            let run = Run::new(hf, [observers[0].x, observers[0].y], &per[0])?;
            let mut values = vec![NODATA; n];
            let sink = VisibilitySink { out: Cells::new(&mut values), nx, band: AtomicU64::new(0) };
            sweep_all(&run, &sink, &progress)?;
            if let Some((i, j)) = run.own_sample() {
                let zp = run.sight.lowered(i, j) + run.params.target_height;
                if run.is_target(i, j, zp) {
                    values[j * nx + i] = VISIBLE;
                }
            }
            let band = sink.band.load(Ordering::Relaxed);
            Ok(ViewshedOutput::Visibility(Grid { nx, ny, values }, Stats { band }))
        }
        ViewshedMode::HeightFromGround | ViewshedMode::HeightFromDem => {
            let p = ViewshedParams { target_height: 0.0, ..per[0].clone() };
            let run = Run::new(hf, [observers[0].x, observers[0].y], &p)?;
            let mut values = vec![f64::NAN; n];
            let sink = HeightSink { out: Cells::new(&mut values), nx };
            sweep_all(&run, &sink, &progress)?;
            if let Some((i, j)) = run.own_sample() {
                if run.is_target(i, j, run.sight.lowered(i, j)) {
                    values[j * nx + i] = 0.0;
                }
            }
            if mode == ViewshedMode::HeightFromDem {
                for (v, g) in values.iter_mut().zip(hf.samples()) {
                    *v += g as f64;
                }
            }
            Ok(ViewshedOutput::Heights(Grid { nx, ny, values }))
        }
        ViewshedMode::Count => count(hf, observers, &per, &progress),
    }
}

/// Counts over many observers: each observer one sequential sweep, observers in parallel, each
/// thread adding into its own counts.
fn count(
    hf: &Heightfield,
    observers: &[Observer],
    per: &[ViewshedParams],
    progress: &Progress,
) -> Result<ViewshedOutput, ViewshedError> {
    let (nx, ny) = (hf.nx(), hf.ny());
    let n = nx * ny;
    let sectors = Sector::split(1);
    let one = |acc: &mut Vec<u32>, scratch: &mut Scratch, k: usize| -> ControlFlow<()> {
        let run = Run::new(hf, [observers[k].x, observers[k].y], &per[k]).expect("checked before");
        let sink = CountSink { out: Cells::new(acc), nx };
        for &sector in &sectors {
            sweep::sweep(&run, sector, &sink, scratch, &mut |c| progress.column(c))?;
        }
        if let Some((i, j)) = run.own_sample() {
            let zp = run.sight.lowered(i, j) + run.params.target_height;
            if run.is_target(i, j, zp) {
                acc[j * nx + i] = ((acc[j * nx + i] & !TARGETED) + 1) | TARGETED;
            }
        }
        ControlFlow::Continue(())
    };
    let sums = (0..observers.len())
        .into_par_iter()
        .try_fold(
            || (vec![0u32; n], Scratch::default()),
            |(mut acc, mut scratch), k| match one(&mut acc, &mut scratch, k) {
                ControlFlow::Continue(()) => Ok((acc, scratch)),
                ControlFlow::Break(()) => Err(ViewshedError::Cancelled),
            },
        )
        .map(|r| r.map(|(acc, _)| acc))
        .try_reduce(
            || vec![0u32; n],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x = ((*x & !TARGETED) + (y & !TARGETED)) | ((*x | y) & TARGETED);
                }
                Ok(a)
            },
        )?;
    if progress.cancelled() {
        return Err(ViewshedError::Cancelled);
    }
    let values = sums.into_iter().map(|c| (c & TARGETED != 0).then_some(c & !TARGETED)).collect();
    Ok(ViewshedOutput::Counts(Grid { nx, ny, values }))
}

/// Statistics of a visibility run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Targets that the sweep left to the exact walk (within rounding of the horizon, next to a
    /// hole, or in the eye's own column).
    pub band: u64,
}

/// Every target walked in full: the plain method, the reference for the sweep (one observer).
#[cfg(any(test, feature = "bench-support"))]
pub(crate) fn reference(
    hf: &Heightfield,
    observer: [f64; 2],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput, ViewshedError> {
    let (nx, ny) = (hf.nx(), hf.ny());
    let heights = matches!(mode, ViewshedMode::HeightFromGround | ViewshedMode::HeightFromDem);
    let p = if heights { ViewshedParams { target_height: 0.0, ..params.clone() } } else { params.clone() };
    let run = Run::new(hf, observer, &p)?;
    let each = |i: usize, j: usize| -> Option<f64> {
        let zp = run.sight.lowered(i, j) + p.target_height;
        if !run.is_target(i, j, zp) {
            return None;
        }
        Some(if heights {
            let g = if mode == ViewshedMode::HeightFromDem { hf.sample(i, j) as f64 } else { 0.0 };
            (run.needed_by_walk(i, j) - zp).max(0.0) + g
        } else {
            f64::from(u8::from(run.visible_by_walk(i, j, zp)))
        })
    };
    let values: Vec<Option<f64>> = (0..nx * ny).into_par_iter().map(|k| each(k % nx, k / nx)).collect();
    Ok(match mode {
        ViewshedMode::Visibility => ViewshedOutput::Visibility(
            Grid { nx, ny, values: values.iter().map(|v| v.map_or(NODATA, |v| v as u8)).collect() },
            Stats { band: 0 },
        ),
        ViewshedMode::Count => {
            return Err(ViewshedError::ObserverCount { mode, count: 1 });
        }
        _ => ViewshedOutput::Heights(Grid { nx, ny, values: values.iter().map(|v| v.unwrap_or(f64::NAN)).collect() }),
    })
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
