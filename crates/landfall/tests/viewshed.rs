//! Viewsheds against brute force: each target's segment tested against every triangle in f64.

use landfall::support::SplitMix64;
use landfall::viewshed::{
    viewshed, Grid, Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, EARTH_RADIUS, HIDDEN,
    NODATA, VISIBLE,
};
use landfall::{Diagonal, Heightfield};
use proptest::prelude::*;

/// Brute force, by the definition: P is hidden when some point of the segment strictly between O
/// and P is on or below an existing triangle. `Some(true)` visible, `Some(false)` hidden, `None`
/// when the terrain comes within rounding of the segment (a graze no f64 test can settle).
fn brute(hf: &Heightfield, low: &dyn Fn(usize, usize) -> f64, o: [f64; 3], p: [f64; 3]) -> Option<bool> {
    let (nx, ny) = (hf.nx(), hf.ny());
    let (org, sp) = (hf.origin(), hf.spacing());
    let pos = |i: usize, j: usize| [org.x + i as f64 * sp.x, org.y + j as f64 * sp.y, low(i, j)];
    let scale = 1.0 + o[2].abs() + p[2].abs();
    let mut unsure = false;
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            if hf.is_cell_masked(i, j) {
                continue;
            }
            let anti = hf.diagonal().is_anti(i, j);
            let tris = if anti {
                [[(0, 0), (1, 0), (0, 1)], [(1, 1), (0, 1), (1, 0)]]
            } else {
                [[(0, 0), (1, 0), (1, 1)], [(0, 0), (1, 1), (0, 1)]]
            };
            for t in tris {
                let v = t.map(|(a, b)| pos(i + a, j + b));
                if v.iter().any(|q| q[2].is_nan()) {
                    continue;
                }
                match segment_triangle(o, p, v, scale) {
                    Cross::Hit => return Some(false),
                    Cross::Near => unsure = true,
                    Cross::Miss => {}
                }
            }
        }
    }
    if unsure {
        None
    } else {
        Some(true)
    }
}

enum Cross {
    Hit,
    Near,
    Miss,
}

/// The segment O→P (t from 0 at O to 1 at P) over one triangle: the part of its plan inside the
/// triangle's plan is [ta, tb]; the terrain minus the line is linear there, so its ends decide.
/// Ends within 1e-9 of O or P are theirs (not strictly between), except that a segment lying on
/// the triangle from O to P is on the surface.
fn segment_triangle(o: [f64; 3], p: [f64; 3], v: [[f64; 3]; 3], scale: f64) -> Cross {
    const DT: f64 = 1e-9;
    let e = 1e-9 * scale;
    let (dx, dy) = (p[0] - o[0], p[1] - o[1]);
    // Counter-clockwise vertices.
    let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0]);
    let v = if area < 0.0 { [v[0], v[2], v[1]] } else { v };
    let (mut ta, mut tb) = (0.0f64, 1.0f64);
    for k in 0..3 {
        let (a, b) = (v[k], v[(k + 1) % 3]);
        // Inside: cross(b − a, X − a) ≥ 0, linear in t: c0 + c1·t.
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let c0 = ex * (o[1] - a[1]) - ey * (o[0] - a[0]);
        let c1 = ex * dy - ey * dx;
        if c1 == 0.0 {
            if c0 < 0.0 {
                return Cross::Miss;
            }
        } else if c1 > 0.0 {
            ta = ta.max(-c0 / c1);
        } else {
            tb = tb.min(-c0 / c1);
        }
    }
    if ta > tb + 1e-12 {
        return Cross::Miss;
    }
    // The triangle's height at plan point (x, y), by its plane.
    let n = {
        let (a, b) = (
            [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]],
            [v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]],
        );
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    };
    let diff = |t: f64| {
        let (x, y) = (o[0] + t * dx, o[1] + t * dy);
        let h = v[0][2] - (n[0] * (x - v[0][0]) + n[1] * (y - v[0][1])) / n[2];
        h - (o[2] + t * (p[2] - o[2]))
    };
    let mut near = false;
    for t in [ta, tb] {
        if t > DT && t < 1.0 - DT {
            let d = diff(t);
            if d > e {
                return Cross::Hit;
            }
            near |= d.abs() <= e;
        }
    }
    if ta <= DT && tb >= 1.0 - DT && diff(0.0).min(diff(1.0)) > -e {
        near = true; // the whole segment on one triangle, touching it at both ends
    }
    if near {
        Cross::Near
    } else {
        Cross::Miss
    }
}

