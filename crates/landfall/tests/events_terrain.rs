//! Balls on terrain: never inside the ground or each other (checked against brute-force distances
//! at every event and every frame), energy kept with elastic bounces, contacts equal to a predictor
//! that sweeps every triangle, and everything comes to rest with the Zeno threshold.

use glam::DVec3;
use landfall::bench::synth::{generate, SynthParams};
use landfall::collide::{closest_point, sweep_sphere_triangle, Contact, SweepTarget, TerrainContact};
use landfall::events::ballistic::{first_contact, Arc, TOLERANCE};
use landfall::events::{Ball, BallEvent, BallParams, BehaviourLod, Simulation, TerrainBalls};
use landfall::support::SplitMix64;
use landfall::world::{CacheParams, World, WorldParams};
use landfall::PolygonSoup;
use landfall::{Aabb, TriangleId};
use landfall::{Frame, Heightfield, PolygonTerrain, QuadtreeParams, Terrain};

fn hills(n: usize) -> Heightfield {
    let h = generate(n, n, &SynthParams { seed: 4, relief: 8.0, feature: 20.0, octaves: 4 });
    Heightfield::builder(n, n, h)
        .spacing(1.0, 1.0)
        .origin(-(n as f64 - 1.0) / 2.0, -(n as f64 - 1.0) / 2.0)
        .build()
        .unwrap()
}

/// A bowl steep enough that balls bouncing forever stay over it (its rim is higher than all the
/// balls' energy could lift one).
fn bowl(n: usize) -> Heightfield {
    let c = (n as f64 - 1.0) / 2.0;
    let h: Vec<f32> = (0..n * n)
        .map(|k| {
            let (x, y) = ((k % n) as f64 - c, (k / n) as f64 - c);
            (0.5 * (x * x + y * y)) as f32
        })
        .collect();
    Heightfield::builder(n, n, h).origin(-c, -c).build().unwrap()
}

/// Balls thrown from above the ground, apart from each other and from the fixed spheres.
fn throw(t: &dyn Terrain, n: usize, seed: u64, spread: f64, spheres: &[(DVec3, f64)]) -> Vec<Ball> {
    let mut rng = SplitMix64::new(seed);
    let mut balls: Vec<Ball> = Vec::new();
    while balls.len() < n {
        let (x, y) = (rng.range(-spread, spread), rng.range(-spread, spread));
        let ground = t.top_surface(DVec3::new(x, y, 0.0)).map_or(0.0, |s| s.point.z);
        let r = rng.range(0.1, 0.4);
        let b = Ball {
            p: DVec3::new(x, y, ground + r + rng.range(1.0, 8.0)),
            v: DVec3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), rng.range(-2.0, 4.0)),
            r,
            m: r * r * r,
        };
        let clear = balls.iter().all(|o| (o.p - b.p).length() > o.r + b.r)
            && spheres.iter().all(|&(s, rs)| (s - b.p).length() > rs + b.r)
            && ground_distance(t, b.p, b.r + 1.0) > b.r;
        if clear {
            balls.push(b);
        }
    }
    balls
}

/// Brute force: distance from p to the terrain (every triangle near it).
fn ground_distance(t: &dyn Terrain, p: DVec3, reach: f64) -> f64 {
    let region = Aabb::new(p - DVec3::splat(reach), p + DVec3::splat(reach));
    let mut d = f64::INFINITY;
    t.triangles_in(&region, &mut |_, tri| d = d.min((closest_point(&tri, p) - p).length()));
    d
}

/// Checks that no ball is inside the terrain, a fixed sphere or another ball at time `t`.
fn check_apart<T: Terrain>(
    t: &dyn Terrain,
    m: &TerrainBalls<T>,
    spheres: &[(DVec3, f64)],
    n: usize,
    time: f64,
    when: &str,
) {
    let slack = 1e-7;
    let alive: Vec<u32> = (0..n as u32).filter(|&k| m.is_alive(k)).collect();
    for &k in &alive {
        let (p, r) = (m.position(k, time), m.radius(k));
        let d = ground_distance(t, p, r + 1.0);
        assert!(d >= r - slack, "{when}: ball {k} is {:.3e} inside the ground", r - d);
        for &(s, rs) in spheres {
            assert!((p - s).length() >= r + rs - slack, "{when}: ball {k} inside a fixed sphere");
        }
    }
    // Balls meet each other where their behaviour is detailed (everywhere without a level of detail).
    let near: Vec<u32> = alive.iter().copied().filter(|&k| m.is_near(k)).collect();
    for (x, &a) in near.iter().enumerate() {
        for &b in &near[x + 1..] {
            let d = (m.position(a, time) - m.position(b, time)).length();
            assert!(
                d >= m.radius(a) + m.radius(b) - slack,
                "{when}: balls {a} and {b} overlap by {:.3e}",
                m.radius(a) + m.radius(b) - d
            );
        }
    }
}

