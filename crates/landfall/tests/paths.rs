//! Paths (`world::Planner`) against brute force: every segment clear of every inflated obstacle
//! (exact f64 point–segment distance), over ground within the slope limit (sampled every 5 cm),
//! from the start to the goal on the ground; lengths against A* on a fine uniform grid; repair
//! against planning afresh.

use glam::DVec2;
use landfall::support::SplitMix64;
use landfall::world::{Agent, Disc, PathError, Planner, Route};
use landfall::{Heightfield, Terrain};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Flat ground of `n × n` samples `spacing` apart from the origin.
fn flat(n: usize, spacing: f64) -> Heightfield {
    Heightfield::builder(n, n, vec![0.0; n * n]).spacing(spacing, spacing).build().unwrap()
}

/// Distance from `p` to the segment a–b, written independently of the library's (projection on
/// the line when it falls inside, else the nearer end).
fn seg_dist(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let d = b - a;
    let along = (p - a).dot(d);
    if along <= 0.0 || d == DVec2::ZERO {
        return p.distance(a);
    }
    if along >= d.length_squared() {
        return p.distance(b);
    }
    (d.perp_dot(p - a)).abs() / d.length()
}

/// Checks a route: from `a` to `b`, corners on the ground, every segment at least the inflated
/// radius from every disc, and the ground within `max_slope` at points every 5 cm.
fn check(route: &Route, a: DVec2, b: DVec2, discs: &[Disc], agent: &Agent, ground: &dyn Terrain) {
    let p = route.xy();
    assert!(p.len() >= 2, "a route has two corners at least");
    assert_eq!(p[0], a, "starts at the start");
    assert_eq!(*p.last().unwrap(), b, "ends at the goal");
    for q in &route.points {
        let g = ground.top_surface(q.truncate().extend(0.0)).expect("corner over ground").point.z;
        assert!((q.z - g).abs() < 1e-9, "corner {q} not on the ground ({g})");
    }
    let cos = agent.max_slope.cos();
    for w in p.windows(2) {
        for d in discs {
            let r = d.radius + agent.radius;
            let dist = seg_dist(w[0], w[1], d.center);
            assert!(dist >= r - 1e-9 * (1.0 + r), "segment {}–{} is {dist} from a disc needing {r}", w[0], w[1]);
        }
        let n = (w[0].distance(w[1]) / 0.05).ceil().max(1.0) as usize;
        for k in 0..=n {
            let s = w[0].lerp(w[1], k as f64 / n as f64);
            let sp = ground.top_surface(s.extend(0.0)).expect("ground under the path");
            assert!(sp.normal.z >= cos - 1e-12, "ground at {s} steeper than the limit");
        }
    }
}

