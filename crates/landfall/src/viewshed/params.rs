//! The viewshed's parameters and errors.

use crate::params::Num;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a viewshed is computed. The defaults are r.viewshed's and gdal_viewshed's: observer 1.75 m
/// above the ground, targets on the ground, no distance limit, no curvature, refraction 1/7
/// (when curvature is on), every direction.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ViewshedParams {
    /// Height of the eye above the ground (≥ 0).
    pub observer_height: f64,
    /// Height of each target above its sample (≥ 0).
    pub target_height: f64,
    /// Samples farther than this (horizontally) are not targets; `f64::INFINITY` for no limit.
    pub max_distance: f64,
    /// Lower every sample by (1 − K)·d²/(2R) for the Earth's curvature and refraction.
    pub curvature: bool,
    /// K, the refraction coefficient (default 1/7; GDAL's curvature coefficient is 1 − K).
    pub refraction: f64,
    /// Only targets whose azimuth (degrees clockwise from north, +y) lies clockwise from the first
    /// to the second angle (GDAL's start and end angle); `None` for all.
    pub azimuths: Option<(f64, f64)>,
    /// Only targets whose elevation angle from the eye (degrees, −90..90) lies in [low, high]
    /// (GDAL's low and high pitch); `None` for all.
    pub pitch: Option<(f64, f64)>,
}

impl Default for ViewshedParams {
    fn default() -> Self {
        Self {
            observer_height: 1.75,
            target_height: 0.0,
            max_distance: f64::INFINITY,
            curvature: false,
            refraction: 1.0 / 7.0,
            azimuths: None,
            pitch: None,
        }
    }
}

crate::with_setters!(ViewshedParams {
    observer_height: f64 => with_observer_height,
    target_height: f64 => with_target_height,
    max_distance: f64 => with_max_distance,
    curvature: bool => with_curvature,
    refraction: f64 => with_refraction,
    azimuths: Option<(f64, f64)> => with_azimuths,
    pitch: Option<(f64, f64)> => with_pitch,
});

/// Why a viewshed cannot be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ViewshedError {
    /// The observer is not over the heightfield.
    #[error("the observer ({}, {}) is outside the terrain", Num(*x), Num(*y))]
    ObserverOutside {
        /// Observer x.
        x: f64,
        /// Observer y.
        y: f64,
    },
    /// The observer stands over a hole.
    #[error("the observer ({}, {}) stands over a hole (no ground to stand on)", Num(*x), Num(*y))]
    ObserverOverHole {
        /// Observer x.
        x: f64,
        /// Observer y.
        y: f64,
    },
    /// One of many observers is wrong.
    #[error("observer {index}: {why}")]
    Observer {
        /// 0-based index among the observers.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// A parameter is out of its range.
    #[error("{name}: {why}")]
    Param {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// The heightfield spans more than ±1e150 along x or y: squared distances would overflow.
    #[error("the terrain spans {} × {} units: viewsheds take extents up to 1e150 (squared distances would overflow; scale the raster down)", Num(*x), Num(*y))]
    TooWide {
        /// Extent along x.
        x: f64,
        /// Extent along y.
        y: f64,
    },
    /// The heightfield's gravity is not (0, 0, −1).
    #[error("viewsheds need a heightfield with the default gravity (0, 0, -1)")]
    NotZUp,
    /// The mode takes exactly one observer.
    #[error("{mode:?} takes exactly one observer, got {count}")]
    ObserverCount {
        /// The mode asked for.
        mode: ViewshedMode,
        /// Observers given.
        count: usize,
    },
    /// The run was cancelled through its hooks.
    #[error("cancelled")]
    Cancelled,
}

/// What a viewshed computes: GDAL's output modes, and counts over many observers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ViewshedMode {
    /// Per sample [`VISIBLE`](super::VISIBLE), [`HIDDEN`](super::HIDDEN) or
    /// [`NODATA`](super::NODATA) (GDAL's `NORMAL`). One observer.
    #[default]
    Visibility,
    /// The least target height above the ground at which each sample would be seen: 0 where a
    /// target on the ground is already seen, NaN where the sample is not a target (GDAL's `GROUND`;
    /// a target exactly at that height touches the line of sight, anything higher is seen). The
    /// parameters' target height is ignored. One observer.
    HeightFromGround,
    /// That height plus the sample's elevation (GDAL's `DEM`). One observer.
    HeightFromDem,
    /// How many of the observers see each sample (`None` where it is a target of none).
    Count,
}

impl ViewshedMode {
    /// Every mode, in declaration order.
    pub const ALL: [ViewshedMode; 4] =
        [ViewshedMode::Visibility, ViewshedMode::HeightFromGround, ViewshedMode::HeightFromDem, ViewshedMode::Count];

    /// The mode's name as the command line and Python spell it: `visible`, `ground`, `dem`, `count`.
    pub fn name(self) -> &'static str {
        match self {
            ViewshedMode::Visibility => "visible",
            ViewshedMode::HeightFromGround => "ground",
            ViewshedMode::HeightFromDem => "dem",
            ViewshedMode::Count => "count",
        }
    }

    /// The mode of a [`name`](Self::name) (ASCII case ignored).
    pub fn from_name(name: &str) -> Result<Self, ViewshedError> {
        Self::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(name)).ok_or_else(|| ViewshedError::Param {
            name: "mode",
            why: format!("'{name}' is not one of visible, ground, dem, count"),
        })
    }
}