/// Visibility from one observer (the `Visibility` mode of the one entry point).
pub(crate) fn visibility(hf: &Heightfield, obs: [f64; 2], p: &ViewshedParams) -> Result<Grid<u8>, ViewshedError> {
    match viewshed(hf, &[Observer::at(obs[0], obs[1])], p, ViewshedMode::Visibility, &Hooks::default())? {
        ViewshedOutput::Visibility(g, _) => Ok(g),
        o => panic!("{o:?}"),
    }
}

/// Least target heights above the ground (GDAL's GROUND mode).
fn heights(hf: &Heightfield, obs: [f64; 2], p: &ViewshedParams) -> Grid<f64> {
    match viewshed(hf, &[Observer::at(obs[0], obs[1])], p, ViewshedMode::HeightFromGround, &Hooks::default()).unwrap() {
        ViewshedOutput::Heights(g) => g,
        o => panic!("{o:?}"),
    }
}

/// Counts over observers (x, y, eye height).
fn counts(hf: &Heightfield, observers: &[[f64; 3]], p: &ViewshedParams) -> Grid<Option<u32>> {
    let obs: Vec<Observer> = observers.iter().map(|o| Observer::at(o[0], o[1]).with_height(o[2])).collect();
    match viewshed(hf, &obs, p, ViewshedMode::Count, &Hooks::default()).unwrap() {
        ViewshedOutput::Counts(g) => g,
        o => panic!("{o:?}"),
    }
}

/// `count` holes: a height made NaN and a cell masked, drawn in turn.
pub(crate) fn punch_holes(rng: &mut SplitMix64, h: &mut [f32], mask: &mut [bool], count: usize) {
    for _ in 0..count {
        let k = (rng.next_u64() % h.len() as u64) as usize;
        h[k] = f32::NAN;
        let c = (rng.next_u64() % mask.len() as u64) as usize;
        mask[c] = true;
    }
}

/// A random terrain: rough heights, a random diagonal pattern, optional holes.
fn terrain(rng: &mut SplitMix64, nx: usize, ny: usize, holes: bool) -> Heightfield {
    let mut h: Vec<f32> = (0..nx * ny).map(|_| (rng.range(0.0, 10.0)) as f32).collect();
    let mut mask = vec![false; (nx - 1) * (ny - 1)];
    if holes {
        punch_holes(rng, &mut h, &mut mask, 3);
    }
    let diagonal = [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest]
        [(rng.next_u64() % 3) as usize];
    let mut b = Heightfield::builder(nx, ny, h).spacing(2.0, 3.0).origin(-5.0, 7.0).diagonal(diagonal).leaf_size(2);
    if holes {
        b = b.hole_mask(mask);
    }
    b.build().unwrap()
}

/// Compares a viewshed with brute force; returns (agreeing cells, unsure cells).
fn compare(hf: &Heightfield, obs: [f64; 2], params: &ViewshedParams) -> (usize, usize) {
    let Ok(vis) = visibility(hf, obs, params) else { return (0, 0) };
    let curv = if params.curvature { (1.0 - params.refraction) / (2.0 * EARTH_RADIUS) } else { 0.0 };
    let (org, sp) = (hf.origin(), hf.spacing());
    let low = |i: usize, j: usize| {
        let (x, y) = (org.x + i as f64 * sp.x - obs[0], org.y + j as f64 * sp.y - obs[1]);
        hf.sample(i, j) as f64 - curv * (x * x + y * y)
    };
    // The observer's ground on the lowered triangles: the heightfield's own at (x, y), lowered at
    // its corners (a curvature of ~1e-7 over one cell); from the library's answer on the lowered
    // copy would be circular, so only curvature-free ground is compared exactly.
    let g = hf.height_at(obs[0], obs[1]).unwrap() - if curv > 0.0 { lowered_ground_offset(hf, obs, curv) } else { 0.0 };
    let o = [obs[0], obs[1], g + params.observer_height];
    let (mut agree, mut unsure) = (0, 0);
    for j in 0..hf.ny() {
        for i in 0..hf.nx() {
            let got = vis.get(i, j);
            let h = low(i, j);
            if h.is_nan() {
                assert_eq!(got, NODATA, "hole ({i}, {j}) must be nodata");
                continue;
            }
            let p = [org.x + i as f64 * sp.x, org.y + j as f64 * sp.y, h + params.target_height];
            match brute(hf, &low, o, p) {
                None => unsure += 1,
                Some(v) => {
                    assert_eq!(got, if v { VISIBLE } else { HIDDEN }, "sample ({i}, {j}) from {obs:?}, {params:?}");
                    agree += 1;
                }
            }
        }
    }
    (agree, unsure)
}

