//! The surface against brute-force references in ECEF (every triangle, f64, vertices straight from
//! `geodetic_to_ecef`): heights, rays, rays aimed at shared edges and vertices, holes, tiles at the
//! poles and across the antimeridian, and the flat-sea horizon geometry.

use super::wgs84::{ecef_to_geodetic, geodetic_to_ecef, up};
use super::*;
use crate::geom::{moller_trumbore_grown, Half, TriangleId};
use crate::heightfield::synth::{generate, SynthParams};
use crate::{Heightfield, Terrain};
use glam::DVec3;
use proptest::prelude::*;

/// ECEF vertices of every existing triangle, straight from the geodetic map.
fn ecef_triangles(s: &GeoSurface) -> Vec<(TriangleId, [DVec3; 3])> {
    let hf = s.heightfield();
    let (o, d) = (hf.origin(), hf.spacing());
    let mut out = Vec::new();
    for j in 0..hf.ny() - 1 {
        for i in 0..hf.nx() - 1 {
            for half in [Half::South, Half::North] {
                if s.cell_triangle(i, j, half).is_none() {
                    continue;
                }
                let offs = crate::heightfield::cell::corner_offsets(hf.diagonal().is_anti(i, j), half);
                let v = offs.map(|(di, dj)| {
                    let (ii, jj) = (i + di, j + dj);
                    geodetic_to_ecef(o.x + ii as f64 * d.x, o.y + jj as f64 * d.y, hf.sample(ii, jj) as f64)
                });
                out.push((TriangleId::Cell { i: i as u32, j: j as u32, half }, v));
            }
        }
    }
    out
}

/// Every t where the line o + t·d meets a triangle grown (eps > 0) or shrunk (eps < 0) by `eps`.
fn brute(tris: &[(TriangleId, [DVec3; 3])], o: DVec3, d: DVec3, eps: f64) -> Vec<f64> {
    tris.iter().filter_map(|(_, v)| moller_trumbore_grown(o, d, v, eps)).collect()
}

/// A generated grid of (nx, ny) samples, its south-west one at (lon0, lat0), `step` degrees apart
/// (0.8 of it in latitude); with `holes`, every 23rd sample is nodata.
fn surface(
    (lon0, lat0): (f64, f64),
    (nx, ny): (usize, usize),
    step: f64,
    relief: f32,
    seed: u64,
    holes: bool,
) -> GeoSurface {
    let mut h = generate(nx, ny, &SynthParams { seed, relief, feature: 6.0, ..SynthParams::default() });
    if holes {
        for k in (0..h.len()).step_by(23) {
            h[k] = f32::NAN;
        }
    }
    // A row at a pole is one point: one height (as in a real DEM).
    for j in [0, ny - 1] {
        if (lat0 + j as f64 * step * 0.8).abs() == 90.0 {
            let v = h[j * nx];
            h[j * nx..(j + 1) * nx].fill(v);
        }
    }
    let hf = Heightfield::builder(nx, ny, h).origin(lon0, lat0).spacing(step, step * 0.8).build().unwrap();
    GeoSurface::new(hf).unwrap()
}

/// The largest height difference between neighbouring samples over the cell's width (both in
/// metres), at least 1.
fn steepness(s: &GeoSurface) -> f64 {
    let hf = s.heightfield();
    let mut k: f64 = 1.0;
    for j in 0..hf.ny() - 1 {
        for i in 0..hf.nx() - 1 {
            let (a, b, c) = (s.sample_enu(i, j), s.sample_enu(i + 1, j), s.sample_enu(i, j + 1));
            for q in [b, c] {
                let dz = (q.z - a.z).abs();
                let w = ((q - a).length_squared() - dz * dz).max(0.0).sqrt();
                if dz.is_finite() && w > 0.0 {
                    k = k.max(dz / w);
                }
            }
        }
    }
    k
}

fn grid_strategy() -> impl Strategy<Value = GeoSurface> {
    grid_with(any::<bool>())
}

