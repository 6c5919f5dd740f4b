//! The procedural world against brute force: the mesh has no cracks or T-junctions in every relative
//! position of the layers, the incremental and absolute updates agree, queries answer on the drawn
//! triangles (f64 brute force), precision does not depend on the distance from the origin.

use glam::{DVec2, DVec3};
use landfall::bench::{Hashed, Toroidal};
use landfall::support::SplitMix64;
use landfall::world::{CacheParams, Generator, LodTerrain, World, WorldParams};
use landfall::{Aabb, Ray, Terrain};
use proptest::prelude::*;
use std::collections::HashMap;

fn small_cache(hysteresis: f64) -> CacheParams {
    CacheParams::default()
        .with_layers(7)
        .with_inner_radius(4)
        .with_mesh_finest(1)
        .with_mesh_coarsest(5)
        .with_lod_height(4.0)
        .with_hysteresis(hysteresis)
}

fn small_params(seed: u64) -> WorldParams {
    WorldParams::default().with_seed(seed).with_levels(9).with_relief(60.0)
}

/// Key of a world x, y (exact for the half-metre grid of the tests).
fn key(p: DVec3) -> (i64, i64) {
    ((p.x * 16.0).round() as i64, (p.y * 16.0).round() as i64)
}

/// The drawn mesh is a watertight, consistently oriented sheet over a square: every triangle
/// counter-clockwise, every edge used once each way inside, the unpaired edges exactly the square's
/// outline, the areas summing to the square's, and one height per vertex position.
fn check_mesh<S: landfall::world::CellStore>(w: &World<S>) {
    let tris = w.world_triangles();
    assert!(!tris.is_empty());
    let b = w.mesh_bounds();
    let mut heights: HashMap<(i64, i64), f64> = HashMap::new();
    type Edge = ((i64, i64), (i64, i64));
    let mut directed: HashMap<Edge, usize> = HashMap::new();
    let mut area = 0.0;
    for (level, t) in &tris {
        let a = (t[1] - t[0]).truncate().perp_dot((t[2] - t[0]).truncate()) / 2.0;
        assert!(a > 0.0, "layer {level}: clockwise or flat triangle {t:?}");
        area += a;
        for v in t {
            let z = *heights.entry(key(*v)).or_insert(v.z);
            assert_eq!(z, v.z, "two heights at one vertex position {v:?} (a crack)");
        }
        for e in 0..3 {
            let (a, b) = (key(t[e]), key(t[(e + 1) % 3]));
            *directed.entry((a, b)).or_default() += 1;
        }
    }
    let on_outline = |p: (i64, i64)| {
        let (x, y) = (p.0 as f64 / 16.0, p.1 as f64 / 16.0);
        let eps = 1e-9;
        (x - b.min.x).abs() < eps || (x - b.max.x).abs() < eps || (y - b.min.y).abs() < eps || (y - b.max.y).abs() < eps
    };
    for (&(a, bb), &n) in &directed {
        assert_eq!(n, 1, "edge {a:?}→{bb:?} used {n} times the same way (overlap)");
        if !directed.contains_key(&(bb, a)) {
            assert!(
                on_outline(a) && on_outline(bb),
                "unpaired edge {a:?}→{bb:?} inside the mesh (crack or T-junction)"
            );
        }
    }
    let square = (b.max.x - b.min.x) * (b.max.y - b.min.y);
    assert!((area - square).abs() < 1e-6 * square, "areas {area} vs square {square}");
}

/// Brute force: the drawn height at p from every triangle containing it.
fn brute_height(tris: &[(u8, [DVec3; 3])], p: DVec2) -> Option<f64> {
    let mut best: Option<(f64, f64)> = None;
    for (_, t) in tris {
        let (a, b, c) = (t[0].truncate(), t[1].truncate(), t[2].truncate());
        let det = (b - a).perp_dot(c - a);
        let l1 = (p - a).perp_dot(c - a) / det;
        let l2 = (b - a).perp_dot(p - a) / det;
        let inside = l1.min(l2).min(1.0 - l1 - l2);
        if best.is_none_or(|bb| inside > bb.0) {
            best = Some((inside, t[0].z + l1 * (t[1].z - t[0].z) + l2 * (t[2].z - t[0].z)));
        }
    }
    best.filter(|b| b.0 > -1e-9).map(|b| b.1)
}

