//! Heightfield queries: landfall beside parry3d `HeightField`, parry3d `TriMesh` of the same
//! triangles and the naive scan, on the same data in the same run.
//!
//! `cargo bench -p landfall-bench --bench heightfield` (a group alone: append its name, e.g. `rays_oblique`).
//! After the groups it prints ratio tables (peer time / landfall time) and memory figures. With
//! `--features embree`, Embree 3 (the system's `libembree3`) runs beside them on the same triangles
//! (Embree 4.4 with `--features embree4`, after `scripts/fetch-embree4.sh`); with `--features
//! jolt`, Jolt 5.0's `HeightFieldShape` on the same samples (square grids only).

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, BenchmarkId, Criterion};
use landfall::support::workload::{self as sets, RaySet};
use landfall::Heightfield;
use landfall_bench::harness::{cycle, timed};
use landfall_bench::peers::{self, differing, naive_raycast, parry_heightfield, parry_trimesh};
use landfall_bench::report::print_ratios;
use landfall_bench::terrains::{self, Terrain};
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

const SET: usize = 4096;

struct Data {
    t: Terrain,
    parry_hf: peers::Parry<parry3d::shape::HeightField>,
    /// Built on first use (43 s for 4097²), so a group that does not need it does not wait.
    parry_mesh: OnceLock<peers::Parry<parry3d::shape::TriMesh>>,
    /// Embree's scene of the same triangles, built on first use.
    #[cfg(feature = "embree")]
    embree: OnceLock<landfall_bench::embree::Embree>,
    /// Jolt's heightfield of the same samples, built on first use.
    #[cfg(feature = "jolt")]
    jolt: OnceLock<landfall_bench::jolt::Jolt>,
    naive: Option<Vec<[glam::DVec3; 3]>>,
    build: Vec<(&'static str, Duration)>,
}

fn data() -> &'static Vec<Data> {
    static D: OnceLock<Vec<Data>> = OnceLock::new();
    D.get_or_init(|| {
        let quick = std::env::var("LANDFALL_BENCH_QUICK").is_ok();
        let mut ts = vec![terrains::generated(1025), terrains::real_dem()];
        if !quick {
            ts.push(terrains::generated(4097));
        }
        ts.into_iter()
            .map(|t| {
                eprintln!("setting up {} ({}×{})…", t.name, t.hf.nx(), t.hf.ny());
                let n = t.hf.nx() * t.hf.ny();
                let mut copy = t.hf.clone();
                let (_, landfall_build) = timed(|| copy.rebuild_pyramid(landfall::support::DEFAULT_LEAF_SIZE).unwrap());
                drop(copy);
                let (parry_hf, parry_build) = timed(|| parry_heightfield(&t.hf));
                let naive = (n <= 1100 * 1100).then(|| peers::triangles(&t.hf));
                Data {
                    t,
                    parry_hf,
                    parry_mesh: OnceLock::new(),
                    #[cfg(feature = "embree")]
                    embree: OnceLock::new(),
                    #[cfg(feature = "jolt")]
                    jolt: OnceLock::new(),
                    naive,
                    build: vec![("landfall pyramid", landfall_build), ("parry HeightField", parry_build)],
                }
            })
            .collect()
    })
}

impl Data {
    /// parry's TriMesh of the same triangles, built (and its build time printed) on first use.
    fn mesh(&self) -> &peers::Parry<parry3d::shape::TriMesh> {
        self.parry_mesh.get_or_init(|| {
            let (m, t) = timed(|| parry_trimesh(&self.t.hf));
            eprintln!("{}: parry TriMesh built in {:.1} ms", self.t.name, t.as_secs_f64() * 1e3);
            m
        })
    }

    /// Embree's scene of the same triangles, built (its build time and memory printed) on first use.
    #[cfg(feature = "embree")]
    fn embree(&self) -> &landfall_bench::embree::Embree {
        self.embree.get_or_init(|| {
            let (e, t) = timed(|| landfall_bench::embree::Embree::new(&self.t.hf));
            let n = (self.t.hf.nx() * self.t.hf.ny()) as f64;
            eprintln!(
                "{}: {} scene built in {:.1} ms, {:.1} bytes/sample",
                self.t.name,
                landfall_bench::embree::VERSION,
                t.as_secs_f64() * 1e3,
                e.memory_bytes() as f64 / n
            );
            e
        })
    }