/// Length of the shortest 8-connected path on a uniform grid of cells `h` wide over [lo, hi]
/// whose cell centres are clear of every inflated disc; diagonal steps need both
/// side cells free. The start's and goal's own cells count as free.
fn grid_optimum(discs: &[Disc], r: f64, lo: DVec2, hi: DVec2, h: f64, a: DVec2, b: DVec2) -> Option<f64> {
    let (nx, ny) = (((hi.x - lo.x) / h) as usize, ((hi.y - lo.y) / h) as usize);
    let center = |i: usize, j: usize| lo + (DVec2::new(i as f64, j as f64) + 0.5) * h;
    let cell = |p: DVec2| {
        let u = (p - lo) / h;
        ((u.x as usize).min(nx - 1), (u.y as usize).min(ny - 1))
    };
    let (sa, sb) = (cell(a), cell(b));
    let mut free = vec![false; nx * ny];
    for j in 0..ny {
        for i in 0..nx {
            let c = center(i, j);
            free[j * nx + i] =
                (i, j) == sa || (i, j) == sb || discs.iter().all(|d| c.distance(d.center) >= d.radius + r);
        }
    }
    let mut dist = vec![f64::INFINITY; nx * ny];
    let mut heap = BinaryHeap::new();
    let k0 = sa.1 * nx + sa.0;
    dist[k0] = a.distance(center(sa.0, sa.1));
    heap.push((Reverse(ordered(dist[k0])), k0));
    while let Some((Reverse(d), k)) = heap.pop() {
        let d = f64::from_bits(d);
        if d > dist[k] {
            continue;
        }
        let (i, j) = (k % nx, k / nx);
        if (i, j) == sb {
            return Some(d + center(i, j).distance(b));
        }
        for (di, dj) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)] {
            let (ni, nj) = (i as i64 + di, j as i64 + dj);
            if ni < 0 || nj < 0 || ni >= nx as i64 || nj >= ny as i64 {
                continue;
            }
            let (ni, nj) = (ni as usize, nj as usize);
            let ok = |i: usize, j: usize| free[j * nx + i];
            if !ok(ni, nj) || (di != 0 && dj != 0 && (!ok(ni, j) || !ok(i, nj))) {
                continue;
            }
            let nd = d + h * if di != 0 && dj != 0 { std::f64::consts::SQRT_2 } else { 1.0 };
            let nk = nj * nx + ni;
            if nd < dist[nk] {
                dist[nk] = nd;
                heap.push((Reverse(ordered(nd)), nk));
            }
        }
    }
    None
}

/// Non-negative f64s order as their bits.
fn ordered(v: f64) -> u64 {
    v.to_bits()
}

/// `n` random discs in the square [0, side]², radii in [rmin, rmax], none within `keep` of the
/// points in `clear` (inflated by the agent's `r`).
fn field(rng: &mut SplitMix64, n: usize, side: f64, (rmin, rmax): (f64, f64), r: f64, clear: &[DVec2]) -> Vec<Disc> {
    let mut out = Vec::new();
    while out.len() < n {
        let d = Disc { center: DVec2::new(rng.range(0.0, side), rng.range(0.0, side)), radius: rng.range(rmin, rmax) };
        if clear.iter().all(|p| p.distance(d.center) > d.radius + r) {
            out.push(d);
        }
    }
    out
}