/// Brute force: the first crossing with any triangle, each grown by a hair (barycentric ≥ −1e-9) so
/// the reference itself cannot slip through shared edges and vertices.
fn brute_ray(tris: &[(u8, [DVec3; 3])], r: &Ray, max_t: f64) -> Option<f64> {
    let mut best: Option<f64> = None;
    for (_, t) in tris {
        let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
        let p = r.dir.cross(e2);
        let det = e1.dot(p);
        if det == 0.0 {
            continue;
        }
        let s = r.origin - t[0];
        let (a, q) = (s.dot(p) / det, s.cross(e1));
        let b = r.dir.dot(q) / det;
        let th = e2.dot(q) / det;
        let eps = -1e-9;
        if a >= eps && b >= eps && a + b <= 1.0 - eps && th >= 0.0 && th <= max_t && best.is_none_or(|x| th < x) {
            best = Some(th);
        }
    }
    best
}

#[test]
fn thesis_configuration_runs_within_memory() {
    let w: World = World::new(WorldParams::default(), CacheParams::default(), DVec3::new(10.0, 20.0, 1500.0)).unwrap();
    assert_eq!(w.width(), 40);
    let mb = w.memory_bytes() as f64 / 1048576.0;
    assert!(mb < 16.0, "{mb} MB");
    // Low viewer: the finest layer is active, the mesh is drawn from layer 1 to 12.
    let ground = w.height_at(10.0, 20.0).unwrap();
    let mut w: World =
        World::new(WorldParams::default(), CacheParams::default(), DVec3::new(10.0, 20.0, ground + 2.0)).unwrap();
    assert_eq!(w.finest_active(), 0);
    assert_eq!(w.drawn_layers(), 1..=12);
    let b = w.mesh_bounds();
    assert!((b.max.x - b.min.x - 2.0 * 81_920.0 + 2.0 * 4096.0).abs() < 1.0, "mesh width {}", b.max.x - b.min.x);
    check_mesh(&w);
    for k in 0..16u8 {
        let o = w.window_origin(k);
        let cells = w.generator().patch(k, o[0] + 3, o[1] + 5, 4, 4);
        assert_eq!(w.cell(k, o[0] + 3, o[1] + 5), Some(cells[0]), "layer {k}");
    }
    // A jet climbs: coarser finest layer, still one sheet.
    w.update(DVec3::new(10.0, 20.0, ground + 3000.0)).unwrap();
    assert!(w.finest_active() >= 6, "finest {}", w.finest_active());
    check_mesh(&w);
}

/// Every relative position of child and parent windows (the nine inner-region configurations, and
/// more) keeps the mesh a crack-free sheet; visited by walking the viewer across many boundaries.
#[test]
fn no_cracks_in_any_configuration() {
    let mut w: World = World::new(small_params(3), small_cache(0.0), DVec3::new(0.3, 0.2, 3.0)).unwrap();
    let mut configs = std::collections::HashSet::new();
    let mut rng = SplitMix64::new(9);
    for step in 0..400 {
        let v = w.viewer() + DVec3::new(rng.range(-0.4, 1.3), rng.range(-0.4, 1.3), 0.0);
        let g = w.height_at(v.x, v.y).unwrap_or(0.0);
        w.update(DVec3::new(v.x, v.y, g + 2.0 + if step % 100 > 70 { 30.0 } else { 0.0 })).unwrap();
        for m in w.meshes() {
            if let Some(c) = m.center_offset() {
                configs.insert(c);
            }
        }
        if step % 10 == 0 {
            check_mesh(&w);
        }
    }
    assert_eq!(configs.len(), 9, "configurations seen: {configs:?}");
}

/// The lowest-set-bit incremental update, step by step, gives the same cells and mesh as jumping
/// straight there.
#[test]
fn incremental_equals_absolute() {
    let start = DVec3::new(-3.2, 7.9, 2.0);
    let mut walked: World = World::new(small_params(5), small_cache(0.0), start).unwrap();
    let mut p = start;
    let mut incremental = 0;
    for n in 0..300 {
        p += DVec3::new(0.37, -0.21 + 0.001 * n as f64, 0.0);
        let s = walked.update(p).unwrap();
        incremental += usize::from(s.incremental);
        // Only the regions the step-6 rules name: a moved layer's outer ring, inner region and
        // seam, and its parent's inner region and seam.
        assert!(s.regions_rebuilt <= 5 * s.layers_changed.count_ones() as usize, "{s:?}");
    }
    assert_eq!(incremental, 300, "every small step should take the incremental path");
    let jumped: World = World::new(small_params(5), small_cache(0.0), p).unwrap();
    same_world(&walked, &jumped);
    // The absolute update from far away lands on the same cache too.
    let mut teleported: World = World::new(small_params(5), small_cache(0.0), DVec3::new(5000.0, -800.0, 2.0)).unwrap();
    teleported.teleport(p).unwrap();
    same_world(&walked, &teleported);
}

