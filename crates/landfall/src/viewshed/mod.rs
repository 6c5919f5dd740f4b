//! Viewsheds: which samples of a heightfield an observer can see, exactly, on the triangles the
//! heightfield draws.
//!
//! **Definition.** The observer stands at O = (X, Y, g + H), g the surface under (X, Y), H the
//! observer height; the target of sample (i, j) is P = (x_i, y_j, h_ij + T). P is hidden when some
//! point of the segment strictly between O and P is on or below the terrain's surface; over a hole
//! there is no surface, so a hole blocks nothing. (A contact within 1e-13 of the heights'
//! magnitude, scaled by its distance from the eye over the target's, counts as a touch, so
//! rounding never sees through an exact graze.) With curvature every sample is first lowered by
//! (1 − K)·d²/(2R), d its horizontal distance from the observer, R = 6,371,008.8 m, K the
//! refraction coefficient; visibility is then decided exactly on the lowered triangles.
//!
//! **Algorithm.** A horizon sweep (`sweep.rs`): around the eye, each quadrant is swept column by
//! column outward in a central projection where a whole sight line is one point and an edge is a
//! segment; the upper envelope of the projected edges passed so far (`envelope.rs`) decides every
//! target in O(1) amortised. Targets within rounding of that envelope, next to holes, or in the
//! eye's own column go to the exact segment test (`sight.rs`: the pieces of the segment over each
//! triangle, walked down the min/max pyramid), which is also the reference the tests compare with.
//! Sectors of each quadrant run in parallel; many observers run one sweep each.
//!
//! ```
//! use landfall::viewshed::{viewshed, Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN, VISIBLE};
//! use landfall::Heightfield;
//! // A wall across the middle of a 5×3 grid: the observer on the left sees the wall's face, not
//! // the ground behind it.
//! let h = vec![0.0, 0.0, 5.0, 0.0, 0.0,  0.0, 0.0, 5.0, 0.0, 0.0,  0.0, 0.0, 5.0, 0.0, 0.0];
//! let hf = Heightfield::builder(5, 3, h).build().unwrap();
//! let out = viewshed(&hf, &[Observer::at(0.0, 1.0)], &ViewshedParams::default(), ViewshedMode::Visibility, &Hooks::default());
//! let ViewshedOutput::Visibility(vis, _) = out.unwrap() else { unreachable!() };
//! assert_eq!(vis.get(2, 1), VISIBLE);
//! assert_eq!(vis.get(4, 1), HIDDEN);
//! ```
//!
//! Every mode, many observers, progress and cancellation go through [`viewshed`], on a
//! heightfield or, for a raster in degrees, a [`GeoSurface`](crate::geo::GeoSurface) on the
//! ellipsoid (a [`ViewshedSurface`] either way; [`geo`](crate::geo#viewsheds) defines that one):
//!
//! ```
//! use landfall::viewshed::{viewshed, Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams};
//! use landfall::Heightfield;
//! let hf = Heightfield::builder(3, 3, vec![0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0]).build().unwrap();
//! let observers = [Observer::at(0.0, 0.0), Observer::at(2.0, 2.0).with_height(20.0)];
//! let out = viewshed(&hf, &observers, &ViewshedParams::default(), ViewshedMode::Count, &Hooks::default());
//! let ViewshedOutput::Counts(counts) = out.unwrap() else { unreachable!() };
//! assert_eq!(counts.get(2, 2), Some(1)); // the high eye at (2, 2) sees its own sample; (0, 0) does not
//! ```
//!
//! # How it works
//!
//! `viewshed(surface, observers, params, mode, hooks)` is the one entry point, for a `Heightfield`
//! (what follows) and a `GeoSurface` (`geo/viewshed/`) alike: `Visibility` (one observer:
//! visible, hidden or nodata per sample), `Heights` (one observer: the least height a target must be
//! raised to be seen, GDAL's GROUND mode; plus the ground for its DEM mode) and `Count` (many
//! observers: how many see each sample). `Hooks` carries a progress callback and a cancel flag; a cancelled run returns
//! `ViewshedError::Cancelled` and no grid. The CLI wires Ctrl-C to the flag (`interrupt.rs`), Python
//! its KeyboardInterrupt.
//!
//! **Definition.** The eye is O = (X, Y, g + H), g the triangulated surface under (X, Y); the target of
//! sample (i, j) is P = (x_i, y_j, h_ij + T). P is hidden when some point of the segment strictly
//! between O and P is on or below the terrain's surface; over a hole there is no surface, so a hole
//! blocks nothing, and holes are never targets. For an eye above the ground this is "the segment meets
//! no triangle before P"; for an eye at ground level (H = 0) on a flat plateau it also hides a lower
//! target whose segment runs under the plateau while touching the surface only at its ends, as GIS
//! tools answer (regression tests `a_ground_level_eye_on_a_plateau_does_not_see_below_it`, `terraced_saw_tooth_dem_at_ground_level`). With
//! curvature every sample is first lowered by (1 − K)·d²/(2R), R = 6,371,008.8 m, K the refraction
//! coefficient, and visibility is decided exactly on the lowered triangles. Heights are stored as f32;
//! the definition applies to the stored values.
//!
//! **The sweep** (`sweep.rs`, `envelope.rs`). Around the eye the grid is cut into four quadrants, each
//! swept column by column outward along its own axis. In a quadrant's central projection
//! (u, v) = (l/d, w/d) — d the distance along the axis, l across it, w the height above the eye — a
//! whole sight line is one point (u_P, v_P) and a terrain edge is a segment. P is hidden exactly when
//! the upper envelope H of the projected edges with 0 < d < d_P reaches v_P at u_P. The envelope is
//! kept as a polyline of plain vertices sorted by u; each strip of cells between two columns is gathered into its own envelope
//! (skipping an edge with a triangle above it in the projection, and one the horizon already covers
//! all along) and H is raised to it in one linear pass. A target of the next column is then compared
//! with H and with the one cell diagonal its sight line crosses in the last strip. A block of a
//! column whose pyramid height bound lies under H's lower bound there is culled before it is loaded:
//! its targets are hidden and its strip cells add nothing. Each quadrant is
//! split into 8 sectors of u, independent problems run in parallel; counts give each thread its own
//! u32 grid.
//!
//! **The band and the exact walk** (`eye.rs`, `sight.rs`). The sweep's verdict is trusted outside a
//! band of 10⁻¹³ of the heights' magnitude around the horizon (scaled by distance); targets inside it,
//! next to holes, or in the eye's own column go to the exact walk: along X(s) = P + s·(O − P) the
//! terrain is linear over each triangle, so the pieces of the segment over each triangle (found by
//! walking grid lines and diagonals down the min/max pyramid) are tested by the sign of
//! terrain − line at their ends. The same walk per target is `reference()` (feature `bench-support`),
//! the tests' oracle. On the 4097² benchmark the band holds 8 of 16.8 M targets.
//!
//! **Tests.** `tests/viewshed.rs` compares with a segment–triangle brute force (every triangle, f64,
//! the amended definition); `tests/viewshed_sweep.rs` property-tests sweep = walk on random terrains
//! and adversarial ones (saw-tooth ridges along octant borders, plateaus at eye height, observers on
//! vertices, edges and octant borders, holes across sight lines, curvature, all diagonal patterns,
//! distance, azimuth and pitch limits), counts = sum of single viewsheds, cancellation, and the band's
//! share.

