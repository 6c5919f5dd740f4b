//! The horizon sweep against the exact walk of every target (`viewshed::reference`), on random
//! terrains and on the adversarial ones where horizon methods go wrong: saw-tooth ridges along the
//! octant borders, plateaus at eye height (every target a tie), eyes on vertices, edges and octant
//! borders, holes across the sight lines, curvature, every diagonal pattern.

use crate::viewshed::{punch_holes, visibility};
use landfall::bench::synth::{generate, SynthParams};
use landfall::support::SplitMix64;
use landfall::viewshed::{
    reference, viewshed, Grid, Hooks, Observer, ViewshedError, ViewshedMode, ViewshedOutput, ViewshedParams, HIDDEN,
    VISIBLE,
};
use landfall::{Diagonal, Heightfield};
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const DIAGONALS: [Diagonal; 3] = [Diagonal::Alternating, Diagonal::SouthWestNorthEast, Diagonal::SouthEastNorthWest];

fn run(hf: &Heightfield, obs: [f64; 2], p: &ViewshedParams, mode: ViewshedMode) -> ViewshedOutput {
    viewshed(hf, &[Observer::at(obs[0], obs[1])], p, mode, &Hooks::default()).unwrap()
}

/// The sweep and the walk agree on every sample, in every single-observer mode (needed heights to
/// rounding).
pub(crate) fn agree(hf: &Heightfield, obs: [f64; 2], p: &ViewshedParams) {
    let (ViewshedOutput::Visibility(fast, _), ViewshedOutput::Visibility(slow, _)) =
        (run(hf, obs, p, ViewshedMode::Visibility), reference(hf, obs, p, ViewshedMode::Visibility).unwrap())
    else {
        panic!("visibility answers visibility")
    };
    let (nx, ny) = (hf.nx(), hf.ny());
    for j in 0..ny {
        for i in 0..nx {
            assert_eq!(fast.get(i, j), slow.get(i, j), "sample ({i}, {j}) of {nx}×{ny} from {obs:?}, {p:?}");
        }
    }
    let (ViewshedOutput::Heights(fast), ViewshedOutput::Heights(slow)) = (
        run(hf, obs, p, ViewshedMode::HeightFromGround),
        reference(hf, obs, p, ViewshedMode::HeightFromGround).unwrap(),
    ) else {
        panic!("heights answer heights")
    };
    let scale = 1.0 + hf.height_range().map_or(0.0, |(a, b)| a.abs().max(b.abs()) as f64) + p.observer_height;
    for (k, (a, b)) in fast.values.iter().zip(&slow.values).enumerate() {
        assert!(
            a.is_nan() == b.is_nan() && (a.is_nan() || (a - b).abs() <= 1e-9 * scale),
            "needed height at sample {k}: sweep {a}, walk {b}"
        );
    }
}

/// Terrains the sweep must get right.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Uniform random heights.
    Rough,
    /// Small integer heights: plateaus, exact ties and collinear vertices everywhere.
    Terraced,
    /// Ridges of alternating heights along rows, columns or diagonals.
    SawTooth,
    /// Flat, with one block.
    Plateau,
}

fn terrain(rng: &mut SplitMix64, kind: Kind, nx: usize, ny: usize, holes: bool, diagonal: Diagonal) -> Heightfield {
    let dir = rng.next_u64() % 4;
    let mut h: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = ((k % nx) as i64, (k / nx) as i64);
            match kind {
                Kind::Rough => rng.range(0.0, 10.0) as f32,
                Kind::Terraced => (rng.next_u64() % 4) as f32,
                Kind::SawTooth => {
                    let s = [i, j, i + j, i - j][dir as usize];
                    if s.rem_euclid(2) == 0 {
                        5.0
                    } else {
                        0.0
                    }
                }
                Kind::Plateau => {
                    if (i - nx as i64 / 2).abs() <= 1 && (j - ny as i64 / 3).abs() <= 1 {
                        3.0
                    } else {
                        0.0
                    }
                }
            }
        })
        .collect();
    let mut mask = vec![false; (nx - 1) * (ny - 1)];
    if holes {
        punch_holes(rng, &mut h, &mut mask, 4);
    }
    let (dx, dy) = [(1.0, 1.0), (2.0, 3.0), (3.0, 1.5)][(rng.next_u64() % 3) as usize];
    let mut b = Heightfield::builder(nx, ny, h).spacing(dx, dy).origin(-7.0, 11.0).diagonal(diagonal).leaf_size(2);
    if holes {
        b = b.hole_mask(mask);
    }
    b.build().unwrap()
}

