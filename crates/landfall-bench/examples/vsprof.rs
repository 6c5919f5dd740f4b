//! One viewshed on the `viewshed` benchmark's generated DEM, for profiling:
//! `perf record target/release/examples/vsprof [size] [threads] [curvature|flat] [observer]` (4097,
//! 1, flat by default; the observer on the summit, as the benchmark, or `centre`, `west` (the middle
//! of the west edge) or `south`). Prints the time (wall and the process's CPU time), the band and a digest of the answer, to check that a change left it
//! bit for bit. With `VSPROF_TIF=dem.tif` it also writes the DEM as the benchmark's GeoTIFF and
//! prints the `landfall viewshed` and `gdal_viewshed` command lines for the same observer.

use landfall::bench::synth::{generate, SynthParams};
use landfall::viewshed::{self, Hooks, Observer, ViewshedMode, ViewshedOutput, ViewshedParams};
use landfall::Heightfield;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(4097);
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let curvature = args.get(3).is_some_and(|s| s == "curvature");
    let h = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() });
    let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).origin(500_000.0, 4_000_000.0).build().expect("a DEM");
    let (k, _) = hf.samples().enumerate().fold((0, f32::NEG_INFINITY), |b, (k, h)| if h > b.1 { (k, h) } else { b });
    let o = match args.get(4).map(String::as_str) {
        None | Some("summit") => hf.sample_position(k % n, k / n),
        Some("centre") => hf.sample_position(n / 2, n / 2),
        Some("west") => hf.sample_position(0, n / 2),
        Some("south") => hf.sample_position(n / 2, 0),
        Some(other) => panic!("observer {other}: summit, centre, west or south"),
    };
    if let Ok(tif) = std::env::var("VSPROF_TIF") {
        let geo = landfall_io::GeoRef { origin: (hf.origin().x, hf.origin().y), spacing: (10.0, 10.0) };
        let keys = landfall_io::GeoKeys {
            directory: vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32610],
            ..Default::default()
        };
        let h: Vec<f32> = hf.samples().collect();
        landfall_io::write_geotiff(tif.as_ref(), n, n, landfall_io::Band::F32(&h), &geo, Some(f64::NAN), Some(&keys))
            .expect("writes the DEM");
        println!("landfall viewshed {tif} --observer {:?},{:?} --observer-height 1.75 --out lf.tif", o.x, o.y);
        println!("gdal_viewshed -ox {:?} -oy {:?} -oz 1.75 -tz 0 {tif} gdal.tif", o.x, o.y);
    }
    let params = ViewshedParams::default().with_observer_height(1.75).with_curvature(curvature);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
    let cpu = landfall_bench::viewshed_peers::cpu_time(libc::RUSAGE_SELF);
    let t = Instant::now();
    let out = pool.install(|| {
        viewshed::viewshed(&hf, &[Observer::at(o.x, o.y)], &params, ViewshedMode::Visibility, &Hooks::default())
    });
    let dt = t.elapsed();
    let cpu = landfall_bench::viewshed_peers::cpu_time(libc::RUSAGE_SELF).saturating_sub(cpu);
    let Ok(ViewshedOutput::Visibility(v, stats)) = out else { panic!("a visibility grid") };
    let seen = v.values.iter().filter(|&&x| x == viewshed::VISIBLE).count();
    let digest = v.values.iter().fold(0u64, |h, &x| h.wrapping_mul(1_000_003).wrapping_add(u64::from(x)));
    println!(
        "{n}²: {:.3} s ({:.3} s CPU), {seen} visible ({:.2} %), band {}, digest {digest:016x}",
        dt.as_secs_f64(),
        cpu.as_secs_f64(),
        100.0 * seen as f64 / (n * n) as f64,
        stats.band
    );
}
