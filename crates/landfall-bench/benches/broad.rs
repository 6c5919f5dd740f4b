//! Multi-scale proximity: landfall's broad phase (`landfall`: `broad::BroadPhase`, levels 4 apart, the
//! pair search over sorted arrays; `landfall-r8`: levels 8 apart; `landfall-par`: on rayon's
//! threads) beside the dual quad-tree it
//! replaces (`quadtree`: `broad::ProximityGrid`) and Mirtich's hierarchical spatial hash (`mirtich`,
//! the same structure with the quad-tree's own cells), on the same objects in the same run, and
//! beside a uniform grid rebuilt every frame (cells of 100 m for `random100k`, 1 m for the crowd),
//! parry3d's `Bvh` (the tree of rapier3d's `BroadPhaseBvh`, every leaf updated in place, refitted
//! in full and self-traversed each frame, without rapier's skins and partial refits), and rapier3d's `BroadPhaseBvh` itself
//! (`rapier_broad_phase`: one ball collider per sphere moved in a `ColliderSet`, `update` with the
//! moved handles, a persistent pair set from its `AddPair`/`DeletePair` events, the set's pairs
//! filtered by the exact sphere test; the size of rapier's whole set is printed). Every peer reports
//! the same pairs (checked on the first frame: as a set for landfall's, as a count for the others).
//!
//! - `broad_frame/.../random100k`: 100,000 spheres of diameters 0.01–1,000 m (log-uniform) over a
//!   100 km square, each moving a random 0–2 % of its size per frame; one frame = every move, then
//!   every overlapping pair.
//! - `broad_query/{landfall,quadtree}/{boxes1k,rays1k}`: on `random100k` as it stands, 1,000 box
//!   queries (1–1,000 m) and 1,000 rays of 1 km, on the broad phase's sorted levels and on the dual
//!   quad-tree (the same answers first).
//! - `broad_frame/.../crowd10k`: 10,000 walkers of 0.5 m crossing the origin back and forth at 1.5 m/s
//!   (60 frames per second), the layouts' worst boundary for Mirtich's; the cells entered and left
//!   per frame are printed; `crowd10k-narrow`: the same walkers pacing ±2 m around the origin.
//! - `broad_frame/.../random1m`: 1,000,000 spheres of `random100k`'s sizes over a 1,000 km square
//!   (scene 3; landfall, parry3d's `Bvh`, rapier's and Jolt's broad phases only, 10 frames a sample).
//! - `broad_frame/.../crowd-air`: the 10,000 walkers of `crowd10k` under 1,000 aircraft (half-spans
//!   5–30 m) flying level at 60–250 m/s, 100–3,000 m up, over the same 60 × 400 m of ground, turning
//!   back at its edges (scene 4). `landfall-2d` is landfall with levels never split by height
//!   (`Vertical::Never`): the candidates per frame of both are printed.
//!
//! `jolt_broad_phase` (Jolt 5.0's `BroadPhaseQuadTree`, `landfall_bench::jolt_broad`) runs with
//! `--features jolt` (after `crates/landfall-bench/scripts/fetch-jolt.sh`) and is skipped with a
//! printed line without it.
//!
//! `box2d_tree` is Box2D v3.1's dynamic tree (`landfall_bench::box2d_broad`, through the `boxdd`
//! binding's `boxdd-sys`): **2-D**, on the spheres' horizontal extents; each frame every proxy's fat
//! box enlarged where its box left it, the enlarged nodes rebuilt, then every proxy's pairs queried
//! as Box2D's `b2UpdateBroadPhasePairs` does, filtered by the exact 3-D sphere test.
//!
//! Each layout of the quad-tree runs twice: objects registered on their base level only
//! (`quadtree`, `mirtich`), and registered as Mirtich does, in every level above too, up to 2,048 m
//! cells (`-upward`). The broad phase's counts per frame (occupied levels, candidates tested on
//! their f32 boxes, boxes overlapping, pairs) are printed.
//!
//! `cargo bench -p landfall-bench --bench broad` (a filter, e.g. `-- random100k` or `-- parry-bvh`,
//! also skips the set-up of every benchmark it leaves out, and the pacing table without one).

