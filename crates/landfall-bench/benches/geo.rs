//! Rasters in degrees: a 1° tile as a surface on the WGS84 ellipsoid (`landfall::geo::GeoSurface`)
//! beside the same samples treated as a projected heightfield in metres (the tile's cell size at its
//! centre), in the same run: heights at random points, oblique rays from above and lines of sight
//! 2 m above the ground. The target: the geographic queries within 2× of the projected ones.
//!
//! `cargo bench -p landfall-bench --bench geo` (`LANDFALL_BENCH_QUICK=1`: a 1025² tile only;
//! `LANDFALL_GEO_LEAF=n`: another box-tree leaf). Ratios printed: projected time / geographic time
//! (0.5 = the geographic query takes twice as long), then geographic / projected (the issue's
//! figure, target ≤ 2).

use criterion::{criterion_group, BenchmarkId, Criterion};
use landfall_bench::geo_tiles::GeoTile;
use landfall_bench::harness::cycle;
use landfall_bench::report::{median_ns, print_ratios};
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

const SET: usize = 4096;

fn tiles() -> &'static Vec<GeoTile> {
    static T: OnceLock<Vec<GeoTile>> = OnceLock::new();
    T.get_or_init(|| {
        let quick = std::env::var("LANDFALL_BENCH_QUICK").is_ok();
        let sizes: &[usize] = if quick { &[1025] } else { &[1025, 3601] };
        sizes
            .iter()
            .map(|&n| {
                eprintln!("setting up a 1° tile of {n}² samples…");
                GeoTile::new(n, GeoTile::leaf_from_env())
            })
            .collect()
    })
}

fn heights(c: &mut Criterion) {
    let mut g = c.benchmark_group("geo_heights");
    for t in tiles() {
        let (pts, geo_pts) = t.points(SET, 11);
        g.bench_function(BenchmarkId::new("landfall", &t.name), |b| {
            cycle(b, &geo_pts, |p| {
                black_box(t.geo.height_at(p[0], p[1]));
            })
        });
        g.bench_function(BenchmarkId::new("projected", &t.name), |b| {
            cycle(b, &pts, |p| {
                black_box(t.projected.height_at(p[0], p[1]));
            })
        });
    }
    g.finish();
}

fn rays(c: &mut Criterion) {
    for (group, seed) in [("geo_rays_oblique", 12), ("geo_line_of_sight", 13)] {
        let mut g = c.benchmark_group(group);
        for t in tiles() {
            let (flat, geo) =
                if group == "geo_rays_oblique" { t.oblique(SET, seed) } else { t.line_of_sight(SET, seed) };
            let hits = geo.iter().filter(|(r, m)| t.geo.raycast_enu(r, *m).is_some()).count();
            let flat_hits = flat.iter().filter(|(r, m)| t.projected.raycast(r, *m).is_some()).count();
            eprintln!("{group} {}: {hits} of {SET} geographic rays hit, {flat_hits} projected", t.name);
            g.bench_function(BenchmarkId::new("landfall", &t.name), |b| {
                cycle(b, &geo, |(r, m)| {
                    black_box(t.geo.raycast_enu(r, *m));
                })
            });
            g.bench_function(BenchmarkId::new("projected", &t.name), |b| {
                cycle(b, &flat, |(r, m)| {
                    black_box(t.projected.raycast(r, *m));
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    targets = heights, rays
}

fn main() {
    benches();
    landfall_bench::report::criterion().configure_from_args().final_summary();
    let names: Vec<String> = tiles().iter().map(|t| t.name.clone()).collect();
    for group in ["geo_heights", "geo_rays_oblique", "geo_line_of_sight"] {
        print_ratios(group, &["projected"], &names);
    }
    // The figure, in its direction: how many times the projected query's time the
    // geographic one takes (target: at most 2).
    println!("\ngeographic time / projected time (same raster, same run; target ≤ 2):");
    for name in &names {
        let row: Vec<String> = ["geo_heights", "geo_rays_oblique", "geo_line_of_sight"]
            .iter()
            .filter_map(|g| {
                Some(format!("{g} {:.2}×", median_ns(g, "landfall", name)? / median_ns(g, "projected", name)?))
            })
            .collect();
        println!("  {name}: {}", row.join(", "));
    }
    for t in tiles() {
        let n = (t.geo.heightfield().nx() * t.geo.heightfield().ny()) as f64;
        println!(
            "{}: geographic surface {:.2} bytes/sample (projected {:.2}), box-tree leaf {} cells",
            t.name,
            t.geo.memory_bytes() as f64 / n,
            t.projected.memory_bytes() as f64 / n,
            GeoTile::leaf_from_env()
        );
    }
}