    /// Jolt's heightfield of the same samples, built (its build time and memory printed) on first
    /// use. Only for grids Jolt accepts ([`Jolt::accepts`](landfall_bench::jolt::Jolt::accepts)).
    #[cfg(feature = "jolt")]
    fn jolt(&self) -> &landfall_bench::jolt::Jolt {
        self.jolt.get_or_init(|| {
            let (j, t) = timed(|| landfall_bench::jolt::Jolt::new(&self.t.hf));
            let j = j.unwrap_or_else(|e| panic!("{}: Jolt cannot build its heightfield: {e}", self.t.name));
            let n = (self.t.hf.nx() * self.t.hf.ny()) as f64;
            let (ms, bytes) = (t.as_secs_f64() * 1e3, j.memory_bytes() as f64 / n);
            eprintln!("{}: Jolt HeightFieldShape built in {ms:.1} ms, {bytes:.2} bytes/sample", self.t.name);
            j
        })
    }
}

fn vertical_points(c: &mut Criterion) {
    let mut g = c.benchmark_group("vertical_point");
    for d in data() {
        let hf = &d.t.hf;
        let pts = sets::points(hf, SET, 11);
        let rays = sets::vertical(hf, SET, 11);
        g.bench_function(BenchmarkId::new("landfall", &d.t.name), |b| {
            cycle(b, &pts, |p| {
                black_box(hf.height_at(p[0], p[1]));
            })
        });
        g.bench_function(BenchmarkId::new("landfall_surface", &d.t.name), |b| {
            cycle(b, &pts, |p| {
                black_box(hf.surface_at(p[0], p[1]));
            })
        });
        g.bench_function(BenchmarkId::new("parry_heightfield_ray", &d.t.name), |b| {
            cycle(b, &rays, |(r, m)| {
                black_box(d.parry_hf.raycast(r, *m));
            })
        });
        // The meshes are built when their benchmark first runs, not for a filtered-out one.
        g.bench_function(BenchmarkId::new("parry_trimesh_ray", &d.t.name), |b| {
            let mesh = d.mesh();
            cycle(b, &rays, |(r, m)| {
                black_box(mesh.raycast(r, *m));
            })
        });
        #[cfg(feature = "embree")]
        g.bench_function(BenchmarkId::new("embree_ray", &d.t.name), |b| {
            let e = d.embree();
            cycle(b, &rays, |(r, m)| {
                black_box(e.raycast(r, *m));
            })
        });
        #[cfg(feature = "jolt")]
        if landfall_bench::jolt::Jolt::accepts(hf) {
            g.bench_function(BenchmarkId::new("jolt_height", &d.t.name), |b| {
                let j = d.jolt();
                cycle(b, &pts, |p| {
                    black_box(j.height_at(p[0], p[1]));
                })
            });
            g.bench_function(BenchmarkId::new("jolt_ray", &d.t.name), |b| {
                let j = d.jolt();
                cycle(b, &rays, |(r, m)| {
                    black_box(j.raycast(r, *m));
                })
            });
        }
    }
    g.finish();
}

/// Registers the benchmark `peer` of `set` in a ray group. The peer is got from `get` (which builds
/// it on first use) only when criterion first runs the benchmark, and its answers are then compared
/// with landfall's, once, and the count of differing rays printed under `label`.
#[allow(clippy::too_many_arguments)]
fn peer_rays<P: 'static>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    d: &'static Data,
    set: &RaySet,
    peer: &str,
    label: &str,
    get: impl Fn() -> &'static P,
    cast: impl Fn(&P, &landfall::Ray, f64) -> Option<f32>,
) {
    let mut checked = false;
    g.bench_function(BenchmarkId::new(peer, &d.t.name), |b| {
        let p = get();
        if !std::mem::replace(&mut checked, true) {
            let differ = differing(&d.t.hf, set, |r, m| cast(p, r, m));
            eprintln!("{group}/{}: {differ} of {} rays answered differently by {label} (f32)", d.t.name, set.len());
        }
        cycle(b, set, |(r, m)| {
            black_box(cast(p, r, *m));
        })
    });
}

fn ray_group(c: &mut Criterion, name: &str, make: fn(&Heightfield) -> RaySet) {
    let mut g = c.benchmark_group(name);
    for d in data() {
        let set = make(&d.t.hf);
        let hf = &d.t.hf;
        g.bench_function(BenchmarkId::new("landfall", &d.t.name), |b| {
            cycle(b, &set, |(r, m)| {
                black_box(hf.raycast(r, *m));
            })
        });
        g.bench_function(BenchmarkId::new("parry_heightfield", &d.t.name), |b| {
            cycle(b, &set, |(r, m)| {
                black_box(d.parry_hf.raycast(r, *m));
            })
        });
        // The f32 peers: each built, and its answers checked against landfall's, only when its
        // benchmark first runs.
        peer_rays(&mut g, name, d, &set, "parry_trimesh", "parry TriMesh", || d.mesh(), |p, r, m| p.raycast(r, m));
        #[cfg(feature = "embree")]
        peer_rays(
            &mut g,
            name,
            d,
            &set,
            "embree",
            landfall_bench::embree::VERSION,
            || d.embree(),
            |p, r, m| p.raycast(r, m),
        );
        #[cfg(feature = "jolt")]
        if landfall_bench::jolt::Jolt::accepts(hf) {
            let label = "Jolt (its own diagonals, 8-bit heights)";
            peer_rays(&mut g, name, d, &set, "jolt", label, || d.jolt(), |p, r, m| p.raycast(r, m));
        }
        if let Some(tris) = &d.naive {
            g.bench_function(BenchmarkId::new("naive", &d.t.name), |b| {
                cycle(b, &set[..8.min(set.len())], |(r, m)| {
                    black_box(naive_raycast(tris, r, *m));
                })
            });
        }
    }
    g.finish();
}