fn same_world<A: landfall::world::CellStore, B: landfall::world::CellStore>(a: &World<A>, b: &World<B>) {
    assert_eq!(a.finest_active(), b.finest_active());
    for k in a.finest_active()..7 {
        assert_eq!(a.window_origin(k), b.window_origin(k), "layer {k}");
        let o = a.window_origin(k);
        for j in 0..a.width() as i64 {
            for i in 0..a.width() as i64 {
                assert_eq!(a.cell(k, o[0] + i, o[1] + j), b.cell(k, o[0] + i, o[1] + j));
            }
        }
    }
    let (ta, tb) = (a.world_triangles(), b.world_triangles());
    assert_eq!(ta, tb);
}

/// With hysteresis, walking to and fro across a boundary inside the band generates nothing; the
/// cells and mesh after any walk match a fresh cache with the same windows.
#[test]
fn hysteresis_stops_flicker() {
    let mut w: World = World::new(small_params(7), small_cache(0.125), DVec3::new(0.0, 0.5, 2.0)).unwrap();
    // x = 2 is a boundary of layer 0 (the midpoint of a level-1 cell is at odd multiples of 2 m).
    w.update(DVec3::new(2.5, 0.5, 2.0)).unwrap();
    let mut generated = 0;
    for n in 0..50 {
        let x = if n % 2 == 0 { 1.8 } else { 2.2 };
        generated += w.update(DVec3::new(x, 0.5, 2.0)).unwrap().cells_generated;
    }
    assert_eq!(generated, 0, "back and forth inside the band regenerated cells");
    // Without hysteresis the same walk regenerates every time.
    let mut n0: World = World::new(small_params(7), small_cache(0.0), DVec3::new(2.5, 0.5, 2.0)).unwrap();
    let mut generated = 0;
    for n in 0..50 {
        let x = if n % 2 == 0 { 1.8 } else { 2.2 };
        generated += n0.update(DVec3::new(x, 0.5, 2.0)).unwrap().cells_generated;
    }
    assert!(generated > 0);
    check_mesh(&w);
}

/// Toroidal arrays and the hash table hold the same cache.
#[test]
fn hashed_store_matches_toroidal() {
    let mut a: World<Toroidal> = World::new(small_params(8), small_cache(0.125), DVec3::new(1.0, 1.0, 2.0)).unwrap();
    let mut b: World<Hashed> = World::new(small_params(8), small_cache(0.125), DVec3::new(1.0, 1.0, 2.0)).unwrap();
    let mut p = DVec3::new(1.0, 1.0, 2.0);
    for n in 0..120 {
        p += DVec3::new(1.7, 0.9, if n == 60 { 40.0 } else { 0.0 });
        a.update(p).unwrap();
        b.update(p).unwrap();
    }
    same_world(&a, &b);
}