fn run_and_check(
    t: &dyn Terrain,
    spheres: Vec<(DVec3, f64)>,
    balls: &[Ball],
    params: BallParams,
    until: f64,
) -> (u64, usize) {
    let n = balls.len();
    let model = TerrainBalls::new(t, spheres.clone(), balls, params).unwrap();
    let mut sim = Simulation::new(model, 0.0);
    let mut events = 0u64;
    let mut last = 0.0;
    let frames = (until * 30.0) as usize;
    for f in 1..=frames {
        let ft = f as f64 / 30.0;
        while let Some(e) = sim.step(ft) {
            assert!(e.time >= last, "events out of order");
            last = e.time;
            events += 1;
            if events.is_multiple_of(7) {
                check_apart(t, sim.model(), &spheres, n, e.time, &format!("event {events} ({:?})", e.kind));
            }
        }
        sim.advance_to(ft, |_, _| {});
        if f % 3 == 0 {
            check_apart(t, sim.model(), &spheres, n, ft, &format!("frame {f}"));
        }
    }
    let rested = (0..n as u32).filter(|&k| sim.model().is_alive(k) && sim.model().is_resting(k)).count();
    (events, rested)
}

#[test]
fn balls_on_a_heightfield_stay_out_of_the_ground_and_each_other_and_come_to_rest() {
    let hf = hills(48);
    let spheres = vec![
        (DVec3::new(5.0, 5.0, hf.height_at(5.0, 5.0).unwrap()), 2.0),
        (DVec3::new(-8.0, 3.0, hf.height_at(-8.0, 3.0).unwrap()), 1.5),
    ];
    let balls = throw(&hf, 60, 1, 18.0, &spheres);
    let (events, rested) = run_and_check(
        &hf,
        spheres.clone(),
        &balls,
        BallParams::default().with_restitution(0.6).with_rest_speed(0.3),
        12.0,
    );
    assert!(events > 200, "{events} events");
    assert!(rested > 30, "only {rested} balls at rest");
}

#[test]
fn balls_on_a_polygon_tin_too() {
    let hf = hills(33);
    let soup = PolygonSoup::from_heightfield(&hf);
    let tin = PolygonTerrain::from_soup(&soup, Frame::z_up(), QuadtreeParams::default()).unwrap();
    let balls = throw(&tin, 30, 2, 12.0, &[]);
    let (events, _) =
        run_and_check(&tin, vec![], &balls, BallParams::default().with_restitution(0.7).with_rest_speed(0.3), 6.0);
    assert!(events > 50);
}

#[test]
fn balls_on_the_procedural_world_too() {
    let cache = CacheParams::default()
        .with_layers(7)
        .with_inner_radius(4)
        .with_mesh_finest(1)
        .with_mesh_coarsest(5)
        .with_lod_height(4.0);
    let params = WorldParams::default().with_seed(5).with_levels(9).with_relief(60.0);
    let w: World = World::new(params, cache, DVec3::new(0.0, 0.0, 3.0)).unwrap();
    let balls = throw(&w, 30, 6, 12.0, &[]);
    let (events, _) =
        run_and_check(&w, vec![], &balls, BallParams::default().with_restitution(0.7).with_rest_speed(0.3), 6.0);
    assert!(events > 50, "{events} events");
}

