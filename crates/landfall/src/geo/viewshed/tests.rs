use super::sight::TOUCH;
use super::*;
use crate::geo::Geodetic;
use crate::viewshed::viewshed;
use crate::{Diagonal, Heightfield};
use proptest::prelude::*;

fn surface(nx: usize, ny: usize, h: Vec<f32>, origin: (f64, f64), step: f64, diagonal: Diagonal) -> GeoSurface {
    let hf = Heightfield::builder(nx, ny, h)
        .origin(origin.0, origin.1)
        .spacing(step, step)
        .diagonal(diagonal)
        .build()
        .unwrap();
    GeoSurface::new(hf).unwrap()
}

fn vis(s: &GeoSurface, o: Observer, p: &ViewshedParams) -> Grid<u8> {
    match viewshed(s, &[o], p, ViewshedMode::Visibility, &Hooks::default()).unwrap() {
        ViewshedOutput::Visibility(v, _) => v,
        _ => unreachable!(),
    }
}

/// Distance (m) along the parallel at `lat` between longitudes differing by `dlon` degrees:
/// the chord between the points on the ellipsoid.
fn chord(lon: f64, lat: f64, dlon: f64) -> f64 {
    (crate::geo::wgs84::geodetic_to_ecef(lon + dlon, lat, 0.0) - crate::geo::wgs84::geodetic_to_ecef(lon, lat, 0.0))
        .length()
}

/// The test: flat sea level over 1° × 1° in degrees, two observers 10 m up see each other
/// at 20 km, not at 30 km; the horizon is at 2·√(2Rh) ≈ 22.6 km, ≈ 24.4 km with refraction 1/7.
#[test]
fn masts_at_sea_see_each_other_within_the_horizon() {
    // 0.0025° steps: 401 × 401 samples over 1° × 1° at 45°–46° N.
    let n = 401;
    let step = 1.0 / 400.0;
    let s = surface(n, n, vec![0.0; n * n], (10.0, 45.0), step, Diagonal::Alternating);
    let lat = 45.5;
    let (i0, j) = (40, 200);
    let lon0 = 10.0 + i0 as f64 * step;
    for (k, horizon) in [(0.0, 22_600.0), (1.0 / 7.0, 24_400.0)] {
        let p = ViewshedParams { observer_height: 10.0, target_height: 10.0, refraction: k, ..Default::default() };
        let v = vis(&s, Observer::at(lon0, lat), &p);
        let mut last_seen = 0.0;
        let mut first_hidden = f64::INFINITY;
        for i in i0 + 1..n {
            let d = chord(lon0, lat, (i - i0) as f64 * step);
            if v.get(i, j) == VISIBLE {
                last_seen = f64::max(last_seen, d);
            } else {
                assert_eq!(v.get(i, j), HIDDEN);
                first_hidden = first_hidden.min(d);
            }
        }
        assert!(
            last_seen > 20_000.0 && first_hidden < 30_000.0,
            "K {k}: seen to {last_seen}, hidden from {first_hidden}"
        );
        // Sea level is a chord surface (sags ≈ 5 mm between samples): the horizon within 0.3 %.
        assert!(
            (last_seen - horizon).abs() < 200.0 && first_hidden - last_seen < 250.0,
            "K {k}: {last_seen} {first_hidden}"
        );
        let mid = 2.0 * (2.0 * crate::viewshed::EARTH_RADIUS / (1.0 - k) * 10.0).sqrt();
        // R is the mean radius; the ellipsoid's east–west radius of curvature at 45.5° N is 0.3 %
        // larger, so is the horizon (≈ 35 m).
        assert!(
            last_seen <= mid + 100.0 && first_hidden >= mid - 30.0,
            "K {k}: horizon {mid} not in [{last_seen}, {first_hidden}]"
        );
    }
}

/// Random geographic rasters: heights, holes, observers anywhere or on samples and edges.
#[derive(Clone, Debug)]
struct Case {
    nx: usize,
    ny: usize,
    h: Vec<f32>,
    origin: (f64, f64),
    step: f64,
    diagonal: Diagonal,
    obs: (f64, f64),
    params: ViewshedParams,
}