/// An eye anywhere, on a vertex, on an edge, on a diagonal through a vertex (an octant border of
/// the samples around it), or on a cell's own diagonal.
pub(crate) fn eye_position(rng: &mut SplitMix64, hf: &Heightfield, place: u64) -> [f64; 2] {
    let (nx, ny) = ((hf.nx() - 1) as f64, (hf.ny() - 1) as f64);
    let pick = |rng: &mut SplitMix64, n: f64| (rng.next_u64() % (n as u64 + 1)) as f64;
    let (u, v) = match place {
        0 => (rng.range(0.0, nx), rng.range(0.0, ny)),
        1 => (pick(rng, nx), pick(rng, ny)),
        2 => (pick(rng, nx), (pick(rng, ny - 1.0) + rng.range(0.0, 1.0)).min(ny)),
        3 => {
            let (i, j, t) =
                (pick(rng, nx - 1.0), pick(rng, ny - 1.0), [0.25, 0.5, 0.75][(rng.next_u64() % 3) as usize]);
            (i + t, j + t)
        }
        _ => {
            let (i, j, t) = (pick(rng, nx - 1.0), pick(rng, ny - 1.0), [0.25, 0.5][(rng.next_u64() % 2) as usize]);
            (i + 1.0 - t, j + t)
        }
    };
    let (o, s) = (hf.origin(), hf.spacing());
    [o.x + u * s.x, o.y + v * s.y]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn the_sweep_equals_the_walk(
        seed in any::<u64>(),
        kind in prop_oneof![Just(Kind::Rough), Just(Kind::Terraced), Just(Kind::SawTooth), Just(Kind::Plateau)],
        holes in any::<bool>(),
        place in 0u64..5,
        eye in prop_oneof![Just(0.0), Just(1.75), Just(3.0), 0.0..8.0f64],
        target in prop_oneof![Just(0.0), 0.0..3.0f64],
        diagonal in 0usize..3,
        limits in 0u8..4,
    ) {
        let mut rng = SplitMix64::new(seed);
        let (nx, ny) = (4 + (rng.next_u64() % 30) as usize, 4 + (rng.next_u64() % 30) as usize);
        let hf = terrain(&mut rng, kind, nx, ny, holes, DIAGONALS[diagonal]);
        let obs = eye_position(&mut rng, &hf, place);
        if hf.height_at(obs[0], obs[1]).is_none() {
            return Ok(()); // over a hole
        }
        let mut p = ViewshedParams::default().with_observer_height(eye).with_target_height(target);
        match limits {
            1 => p.max_distance = rng.range(1.0, 40.0),
            2 => p.azimuths = Some((rng.range(0.0, 360.0), rng.range(0.0, 360.0))),
            3 => {
                // Curvature made visible: kilometre cells.
                let s = hf.spacing();
                let h: Vec<f32> = hf.samples().map(|z| z * 10.0).collect();
                let hf = Heightfield::builder(nx, ny, h).spacing(s.x * 1000.0, s.y * 700.0).diagonal(hf.diagonal()).build().unwrap();
                let obs = [hf.origin().x + (obs[0] - -7.0) * 1000.0, hf.origin().y + (obs[1] - 11.0) * 700.0];
                if hf.height_at(obs[0], obs[1]).is_some() {
                    p.curvature = true;
                    agree(&hf, obs, &p);
                }
                return Ok(());
            }
            _ => {}
        }
        agree(&hf, obs, &p);
    }
}

/// Terrain mostly seen from an eye at sample (ci, cj): each far column rises above the horizon, so
/// its edges make the strip (the sweep's common case on visible terrain), broken by what makes
/// that go wrong — saw-tooth ridges across or along the sweep (far columns alternately above and
/// under the horizon), row edges steeper than the far column, and plateaus exactly at eye level
/// (every far vertex on the horizon).
fn rising(rng: &mut SplitMix64, n: usize, (ci, cj): (usize, usize), style: u64, eye: f64) -> Vec<f32> {
    let (tooth, dir) = (rng.range(0.0, 3.0), rng.next_u64() % 4);
    (0..n * n)
        .map(|k| {
            let (i, j) = ((k % n) as i64, (k / n) as i64);
            let (di, dj) = (i - ci as i64, j - cj as i64);
            let r = di.abs().max(dj.abs()) as f64;
            let saw = f64::from([i, j, i + j, i - j][dir as usize].rem_euclid(2) as u8);
            let z = match style {
                // A bowl: every column seen, the teeth hiding some far edges behind the last ridge.
                0 => 0.5 * r + tooth * saw,
                // Ridges along the rows: row edges steeper than the far column.
                1 => 0.5 * r + 4.0 * f64::from((j.rem_euclid(3) == 0) as u8),
                // A plateau at eye level around a pit holding the eye, with a few teeth.
                _ if r <= 1.0 => 0.0,
                _ => eye + if rng.next_u64().is_multiple_of(9) { tooth.round() - 1.0 } else { 0.0 },
            };
            z as f32
        })
        .collect()
}