mod envelope;
mod eye;
mod params;
mod run;
mod sight;
mod sweep;

pub(crate) use params::Progress;
pub use params::{Hooks, ViewshedError, ViewshedMode, ViewshedParams};
pub use run::Stats;

use crate::heightfield::Heightfield;

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

/// An observer: a position in world coordinates and, optionally, its own eye height above the
/// ground (else the parameters' [`observer_height`](ViewshedParams::observer_height)).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Observer {
    /// World x.
    pub x: f64,
    /// World y.
    pub y: f64,
    /// Eye height above the ground; `None` for the parameters' observer height.
    pub height: Option<f64>,
}

impl Observer {
    /// An observer at world (x, y) with the parameters' eye height.
    pub fn at(x: f64, y: f64) -> Self {
        Self { x, y, height: None }
    }

    /// The same observer with its own eye height.
    pub fn with_height(self, height: f64) -> Self {
        Self { height: Some(height), ..self }
    }
}

/// What a viewshed gives, by [`ViewshedMode`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ViewshedOutput {
    /// [`ViewshedMode::Visibility`], with how the sweep decided it.
    Visibility(Visibility, Stats),
    /// [`ViewshedMode::HeightFromGround`] or [`ViewshedMode::HeightFromDem`] (NaN where the sample is
    /// not a target).
    Heights(Grid<f64>),
    /// [`ViewshedMode::Count`]: how many observers see each sample, `None` where it is no
    /// observer's target.
    Counts(Grid<Option<u32>>),
}