/// Grids with holes or not as `holes` draws.
fn grid_with(holes: impl Strategy<Value = bool>) -> impl Strategy<Value = GeoSurface> {
    (
        prop_oneof![-179.0f64..178.0, Just(179.9)],
        prop_oneof![-80.0f64..80.0, Just(89.8), Just(-90.0)],
        5usize..24,
        5usize..20,
        prop_oneof![0.0005f64..0.02, Just(1.0 / 3600.0)],
        prop_oneof![1.0f32..50.0, 500.0f32..4000.0],
        any::<u64>(),
        holes,
    )
        .prop_map(|(lon0, lat0, nx, ny, step, relief, seed, holes)| {
            let mut lat0 = lat0.min(90.0 - (ny - 1) as f64 * step * 0.8);
            // The north row computed as `surface` places it may round past 90°: step back.
            while lat0 + (ny - 1) as f64 * (step * 0.8) > 90.0 {
                lat0 = lat0.next_down();
            }
            surface((lon0, lat0), (nx, ny), step, relief, seed, holes)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// The height at (lon, lat) is where the ellipsoid normal through (lon, lat) meets a triangle
    /// of the brute-force ECEF mesh; where that normal clearly crosses the mesh, there is a height.
    /// Longitudes are also asked a turn away.
    #[test]
    fn heights_match_brute_force(s in grid_strategy(), fu in -0.05f64..1.05, fv in -0.05f64..1.05, turn in -1i32..=1) {
        let hf = s.heightfield();
        let (o, d) = (hf.origin(), hf.spacing());
        let lon = o.x + fu * (hf.nx() - 1) as f64 * d.x;
        let lat = (o.y + fv * (hf.ny() - 1) as f64 * d.y).clamp(-90.0, 90.0);
        let tris = ecef_triangles(&s);
        let (lo, dir) = (geodetic_to_ecef(lon, lat, 0.0), up(lon, lat));
        let grown = brute(&tris, lo, dir, 1e-9);
        let clear = brute(&tris, lo, dir, -1e-7);
        // Heights on steep triangles are as sensitive to rounding of the line's position as the slope.
        let tol = 1e-6 * (1.0 + steepness(&s));
        match s.height_at(lon + 360.0 * turn as f64, lat) {
            Some(h) => prop_assert!(grown.iter().any(|&t| (t - h).abs() < tol), "h {h} not in {grown:?}"),
            None => prop_assert!(clear.is_empty(), "missed {clear:?}"),
        }
    }

    /// The first crossing of a ray given in ECEF is the brute force's first crossing (rays from above,
    /// grazing rays and rays from below, random directions).
    #[test]
    fn rays_match_brute_force(s in grid_strategy(), fu in 0.0f64..1.0, fv in 0.0f64..1.0, h0 in -300.0f64..5000.0,
                              dir in prop::array::uniform3(-1.0f64..1.0), down in 0.0f64..1.5) {
        let hf = s.heightfield();
        let (o, d) = (hf.origin(), hf.spacing());
        let lon = o.x + fu * (hf.nx() - 1) as f64 * d.x;
        let lat = o.y + fv * (hf.ny() - 1) as f64 * d.y;
        let from = Geodetic::new(lon, lat, h0);
        let local = EnuFrame::new(from);
        let dir_enu = DVec3::from_array(dir) - DVec3::Z * down;
        prop_assume!(dir_enu.length() > 1e-3);
        let (oe, de) = (from.to_ecef(), local.dir_to_ecef(dir_enu));
        let tris = ecef_triangles(&s);
        let first = |eps: f64| brute(&tris, oe, de, eps).into_iter().filter(|&t| t >= 0.0).min_by(f64::total_cmp);
        let scale = 1e-6 * (1.0 + 1.0 / dir_enu.length());
        let got = s.raycast_ecef(oe, de, f64::INFINITY);
        if let Some(tc) = first(-1e-7) {
            let g = got.expect("a clear brute-force hit");
            prop_assert!(g.t <= tc + scale, "walk {} after brute {tc}", g.t);
        }
        if let Some(g) = got {
            let all = brute(&tris, oe, de, 1e-9);
            prop_assert!(all.iter().any(|&t| (t - g.t).abs() < scale), "walk t {} not in {all:?}", g.t);
            let tg = first(1e-9).unwrap();
            prop_assert!(g.t <= tg + scale || (g.t - tg).abs() < scale, "walk {} beyond first grown {tg}", g.t);
            // The same point in every system.
            prop_assert!((g.ecef - (oe + de * g.t)).length() < 1e-6);
            let back = ecef_to_geodetic(g.ecef);
            prop_assert!((back.h - g.point.geodetic.h).abs() < 1e-9);
        }
        // Geodetic input gives the same crossing.
        let gg = s.raycast_geodetic(from, dir_enu, f64::INFINITY);
        prop_assert_eq!(got.is_some(), gg.is_some());
        if let (Some(a), Some(b)) = (got, gg) {
            prop_assert!((a.t - b.t).abs() < scale);
        }
    }

    /// Rays aimed at a sample (a vertex shared by up to six triangles) or at a point of an edge
    /// chord (shared by two) from any direction above never slip through: they hit at or before it.
    #[test]
    fn aimed_at_vertices_and_edges(s in grid_with(Just(false)), pick in any::<u64>(), along in prop_oneof![Just(0.0), 0.0f64..1.0, Just(0.5)],
                                   dir in prop::array::uniform3(-1.0f64..1.0), edge in 0usize..3) {
        let hf = s.heightfield();
        let i = (pick % (hf.nx() as u64 - 1)) as usize;
        let j = ((pick >> 32) % (hf.ny() as u64 - 1)) as usize;
        let (di, dj) = [(1, 0), (0, 1), (1, 1)][edge];
        let a = s.sample_enu(i, j);
        let b = s.sample_enu(i + di, j + dj);
        // The (1, 1) edge exists only where it is the cell's diagonal; otherwise aim at the vertex.
        let along = if edge == 2 && hf.diagonal().is_anti(i, j) { 0.0 } else { along };
        let target = a + (b - a) * along;
        let d = (DVec3::from_array(dir) - DVec3::Z * 1.2).normalize();
        // The ray crosses the surface there rather than grazing a silhouette: every triangle of the
        // cells around faces it (steep cliffs seen from the side can be touched at a vertex only).
        for (ci, cj) in [(i.wrapping_sub(1), j.wrapping_sub(1)), (i, j.wrapping_sub(1)), (i.wrapping_sub(1), j), (i, j)] {
            for half in [Half::South, Half::North] {
                if let Some(v) = s.cell_triangle(ci, cj, half) {
                    let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
                    prop_assume!(n.dot(d).abs() > 0.05 && n.dot(d) * n.z < 0.0);
                }
            }
        }
        let ray = crate::Ray::new(target - d * 1000.0, d);
        let hit = s.raycast_enu(&ray, f64::INFINITY);
        prop_assert!(hit.is_some_and(|h| h.t <= 1000.0 + 1e-6), "{hit:?}");
    }

    /// At every sample the height is the sample (to rounding), and at any point of a triangle
    /// (taken in ECEF) the height at its (lon, lat) is its geodetic height.
    #[test]
    fn heights_at_samples_and_on_triangles(s in grid_strategy(), pick in any::<u64>(), w in prop::array::uniform2(0.0f64..1.0)) {
        let hf = s.heightfield();
        let (o, d) = (hf.origin(), hf.spacing());
        let i = (pick % hf.nx() as u64) as usize;
        let j = ((pick >> 32) % hf.ny() as u64) as usize;
        let z = hf.sample(i, j);
        // Rows at a pole are one point: their triangles there are degenerate.
        let pole = |lat: f64| lat.abs() == 90.0;
        // Some existing triangle has the sample as a corner (holes may remove all of them).
        let used = (i.saturating_sub(1)..=i.min(hf.nx() - 2)).any(|ci| (j.saturating_sub(1)..=j.min(hf.ny() - 2)).any(|cj| {
            [Half::South, Half::North].into_iter().any(|half| {
                let offs = crate::heightfield::cell::corner_offsets(hf.diagonal().is_anti(ci, cj), half);
                s.cell_triangle(ci, cj, half).is_some() && offs.iter().any(|&(di, dj)| (ci + di, cj + dj) == (i, j))
            })
        }));
        if used && !pole(o.y + j as f64 * d.y) {
            let h = s.height_at(o.x + i as f64 * d.x, o.y + j as f64 * d.y);
            prop_assert!(h.is_some_and(|h| (h - z as f64).abs() < 1e-6), "{h:?} vs {z}");
        }
        let (ci, cj) = (i.min(hf.nx() - 2), j.min(hf.ny() - 2));
        if let Some(v) = s.cell_triangle(ci, cj, Half::North) {
            let (a, b) = if w[0] + w[1] > 1.0 { (1.0 - w[0], 1.0 - w[1]) } else { (w[0], w[1]) };
            let p = s.frame().enu_to_geodetic(v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b);
            prop_assume!(!pole(p.lat) && !pole(o.y + cj as f64 * d.y) && !pole(o.y + (cj + 1) as f64 * d.y));
            let h = s.height_at(p.lon, p.lat);
            prop_assert!(h.is_some_and(|h| (h - p.h).abs() < 1e-6), "{h:?} vs {}", p.h);
        }
    }
}

/// `height_at` and the scalar path, bit for bit (where the CPU has AVX2, `height_at` takes it).
fn same_height_bits(s: &GeoSurface, lon: f64, lat: f64) -> Result<(), TestCaseError> {
    let (fast, scalar) = (s.height_at(lon, lat), s.height_at_scalar(lon, lat));
    prop_assert_eq!(fast.map(f64::to_bits), scalar.map(f64::to_bits), "({}, {}): {:?} vs {:?}", lon, lat, fast, scalar);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Heights through AVX2 are the scalar path's bit for bit: anywhere, on cell edges and at
    /// samples (the triangle's and the cell's borders, where the scalar path's neighbours decide),
    /// beyond the tile's edges, over holes, up to the poles, a turn away.
    #[test]
    fn avx2_heights_are_the_scalar_heights(s in grid_strategy(), pick in any::<u64>(), f in prop::array::uniform2(-0.05f64..1.05),
                                           on in prop::array::uniform2(prop_oneof![Just(0.0), Just(0.5), Just(1.0), 0.0f64..1.0]),
                                           turn in -1i32..=1) {
        let hf = s.heightfield();
        let (o, d) = (hf.origin(), hf.spacing());
        let lat = |v: f64| (o.y + v * d.y).clamp(-90.0, 90.0);
        let (nx, ny) = ((hf.nx() - 1) as f64, (hf.ny() - 1) as f64);
        same_height_bits(&s, o.x + f[0] * nx * d.x + 360.0 * turn as f64, lat(f[1] * ny))?;
        let (i, j) = ((pick % (hf.nx() - 1) as u64) as f64, ((pick >> 32) % (hf.ny() - 1) as u64) as f64);
        same_height_bits(&s, o.x + (i + on[0]) * d.x, lat(j + on[1]))?;
        // Along the cell's diagonals.
        same_height_bits(&s, o.x + (i + on[0]) * d.x, lat(j + on[0]))?;
        same_height_bits(&s, o.x + (i + on[0]) * d.x, lat(j + 1.0 - on[0]))?;
    }
}

/// Where the ellipsoid normal is not mostly up in the surface's frame (a grid 150° wide) and at the
/// poles, `height_at` takes the scalar path: the same bits.
#[test]
fn avx2_heights_on_wide_grids_and_at_the_poles() {
    let s = surface((-75.0, -20.0), (151, 11), 1.0, 800.0, 5, false);
    for k in 0..=300 {
        let lon = -75.3 + k as f64 * 0.502;
        same_height_bits(&s, lon, -20.0 + (k % 9) as f64).unwrap();
    }
    let p = surface((10.0, 89.5), (31, 31), 0.5 / 30.0 / 0.8, 100.0, 4, false);
    for (lon, lat) in [(123.0, 90.0), (10.2, 89.9), (10.0, 89.5), (10.5, 90.0)] {
        same_height_bits(&p, lon, lat).unwrap();
    }
}

/// The Terrain view (ENU, z up) agrees with the geodetic queries: the vertical line's surface and
/// candidate triangles.
#[test]
fn terrain_in_enu_agrees() {
    let s = surface((6.0, 45.0), (40, 30), 0.01, 800.0, 7, true);
    let mut n = 0;
    for k in 0..300 {
        let (lon, lat) = (6.0 + (k % 20) as f64 * 0.0193, 45.0 + (k / 20) as f64 * 0.0151);
        let Some(g) = s.surface_at(lon, lat) else { continue };
        n += 1;
        let top = s.top_surface(g.enu + DVec3::Z * 50.0).expect("surface on the ENU vertical");
        // Not the same point (the frame's vertical is not the ellipsoid normal), but on the surface.
        let q = s.frame().enu_to_geodetic(top.point);
        assert!((s.height_at(q.lon, q.lat).unwrap() - q.h).abs() < 1e-6);
        let mut found = false;
        s.triangles_in(&crate::Aabb::new(g.enu - 1.0, g.enu + 1.0), &mut |id, _| found |= id == g.triangle);
        assert!(found, "candidates miss the point's triangle");
    }
    assert!(n > 150, "{n}");
}

/// A 1° × 1° tile is about 111 km north–south and 78.8 km east–west at 45° N in its ENU frame.
#[test]
fn a_one_degree_tile_has_its_true_size() {
    let hf = Heightfield::builder(121, 121, vec![0.0; 121 * 121])
        .origin(10.0, 44.5)
        .spacing(1.0 / 120.0, 1.0 / 120.0)
        .build()
        .unwrap();
    let s = GeoSurface::new(hf).unwrap();
    let ns = (s.sample_enu(60, 120) - s.sample_enu(60, 0)).length();
    let ew = (s.sample_enu(120, 60) - s.sample_enu(0, 60)).length();
    assert!((ns - 111_132.0).abs() < 50.0, "{ns}");
    assert!((ew - 78_847.0).abs() < 50.0, "{ew}");
}

/// The flat-sea geometry under the viewshed: on a 1° × 1° raster at h = 0, the straight segment
/// between two points 10 m above it stays clear at 20 km apart and meets the surface at 30 km
/// (the chord between them sags d²/8R: 7.8 m at 20 km, 17.7 m at 30 km).
#[test]
fn flat_sea_horizon_geometry() {
    let hf = Heightfield::builder(121, 121, vec![0.0; 121 * 121])
        .origin(-3.5, 50.0)
        .spacing(1.0 / 120.0, 1.0 / 120.0)
        .build()
        .unwrap();
    let s = GeoSurface::new(hf).unwrap();
    for (dist, clear) in [(20_000.0, true), (30_000.0, false)] {
        let half = dist / 2.0 / 111_250.0;
        let (a, b) = (Geodetic::new(-3.0, 50.5 - half, 10.0), Geodetic::new(-3.0, 50.5 + half, 10.0));
        let d = (a.to_ecef() - b.to_ecef()).length();
        assert!((d - dist).abs() < 100.0, "{d}");
        assert_eq!(s.visible(a, b), clear, "{dist} m");
        assert_eq!(s.visible(b, a), clear, "{dist} m, reversed");
        // East–west as well.
        let dl = half * 2.0 / (50.5f64).to_radians().cos();
        let (a, b) = (Geodetic::new(-3.0 - dl / 2.0, 50.5, 10.0), Geodetic::new(-3.0 + dl / 2.0, 50.5, 10.0));
        assert_eq!(s.visible(a, b), clear, "{dist} m east–west");
    }
}

/// A tile across the antimeridian answers longitudes on either side of ±180°, and a tile touching
/// the pole answers up to 90° N.
#[test]
fn antimeridian_and_pole() {
    let s = surface((179.5, -17.0), (61, 41), 1.0 / 60.0, 300.0, 3, false);
    let a = s.height_at(-179.8, -16.7).unwrap();
    assert_eq!(Some(a), s.height_at(180.2, -16.7));
    let hit = s.raycast_geodetic(Geodetic::new(-179.8, -16.7, 5000.0), DVec3::NEG_Z, f64::INFINITY).unwrap();
    assert!((hit.point.geodetic.h - a).abs() < 1e-6 && (hit.point.geodetic.lon - 180.2).abs() < 1e-9);
    let p = surface((10.0, 89.5), (31, 31), 0.5 / 30.0 / 0.8, 100.0, 4, false);
    assert!(p.height_at(123.0, 90.0).is_some());
    assert!(p.height_at(10.2, 89.9).is_some());
}

/// Grids that are not in degrees are refused with the reason.
#[test]
fn refuses_grids_not_in_degrees() {
    let hf = |ox: f64, oy: f64, d: f64| {
        Heightfield::builder(3, 3, vec![0.0; 9]).origin(ox, oy).spacing(d, d).build().unwrap()
    };
    assert!(matches!(GeoSurface::new(hf(500_000.0, 4_000_000.0, 30.0)), Err(GeoError::Latitude { .. })));
    assert!(matches!(GeoSurface::new(hf(0.0, 0.0, 2.0)), Err(GeoError::CellTooLarge { .. })));
    assert!(GeoSurface::with_leaf(hf(0.0, 0.0, 0.1), 9).is_err());
}

/// The strip walk's first hit is the box-tree descent's: the same t bit for bit, or to rounding
/// where a line through a shared edge takes the other triangle.
fn same_first_hit(s: &GeoSurface, ray: &crate::Ray, max_t: f64) -> Result<(), TestCaseError> {
    let (got, want) = (s.raycast_enu(ray, max_t), s.raycast_enu_descent(ray, max_t));
    match (got, want) {
        (Some(g), Some(w)) => {
            prop_assert!(g.t == w.t || (g.t - w.t).abs() < 1e-9 * (1.0 + w.t), "{} vs {}", g.t, w.t);
            // On the same triangle, the same normal bit for bit (the strip walk hands over the
            // vertices it tested; the descent maps them again).
            if g.triangle == w.triangle {
                prop_assert_eq!(g.normal, w.normal);
            }
        }
        (None, None) => {}
        _ => prop_assert!(false, "strip walk {got:?}, descent {want:?}"),
    }
    Ok(())
}

/// The strip walk's crossings of `ray` over [lo, hi] are the descent's, in order.
fn same_crossings(s: &GeoSurface, ray: &crate::Ray, lo: f64, hi: f64) -> Result<(), TestCaseError> {
    let (mut got, mut want) = (Vec::new(), Vec::new());
    s.crossings_enu(ray, lo, hi, |h| got.push(h.t));
    s.crossings_enu_descent(ray, lo, hi, |h| want.push(h.t));
    prop_assert_eq!(got.len(), want.len(), "{:?} vs {:?}", got, want);
    for (g, w) in got.iter().zip(&want) {
        prop_assert!((g - w).abs() < 1e-6 * (1.0 + w.abs()), "{:?} vs {:?}", got, want);
    }
    Ok(())
}

/// A ray of one of the kinds the strip walk must not lose a triangle on, aimed at a point of the
/// surface or beside it: 0 random, 1 along a meridian, 2 along a parallel, 3 nearly vertical,
/// 4 grazing (nearly level), 5 from outside the tile; the aim on a column line (a meridian plane),
/// a row line, a sample, or anywhere.
fn strip_ray(s: &GeoSurface, kind: usize, aim: usize, pick: u64, f: [f64; 4]) -> (DVec3, DVec3) {
    let hf = s.heightfield();
    let (o, d) = (hf.origin(), hf.spacing());
    let i = (pick % (hf.nx() as u64 - 1)) as usize;
    let j = ((pick >> 32) % (hf.ny() as u64 - 1)) as usize;
    let (u, v) = match aim {
        0 => (i as f64, j as f64 + f[0]),
        1 => (i as f64 + f[0], j as f64),
        2 => (i as f64, j as f64),
        _ => (i as f64 + f[0], j as f64 + f[1]),
    };
    let (lon, lat) = (o.x + u * d.x, o.y + v * d.y);
    let h = s.height_at(lon, lat).unwrap_or(0.0) + (f[2] - 0.3) * 50.0;
    let target = Geodetic::new(lon, lat, h);
    let az = f[3] * std::f64::consts::TAU;
    let dir = match kind {
        1 => DVec3::new(0.0, if f[3] > 0.5 { 1.0 } else { -1.0 }, -0.02 * f[1]),
        2 => DVec3::new(if f[3] > 0.5 { 1.0 } else { -1.0 }, 0.0, -0.02 * f[1]),
        3 => DVec3::new(az.cos() * 1e-4 * f[1], az.sin() * 1e-4 * f[1], -1.0),
        4 => DVec3::new(az.cos(), az.sin(), -1e-3 * f[1]),
        _ => DVec3::new(az.cos(), az.sin(), -0.2 - f[1]),
    };
    let local = EnuFrame::new(target);
    let de = local.dir_to_ecef(dir.normalize());
    // Back along the ray: a few cells, or far outside the tile (kind 5).
    let span = (hf.nx() + hf.ny()) as f64 * d.x.max(d.y) * 111_000.0;
    let back = if kind == 5 { span * (1.0 + f[0]) } else { 3.0 * d.y * 111_000.0 * (0.1 + f[0]) };
    (target.to_ecef() - de * back, de)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// The strip walk finds what the box-tree descent finds, the same t bit for bit (to rounding
    /// where a line through a shared edge takes the other triangle), for rays along meridians and
    /// parallels, nearly vertical, grazing, from outside the tile, aimed at column lines, row lines
    /// and samples.
    #[test]
    fn strip_walk_matches_the_descent(s in grid_strategy(), kind in 0usize..6, aim in 0usize..4, pick in any::<u64>(),
                                      f in prop::array::uniform4(0.0f64..1.0), max_t in prop_oneof![Just(f64::INFINITY), 10.0f64..5e4]) {
        let (oe, de) = strip_ray(&s, kind, aim, pick, f);
        let fr = s.frame();
        let ray = crate::Ray::new(fr.to_enu(oe), fr.dir_to_enu(de));
        same_first_hit(&s, &ray, max_t)?;
    }

    /// Every crossing of a whole line (both ways) by the strip walk is the descent's.
    #[test]
    fn strip_walk_crossings_match(s in grid_strategy(), kind in 0usize..6, aim in 0usize..4, pick in any::<u64>(),
                                  f in prop::array::uniform4(0.0f64..1.0)) {
        let (oe, de) = strip_ray(&s, kind, aim, pick, f);
        let fr = s.frame();
        let ray = crate::Ray::new(fr.to_enu(oe), fr.dir_to_enu(de));
        let mut a = Vec::new();
        s.crossings_enu(&ray, f64::NEG_INFINITY, f64::INFINITY, |h| a.push(h.t));
        // The brute force (ECEF, every triangle) sees every clear crossing.
        // (t on a triangle the line meets at a grazing angle moves by the vertices' rounding over
        // the angle's sine.)
        for (_, v) in ecef_triangles(&s) {
            if let Some(t) = moller_trumbore_grown(oe, de, &v, -1e-7) {
                let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
                let tol = 1e-6 / n.dot(de).abs().max(1e-6);
                prop_assert!(a.iter().any(|&x| (x - t).abs() < tol), "crossing {t} missed: {a:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// On grids of several top wedges (the walk climbs and descends between them), the strip walk
    /// finds what the descent finds for rays that start on a wedge border (a column line of 1, 4,
    /// 16 or 64 columns), nearly along the ellipsoid normal there (the meridian planes barely
    /// separate it), along the meridian across many rows (runs halved), along the parallel, or
    /// anywhere, either way.
    #[test]
    fn strip_walk_climbs_like_the_descent(lon0 in -179.0f64..178.0, lat0 in prop_oneof![-75.0f64..75.0, Just(84.0), Just(-85.0)],
                                          nx in 66usize..150, ny in 30usize..150, step in prop_oneof![0.0005f64..0.008, Just(1.0 / 3600.0)],
                                          relief in prop_oneof![1.0f32..50.0, 500.0f32..4000.0], seed in any::<u64>(), holes in any::<bool>(),
                                          border in 0u32..4, pick in any::<u64>(), kind in 0usize..5,
                                          f in prop::array::uniform4(0.0f64..1.0), max_t in prop_oneof![Just(f64::INFINITY), 10.0f64..5e4]) {
        let s = surface((lon0, lat0), (nx, ny), step, relief, seed, holes);
        prop_assume!(s.has_strip_walk());
        let w = 4usize.pow(border);
        let i = ((pick as usize) % (nx - 1)) / w * w;
        let j = ((pick >> 32) as usize) % ny;
        let (lon, lat) = (lon0 + i as f64 * step, lat0 + j as f64 * step);
        let h = s.height_at(lon, lat).unwrap_or(0.0) + f[0] * 3000.0 - 100.0;
        let az = f[3] * std::f64::consts::TAU;
        let sign = if f[2] > 0.5 { 1.0 } else { -1.0 };
        let dir = match kind {
            0 => DVec3::new(az.cos() * 1e-9 * f[1], az.sin() * 1e-9 * f[1], sign),
            1 => DVec3::new(az.cos() * 1e-4, az.sin() * 1e-4, -1.0),
            2 => DVec3::new(1e-7 * (f[1] - 0.5), sign, -0.05 * f[1]),
            3 => DVec3::new(sign, 0.0, -0.05 * f[1]),
            _ => DVec3::new(az.cos(), az.sin(), -0.02 - f[1]),
        };
        let start = Geodetic::new(lon, lat, h);
        let de = EnuFrame::new(start).dir_to_ecef(dir.normalize());
        let fr = s.frame();
        let ray = crate::Ray::new(fr.to_enu(start.to_ecef()), fr.dir_to_enu(de));
        same_first_hit(&s, &ray, max_t)?;
        // And every crossing of the whole line, both ways.
        same_crossings(&s, &ray, f64::NEG_INFINITY, f64::INFINITY)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// An end's block lines, stepped from the Newton guess, are the linear scan's (the first line
    /// with s ≤ m and the first with s ≤ −m) for every level and margin, every guess (the first
    /// row, the last, anywhere), and points over the tile, beyond its edges by up to half its size,
    /// on and next to row lines, high and low.
    #[test]
    fn block_lines_are_the_scan(s in grid_strategy(), fu in -0.5f64..1.5, fv in prop_oneof![-0.5f64..1.5, Just(0.0), Just(1.0)],
                                on_row in any::<bool>(), nudge in prop_oneof![Just(0.0), -1e-9f64..1e-9, -1e-3f64..1e-3],
                                h in prop_oneof![-500.0f64..9000.0, Just(0.0)], guess in prop_oneof![Just(0usize), Just(usize::MAX), any::<usize>()],
                                level in 0usize..3, wide in prop_oneof![Just(1.0), 1.0f64..1e4]) {
        prop_assume!(s.has_strip_walk());
        let st = s.strips.as_ref().unwrap();
        let hf = s.heightfield();
        let (o, sp, ncy) = (hf.origin(), hf.spacing(), hf.ny() - 1);
        let level = level.min(st.top);
        let mut v = fv * ncy as f64;
        if on_row {
            v = v.round();
        }
        let lat = o.y + (v + nudge) * sp.y;
        let lon = o.x + fu * (hf.nx() - 1) as f64 * sp.x;
        prop_assume!(lat.abs() < 89.0);
        let p = Geodetic::new(lon, lat, h).to_ecef();
        let (r, z) = ((p.x * p.x + p.y * p.y).sqrt(), p.z);
        let sh = 2 * level as u32;
        let m = st.margin[level] * wide;
        let nb = (ncy + (1 << sh) - 1) >> sh;
        let line = |b: usize| st.s((b << sh).min(ncy), r, z);
        let first = (0..=nb).find(|&b| line(b) <= m).unwrap_or(nb + 1);
        let second = (first..=nb).find(|&b| line(b) <= -m).unwrap_or(nb + 1);
        let mut g = guess % (ncy + 1);
        prop_assert_eq!(st.block_lines(sh, r, z, m, &mut g), (first, second));
        prop_assert!(g <= ncy);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// The start column, guessed from the longitude and stepped on the meridian planes, is the
    /// bisection's on the planes (the first column going east whose widened wedge may hold the
    /// point, the last going west), for points over the tile and beyond its west and east edges,
    /// exactly on column lines and a hair beside them, high and low, either way.
    #[test]
    fn start_column_is_the_bisection(s in grid_strategy(), fu in prop_oneof![-0.5f64..1.5, Just(0.0), Just(1.0)], fv in -0.2f64..1.2,
                                     on_col in any::<bool>(), nudge in prop_oneof![Just(0.0), -1e-9f64..1e-9, -1e-6f64..1e-6],
                                     h in prop_oneof![-500.0f64..9000.0, Just(0.0)], east in any::<bool>()) {
        prop_assume!(s.has_strip_walk());
        let st = s.strips.as_ref().unwrap();
        let hf = s.heightfield();
        let (o, sp, ncx) = (hf.origin(), hf.spacing(), hf.nx() - 1);
        let mut u = fu * ncx as f64;
        if on_col {
            u = u.round();
        }
        let lon = o.x + (u + nudge) * sp.x;
        let lat = o.y + fv * (hf.ny() - 1) as f64 * sp.y;
        prop_assume!(lat.abs() < 89.0);
        let p = Geodetic::new(lon, lat, h).to_ecef();
        let g = |c: usize| {
            let [cl, sl] = st.cols[c];
            cl * p.y - sl * p.x
        };
        let mu = super::strips::MU;
        let (mut lo, mut hi) = (0, ncx - 1);
        while lo < hi {
            if east {
                let mid = (lo + hi) / 2;
                if g(mid + 1) <= mu { hi = mid } else { lo = mid + 1 }
            } else {
                let mid = (lo + hi).div_ceil(2);
                if g(mid) >= -mu { lo = mid } else { hi = mid - 1 }
            }
        }
        prop_assert_eq!(st.start_column(p, east), lo);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Lines of sight (the walk starts in the start's column and stays low past walked cells): on
    /// grids of several top wedges, across the antimeridian too, segments between points 0–5 m
    /// above the ground, on column lines of 1, 4 or 16 columns, at the tile's west and east edges
    /// or anywhere, along meridians, along parallels or anywhere: the strip walk's first hit is
    /// the descent's, and so is every crossing of the segment.
    #[test]
    fn lines_of_sight_match_the_descent(lon0 in prop_oneof![-179.0f64..178.0, Just(179.5)], lat0 in -75.0f64..75.0,
                                        nx in 66usize..150, ny in 30usize..150, step in prop_oneof![0.0005f64..0.008, Just(1.0 / 3600.0)],
                                        relief in prop_oneof![1.0f32..50.0, 500.0f32..4000.0], seed in any::<u64>(), holes in any::<bool>(),
                                        ends in prop::array::uniform2(0usize..5), picks in prop::array::uniform2(any::<u64>()),
                                        up in prop::array::uniform2(prop_oneof![Just(0.0), 0.0f64..5.0]), kind in 0usize..3) {
        let s = surface((lon0, lat0), (nx, ny), step, relief, seed, holes);
        prop_assume!(s.has_strip_walk());
        let at = |e: usize, pick: u64| {
            let i = match e {
                0 => 0,
                1 => nx - 1,
                2..=4 => ((pick as usize) % nx) / 4usize.pow(e as u32 - 2) * 4usize.pow(e as u32 - 2),
                _ => unreachable!(),
            };
            let j = ((pick >> 32) as usize) % ny;
            (lon0 + i as f64 * step, lat0 + j as f64 * step * 0.8)
        };
        let (a, mut b) = (at(ends[0], picks[0]), at(ends[1], picks[1]));
        match kind {
            0 => b.0 = a.0,
            1 => b.1 = a.1,
            _ => {}
        }
        let geo = |(lon, lat): (f64, f64), up: f64| Geodetic::new(lon, lat, s.height_at(lon, lat).unwrap_or(0.0) + up);
        let fr = s.frame();
        let (pa, pb) = (fr.to_enu(geo(a, up[0]).to_ecef()), fr.to_enu(geo(b, up[1]).to_ecef()));
        prop_assume!(pa != pb);
        let ray = crate::Ray::new(pa, pb - pa);
        same_first_hit(&s, &ray, 1.0)?;
        same_crossings(&s, &ray, 0.0, 1.0)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Lines of sight where the walk stops (at the wedge that holds the end) and its bounds are
    /// tightest: from a point 0–5 m above the ground, ended by `max_t` exactly where the segment
    /// crosses a column line of 1, 4 or 16 columns (its meridian plane), or ending on the highest
    /// sample of a block of 1, 4 or 16 cells (grazing it), on grids with and without holes: the
    /// strip walk's first hit and crossings are the descent's.
    #[test]
    fn lines_of_sight_ending_on_column_lines_and_block_tops(s in grid_with(any::<bool>()), picks in prop::array::uniform2(any::<u64>()),
                                                           e in 0u32..3, top in any::<bool>(), up in prop_oneof![Just(0.0), 0.0f64..5.0]) {
        prop_assume!(s.has_strip_walk());
        let st = s.strips.as_ref().unwrap();
        let hf = s.heightfield();
        let (o, sp, ncx, ncy) = (hf.origin(), hf.spacing(), hf.nx() - 1, hf.ny() - 1);
        let fr = s.frame();
        let ground = |i: usize, j: usize, up: f64| {
            let (lon, lat) = (o.x + i as f64 * sp.x, o.y + j as f64 * sp.y);
            fr.to_enu(Geodetic::new(lon, lat, s.height_at(lon, lat).unwrap_or(0.0) + up).to_ecef())
        };
        let a = ground(picks[0] as usize % (ncx + 1), (picks[0] >> 32) as usize % (ncy + 1), up);
        let w = 4usize.pow(e);
        let (b, max_t) = if top {
            // The highest sample of a block (its samples' corners included), exactly.
            let (bi, bj) = ((picks[1] as usize % ncx) / w, ((picks[1] >> 32) as usize % ncy) / w);
            let mut best = None;
            for j in bj * w..=((bj + 1) * w).min(ncy) {
                for i in bi * w..=((bi + 1) * w).min(ncx) {
                    let h = hf.sample(i, j);
                    if !h.is_nan() && best.is_none_or(|(_, _, b)| h > b) {
                        best = Some((i, j, h));
                    }
                }
            }
            let Some((i, j, h)) = best else { return Ok(()) };
            let p = Geodetic::new(o.x + i as f64 * sp.x, o.y + j as f64 * sp.y, h as f64);
            (fr.to_enu(p.to_ecef()), 1.0)
        } else {
            // Past a column line, cut at its meridian plane (g = 0 along the ECEF segment).
            let b = ground(picks[1] as usize % (ncx + 1), (picks[1] >> 32) as usize % (ncy + 1), up);
            let c = ((picks[1] >> 16) as usize % (ncx + 1)) / w * w;
            let (x0, d) = (fr.to_ecef(a), fr.dir_to_ecef(b - a));
            let [cl, sl] = st.cols[c];
            let t = -(cl * x0.y - sl * x0.x) / (cl * d.y - sl * d.x);
            prop_assume!(t > 0.0 && t <= 1.0);
            (b, t)
        };
        prop_assume!(a != b);
        let ray = crate::Ray::new(a, b - a);
        same_first_hit(&s, &ray, max_t)?;
        same_crossings(&s, &ray, 0.0, max_t)?;
    }
}

/// The strip walk serves ordinary tiles and leaves the poles and wide grids to the descent.
#[test]
fn strip_walk_serves_tiles_away_from_the_poles() {
    assert!(surface((7.0, 46.0), (21, 21), 0.01, 500.0, 1, false).has_strip_walk());
    assert!(surface((179.5, -17.0), (61, 41), 1.0 / 60.0, 300.0, 3, false).has_strip_walk());
    assert!(!surface((10.0, 89.5), (31, 31), 0.5 / 30.0 / 0.8, 100.0, 4, false).has_strip_walk());
    assert!(!surface((0.0, 0.0), (21, 21), 0.9, 100.0, 4, false).has_strip_walk());
}

/// `extra_memory` bounds what a surface adds beside its heightfield (thin, square and holed grids,
/// leaves of every size up to the default), and is not a gross overestimate.
#[test]
fn extra_memory_bounds_the_tables() {
    for (nx, ny) in [(2, 2), (3, 900), (900, 3), (5, 5), (97, 301), (513, 257), (1025, 1025)] {
        for holes in [false, true] {
            let s = surface((7.0, 46.0), (nx, ny), 1.0 / 3600.0, 800.0, 9, holes);
            let extra = s.memory_bytes() - s.heightfield().memory_bytes();
            let bound = GeoSurface::extra_memory(nx, ny);
            assert!(extra <= bound && bound <= extra * 2 + 16_384, "{nx} × {ny}: {extra} > {bound}");
        }
    }
}