/// The n × n heightfield of `h` (leaves of 2 cells), with holes punched if asked; with curvature
/// its cells (and heights) are a kilometre, to make the Earth's drop matter. Returns the scale.
fn square(
    rng: &mut SplitMix64,
    mut h: Vec<f32>,
    n: usize,
    holes: bool,
    curvature: bool,
    diagonal: usize,
) -> (Heightfield, f64) {
    let mut mask = vec![false; (n - 1) * (n - 1)];
    if holes {
        punch_holes(rng, &mut h, &mut mask, 3);
    }
    let s = if curvature { 1000.0 } else { 1.0 };
    let hs: Vec<f32> = h.iter().map(|z| z * s as f32).collect();
    let mut b = Heightfield::builder(n, n, hs).spacing(s, s).diagonal(DIAGONALS[diagonal]).leaf_size(2);
    if holes {
        b = b.hole_mask(mask);
    }
    (b.build().unwrap(), s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn the_sweep_equals_the_walk_where_far_columns_lead(
        seed in any::<u64>(),
        style in 0u64..3,
        holes in any::<bool>(),
        place in 0u64..5,
        eye in prop_oneof![Just(0.0), Just(1.0), 0.0..4.0f64],
        diagonal in 0usize..3,
        curvature in any::<bool>(),
    ) {
        let mut rng = SplitMix64::new(seed);
        let n = 12 + (rng.next_u64() % 40) as usize;
        let centre = (rng.next_u64() as usize % n, rng.next_u64() as usize % n);
        let h = rising(&mut rng, n, centre, style, eye);
        let (hf, s) = square(&mut rng, h, n, holes, curvature, diagonal);
        // The eye at the centre sample (on a vertex, as the pit wants) or anywhere else.
        let obs = if place == 1 {
            [centre.0 as f64 * s, centre.1 as f64 * s]
        } else {
            eye_position(&mut rng, &hf, place)
        };
        if hf.height_at(obs[0], obs[1]).is_none() {
            return Ok(()); // over a hole
        }
        let p = ViewshedParams::default().with_observer_height(eye * s).with_curvature(curvature);
        agree(&hf, obs, &p);
    }
}

/// Terrain aimed at the horizon's form (a polyline of vertices, jumps as two at one u, gaps as
/// vertices at −∞): from an eye on sample (ci, cj), at r = max(|di|, |dj|) samples (the distance
/// along the sweep axis) the height is the eye's plus slope·r, so every sample on a ray through the
/// eye projects onto the same (u, v): horizon vertices lie exactly at the targets' u and the targets
/// on the horizon (slope 0: a plateau at eye height). Broken by terraces every `step` samples
/// (jumps in the horizon), saw-tooth ridges along the octant borders |di| = |dj| and along a row or
/// column through the eye (vertices at u = ±1 and 0), and single spikes (a point poking above its
/// neighbours in the strip).
fn on_rays(rng: &mut SplitMix64, n: usize, (ci, cj): (usize, usize), eye: f64, slope: f64, step: i64) -> Vec<f32> {
    let (tooth, spikes) = (rng.range(0.5, 3.0).round(), rng.next_u64() % 3);
    (0..n * n)
        .map(|k| {
            let (di, dj) = ((k % n) as i64 - ci as i64, (k / n) as i64 - cj as i64);
            let r = di.abs().max(dj.abs());
            if r == 0 {
                return 0.0;
            }
            let mut z = eye + slope * r as f64;
            if step > 0 {
                z += (r / step) as f64;
            }
            if di.abs() == dj.abs() || di == 0 || dj == 0 {
                z += if r % 2 == 0 { tooth } else { -tooth };
            }
            if spikes > 0 && rng.next_u64().is_multiple_of(17) {
                z += 2.0 * tooth;
            }
            z as f32
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn the_sweep_equals_the_walk_where_the_horizon_has_vertices_on_the_targets(
        seed in any::<u64>(),
        slope in prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(-0.5)],
        step in 0i64..4,
        holes in any::<bool>(),
        eye in prop_oneof![Just(0.0), Just(1.0), Just(2.0)],
        diagonal in 0usize..3,
        curvature in any::<bool>(),
        off_sample in any::<bool>(),
    ) {
        let mut rng = SplitMix64::new(seed);
        let n = 6 + (rng.next_u64() % 36) as usize;
        let centre = (rng.next_u64() as usize % n, rng.next_u64() as usize % n);
        let h = on_rays(&mut rng, n, centre, eye, slope, step);
        let (hf, s) = square(&mut rng, h, n, holes, curvature, diagonal);
        // The eye on the centre sample (the rays' origin), or on an edge or diagonal near it.
        let obs = if off_sample {
            let place = 2 + rng.next_u64() % 3;
            eye_position(&mut rng, &hf, place)
        } else {
            [centre.0 as f64 * s, centre.1 as f64 * s]
        };
        if hf.height_at(obs[0], obs[1]).is_none() {
            return Ok(()); // over a hole
        }
        let p = ViewshedParams::default().with_observer_height(eye * s).with_curvature(curvature);
        agree(&hf, obs, &p);
    }
}

#[test]
fn a_ground_level_eye_on_a_plateau_does_not_see_below_it() {
    // The case: eye height 0 exactly on a sample of a flat plateau (height 20); targets
    // lower than the plateau beyond its edge. Their segments run under the plateau, touching the
    // surface only at both ends: hidden. The plateau itself (a tie on every sample) is hidden too:
    // the segment lies on the surface.
    let (nx, ny) = (30, 9);
    let h: Vec<f32> = (0..nx * ny).map(|k| if k % nx < 15 { 20.0 } else { 0.0 }).collect();
    let hf = Heightfield::builder(nx, ny, h).build().unwrap();
    let p = ViewshedParams::default().with_observer_height(0.0);
    let vis = visibility(&hf, [5.0, 4.0], &p).unwrap();
    for i in 16..nx {
        assert_eq!(vis.get(i, 4), HIDDEN, "({i}, 4) is below the plateau");
    }
    assert_eq!(vis.get(9, 4), HIDDEN, "on the plateau: the segment lies on the surface");
    agree(&hf, [5.0, 4.0], &p);
    // From 1 m up the plateau is seen and the lowland still is not.
    let vis = visibility(&hf, [5.0, 4.0], &p.with_observer_height(1.0)).unwrap();
    assert_eq!(vis.get(9, 4), VISIBLE);
    assert_eq!(vis.get(20, 4), HIDDEN);
}

#[test]
fn terraced_saw_tooth_dem_at_ground_level() {
    // The regression terrain, smaller: terraces with saw-tooth ridges, eyes at height 0 on
    // plateau samples, every target against the walk.
    let n = 65;
    let h: Vec<f32> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            let terrace = (i / 8) as f32 * 5.0;
            if (i + j) % 13 == 0 {
                terrace + 3.0
            } else {
                terrace
            }
        })
        .collect();
    let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).build().unwrap();
    for (i, j) in [(3, 3), (20, 30), (44, 7), (60, 60), (8, 40)] {
        for eye in [0.0, 1.75, 10.0] {
            agree(&hf, [i as f64 * 10.0, j as f64 * 10.0], &ViewshedParams::default().with_observer_height(eye));
        }
    }
}