use criterion::{criterion_group, BenchmarkId, Criterion, SamplingMode};
use glam::DVec3;
use landfall::broad::{BroadPhase, Layout, ProximityGrid, Vertical};
use landfall::support::SplitMix64;
use landfall_bench::box2d_broad::Box2dTree;
use landfall_bench::broad_peers::{ParryBvh, RapierBroadPhase, UniformGrid};
use landfall_bench::report::{filter, print_ratios, selected};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A scene: objects (id, centre, radius) and how far each may move per frame.
struct Scene {
    objects: Vec<(u64, DVec3, f64)>,
    step: Vec<DVec3>,
    /// Per object (empty: none), the |x| and |y| at which it turns back.
    turn: Vec<(f64, f64)>,
}

/// `n` spheres of diameters 0.01–1,000 m (log-uniform) over a square `side` wide, 0–10 m up, each
/// moving a random 0–2 % of its size per frame.
fn random(n: u64, side: f64) -> Scene {
    let mut rng = SplitMix64::new(55);
    let half = side / 2.0;
    let objects: Vec<(u64, DVec3, f64)> = (0..n)
        .map(|k| {
            let r = 10f64.powf(rng.range(-2.0, 3.0)) / 2.0;
            (k, DVec3::new(rng.range(-half, half), rng.range(-half, half), rng.range(0.0, 10.0)), r)
        })
        .collect();
    let step = objects
        .iter()
        .map(|&(_, _, r)| DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0) * (0.04 * r * rng.uniform()))
        .collect();
    Scene { objects, step, turn: Vec::new() }
}

fn random100k() -> Scene {
    random(100_000, 1e5)
}

fn random1m() -> Scene {
    random(1_000_000, 1e6)
}

/// 10,000 walkers of 0.5 m walking east or west at 1.5 m/s between x = ±`turn`, over `depth` m of y.
fn crowd(turn: f64, depth: f64) -> Scene {
    let mut rng = SplitMix64::new(56);
    let objects: Vec<(u64, DVec3, f64)> = (0..10_000u64)
        .map(|k| (k, DVec3::new(rng.range(-turn, turn), rng.range(-depth / 2.0, depth / 2.0), 0.9), 0.25))
        .collect();
    let step =
        objects.iter().map(|_| DVec3::new(if rng.uniform() < 0.5 { 1.5 } else { -1.5 } / 60.0, 0.0, 0.0)).collect();
    Scene { objects, step, turn: vec![(turn, f64::INFINITY); 10_000] }
}

/// `crowd10k`'s walkers under 1,000 aircraft of half-span 5–30 m flying level at 60–250 m/s in random
/// directions, 100–3,000 m up over the same ground (±30 m × ±200 m), turning back at its edges.
fn crowd_air() -> Scene {
    let mut scene = crowd10k();
    let mut rng = SplitMix64::new(58);
    for k in 0..1_000u64 {
        let c = DVec3::new(rng.range(-30.0, 30.0), rng.range(-200.0, 200.0), rng.range(100.0, 3000.0));
        scene.objects.push((10_000 + k, c, rng.range(5.0, 30.0)));
        let a = rng.range(0.0, std::f64::consts::TAU);
        scene.step.push(DVec3::new(a.cos(), a.sin(), 0.0) * rng.range(60.0, 250.0) / 60.0);
        scene.turn.push((30.0, 200.0));
    }
    scene
}

fn crowd10k() -> Scene {
    crowd(30.0, 400.0)
}

/// The same crowd pacing 2 m either side of the origin (over 4 km of y): nearly every cell change
/// is a crossing of the origin.
fn crowd10k_narrow() -> Scene {
    crowd(2.0, 4000.0)
}

/// Runs `frames` frames of `scene` on `grid`, returns the time and the pairs found in the last.
fn run(grid: &mut ProximityGrid, scene: &mut Scene, frames: u64) -> (Duration, usize) {
    let mut pairs = 0;
    let start = Instant::now();
    for _ in 0..frames {
        step_all(grid, scene, 1);
        pairs = 0;
        grid.pairs(|_, _| pairs += 1);
    }
    (start.elapsed(), black_box(pairs))
}

