//! Viewsheds of a heightfield, in raster order, stoppable with Ctrl-C. A raster in degrees takes
//! the exact viewshed on the Earth's shape (`landfall::viewshed::viewshed` on its `GeoSurface`),
//! observers at lon, lat.

use landfall::viewshed::{
    viewshed, Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, ViewshedSurface,
};
use landfall_io::AnyTerrain;
use std::sync::atomic::AtomicBool;

/// Flips south-first rows to raster order (first row north).
fn north_first<T: Copy>(nx: usize, ny: usize, south_first: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(nx * ny);
    for j in (0..ny).rev() {
        out.extend_from_slice(&south_first[j * nx..(j + 1) * nx]);
    }
    out
}

/// The viewshed on `t`: on the ellipsoid for a raster in degrees, else on the plane.
fn compute(
    t: &AnyTerrain,
    observers: &[Observer],
    params: &ViewshedParams,
    mode: ViewshedMode,
    hooks: &Hooks,
) -> Result<ViewshedOutput, ViewshedError> {
    let surface: &dyn ViewshedSurface = match t {
        AnyTerrain::Geographic(g) => g,
        _ => t.heightfield().expect("a Heightfield holds a heightfield"),
    };
    viewshed(surface, observers, params, mode, hooks)
}

/// The viewshed from world (x, y) (lon, lat for a raster in degrees) in `mode` (`visible`, `ground`, `dem`): flat values in raster
/// order. Visible: 1 visible, 0 hidden, 255 nodata; heights: NaN nodata.
pub fn single(
    t: &AnyTerrain,
    xy: [f64; 2],
    params: &ViewshedParams,
    mode: ViewshedMode,
    cancel: &AtomicBool,
) -> Result<Vec<f64>, ViewshedError> {
    let hooks = Hooks::default().with_cancel(cancel);
    let hf = t.heightfield().expect("a Heightfield holds a heightfield");
    let values: Vec<f64> = match compute(t, &[Observer::at(xy[0], xy[1])], params, mode, &hooks)? {
        ViewshedOutput::Visibility(v, _) => v.values.into_iter().map(f64::from).collect(),
        ViewshedOutput::Heights(h) => h.values,
        _ => return Err(ViewshedError::ObserverCount { mode, count: 1 }),
    };
    Ok(north_first(hf.nx(), hf.ny(), &values))
}

/// How many of the observers (x, y, eye height; NaN height for the parameters') see each sample,
/// in raster order: the counts, and whether the sample is some observer's target.
pub fn counts(
    t: &AnyTerrain,
    observers: &[[f64; 3]],
    params: &ViewshedParams,
    cancel: &AtomicBool,
) -> Result<(Vec<u32>, Vec<bool>), ViewshedError> {
    let obs: Vec<Observer> = observers
        .iter()
        .map(|o| {
            let at = Observer::at(o[0], o[1]);
            if o[2].is_nan() {
                at
            } else {
                at.with_height(o[2])
            }
        })
        .collect();
    let hooks = Hooks::default().with_cancel(cancel);
    let hf = t.heightfield().expect("a Heightfield holds a heightfield");
    let ViewshedOutput::Counts(c) = compute(t, &obs, params, ViewshedMode::Count, &hooks)? else {
        return Err(ViewshedError::ObserverCount { mode: ViewshedMode::Count, count: observers.len() });
    };
    let c = north_first(hf.nx(), hf.ny(), &c.values);
    Ok((c.iter().map(|v| v.unwrap_or(0)).collect(), c.iter().map(Option::is_some).collect()))
}