/// A corrupt sample (a spike of 1e18 to 1e33 m, as a broken DEM holds) makes the horizon's pieces
/// steep enough that reading them rounds by metres: every answer still equals the walk's (the
/// band grows with the heights), and nothing asserts (the hostile report's case).
#[test]
fn a_dem_with_an_absurd_spike() {
    let (nx, ny) = (87, 61);
    let base = generate(nx, ny, &SynthParams { seed: 3, relief: 100.0, feature: 20.0, octaves: 4 });
    let mut rng = SplitMix64::new(21);
    for k in 0..12 {
        let mut h = base.clone();
        let (i, j) = (rng.range(0.0, nx as f64) as usize, rng.range(0.0, ny as f64) as usize);
        h[j * nx + i] = 10f32.powf(rng.range(18.0, 33.0) as f32);
        let hf = Heightfield::builder(nx, ny, h).spacing(10.0, 10.0).build().unwrap();
        let obs = if k % 2 == 0 { [195.0, 305.0] } else { [rng.range(0.0, 860.0), rng.range(0.0, 600.0)] };
        agree(&hf, obs, &ViewshedParams::default().with_observer_height(1.75));
    }
}

#[test]
fn generated_terrains_with_curvature_from_many_eyes() {
    let n = 193;
    let mut rng = SplitMix64::new(12);
    for seed in 0..3 {
        let h = generate(n, n, &SynthParams { seed, relief: 400.0, feature: 50.0, octaves: 6 });
        let hf = Heightfield::builder(n, n, h).spacing(30.0, 30.0).diagonal(DIAGONALS[seed as usize]).build().unwrap();
        for k in 0..3 {
            let obs = [rng.range(0.0, 5760.0), rng.range(0.0, 5760.0)];
            let p = ViewshedParams::default().with_observer_height([0.0, 1.75, 25.0][k]).with_curvature(seed == 1);
            agree(&hf, obs, &p);
        }
    }
}