/// Queries answer on the drawn triangles: vertical queries and rays against f64 brute force.
#[test]
fn queries_match_brute_force_on_the_drawn_mesh() {
    let mut w: World = World::new(small_params(11), small_cache(0.125), DVec3::new(0.0, 0.0, 2.0)).unwrap();
    let mut rng = SplitMix64::new(4);
    for round in 0..4 {
        let v = DVec3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), 0.0);
        let g = w.height_at(v.x, v.y).unwrap_or(0.0);
        w.update(v + DVec3::Z * (g + if round == 3 { 25.0 } else { 2.0 })).unwrap();
        let tris = w.world_triangles();
        let b = w.mesh_bounds();
        for _ in 0..400 {
            let p = DVec2::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
            let got = w.surface_at(p.x, p.y).expect("inside the mesh");
            let want = brute_height(&tris, p).unwrap();
            assert!((got.point.z - want).abs() < 1e-6, "height at {p:?}: {} vs {want}", got.point.z);
            assert!(got.normal.z > 0.0 && (got.normal.length() - 1.0).abs() < 1e-12);
        }
        assert!(w.surface_at(b.min.x - 1.0, b.min.y).is_none());
        for n in 0..150 {
            let o =
                DVec3::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y), b.max.z + rng.range(1.0, 30.0));
            let tri = tris[(rng.next_u64() % tris.len() as u64) as usize].1;
            let target = if n % 3 == 0 {
                // Aim exactly at a vertex of the mesh (watertightness).
                tri[(n / 3) % 3]
            } else if n % 3 == 1 {
                // Or at the middle of an edge (shared with a neighbour, perhaps across a seam).
                (tri[(n / 3) % 3] + tri[(n / 3 + 1) % 3]) * 0.5
            } else {
                DVec3::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y), b.min.z)
            };
            let ray = Ray::new(o, target - o);
            let got = w.raycast(&ray, 2.0);
            let want = brute_ray(&tris, &ray, 2.0);
            match (got, want) {
                (Some(h), Some(t)) => assert!((h.t - t).abs() < 1e-6, "ray {ray:?}: t {} vs {t}", h.t),
                (None, None) => {}
                (g, wnt) => panic!("ray {ray:?}: {g:?} vs brute {wnt:?}"),
            }
            if n % 3 != 2 {
                assert!(got.is_some_and(|h| h.t <= 1.0 + 1e-9), "ray aimed at a vertex or an edge slipped through");
            }
        }
        // Rays in every direction from just above the ground (shadow and line-of-sight rays).
        for _ in 0..150 {
            let p = DVec2::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
            let Some(g) = w.height_at(p.x, p.y) else { continue };
            let o = DVec3::new(p.x, p.y, g + rng.range(0.01, 3.0));
            let dir =
                DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.3, 0.4)) * rng.range(1.0, 80.0);
            let ray = Ray::new(o, dir);
            let got = w.raycast(&ray, f64::INFINITY).map(|h| h.t);
            let want = brute_ray(&tris, &ray, f64::INFINITY);
            match (got, want) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6 * (1.0 + b), "ray {ray:?}: t {a} vs {b}"),
                (None, None) => {}
                (g, wnt) => panic!("ray {ray:?}: {g:?} vs brute {wnt:?}"),
            }
        }
    }
}

/// Every drawn triangle whose box meets a region is visited.
#[test]
fn triangles_in_is_a_superset() {
    let w: World = World::new(small_params(12), small_cache(0.125), DVec3::new(5.0, 5.0, 2.0)).unwrap();
    let tris = w.world_triangles();
    let mut rng = SplitMix64::new(1);
    let b = w.mesh_bounds();
    for _ in 0..40 {
        let c = DVec3::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y), rng.range(b.min.z, b.max.z));
        let h = DVec3::new(rng.range(0.1, 20.0), rng.range(0.1, 20.0), rng.range(0.1, 20.0));
        let region = Aabb { min: c - h, max: c + h };
        let mut seen = Vec::new();
        w.triangles_in(&region, &mut |_, t| seen.push(t));
        for (_, t) in &tris {
            let lo = t[0].min(t[1]).min(t[2]);
            let hi = t[0].max(t[1]).max(t[2]);
            if lo.cmple(region.max).all() && hi.cmpge(region.min).all() {
                assert!(seen.contains(t), "missed {t:?}");
            }
        }
    }
}

/// At 10,000 km from the origin the same landscape (moved there by the anchor) gives bitwise the
/// same mesh relative to the layer origins, the same normals and the same heights relative to the
/// viewer as at the origin.
#[test]
fn far_from_the_origin_is_as_precise_as_at_it() {
    let params = WorldParams::default();
    let top_cell = params.cell_size * ((params.levels - 1) as f64).exp2();
    let cells = (10_000_000.0 / top_cell).round() as i64;
    let shift = cells as f64 * top_cell;
    assert!((shift - 1e7).abs() < top_cell);
    let near_v = DVec3::new(12.3, -4.5, 3.0);
    let far_v = near_v + DVec3::new(shift, 0.0, 0.0);
    let near: World = World::new(params.clone(), CacheParams::default(), near_v).unwrap();
    let far: World = World::new(params.with_anchor([cells, 0]), CacheParams::default(), far_v).unwrap();
    for (a, b) in near.meshes().zip(far.meshes()) {
        assert_eq!(a.level, b.level);
        for (ra, rb) in a.regions().iter().zip(b.regions()) {
            assert_eq!(ra.vertices, rb.vertices, "layer {}", a.level);
            assert_eq!(ra.indices, rb.indices);
        }
        assert_eq!(b.origin.x - a.origin.x, shift);
    }
    let mut rng = SplitMix64::new(2);
    for _ in 0..2000 {
        let d = DVec2::new(rng.range(-300.0, 300.0), rng.range(-300.0, 300.0));
        let a = near.surface_at(near_v.x + d.x, near_v.y + d.y).unwrap();
        let b = far.surface_at(far_v.x + d.x, far_v.y + d.y).unwrap();
        assert!((a.point.z - b.point.z).abs() < 1e-6, "{} vs {}", a.point.z, b.point.z);
        assert_eq!(a.normal, b.normal);
        // Rays from the viewer too.
        let dir = DVec3::new(d.x, d.y, -40.0);
        let ha = near.raycast(&Ray::new(near_v + DVec3::Z * 50.0, dir), 10.0);
        let hb = far.raycast(&Ray::new(far_v + DVec3::Z * 50.0, dir), 10.0);
        assert_eq!(ha.is_some(), hb.is_some());
        if let (Some(ha), Some(hb)) = (ha, hb) {
            assert!((ha.t - hb.t).abs() < 1e-6);
        }
    }
}