fn case() -> impl Strategy<Value = Case> {
    (4usize..11, 4usize..11, -179.0f64..179.0, -80.0f64..79.0, prop_oneof![Just(0.0003), Just(0.002), 0.0001f64..0.05])
        .prop_flat_map(|(nx, ny, lon, lat, step)| {
            let heights = prop::collection::vec(
                prop_oneof![8 => 0.0f32..300.0, 2 => Just(100.0f32), 1 => Just(f32::NAN)],
                nx * ny,
            );
            let obs = prop_oneof![
                (0.0f64..=1.0, 0.0f64..=1.0).prop_map(|(a, b)| (a, b)),
                (0..nx, 0..ny).prop_map(move |(i, j)| (i as f64 / (nx - 1) as f64, j as f64 / (ny - 1) as f64)),
                (0..nx, 0.0f64..=1.0).prop_map(move |(i, b)| (i as f64 / (nx - 1) as f64, b)),
            ];
            let params = (
                prop_oneof![Just(0.0), Just(1.75), 0.0f64..50.0],
                prop_oneof![Just(0.0), 0.0f64..20.0],
                prop_oneof![Just(0.0), Just(1.0 / 7.0), -0.5f64..0.9],
                prop_oneof![3 => Just(None), 1 => (0.0f64..360.0, 0.0f64..360.0).prop_map(Some)],
                prop_oneof![3 => Just(f64::INFINITY), 1 => 10.0f64..20000.0],
            );
            let diag = prop_oneof![
                Just(Diagonal::Alternating),
                Just(Diagonal::SouthWestNorthEast),
                Just(Diagonal::SouthEastNorthWest)
            ];
            (Just((nx, ny, lon, lat, step)), heights, obs, params, diag)
        })
        .prop_map(|((nx, ny, lon, lat, step), h, obs, (oh, th, k, az, md), diagonal)| {
            let params = ViewshedParams {
                observer_height: oh,
                target_height: th,
                refraction: k,
                azimuths: az,
                max_distance: md,
                ..Default::default()
            };
            let o = (lon + obs.0 * (nx - 1) as f64 * step, lat + obs.1 * (ny - 1) as f64 * step);
            Case { nx, ny, h, origin: (lon, lat), step, diagonal, obs: o, params }
        })
}