/// Runs `frames` frames of `scene` on the broad phase `bp` (proxies = ids), returns the time and the
/// pairs found in the last.
fn run_phase(bp: &mut BroadPhase, scene: &mut Scene, frames: u64) -> (Duration, usize) {
    let mut pairs = 0;
    // Proxy k is object k (inserted in order); `set_all` moves them on the threads when the
    // phase is parallel.
    let start = Instant::now();
    for _ in 0..frames {
        step(scene);
        let objects = &scene.objects;
        bp.set_all(|p, _, _| (objects[p as usize].1, objects[p as usize].2)).expect("inside the broad phase");
        pairs = bp.find_pairs().len();
    }
    (start.elapsed(), black_box(pairs))
}

/// Moves every object of `scene` one frame (turning back at its edges those that have them).
fn step(scene: &mut Scene) {
    for (k, o) in scene.objects.iter_mut().enumerate() {
        let mut p = o.1 + scene.step[k];
        if let Some(&(tx, ty)) = scene.turn.get(k) {
            let s = &mut scene.step[k];
            if p.x.abs() > tx || p.y.abs() > ty {
                s.x = if p.x.abs() > tx { -s.x } else { s.x };
                s.y = if p.y.abs() > ty { -s.y } else { s.y };
                p = o.1 + *s;
            }
        }
        o.1 = p;
    }
}

/// Runs `frames` frames of `scene` with a peer (`pairs` gets the spheres and counts the pairs).
fn run_peer(scene: &mut Scene, frames: u64, mut pairs: impl FnMut(&[(DVec3, f64)]) -> usize) -> (Duration, usize) {
    let mut n = 0;
    let mut spheres: Vec<(DVec3, f64)> = scene.objects.iter().map(|o| (o.1, o.2)).collect();
    let start = Instant::now();
    for _ in 0..frames {
        step(scene);
        for (s, o) in spheres.iter_mut().zip(&scene.objects) {
            s.0 = o.1;
        }
        n = pairs(&spheres);
    }
    (start.elapsed(), black_box(n))
}

/// Mirtich's registration (every level above an object's own) up to cells of 2,048 m, the level of
/// the largest objects of `random100k`: one hash configuration for both scenes.
const TOP: i32 = 11;

/// The grids compared: each layout registering objects on their base level only (pairs found by
/// climbing the levels), and registering them as Mirtich does (pairs found on each object's level).
type NewGrid = fn() -> ProximityGrid;

/// A peer on a fresh copy of `make`'s scene: the same pairs as `want` on the first frame, then
/// timed (`count` gets the spheres and counts their pairs).
fn bench_peer(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    label: &str,
    name: &str,
    make: fn() -> Scene,
    want: usize,
    mut count: impl FnMut(&[(DVec3, f64)]) -> usize,
) {
    if !selected(&format!("broad_frame/{label}/{name}")) {
        return;
    }
    let mut scene = make();
    let (_, got) = run_peer(&mut scene, 1, &mut count);
    assert_eq!(got, want, "{name}: {label}'s pairs");
    g.bench_function(BenchmarkId::new(label, name), |b| {
        b.iter_custom(|iters| run_peer(&mut scene, iters, &mut count).0)
    });
}