/// One random field at a scale: `scale` 1 for a 0.5 m walker in a 100 m square, 40 for a 20 m
/// giant in a 4 km one.
fn random_case(seed: u64, n: usize, radius: f64) {
    let scale = radius / 0.5;
    let side = 100.0 * scale;
    let ground = flat(101, scale);
    let mut rng = SplitMix64::new(seed);
    let a = DVec2::new(rng.range(5.0, 20.0), rng.range(5.0, 95.0)) * scale;
    let b = DVec2::new(rng.range(80.0, 95.0), rng.range(5.0, 95.0)) * scale;
    let discs = field(&mut rng, n, side, (0.3 * scale, 5.0 * scale), radius, &[a, b]);
    let agent = Agent::default().with_radius(radius).with_slope_step(scale);
    let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, side).unwrap();
    let route = planner.find_path(a, b);
    let (lo, hi) = planner.region();
    let hi = hi.min(DVec2::splat(side));
    let optimum = grid_optimum(&discs, radius, lo, hi, 0.2 * scale, a, b);
    match (route, optimum) {
        (Ok(route), Some(opt)) => {
            check(&route, a, b, &discs, &agent, &ground);
            assert!(route.length() <= 1.05 * opt, "length {} against the fine grid's {opt}", route.length());
        }
        (Err(PathError::NoPath(..)), None) => {}
        (Ok(route), None) => check(&route, a, b, &discs, &agent, &ground),
        (r, opt) => panic!("planner {r:?}, fine grid {opt:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A 0.5 m walker among up to 60 obstacles: valid, within 5 % of the fine-grid optimum.
    #[test]
    fn walker_paths_are_valid_and_short(seed in any::<u64>(), n in 0usize..60) {
        random_case(seed, n, 0.5);
    }

    /// A 20 m giant (16 m cells) among obstacles forty times larger: the same.
    #[test]
    fn giant_paths_are_valid_and_short(seed in any::<u64>(), n in 0usize..60) {
        random_case(seed, n, 20.0);
    }

    /// Goals touching an inflated obstacle exactly (grazes) are reachable and the route stays
    /// clear.
    #[test]
    fn grazing_goals(seed in any::<u64>(), n in 1usize..30, angle in 0.0f64..std::f64::consts::TAU) {
        let ground = flat(101, 1.0);
        let mut rng = SplitMix64::new(seed);
        let a = DVec2::new(10.0, 50.0);
        let mut discs = field(&mut rng, n, 100.0, (0.3, 4.0), 0.5, &[a]);
        let target = Disc { center: DVec2::new(75.0, 50.0), radius: 3.0 };
        discs.retain(|d| d.center.distance(target.center) > d.radius + 3.0 + 2.0);
        discs.push(target);
        let b = target.center + DVec2::from_angle(angle) * (target.radius + 0.5);
        // Not moved to walkable ground: a goal rounded inside is refused, as below.
        let agent = Agent::default().with_snap(0.0);
        let others_clear = discs.iter().all(|d| b.distance(d.center) >= d.radius + 0.5);
        prop_assume!(others_clear);
        let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0).unwrap();
        match planner.find_path(a, b) {
            Ok(route) => check(&route, a, b, &discs, &agent, &ground),
            Err(PathError::InObstacle(..)) => {
                // The graze point rounds inside: only when it is within rounding of the circle.
                let d = b.distance(target.center) - 3.5;
                prop_assert!(d.abs() < 1e-12, "refused a goal {d} outside");
            }
            Err(e) => {
                let opt = grid_optimum(&discs, 0.5, DVec2::ZERO, DVec2::splat(100.0), 0.2, a, b);
                prop_assert!(opt.is_none(), "{e} but the fine grid finds {opt:?}");
            }
        }
    }

    /// Adding an obstacle on the path and repairing gives a valid path exactly when planning
    /// afresh does; removing one keeps the path valid.
    #[test]
    fn repair_matches_replanning(seed in any::<u64>(), n in 0usize..40, giant in any::<bool>()) {
        let radius = if giant { 20.0 } else { 0.5 };
        let scale = radius / 0.5;
        let ground = flat(101, scale);
        let mut rng = SplitMix64::new(seed);
        let a = DVec2::new(10.0, rng.range(10.0, 90.0)) * scale;
        let b = DVec2::new(90.0, rng.range(10.0, 90.0)) * scale;
        let mut discs = field(&mut rng, n, 100.0 * scale, (0.3 * scale, 4.0 * scale), radius, &[a, b]);
        let agent = Agent::default().with_radius(radius).with_slope_step(scale);
        let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0 * scale).unwrap();
        let Ok(route) = planner.find_path(a, b) else { return Ok(()) };
        // A new obstacle on a random point of the route, clear of both ends.
        let p = route.xy();
        let k = ((rng.uniform() * (p.len() - 1) as f64) as usize).min(p.len() - 2);
        let at = p[k].lerp(p[k + 1], rng.range(0.2, 0.8));
        let new = Disc { center: at, radius: rng.range(0.5, 8.0) * scale };
        prop_assume!(a.distance(at) > new.radius + radius && b.distance(at) > new.radius + radius);
        let id = planner.add_obstacle(new).unwrap();
        discs.push(new);
        let repaired = planner.repair(&route, new);
        let mut fresh = Planner::new(&ground, &discs, agent, DVec2::ZERO, 100.0 * scale).unwrap();
        let replanned = fresh.find_path(a, b);
        prop_assert_eq!(repaired.is_ok(), replanned.is_ok(), "repair {:?} against replanning {:?}", repaired, replanned);
        let Ok(repaired) = repaired else { return Ok(()) };
        check(&repaired, a, b, &discs, &agent, &ground);
        check(&replanned.unwrap(), a, b, &discs, &agent, &ground);
        // Removing it again: the repaired path stays valid (and may only get shorter).
        let gone = planner.remove_obstacle(id).unwrap();
        discs.pop();
        let back = planner.repair(&repaired, gone).unwrap();
        check(&back, a, b, &discs, &agent, &ground);
        prop_assert!(back.length() <= repaired.length() + 1e-9);
    }
}