/// The curvature lowering under the observer, interpolated like the surface (tiny; for the
/// reference's ground).
fn lowered_ground_offset(hf: &Heightfield, obs: [f64; 2], curv: f64) -> f64 {
    // Lowering is smooth and ≤ curv·(cell diagonal)² under the observer: interpolate it by the same
    // triangle weights as the heights, through a heightfield of the lowering alone.
    let (nx, ny) = (hf.nx(), hf.ny());
    let (org, sp) = (hf.origin(), hf.spacing());
    let drop: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = (k % nx, k / nx);
            let (x, y) = (org.x + i as f64 * sp.x - obs[0], org.y + j as f64 * sp.y - obs[1]);
            (curv * (x * x + y * y)) as f32
        })
        .collect();
    let d = Heightfield::builder(nx, ny, drop).spacing(sp.x, sp.y).origin(org.x, org.y).diagonal(hf.diagonal());
    d.build().unwrap().height_at(obs[0], obs[1]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn equals_brute_force(seed in any::<u64>(), holes in any::<bool>(), on_vertex in any::<bool>(),
                          target in prop_oneof![Just(0.0), 0.0..5.0f64], eye in prop_oneof![Just(1.75), 0.0..8.0f64]) {
        let mut rng = SplitMix64::new(seed);
        let (nx, ny) = (5 + (rng.next_u64() % 9) as usize, 5 + (rng.next_u64() % 9) as usize);
        let hf = terrain(&mut rng, nx, ny, holes);
        let (org, sp) = (hf.origin(), hf.spacing());
        // Observers anywhere, or exactly on a vertex or on an edge.
        let (u, v) = if on_vertex {
            ((rng.next_u64() % nx as u64) as f64, (rng.next_u64() % ny as u64) as f64 + if rng.uniform() < 0.5 { 0.5 } else { 0.0 })
        } else {
            (rng.range(0.0, (nx - 1) as f64), rng.range(0.0, (ny - 1) as f64))
        };
        let v = v.min((ny - 1) as f64);
        let obs = [org.x + u * sp.x, org.y + v * sp.y];
        let params = ViewshedParams::default().with_observer_height(eye).with_target_height(target);
        let (agree, unsure) = compare(&hf, obs, &params);
        prop_assert!(unsure <= agree / 10 + 2, "{unsure} unsure cells of {}", agree + unsure);
    }
}

#[test]
fn curvature_equals_brute_force_on_lowered_heights() {
    // 1 km spacing: curvature lowers far samples by tens of metres.
    let mut rng = SplitMix64::new(9);
    let mut changed = 0;
    for _ in 0..20 {
        let h: Vec<f32> = (0..30 * 20).map(|_| rng.range(0.0, 60.0) as f32).collect();
        let hf = Heightfield::builder(30, 20, h).spacing(1000.0, 1000.0).leaf_size(4).build().unwrap();
        let obs = [rng.range(0.0, 29_000.0), rng.range(0.0, 19_000.0)];
        let params = ViewshedParams::default().with_curvature(true).with_observer_height(20.0);
        let (agree, unsure) = compare(&hf, obs, &params);
        assert!(unsure < 5 && agree > 500);
        let flat = visibility(&hf, obs, &ViewshedParams::default().with_observer_height(20.0)).unwrap();
        let curved = visibility(&hf, obs, &params).unwrap();
        changed += flat.values.iter().zip(&curved.values).filter(|(a, b)| a != b).count();
    }
    assert!(changed > 0, "curvature changed no sample");
}

