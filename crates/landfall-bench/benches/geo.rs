//! Rasters in degrees: a 1° tile as a surface on the WGS84 ellipsoid (`landfall::geo::GeoSurface`)
//! beside the same samples treated as a projected heightfield in metres (the tile's cell size at its
//! centre), in the same run: heights at random points, oblique rays from above and lines of sight
//! 2 m above the ground. The target: the geographic queries within 2× of the projected ones.
//!
//! `cargo bench -p landfall-bench --bench geo` (`LANDFALL_BENCH_QUICK=1`: a 1025² tile only).
//! Ratios printed: projected time / geographic time (0.5 = the geographic query takes twice as long).

use criterion::{criterion_group, BenchmarkId, Criterion};
use glam::DVec3;
use landfall::bench::synth::{generate, SynthParams};
use landfall::bench::workload as sets;
use landfall::geo::{GeoSurface, DEFAULT_GEO_LEAF};
use landfall::support::SplitMix64;
use landfall::{Heightfield, Ray};
use landfall_bench::harness::cycle;
use landfall_bench::report::print_ratios;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

const SET: usize = 4096;
const LAT0: f64 = 46.0;
const LON0: f64 = 7.0;

struct Tile {
    name: String,
    geo: GeoSurface,
    /// The same samples in metres: spacing = the tile's cell at its centre.
    projected: Heightfield,
    /// Metres per degree of longitude and latitude at the centre.
    m: (f64, f64),
}

fn tiles() -> &'static Vec<Tile> {
    static T: OnceLock<Vec<Tile>> = OnceLock::new();
    T.get_or_init(|| {
        let quick = std::env::var("LANDFALL_BENCH_QUICK").is_ok();
        let sizes: &[usize] = if quick { &[1025] } else { &[1025, 3601] };
        sizes
            .iter()
            .map(|&n| {
                eprintln!("setting up a 1° tile of {n}² samples…");
                let h =
                    generate(n, n, &SynthParams { relief: 1500.0, feature: n as f64 / 16.0, ..SynthParams::default() });
                let step = 1.0 / (n - 1) as f64;
                let hf = Heightfield::builder(n, n, h.clone()).origin(LON0, LAT0).spacing(step, step).build().unwrap();
                // LANDFALL_GEO_LEAF=n: another box-tree leaf (the measurement behind the default).
                let leaf =
                    std::env::var("LANDFALL_GEO_LEAF").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_GEO_LEAF);
                let geo = GeoSurface::with_leaf(hf, leaf).unwrap();
                let f = geo.frame();
                let c = (LON0 + 0.5, LAT0 + 0.5);
                let mx =
                    (f.geodetic_to_enu(c.0 + 0.001, c.1, 0.0).x - f.geodetic_to_enu(c.0 - 0.001, c.1, 0.0).x) / 0.002;
                let my =
                    (f.geodetic_to_enu(c.0, c.1 + 0.001, 0.0).y - f.geodetic_to_enu(c.0, c.1 - 0.001, 0.0).y) / 0.002;
                let projected = Heightfield::builder(n, n, h).spacing(step * mx, step * my).build().unwrap();
                Tile { name: format!("tile{n}"), geo, projected, m: (mx, my) }
            })
            .collect()
    })
}

impl Tile {
    /// A projected point (metres from the south-west sample) → (lon, lat).
    fn lon_lat(&self, x: f64, y: f64) -> (f64, f64) {
        (LON0 + x / self.m.0, LAT0 + y / self.m.1)
    }

    /// The projected workload's rays moved to the geographic tile's ENU frame: the same start above
    /// the same (lon, lat) at the same height, the same direction.
    fn geo_rays(&self, rays: &sets::RaySet) -> sets::RaySet {
        let f = self.geo.frame();
        rays.iter()
            .map(|(r, m)| {
                let (lon, lat) = self.lon_lat(r.origin.x, r.origin.y);
                (Ray::new(f.geodetic_to_enu(lon, lat, r.origin.z), r.dir), *m)
            })
            .collect()
    }

    /// Lines of sight between random points 2 m above the geographic surface (max_t = 1).
    fn geo_sight(&self, n: usize, seed: u64) -> sets::RaySet {
        let mut rng = SplitMix64::new(seed);
        let f = self.geo.frame();
        let mut above = || loop {
            let (lon, lat) = (LON0 + rng.range(0.0, 1.0), LAT0 + rng.range(0.0, 1.0));
            if let Some(h) = self.geo.height_at(lon, lat) {
                break f.geodetic_to_enu(lon, lat, h + 2.0);
            }
        };
        (0..n).map(|_| (above(), above())).map(|(a, b): (DVec3, DVec3)| (Ray::new(a, b - a), 1.0)).collect()
    }
}

fn heights(c: &mut Criterion) {
    let mut g = c.benchmark_group("geo_heights");
    for t in tiles() {
        let pts = sets::points(&t.projected, SET, 11);
        let geo_pts: Vec<[f64; 2]> = pts.iter().map(|p| t.lon_lat(p[0], p[1]).into()).collect();
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
            let (flat, geo) = if group == "geo_rays_oblique" {
                let flat = sets::oblique(&t.projected, SET, seed);
                let geo = t.geo_rays(&flat);
                (flat, geo)
            } else {
                (sets::line_of_sight(&t.projected, SET, seed), t.geo_sight(SET, seed))
            };
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
    for t in tiles() {
        let n = (t.geo.heightfield().nx() * t.geo.heightfield().ny()) as f64;
        println!(
            "{}: geographic surface {:.2} bytes/sample (projected {:.2}), box-tree leaf {DEFAULT_GEO_LEAF} cells",
            t.name,
            t.geo.memory_bytes() as f64 / n,
            t.projected.memory_bytes() as f64 / n
        );
    }
}
