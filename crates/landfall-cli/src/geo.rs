//! Whether a terrain's x, y are degrees, and how long its units are on the ground: for scale bars,
//! ground proportions and true vertical scale in pictures and the viewer.

use landfall::Aabb;
use landfall_io::GeoKeys;

/// Metres in a degree of latitude (and of longitude at the equator), for a raster in degrees.
pub const METRES_PER_DEGREE: f64 = 111_320.0;

/// Whether the terrain's x, y are longitude and latitude in degrees: its GeoTIFF says so
/// (GTModelTypeGeoKey 2), or, without a CRS, its extent fits the globe and its relief dwarfs its
/// extent (heights in metres over a grid in degrees).
pub fn is_geographic(b: &Aabb, keys: Option<&GeoKeys>) -> bool {
    if let Some(k) = keys {
        let entries = k.directory.get(4..).unwrap_or(&[]);
        if let Some(e) = entries.chunks_exact(4).find(|e| e[0] == 1024 && e[1] == 0) {
            return e[3] == 2;
        }
    }
    let extent = (b.max.x - b.min.x).max(b.max.y - b.min.y);
    b.min.x >= -180.0
        && b.max.x <= 360.0
        && b.min.y >= -90.0
        && b.max.y <= 90.0
        && extent > 0.0
        && b.max.z - b.min.z > 5.0 * extent
}

/// Metres per unit of x and of y: 1 each, or for degrees those of the terrain's mid latitude.
pub fn metres_per_unit(b: &Aabb, geographic: bool) -> [f64; 2] {
    if geographic {
        let lat = (0.5 * (b.min.y + b.max.y)).to_radians();
        [METRES_PER_DEGREE * lat.cos().max(1e-3), METRES_PER_DEGREE]
    } else {
        [1.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use landfall::glam::DVec3;

    #[test]
    fn degrees_are_told_from_metres() {
        let deg = Aabb::new(DVec3::new(234.0, 48.0, -1437.0), DVec3::new(238.0, 50.0, 2205.0));
        assert!(is_geographic(&deg, None));
        let m = metres_per_unit(&deg, true);
        assert!((m[0] - 111_320.0 * 49f64.to_radians().cos()).abs() < 1e-6 && m[1] == 111_320.0);
        let metres = Aabb::new(DVec3::new(0.0, 0.0, -1437.0), DVec3::new(289_170.0, 218_700.0, 2205.0));
        assert!(!is_geographic(&metres, None));
        assert_eq!(metres_per_unit(&metres, false), [1.0, 1.0]);
        // A small projected DEM near the origin with a big relief is not degrees when its CRS says so.
        let keys = GeoKeys { directory: vec![1, 1, 0, 1, 1024, 0, 1, 1], doubles: vec![], ascii: String::new() };
        assert!(!is_geographic(&deg, Some(&keys)));
    }
}
