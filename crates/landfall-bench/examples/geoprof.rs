//! Instruction counts per query on a degree raster beside the same raster as projected, which a
//! noisy shared machine cannot blur: `valgrind --tool=callgrind --toggle-collect='geoprof::run*'
//! target/release/examples/geoprof KIND SIDE [size] [reps]` counts only the queries (KIND = heights,
//! oblique or los; SIDE = geo or projected; the `geo` benchmark's 1° tile of `size`² samples, 1025
//! by default). Prints a digest of the answers, to check that a change left them bit for bit. With
//! `GEOPROF_WAIT` set it waits for a line on stdin before the queries (see [`wait`]: large tiles).
//! Prints the queries' wall time per query on stderr; with `GEOPROF_SORTED` set, heights are asked
//! with the points sorted by latitude, then longitude (neighbouring queries on neighbouring samples)
//! instead of in random order.

use landfall_bench::geo_tiles::GeoTile;
use std::hint::black_box;

const SET: usize = 4096;

#[inline(never)]
fn run_heights(t: &GeoTile, geo: bool, pts: &[[f64; 2]], reps: usize) -> f64 {
    let mut sum = 0.0;
    for _ in 0..reps {
        for p in pts {
            let h = if geo { t.geo.height_at(p[0], p[1]) } else { t.projected.height_at(p[0], p[1]) };
            sum += black_box(h).unwrap_or(0.0);
        }
    }
    sum
}

#[inline(never)]
fn run_rays(t: &GeoTile, geo: bool, set: &landfall::support::workload::RaySet, reps: usize) -> f64 {
    let mut sum = 0.0;
    for _ in 0..reps {
        for (r, m) in set {
            let h = if geo { t.geo.raycast_enu(r, *m) } else { t.projected.raycast(r, *m) };
            sum += black_box(h).map_or(0.0, |h| h.t);
        }
    }
    sum
}

/// With `GEOPROF_WAIT` set: "ready" on stderr, then a line read from stdin before the queries, so
/// that a large tile is built uninstrumented (`valgrind --tool=callgrind --instr-atstart=no`, then
/// `callgrind_control -i on` and the line; the counts are the same, only the build is faster).
fn wait() {
    if std::env::var_os("GEOPROF_WAIT").is_some() {
        eprintln!("ready");
        let _ = std::io::stdin().read_line(&mut String::new());
    }
}

/// `run()`, its wall time per query printed on stderr.
fn timed(reps: usize, run: impl FnOnce() -> f64) -> f64 {
    let t0 = std::time::Instant::now();
    let sum = run();
    eprintln!("{:.1} ns a query", t0.elapsed().as_secs_f64() * 1e9 / (reps * SET) as f64);
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("heights", String::as_str);
    let geo = args.get(2).map_or("geo", String::as_str) == "geo";
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1025);
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let t = GeoTile::new(n, GeoTile::leaf_from_env());
    let sum = match kind {
        "heights" => {
            let (mut pts, mut geo_pts) = t.points(SET, 11);
            if std::env::var_os("GEOPROF_SORTED").is_some() {
                for p in [&mut pts, &mut geo_pts] {
                    p.sort_by(|a, b| a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0])));
                }
            }
            wait();
            timed(reps, || run_heights(&t, geo, if geo { &geo_pts } else { &pts }, reps))
        }
        "oblique" | "los" => {
            let (flat, on_geo) = if kind == "los" { t.line_of_sight(SET, 13) } else { t.oblique(SET, 12) };
            wait();
            timed(reps, || run_rays(&t, geo, if geo { &on_geo } else { &flat }, reps))
        }
        _ => {
            eprintln!("geoprof: KIND {kind:?}: expected heights, oblique or los");
            std::process::exit(2);
        }
    };
    println!("{kind} {} {n}²: digest {sum:.9}", if geo { "geo" } else { "projected" });
}