/// A viewer walking (and climbing, so that the finest layers come and go) over the procedural world
/// with balls in flight and at rest around its path: the cache refines the ground ahead and coarsens
/// it behind under the balls, and the level of detail follows the viewer. At every frame, before the
/// move and after it, no ball is inside the ground as drawn then, and near balls are apart.
#[test]
fn balls_on_a_moving_world_stay_out_of_the_drawn_ground() {
    let cache = CacheParams::default()
        .with_layers(7)
        .with_inner_radius(4)
        .with_mesh_finest(0)
        .with_mesh_coarsest(5)
        .with_lod_height(4.0);
    let params = WorldParams::default().with_seed(9).with_levels(9).with_relief(60.0);
    let start = DVec3::new(-24.0, 0.0, 3.0);
    let w: World = World::new(params, cache, start).unwrap();
    let balls = throw(&w, 40, 11, 30.0, &[]);
    let n = balls.len();
    let lod = BehaviourLod { viewer: start, range: 12.0 };
    let bp = BallParams::default().with_restitution(0.6).with_rest_speed(0.4).with_lod(Some(lod));
    let floor = -w.generator().max_abs_height() - 1.0;
    let arena = Aabb::new(DVec3::new(-100.0, -100.0, floor), DVec3::new(100.0, 100.0, f64::INFINITY));
    let model = TerrainBalls::new(w, vec![], &balls, bp).unwrap().with_arena(arena).unwrap();
    let mut sim = Simulation::new(model, 0.0);
    let (mut total, mut viewer_changes, mut events) = (landfall::events::Regrounded::default(), 0, 0);
    for f in 1..=240 {
        let t = f as f64 / 30.0;
        events += sim.advance_to(t, |_, _| {});
        check_apart(sim.model().terrain(), sim.model(), &[], n, t, &format!("frame {f}, before the move"));
        // East at 6 m/s, up and down between 3 and 23 m over the ground.
        let x = start.x + 6.0 * t;
        let up = 3.0 + 20.0 * (t * 0.8).sin().abs();
        let g = sim.model().terrain().height_at(x, 0.0).unwrap_or(0.0);
        let viewer = DVec3::new(x, 0.0, g + up);
        let r = sim.change_ground(|w: &mut World| w.update(viewer).map(|_| w.changed_region())).unwrap();
        total += r;
        viewer_changes += sim.move_viewer(viewer).unwrap();
        check_apart(sim.model().terrain(), sim.model(), &[], n, t, &format!("frame {f}, after the move"));
        // A resting ball rests on something: the ground as drawn now, or a resting ball.
        let m = sim.model();
        for k in (0..n as u32).filter(|&k| m.is_alive(k) && m.is_resting(k)) {
            let (p, r) = (m.position(k, t), m.radius(k));
            let on_ball = (0..n as u32).any(|j| {
                j != k && m.is_alive(j) && m.is_resting(j) && (m.position(j, t) - p).length() <= r + m.radius(j) + 1e-6
            });
            let gap = ground_distance(m.terrain(), p, r + 1.0) - r;
            assert!(on_ball || gap <= 1e-6, "frame {f}: resting ball {k} floats {gap:.3e} over the ground");
        }
    }
    let resting = (0..n as u32).filter(|&k| sim.model().is_alive(k) && sim.model().is_resting(k)).count();
    assert!(events > 100, "{events} events");
    assert!(total.lifted + total.woken > 0, "the ground never moved under a ball: {total:?}");
    assert!(total.looked_at < 240 * n, "every ball looked at every frame: {total:?}");
    assert!(viewer_changes > 0, "no ball changed sides of the range");
    assert!(resting > 0, "no ball came to rest");
}