fn rays_vertical(c: &mut Criterion) {
    ray_group(c, "rays_vertical", |hf| sets::vertical(hf, SET, 21));
}
fn rays_oblique(c: &mut Criterion) {
    ray_group(c, "rays_oblique", |hf| sets::oblique(hf, SET, 22));
}
fn rays_line_of_sight(c: &mut Criterion) {
    ray_group(c, "rays_line_of_sight", |hf| sets::line_of_sight(hf, SET, 23));
}
fn rays_diagonal(c: &mut Criterion) {
    ray_group(c, "rays_diagonal", sets::diagonal);
}

/// Batch ray casts on one thread and on all threads (rayon), per ray.
fn batch_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("batch_oblique");
    let d = data().last().expect("a terrain");
    let set = sets::oblique(&d.t.hf, 16384, 31);
    for threads in landfall_bench::harness::batch_thread_counts() {
        let pool = landfall_bench::harness::pool(threads);
        g.throughput(criterion::Throughput::Elements(set.len() as u64));
        g.bench_function(BenchmarkId::new(format!("threads{threads}"), &d.t.name), |b| {
            b.iter(|| pool.install(|| black_box(d.t.hf.raycast_batch(&set))))
        });
    }
    g.finish();
}

/// Pyramid build alone (the heights are given), per terrain.
fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build_pyramid");
    for d in data() {
        let mut hf = d.t.hf.clone();
        g.bench_function(BenchmarkId::new("landfall", &d.t.name), |b| {
            b.iter(|| hf.rebuild_pyramid(landfall::support::DEFAULT_LEAF_SIZE).unwrap())
        });
        g.bench_function(BenchmarkId::new("parry_heightfield", &d.t.name), |b| {
            b.iter(|| black_box(parry_heightfield(&d.t.hf)))
        });
    }
    g.finish();
}

fn summary() {
    let params: Vec<String> = data().iter().map(|d| d.t.name.clone()).collect();
    // Embree's columns only where it was built in.
    let mut vertical_peers = vec!["landfall_surface", "parry_heightfield_ray", "parry_trimesh_ray"];
    let mut ray_peers = vec!["parry_heightfield", "parry_trimesh"];
    if cfg!(feature = "embree") {
        vertical_peers.push("embree_ray");
        ray_peers.push("embree");
    }
    if cfg!(feature = "jolt") {
        vertical_peers.extend(["jolt_height", "jolt_ray"]);
        ray_peers.push("jolt");
    }
    ray_peers.push("naive");
    print_ratios("vertical_point", &vertical_peers, &params);
    for g in ["rays_vertical", "rays_oblique", "rays_line_of_sight", "rays_diagonal"] {
        print_ratios(g, &ray_peers, &params);
    }
    print_ratios("build_pyramid", &["parry_heightfield"], &params);
    let d = data().last().unwrap();
    landfall_bench::report::print_batch_speedup("batch_oblique", &d.t.name, "batch_oblique");
    println!("\nmemory and one-off build times");
    for d in data() {
        let n = (d.t.hf.nx() * d.t.hf.ny()) as f64;
        print!(
            "  {:<8} landfall {:.2} bytes/sample (heights 4 + pyramid {:.3}), parry HeightField {:.1}",
            d.t.name,
            d.t.hf.memory_bytes() as f64 / n,
            d.t.hf.pyramid().memory_bytes() as f64 / n,
            peers::PARRY_HEIGHTFIELD_BYTES_PER_SAMPLE
        );
        #[cfg(feature = "embree")]
        if let Some(e) = d.embree.get() {
            print!(", {} {:.1}", landfall_bench::embree::VERSION, e.memory_bytes() as f64 / n);
        }
        #[cfg(feature = "jolt")]
        if let Some(j) = d.jolt.get() {
            print!(", Jolt {:.2}", j.memory_bytes() as f64 / n);
        }
        for (what, t) in &d.build {
            print!("; {what} {:.1} ms", t.as_secs_f64() * 1e3);
        }
        println!();
    }
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = vertical_points, rays_vertical, rays_oblique, rays_line_of_sight, rays_diagonal, batch_threads, build
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    summary();
}
