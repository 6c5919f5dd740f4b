//! Curved frames: a bumpy planet and a rotating station made of polygons. Walking a point around
//! them — across the ±180° seam, over the poles, around the axis — always finds the ground, where
//! an f64 brute force over every triangle says it is.

use glam::DVec3;
use landfall::PolygonSoup;
use landfall::{CurvedFrame, CurvedTerrain, QuadtreeParams, Ray};

const R: f64 = 1000.0;

/// A UV sphere around `c`: `nlat` bands × `nlon` sectors, longitudes turned by `turn` degrees (so
/// faces straddle the seam anywhere), radius R plus bumps; pole caps are triangle fans.
fn planet(c: DVec3, nlat: usize, nlon: usize, turn: f64) -> PolygonSoup {
    let radius = |lat: f64, lon: f64| R + 20.0 * (3.0 * lat).sin() * (5.0 * lon).cos() * lat.cos();
    let at = |i: usize, k: usize| {
        let lat = -90.0 + 180.0 * i as f64 / nlat as f64;
        let lon = turn + 360.0 * k as f64 / nlon as f64;
        let (la, lo) = (lat.to_radians(), lon.to_radians());
        let r = radius(la, lo);
        c + DVec3::new(la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin()) * r
    };
    let mut soup = PolygonSoup::new();
    for i in 0..nlat {
        for k in 0..nlon {
            let (a, b, cc, d) = (at(i, k), at(i, k + 1), at(i + 1, k + 1), at(i + 1, k));
            if i == 0 {
                soup.push(&[a, cc, d]);
            } else if i == nlat - 1 {
                soup.push(&[a, b, d]);
            } else {
                soup.push(&[a, b, cc]);
                soup.push(&[a, cc, d]);
            }
        }
    }
    soup
}

/// Möller–Trumbore with a tolerance over every polygon's fan: the crossings (t) of o + t·d, t ≥ 0.
fn ref_crossings(soup: &PolygonSoup, o: DVec3, d: DVec3) -> Vec<f64> {
    let mut out = Vec::new();
    for k in 0..soup.len() {
        let p = soup.polygon(k);
        for j in 1..p.len() - 1 {
            let (e1, e2) = (p[j] - p[0], p[j + 1] - p[0]);
            let pv = d.cross(e2);
            let det = e1.dot(pv);
            if det.abs() < 1e-300 {
                continue;
            }
            let s = o - p[0];
            let (u, qv) = (s.dot(pv) / det, s.cross(e1));
            let v = d.dot(qv) / det;
            if u >= -1e-9 && v >= -1e-9 && u + v <= 1.0 + 1e-9 {
                let t = e2.dot(qv) / det;
                if t >= 0.0 {
                    out.push(t);
                }
            }
        }
    }
    out
}

fn check_planet(t: &CurvedTerrain, soup: &PolygonSoup, c: DVec3, p: DVec3) {
    let q = p - c;
    let want = ref_crossings(soup, c, q);
    assert!(!want.is_empty(), "reference found no ground at {p}");
    let r_ref = want.iter().fold(0.0f64, |m, &t| m.max(t)) * q.length();
    let top = t.top_surface(p).unwrap_or_else(|| panic!("no ground under {p} (lat/lon of {q})"));
    let r = (top.point - c).length();
    assert!((r - r_ref).abs() < 1e-7 * R, "at {p}: radius {r}, reference {r_ref}");
    assert!((top.point - c).normalize().dot(q.normalize()) > 1.0 - 1e-12, "not on the radial line");
    assert!(top.normal.dot(q) > 0.0, "normal must point away from the center");
    let above = q.length() >= r;
    assert_eq!(t.floor_below(p).is_some(), above, "floor below {p}");
    assert_eq!(t.ceiling_above(p).is_some(), !above || (q.length() - r).abs() < 1e-6, "ceiling above {p}");
}