fn layouts() -> [(&'static str, NewGrid); 4] {
    [
        ("quadtree", || ProximityGrid::new(1.0).unwrap()),
        ("mirtich", || ProximityGrid::with_layout(Layout::Primal, 1.0, None).unwrap()),
        ("quadtree-upward", || ProximityGrid::hierarchical(1.0, TOP).unwrap()),
        ("mirtich-upward", || ProximityGrid::with_layout(Layout::Primal, 1.0, Some(TOP)).unwrap()),
    ]
}

/// The broad phases compared with landfall's on every scene (the layouts of the quad-tree run on all
/// but `random1m`).
const PEERS: [&str; 9] = [
    "landfall",
    "landfall-2d",
    "landfall-r8",
    "landfall-par",
    "uniform-grid",
    "parry-bvh",
    "rapier_broad_phase",
    "jolt_broad_phase",
    "box2d_tree",
];

/// Makes a scene afresh (the same each time).
type MakeScene = fn() -> Scene;

/// The scenes: name, maker, and whether it is the large one (fewer peers, 10 frames a sample).
const SCENES: [(&str, MakeScene, bool); 5] = [
    ("random100k", random100k, false),
    ("crowd10k", crowd10k, false),
    ("crowd10k-narrow", crowd10k_narrow, false),
    ("random1m", random1m, true),
    ("crowd-air", crowd_air, false),
];

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("broad_frame");
    for (name, make, large) in SCENES {
        // Each set-up runs only when criterion's filter selects its benchmark.
        let chosen = |label: &str| {
            selected(&format!("broad_frame/{label}/{name}"))
                && !(large && matches!(label, "landfall-r8" | "uniform-grid"))
        };
        if large {
            g.sampling_mode(SamplingMode::Flat).measurement_time(Duration::from_secs(3));
        } else {
            g.sampling_mode(SamplingMode::Auto).measurement_time(Duration::from_secs(5));
        }
        for (label, new_grid) in layouts() {
            if large || !chosen(label) {
                continue;
            }
            let mut scene = make();
            let mut grid = new_grid();
            for &(id, c, r) in &scene.objects {
                grid.insert(id, c, r).unwrap();
            }
            // Cells entered and left per frame, over 600 frames (10 s), after one frame to settle.
            run(&mut grid, &mut scene, 1);
            let before = grid.cell_changes();
            let frames = if name.starts_with("crowd") { 600 } else { 20 };
            let (_, pairs) = run(&mut grid, &mut scene, frames);
            let per = (grid.cell_changes() - before) as f64 / frames as f64;
            println!("{name}/{label}: {per:.1} cell changes per frame, {pairs} pairs, {} cells", grid.occupied_cells());
            g.bench_function(BenchmarkId::new(label, name), |b| {
                b.iter_custom(|iters| run(&mut grid, &mut scene, iters).0)
            });
        }
        // The peers, on the same scene from the same start; the same pairs on the first frame.
        if !PEERS.iter().any(|p| chosen(p)) {
            continue;
        }
        let cell = if name.starts_with("crowd") { 1.0 } else { 100.0 };
        let want_set = {
            let mut scene = make();
            let mut grid = ProximityGrid::new(1.0).unwrap();
            for &(id, c, r) in &scene.objects {
                grid.insert(id, c, r).unwrap();
            }
            step_all(&mut grid, &mut scene, 1);
            let mut pairs = Vec::new();
            grid.pairs(|a, b| pairs.push((a.min(b) as u32, a.max(b) as u32)));
            pairs.sort_unstable();
            pairs
        };
        let want = want_set.len();
        for (label, ratio, parallel, vertical) in [
            ("landfall", 4, false, Vertical::Auto),
            ("landfall-2d", 4, false, Vertical::Never),
            ("landfall-r8", 8, false, Vertical::Auto),
            ("landfall-par", 4, true, Vertical::Auto),
        ] {
            if !chosen(label) {
                continue;
            }
            let mut scene = make();
            let mut bp = BroadPhase::with_ratio(1.0, ratio).expect("a valid ratio");
            bp.set_parallel(parallel);
            bp.set_vertical(vertical);
            for &(id, c, r) in &scene.objects {
                assert_eq!(bp.insert(c, r).unwrap(), id as u32, "proxies in insertion order");
            }
            run_phase(&mut bp, &mut scene, 1);
            let st = bp.stats();
            let mut got = bp.find_pairs().to_vec();
            got.sort_unstable();
            assert!(got == want_set, "{name}: {label}'s pairs differ from the quad-tree's");
            println!(
                "{name}/{label}: first frame (every object searched): {} levels ({} split by height), {} candidates, \
                 {} boxes overlap, {} pairs",
                st.levels, st.vertical, st.candidates, st.box_hits, st.pairs
            );
            // A later frame: only the objects that left their fat spheres are searched anew.
            run_phase(&mut bp, &mut scene, 3);
            let st = bp.stats();
            println!(
                "{name}/{label}: a later frame: {} objects searched anew, {} candidates, {} fat pairs tested, {} pairs",
                st.dirty, st.candidates, st.fat_pairs, st.pairs
            );
            g.bench_function(BenchmarkId::new(label, name), |b| {
                b.iter_custom(|iters| run_phase(&mut bp, &mut scene, iters).0)
            });
        }
        if chosen("uniform-grid") {
            let mut uniform = UniformGrid::new(cell);
            bench_peer(&mut g, "uniform-grid", name, make, want, |s| {
                let mut n = 0;
                uniform.pairs(s, |_, _| n += 1);
                n
            });
        }
        let mut bvh = ParryBvh::default();
        bench_peer(&mut g, "parry-bvh", name, make, want, |s| {
            let mut n = 0;
            bvh.pairs(s, |_, _| n += 1);
            n
        });
        drop(bvh);
        if chosen("rapier_broad_phase") {
            let spheres: Vec<(DVec3, f64)> = make().objects.iter().map(|o| (o.1, o.2)).collect();
            let mut rapier = RapierBroadPhase::new(&spheres);
            bench_peer(&mut g, "rapier_broad_phase", name, make, want, |s| {
                let mut n = 0;
                rapier.pairs(s, |_, _| n += 1);
                n
            });
            println!("{name}/rapier_broad_phase: {} pairs in rapier's set after the timed frames", rapier.held());
        }
        if chosen("jolt_broad_phase") {
            jolt_peer(&mut g, name, make, want);
        }
        if chosen("box2d_tree") {
            let spheres: Vec<(DVec3, f64)> = make().objects.iter().map(|o| (o.1, o.2)).collect();
            let mut tree = Box2dTree::new(&spheres).expect("Box2D takes the scene");
            bench_peer(&mut g, "box2d_tree", name, make, want, |s| {
                let mut n = 0;
                tree.pairs(s, |_, _| n += 1);
                n
            });
        }
    }
    g.finish();
}

