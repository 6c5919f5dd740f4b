//! Viewsheds on a [`GeoSurface`]: which samples of a raster in degrees an observer sees, exactly,
//! on the surface's ECEF triangles.

mod eye;
mod sight;
#[cfg(test)]
mod tests;

use super::surface::GeoSurface;
use crate::viewshed::sealed::Surface;
use crate::viewshed::{
    Grid, Hooks, Observer, Progress, Stats, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams,
    ViewshedSurface, HIDDEN, NODATA, VISIBLE,
};
use eye::GeoEye;
use rayon::prelude::*;
use sight::Sight;

impl ViewshedSurface for GeoSurface {}

/// The viewshed of a surface in degrees (observers at x = longitude, y = latitude), every mode:
/// what [`viewshed`](crate::viewshed::viewshed) runs on a [`GeoSurface`]; the definition is the
/// [`geo` module's](crate::geo#viewsheds).
impl Surface for GeoSurface {
    fn compute(
        &self,
        observers: &[Observer],
        params: &ViewshedParams,
        mode: ViewshedMode,
        hooks: &Hooks,
    ) -> Result<ViewshedOutput, ViewshedError> {
        run(self, observers, params, mode, hooks, false)
    }

    /// The height above the ellipsoid of the eye of an observer at (lon, lat) degrees.
    fn eye(&self, [lon, lat]: [f64; 2], params: &ViewshedParams) -> Result<f64, ViewshedError> {
        let e = GeoEye::new(self, lon, lat, params)?;
        Ok((e.eye - e.ao).dot(e.up))
    }
}

/// [`viewshed`](crate::viewshed::viewshed) on a [`GeoSurface`] with every target tested against
/// every triangle: the reference (same answers, far slower).
#[cfg(any(test, feature = "bench-support"))]
pub fn geo_viewshed_reference(
    s: &GeoSurface,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
) -> Result<ViewshedOutput, ViewshedError> {
    run(s, observers, params, mode, &Hooks::default(), true)
}

/// Rows of targets decided in turn by one thread (the hints run along them).
const ROWS: usize = 8;

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
    // Rows go to threads `ROWS` at a time; each target's blockers of the previous target of its row
    // and of the target below it are the hints (`Sight::blocker`). `seen(i, j, v)` is told each
    // target's answer (`None`: no target).
    let decide = |eye: &GeoEye, j0: usize, rows: usize, seen: &mut dyn FnMut(usize, usize, Option<bool>)| {
        let mut below: Vec<Option<(usize, usize)>> = vec![None; nx];
        for j in j0..j0 + rows {
            let mut left = None;
            for (i, below) in below.iter_mut().enumerate() {
                let answer = eye.target(i, j, th).map(|t| match Sight::new(eye.eye, t.p0, t.b, t.p) {
                    None => true,
                    Some(sight) if brute => !sight.brute_hidden(eye, th),
                    Some(sight) => match sight.blocker(eye, th, (i, j), &[left, *below]) {
                        None => true,
                        at => {
                            (left, *below) = (at, at);
                            false
                        }
                    },
                });
                seen(i, j, answer);
            }
            progress.step()?;
        }
        Ok::<(), ViewshedError>(())
    };
    match mode {
        ViewshedMode::Visibility => {
            let eye = &eyes[0];
            let mut values = vec![NODATA; nx * ny];
            values.par_chunks_mut(nx * ROWS).enumerate().try_for_each(|(c, chunk)| {
                decide(eye, c * ROWS, chunk.len() / nx, &mut |i, j, seen| {
                    chunk[(j - c * ROWS) * nx + i] = seen.map_or(NODATA, |seen| if seen { VISIBLE } else { HIDDEN });
                })
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
                values.par_chunks_mut(nx * ROWS).enumerate().try_for_each(|(c, chunk)| {
                    decide(eye, c * ROWS, chunk.len() / nx, &mut |i, j, seen| {
                        if let Some(seen) = seen {
                            let v = &mut chunk[(j - c * ROWS) * nx + i];
                            *v = Some(v.unwrap_or(0) + u32::from(seen));
                        }
                    })
                })?;
            }
            Ok(ViewshedOutput::Counts(Grid { nx, ny, values }))
        }
    }
}