#[test]
fn a_graze_blocks_and_the_targets_own_triangles_do_not() {
    // A profile along x: observer at x = 0 on ground 0, eye 10; a ridge vertex at x = 5 of height 5
    // lies exactly on the line to the target at x = 10 (height 0): a touch, so hidden. Raise the
    // target by any amount and it is seen.
    let nx = 11;
    let mut h = vec![0.0f32; nx * 3];
    for j in 0..3 {
        h[j * nx + 5] = 5.0;
    }
    let hf = Heightfield::builder(nx, 3, h).build().unwrap();
    let p = ViewshedParams::default().with_observer_height(10.0);
    let vis = visibility(&hf, [0.0, 1.0], &p).unwrap();
    assert_eq!(vis.get(10, 1), HIDDEN, "grazing the ridge vertex blocks");
    assert_eq!(vis.get(5, 1), VISIBLE, "the ridge itself is seen");
    assert_eq!(vis.get(4, 1), VISIBLE, "the slope facing the observer is seen");
    assert_eq!(vis.get(6, 1), HIDDEN, "behind the ridge");
    let vis = visibility(&hf, [0.0, 1.0], &p.clone().with_target_height(1e-6)).unwrap();
    assert_eq!(vis.get(10, 1), VISIBLE);
    // Needed heights: the target at x = 10 needs more than 0 (it touches at 0): exactly 0 above ground
    // with a touch, so the least height is 0 and anything above is visible.
    let need = heights(&hf, [0.0, 1.0], &p);
    assert_eq!(need.get(10, 1), 0.0);
    // Behind the ridge at x = 6: the line over the ridge vertex reaches 10 − 6 = 4 there.
    assert!((need.get(6, 1) - 4.0).abs() < 1e-12, "{}", need.get(6, 1));
    assert_eq!(need.get(3, 1), 0.0);
}

#[test]
fn needed_heights_make_targets_visible() {
    let mut rng = SplitMix64::new(4);
    for _ in 0..10 {
        let hf = terrain(&mut rng, 14, 11, false);
        let obs = [rng.range(-5.0, 21.0), rng.range(7.0, 37.0)];
        let p = ViewshedParams::default();
        let need = heights(&hf, obs, &p);
        let vis = visibility(&hf, obs, &p).unwrap();
        for j in 0..11 {
            for i in 0..14 {
                let n = need.get(i, j);
                assert_eq!(n == 0.0, vis.get(i, j) == VISIBLE || n == 0.0);
                if vis.get(i, j) == VISIBLE {
                    assert_eq!(n, 0.0);
                }
            }
        }
        // A target raised just above its needed height is seen; just below is not.
        for (i, j) in [(13, 10), (0, 0), (7, 5), (13, 0)] {
            let n = need.get(i, j);
            if n > 0.01 {
                let above = p.clone().with_target_height(n * 1.001 + 1e-9);
                let below = p.clone().with_target_height(n * 0.999);
                assert_eq!(visibility(&hf, obs, &above).unwrap().get(i, j), VISIBLE);
                assert_eq!(visibility(&hf, obs, &below).unwrap().get(i, j), HIDDEN);
            }
        }
    }
}

#[test]
fn cumulative_is_the_sum_of_singles() {
    let mut rng = SplitMix64::new(5);
    let hf = terrain(&mut rng, 20, 16, true);
    let observers: Vec<[f64; 3]> = (0..7)
        .filter_map(|_| {
            let o = [rng.range(-5.0, 33.0), rng.range(7.0, 52.0), rng.range(0.0, 5.0)];
            hf.height_at(o[0], o[1]).map(|_| o)
        })
        .collect();
    let p = ViewshedParams::default().with_max_distance(25.0);
    let cum = counts(&hf, &observers, &p);
    let singles: Vec<_> = observers
        .iter()
        .map(|o| visibility(&hf, [o[0], o[1]], &p.clone().with_observer_height(o[2])).unwrap())
        .collect();
    for k in 0..20 * 16 {
        let count = singles.iter().filter(|v| v.values[k] == VISIBLE).count() as u32;
        let target = singles.iter().any(|v| v.values[k] != NODATA);
        assert_eq!(cum.values[k], target.then_some(count));
    }
}

