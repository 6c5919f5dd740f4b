//! Queries on a raster in degrees (`AnyTerrain::Geographic`): points in (lon, lat[, h]), rays from
//! (lon, lat, h) along a direction in the east-north-up frame at their origin; answers in (lon,
//! lat, h), normals in the surface's ENU frame (`info()["enu_origin"]`).

use landfall::geo::{GeoPoint, GeoSurface, Geodetic};
use landfall::glam::DVec3;
use rayon::prelude::*;

const NAN3: [f64; 3] = [f64::NAN; 3];

fn row(p: &GeoPoint) -> [f64; 6] {
    let (q, n) = (p.geodetic, p.normal);
    [q.lon, q.lat, q.h, n.x, n.y, n.z]
}

/// Heights at (lon, lat); NaN where there is no surface.
pub fn heights(g: &GeoSurface, lon: &[f64], lat: &[f64]) -> Vec<f64> {
    (0..lon.len()).into_par_iter().with_min_len(4096).map(|k| g.height_at(lon[k], lat[k]).unwrap_or(f64::NAN)).collect()
}

/// Surface points (lon, lat, h) and normals; with `h`, only surfaces at or below it.
pub fn surfaces(g: &GeoSurface, lon: &[f64], lat: &[f64], h: Option<&[f64]>) -> Vec<[f64; 6]> {
    (0..lon.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|k| {
            let s = g.surface_at(lon[k], lat[k]).filter(|s| h.is_none_or(|h| s.geodetic.h <= h[k]));
            s.map_or([f64::NAN; 6], |s| row(&s))
        })
        .collect()
}

/// First hits: [hit, t, lon, lat, h, nx, ny, nz] (NaN where missed).
pub fn raycast(g: &GeoSurface, o: &[f64], d: &[f64], max_t: &[f64]) -> Vec<[f64; 8]> {
    (0..max_t.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|k| {
            let from = Geodetic::new(o[3 * k], o[3 * k + 1], o[3 * k + 2]);
            let dir = DVec3::new(d[3 * k], d[3 * k + 1], d[3 * k + 2]);
            match g.raycast_geodetic(from, dir, max_t[k]) {
                Some(h) => {
                    let r = row(&h.point);
                    [1.0, h.t, r[0], r[1], r[2], r[3], r[4], r[5]]
                }
                None => [0.0, f64::NAN, NAN3[0], NAN3[1], NAN3[2], NAN3[0], NAN3[1], NAN3[2]],
            }
        })
        .collect()
}

/// Line of sight between (lon, lat, h) pairs: 1.0 where clear.
pub fn visible(g: &GeoSurface, a: &[f64], b: &[f64]) -> Vec<f64> {
    let at = |v: &[f64], k: usize| Geodetic::new(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
    (0..a.len() / 3)
        .into_par_iter()
        .with_min_len(64)
        .map(|k| f64::from(u8::from(g.visible(at(a, k), at(b, k)))))
        .collect()
}

/// (lon, lat, h) → the surface's ENU frame (flat n·3), or back (`to_enu` false).
pub fn convert(g: &GeoSurface, p: &[f64], to_enu: bool) -> Vec<f64> {
    let f = g.frame();
    p.par_chunks_exact(3)
        .with_min_len(1024)
        .flat_map_iter(|c| {
            if to_enu {
                f.geodetic_to_enu(c[0], c[1], c[2]).to_array()
            } else {
                let q = f.enu_to_geodetic(DVec3::new(c[0], c[1], c[2]));
                [g.wrap_lon(q.lon), q.lat, q.h]
            }
        })
        .collect()
}