/// An owned heightfield edited under resting balls: ground raised into them lifts them out, ground
/// lowered under them wakes them and they fall to it; balls outside the edited box keep their
/// predictions; a box with a NaN means anywhere.
#[test]
fn an_edited_heightfield_under_resting_balls_lifts_or_wakes_them() {
    let n = 21;
    let hf = Heightfield::builder(n, n, vec![0.0; n * n]).origin(-10.0, -10.0).build().unwrap();
    // Three balls resting on the flat ground: two over the square to edit, one far from it.
    let at = [(-1.0, 0.0), (1.0, 0.5), (7.0, 7.0)];
    let balls: Vec<Ball> =
        at.iter().map(|&(x, y)| Ball { p: DVec3::new(x, y, 0.5), v: DVec3::ZERO, r: 0.5, m: 1.0 }).collect();
    let params = BallParams::default().with_restitution(0.3).with_rest_speed(0.5);
    let mut sim = Simulation::new(TerrainBalls::new(hf, vec![], &balls, params).unwrap(), 0.0);
    sim.advance_to(1.0, |_, _| {});
    assert!((0..3).all(|k| sim.model().is_resting(k)), "the balls rest");
    let edit = |sim: &mut Simulation<TerrainBalls<Heightfield>>, z: f32, nan: bool| {
        sim.change_ground(|t: &mut Heightfield| {
            // Samples −3..=3 in x and y (indices 7..=13) to `z`.
            t.set_samples(7, 7, 7, 7, &[z; 49])?;
            let (lo, hi) = (DVec3::new(-3.0, -3.0, f64::NEG_INFINITY), DVec3::new(3.0, 3.0, f64::INFINITY));
            Ok::<_, landfall::HeightfieldError>(Some(if nan {
                Aabb { min: DVec3::NAN, max: hi }
            } else {
                Aabb { min: lo, max: hi }
            }))
        })
        .unwrap()
    };
    // Up by 0.25 m: the two over the square are lifted, the far one is not looked at.
    let r = edit(&mut sim, 0.25, false);
    assert_eq!((r.looked_at, r.lifted, r.woken), (2, 2, 0), "{r:?}");
    for k in 0..2 {
        let p = sim.model().position(k, 1.0);
        assert!((p.z - 0.75).abs() < 1e-6, "ball {k} at {p}");
    }
    check_apart(sim.model().terrain(), sim.model(), &[], 3, 1.0, "after the rise");
    // Down by 1 m (a box with a NaN: everywhere): the two wake and fall to it, the far one stays.
    let r = edit(&mut sim, -0.75, true);
    assert_eq!((r.looked_at, r.lifted, r.woken), (3, 0, 2), "{r:?}");
    sim.advance_to(4.0, |_, _| {});
    for k in 0..2 {
        let p = sim.model().position(k, 4.0);
        assert!(sim.model().is_resting(k) && (p.z + 0.25).abs() < 1e-6, "ball {k} at {p}");
    }
    assert_eq!(sim.model().position(2, 4.0), balls[2].p.with_z(sim.model().position(2, 4.0).z));
    check_apart(sim.model().terrain(), sim.model(), &[], 3, 4.0, "after the fall");
}

/// Every event of a run, to compare runs.
fn event_log(t: &dyn Terrain, balls: &[Ball], params: BallParams, until: f64) -> (Vec<(f64, u32, u32)>, u64) {
    let mut sim = Simulation::new(TerrainBalls::new(t, vec![], balls, params).unwrap(), 0.0);
    let mut log = Vec::new();
    while let Some(e) = sim.step(until) {
        log.push((e.time, e.a, e.b));
    }
    (log, sim.model().counts().reinitialized)
}

#[test]
fn level_of_detail_of_behaviour_cuts_events_and_keeps_near_balls_apart() {
    let hf = bowl(61);
    let balls = throw(&hf, 150, 7, 20.0, &[]);
    let base = BallParams::default().with_restitution(0.8).with_rest_speed(0.3);
    let (full, _) = event_log(&hf, &balls, base, 8.0);
    // An unbounded range is the full simulation, event for event.
    let everywhere = base.with_lod(Some(BehaviourLod { viewer: DVec3::ZERO, range: f64::INFINITY }));
    assert_eq!(event_log(&hf, &balls, everywhere, 8.0).0, full);
    // A viewer at one side: fewer events; near balls never overlap, no ball is ever in the ground.
    let lod = base.with_lod(Some(BehaviourLod { viewer: DVec3::new(-15.0, 0.0, 0.0), range: 8.0 }));
    let (cut, _) = event_log(&hf, &balls, lod, 8.0);
    let pairs = |log: &[(f64, u32, u32)]| log.iter().filter(|e| e.2 != u32::MAX).count();
    assert!(
        pairs(&cut) < pairs(&full),
        "ball collisions: {} with a level of detail, {} without",
        pairs(&cut),
        pairs(&full)
    );
    run_and_check(&hf, vec![], &balls, lod, 8.0);
}

#[test]
fn a_ball_coming_into_range_inside_another_is_lifted_out() {
    // Two balls that overlap (as far balls may, having ignored each other) enter the range at the
    // start: one is lifted out of the other, and the run goes on with them apart.
    let hf = Heightfield::builder(21, 21, vec![0.0; 441]).origin(-10.0, -10.0).build().unwrap();
    let balls = [
        Ball { p: DVec3::new(0.0, 0.0, 0.6), v: DVec3::ZERO, r: 0.5, m: 1.0 },
        Ball { p: DVec3::new(0.3, 0.0, 0.7), v: DVec3::new(0.0, 0.0, 1.0), r: 0.4, m: 1.0 },
    ];
    let lod = BehaviourLod { viewer: DVec3::ZERO, range: 5.0 };
    let params = BallParams::default().with_restitution(0.5).with_rest_speed(0.3).with_lod(Some(lod));
    let sim = Simulation::new(TerrainBalls::new(&hf, vec![], &balls, params).unwrap(), 0.0);
    assert!(sim.model().counts().reinitialized >= 1);
    check_apart(&hf, sim.model(), &[], 2, 0.0, "after re-initialization");
    run_and_check(&hf, vec![], &balls, params, 3.0);
}

