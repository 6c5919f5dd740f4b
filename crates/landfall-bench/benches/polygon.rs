//! Polygon terrain (QOTA) queries: landfall beside parry3d `TriMesh` (vertical ray casts), a uniform
//! grid of faces (the terrain-following note's method) and the naive scan, on the same triangles in
//! the same run: a ~13,000-triangle TIN of the real DEM (the size of QOTA's Diamond Park) and a
//! ~1,000,000-triangle one.
//!
//! `cargo bench -p landfall-bench --bench polygon` (one group: append its name, e.g. `poly_vertical_hit`).
//! After the groups it prints ratio tables, QOTA's Table 4 and Table 5 rows, build and load times.

use criterion::{criterion_group, BenchmarkId, Criterion};
use glam::DVec3;
use landfall::{PolygonTerrain, QuadtreeParams, Ray};
use landfall_bench::grid::{naive_top, UniformGrid};
use landfall_bench::harness::{self, batch_thread_counts, cycle, timed};
use landfall_bench::peers::{parry_tin, Parry};
use landfall_bench::report::{median_ns, print_batch_speedup, print_ratios};
use landfall_bench::terrains::{dem_tin, Tin};
use parry3d::shape::TriMesh;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

const SET: usize = 4096;

struct Data {
    tin: Tin,
    corners: Vec<[DVec3; 3]>,
    terrain: PolygonTerrain,
    build: Duration,
    mesh: Parry<TriMesh>,
    mesh_build: Duration,
    grid: UniformGrid,
    grid_build: Duration,
    hits: Vec<DVec3>,
    misses: Vec<DVec3>,
    top: f64,
}

fn build(tin: &Tin, params: QuadtreeParams) -> PolygonTerrain {
    PolygonTerrain::builder().triangles(&tin.vertices, &tin.triangles).params(params).build().expect("valid TIN")
}

fn data() -> &'static Vec<Data> {
    static D: OnceLock<Vec<Data>> = OnceLock::new();
    D.get_or_init(|| {
        let quick = std::env::var("LANDFALL_BENCH_QUICK").is_ok();
        let sizes: &[usize] = if quick { &[13_000] } else { &[13_000, 1_000_000] };
        sizes
            .iter()
            .map(|&n| {
                let tin = dem_tin(n);
                eprintln!(
                    "setting up {} ({} triangles, {} vertices)…",
                    tin.name,
                    tin.triangles.len(),
                    tin.vertices.len()
                );
                let corners = tin.corners();
                let (terrain, build) = timed(|| build(&tin, QuadtreeParams::default()));
                let (mesh, mesh_build) = timed(|| parry_tin(&tin.vertices, &tin.triangles));
                let (grid, grid_build) = timed(|| UniformGrid::new(corners.clone(), 2.0));
                let hits = tin.hit_points(SET, 41);
                let misses = tin.miss_points(SET, 42, &grid);
                let top = tin.vertices.iter().fold(f64::NEG_INFINITY, |m, v| m.max(v.z)) + 10.0;
                Data { tin, corners, terrain, build, mesh, mesh_build, grid, grid_build, hits, misses, top }
            })
            .collect()
    })
}

/// Same answers first: landfall's topmost surface against the uniform grid's (f64, independent).
fn check(d: &Data, pts: &[DVec3]) {
    let mut differ = 0;
    for p in pts {
        let a = d.terrain.top_surface(*p).map(|s| s.point.z);
        let b = d.grid.top(p.x, p.y);
        let same = match (a, b) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * (1.0 + x.abs()),
            (None, None) => true,
            _ => false,
        };
        differ += usize::from(!same);
    }
    eprintln!("{}: {differ} of {} vertical queries differ from the uniform grid's", d.tin.name, pts.len());
}

fn vertical_group(c: &mut Criterion, name: &str, pick: fn(&Data) -> &Vec<DVec3>) {
    let mut g = c.benchmark_group(name);
    for d in data() {
        let pts = pick(d);
        check(d, pts);
        let id = &d.tin.name;
        g.bench_function(BenchmarkId::new("landfall", id), |b| {
            cycle(b, pts, |p| {
                black_box(d.terrain.top_surface(*p));
            })
        });
        let rays: Vec<Ray> = pts.iter().map(|p| Ray::new(DVec3::new(p.x, p.y, d.top), DVec3::NEG_Z)).collect();
        g.bench_function(BenchmarkId::new("parry_trimesh_ray", id), |b| {
            cycle(b, &rays, |r| {
                black_box(d.mesh.raycast(r, f64::INFINITY));
            })
        });
        g.bench_function(BenchmarkId::new("uniform_grid", id), |b| {
            cycle(b, pts, |p| {
                black_box(d.grid.top(p.x, p.y));
            })
        });
        if d.corners.len() < 50_000 {
            g.bench_function(BenchmarkId::new("naive", id), |b| {
                cycle(b, &pts[..64], |p| {
                    black_box(naive_top(&d.corners, p.x, p.y));
                })
            });
        }
    }
    g.finish();
}

