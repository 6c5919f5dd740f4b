//! Paths (issue 74): `world::Planner` against A* on a fine uniform grid (the `pathfinding`
//! crate's `astar`, 8-connected, on a precomputed occupancy grid whose cells are free when their
//! centre is clear of every inflated disc), on the same obstacles, for a 0.5 m walker (0.5 m grid)
//! and a 20 m giant (5 m grid), paths of about 1.4 km across a 1.6 km square of flat ground.
//!
//! A navigation mesh is the third peer (`paths/navmesh.rs`): `landmass` 0.9 on the constrained
//! Delaunay triangles of the square minus a 16-gon around each inflated disc.
//!
//! Criterion measures the query of each (`paths_query/landfall|grid|navmesh/<agent>`) and the repair after
//! one obstacle is added on the path (`paths_repair/landfall|replan|requery/<agent>`: the tree
//! re-cut where the obstacle is and the path repaired; a fresh planner built and queried; the
//! updated planner queried from scratch). Printed after them: the length against the fine grid's
//! optimum, the speed ratios and the planner's memory per km²; the navigation mesh's length, its
//! ratio to the grid's, its build time and its clearance.
//!
//! `cargo bench -p landfall-bench --bench paths`

use criterion::{criterion_group, BenchmarkId, Criterion};
use glam::DVec2;
use landfall::world::{Agent, Disc, Planner, Route};
use landfall_bench::paths_scene::{ends, ground, obstacles, SIDE};
use landfall_bench::report::median_ns;
use pathfinding::prelude::astar;
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "paths/navmesh.rs"]
mod navmesh;
use navmesh::NavMesh;

/// The agents: name, radius, the fine grid's cell.
const AGENTS: [(&str, f64, f64); 2] = [("walker_0.5m", 0.5, 0.5), ("giant_20m", 20.0, 5.0)];

/// An occupancy grid of cells `h` wide over the square.
struct Grid {
    n: usize,
    h: f64,
    free: Vec<bool>,
}

impl Grid {
    fn new(discs: &[Disc], r: f64, h: f64) -> Self {
        let n = (SIDE / h) as usize;
        let mut free = vec![true; n * n];
        for d in discs {
            let rr = d.radius + r;
            let (i0, i1) = (((d.center.x - rr) / h).floor().max(0.0) as usize, ((d.center.x + rr) / h).ceil() as usize);
            let (j0, j1) = (((d.center.y - rr) / h).floor().max(0.0) as usize, ((d.center.y + rr) / h).ceil() as usize);
            for j in j0..j1.min(n) {
                for i in i0..i1.min(n) {
                    if self_center(i, j, h).distance(d.center) < rr {
                        free[j * n + i] = false;
                    }
                }
            }
        }
        Self { n, h, free }
    }

    fn cell(&self, p: DVec2) -> (usize, usize) {
        ((p.x / self.h) as usize, (p.y / self.h) as usize)
    }

    /// The shortest 8-connected path (diagonals need both side cells free): its length, metres,
    /// from `a` through the cell centres to `b`.
    fn path(&self, a: DVec2, b: DVec2) -> Option<f64> {
        let n = self.n as i64;
        let goal = self.cell(b);
        let ok = |i: i64, j: i64| i >= 0 && j >= 0 && i < n && j < n && self.free[(j * n + i) as usize];
        // Integer costs (astar wants `Ord`): 10,000 a side, 14,142 a diagonal.
        let (cells, _) = astar(
            &self.cell(a),
            |&(i, j)| {
                let (i, j) = (i as i64, j as i64);
                let mut next = Vec::with_capacity(8);
                for (di, dj) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)] {
                    let (ni, nj) = (i + di, j + dj);
                    if ok(ni, nj) && (di == 0 || dj == 0 || (ok(ni, j) && ok(i, nj))) {
                        next.push(((ni as usize, nj as usize), if di != 0 && dj != 0 { 14_142u64 } else { 10_000 }));
                    }
                }
                next
            },
            |&(i, j)| {
                let (dx, dy) = ((i as i64 - goal.0 as i64).unsigned_abs(), (j as i64 - goal.1 as i64).unsigned_abs());
                10_000 * dx.max(dy) + 4_142 * dx.min(dy)
            },
            |&c| c == goal,
        )?;
        let pts: Vec<DVec2> = std::iter::once(a)
            .chain(cells.iter().map(|&(i, j)| self_center(i, j, self.h)))
            .chain(std::iter::once(b))
            .collect();
        Some(pts.windows(2).map(|w| w[0].distance(w[1])).sum())
    }
}

fn self_center(i: usize, j: usize, h: f64) -> DVec2 {
    (DVec2::new(i as f64, j as f64) + 0.5) * h
}

/// A disc of radius `r` on the middle of the route's longest segment.
fn blocker(route: &Route, r: f64) -> Disc {
    let p = route.xy();
    let k = (0..p.len() - 1).max_by(|&x, &y| p[x].distance(p[x + 1]).total_cmp(&p[y].distance(p[y + 1]))).unwrap();
    Disc { center: p[k].lerp(p[k + 1], 0.5), radius: r }
}