#[test]
fn elastic_bounces_keep_the_energy() {
    let hf = bowl(41);
    let mut balls = throw(&hf, 20, 3, 4.0, &[]);
    for b in &mut balls {
        // Equal masses: however the collisions share the energy, no ball can climb the rim.
        b.v *= 0.3;
        b.m = 1.0;
    }
    let params = BallParams::default().with_restitution(1.0).with_rest_speed(0.0);
    let model = TerrainBalls::new(&hf, vec![], &balls, params).unwrap();
    let mut sim = Simulation::new(model, 0.0);
    let e0 = sim.model().energy(0.0);
    let mut n = 0;
    while n < 3000 {
        let e = sim.step(f64::INFINITY).expect("elastic balls in a bowl never stop");
        assert!(!matches!(e.kind, BallEvent::Leave), "a ball left the bowl");
        n += 1;
    }
    let c = sim.model().counts();
    assert!(c.ground > 1000 && c.balls > 10, "{c:?}");
    let e1 = sim.model().energy(sim.now());
    assert!(((e1 - e0) / e0).abs() < 1e-9, "energy {e0} → {e1}: {:e} relative", (e1 - e0) / e0);
}

/// Every triangle of a terrain, swept one by one (the brute-force predictor).
struct Brute(Vec<[DVec3; 3]>);

impl SweepTarget for Brute {
    fn sweep(&self, c: DVec3, r: f64, v: DVec3) -> Option<TerrainContact> {
        let mut best: Option<Contact> = None;
        for t in &self.0 {
            if let Some(k) = sweep_sphere_triangle(c, r, v, t, best.map_or(1.0, |b| b.t)) {
                if best.is_none_or(|b| k.t < b.t) {
                    best = Some(k);
                }
            }
        }
        best.map(|contact| TerrainContact { contact, triangle: TriangleId::Polygon(0) })
    }
    fn sweep_ellipsoid(&self, _: DVec3, _: DVec3, _: DVec3) -> Option<TerrainContact> {
        unimplemented!()
    }
    fn sweep_capsule(&self, _: DVec3, _: DVec3, _: f64, _: DVec3) -> Option<TerrainContact> {
        unimplemented!()
    }
    fn gather(&self, _: &Aabb, _: &mut dyn FnMut(TriangleId, [DVec3; 3])) {}
}

#[test]
fn contacts_equal_a_predictor_that_sweeps_every_triangle() {
    let hf = hills(17);
    let mut tris = Vec::new();
    hf.triangles_in(&hf.bounds(), &mut |_, t| tris.push(t));
    let brute = Brute(tris);
    let fast = landfall::collide::TerrainSweep(&hf);
    let g = DVec3::new(0.0, 0.0, -9.81);
    let mut rng = SplitMix64::new(9);
    let mut hits = 0;
    for _ in 0..300 {
        let balls = throw(&hf, 1, rng.next_u64(), 7.0, &[]);
        let arc = Arc { p: balls[0].p, v: balls[0].v, g };
        let a = first_contact(&fast, &[], &arc, balls[0].r, 5.0);
        let b = first_contact(&brute, &[], &arc, balls[0].r, 5.0);
        match (a, b) {
            (Some(a), Some(b)) => {
                hits += 1;
                // Both stop within the tolerance of the surface: the times agree to what that
                // gap allows at the ball's speed.
                let speed = arc.velocity(a.tau).length().max(0.1);
                assert!((a.tau - b.tau).abs() <= 4.0 * TOLERANCE / speed + 1e-12, "{} vs {}", a.tau, b.tau);
            }
            (None, None) => {}
            (a, b) => panic!("one found a contact, the other not: {a:?} {b:?}"),
        }
    }
    assert!(hits > 200);
}