#[test]
fn few_targets_go_to_the_exact_walk() {
    let n = 513;
    let h = generate(n, n, &SynthParams { seed: 4, relief: 800.0, ..Default::default() });
    let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).build().unwrap();
    let p = ViewshedParams::default();
    let ViewshedOutput::Visibility(v, stats) = run(&hf, [2000.0, 3000.0], &p, ViewshedMode::Visibility) else {
        panic!()
    };
    let targets = v.values.iter().filter(|&&x| x != 255).count();
    assert!((stats.band as f64) < 0.001 * targets as f64, "{} of {targets} targets left to the exact walk", stats.band);
}

#[test]
fn counts_are_sums_of_singles_and_progress_reaches_the_end() {
    let n = 97;
    let h = generate(n, n, &SynthParams { seed: 2, relief: 200.0, ..Default::default() });
    let hf = Heightfield::builder(n, n, h).spacing(5.0, 5.0).build().unwrap();
    let mut rng = SplitMix64::new(3);
    let observers: Vec<Observer> =
        (0..12).map(|k| Observer::at(rng.range(0.0, 480.0), rng.range(0.0, 480.0)).with_height(k as f64)).collect();
    let p = ViewshedParams::default().with_max_distance(300.0);
    let last = std::sync::Mutex::new(0.0f64);
    let report = |f: f64| {
        let mut l = last.lock().unwrap();
        *l = l.max(f);
    };
    let hooks = Hooks::default().with_progress(&report);
    let ViewshedOutput::Counts(counts) = viewshed(&hf, &observers, &p, ViewshedMode::Count, &hooks).unwrap() else {
        panic!()
    };
    assert!(*last.lock().unwrap() > 0.95, "progress reached {}", last.lock().unwrap());
    let singles: Vec<Grid<u8>> = observers
        .iter()
        .map(|o| visibility(&hf, [o.x, o.y], &p.clone().with_observer_height(o.height.unwrap())).unwrap())
        .collect();
    for k in 0..n * n {
        let seen = singles.iter().filter(|v| v.values[k] == VISIBLE).count() as u32;
        let target = singles.iter().any(|v| v.values[k] != 255);
        assert_eq!(counts.values[k], target.then_some(seen), "sample {k}");
    }
}

#[test]
fn a_cancelled_run_stops_with_an_error() {
    let n = 257;
    let h = generate(n, n, &SynthParams::default());
    let hf = Heightfield::builder(n, n, h).build().unwrap();
    let cancel = AtomicBool::new(false);
    let columns = AtomicUsize::new(0);
    let report = |_: f64| {
        if columns.fetch_add(1, Ordering::Relaxed) == 3 {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let hooks = Hooks::default().with_progress(&report).with_cancel(&cancel);
    let r = viewshed(&hf, &[Observer::at(100.0, 100.0)], &ViewshedParams::default(), ViewshedMode::Visibility, &hooks);
    assert_eq!(r.unwrap_err(), ViewshedError::Cancelled);
    let observers = vec![Observer::at(10.0, 10.0); 50];
    let r = viewshed(&hf, &observers, &ViewshedParams::default(), ViewshedMode::Count, &hooks);
    assert_eq!(r.unwrap_err(), ViewshedError::Cancelled);
}

#[test]
fn modes_take_the_observers_they_need() {
    let hf = Heightfield::builder(3, 3, vec![0.0; 9]).build().unwrap();
    let two = [Observer::at(0.0, 0.0), Observer::at(1.0, 1.0)];
    let p = ViewshedParams::default();
    for mode in [ViewshedMode::Visibility, ViewshedMode::HeightFromGround, ViewshedMode::HeightFromDem] {
        assert!(matches!(
            viewshed(&hf, &two, &p, mode, &Hooks::default()),
            Err(ViewshedError::ObserverCount { count: 2, .. })
        ));
        assert_eq!(ViewshedMode::from_name(mode.name()).unwrap(), mode);
    }
    let bad = [Observer::at(0.0, 0.0), Observer::at(9.0, 9.0)];
    let e = viewshed(&hf, &bad, &p, ViewshedMode::Count, &Hooks::default()).unwrap_err();
    assert!(e.to_string().starts_with("observer 1:"), "{e}");
    assert!(ViewshedMode::from_name("nope").is_err());
}