fn poly_vertical_hit(c: &mut Criterion) {
    vertical_group(c, "poly_vertical_hit", |d| &d.hits);
}

fn poly_vertical_miss(c: &mut Criterion) {
    vertical_group(c, "poly_vertical_miss", |d| &d.misses);
}

/// QOTA's Table 4 parameter sets (equal quadrants, its stop rule) and landfall's default, on the
/// ~13,000-triangle TIN: ns per query with a hit.
const TABLE4: [(usize, usize); 4] = [(400, 5), (16, 12), (12, 12), (8, 14)];

fn table4_params() -> Vec<(String, QuadtreeParams)> {
    let mut v: Vec<(String, QuadtreeParams)> =
        TABLE4.iter().map(|&(p, d)| (format!("paper_{p}_{d}"), QuadtreeParams::paper(p, d))).collect();
    v.push(("landfall_default".into(), QuadtreeParams::default()));
    let vertices = QuadtreeParams::default().with_cuts(landfall::CutRule::Vertices);
    v.push(("landfall_vertex_cuts".into(), vertices));
    v
}

fn poly_table4(c: &mut Criterion) {
    let mut g = c.benchmark_group("poly_table4");
    let d = &data()[0];
    for (name, params) in table4_params() {
        let t = build(&d.tin, params);
        g.bench_function(BenchmarkId::new(name, &d.tin.name), |b| {
            cycle(b, &d.hits, |p| {
                black_box(t.top_surface(*p));
            })
        });
    }
    g.finish();
}

fn poly_raycast(c: &mut Criterion) {
    let mut g = c.benchmark_group("poly_raycast_oblique");
    for d in data() {
        let rays = d.tin.oblique_rays(SET, 43);
        let mut differ = 0;
        for (r, m) in &rays {
            let a = d.terrain.raycast(r, *m).map(|h| h.t);
            let b = d.mesh.raycast(r, *m).map(|t| t as f64);
            differ += usize::from(match (a, b) {
                (Some(x), Some(y)) => (x - y).abs() > 1e-3 * (1.0 + x),
                (None, None) => false,
                _ => true,
            });
        }
        eprintln!(
            "poly_raycast/{}: {differ} of {} rays answered differently by parry TriMesh (f32)",
            d.tin.name,
            rays.len()
        );
        g.bench_function(BenchmarkId::new("landfall", &d.tin.name), |b| {
            cycle(b, &rays, |(r, m)| {
                black_box(d.terrain.raycast(r, *m));
            })
        });
        g.bench_function(BenchmarkId::new("parry_trimesh", &d.tin.name), |b| {
            cycle(b, &rays, |(r, m)| {
                black_box(d.mesh.raycast(r, *m));
            })
        });
    }
    g.finish();
}

/// Batch vertical queries on one thread and on all threads, per query; and the same queries as
/// single calls in a loop (one thread), which the batch's interleaving is measured against.
fn poly_batch(c: &mut Criterion) {
    let mut g = c.benchmark_group("poly_batch");
    let d = data().last().expect("a TIN");
    let pts = d.tin.hit_points(65536, 44);
    g.throughput(criterion::Throughput::Elements(pts.len() as u64));
    g.bench_function(BenchmarkId::new("single_calls", &d.tin.name), |b| {
        b.iter(|| pts.iter().map(|&p| d.terrain.top_surface(p)).collect::<Vec<_>>())
    });
    for threads in batch_thread_counts() {
        let pool = harness::pool(threads);
        g.bench_function(BenchmarkId::new(format!("threads{threads}"), &d.tin.name), |b| {
            b.iter(|| pool.install(|| black_box(d.terrain.top_surfaces(&pts))))
        });
    }
    g.finish();
}