fn both(c: &Case, mode: ViewshedMode) -> Option<(ViewshedOutput, ViewshedOutput)> {
    let s = surface(c.nx, c.ny, c.h.clone(), c.origin, c.step, c.diagonal);
    let o = [Observer::at(c.obs.0, c.obs.1)];
    let fast = viewshed(&s, &o, &c.params, mode, &Hooks::default());
    let slow = geo_viewshed_reference(&s, &o, &c.params, mode);
    match (fast, slow) {
        (Ok(a), Ok(b)) => Some((a, b)),
        (Err(a), Err(b)) => {
            assert_eq!(a, b);
            None
        }
        (a, b) => panic!("{a:?} vs {b:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The box-tree descent equals every triangle tested, in every mode.
    #[test]
    fn equals_the_brute_force_reference(c in case()) {
        for mode in [ViewshedMode::Visibility, ViewshedMode::HeightFromGround] {
            if let Some((a, b)) = both(&c, mode) {
                match (a, b) {
                    (ViewshedOutput::Visibility(a, _), ViewshedOutput::Visibility(b, _)) => prop_assert_eq!(a.values, b.values),
                    (ViewshedOutput::Heights(a), ViewshedOutput::Heights(b)) => {
                        for (x, y) in a.values.iter().zip(&b.values) {
                            prop_assert!(x.to_bits() == y.to_bits(), "{x} vs {y}");
                        }
                    }
                    _ => unreachable!(),
                }
            }
        }
    }

    /// On rasters without holes, with the eye and the targets above the ground, the answer is the
    /// ECEF segment test of `GeoSurface::visible` wherever the margin is not a rounding tie, and
    /// the needed height is where visibility flips.
    #[test]
    fn agrees_with_the_segment_test(mut c in case()) {
        for h in c.h.iter_mut() {
            if h.is_nan() { *h = 50.0; }
        }
        c.params.observer_height = c.params.observer_height.max(0.5);
        c.params.target_height = c.params.target_height.max(0.5);
        c.params.refraction = 0.0;
        let s = surface(c.nx, c.ny, c.h.clone(), c.origin, c.step, c.diagonal);
        let o = [Observer::at(c.obs.0, c.obs.1)];
        let ViewshedOutput::Visibility(v, _) = viewshed(&s, &o, &c.params, ViewshedMode::Visibility, &Hooks::default()).unwrap() else { unreachable!() };
        let ViewshedOutput::Heights(need) = viewshed(&s, &o, &c.params, ViewshedMode::HeightFromGround, &Hooks::default()).unwrap() else { unreachable!() };
        let g = s.height_at(c.obs.0, c.obs.1).unwrap();
        let eye = Geodetic::new(c.obs.0, c.obs.1, g + c.params.observer_height);
        let th = c.params.target_height;
        for j in 0..c.ny {
            for i in 0..c.nx {
                let k = j * c.nx + i;
                if v.values[k] == NODATA {
                    prop_assert!(need.values[k].is_nan());
                    continue;
                }
                let n = need.values[k];
                prop_assert_eq!(v.values[k] == VISIBLE, th > n - TOUCH, "needed {} target {}", n, th);
                // Rounding ties, and sight lines along the grid's border (where the segment test
                // grows the border triangles by its own tolerance).
                let along = |k: usize, m: usize, o: f64| (k == 0 || k == m - 1) && (o - k as f64).abs() < 1e-6;
                let (oi, oj) = ((c.obs.0 - c.origin.0) / c.step, (c.obs.1 - c.origin.1) / c.step);
                if (n - th).abs() < 1e-4 || along(i, c.nx, oi) || along(j, c.ny, oj) {
                    continue;
                }
                let (lon, lat) = (c.origin.0 + i as f64 * c.step, c.origin.1 + j as f64 * c.step);
                let p = Geodetic::new(lon, lat, s.heightfield().sample(i, j) as f64 + th);
                prop_assert_eq!(s.visible(eye, p), v.values[k] == VISIBLE, "({}, {}) needed {}", i, j, n);
            }
        }
    }
}

/// Many observers: each count is the sum of the single viewsheds.
#[test]
fn counts_are_sums_of_single_viewsheds() {
    let n = 9;
    let h: Vec<f32> = (0..n * n).map(|k| ((k * 37 % 11) as f32) * 20.0).collect();
    let s = surface(n, n, h, (5.0, 60.0), 0.01, Diagonal::Alternating);
    let obs = [Observer::at(5.03, 60.02), Observer::at(5.07, 60.07).with_height(30.0), Observer::at(5.0, 60.0)];
    let p = ViewshedParams::default();
    let ViewshedOutput::Counts(c) = viewshed(&s, &obs, &p, ViewshedMode::Count, &Hooks::default()).unwrap() else {
        unreachable!()
    };
    let singles: Vec<Grid<u8>> = obs.iter().map(|&o| vis(&s, o, &p)).collect();
    for k in 0..n * n {
        let seen = singles.iter().filter(|v| v.values[k] == VISIBLE).count() as u32;
        assert_eq!(c.values[k], Some(seen));
    }
}

/// An eye on the ground of a level plateau sees no other sample of it: on the ECEF model every
/// segment between two points of the plateau runs below its chord triangles (the amended
/// definition's "on or below").
#[test]
fn an_eye_on_the_ground_of_a_plateau_sees_only_its_neighbours() {
    let n = 7;
    let s = surface(n, n, vec![100.0; n * n], (0.0, 0.0), 0.001, Diagonal::SouthWestNorthEast);
    let p = ViewshedParams { observer_height: 0.0, refraction: 0.0, ..Default::default() };
    let v = vis(&s, Observer::at(0.003, 0.003), &p);
    // Its own sample, and its neighbours along an edge (the segment is that edge, end to end).
    for (i, j) in [(3, 3), (2, 3), (4, 3), (3, 2), (3, 4)] {
        assert_eq!(v.get(i, j), VISIBLE, "({i}, {j})");
    }
    assert_eq!(v.get(5, 3), HIDDEN);
    assert_eq!(v.get(3, 1), HIDDEN);
    assert_eq!(v.get(0, 0), HIDDEN);
    // 1.75 m up the whole plateau is in sight (it drops 3 cm in 330 m).
    let v = vis(&s, Observer::at(0.003, 0.003), &ViewshedParams::default());
    assert!(v.values.iter().all(|&x| x == VISIBLE));
}

#[test]
fn errors_name_the_observer_and_cancel_stops() {
    let mut h = vec![0.0; 25];
    h[12] = f32::NAN;
    let s = surface(5, 5, h, (0.0, 0.0), 0.01, Diagonal::Alternating);
    let p = ViewshedParams::default();
    let run = |o: Observer| viewshed(&s, &[o], &p, ViewshedMode::Visibility, &Hooks::default());
    assert!(matches!(run(Observer::at(0.5, 0.0)), Err(ViewshedError::ObserverOutside { .. })));
    assert!(matches!(run(Observer::at(0.02, 0.02)), Err(ViewshedError::ObserverOverHole { .. })));
    let two = [Observer::at(0.0, 0.0), Observer::at(9.0, 0.0)];
    assert!(matches!(
        viewshed(&s, &two, &p, ViewshedMode::Count, &Hooks::default()),
        Err(ViewshedError::Observer { index: 1, .. })
    ));
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let hooks = Hooks { progress: None, cancel: Some(&cancel) };
    assert_eq!(
        viewshed(&s, &[Observer::at(0.0, 0.0)], &p, ViewshedMode::Visibility, &hooks),
        Err(ViewshedError::Cancelled)
    );
}

/// Ridges across the sight lines, on a grid larger than one chunk of rows: most targets are
/// decided by a neighbour's blocker (`Sight::blocker`'s hints, left and below), and the answers
/// are the reference's, with and without refraction, from an eye on a sample and between samples.
#[test]
fn ridges_decided_by_neighbours_blockers_equal_the_reference() {
    let n = 37;
    let h: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as f32, (k / n) as f32);
            // Saw-tooth ridges along a diagonal, a dome, and a pit of nodata.
            let saw = ((i + 2.0 * j) % 7.0) * 2.0;
            let dome = 80.0 - ((i - 25.0).powi(2) + (j - 10.0).powi(2)).sqrt() * 4.0;
            if (i - 30.0).abs() < 2.0 && (j - 28.0).abs() < 3.0 {
                f32::NAN
            } else {
                saw + dome.max(0.0)
            }
        })
        .collect();
    let s = surface(n, n, h, (12.0, -33.0), 0.0005, Diagonal::Alternating);
    for (o, k) in [((12.003, -32.997), 0.0), ((12.00612, -32.9911), 1.0 / 7.0)] {
        let p = ViewshedParams { refraction: k, observer_height: 25.0, ..Default::default() };
        let o = [Observer::at(o.0, o.1)];
        let fast = viewshed(&s, &o, &p, ViewshedMode::Visibility, &Hooks::default()).unwrap();
        let slow = geo_viewshed_reference(&s, &o, &p, ViewshedMode::Visibility).unwrap();
        let (ViewshedOutput::Visibility(a, _), ViewshedOutput::Visibility(b, _)) = (fast, slow) else { unreachable!() };
        let hidden = a.values.iter().filter(|&&v| v == HIDDEN).count();
        assert!(hidden > n * n / 4 && hidden < n * n * 9 / 10, "{hidden} hidden: not a test of the hints");
        assert_eq!(a.values, b.values);
    }
}