/// Jolt's `BroadPhaseQuadTree` on `make`'s scene (with the `jolt` feature).
#[cfg(feature = "jolt")]
fn jolt_peer(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    make: fn() -> Scene,
    want: usize,
) {
    let spheres: Vec<(DVec3, f64)> = make().objects.iter().map(|o| (o.1, o.2)).collect();
    let mut jolt = landfall_bench::jolt_broad::JoltBroadPhase::new(&spheres).expect("Jolt takes the scene");
    bench_peer(g, "jolt_broad_phase", name, make, want, |s| {
        let mut n = 0;
        jolt.pairs(s, |_, _| n += 1);
        n
    });
}

/// Without the `jolt` feature: says so.
#[cfg(not(feature = "jolt"))]
fn jolt_peer(
    _: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    _: fn() -> Scene,
    _: usize,
) {
    println!(
        "{name}/jolt_broad_phase: skipped (needs --features jolt, after crates/landfall-bench/scripts/fetch-jolt.sh)"
    );
}

/// Box and ray queries on `random100k` as it stands: 1,000 boxes of 1–1,000 m and 1,000 rays of 1 km
/// in random horizontal directions, on the broad phase's sorted levels (after `refresh`) and on the
/// dual quad-tree; the same answers first.
fn queries(c: &mut Criterion) {
    let mut g = c.benchmark_group("broad_query");
    let ids = ["landfall", "quadtree"];
    if !ids
        .iter()
        .any(|l| selected(&format!("broad_query/{l}/boxes1k")) || selected(&format!("broad_query/{l}/rays1k")))
    {
        return;
    }
    let scene = random100k();
    let mut bp = BroadPhase::new(1.0);
    let mut grid = ProximityGrid::new(1.0).unwrap();
    for &(id, c, r) in &scene.objects {
        bp.insert(c, r).unwrap();
        grid.insert(id, c, r).unwrap();
    }
    bp.refresh();
    let mut rng = SplitMix64::new(57);
    let boxes: Vec<(DVec3, DVec3)> = (0..1_000)
        .map(|_| {
            let lo = DVec3::new(rng.range(-5e4, 5e4), rng.range(-5e4, 5e4), 0.0);
            (lo, lo + DVec3::new(1.0, 1.0, 10.0) * 10f64.powf(rng.range(0.0, 3.0)))
        })
        .collect();
    let rays: Vec<(DVec3, DVec3)> = (0..1_000)
        .map(|_| {
            let a = rng.range(0.0, std::f64::consts::TAU);
            (DVec3::new(rng.range(-5e4, 5e4), rng.range(-5e4, 5e4), 5.0), DVec3::new(a.cos(), a.sin(), 0.0))
        })
        .collect();
    let count_landfall = |bp: &BroadPhase| {
        let mut n = 0usize;
        for &(lo, hi) in &boxes {
            bp.within_box(lo, hi, |_| n += 1);
        }
        n
    };
    let count_grid = |grid: &ProximityGrid| {
        let mut n = 0usize;
        for &(lo, hi) in &boxes {
            grid.within_box(lo, hi, |_| n += 1);
        }
        n
    };
    let hits_landfall =
        |bp: &BroadPhase| rays.iter().filter_map(|&(o, d)| bp.raycast(o, d, 1000.0)).map(|h| h.1).sum::<f64>();
    let hits_grid =
        |grid: &ProximityGrid| rays.iter().filter_map(|&(o, d)| grid.raycast(o, d, 1000.0)).map(|h| h.1).sum::<f64>();
    let (n, t) = (count_landfall(&bp), hits_landfall(&bp));
    assert_eq!(n, count_grid(&grid), "the same objects in the boxes");
    assert_eq!(t.to_bits(), hits_grid(&grid).to_bits(), "the same first hits");
    println!("broad_query: {n} objects in the 1,000 boxes; rays hit at a summed t of {t:.1} m");
    g.bench_function(BenchmarkId::new("landfall", "boxes1k"), |b| b.iter(|| count_landfall(&bp)));
    g.bench_function(BenchmarkId::new("quadtree", "boxes1k"), |b| b.iter(|| count_grid(&grid)));
    g.bench_function(BenchmarkId::new("landfall", "rays1k"), |b| b.iter(|| hits_landfall(&bp)));
    g.bench_function(BenchmarkId::new("quadtree", "rays1k"), |b| b.iter(|| hits_grid(&grid)));
    g.finish();
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = frames, queries
}