/// Generation is independent of thread count and order: patches generated in parallel equal the
/// sequential ones bitwise.
#[test]
fn generation_is_deterministic_across_threads() {
    use rayon::prelude::*;
    let g = landfall::world::Generator::new(WorldParams::default()).unwrap();
    let make = |n: i32| g.patch(2, n as i64 * 37 - 300, 1000 - n as i64 * 11, 40, 40);
    let seq: Vec<_> = (0..16).map(make).collect();
    let par: Vec<_> = (0..16i32).into_par_iter().rev().map(make).collect();
    assert_eq!(seq, par.into_iter().rev().collect::<Vec<_>>());
}

/// The on-demand terrain at level k answers like the cache's own surface of layer k, and its tile
/// cache stays bounded.
#[test]
fn lod_terrain_matches_the_cache_level() {
    let params = small_params(13);
    let w: World = World::new(params.clone(), small_cache(0.0), DVec3::new(0.0, 0.0, 2.0)).unwrap();
    let gen = w.generator().clone();
    let lod = LodTerrain::new(gen, 2, 3);
    let mut rng = SplitMix64::new(3);
    let s = 4.0;
    let o = w.window_origin(2);
    for _ in 0..300 {
        let (x, y) = (
            rng.range((o[0] as f64 + 2.0) * s, (o[0] as f64 + 14.0) * s),
            rng.range((o[1] as f64 + 2.0) * s, (o[1] as f64 + 14.0) * s),
        );
        let h = lod.height_at(x, y).unwrap();
        // Brute force: the fan from cells generated directly.
        let (i, j) = ((x / s).floor() as i64, (y / s).floor() as i64);
        let c = w.generator().patch(2, i - 1, j - 1, 3, 3);
        let at = |a: usize, b: usize| c[b * 3 + a].h;
        let corner = |a: usize, b: usize| {
            landfall::support::corner_height(at(a - 1, b - 1), at(a, b - 1), at(a - 1, b), at(a, b)) as f64
        };
        let z = [corner(1, 1), corner(2, 1), corner(2, 2), corner(1, 2)];
        let want = landfall::support::fan_height(z, at(1, 1) as f64, x / s - i as f64, y / s - j as f64);
        assert!((h - want).abs() < 1e-6, "{h} vs {want}");
    }
    for n in 0..20 {
        lod.height_at(n as f64 * 1000.0, 0.0);
    }
    assert!(lod.tiles_held() <= 3);
    assert!(lod.tiles_generated() >= 20);
    // Rays on the endless terrain hit where the vertical query says.
    for _ in 0..100 {
        let o = DVec3::new(rng.range(-500.0, 500.0), rng.range(-500.0, 500.0), 400.0);
        let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -0.5);
        let hit = lod.raycast(&Ray::new(o, dir), f64::INFINITY).expect("a ray going down meets the ground");
        let h = lod.height_at(hit.point.x, hit.point.y).unwrap();
        assert!((hit.point.z - h).abs() < 1e-6, "{} vs {h}", hit.point.z);
    }
}