#[test]
fn walking_around_a_planet_always_finds_the_ground() {
    let c = DVec3::new(5e5, -3e5, 2e4);
    for (nlat, nlon, turn) in [(24, 48, 0.0), (17, 31, 173.3), (9, 7, -61.0)] {
        let soup = planet(c, nlat, nlon, turn);
        let t =
            CurvedTerrain::from_soup(&soup, CurvedFrame::Spherical { center: c }, QuadtreeParams::default()).unwrap();
        assert!(t.key_count() > soup.len(), "some faces straddle the seam");
        let dir = |lat: f64, lon: f64| {
            let (la, lo) = (lat.to_radians(), lon.to_radians());
            DVec3::new(la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin())
        };
        // Along meridians through both poles, including the seam itself.
        for lon in [180.0, -180.0, 0.0, 179.999999, -179.999999, turn, 33.3] {
            for k in 0..=400 {
                let lat = -90.0 + 180.0 * k as f64 / 400.0;
                let alt = [0.3, 0.97, 1.5, 3.0][k % 4];
                check_planet(&t, &soup, c, c + dir(lat, lon) * R * alt);
            }
        }
        // Around the equator and a high latitude circle, across the seam.
        for lat in [0.0, 71.0, -88.9, 89.99999] {
            for k in 0..720 {
                check_planet(&t, &soup, c, c + dir(lat, -180.0 + 0.5 * k as f64 + 0.123) * R * 1.2);
            }
        }
        // Exactly over the poles.
        for s in [1.0, -1.0] {
            check_planet(&t, &soup, c, c + DVec3::Z * s * R * 2.0);
        }
        // Rays from space toward the center hit the ground at the same radius.
        for k in 0..200 {
            let d = dir(-80.0 + 0.8 * k as f64, 7.3 * k as f64);
            let hit = t.raycast(&Ray::new(c + d * 3.0 * R, -d), f64::INFINITY).expect("the planet is hit");
            let top = t.top_surface(c + d * 3.0 * R).unwrap();
            assert!((hit.point - top.point).length() < 1e-6, "{} vs {}", hit.point, top.point);
        }
        assert!(t.top_surface(c).is_none(), "the center has no radial line");
    }
}

/// The floor of a station: planar quads at radius R around an axis (gravity points outward).
fn station(point: DVec3, axis: DVec3, sectors: usize, rings: usize, turn: f64) -> PolygonSoup {
    let w = axis.normalize();
    let u = w.any_orthonormal_vector();
    let v = w.cross(u);
    let at = |k: usize, j: usize| {
        let a = (turn + 360.0 * k as f64 / sectors as f64).to_radians();
        point + (u * a.cos() + v * a.sin()) * R + w * (j as f64 * 50.0 - 500.0)
    };
    let mut soup = PolygonSoup::new();
    for k in 0..sectors {
        for j in 0..rings {
            soup.push(&[at(k, j), at(k + 1, j), at(k + 1, j + 1), at(k, j + 1)]);
        }
    }
    soup
}

#[test]
fn walking_around_a_station_always_finds_the_floor() {
    let (point, axis) = (DVec3::new(10.0, -20.0, 30.0), DVec3::new(0.3, 1.0, -0.2));
    for (sectors, turn) in [(64, 0.0), (37, 178.9)] {
        let soup = station(point, axis, sectors, 20, turn);
        let t = CurvedTerrain::from_soup(&soup, CurvedFrame::Cylindrical { point, axis }, QuadtreeParams::default())
            .unwrap();
        let w = axis.normalize();
        let u = w.any_orthonormal_vector();
        let v = w.cross(u);
        for k in 0..2000 {
            let a = (-180.0 + 360.0 * k as f64 / 2000.0 + 0.01f64).to_radians();
            let radial = u * a.cos() + v * a.sin();
            let s = -450.0 + (k % 90) as f64 * 10.0;
            let p = point + w * s + radial * R * 0.6; // inside the station, 400 m above the floor
            let floor = t.floor_below(p).unwrap_or_else(|| panic!("no floor below {p}"));
            let mut want = ref_crossings(&soup, point + w * s, radial);
            want.dedup_by(|a, b| (*a - *b).abs() < 1e-9 * R);
            assert_eq!(want.len(), 1, "reference at {p}");
            let rho = (floor.point - point - w * (floor.point - point).dot(w)).length();
            assert!((rho - want[0]).abs() < 1e-7 * R, "floor at {rho}, reference {}", want[0]);
            assert!(floor.normal.dot(-radial) > 0.99, "the floor's normal points to the axis");
            assert!(t.ceiling_above(p).is_none(), "nothing between the walker and the axis");
            // Outside the hull the floor is overhead (toward the axis).
            let out = point + w * s + radial * R * 1.3;
            assert!(t.floor_below(out).is_none());
            assert!(t.ceiling_above(out).is_some());
            assert!(t.up_at(p).dot(-radial) > 1.0 - 1e-12);
        }
    }
}
