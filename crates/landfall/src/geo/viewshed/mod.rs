//! Viewsheds on a [`GeoSurface`]: which samples of a raster in degrees an observer sees, exactly,
//! on the surface's ECEF triangles.

mod eye;
mod sight;
#[cfg(test)]
mod tests;

use super::surface::GeoSurface;
use crate::viewshed::{
    Grid, Hooks, Observer, Progress, Stats, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN,
    NODATA, VISIBLE,
};
use eye::GeoEye;
use rayon::prelude::*;
use sight::Sight;

/// The viewshed of a surface in degrees, every mode of [`crate::viewshed::viewshed`]: observers
/// at x = longitude, y = latitude (degrees); one observer, or many for [`ViewshedMode::Count`];
/// progress and cancellation through `hooks`. Every observer is checked before the long work.
///
/// **Definition.** An observer at (lon, lat) (degrees; [`Observer`]'s x and y) stands on the
/// surface where the ellipsoid normal through (lon, lat) meets it; the eye E is `observer_height`
/// metres further along that normal. The target of sample (i, j) is P = P₀ + T·B: P₀ the sample on
/// the surface, B its ellipsoid normal, T the target height. P is hidden when some point of the
/// segment strictly between E and P is on or below the surface, "below" taken along B (the surface
/// is a graph along it), within a nanometre; over a hole or beyond the grid there is no
/// surface, so nothing there blocks. The segment is straight in ECEF: the Earth's curvature is in
/// the model, not an option ([`ViewshedParams::curvature`] is not read).
///
/// **Refraction** stays a coefficient K ([`ViewshedParams::refraction`], default 1/7 as in
/// gdal_viewshed and r.viewshed): every sample is raised along its normal by K·d²/(2R), d the
/// straight-line distance between the observer's and the sample's points on the ellipsoid,
/// R = 6,371,008.8 m ([`EARTH_RADIUS`](crate::viewshed::EARTH_RADIUS)); visibility is then
/// decided exactly on the raised triangles (the planar model's (1 − K)·d²/(2R) lowering, whose
/// d²/(2R) the ECEF surface already has). K = 0 is the bare geometric line of sight.
///
/// **Targets**: [`ViewshedParams::max_distance`] is in metres, along that same chord between the
/// points on the ellipsoid (within 1 m of the geodesic up to 100 km); azimuths are clockwise from
/// true north at the observer (the direction of that chord in the observer's east-north plane);
/// the pitch is the elevation angle of P above the observer's horizon.
///
/// **Method.** Each target is tested on its own, in parallel: the plane through E containing B
/// meets the surface in one straight piece per triangle; the candidates are the pieces' ends, found
/// by a descent of the surface's box tree (see `sight.rs`). The same candidates over every
/// triangle are the reference the tests compare with.
///
/// ```
/// use landfall::geo::{geo_viewshed, GeoSurface};
/// use landfall::viewshed::{Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN, VISIBLE};
/// use landfall::Heightfield;
/// // Flat sea level, 1° × 1° at 0.01°; an observer 10 m up sees a 10 m mast 20 km east, not 30 km.
/// let hf = Heightfield::builder(101, 101, vec![0.0; 101 * 101]).origin(10.0, 45.0).spacing(0.01, 0.01).build().unwrap();
/// let s = GeoSurface::new(hf).unwrap();
/// let p = ViewshedParams::default().with_observer_height(10.0).with_target_height(10.0);
/// let out = geo_viewshed(&s, &[Observer::at(10.2, 45.5)], &p, ViewshedMode::Visibility, &Hooks::default()).unwrap();
/// let ViewshedOutput::Visibility(vis, _) = out else { unreachable!() };
/// // 0.01° of longitude at 45.5° N is 781 m.
/// assert_eq!(vis.get(20 + 26, 50), VISIBLE); // 20.3 km
/// assert_eq!(vis.get(20 + 38, 50), HIDDEN); // 29.7 km
/// ```
pub fn geo_viewshed(
    s: &GeoSurface,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
    hooks: &Hooks,
) -> Result<ViewshedOutput, ViewshedError> {
    run(s, observers, params, mode, hooks, false)
}

/// The height above the ellipsoid of the eye of an observer at (`lon`, `lat`) degrees (its
/// ground plus its observer height), or why no observer can stand there: the check of
/// [`geo_viewshed`] for one observer, without the work.
pub fn geo_observer_eye(s: &GeoSurface, lon: f64, lat: f64, params: &ViewshedParams) -> Result<f64, ViewshedError> {
    let e = GeoEye::new(s, lon, lat, params)?;
    Ok((e.eye - e.ao).dot(e.up))
}