#[test]
fn distance_angles_and_pitch_limit_the_targets() {
    let hf = Heightfield::builder(21, 21, vec![0.0; 441]).build().unwrap();
    let o = [10.0, 10.0];
    let v = visibility(&hf, o, &ViewshedParams::default().with_max_distance(5.0)).unwrap();
    assert_eq!(v.get(15, 10), VISIBLE);
    assert_eq!(v.get(16, 10), NODATA);
    assert_eq!(v.get(14, 14), NODATA); // 5.66 away
                                       // North-east quadrant only: azimuth 0 (north, +y) to 90 (east, +x), clockwise.
    let v = visibility(&hf, o, &ViewshedParams::default().with_azimuths(Some((0.0, 90.0)))).unwrap();
    assert_eq!(v.get(15, 15), VISIBLE);
    assert_eq!(v.get(5, 15), NODATA);
    assert_eq!(v.get(15, 5), NODATA);
    // Wrapping through north: 270 → 90.
    let v = visibility(&hf, o, &ViewshedParams::default().with_azimuths(Some((270.0, 90.0)))).unwrap();
    assert_eq!(v.get(5, 15), VISIBLE);
    assert_eq!(v.get(10, 3), NODATA);
    // Pitch: from 1.75 m up, near samples are steeply below the eye.
    let v = visibility(&hf, o, &ViewshedParams::default().with_pitch(Some((-10.0, 0.0)))).unwrap();
    assert_eq!(v.get(11, 10), NODATA); // −60°
    assert_eq!(v.get(20, 10), VISIBLE); // −10° is at 9.9 m
}

#[test]
fn bad_observers_and_parameters_are_errors() {
    let mut h = vec![0.0f32; 25];
    h[12] = f32::NAN;
    let hf = Heightfield::builder(5, 5, h).build().unwrap();
    let p = ViewshedParams::default();
    assert!(visibility(&hf, [9.0, 1.0], &p).unwrap_err().to_string().contains("outside"));
    assert!(visibility(&hf, [2.0, 2.0], &p).unwrap_err().to_string().contains("hole"));
    assert!(visibility(&hf, [f64::NAN, 1.0], &p).is_err());
    for bad in [
        p.clone().with_observer_height(-1.0),
        p.clone().with_target_height(f64::NAN),
        p.clone().with_max_distance(0.0),
        p.clone().with_refraction(2.0),
        p.clone().with_pitch(Some((10.0, -10.0))),
    ] {
        assert!(visibility(&hf, [0.0, 0.0], &bad).is_err(), "{bad:?}");
    }
}

/// An observer outside the grid by less than the border's tolerance (1e-10 of a cell) stands on
/// the edge: the same answer as there, on every side and at a corner (the sweep indexed past the
/// grid, found by a hostile round).
#[test]
fn an_observer_a_hair_outside_stands_on_the_edge() {
    let hf = terrain(&mut SplitMix64::new(7), 9, 7, false);
    let (org, sp) = (hf.origin(), hf.spacing());
    let (w, e, s, n) = (org.x, org.x + 8.0 * sp.x, org.y, org.y + 6.0 * sp.y);
    let (hx, hy, ym) = (1e-10 * sp.x, 1e-10 * sp.y, org.y + 2.5 * sp.y);
    let p = ViewshedParams::default();
    for (off, on) in [
        ([e + hx, ym], [e, ym]),
        ([w - hx, ym], [w, ym]),
        ([org.x + 3.0 * sp.x, n + hy], [org.x + 3.0 * sp.x, n]),
        ([org.x + 3.5 * sp.x, s - hy], [org.x + 3.5 * sp.x, s]),
        ([e + hx, n + hy], [e, n]),
        ([w - hx, s - hy], [w, s]),
    ] {
        assert_ne!(off, on);
        assert_eq!(visibility(&hf, off, &p).unwrap(), visibility(&hf, on, &p).unwrap(), "{off:?}");
        let (a, b) = (heights(&hf, off, &p), heights(&hf, on, &p));
        assert!(a.values.iter().zip(&b.values).all(|(a, b)| a.to_bits() == b.to_bits()), "{off:?}");
    }
    assert!(visibility(&hf, [e + 1e-7 * sp.x, ym], &p).unwrap_err().to_string().contains("outside"));
}

