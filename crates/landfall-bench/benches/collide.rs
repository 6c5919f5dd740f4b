//! Swept spheres and controller moves: the 2004 paper's sphere tree (id `landfall`), the terrain's own candidate
//! triangles (no extra structure), the paper's tiles in the view on the heightfield (`tile_view`: a
//! tree of spheres over cells per 256² tile, every tile in view), and the naive all-triangles sweep,
//! on the same terrain and motions.
//!
//! `cargo bench -p landfall-bench --bench collide`

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, BenchmarkId, Criterion};
use glam::DVec3;
use landfall::collide::{
    closest_point, CharacterController, ControllerParams, SphereTree, SweepTarget, TerrainSweep, TileView,
    TileViewParams,
};
use landfall::{place, Aabb, FollowParams, PolygonTerrain, QuadtreeParams, Terrain};
use landfall_bench::harness::cycle;
use landfall_bench::motions::{
    crowd_frame, crowd_walkers, fresh_walk, settled_walk, sweep_motions, Walker, CROWD_AGE_FRAMES, CROWD_WINDOW_FRAMES,
};
use landfall_bench::rapier_peer::{controller as rapier_controller, RapierScene};
use landfall_bench::report::print_ratios_over;
use landfall_bench::terrains::{dem_tin, generated};
use std::hint::black_box;
use std::time::Instant;

/// The ~13,000-triangle TIN of the real DEM as a polygon terrain.
fn tin_terrain() -> PolygonTerrain {
    let tin = dem_tin(13_000);
    PolygonTerrain::builder()
        .triangles(&tin.vertices, &tin.triangles)
        .params(QuadtreeParams::default())
        .build()
        .unwrap()
}