/// Balls refuse parameters out of range, naming the field.
#[test]
fn invalid_ball_params_are_refused_naming_the_field() {
    let hf = Heightfield::builder(5, 5, vec![0.0; 25]).build().unwrap();
    let balls = [Ball { p: DVec3::new(2.0, 2.0, 1.0), v: DVec3::ZERO, r: 0.5, m: 1.0 }];
    let lod = |viewer, range| Some(BehaviourLod { viewer, range });
    let p = BallParams::default();
    let mut bad = vec![
        (p.with_gravity(DVec3::new(0.0, f64::NAN, -9.81)), "gravity"),
        (p.with_gravity(DVec3::new(0.0, 0.0, f64::NEG_INFINITY)), "gravity"),
        (p.with_lod(lod(DVec3::new(f64::INFINITY, 0.0, 0.0), 5.0)), "lod.viewer"),
        (p.with_lod(lod(DVec3::ZERO, -1.0)), "lod.range"),
        (p.with_lod(lod(DVec3::ZERO, f64::NAN)), "lod.range"),
    ];
    for v in [f64::NAN, -0.1, 1.1, f64::INFINITY] {
        bad.push((p.with_restitution(v), "restitution"));
    }
    for v in [f64::NAN, -1.0, f64::INFINITY] {
        bad.push((p.with_rest_speed(v), "rest_speed"));
        bad.push((p.with_min_interval(v), "min_interval"));
    }
    for (params, field) in bad {
        assert_eq!(params.validate().unwrap_err().field, field, "{params:?}");
        let e = TerrainBalls::new(&hf, vec![], &balls, params).err().expect("refused");
        assert_eq!(e.field, field);
    }
    let edges = [
        p.with_restitution(0.0).with_rest_speed(0.0).with_min_interval(0.0),
        p.with_restitution(1.0).with_gravity(DVec3::ZERO),
        p.with_lod(lod(DVec3::ZERO, 0.0)),
        p.with_lod(lod(DVec3::ZERO, f64::INFINITY)),
    ];
    for params in edges {
        assert!(TerrainBalls::new(&hf, vec![], &balls, params).is_ok(), "{params:?}");
    }
    // The arena and a moving viewer.
    let nan = DVec3::new(f64::NAN, 0.0, 0.0);
    for arena in [
        Aabb { min: nan, max: DVec3::ONE },
        Aabb { min: DVec3::new(0.0, 0.0, f64::NEG_INFINITY), max: DVec3::ONE },
        Aabb { min: DVec3::ONE, max: DVec3::ZERO },
    ] {
        let e = TerrainBalls::new(&hf, vec![], &balls, p).unwrap().with_arena(arena).err().expect("refused");
        assert_eq!(e.field, "arena", "{arena:?}");
    }
    let open = Aabb { min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, -1.0), max: DVec3::INFINITY };
    assert!(TerrainBalls::new(&hf, vec![], &balls, p).unwrap().with_arena(open).is_ok());
    let mut sim =
        Simulation::new(TerrainBalls::new(&hf, vec![], &balls, p.with_lod(lod(DVec3::ZERO, 1.0))).unwrap(), 0.0);
    assert_eq!(sim.move_viewer(nan).unwrap_err().field, "lod.viewer");
    assert!(sim.move_viewer(DVec3::splat(1e300)).is_ok());
    // Each ball and fixed sphere, by its index.
    let good = balls[0];
    for ball in [
        Ball { r: 0.0, ..good },
        Ball { r: f64::NAN, ..good },
        Ball { m: -1.0, ..good },
        Ball { m: f64::INFINITY, ..good },
        Ball { p: DVec3::new(f64::NAN, 0.0, 0.0), ..good },
        Ball { v: DVec3::new(0.0, f64::INFINITY, 0.0), ..good },
    ] {
        let e = TerrainBalls::new(&hf, vec![], &[good, ball], p).err().expect("refused");
        assert_eq!(e.field, "balls");
        assert!(e.why.starts_with("ball 1 "), "{e}");
    }
    for sphere in [(DVec3::ZERO, -1.0), (DVec3::ZERO, f64::NAN), (DVec3::new(0.0, 0.0, f64::INFINITY), 1.0)] {
        let e = TerrainBalls::new(&hf, vec![(DVec3::ONE, 1.0), sphere], &balls, p).err().expect("refused");
        assert_eq!(e.field, "spheres");
        assert!(e.why.starts_with("sphere 1 "), "{e}");
    }
    assert!(TerrainBalls::new(&hf, vec![(DVec3::ONE, 0.0)], &balls, p).is_ok(), "a fixed sphere may be a point");
}