/// A ridge steeper than the limit with one gentle pass: the walker goes through the pass, and
/// every sampled point of its path is within the slope limit.
#[test]
fn steep_ground_is_avoided() {
    let n = 121;
    let mut h = vec![0f32; n * n];
    for j in 0..n {
        for i in 0..n {
            // A wall 4 m high over 2 m (63°) along x = 60, except a gentle ramp near y = 90.
            let x = i as f64;
            let y = j as f64;
            let wall = ((x - 59.0) / 2.0).clamp(0.0, 1.0) * 4.0;
            let pass = ((y - 90.0).abs() < 6.0) as u8 as f64;
            h[j * n + i] = (wall * (1.0 - pass) + pass * ((x - 40.0) / 40.0).clamp(0.0, 1.0) * 4.0) as f32;
        }
    }
    let ground = Heightfield::builder(n, n, h).build().unwrap();
    let agent = Agent::default();
    let (a, b) = (DVec2::new(20.0, 20.0), DVec2::new(100.0, 20.0));
    let mut planner = Planner::new(&ground, &[], agent, DVec2::ZERO, 120.0).unwrap();
    let route = planner.find_path(a, b).unwrap();
    check(&route, a, b, &[], &agent, &ground);
    assert!(route.xy().iter().any(|p| p.y > 80.0), "goes round by the pass: {:?}", route.xy());
    // A steeper agent limit walks straight over the wall.
    let climber = agent.with_max_slope(70f64.to_radians());
    let mut planner = Planner::new(&ground, &[], climber, DVec2::ZERO, 120.0).unwrap();
    let route = planner.find_path(a, b).unwrap();
    assert_eq!(route.points.len(), 2);
}

