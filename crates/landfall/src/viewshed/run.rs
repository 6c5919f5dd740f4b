//! What each mode makes of a target, and the driver that sweeps every sector in parallel with
//! progress and cancellation.

use super::eye::{Eye, TOUCH};
use super::params::{Hooks, Progress, ViewshedError, ViewshedMode, ViewshedParams};
use super::sweep::{self, Scratch, Sector, Sink, Target};
use super::{Grid, Observer, ViewshedOutput, HIDDEN, NODATA, VISIBLE};
use crate::heightfield::Heightfield;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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
    /// The output starts all hidden (every sample a target).
    prefilled: bool,
}

/// The sweep's verdict when it is certain: `Some(visible)`, `None` inside the band where rounding
/// could decide (the exact walk does).
#[inline(always)]
fn verdict(run: &Eye, zp: f64, d: f64, vp: f64, h: f64) -> Option<bool> {
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
    fn target(&self, run: &Eye, t: Target, h: Option<f64>) {
        let Target { i, j, zp, d, vp } = t;
        let visible = h.and_then(|h| verdict(run, zp, d, vp, h)).unwrap_or_else(|| {
            self.band.fetch_add(1, Ordering::Relaxed);
            run.visible_by_walk(i, j, zp)
        });
        self.out.set(j * self.nx + i, if visible { VISIBLE } else { HIDDEN });
    }

    #[inline(always)]
    fn at_least(&self, run: &Eye, t: Target, h_lo: f64) -> bool {
        let hidden = verdict(run, t.zp, t.d, t.vp, h_lo) == Some(false);
        if hidden && !self.prefilled {
            self.out.set(t.j * self.nx + t.i, HIDDEN);
        }
        hidden
    }

    fn culls(&self) -> bool {
        true
    }

    fn prefilled(&self) -> bool {
        self.prefilled
    }

    #[inline(always)]
    fn hidden(&self, _run: &Eye, i: usize, j: usize) {
        self.out.set(j * self.nx + i, HIDDEN);
    }
}

/// Least target heights above the ground.
struct HeightSink {
    out: Cells<f64>,
    nx: usize,
}

impl Sink for HeightSink {
    #[inline(always)]
    fn target(&self, run: &Eye, t: Target, h: Option<f64>) {
        let Target { i, j, zp, d, .. } = t;
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
    /// Every sample is every observer's target (bit 31 is set at the end, not per target).
    prefilled: bool,
}

const TARGETED: u32 = 1 << 31;

impl Sink for CountSink {
    #[inline(always)]
    fn target(&self, run: &Eye, t: Target, h: Option<f64>) {
        let Target { i, j, zp, d, vp } = t;
        let visible = h.and_then(|h| verdict(run, zp, d, vp, h)).unwrap_or_else(|| run.visible_by_walk(i, j, zp));
        self.out.update(j * self.nx + i, |c| ((c & !TARGETED) + u32::from(visible)) | TARGETED);
    }

    #[inline(always)]
    fn at_least(&self, run: &Eye, t: Target, h_lo: f64) -> bool {
        let hidden = verdict(run, t.zp, t.d, t.vp, h_lo) == Some(false);
        if hidden && !self.prefilled {
            self.out.update(t.j * self.nx + t.i, |c| c | TARGETED);
        }
        hidden
    }

    fn culls(&self) -> bool {
        true
    }

    fn prefilled(&self) -> bool {
        self.prefilled
    }

    #[inline(always)]
    fn hidden(&self, _run: &Eye, i: usize, j: usize) {
        self.out.update(j * self.nx + i, |c| c | TARGETED);
    }
}

/// Whether every sample is a target (no holes, no distance, angle or pitch limits): the sweep
/// then reports only the targets it finds visible or cannot cull (see `Sink::prefilled`).
fn every_sample_a_target(hf: &Heightfield, params: &ViewshedParams) -> bool {
    !hf.has_holes() && params.max_distance == f64::INFINITY && params.azimuths.is_none() && params.pitch.is_none()
}

/// Eight sectors a quadrant balance an eye near a corner over the threads.
const SECTORS: usize = 8;

/// Sweeps every sector of one observer, in parallel.
fn sweep_all<S: Sink>(run: &Eye, sink: &S, progress: &Progress) -> Result<(), ViewshedError> {
    let sectors = Sector::split(SECTORS);
    let stopped = AtomicBool::new(false);
    sectors.par_iter().for_each_init(Scratch::default, |scratch, &sector| {
        if sweep::sweep(run, sector, sink, scratch, &mut |n| progress.advance(n as u64)).is_break() {
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
        if let Err(e) = Eye::new(hf, [o.x, o.y], p) {
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
                let run = Eye::new(hf, [o.x, o.y], p).expect("checked above");
                sectors.iter().map(|&s| sweep::work(&run, s)).sum::<u64>()
            })
            .sum()
    } else {
        1
    };
    let progress = Progress::new(hooks, total);
    match mode {
        ViewshedMode::Visibility => {
            let run = Eye::new(hf, [observers[0].x, observers[0].y], &per[0])?;
            let prefilled = every_sample_a_target(hf, &per[0]);
            let mut values = vec![if prefilled { HIDDEN } else { NODATA }; n];
            let sink = VisibilitySink { out: Cells::new(&mut values), nx, band: AtomicU64::new(0), prefilled };
            sweep_all(&run, &sink, &progress)?;
            if let Some((i, j)) = run.own_sample() {
                let zp = run.sight.lowered(i, j) + run.params.target_height;
                values[j * nx + i] = if run.is_target(i, j, zp) { VISIBLE } else { NODATA };
            }
            let band = sink.band.load(Ordering::Relaxed);
            Ok(ViewshedOutput::Visibility(Grid { nx, ny, values }, Stats { band }))
        }
        ViewshedMode::HeightFromGround | ViewshedMode::HeightFromDem => {
            let p = ViewshedParams { target_height: 0.0, ..per[0].clone() };
            let run = Eye::new(hf, [observers[0].x, observers[0].y], &p)?;
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
    let prefilled = !observers.is_empty() && every_sample_a_target(hf, &per[0]);
    let one = |acc: &mut Vec<u32>, scratch: &mut Scratch, k: usize| -> ControlFlow<()> {
        let run = Eye::new(hf, [observers[k].x, observers[k].y], &per[k]).expect("checked before");
        let sink = CountSink { out: Cells::new(acc), nx, prefilled };
        for &sector in &sectors {
            sweep::sweep(&run, sector, &sink, scratch, &mut |c| progress.advance(c as u64))?;
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
    let values = sums.into_iter().map(|c| (prefilled || c & TARGETED != 0).then_some(c & !TARGETED)).collect();
    Ok(ViewshedOutput::Counts(Grid { nx, ny, values }))
}

/// Statistics of a visibility run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
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
    let run = Eye::new(hf, observer, &p)?;
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