#[test]
fn bad_input_is_an_error() {
    let v = DVec3::new(0.0, 0.0, 2.0);
    let e =
        World::<Toroidal>::new(WorldParams::default(), CacheParams::default().with_hysteresis(0.5), v).err().unwrap();
    assert!(e.to_string().contains("hysteresis"), "{e}");
    let e = World::<Toroidal>::new(WorldParams::default(), CacheParams::default().with_layers(20), v).err().unwrap();
    assert!(e.to_string().contains("layers"), "{e}");
    let e = World::<Toroidal>::new(small_params(1), small_cache(0.0), DVec3::new(f64::NAN, 0.0, 0.0)).err().unwrap();
    assert!(e.to_string().contains("finite"), "{e}");
    let mut w: World = World::new(small_params(1), small_cache(0.0), v).unwrap();
    assert!(w.update(DVec3::new(1e300, 0.0, 0.0)).is_err());
    assert!(w.raycast(&Ray::new(v, DVec3::ZERO), 1.0).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random seeds, cache shapes and paths: the mesh stays a sheet and queries match brute force.
    #[test]
    fn random_worlds_stay_consistent(seed in 0u64..1000, radius in 2u32..6, steps in prop::collection::vec((-30.0f64..30.0, -30.0f64..30.0, 0.0f64..60.0), 1..6)) {
        let cache = CacheParams::default().with_layers(6).with_inner_radius(radius).with_mesh_finest(0).with_mesh_coarsest(4).with_lod_height(4.0).with_hysteresis(0.1);
        let mut w: World = World::new(WorldParams::default().with_seed(seed).with_levels(8).with_relief(40.0), cache, DVec3::new(0.0, 0.0, 2.0)).unwrap();
        for (dx, dy, up) in steps {
            let v = w.viewer() + DVec3::new(dx, dy, 0.0);
            let g = w.height_at(v.x, v.y).unwrap_or(0.0);
            w.update(DVec3::new(v.x, v.y, g + 1.0 + up)).unwrap();
            check_mesh(&w);
            let tris = w.world_triangles();
            let b = w.mesh_bounds();
            let mut rng = SplitMix64::new(seed);
            for _ in 0..30 {
                let p = DVec2::new(rng.range(b.min.x, b.max.x), rng.range(b.min.y, b.max.y));
                let got = w.height_at(p.x, p.y).unwrap();
                prop_assert!((got - brute_height(&tris, p).unwrap()).abs() < 1e-6);
                // A ray from above toward a random vertex (exactly on shared edges and corners).
                let target = tris[(rng.next_u64() % tris.len() as u64) as usize].1[0];
                let ray = Ray::new(DVec3::new(p.x, p.y, b.max.z + 3.0), target - DVec3::new(p.x, p.y, b.max.z + 3.0));
                let got = w.raycast(&ray, 1.5).map(|h| h.t);
                let want = brute_ray(&tris, &ray, 1.5);
                prop_assert!(got.is_some() && want.is_some(), "ray {:?}: {:?} vs {:?}", ray, got, want);
                prop_assert!((got.unwrap() - want.unwrap()).abs() < 1e-6);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// `changed_region` bounds what a move changed: every drawn triangle wholly outside it is drawn
    /// before and after, bit for bit, and the ground (drawn or far) at any point outside it is the
    /// same; a move that changes nothing answers `None`.
    #[test]
    fn the_changed_region_holds_every_change(seed in 0u64..1000, hysteresis in prop::sample::select(vec![0.0, 0.1]), steps in prop::collection::vec((-20.0f64..20.0, -20.0f64..20.0, 0.0f64..40.0), 1..6)) {
        let mut w: World = World::new(small_params(seed), small_cache(hysteresis), DVec3::new(0.0, 0.0, 2.0)).unwrap();
        prop_assert!(w.changed_region().is_none());
        let mut rng = SplitMix64::new(seed);
        for (dx, dy, up) in steps {
            let v = w.viewer() + DVec3::new(dx, dy, 0.0);
            let g = w.height_at(v.x, v.y).unwrap_or(0.0);
            let outside = |a: &Aabb, t: &[DVec3; 3]| {
                let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
                hi.x < a.min.x || lo.x > a.max.x || hi.y < a.min.y || lo.y > a.max.y
            };
            let before: Vec<[DVec3; 3]> = w.world_triangles().into_iter().map(|t| t.1).collect();
            let b = w.mesh_bounds();
            let points: Vec<DVec2> = (0..200)
                .map(|_| DVec2::new(rng.range(b.min.x - 60.0, b.max.x + 60.0), rng.range(b.min.y - 60.0, b.max.y + 60.0)))
                .collect();
            let ground = |w: &World| points.iter().map(|p| w.top_surface(p.extend(0.0)).map(|s| s.point.z.to_bits())).collect::<Vec<_>>();
            let was = ground(&w);
            let stats = w.update(DVec3::new(v.x, v.y, g + 1.0 + up)).unwrap();
            let Some(region) = w.changed_region() else {
                prop_assert_eq!(stats.layers_changed, 0);
                prop_assert_eq!(ground(&w), was);
                continue;
            };
            let key = |t: &[DVec3; 3]| t.map(|p| p.to_array().map(f64::to_bits));
            let after: std::collections::HashSet<_> = w.world_triangles().iter().map(|t| key(&t.1)).collect();
            let kept: std::collections::HashSet<_> = before.iter().map(key).collect();
            for t in before.iter().filter(|t| outside(&region, t)) {
                prop_assert!(after.contains(&key(t)), "triangle {:?} outside {:?} was dropped", t, region);
            }
            for t in w.world_triangles().iter().filter(|t| outside(&region, &t.1)) {
                prop_assert!(kept.contains(&key(&t.1)), "triangle {:?} outside {:?} is new", t.1, region);
            }
            for ((p, now), then) in points.iter().zip(ground(&w)).zip(&was) {
                let inside = (region.min.x..=region.max.x).contains(&p.x) && (region.min.y..=region.max.y).contains(&p.y);
                prop_assert!(inside || now == *then, "the ground at {:?}, outside {:?}, changed", p, region);
            }
        }
    }
}

/// A character controller walks on the world (through the `Terrain` trait) while the cache follows
/// it, and never ends below the drawn ground.
#[test]
fn controller_walks_on_the_drawn_mesh() {
    use landfall::collide::{CharacterController, ControllerParams, TerrainSweep};
    let radius = 0.4;
    let mut w: World = World::new(small_params(21), small_cache(0.125), DVec3::new(0.5, 0.5, 1.0)).unwrap();
    let mut rng = SplitMix64::new(8);
    let walker = CharacterController::new(ControllerParams::default().with_radius(radius), DVec3::Z)
        .expect("valid controller parameters");
    for round in 0..6 {
        let g = w.height_at(w.viewer().x, w.viewer().y).unwrap();
        let mut pos = DVec3::new(w.viewer().x, w.viewer().y, g + radius + 0.2);
        w.update(pos).unwrap();
        let heading = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0).normalize();
        let mut grounded = false;
        for _ in 0..300 {
            let speed = if round % 2 == 0 { 0.1 } else { 2.0 };
            let m = walker.move_by(&TerrainSweep(&w), pos, heading * speed - DVec3::Z * 0.5, grounded);
            (pos, grounded) = (m.position, m.grounded);
            let ground = w.height_at(pos.x, pos.y).expect("the walker stays on the mesh");
            assert!(pos.z - radius >= ground - 1e-6, "below the ground: {} < {ground}", pos.z - radius);
            w.update(pos).unwrap();
            // On the ground the finest layer stays active, so the ground under the viewer is never
            // redrawn (a change of depth would redraw it: see the `world` example).
            assert_eq!(w.finest_active(), 0);
        }
    }
}

/// Beyond the drawn mesh the world answers on its far landscape: vertical queries, rays that leave
/// the mesh toward the horizon, candidate triangles.
#[test]
fn beyond_the_mesh_the_far_landscape_answers() {
    let w: World = World::new(small_params(30), small_cache(0.0).with_far_level(3), DVec3::new(1.0, 2.0, 3.0)).unwrap();
    let b = w.mesh_bounds();
    let out = DVec3::new(b.max.x + 100.0, b.min.y - 50.0, 0.0);
    assert!(w.surface_at(out.x, out.y).is_none());
    let s = w.top_surface(out).expect("the far landscape");
    assert_eq!(Some(s.point.z), w.far().height_at(out.x, out.y));
    // A ray from inside the mesh that leaves it, skimming the ground, comes down beyond it.
    let mut hits_beyond = 0;
    let mut rng = SplitMix64::new(5);
    for _ in 0..50 {
        let o = DVec3::new(1.0, 2.0, b.max.z + 5.0);
        let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), -0.02);
        let ray = Ray::new(o, dir);
        let Some(h) = landfall::Terrain::raycast(&w, &ray, f64::INFINITY) else { continue };
        let drawn = w.raycast(&ray, f64::INFINITY);
        match drawn {
            Some(d) => assert_eq!(d.t, h.t),
            None => {
                hits_beyond += 1;
                assert!(h.point.x < b.min.x || h.point.x > b.max.x || h.point.y < b.min.y || h.point.y > b.max.y);
                assert!((h.point.z - w.far().height_at(h.point.x, h.point.y).unwrap()).abs() < 1e-6);
            }
        }
    }
    assert!(hits_beyond > 0, "no ray reached the far landscape");
    let region = Aabb { min: DVec3::new(b.max.x - 10.0, 0.0, -1e4), max: DVec3::new(b.max.x + 10.0, 10.0, 1e4) };
    let (mut near, mut far) = (0, 0);
    w.triangles_in(&region, &mut |_, t| if t[0].x >= b.max.x { far += 1 } else { near += 1 });
    assert!(near > 0 && far > 0, "{near} {far}");
}

/// Rays on the far landscape against brute force over every triangle under the ray's segment.
#[test]
fn lod_terrain_rays_match_brute_force() {
    let gen = landfall::world::Generator::new(small_params(17)).unwrap();
    let lod = LodTerrain::new(gen, 1, 8);
    let mut rng = SplitMix64::new(11);
    let mut hits = 0;
    for n in 0..300 {
        let o = DVec3::new(rng.range(-300.0, 300.0), rng.range(-300.0, 300.0), rng.range(-20.0, 80.0));
        let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 0.5));
        let dir = if n % 3 == 0 { DVec3::new(dir.x, dir.y, 0.0) } else { dir };
        if dir.length() < 1e-3 {
            continue;
        }
        let max_t = 60.0 / dir.length();
        let ray = Ray::new(o, dir);
        let end = ray.at(max_t);
        let region = Aabb { min: o.min(end) - DVec3::splat(1.0), max: o.max(end) + DVec3::splat(1.0) };
        let mut tris = Vec::new();
        lod.triangles_in(&region, &mut |id, t| tris.push((id, t)));
        let want = tris
            .iter()
            .filter_map(|(_, t)| landfall::support::moller_trumbore_grown(o, dir, t, 1e-9))
            .filter(|&t| t >= 0.0 && t <= max_t)
            .reduce(f64::min);
        let got = lod.raycast(&ray, max_t).map(|h| h.t);
        match (got, want) {
            (Some(a), Some(b)) => {
                hits += 1;
                assert!((a - b).abs() < 1e-6 * (1.0 + b), "ray {ray:?}: {a} vs {b}");
            }
            (None, None) => {}
            (g, w) => panic!("ray {ray:?}: {g:?} vs brute {w:?}"),
        }
    }
    assert!(hits > 50, "only {hits} hits");
}