/// Clear errors: bad radius, points inside obstacles, outside the region, not finite, on steep
/// ground; enclosed goals have no path.
#[test]
fn errors_name_the_problem() {
    let ground = flat(101, 1.0);
    let disc = Disc { center: DVec2::new(50.0, 50.0), radius: 4.0 };
    let e = Planner::new(&ground, &[], Agent::default().with_radius(0.2), DVec2::ZERO, 100.0).err().unwrap();
    assert_eq!(e.to_string(), "agent: radius: 0.2 is not a radius in [0.3, 30] metres");
    let e = Planner::new(&ground, &[], Agent::default().with_radius(31.0), DVec2::ZERO, 100.0).err().unwrap();
    assert!(matches!(e, PathError::Agent(_)));
    let strict = Agent::default().with_snap(0.0);
    let mut p = Planner::new(&ground, &[disc], strict, DVec2::ZERO, 100.0).unwrap();
    let a = DVec2::new(10.0, 10.0);
    assert!(matches!(p.find_path(a, DVec2::new(52.0, 50.0)), Err(PathError::InObstacle("goal", ..))));
    assert!(matches!(p.find_path(DVec2::new(46.0, 50.0), a), Err(PathError::InObstacle("start", ..))));
    // Moved to the nearest walkable point when within the snap distance (5 m by default), and
    // said how far; beyond it, the same error.
    let mut p = Planner::new(&ground, &[disc], Agent::default(), DVec2::ZERO, 100.0).unwrap();
    let route = p.find_path(a, DVec2::new(52.0, 50.0)).unwrap();
    let end = *route.xy().last().unwrap();
    assert!((end - DVec2::new(54.5, 50.0)).length() < 1e-6 && (route.moved[1] - 2.5).abs() < 1e-6, "{route:?}");
    assert_eq!(route.moved[0], 0.0);
    check(&route, a, end, &[disc], &Agent::default(), &ground);
    let far = Agent::default().with_snap(2.0);
    let mut p = Planner::new(&ground, &[disc], far, DVec2::ZERO, 100.0).unwrap();
    assert!(matches!(p.find_path(a, DVec2::new(52.0, 50.0)), Err(PathError::InObstacle("goal", ..))));
    assert!(Agent::default().with_snap(-1.0).validate().is_err());
    assert!(matches!(p.find_path(a, DVec2::new(500.0, 50.0)), Err(PathError::Outside { what: "goal", .. })));
    assert!(matches!(p.find_path(DVec2::new(f64::NAN, 1.0), a), Err(PathError::NotFinite("start", ..))));
    // Exactly touching the inflated disc is allowed.
    let touch = DVec2::new(54.5, 50.0);
    let route = p.find_path(a, touch).unwrap();
    check(&route, a, touch, &[disc], &Agent::default(), &ground);
    // Off the heightfield: no ground.
    let mut off = Planner::new(&ground, &[], strict, DVec2::ZERO, 200.0).unwrap();
    assert!(matches!(off.find_path(a, DVec2::new(150.0, 150.0)), Err(PathError::Steep("goal", ..))));
    // A goal inside a ring of obstacles.
    let ring: Vec<Disc> = (0..24)
        .map(|k| Disc { center: DVec2::new(50.0, 50.0) + DVec2::from_angle(k as f64 * 0.2618) * 10.0, radius: 1.5 })
        .collect();
    let mut p = Planner::new(&ground, &ring, Agent::default(), DVec2::ZERO, 100.0).unwrap();
    assert!(matches!(p.find_path(a, DVec2::new(50.0, 50.0)), Err(PathError::NoPath(..))));
    assert!(matches!(Planner::new(&ground, &[], Agent::default(), DVec2::ZERO, 1e6), Err(PathError::TooLarge { .. })));
    assert!(matches!(Planner::new(&ground, &[], Agent::default(), DVec2::ZERO, f64::NAN), Err(PathError::Side(_))));
    let bad = [disc, Disc { center: DVec2::new(1.0, f64::INFINITY), radius: 1.0 }];
    let e = Planner::new(&ground, &bad, Agent::default(), DVec2::ZERO, 100.0).err().unwrap();
    assert!(matches!(e, PathError::Obstacle { index: 1, .. }), "{e}");
    let mut p = Planner::new(&ground, &[], Agent::default(), DVec2::ZERO, 100.0).unwrap();
    assert!(p.add_obstacle(Disc { center: DVec2::ZERO, radius: -1.0 }).is_err());
}

/// Ground of `n × n` samples 1 m apart, heights random in [0, `relief`): steep where neighbours
/// differ by more than the limit allows.
fn bumpy(rng: &mut SplitMix64, n: usize, relief: f64) -> Heightfield {
    let h: Vec<f32> = (0..n * n).map(|_| rng.range(0.0, relief) as f32).collect();
    Heightfield::builder(n, n, h).build().unwrap()
}