/// What a viewshed runs on: a [`Heightfield`] in the plane (observers at world x, y; see the
/// [module](self) for the definition) or a [`GeoSurface`](crate::geo::GeoSurface), a raster in
/// degrees on the WGS84 ellipsoid (observers at x = longitude, y = latitude; lines of sight
/// straight in Earth-centred coordinates, see [`geo`](crate::geo#viewsheds)).
/// Sealed: those two are the only ones. `&dyn ViewshedSurface` picks one at run time.
pub trait ViewshedSurface: sealed::Surface {}

/// The methods of [`ViewshedSurface`], out of reach outside the crate.
pub(crate) mod sealed {
    use super::{Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams};

    /// A surface's own viewshed and observer check.
    pub trait Surface {
        /// [`viewshed`](super::viewshed) on this surface.
        fn compute(
            &self,
            observers: &[Observer],
            params: &ViewshedParams,
            mode: ViewshedMode,
            hooks: &Hooks,
        ) -> Result<ViewshedOutput, ViewshedError>;

        /// [`observer_eye`](super::observer_eye) on this surface.
        fn eye(&self, observer: [f64; 2], params: &ViewshedParams) -> Result<f64, ViewshedError>;
    }
}

impl ViewshedSurface for Heightfield {}

impl sealed::Surface for Heightfield {
    fn compute(
        &self,
        observers: &[Observer],
        params: &ViewshedParams,
        mode: ViewshedMode,
        hooks: &Hooks,
    ) -> Result<ViewshedOutput, ViewshedError> {
        run::compute(self, observers, params, mode, hooks)
    }

    fn eye(&self, observer: [f64; 2], params: &ViewshedParams) -> Result<f64, ViewshedError> {
        Ok(eye::Eye::new(self, observer, params)?.sight.zo)
    }
}

/// The viewshed on a [`Heightfield`] or a [`GeoSurface`](crate::geo::GeoSurface) (a
/// [`ViewshedSurface`]): every mode, one observer (or many, for [`ViewshedMode::Count`]), with
/// progress and cancellation through `hooks`. Observers are checked before the long work; a
/// cancelled run answers [`ViewshedError::Cancelled`]. The one entry point of every viewshed.
pub fn viewshed<S: ViewshedSurface + ?Sized>(
    surface: &S,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
    hooks: &Hooks,
) -> Result<ViewshedOutput, ViewshedError> {
    surface.compute(observers, params, mode, hooks)
}

/// The elevation of the eye of an observer at `observer` (world x, y; lon, lat on a
/// [`GeoSurface`](crate::geo::GeoSurface), whose answer is the height above the ellipsoid): its
/// ground (lowered for curvature in the plane) plus its observer height, or why no observer can
/// stand there. The check [`viewshed`] makes of each observer, without the work.
pub fn observer_eye<S: ViewshedSurface + ?Sized>(
    surface: &S,
    observer: [f64; 2],
    params: &ViewshedParams,
) -> Result<f64, ViewshedError> {
    surface.eye(observer, params)
}

/// [`viewshed`] by the plain method, every target's segment walked in full with the exact test:
/// the reference the sweep is checked against (the same answers, far slower). One observer;
/// not [`ViewshedMode::Count`].
#[cfg(any(test, feature = "bench-support"))]
pub fn reference(
    hf: &Heightfield,
    observer: [f64; 2],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput, ViewshedError> {
    run::reference(hf, observer, params, mode)
}