/// [`geo_viewshed`] with every target tested against every triangle: the reference (same answers,
/// far slower).
#[cfg(any(test, feature = "bench-support"))]
pub fn geo_viewshed_reference(
    s: &GeoSurface,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput, ViewshedError> {
    run(s, observers, params, mode, &Hooks::default(), true)
}

fn run(
    s: &GeoSurface,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
    hooks: &Hooks,
    brute: bool,
) -> Result<ViewshedOutput, ViewshedError> {
    params.validate()?;
    if mode != ViewshedMode::Count && observers.len() != 1 {
        return Err(ViewshedError::ObserverCount { mode, count: observers.len() });
    }
    let heights = matches!(mode, ViewshedMode::HeightFromGround | ViewshedMode::HeightFromDem);
    let per: Vec<ViewshedParams> = observers
        .iter()
        .map(|o| ViewshedParams {
            observer_height: o.height.unwrap_or(params.observer_height),
            target_height: if heights { 0.0 } else { params.target_height },
            ..params.clone()
        })
        .collect();
    let mut eyes = Vec::with_capacity(observers.len());
    for (k, (o, p)) in observers.iter().zip(&per).enumerate() {
        eyes.push(GeoEye::new(s, o.x, o.y, p).map_err(|e| {
            if mode == ViewshedMode::Count {
                ViewshedError::Observer { index: k, why: e.to_string() }
            } else {
                e
            }
        })?);
    }
    let hf = s.heightfield();
    let (nx, ny) = (hf.nx(), hf.ny());
    let progress = Progress::new(hooks, (ny * eyes.len()) as u64);
    let th = params.target_height;
    // `hint`: the blocker of the previous target of the row.
    let visible = |eye: &GeoEye, i: usize, j: usize, hint: &mut Option<(usize, usize)>| -> Option<bool> {
        let t = eye.target(i, j, th)?;
        Some(match Sight::new(eye.eye, t.p0, t.b, t.p) {
            None => true,
            Some(sight) if brute => !sight.brute_hidden(eye, th),
            Some(sight) => !sight.hidden(eye, th, (i, j), hint),
        })
    };
    match mode {
        ViewshedMode::Visibility => {
            let eye = &eyes[0];
            let mut values = vec![NODATA; nx * ny];
            values.par_chunks_mut(nx).enumerate().try_for_each(|(j, row)| {
                let mut hint = None;
                for (i, v) in row.iter_mut().enumerate() {
                    *v = visible(eye, i, j, &mut hint).map_or(NODATA, |seen| if seen { VISIBLE } else { HIDDEN });
                }
                progress.step()
            })?;
            let band = values.iter().filter(|&&v| v != NODATA).count() as u64;
            Ok(ViewshedOutput::Visibility(Grid { nx, ny, values }, Stats { band }))
        }
        ViewshedMode::HeightFromGround | ViewshedMode::HeightFromDem => {
            let eye = &eyes[0];
            let dem = mode == ViewshedMode::HeightFromDem;
            let mut values = vec![f64::NAN; nx * ny];
            values.par_chunks_mut(nx).enumerate().try_for_each(|(j, row)| {
                for (i, v) in row.iter_mut().enumerate() {
                    let Some(t) = eye.target(i, j, 0.0) else { continue };
                    let need = match Sight::new(eye.eye, t.p0, t.b, t.p) {
                        None => 0.0,
                        Some(sight) if brute => sight.brute_needed(eye),
                        Some(sight) => sight.needed_height(eye),
                    };
                    *v = need + if dem { hf.sample(i, j) as f64 } else { 0.0 };
                }
                progress.step()
            })?;
            Ok(ViewshedOutput::Heights(Grid { nx, ny, values }))
        }
        ViewshedMode::Count => {
            let mut values: Vec<Option<u32>> = vec![None; nx * ny];
            for eye in &eyes {
                values.par_chunks_mut(nx).enumerate().try_for_each(|(j, row)| {
                    let mut hint = None;
                    for (i, v) in row.iter_mut().enumerate() {
                        if let Some(seen) = visible(eye, i, j, &mut hint) {
                            *v = Some(v.unwrap_or(0) + u32::from(seen));
                        }
                    }
                    progress.step()
                })?;
            }
            Ok(ViewshedOutput::Counts(Grid { nx, ny, values }))
        }
    }
}