/// The nearest point to `p` within `reach` that the planner calls walkable and that is clear of
/// every inflated disc by exact distance, among points `h` apart (brute force).
fn brute_nearest(planner: &Planner, discs: &[Disc], r: f64, p: DVec2, reach: f64, h: f64) -> Option<f64> {
    let k = (reach / h).ceil() as i64;
    let mut best: Option<f64> = None;
    for j in -k..=k {
        for i in -k..=k {
            let q = p + DVec2::new(i as f64, j as f64) * h;
            let d = q.distance(p);
            if d <= reach
                && best.is_none_or(|b| d < b)
                && discs.iter().all(|c| q.distance(c.center) >= c.radius + r)
                && planner.walkable(q)
            {
                best = Some(d);
            }
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Snapping against brute force: the point found is walkable (clear of every inflated disc by
    /// exact distance, on ground within the limit) and within the snap distance; no walkable point
    /// of a 2 cm grid is nearer (the search is exact, up to a nudge of 10⁻⁷ m); a walkable point
    /// is not moved; none found only when the grid finds none (a found point in a pocket narrower
    /// than the grid has no grid point to compare with). Points random, at discs' centres,
    /// on their inflated circles, on the slope cells' corners, between two discs.
    #[test]
    fn snapping_finds_the_nearest_walkable_point(seed in any::<u64>(), n in 0usize..60, steep in any::<bool>(), aim in 0u8..5) {
        let mut rng = SplitMix64::new(seed);
        let ground = if steep { bumpy(&mut rng, 41, 1.3) } else { flat(41, 1.0) };
        let discs = field(&mut rng, n, 40.0, (0.2, 3.0), 0.5, &[]);
        let agent = Agent::default().with_snap(rng.range(0.5, 3.0));
        let planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, 40.0).unwrap();
        let mut p = DVec2::new(rng.range(4.0, 36.0), rng.range(4.0, 36.0));
        if let (Some(d), 1 | 2) = (discs.first(), aim) {
            p = d.center + if aim == 2 { DVec2::from_angle(rng.range(0.0, 6.3)) * (d.radius + 0.5) } else { DVec2::ZERO };
        } else if aim == 3 {
            p = p.round();
        } else if let (Some(d), 4) = (discs.first(), aim) {
            // Between two discs whose inflated circles cross: the nearest way out is where they meet.
            let near = discs[1..].iter().min_by(|a, b| a.center.distance(d.center).total_cmp(&b.center.distance(d.center)));
            p = near.map_or(d.center, |e| d.center.lerp(e.center, 0.5));
        }
        let want = brute_nearest(&planner, &discs, 0.5, p, agent.snap_reach(), 0.02);
        match planner.nearest_walkable(p) {
            Some(q) => {
                let d = q.distance(p);
                prop_assert!(planner.walkable(q), "{q} not walkable");
                for c in &discs {
                    prop_assert!(q.distance(c.center) >= c.radius + 0.5, "{q} inside a disc at {}", c.center);
                }
                prop_assert!(d <= agent.snap_reach(), "moved {d} > {}", agent.snap_reach());
                if planner.walkable(p) {
                    prop_assert_eq!(q, p);
                }
                // No grid point at all: a pocket between discs (or at the snap reach) narrower than
                // the 2 cm grid, where only the checks above can be made.
                if let Some(w) = want {
                    prop_assert!(d <= w + 1e-6, "moved {d}, the grid has a walkable point {w} away");
                }
            }
            None => prop_assert!(want.is_none(), "none found, the grid has one {want:?} away"),
        }
    }
}

/// A 20 m giant on ground rough at the metre (heights random in [0, 1.3) m, 1 m apart: steep
/// triangles everywhere) reads it at its 16 m slope cells, where it is gentle, and walks straight;
/// made to read every triangle (1 m cells), it finds no way. A 0.5 m walker reads 1 m cells
/// whether told to or not.
#[test]
fn a_giant_steps_over_rough_metres() {
    let mut rng = SplitMix64::new(7);
    let ground = bumpy(&mut rng, 401, 1.3);
    let giant = Agent::default().with_radius(20.0);
    assert_eq!(giant.slope_cell(), 16.0);
    let (a, b) = (DVec2::new(40.0, 200.0), DVec2::new(360.0, 210.0));
    let mut planner = Planner::new(&ground, &[], giant, DVec2::ZERO, 400.0).unwrap();
    let route = planner.find_path(a, b).unwrap();
    assert_eq!(route.xy(), vec![a, b]);
    let mut exact = Planner::new(&ground, &[], giant.with_slope_step(1.0), DVec2::ZERO, 400.0).unwrap();
    assert!(exact.find_path(a, b).is_err());
    assert_eq!(Agent::default().slope_cell(), Agent::default().with_slope_step(1.0).slope_cell());
}
