//! One observer on a [`GeoSurface`]: where its eye is, the refraction raise of every sample, and
//! which samples are its targets.

use crate::geo::surface::GeoSurface;
use crate::geo::{EnuFrame, Geodetic};
use crate::geom::TriangleId;
use crate::viewshed::{ViewshedError, ViewshedParams, EARTH_RADIUS};
use glam::DVec3;

/// One observer's eye on a surface in degrees; every position in the surface's ENU frame.
pub(crate) struct GeoEye<'a> {
    pub s: &'a GeoSurface,
    pub params: &'a ViewshedParams,
    /// K / (2R): a sample at chord distance d from the observer is raised by `k`·d².
    pub k: f64,
    /// The observer's point on the ellipsoid (h = 0).
    pub ao: DVec3,
    /// The eye.
    pub eye: DVec3,
    /// The observer's east, north and up (unit vectors).
    pub east: DVec3,
    pub north: DVec3,
    pub up: DVec3,
    /// Largest |sample| of the grid (bounds the raise of a box's vertices, see `sight.rs`).
    pub hmax: f64,
}

/// A target: its point on the raised surface, its ellipsoid normal and the target point above it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub p0: DVec3,
    pub b: DVec3,
    pub p: DVec3,
}

impl<'a> GeoEye<'a> {
    /// The eye of an observer at (`lon`, `lat`) degrees, `params.observer_height` above the (raised)
    /// ground.
    pub fn new(s: &'a GeoSurface, lon: f64, lat: f64, params: &'a ViewshedParams) -> Result<Self, ViewshedError> {
        params.validate()?;
        let (x, y) = (lon, lat);
        if !(lon.is_finite() && lat.is_finite()) {
            return Err(ViewshedError::ObserverOutside { x, y });
        }
        let hf = s.heightfield();
        let Some(ground) = s.surface_at(lon, lat) else {
            let (o, sp) = (hf.origin(), hf.spacing());
            let lon_w = s.wrap_lon(lon);
            let inside = (o.x..=o.x + (hf.nx() - 1) as f64 * sp.x).contains(&lon_w)
                && (o.y..=o.y + (hf.ny() - 1) as f64 * sp.y).contains(&lat);
            return Err(if inside {
                ViewshedError::ObserverOverHole { x, y }
            } else {
                ViewshedError::ObserverOutside { x, y }
            });
        };
        let f = s.frame();
        let local = EnuFrame::new(Geodetic::new(lon, lat, 0.0));
        let [east, north, up] = [DVec3::X, DVec3::Y, DVec3::Z].map(|d| f.dir_to_enu(local.dir_to_ecef(d)));
        let ao = f.geodetic_to_enu(lon, lat, 0.0);
        let k = params.refraction / (2.0 * EARTH_RADIUS);
        let (lo, hi) = hf.height_range().unwrap_or((0.0, 0.0));
        let hmax = (lo as f64).abs().max(hi as f64);
        let mut e = Self { s, params, k, ao, eye: ao, east, north, up, hmax };
        // The ground: where the observer's normal line meets the plane of its triangle, raised.
        let TriangleId::Cell { i, j, half } = ground.triangle else { unreachable!("grid triangles") };
        let v = s.triangle_samples(i as usize, j as usize, half).map(|(i, j)| e.vertex(i, j));
        let n = (v[1] - v[0]).cross(v[2] - v[0]);
        let g = n.dot(v[0] - ao) / n.dot(up);
        e.eye = ao + up * (g + params.observer_height);
        Ok(e)
    }

    /// The raise of sample (i, j) for refraction: K·d²/(2R), d the chord from the observer's point
    /// on the ellipsoid to the sample's.
    #[inline(always)]
    pub fn raise(&self, i: usize, j: usize) -> f64 {
        if self.k == 0.0 {
            return 0.0;
        }
        let (a, _) = self.s.tables().a_b(i, j);
        self.k * (a - self.ao).length_squared()
    }

    /// Sample (i, j) raised, in the surface's frame (NaN components for nodata).
    #[inline(always)]
    pub fn vertex(&self, i: usize, j: usize) -> DVec3 {
        let h = self.s.heightfield().sample(i, j) as f64;
        self.s.tables().position(i, j, h + self.raise(i, j))
    }

    /// Target (i, j) at `th` above its sample, or `None` when it is no target (nodata, beyond the
    /// maximum distance, outside the azimuths or the pitch range).
    pub fn target(&self, i: usize, j: usize, th: f64) -> Option<Target> {
        if self.s.heightfield().sample(i, j).is_nan() {
            return None;
        }
        let (a, b) = self.s.tables().a_b(i, j);
        let v = a - self.ao;
        let d2 = v.length_squared();
        let p = self.params;
        if p.max_distance.is_finite() && d2 > p.max_distance * p.max_distance {
            return None;
        }
        if let Some((lo, hi)) = p.azimuths {
            let (ex, ny) = (v.dot(self.east), v.dot(self.north));
            if ex != 0.0 || ny != 0.0 {
                let az = ex.atan2(ny).to_degrees().rem_euclid(360.0);
                let span = (hi - lo).rem_euclid(360.0);
                if span != 0.0 && (az - lo).rem_euclid(360.0) > span {
                    return None;
                }
            }
        }
        let p0 = self.vertex(i, j);
        let tp = p0 + b * th;
        if let Some((lo, hi)) = p.pitch {
            let w = tp - self.eye;
            let up = w.dot(self.up);
            let pitch = up.atan2((w - self.up * up).length()).to_degrees();
            if pitch < lo || pitch > hi {
                return None;
            }
        }
        Some(Target { p0, b, p: tp })
    }
}
