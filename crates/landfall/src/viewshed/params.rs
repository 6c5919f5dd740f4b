//! The viewshed's parameters and errors.

/// How a viewshed is computed. The defaults are r.viewshed's and gdal_viewshed's: observer 1.75 m
/// above the ground, targets on the ground, no distance limit, no curvature, refraction 1/7
/// (when curvature is on), every direction.
#[derive(Clone, Debug, PartialEq)]
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

/// Why a viewshed cannot be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ViewshedError {
    /// The observer is not over the heightfield.
    #[error("the observer ({x}, {y}) is outside the terrain")]
    ObserverOutside {
        /// Observer x.
        x: f64,
        /// Observer y.
        y: f64,
    },
    /// The observer stands over a hole.
    #[error("the observer ({x}, {y}) stands over a hole (no ground to stand on)")]
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
    /// The heightfield's gravity is not (0, 0, −1).
    #[error("viewsheds need a heightfield with the default gravity (0, 0, -1)")]
    NotZUp,
}

impl ViewshedParams {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), ViewshedError> {
        let bad = |name, why: String| Err(ViewshedError::Param { name, why });
        let ok_len = |v: f64| v.is_finite() && v >= 0.0;
        if !ok_len(self.observer_height) {
            return bad("observer height", format!("{} is not a finite height ≥ 0", self.observer_height));
        }
        if !ok_len(self.target_height) {
            return bad("target height", format!("{} is not a finite height ≥ 0", self.target_height));
        }
        if self.max_distance.is_nan() || self.max_distance <= 0.0 {
            return bad("max distance", format!("{} is not a distance > 0", self.max_distance));
        }
        if !(self.refraction.is_finite() && (-1.0..1.0).contains(&self.refraction)) {
            return bad("refraction", format!("{} is not a coefficient in [-1, 1)", self.refraction));
        }
        if let Some((a, b)) = self.azimuths {
            if !(a.is_finite() && b.is_finite()) {
                return bad("angles", format!("{a}, {b}: not finite"));
            }
        }
        if let Some((lo, hi)) = self.pitch {
            if !((-90.0..=90.0).contains(&lo) && (-90.0..=90.0).contains(&hi) && lo <= hi) {
                return bad("pitch", format!("{lo}..{hi}: expected -90 ≤ low ≤ high ≤ 90 degrees"));
            }
        }
        Ok(())
    }
}