/// The target limits given one by one (as gdal_viewshed, the CLI and Python take them): the
/// angles go together, a missing pitch bound is ±90.
#[test]
fn limits_one_by_one_pair_the_angles() {
    let p = ViewshedParams::default();
    for (start, end, alone) in [(Some(10.0), None, "start_angle 10"), (None, Some(-5.5), "end_angle -5.5")] {
        match p.clone().with_limits(start, end, None, None) {
            Err(ViewshedError::Param { name: "angles", why }) => {
                assert_eq!(why, format!("start_angle and end_angle go together ({alone} given alone)"));
            }
            other => panic!("{start:?} {end:?}: {other:?}"),
        }
    }
    let limited = |s, e, lo, hi| p.clone().with_limits(s, e, lo, hi).unwrap();
    assert_eq!(limited(None, None, None, None), p);
    let q = limited(Some(350.0), Some(10.0), None, None);
    assert_eq!((q.azimuths, q.pitch), (Some((350.0, 10.0)), None));
    assert_eq!(limited(None, None, Some(-10.0), None).pitch, Some((-10.0, 90.0)));
    assert_eq!(limited(None, None, None, Some(20.0)).pitch, Some((-90.0, 20.0)));
    assert_eq!(limited(None, None, Some(-1.0), Some(2.0)).pitch, Some((-1.0, 2.0)));
}

/// Limits at absurd magnitudes answer as their meaning says (found by a hostile test): a
/// maximum distance of 1e20 or more is no limit (it overflowed the last column's index), and
/// angles are reduced to [0, 360) before their span is taken (1e300 to 10 gave the full circle).
#[test]
fn huge_limits_mean_what_they_say() {
    let hf = Heightfield::builder(9, 9, (0..81).map(|k| ((k * 7) % 5) as f32).collect()).build().unwrap();
    let p = ViewshedParams::default();
    let all = visibility(&hf, [4.0, 4.0], &p).unwrap();
    for d in [1e20, 1e300, f64::MAX] {
        assert_eq!(visibility(&hf, [4.0, 4.0], &p.clone().with_max_distance(d)).unwrap(), all, "{d}");
    }
    let reduced = (1e300f64).rem_euclid(360.0);
    let wedge = visibility(&hf, [4.0, 4.0], &p.clone().with_azimuths(Some((reduced, 10.0)))).unwrap();
    let huge = visibility(&hf, [4.0, 4.0], &p.clone().with_azimuths(Some((1e300, 10.0)))).unwrap();
    assert_eq!(huge, wedge);
    let targets = |g: &Grid<u8>| g.values.iter().filter(|&&v| v != NODATA).count();
    assert!(targets(&huge) < targets(&all), "{} of {}", targets(&huge), targets(&all));
}

/// Larger smooth terrains, where the row witnesses and the sector bounds do most of the work:
/// sampled targets against brute force.
#[test]
fn larger_terrains_equal_brute_force_on_sampled_targets() {
    use landfall::bench::synth::{generate, SynthParams};
    let mut rng = SplitMix64::new(21);
    for round in 0..6 {
        let (nx, ny) = (90, 70);
        let h = generate(nx, ny, &SynthParams { seed: round, relief: 12.0, feature: 40.0, octaves: 4 });
        let hf = Heightfield::builder(nx, ny, h).spacing(3.0, 2.0).origin(100.0, -50.0).build().unwrap();
        let (org, sp) = (hf.origin(), hf.spacing());
        let obs = [org.x + rng.range(0.0, 89.0) * sp.x, org.y + rng.range(0.0, 69.0) * sp.y];
        let params = ViewshedParams::default()
            .with_observer_height([3.0, 15.0, 1.0][round as usize % 3])
            .with_curvature(round >= 4);
        let vis = visibility(&hf, obs, &params).unwrap();
        let g = hf.height_at(obs[0], obs[1]).unwrap();
        let o = [obs[0], obs[1], g + params.observer_height];
        let curv = if params.curvature { (1.0 - params.refraction) / (2.0 * EARTH_RADIUS) } else { 0.0 };
        let low = |i: usize, j: usize| {
            let (x, y) = (org.x + i as f64 * sp.x - obs[0], org.y + j as f64 * sp.y - obs[1]);
            hf.sample(i, j) as f64 - curv * (x * x + y * y)
        };
        let (mut seen, mut checked) = (0, 0);
        for _ in 0..150 {
            let (i, j) = ((rng.next_u64() % nx as u64) as usize, (rng.next_u64() % ny as u64) as usize);
            let p = [org.x + i as f64 * sp.x, org.y + j as f64 * sp.y, low(i, j)];
            // Curvature moves the eye's ground by < 1e-9 here: the reference uses the flat one.
            if let Some(v) = brute(&hf, &low, o, p) {
                assert_eq!(vis.get(i, j), if v { VISIBLE } else { HIDDEN }, "round {round}, sample ({i}, {j})");
                seen += usize::from(v);
                checked += 1;
            }
        }
        assert!(checked > 140 && seen > 5 && seen < checked, "round {round}: {seen} of {checked} visible");
    }
}