/// Build (faces and quadtree from the triangle list) on rayon's global pool and on one thread, and
/// loading the index file (memory map).
fn poly_build_load(c: &mut Criterion) {
    let mut g = c.benchmark_group("poly_build");
    g.sample_size(10);
    let one_thread = harness::pool(1);
    for d in data() {
        g.bench_function(BenchmarkId::new("landfall", &d.tin.name), |b| {
            b.iter(|| black_box(build(&d.tin, QuadtreeParams::default())))
        });
        g.bench_function(BenchmarkId::new("landfall_1thread", &d.tin.name), |b| {
            b.iter(|| one_thread.install(|| black_box(build(&d.tin, QuadtreeParams::default()))))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("poly_index_load");
    let dir = tempfile::tempdir().expect("temp dir");
    for d in data() {
        let path = dir.path().join(format!("{}.lfq", d.tin.name));
        landfall_io::write_index(&d.terrain, &path).expect("index written");
        g.bench_function(BenchmarkId::new("open", &d.tin.name), |b| {
            b.iter(|| black_box(landfall_io::open_index(&path).expect("loads")))
        });
        g.bench_function(BenchmarkId::new("open_verified", &d.tin.name), |b| {
            b.iter(|| black_box(landfall_io::open_index_verified(&path).expect("loads")))
        });
    }
    g.finish();
}

fn report(_: &mut Criterion) {
    let names: Vec<String> = data().iter().map(|d| d.tin.name.clone()).collect();
    for group in ["poly_vertical_hit", "poly_vertical_miss"] {
        print_ratios(group, &["parry_trimesh_ray", "uniform_grid", "naive"], &names);
    }
    print_ratios("poly_raycast_oblique", &["parry_trimesh"], &names);
    let d = &data()[0];
    println!(
        "\nQOTA Table 4 on {} ({} triangles; paper: Diamond Park, 13,346 polygons):",
        d.tin.name,
        d.tin.triangles.len()
    );
    println!(
        "  {:<22} {:>8} {:>8} {:>10} {:>9} {:>9}",
        "max_polys/max_depth", "nodes", "MB", "tree/faces", "exp tests", "ns/query"
    );
    for (name, params) in table4_params() {
        let s = build(&d.tin, params).stats();
        let ns = median_ns("poly_table4", &name, &d.tin.name).map_or("—".into(), |v| format!("{v:.1}"));
        println!(
            "  {:<22} {:>8} {:>8.2} {:>10.2} {:>9.2} {:>9}",
            format!("{name} {}/{}", params.max_polys, params.max_depth),
            s.nodes,
            s.total_bytes() as f64 / 1e6,
            s.tree_bytes as f64 / s.face_bytes as f64,
            s.expected_tests,
            ns
        );
    }
    println!(
        "  paper: 400/5 105 nodes 1.1 MB 319.0 · 16/12 6394 1.7 MB 9.3 · 12/12 9069 1.9 MB 7.2 · 8/14 17865 2.6 MB 5.2"
    );
    for d in data() {
        let s = d.terrain.stats();
        println!(
            "\n{}: build {:.1} ms (parry TriMesh {:.1} ms, uniform grid {:.1} ms); {} nodes, {:.2} MB faces + {:.2} MB quadtree, {:.2} expected tests",
            d.tin.name,
            d.build.as_secs_f64() * 1e3,
            d.mesh_build.as_secs_f64() * 1e3,
            d.grid_build.as_secs_f64() * 1e3,
            s.nodes,
            s.face_bytes as f64 / 1e6,
            s.tree_bytes as f64 / 1e6,
            s.expected_tests
        );
        for (f, what) in [("open", "index load"), ("open_verified", "index load + data checksum")] {
            if let Some(ns) = median_ns("poly_index_load", f, &d.tin.name) {
                println!("  {what}: {:.2} ms", ns / 1e6);
            }
        }
        if let Some(ns) = median_ns("poly_build", "landfall", &d.tin.name) {
            println!("  build (criterion median): {:.1} ms on {} threads", ns / 1e6, rayon::current_num_threads());
        }
        if let Some(ns) = median_ns("poly_build", "landfall_1thread", &d.tin.name) {
            println!("  build (criterion median): {:.1} ms on one thread", ns / 1e6);
        }
    }
    if let Some(d) = data().last() {
        print_batch_speedup("poly_batch", &d.tin.name, "batch vertical queries");
    }
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion();
    targets = poly_vertical_hit, poly_vertical_miss, poly_table4, poly_raycast, poly_batch, poly_build_load, report
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
}
