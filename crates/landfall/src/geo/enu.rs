//! A local east-north-up (ENU) frame: a rigid transform of ECEF (a rotation and a translation), so
//! distances, angles and straight lines are kept exactly. x = east, y = north, z = up (the
//! ellipsoid normal at the frame's origin), metres.

use super::wgs84::{ecef_to_geodetic, geodetic_to_ecef, Geodetic};
use glam::{DMat3, DVec3};

/// An east-north-up frame at a geodetic origin.
///
/// ```
/// use landfall::geo::{EnuFrame, Geodetic};
/// let f = EnuFrame::new(Geodetic::new(8.5, 47.0, 400.0));
/// let p = f.geodetic_to_enu(8.5, 47.0, 500.0);
/// assert!((p - landfall::glam::DVec3::new(0.0, 0.0, 100.0)).length() < 1e-8);
/// let back = f.enu_to_geodetic(p);
/// assert!((back.h - 500.0).abs() < 1e-8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnuFrame {
    origin: Geodetic,
    origin_ecef: DVec3,
    /// Rows: east, north, up (ECEF → ENU).
    rot: DMat3,
}

impl EnuFrame {
    /// The frame at `origin`: its x axis points east, y north, z up along the ellipsoid normal.
    pub fn new(origin: Geodetic) -> Self {
        let (sl, cl) = origin.lon.to_radians().sin_cos();
        let (sp, cp) = super::wgs84::sin_cos_deg(origin.lat);
        let east = DVec3::new(-sl, cl, 0.0);
        let north = DVec3::new(-sp * cl, -sp * sl, cp);
        let up = DVec3::new(cp * cl, cp * sl, sp);
        // glam matrices are column-major: the transpose of the columns (east, north, up) has them as rows.
        let rot = DMat3::from_cols(east, north, up).transpose();
        Self { origin, origin_ecef: origin.to_ecef(), rot }
    }

    /// The frame's origin, geodetic.
    pub fn origin(&self) -> Geodetic {
        self.origin
    }

    /// The frame's origin in ECEF.
    pub fn origin_ecef(&self) -> DVec3 {
        self.origin_ecef
    }

    /// The rotation ECEF → ENU (its rows are east, north and up in ECEF).
    pub fn rotation(&self) -> DMat3 {
        self.rot
    }

    /// The unit east, north and up vectors in ECEF.
    pub fn axes(&self) -> [DVec3; 3] {
        let t = self.rot.transpose();
        [t.x_axis, t.y_axis, t.z_axis]
    }

    /// ECEF point → ENU.
    #[inline]
    pub fn to_enu(&self, ecef: DVec3) -> DVec3 {
        self.rot * (ecef - self.origin_ecef)
    }

    /// ENU point → ECEF.
    #[inline]
    pub fn to_ecef(&self, enu: DVec3) -> DVec3 {
        self.rot.transpose() * enu + self.origin_ecef
    }

    /// ECEF direction → ENU (rotation only).
    #[inline]
    pub fn dir_to_enu(&self, d: DVec3) -> DVec3 {
        self.rot * d
    }

    /// ENU direction → ECEF (rotation only).
    #[inline]
    pub fn dir_to_ecef(&self, d: DVec3) -> DVec3 {
        self.rot.transpose() * d
    }

    /// Geodetic position → ENU.
    pub fn geodetic_to_enu(&self, lon: f64, lat: f64, h: f64) -> DVec3 {
        self.to_enu(geodetic_to_ecef(lon, lat, h))
    }

    /// ENU position → geodetic.
    pub fn enu_to_geodetic(&self, enu: DVec3) -> Geodetic {
        ecef_to_geodetic(self.to_ecef(enu))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The frame is rigid (orthonormal, right-handed) and ECEF ↔ ENU round-trips; its up is the
        /// ellipsoid normal and its north points toward the pole.
        #[test]
        fn rigid_and_round_trips(lon in -180.0f64..180.0, lat in -89.9f64..89.9, h in -500.0f64..5000.0,
                                 x in -1e5f64..1e5, y in -1e5f64..1e5, z in -1e4f64..1e4) {
            let f = EnuFrame::new(Geodetic::new(lon, lat, h));
            let r = f.rotation();
            prop_assert!((r * r.transpose() - DMat3::IDENTITY).to_cols_array().iter().all(|v| v.abs() < 1e-15));
            prop_assert!((r.determinant() - 1.0).abs() < 1e-14);
            let p = DVec3::new(x, y, z);
            prop_assert!((f.to_enu(f.to_ecef(p)) - p).length() < 1e-8);
            let [_, north, up] = f.axes();
            prop_assert!((up - super::super::wgs84::up(lon, lat)).length() < 1e-15);
            prop_assert!(north.z > 0.0);
            let q = f.geodetic_to_enu(lon, lat, h + 7.0);
            prop_assert!((q - DVec3::new(0.0, 0.0, 7.0)).length() < 1e-8);
        }
    }

    /// 1° of latitude near 45° N is about 111.1 km north of the origin in ENU.
    #[test]
    fn a_degree_of_latitude_is_111_km() {
        let f = EnuFrame::new(Geodetic::new(10.0, 45.0, 0.0));
        let p = f.geodetic_to_enu(10.0, 45.5, 0.0);
        let q = f.geodetic_to_enu(10.0, 44.5, 0.0);
        let d = (p - q).length();
        assert!((d - 111_132.0).abs() < 20.0, "{d}");
    }
}