/// The fast paths (row witnesses, sector bounds) against the plain walk of every target, on a
/// large terrain with curvature, from several observers.
#[test]
fn fast_paths_equal_the_plain_walk() {
    use landfall::bench::synth::{generate, SynthParams};
    let n = 257;
    let h = generate(n, n, &SynthParams { seed: 3, relief: 300.0, feature: 60.0, octaves: 6 });
    let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).build().unwrap();
    let mut rng = SplitMix64::new(8);
    for k in 0..4 {
        let obs = [rng.range(0.0, 2560.0), rng.range(0.0, 2560.0)];
        let p = ViewshedParams::default().with_observer_height([1.75, 30.0][k % 2]).with_curvature(k >= 2);
        let fast = visibility(&hf, obs, &p).unwrap();
        let ViewshedOutput::Visibility(plain, _) =
            landfall::viewshed::reference(&hf, obs, &p, ViewshedMode::Visibility).unwrap()
        else {
            panic!()
        };
        let differ = fast.values.iter().zip(&plain.values).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "observer {obs:?}");
        assert!(fast.values.contains(&VISIBLE) && fast.values.contains(&HIDDEN));
    }
}

/// One entry point for both surfaces: `viewshed` and `observer_eye` take a heightfield or a
/// `GeoSurface`, by type or as `&dyn ViewshedSurface`, with the same answers either way.
#[test]
fn one_entry_point_takes_either_surface() {
    use landfall::geo::GeoSurface;
    use landfall::viewshed::{observer_eye, ViewshedSurface};
    let h: Vec<f32> = (0..21 * 21).map(|k| ((k * 37) % 11) as f32).collect();
    let hf = Heightfield::builder(21, 21, h).origin(10.0, 45.0).spacing(0.001, 0.001).build().unwrap();
    let geo = GeoSurface::new(hf.clone()).unwrap();
    let p = ViewshedParams::default().with_observer_height(3.0);
    let o = [Observer::at(10.0105, 45.0095)];
    let run = |s: &dyn ViewshedSurface| viewshed(s, &o, &p, ViewshedMode::Visibility, &Hooks::default()).unwrap();
    let direct = viewshed(&hf, &o, &p, ViewshedMode::Visibility, &Hooks::default()).unwrap();
    assert_eq!(run(&hf), direct);
    assert_eq!(run(&geo), viewshed(&geo, &o, &p, ViewshedMode::Visibility, &Hooks::default()).unwrap());
    // The planar eye: the ground under the observer plus its height.
    let g = hf.height_at(10.0105, 45.0095).unwrap();
    assert_eq!(observer_eye(&hf, [10.0105, 45.0095], &p).unwrap(), g + 3.0);
    // On the ellipsoid: the ground's height above it plus the observer's (the triangles are
    // planar in ECEF: within a cell's chord sag, d²/(8R) ≈ 0.3 mm here, of the planar
    // triangle's height).
    let e = observer_eye(&geo, [10.0105, 45.0095], &p).unwrap();
    assert!((e - (g + 3.0)).abs() < 1e-3, "{e} vs {}", g + 3.0);
    let off: &dyn ViewshedSurface = &geo;
    assert!(matches!(observer_eye(off, [11.0, 45.0], &p), Err(ViewshedError::ObserverOutside { .. })));
    assert!(matches!(observer_eye(&hf, [11.0, 45.0], &p), Err(ViewshedError::ObserverOutside { .. })));
}