/// Cell changes per frame of the crowd as the walkers pace farther from the origin: how much of the
/// dual layout's saving is the origin's (every level's boundary in Mirtich's layout), printed for
/// both registrations (counts only, no timing).
fn cell_changes_by_pacing() {
    println!("crowd10k pacing ±a m around the origin (a walker is 0.5 m across), cell changes per frame:");
    println!(
        "{:>6} {:>14} {:>14} {:>7} {:>14} {:>14} {:>7}",
        "a", "dual", "mirtich", "ratio", "dual-upward", "mirtich-upward", "ratio"
    );
    for turn in [1.0, 2.0, 4.0, 8.0, 30.0] {
        let mut per = [0.0; 4];
        for (k, (_, new_grid)) in layouts().iter().enumerate() {
            let mut scene = crowd(turn, 4000.0);
            let mut grid = new_grid();
            for &(id, c, r) in &scene.objects {
                grid.insert(id, c, r).unwrap();
            }
            run(&mut grid, &mut scene, 1);
            let before = grid.cell_changes();
            step_all(&mut grid, &mut scene, 600);
            per[k] = (grid.cell_changes() - before) as f64 / 600.0;
        }
        println!(
            "{turn:>6} {:>14.0} {:>14.0} {:>6.2}× {:>14.0} {:>14.0} {:>6.2}×",
            per[0],
            per[1],
            per[1] / per[0],
            per[2],
            per[3],
            per[3] / per[2]
        );
    }
}

/// Moves every object `frames` times (no pair search).
fn step_all(grid: &mut ProximityGrid, scene: &mut Scene, frames: u64) {
    for _ in 0..frames {
        step(scene);
        for o in &scene.objects {
            grid.update(o.0, o.1, o.2).expect("inside the grid");
        }
    }
}

fn main() {
    if filter().is_none() {
        cell_changes_by_pacing();
    }
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    print_ratios(
        "broad_frame",
        &[
            "landfall-2d",
            "landfall-r8",
            "landfall-par",
            "quadtree",
            "mirtich",
            "quadtree-upward",
            "mirtich-upward",
            "uniform-grid",
            "parry-bvh",
            "rapier_broad_phase",
            "jolt_broad_phase",
            "box2d_tree",
        ],
        &SCENES.map(|s| s.0.to_string()),
    );
    print_ratios("broad_query", &["quadtree"], &["boxes1k".to_string(), "rays1k".to_string()]);
}
