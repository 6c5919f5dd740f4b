//! Who walks: the agent's radius, the steepest ground it climbs, the objects it steps over, and
//! the scale at which it reads the ground's slope.

use crate::params::{length, ParamError};

/// An agent asking for paths.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Agent {
    /// Radius, metres (0.3 to 30): obstacles' footprints are inflated by it.
    pub radius: f64,
    /// Steepest ground it walks on, radians (in (0, π/2]).
    pub max_slope: f64,
    /// The scale at which the agent reads the ground's slope, metres: the largest side of the
    /// slope cells ([`slope_cell`](Self::slope_cell), rounded down to the planner's finest cell
    /// times a power of two). `None` (the default): the agent's radius, at least 1 m, so a 0.5 m
    /// walker reads 1 m cells and a 20 m giant 16 m ones. Cells of 1 m or less are read exactly
    /// (blocked where any steeper ground triangle meets them); wider ones at their corners (the
    /// ground through the heights at the cell's four corners, two triangles): roughness below the
    /// agent's scale is not its concern. See the path conventions in `docs/conventions.md`.
    pub slope_step: Option<f64>,
    /// How far a start or goal the agent cannot stand on may be moved to the nearest place where
    /// it can, metres (0: never moved). `None` (the default): 5 m or two radii, whichever is more
    /// ([`snap_reach`](Self::snap_reach)), so a giant standing in a tree grown by its radius is
    /// moved out of it.
    pub snap: Option<f64>,
    /// The tallest object it steps over, in radii: an object no taller than `step × radius` is
    /// not an obstacle to it ([`obstacle`](super::obstacle)). The default 0.15 keeps a 0.5 m
    /// walker off every object of the world (its smallest stones are 0.1 m tall) and lets a 3 m
    /// agent walk over every stone and a 20 m giant over boulders up to 3 m, not trees or houses.
    pub step: f64,
}

impl Default for Agent {
    fn default() -> Self {
        Self { radius: 0.5, max_slope: 35f64.to_radians(), slope_step: None, snap: None, step: 0.15 }
    }
}

crate::with_setters!(Agent {
    radius: f64 => with_radius,
    max_slope: f64 => with_max_slope,
    step: f64 => with_step,
});

impl Agent {
    /// `self` with [`slope_step`](Self::slope_step) set to `Some(slope_step)`.
    #[must_use]
    pub fn with_slope_step(mut self, slope_step: f64) -> Self {
        self.slope_step = Some(slope_step);
        self
    }

    /// `self` with [`snap`](Self::snap) set to `Some(snap)`.
    #[must_use]
    pub fn with_snap(mut self, snap: f64) -> Self {
        self.snap = Some(snap);
        self
    }

    /// How far a start or goal may be moved, metres: [`snap`](Self::snap), or by default 5 m or
    /// two radii, whichever is more.
    ///
    /// ```
    /// use landfall::world::Agent;
    ///
    /// assert_eq!(Agent::default().snap_reach(), 5.0);
    /// assert_eq!(Agent::default().with_radius(20.0).snap_reach(), 40.0);
    /// assert_eq!(Agent::default().with_radius(20.0).with_snap(0.0).snap_reach(), 0.0);
    /// ```
    pub fn snap_reach(&self) -> f64 {
        self.snap.unwrap_or((2.0 * self.radius).max(5.0))
    }

    /// The scale at which the slope is read, metres: [`slope_step`](Self::slope_step), or by
    /// default the radius, at least 1 m.
    ///
    /// ```
    /// use landfall::world::Agent;
    ///
    /// assert_eq!(Agent::default().slope_scale(), 1.0);
    /// assert_eq!(Agent::default().with_radius(20.0).slope_scale(), 20.0);
    /// assert_eq!(Agent::default().with_radius(20.0).slope_cell(), 16.0);
    /// assert_eq!(Agent::default().with_radius(20.0).with_slope_step(1.0).slope_cell(), 1.0);
    /// ```
    pub fn slope_scale(&self) -> f64 {
        self.slope_step.unwrap_or(self.radius.max(1.0))
    }

    /// The smallest radius accepted, metres.
    pub const MIN_RADIUS: f64 = 0.3;
    /// The largest radius accepted, metres.
    pub const MAX_RADIUS: f64 = 30.0;

    /// Checks every field: `radius` in [0.3, 30], `max_slope` in (0, π/2], `slope_step` (when
    /// given) finite and positive, `snap` (when given) and `step` finite and ≥ 0.
    ///
    /// ```
    /// use landfall::world::Agent;
    ///
    /// assert!(Agent::default().validate().is_ok());
    /// let e = Agent::default().with_radius(0.1).validate().unwrap_err();
    /// assert_eq!(e.to_string(), "radius: 0.1 is not a radius in [0.3, 30] metres");
    /// ```
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(Self::MIN_RADIUS..=Self::MAX_RADIUS).contains(&self.radius) {
            let why = format!(
                "{} is not a radius in [{}, {}] metres",
                crate::params::Num(self.radius),
                Self::MIN_RADIUS,
                Self::MAX_RADIUS
            );
            return Err(ParamError::new("radius", why));
        }
        if !(self.max_slope > 0.0 && self.max_slope <= std::f64::consts::FRAC_PI_2) {
            return Err(ParamError::new(
                "max_slope",
                format!("{} is not an angle in (0, π/2] radians", crate::params::Num(self.max_slope)),
            ));
        }
        if let Some(v) = self.slope_step {
            length("slope_step", v, true)?;
        }
        if let Some(v) = self.snap {
            length("snap", v, false)?;
        }
        if !(self.step.is_finite() && self.step >= 0.0) {
            return Err(ParamError::new(
                "step",
                format!("{} is not a finite number of radii ≥ 0", crate::params::Num(self.step)),
            ));
        }
        Ok(())
    }

    /// The side of the planner's finest cells: the largest power of two (metres) not above half
    /// the radius, so a 0.5 m walker plans on 0.25 m cells and a 20 m giant on 8 m ones.
    pub fn cell(&self) -> f64 {
        (0.5 * self.radius).log2().floor().exp2()
    }

    /// The side of the cells the slope is read in: the planner's cell times the power of two that
    /// comes nearest [`slope_scale`](Self::slope_scale) from below (so the two grids nest, either
    /// way).
    pub fn slope_cell(&self) -> f64 {
        let c = self.cell();
        c * (self.slope_scale() / c).log2().floor().clamp(-20.0, 20.0).exp2()
    }
}