fn sweeps(c: &mut Criterion) {
    let mut g = c.benchmark_group("swept_sphere");
    let hf = generated(1025).hf;
    let start = Instant::now();
    let hf_tree = SphereTree::from_terrain(&hf);
    eprintln!(
        "gen1025: sphere tree over {} triangles built in {:.0} ms",
        hf_tree.triangle_count(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let start = Instant::now();
    let mut view = TileView::new(std::sync::Arc::new(hf.clone()), TileViewParams::default()).unwrap();
    view.update(glam::DVec2::ZERO, f64::INFINITY);
    eprintln!(
        "gen1025: {} tiles in view, their trees built in {:.0} ms ({:.1} MiB)",
        view.tiles().count(),
        start.elapsed().as_secs_f64() * 1e3,
        view.memory_bytes() as f64 / (1 << 20) as f64
    );
    let poly = tin_terrain();
    let poly_tree = SphereTree::from_terrain(&poly);
    let cases: [(&str, &dyn Terrain, &SphereTree); 2] = [("gen1025", &hf, &hf_tree), ("tin13k", &poly, &poly_tree)];
    let rapier: Vec<RapierScene> = cases
        .iter()
        .map(|(name, t, _)| {
            let mut verts = Vec::new();
            t.triangles_in(&t.bounds(), &mut |_, tri| verts.extend_from_slice(&tri));
            let tris: Vec<[u32; 3]> = (0..verts.len() as u32 / 3).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
            let start = Instant::now();
            let scene = RapierScene::new(&verts, &tris);
            eprintln!(
                "{name}: rapier TriMesh of {} triangles built in {:.0} ms",
                tris.len(),
                start.elapsed().as_secs_f64() * 1e3
            );
            scene
        })
        .collect();
    for ((name, t, tree), scene) in cases.into_iter().zip(&rapier) {
        let set = sweep_motions(t, 2048, 5);
        // Each sweep's start, motion and contact times (landfall's, rapier's), where the two differ
        // by more than 2 cm of the motion (rapier works in f32).
        let off: Vec<(DVec3, DVec3, Option<f64>, Option<f64>)> = set
            .iter()
            .map(|&(c0, v)| {
                let a = TerrainSweep(t).sweep(c0, 1.0, v).map(|h| h.contact.t);
                (c0, v, a, scene.cast_ball(c0, 1.0, v).map(f64::from))
            })
            .filter(|&(_, v, a, b)| {
                a.zip(b).map_or(a.is_some() != b.is_some(), |(x, y)| (x - y).abs() * v.length() > 0.02)
            })
            .collect();
        // Where they differ, which contact is right: at a true first contact the centre is the
        // radius from the nearest triangle (measured here directly), unless it started closer.
        let (mut landfall_wrong, mut rapier_gaps) = (0, Vec::new());
        for &(c0, v, a, b) in &off {
            if let Some(x) = a {
                // A contact at t = 0 is a start already inside the radius.
                let gap = surface_gap(t, c0 + v * x, 1.0);
                landfall_wrong += usize::from(gap > 1e-6 || (gap < -1e-6 && x > 0.0));
            }
            if let Some(y) = b {
                rapier_gaps.push(surface_gap(t, c0 + v * y, 1.0).abs());
            }
        }
        rapier_gaps.sort_by(f64::total_cmp);
        eprintln!(
            "{name}: {} of {} sweeps answered differently by rapier (beyond 2 cm); there, landfall's contact \
             is off the surface by more than 1 µm in {landfall_wrong}, rapier's by a median {:.3} m (max {:.3} m)",
            off.len(),
            set.len(),
            rapier_gaps.get(rapier_gaps.len() / 2).unwrap_or(&0.0),
            rapier_gaps.last().unwrap_or(&0.0),
        );
        g.bench_function(BenchmarkId::new("rapier_trimesh", name), |b| {
            cycle(b, &set, |(c0, v)| {
                black_box(scene.cast_ball(*c0, 1.0, *v));
            })
        });
        // Same answers first.
        let differ = set
            .iter()
            .filter(|(c0, v)| {
                let (a, b) = (tree.sweep(*c0, 1.0, *v), TerrainSweep(t).sweep(*c0, 1.0, *v));
                a.map(|h| h.contact.t)
                    .zip(b.map(|h| h.contact.t))
                    .map_or(a.is_some() != b.is_some(), |(x, y)| (x - y).abs() > 1e-9)
            })
            .count();
        eprintln!(
            "{name}: {differ} of {} sweeps differ between the sphere tree and the terrain's candidates",
            set.len()
        );
        g.bench_function(BenchmarkId::new("sphere_tree", name), |b| {
            cycle(b, &set, |(c0, v)| {
                black_box(tree.sweep(*c0, 1.0, *v));
            })
        });
        g.bench_function(BenchmarkId::new("terrain_candidates", name), |b| {
            cycle(b, &set, |(c0, v)| {
                black_box(TerrainSweep(t).sweep(*c0, 1.0, *v));
            })
        });
        if name == "gen1025" {
            g.bench_function(BenchmarkId::new("tile_view", name), |b| {
                cycle(b, &set, |(c0, v)| {
                    black_box(view.sweep(*c0, 1.0, *v));
                })
            });
        }
        // Controller-sized motions: 10 cm.
        let short: Vec<(DVec3, DVec3)> =
            set.iter().map(|(c0, v)| (*c0 - DVec3::Z * 0.99, v.normalize_or_zero() * 0.1)).collect();
        g.bench_function(BenchmarkId::new("terrain_candidates_10cm", name), |b| {
            cycle(b, &short, |(c0, v)| {
                black_box(TerrainSweep(t).sweep(*c0, 1.0, *v));
            })
        });
        g.bench_function(BenchmarkId::new("rapier_trimesh_10cm", name), |b| {
            cycle(b, &short, |(c0, v)| {
                black_box(scene.cast_ball(*c0, 1.0, *v));
            })
        });
        g.bench_function(BenchmarkId::new("naive", name), |b| {
            cycle(b, &set[..16], |(c0, v)| {
                black_box(tree.sweep_all(*c0, 1.0, *v));
            })
        });
    }
    g.finish();

    // Moves from where a walking character is between frames (the target's measure), and from
    // fresh, mostly embedded starts (spawns).
    let controller =
        CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    let kcc = rapier_controller();
    for (group, settled) in [("controller_move", true), ("controller_move_fresh", false)] {
        let mut g = c.benchmark_group(group);
        for ((name, t, tree), scene) in cases.into_iter().zip(&rapier) {
            // Every move may step and snap ("was grounded"): the full path the target names.
            let walk: Vec<(DVec3, DVec3)> = if settled {
                settled_walk(t, &TerrainSweep(t), &controller, 2048, 6).into_iter().map(|(p, d, _)| (p, d)).collect()
            } else {
                fresh_walk(t, 2048, 6)
            };
            g.bench_function(BenchmarkId::new("sphere_tree", name), |b| {
                cycle(b, &walk, |(p, d)| {
                    black_box(controller.move_by(tree, *p, *d, true));
                })
            });
            g.bench_function(BenchmarkId::new("terrain_candidates", name), |b| {
                cycle(b, &walk, |(p, d)| {
                    black_box(controller.move_by(&TerrainSweep(t), *p, *d, true));
                })
            });
            if name == "gen1025" {
                g.bench_function(BenchmarkId::new("tile_view", name), |b| {
                    cycle(b, &walk, |(p, d)| {
                        black_box(controller.move_by(&view, *p, *d, true));
                    })
                });
            }
            g.bench_function(BenchmarkId::new("rapier_kcc", name), |b| {
                cycle(b, &walk, |(p, d)| {
                    black_box(scene.move_ball(&kcc, *p, 0.5, *d));
                })
            });
        }
        g.finish();
    }
}

/// Placement by three points, and a crowd of 10,000 characters moving one 60 fps frame (walking at
/// 1.5 m/s plus gravity) on all threads, after 10 s of walking (`CROWD_AGE_FRAMES`).
fn crowds(c: &mut Criterion) {
    let hf = generated(1025).hf;
    let poly = tin_terrain();
    let cases: [(&str, &dyn Terrain); 2] = [("gen1025", &hf), ("tin13k", &poly)];
    let mut g = c.benchmark_group("placement");
    let params = FollowParams::default().with_max_slope(1.5);
    // `place` is generic over the terrain: called with the terrain's own type (what a caller who
    // knows it writes), its calls to the terrain are direct; through `&dyn Terrain` (`_dyn`) they
    // go through the vtable.
    fn three_points<T: Terrain + ?Sized>(
        g: &mut BenchmarkGroup<'_, WallTime>,
        id: BenchmarkId,
        t: &T,
        bodies: &[(DVec3, f64)],
        params: &FollowParams,
    ) {
        g.bench_function(id, |b| {
            cycle(b, bodies, |(p, h)| {
                let _ = black_box(place(t, *p, *h, params));
            })
        });
    }
    for (name, t) in cases {
        let bodies = landfall_bench::motions::placeable(t, 4096, 7, &params);
        match name {
            "gen1025" => three_points(&mut g, BenchmarkId::new("landfall_three_points", name), &hf, &bodies, &params),
            _ => three_points(&mut g, BenchmarkId::new("landfall_three_points", name), &poly, &bodies, &params),
        }
        three_points(&mut g, BenchmarkId::new("landfall_three_points_dyn", name), t, &bodies, &params);
    }
    g.finish();
    let mut g = c.benchmark_group("crowd_frame");
    g.sample_size(20);
    let controller =
        CharacterController::new(ControllerParams::default(), DVec3::Z).expect("valid controller parameters");
    for (name, t) in cases {
        let mut walkers = crowd_walkers(t, 10_000, 8);
        // Walkers that have stood where the terrain has no surface (past a heightfield's edge, over a
        // TIN's sea) may walk back in under it without crossing it: they are left out of the check.
        let mut off_terrain = vec![false; walkers.len()];
        let mark_off_terrain = |walkers: &[Walker], off_terrain: &mut [bool]| {
            for ((p, _, _), off) in walkers.iter().zip(off_terrain) {
                *off |= t.top_surface(*p).is_none();
            }
        };
        // Walk them to the timed age first (see `CROWD_AGE_FRAMES`).
        for _ in 0..CROWD_AGE_FRAMES {
            crowd_frame(t, &controller, &mut walkers, true);
            mark_off_terrain(&walkers, &mut off_terrain);
        }
        let snapshot = (walkers.clone(), off_terrain.clone());
        let mut into_window = 0;
        g.bench_function(BenchmarkId::new("landfall_10000", name), |b| {
            // Only the frame is timed, not the bookkeeping around it.
            b.iter_custom(|iters| {
                let mut timed = std::time::Duration::ZERO;
                for _ in 0..iters {
                    if into_window == CROWD_WINDOW_FRAMES {
                        (walkers, off_terrain) = snapshot.clone();
                        into_window = 0;
                    }
                    let start = std::time::Instant::now();
                    crowd_frame(t, &controller, &mut walkers, true);
                    timed += start.elapsed();
                    mark_off_terrain(&walkers, &mut off_terrain);
                    into_window += 1;
                }
                timed
            })
        });
        // No walker that stayed over the terrain ends below its surface.
        let below = walkers
            .iter()
            .zip(&off_terrain)
            .filter(|((p, _, _), off)| !**off && t.top_surface(*p).is_some_and(|s| s.point.z > p.z))
            .count();
        eprintln!(
            "{name}: {below} of {} walkers that stayed over the terrain are below its surface after the frames ({} left it)",
            walkers.len(),
            off_terrain.iter().filter(|o| **o).count()
        );
    }
    g.finish();
}

fn report(_: &mut Criterion) {
    let names = ["gen1025".to_string(), "tin13k".to_string()];
    // landfall's path is the terrain's own candidates; the 2004 paper's sphere tree is a peer.
    let base = "terrain_candidates";
    print_ratios_over("swept_sphere", base, &["sphere_tree", "tile_view", "rapier_trimesh", "naive"], &names);
    print_ratios_over("controller_move", base, &["sphere_tree", "tile_view", "rapier_kcc"], &names);
    print_ratios_over("controller_move_fresh", base, &["sphere_tree", "tile_view", "rapier_kcc"], &names);
    for n in &names {
        for (group, f) in [
            ("swept_sphere", "terrain_candidates_10cm"),
            ("swept_sphere", "rapier_trimesh_10cm"),
            ("placement", "landfall_three_points"),
            ("crowd_frame", "landfall_10000"),
        ] {
            if let Some(ns) = landfall_bench::report::median_ns(group, f, n) {
                println!("{group}/{f}/{n}: {:.3} µs", ns / 1e3);
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion();
    targets = sweeps, crowds, report
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
}

/// Distance from `c` to the nearest triangle of `t` within `r` + 1 m, minus `r`: 0 for a sphere of
/// radius `r` touching the terrain.
fn surface_gap(t: &dyn Terrain, c: DVec3, r: f64) -> f64 {
    let reach = DVec3::splat(r + 1.0);
    let mut d = f64::INFINITY;
    t.triangles_in(&Aabb::new(c - reach, c + reach), &mut |_, tri| d = d.min(closest_point(&tri, c).distance(c)));
    d - r
}
