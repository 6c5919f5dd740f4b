//! Whole-crowd properties against the brute-force [`Checker`]: nothing in view overlaps or jumps,
//! whatever the seeds, the viewer's path, the start (entities piled on each other at the edge of
//! view) or the distance from the origin.

use super::*;
use glam::DVec2;
use proptest::prelude::*;

/// `n` couples: box steps on a jittered grid, and dancers sharing loops (so that faster ones catch
/// up with slower ones), around `origin`.
fn crowd(seed: u64, n: usize, origin: DVec2, spacing: f64) -> Vec<Entity> {
    let mut rng = crate::rng::SplitMix64::new(seed);
    let lanes: Vec<Route> = (0..3)
        .map(|k| {
            let h = 4.0 + 3.0 * k as f64;
            Route::closed(vec![
                origin + DVec2::new(-h, -h),
                origin + DVec2::new(h, -h),
                origin + DVec2::new(h, h),
                origin + DVec2::new(-h, h),
            ])
            .unwrap()
        })
        .collect();
    (0..n)
        .map(|k| {
            let route = if k % 2 == 0 {
                lanes[k % 3].clone()
            } else {
                let at = DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * spacing;
                Route::box_step(origin + at, rng.range(0.3, 1.2)).unwrap()
            };
            Entity { seed: rng.next_u64(), route, radius: rng.range(0.2, 0.5), speed: rng.range(0.2, 1.5) }
        })
        .collect()
}

/// A viewer walking between random waypoints, looking where it goes, with a narrow field of view
/// (so that entities keep entering and leaving it).
#[derive(Clone, Debug)]
struct Walk {
    points: Vec<DVec2>,
    speed: f64,
    /// Where the viewer looks, if not where it goes.
    look: Option<DVec2>,
    /// How far it sees.
    range: f64,
}

impl Walk {
    fn at(&self, t: f64) -> (Viewer, FieldOfView) {
        let mut s = t * self.speed;
        for w in self.points.windows(2) {
            let len = w[0].distance(w[1]);
            let dir = (w[1] - w[0]).normalize_or(DVec2::X);
            if s <= len {
                let v = Viewer { position: w[0] + dir * s, velocity: dir * self.speed };
                return (v, FieldOfView { range: self.range, ..FieldOfView::new(self.look.unwrap_or(dir), 0.5) });
            }
            s -= len;
        }
        let last = *self.points.last().unwrap();
        (Viewer { position: last, velocity: DVec2::ZERO }, FieldOfView::new(DVec2::X, 0.5))
    }
}

/// A field of view with a wall that comes and goes: every other `period` seconds, nothing right of
/// the viewer is visible (visibility that changes at once, as when a door closes or a corner is
/// turned).
#[derive(Clone, Copy, Debug)]
struct Blink {
    fov: FieldOfView,
    from: DVec2,
    hidden: bool,
}

impl Scene for Blink {
    fn visible(&self, from: DVec2, at: DVec2, radius: f64) -> bool {
        self.fov.visible(from, at, radius) && !(self.hidden && at.x - radius > self.from.x)
    }
}

/// Runs `seconds` at `fps` and returns the totals the checker saw and the last frame's stats.
fn run(entities: Vec<Entity>, params: CrowdParams, walk: &Walk, seconds: f64, fps: f64) -> (Seen, u64, usize) {
    run_blinking(entities, params, walk, seconds, fps, f64::INFINITY)
}

/// [`run`] with a [`Blink`] of `period` seconds.
fn run_blinking(
    entities: Vec<Entity>,
    params: CrowdParams,
    walk: &Walk,
    seconds: f64,
    fps: f64,
    period: f64,
) -> (Seen, u64, usize) {
    let mut b = Behaviours::new(entities, params).unwrap();
    let mut checker = Checker::new();
    let mut total = Seen::default();
    let mut snaps = 0;
    for f in 0..=(seconds * fps) as usize {
        let t = f as f64 / fps;
        let (viewer, fov) = walk.at(t);
        let fov = Blink { fov, from: viewer.position, hidden: (t / period) as u64 % 2 == 1 };
        let stats = b.frame(t, &viewer, &fov).unwrap();
        snaps += stats.snaps;
        let seen = checker.observe(&b, &viewer, &fov);
        total.in_view += seen.in_view;
        total.overlaps += seen.overlaps;
        total.teleports += seen.teleports;
        assert_eq!(stats.full + stats.approximate + stats.dormant, b.len());
        // The invariant behind it: full-detail entities, seen or not, never overlap.
        let full: Vec<(DVec2, f64)> =
            (0..b.len()).filter(|&i| b.rep(i) == Rep::Full).map(|i| (b.position(i), b.entity(i).radius)).collect();
        assert_eq!(overlapping_pairs(&full), 0, "full-detail entities overlap at {t}");
    }
    (total, b.events(), snaps)
}