fn paths(c: &mut Criterion) {
    let ground = ground();
    let (a, b) = ends();
    let discs = obstacles(a, b);
    let mut g = c.benchmark_group("paths_query");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(4));
    for (name, r, h) in AGENTS {
        let agent = Agent::default().with_radius(r);
        let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, SIDE).unwrap();
        let grid = Grid::new(&discs, r, h);
        if planner.find_path(a, b).is_err() || grid.path(a, b).is_none() {
            continue; // said in the summary
        }
        g.bench_function(BenchmarkId::new("landfall", name), |bch| {
            bch.iter(|| black_box(planner.find_path(a, b).unwrap()))
        });
        g.bench_function(BenchmarkId::new("grid", name), |bch| bch.iter(|| black_box(grid.path(a, b).unwrap())));
        let nav = NavMesh::new(&discs, r, SIDE);
        if nav.path(a, b).is_some() {
            g.bench_function(BenchmarkId::new("navmesh", name), |bch| bch.iter(|| black_box(nav.path(a, b).unwrap())));
        }
    }
    g.finish();
    let mut g = c.benchmark_group("paths_repair");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(4));
    for (name, r, _) in AGENTS {
        let agent = Agent::default().with_radius(r);
        let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, SIDE).unwrap();
        let Ok(route) = planner.find_path(a, b) else { continue };
        let new = blocker(&route, 3.0);
        // Add the obstacle, re-cut, repair (timed); take it away again (not timed).
        g.bench_function(BenchmarkId::new("landfall", name), |bch| {
            bch.iter_custom(|iters| {
                let mut t = Duration::ZERO;
                for _ in 0..iters {
                    let s = Instant::now();
                    let id = planner.add_obstacle(new).unwrap();
                    black_box(planner.repair(&route, new).unwrap());
                    t += s.elapsed();
                    planner.remove_obstacle(id);
                }
                t
            })
        });
        let mut all = discs.clone();
        all.push(new);
        g.bench_function(BenchmarkId::new("replan", name), |bch| {
            bch.iter(|| {
                let mut p = Planner::new(&ground, &all, agent, DVec2::ZERO, SIDE).unwrap();
                black_box(p.find_path(a, b).unwrap())
            })
        });
        let id = planner.add_obstacle(new).unwrap();
        g.bench_function(BenchmarkId::new("requery", name), |bch| {
            bch.iter(|| black_box(planner.find_path(a, b).unwrap()))
        });
        planner.remove_obstacle(id);
    }
    g.finish();
}

/// Lengths, ratios, memory.
fn summary() {
    let ground = ground();
    let (a, b) = ends();
    let discs = obstacles(a, b);
    println!(
        "\npaths: {} obstacles over {SIDE} m × {SIDE} m, from {a} to {b} ({:.0} m apart)",
        discs.len(),
        a.distance(b)
    );
    println!(
        "  {:<12} {:>10} {:>10} {:>8} {:>11} {:>11} {:>9} {:>11} {:>11} {:>9} {:>9}",
        "agent", "landfall m", "grid m", "ratio", "query", "grid", "faster", "repair", "replan", "faster", "MB/km²"
    );
    for (name, r, h) in AGENTS {
        let agent = Agent::default().with_radius(r);
        let mut planner = Planner::new(&ground, &discs, agent, DVec2::ZERO, SIDE).unwrap();
        let (Ok(route), Some(grid)) = (planner.find_path(a, b), Grid::new(&discs, r, h).path(a, b)) else {
            println!("  {name:<12} no path");
            continue;
        };
        let stats = planner.stats();
        let mb_km2 = stats.bytes as f64 / 1048576.0 / (stats.area as f64 / 1e6);
        let t = |f: &str| median_ns("paths_query", f, name);
        let u = |f: &str| median_ns("paths_repair", f, name);
        let ms = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{:.3} ms", v / 1e6));
        let ratio =
            |p: Option<f64>, q: Option<f64>| p.zip(q).map_or("—".to_string(), |(p, q)| format!("{:.1}×", p / q));
        println!(
            "  {:<12} {:>10.1} {:>10.1} {:>8.4} {:>11} {:>11} {:>9} {:>11} {:>11} {:>9} {:>9.2}",
            name,
            route.length(),
            grid,
            route.length() / grid,
            ms(t("landfall")),
            ms(t("grid")),
            ratio(t("grid"), t("landfall")),
            ms(u("landfall")),
            ms(u("replan")),
            ratio(u("replan"), u("landfall")),
            mb_km2
        );
        println!(
            "  {:<12} {} leaves, {:.1} MB over {:.2} km²; repair against querying the updated planner afresh: {}",
            "",
            stats.leaves,
            stats.bytes as f64 / 1048576.0,
            stats.area as f64 / 1e6,
            ratio(u("requery"), u("landfall"))
        );
        let built = Instant::now();
        let nav = NavMesh::new(&discs, r, SIDE);
        let built = built.elapsed().as_secs_f64() * 1e3;
        let Some(pts) = nav.path(a, b) else {
            println!("  {:<12} navmesh: no path ({} triangles)", "", nav.triangles);
            continue;
        };
        let length: f64 = pts.windows(2).map(|w| w[0].distance(w[1])).sum();
        // The least clearance of its segments from the inflated discs (negative: it cuts one).
        let clear = pts
            .windows(2)
            .flat_map(|w| discs.iter().map(move |d| seg_dist(w[0], w[1], d.center) - d.radius - r))
            .fold(f64::INFINITY, f64::min);
        let n = |f: &str| median_ns("paths_query", f, name);
        println!(
            "  {:<12} navmesh (landmass): {length:.1} m ({:.4} of the grid's, {:.4} of landfall's), query {} (grid \
             {} and landfall {} slower); {} triangles built in {built:.0} ms; clearance {clear:+.1e} m",
            "",
            length / grid,
            length / route.length(),
            ms(n("navmesh")),
            ratio(n("grid"), n("navmesh")),
            ratio(n("landfall"), n("navmesh")),
            nav.triangles,
        );
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn seg_dist(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let d = b - a;
    let t = ((p - a).dot(d) / d.length_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
    p.distance(a + d * t)
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion();
    targets = paths
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    summary();
}