/// Progress and cancellation of a long viewshed.
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub struct Hooks<'a> {
    /// Called now and then, from any thread, with the fraction of the work done (0 to 1).
    pub progress: Option<&'a (dyn Fn(f64) + Sync)>,
    /// Read now and then: once it is true the run stops and answers [`ViewshedError::Cancelled`].
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl<'a> Hooks<'a> {
    /// `self` reporting progress to `progress`.
    #[must_use]
    pub fn with_progress(mut self, progress: &'a (dyn Fn(f64) + Sync)) -> Self {
        self.progress = Some(progress);
        self
    }

    /// `self` stopping once `cancel` is true.
    #[must_use]
    pub fn with_cancel(mut self, cancel: &'a std::sync::atomic::AtomicBool) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("progress", &self.progress.is_some()).field("cancel", &self.cancel).finish()
    }
}

/// Work done, reported through [`Hooks::progress`] every half per cent of `total`, and the
/// cancel flag: shared by the threads of one run.
pub(crate) struct Progress<'a> {
    hooks: &'a Hooks<'a>,
    done: AtomicU64,
    reported: AtomicU64,
    total: f64,
}

impl<'a> Progress<'a> {
    pub(crate) fn new(hooks: &'a Hooks<'a>, total: u64) -> Self {
        Self { hooks, done: AtomicU64::new(0), reported: AtomicU64::new(0), total: total.max(1) as f64 }
    }

    /// Counts `n` units of work; `Break` once cancelled.
    pub(crate) fn advance(&self, n: u64) -> ControlFlow<()> {
        if self.cancelled() {
            return ControlFlow::Break(());
        }
        if let Some(report) = self.hooks.progress {
            let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
            let step = (200.0 * done as f64 / self.total) as u64;
            if step > self.reported.fetch_max(step, Ordering::Relaxed) {
                report((done as f64 / self.total).min(1.0));
            }
        }
        ControlFlow::Continue(())
    }

    /// Counts one unit of work; [`ViewshedError::Cancelled`] once cancelled.
    pub(crate) fn step(&self) -> Result<(), ViewshedError> {
        match self.advance(1) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(ViewshedError::Cancelled),
        }
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

impl ViewshedParams {
    /// `self` with the target limits given one by one, as gdal_viewshed, the command line and
    /// Python take them: `start_angle` and `end_angle` (degrees) set
    /// [`azimuths`](Self::azimuths) and go together (one without the other is
    /// [`ViewshedError::Param`] named `angles`); `low_pitch` and `high_pitch` set
    /// [`pitch`](Self::pitch), a missing bound being −90 or 90. All `None`: no limit. The values
    /// are checked by [`validate`](Self::validate).
    ///
    /// ```
    /// use landfall::viewshed::ViewshedParams;
    ///
    /// let p = ViewshedParams::default().with_limits(Some(10.0), Some(80.0), None, Some(5.0)).unwrap();
    /// assert_eq!((p.azimuths, p.pitch), (Some((10.0, 80.0)), Some((-90.0, 5.0))));
    /// let e = ViewshedParams::default().with_limits(Some(10.0), None, None, None).unwrap_err();
    /// assert_eq!(e.to_string(), "angles: start_angle and end_angle go together (start_angle 10 given alone)");
    /// ```
    pub fn with_limits(
        self,
        start_angle: Option<f64>,
        end_angle: Option<f64>,
        low_pitch: Option<f64>,
        high_pitch: Option<f64>,
    ) -> Result<Self, ViewshedError> {
        let alone = match (start_angle, end_angle) {
            (Some(a), None) => Some(format!("start_angle {a}")),
            (None, Some(b)) => Some(format!("end_angle {b}")),
            _ => None,
        };
        if let Some(alone) = alone {
            let why = format!("start_angle and end_angle go together ({alone} given alone)");
            return Err(ViewshedError::Param { name: "angles", why });
        }
        let pitch = match (low_pitch, high_pitch) {
            (None, None) => None,
            (lo, hi) => Some((lo.unwrap_or(-90.0), hi.unwrap_or(90.0))),
        };
        Ok(Self { azimuths: start_angle.zip(end_angle), pitch, ..self })
    }

    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), ViewshedError> {
        let bad = |name, why: String| Err(ViewshedError::Param { name, why });
        let ok_len = |v: f64| v.is_finite() && v >= 0.0;
        if !ok_len(self.observer_height) {
            return bad("observer height", format!("{} is not a finite height ≥ 0", Num(self.observer_height)));
        }
        if !ok_len(self.target_height) {
            return bad("target height", format!("{} is not a finite height ≥ 0", Num(self.target_height)));
        }
        if self.max_distance.is_nan() || self.max_distance <= 0.0 {
            return bad("max distance", format!("{} is not a distance > 0", Num(self.max_distance)));
        }
        if !(self.refraction.is_finite() && (-1.0..1.0).contains(&self.refraction)) {
            return bad("refraction", format!("{} is not a coefficient in [-1, 1)", Num(self.refraction)));
        }
        if let Some((a, b)) = self.azimuths {
            if !(a.is_finite() && b.is_finite()) {
                return bad("angles", format!("{}, {}: not finite", Num(a), Num(b)));
            }
        }
        if let Some((lo, hi)) = self.pitch {
            if !((-90.0..=90.0).contains(&lo) && (-90.0..=90.0).contains(&hi) && lo <= hi) {
                return bad("pitch", format!("{}..{}: expected -90 ≤ low ≤ high ≤ 90 degrees", Num(lo), Num(hi)));
            }
        }
        Ok(())
    }
}