fn walk_strategy(origin: DVec2) -> impl Strategy<Value = Walk> {
    (
        prop::collection::vec((-25.0f64..25.0, -25.0f64..25.0), 2..5),
        0.5f64..6.0,
        prop_oneof![Just(f64::INFINITY), 5.0f64..30.0],
    )
        .prop_map(move |(p, speed, range)| Walk {
            points: p.into_iter().map(|(x, y)| origin + DVec2::new(x, y)).collect(),
            speed,
            look: None,
            range,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn nothing_in_view_overlaps_or_jumps(
        seed in any::<u64>(),
        n in 10usize..60,
        far in prop_oneof![Just(0.0), Just(1e6), Just(-3.7e6)],
        walk in walk_strategy(DVec2::ZERO),
        period in prop_oneof![Just(f64::INFINITY), 0.3f64..3.0],
        hidden in prop_oneof![Just(0.25), 0.005f64..0.05],
    ) {
        let origin = DVec2::new(far, -far / 2.0);
        let walk = Walk { points: walk.points.iter().map(|p| *p + origin).collect(), ..walk };
        // A low weight out of sight makes entities go dormant a few metres behind a wall.
        let importance = ImportanceParams::default().with_min_projected(0.04).with_hidden_weight(hidden);
        let params = CrowdParams::default().with_importance(importance);
        let (seen, _, _) = run_blinking(crowd(seed, n, origin, 15.0), params, &walk, 12.0, 10.0, period);
        prop_assert_eq!((seen.overlaps, seen.teleports), (0, 0));
    }

    #[test]
    fn piled_up_at_the_edge_of_view_they_snap_apart(seed in any::<u64>(), n in 2usize..12, edge in 0.4f64..0.6) {
        // Every entity on one loop at the same place (one seed: the same start, the same steps),
        // about the edge of a 0.5 rad field of view.
        let at = DVec2::new(edge.cos(), edge.sin()) * 10.0;
        let route = Route::box_step(at, 3.0).unwrap();
        let entities: Vec<Entity> = (0..n).map(|_| Entity { seed, route: route.clone(), radius: 0.3, speed: 0.8 }).collect();
        let walk = Walk { points: vec![DVec2::ZERO, DVec2::new(0.0, 1.0)], speed: 0.05, look: Some(DVec2::X), range: f64::INFINITY };
        let (seen, _, _) = run(entities, CrowdParams::default(), &walk, 20.0, 20.0);
        prop_assert_eq!((seen.overlaps, seen.teleports), (0, 0));
        prop_assert!(seen.in_view > 0);
    }

    #[test]
    fn dormant_reconstruction_is_the_approximate_closed_form(seed in any::<u64>(), far in prop_oneof![Just(0.0), Just(1e6)], t in 0.0f64..300.0) {
        // An entity at a distance where it is Approximate (its importance between the thresholds),
        // out of view behind the viewer, from the first frame on.
        let p = ImportanceParams::default();
        let d = 0.9 / ((p.approx_enter + p.full_leave) / 2.0);
        let origin = DVec2::new(far, far);
        let e = Entity { seed, route: Route::box_step(origin + DVec2::new(-d, 0.0), 0.5).unwrap(), radius: 0.45, speed: 0.4 };
        let mut b = Behaviours::new(vec![e], CrowdParams::default().with_importance(p.with_hidden_weight(1.0).with_motion_weight(0.0).with_twirl_attention(1.0))).unwrap();
        let v = Viewer { position: origin, velocity: DVec2::ZERO };
        let fov = FieldOfView::new(DVec2::X, 0.3);
        for k in 0..=10 {
            let now = t * k as f64 / 10.0;
            b.frame(now, &v, &fov).unwrap();
            prop_assert_eq!(b.rep(0), Rep::Approximate);
            prop_assert!(b.position(0).distance(b.dormant_position(0, now)) < 1e-9 * (1.0 + far), "at {now}");
        }
        prop_assert!(b.events() <= 2 * (t / (16.0 * 0.5)).ceil() as u64 + 2, "{} events", b.events());
    }
}

#[test]
fn far_fewer_events_than_everything_full() {
    let walk =
        Walk { points: vec![DVec2::new(-30.0, 0.0), DVec2::new(30.0, 0.0)], speed: 1.0, look: None, range: 20.0 };
    let mut entities = Vec::new();
    for k in 0..4 {
        entities.extend(crowd(k, 50, DVec2::new(k as f64 * 60.0, 0.0), 15.0));
    }
    let (lod, lod_events, snaps) = run(entities.clone(), CrowdParams::default(), &walk, 30.0, 10.0);
    assert!(lod.in_view > 1000 && snaps > 0, "{lod:?}, {snaps} snaps: the test sees too little");
    let (full, full_events, _) = run(entities, CrowdParams::default().with_all_full(true), &walk, 30.0, 10.0);
    assert_eq!((lod.overlaps, lod.teleports, full.overlaps, full.teleports), (0, 0, 0, 0));
    assert!(lod_events * 2 < full_events, "{lod_events} events with levels of detail, {full_events} all full");
}

#[test]
fn an_entity_hovering_at_a_threshold_does_not_flip_every_frame() {
    let p = ImportanceParams::default().with_motion_weight(0.0).with_twirl_attention(1.0).with_hidden_weight(1.0);
    let e = Entity { seed: 1, route: Route::box_step(DVec2::ZERO, 0.01).unwrap(), radius: 0.45, speed: 0.0 };
    let mut b = Behaviours::new(vec![e], CrowdParams::default().with_importance(p)).unwrap();
    let fov = FieldOfView::new(DVec2::X, 0.1); // looking away: never in view
    let d = 0.9 / p.full_enter;
    let mut flips = 0;
    let mut last = b.rep(0);
    for f in 0..400 {
        let wobble = if f % 2 == 0 { 0.97 } else { 1.03 };
        let v = Viewer { position: DVec2::new(d * wobble, 0.0), velocity: DVec2::ZERO };
        b.frame(f as f64 * 0.05, &v, &fov).unwrap();
        flips += usize::from(b.rep(0) != last);
        last = b.rep(0);
    }
    assert_eq!(flips, 1, "Dormant → Full once, and it stays");
}

#[test]
fn a_route_with_no_clear_place_withholds_the_entity() {
    // Ten dancers on a loop with room for four: the first ones in view take the room.
    let route = Route::box_step(DVec2::new(10.0, 0.0), 0.5).unwrap();
    let entities: Vec<Entity> =
        (0..10).map(|k| Entity { seed: k, route: route.clone(), radius: 0.3, speed: 0.5 }).collect();
    let mut b = Behaviours::new(entities, CrowdParams::default()).unwrap();
    let v = Viewer::default();
    let fov = FieldOfView::new(DVec2::X, 0.5);
    let stats = b.frame(0.0, &v, &fov).unwrap();
    assert!(stats.withheld > 0 && stats.full + stats.withheld == 10, "{stats:?}");
    assert_eq!(Checker::new().observe(&b, &v, &fov).overlaps, 0);
}

#[test]
fn bad_input_is_refused_by_name() {
    let e = |radius, speed| Entity { seed: 0, route: Route::box_step(DVec2::ZERO, 1.0).unwrap(), radius, speed };
    assert!(Behaviours::new(vec![e(0.5, 1.0), e(0.0, 1.0)], CrowdParams::default())
        .unwrap_err()
        .to_string()
        .starts_with("entity 1: radius"));
    assert!(Behaviours::new(vec![e(0.5, f64::NAN)], CrowdParams::default())
        .unwrap_err()
        .to_string()
        .starts_with("entity 0: speed"));
    let far = Entity {
        route: Route::box_step(DVec2::splat(1e300), 1.0).unwrap_or_else(|_| Route::box_step(DVec2::ZERO, 1.0).unwrap()),
        ..e(0.5, 1.0)
    };
    let _ = Behaviours::new(vec![far], CrowdParams::default());
    let mut b = Behaviours::new(vec![e(0.5, 1.0)], CrowdParams::default()).unwrap();
    let fov = FieldOfView::new(DVec2::X, 0.5);
    b.frame(1.0, &Viewer::default(), &fov).unwrap();
    assert!(matches!(b.frame(0.5, &Viewer::default(), &fov), Err(BehaveError::Time { .. })));
    assert!(matches!(b.frame(f64::NAN, &Viewer::default(), &fov), Err(BehaveError::Time { .. })));
    let nan = Viewer { position: DVec2::NAN, velocity: DVec2::ZERO };
    assert!(matches!(b.frame(2.0, &nan, &fov), Err(BehaveError::Viewer(_))));
}