/// Coordinates at the ends of f64's range: the far landscape answers "no ground" beyond the
/// addressable world instead of generating cells there (it overflowed a capacity and panicked), a
/// ray from or toward there ends, and a region there holds no triangle; the world refuses such a
/// viewer, and the generator refuses cell widths it cannot address.
#[test]
fn extreme_coordinates_are_answered_or_refused() {
    let gen = Generator::new(WorldParams::default()).unwrap();
    let lod = LodTerrain::new(gen, 4, 8);
    for x in [1e300, -1e300, f64::MAX, 1e10, -2e9] {
        assert_eq!(lod.height_at(x, 0.7), None, "{x}");
        assert_eq!(lod.height_at(0.3, x), None, "{x}");
        let down = Ray::new(DVec3::new(x, 0.7, 5000.0), DVec3::NEG_Z);
        assert!(lod.raycast(&down, f64::INFINITY).is_none());
        let mut n = 0;
        let r = Aabb::new(DVec3::new(x, x, -1e4), DVec3::new(x, x, 1e4));
        lod.triangles_in(&r, &mut |_, _| n += 1);
        assert_eq!(n, 0);
    }
    assert!(lod.height_at(1000.3, -2000.7).is_some(), "inside, the ground is there");
    // A ray along the ground toward the edge of the addressable world (2³⁰ m out) ends there.
    let edge = (1u64 << 30) as f64;
    let toward = Ray::new(DVec3::new(edge - 200.0, 0.5, -1e4), DVec3::new(1e300, 0.0, 0.0));
    assert!(lod.raycast(&toward, f64::INFINITY).is_none());
    for v in [DVec3::new(1e300, 0.0, 0.0), DVec3::new(0.0, -1e17, 0.0), DVec3::new(f64::NAN, 0.0, 0.0)] {
        assert!(World::<Toroidal>::new(WorldParams::default(), CacheParams::default(), v).is_err());
    }
    for s in [1e-300, 0.0, 1e300, f64::INFINITY] {
        assert!(Generator::new(WorldParams::default().with_cell_size(s)).is_err(), "{s}");
    }
}
