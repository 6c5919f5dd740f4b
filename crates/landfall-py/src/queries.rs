//! The vertical, ray and light queries on flat arrays, in parallel (the GIL is released by the
//! caller).

use crate::args::{flag, vec3};
use landfall::glam::DVec3;
use landfall::{Ray, SurfacePoint, Terrain};
use rayon::prelude::*;

/// Which surface on a vertical line.
#[derive(Clone, Copy)]
pub enum Pick {
    /// The topmost.
    Top,
    /// The nearest at or below the point.
    Floor,
    /// The nearest at or above the point.
    Ceiling,
}

/// The surface `pick` chooses for each point (z ignored for `Top`): rows point, normal; NaN where
/// there is none.
pub fn surfaces(t: &dyn Terrain, x: &[f64], y: &[f64], z: Option<&[f64]>, pick: Pick) -> Vec<[f64; 6]> {
    (0..x.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|k| {
            let p = DVec3::new(x[k], y[k], z.map_or(0.0, |z| z[k]));
            let s = match pick {
                Pick::Top => t.top_surface(p),
                Pick::Floor => t.floor_below(p),
                Pick::Ceiling => t.ceiling_above(p),
            };
            s.map_or([f64::NAN; 6], |s: SurfacePoint| {
                [s.point.x, s.point.y, s.point.z, s.normal.x, s.normal.y, s.normal.z]
            })
        })
        .collect()
}

/// Topmost heights; NaN where there is no surface.
pub fn heights(t: &dyn Terrain, x: &[f64], y: &[f64]) -> Vec<f64> {
    (0..x.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|k| t.top_surface(DVec3::new(x[k], y[k], 0.0)).map_or(f64::NAN, |s| s.point.z))
        .collect()
}

/// QOTA's locale test for each point: 1.0 where there is a floor at or below it and a ceiling at
/// or above it.
pub fn contains(t: &dyn Terrain, x: &[f64], y: &[f64], z: &[f64]) -> Vec<f64> {
    (0..x.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|k| {
            let p = DVec3::new(x[k], y[k], z[k]);
            flag(t.floor_below(p).is_some() && t.ceiling_above(p).is_some())
        })
        .collect()
}

/// First hits: rows hit (0/1), t, point, normal; NaN where missed.
pub fn raycast(t: &dyn Terrain, o: &[f64], d: &[f64], max_t: &[f64]) -> Vec<[f64; 8]> {
    (0..max_t.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|k| match t.raycast(&Ray::new(vec3(o, k), vec3(d, k)), max_t[k]) {
            Some(h) => [1.0, h.t, h.point.x, h.point.y, h.point.z, h.normal.x, h.normal.y, h.normal.z],
            None => [0.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN],
        })
        .collect()
}

/// Line of sight between point pairs: 1.0 where clear.
pub fn visible(t: &dyn Terrain, a: &[f64], b: &[f64]) -> Vec<f64> {
    (0..a.len() / 3)
        .into_par_iter()
        .with_min_len(1024)
        .map(|k| flag(landfall::segment_crossing(t, vec3(a, k), vec3(b, k)).is_none()))
        .collect()
}

/// Shadows by shadow rays: 1.0 where the ray from each point toward the light (`to_light`, per
/// point) crosses no terrain farther than `bias` from the point.
pub fn lit(t: &dyn Terrain, p: &[f64], to_light: &[f64], bias: f64) -> Vec<f64> {
    (0..p.len() / 3)
        .into_par_iter()
        .with_min_len(1024)
        .map(|k| {
            let d = vec3(to_light, k).normalize();
            let start = vec3(p, k) + d * bias;
            flag(t.raycast(&Ray::new(start, d), f64::INFINITY).is_none())
        })
        .collect()
}
