//! Viewsheds: landfall's exact viewshed beside `gdal_viewshed` and GRASS's `r.viewshed` (when
//! installed; skipped with a message otherwise) and landfall's own one-ray-per-cell baseline, on
//! the same DEM, the same observer, in one run.
//!
//! DEMs: the real DEM in `data/` (91 × 120), a generated 4097² (10 m cells, 1,500 m relief) and,
//! with `LANDFALL_BENCH_BIG=1`, a generated 16385² (1 GiB of f32); `LANDFALL_BENCH_SIZES=16385`
//! runs only the generated sizes listed. Observer: 10 m above the highest
//! sample, no curvature (`gdal_viewshed -cc 0`, r.viewshed without `-c`; r.viewshed only up to
//! 4097² unless `LANDFALL_BENCH_GRASS_BIG=1`: about 20 minutes on 16385²). Printed per DEM: seconds
//! on one and on two threads, samples per second, and for each peer the share of target samples on
//! which it disagrees with the exact answer. Peers run as the command-line tools users run
//! (their time includes reading the GeoTIFF and writing the result, a few per cent of theirs).
//!
//! `cargo bench -p landfall-bench --bench viewshed`

use landfall::bench::synth::{generate, SynthParams};
use landfall::viewshed::{ViewshedParams, Visibility, NODATA, VISIBLE};
use landfall::Heightfield;
use landfall_bench::harness::{pool, timed};
use landfall_io::{write_geotiff, Band, GeoRef, LoadOptions};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn main() {
    // `cargo bench` passes --bench; nothing else is taken.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut dems: Vec<(String, Heightfield)> = Vec::new();
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    match landfall_io::load_heightfield(&real, &LoadOptions::default()) {
        Ok(l) => dems.push(("topobathy 91×120".into(), l.heightfield)),
        Err(e) => println!("viewshed: the real DEM is not readable ({e}); skipped"),
    }
    let mut sizes = vec![4097];
    if std::env::var("LANDFALL_BENCH_BIG").is_ok_and(|v| v == "1") {
        sizes.push(16385);
    } else {
        println!("viewshed: LANDFALL_BENCH_BIG=1 adds the 16385² DEM");
    }
    // LANDFALL_BENCH_SIZES=16385 (comma-separated) runs those generated sizes only.
    if let Ok(list) = std::env::var("LANDFALL_BENCH_SIZES") {
        sizes = list.split(',').filter_map(|s| s.trim().parse().ok()).collect();
        dems.clear();
    }
    for n in sizes {
        let h = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() });
        let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).origin(500_000.0, 4_000_000.0).build().unwrap();
        dems.push((format!("synthetic {n}²"), hf));
    }
    let gdal = Command::new("gdal_viewshed").arg("--version").output().is_ok();
    let grass = Command::new("grass").arg("--version").output().is_ok();
    if !gdal {
        println!("viewshed: gdal_viewshed not installed (apt-get install gdal-bin): its column is skipped");
    }
    if !grass {
        println!("viewshed: grass not installed (apt-get install grass-core): its column is skipped");
    }
    println!(
        "{:<18} {:>10} {:>10} {:>9} {:>11} {:>11} {:>9} {:>11} {:>9} {:>10}",
        "DEM",
        "1 thread",
        "2 threads",
        "Msmp/s",
        "per-cell 2t",
        "gdal",
        "gdal dis.",
        "r.viewshed",
        "grass dis.",
        "visible"
    );
    for (name, hf) in &dems {
        bench(name, hf, dir.path(), gdal, grass);
    }
}

fn bench(name: &str, hf: &Heightfield, dir: &Path, gdal: bool, grass: bool) {
    let (nx, ny) = (hf.nx(), hf.ny());
    let top = (0..nx * ny)
        .filter(|&k| !hf.heights().unwrap()[k].is_nan())
        .max_by(|&a, &b| hf.heights().unwrap()[a].total_cmp(&hf.heights().unwrap()[b]))
        .unwrap();
    let (i, j) = (top % nx, top / nx);
    let o = hf.sample_position(i, j);
    let params = ViewshedParams { observer_height: 10.0, ..Default::default() };
    let best = |threads: usize, f: &(dyn Fn() -> Visibility + Sync), runs: usize| -> (Visibility, Duration) {
        let p = pool(threads);
        let mut out = None;
        let mut best = Duration::MAX;
        for _ in 0..runs {
            let (v, t) = p.install(|| timed(f));
            best = best.min(t);
            out = Some(v);
        }
        (out.unwrap(), best)
    };
    let exact = || hf.viewshed([o.x, o.y], &params).unwrap();
    let (vis, t1) = best(1, &exact, 2);
    let (_, t2) = best(2, &exact, 3);
    let plain_walk =
        || match landfall::viewshed::reference(hf, [o.x, o.y], &params, landfall::viewshed::ViewshedMode::Visibility)
            .unwrap()
        {
            landfall::viewshed::ViewshedOutput::Visibility(v, _) => v,
            _ => unreachable!(),
        };
    let (plain, tp) = best(2, &plain_walk, 1);
    assert_eq!(plain.values, vis.values, "{name}: the baseline and the fast paths disagree");
    let targets = vis.values.iter().filter(|&&v| v != NODATA).count();
    let visible = vis.values.iter().filter(|&&v| v == VISIBLE).count();

    let tif = dir.join("dem.tif");
    let geo = GeoRef { origin: (hf.origin().x, hf.origin().y), spacing: (hf.spacing().x, hf.spacing().y) };
    write_geotiff(&tif, nx, ny, Band::F32(hf.heights().unwrap()), &geo, Some(f64::NAN), None).expect("writes the DEM");
    let disagree = |path: &Path, visible_value: f32| -> f64 {
        let r = landfall_io::read_raster(path).expect("reads the peer's output");
        let mut d = 0usize;
        for (k, &v) in vis.values.iter().enumerate() {
            if v != NODATA && ((r.values[k] == visible_value) != (v == VISIBLE)) {
                d += 1;
            }
        }
        100.0 * d as f64 / targets as f64
    };
    let (mut tg, mut dg, mut tr, mut dr) = (String::from("-"), String::from("-"), String::from("-"), String::from("-"));
    if gdal {
        let out = dir.join("gdal.tif");
        let (status, t) = timed(|| {
            Command::new("gdal_viewshed")
                .args(["-q", "-cc", "0", "-oz", "10", "-ox", &o.x.to_string(), "-oy", &o.y.to_string()])
                .arg(&tif)
                .arg(&out)
                .env("GDAL_NUM_THREADS", "1")
                .output()
        });
        if status.is_ok_and(|s| s.status.success()) {
            tg = format!("{:.3}", t.as_secs_f64());
            dg = format!("{:.2} %", disagree(&out, 255.0));
        }
    }
    // r.viewshed needs ~75 s on 4097² here; on 16385² it takes ~20 minutes more
    // (LANDFALL_BENCH_GRASS_BIG=1 runs it there too).
    let big_ok = std::env::var_os("LANDFALL_BENCH_GRASS_BIG").is_some();
    let grass = grass && (nx * ny <= 4097 * 4097 || big_ok);
    if !grass && nx * ny > 4097 * 4097 {
        println!("viewshed: r.viewshed skipped on {name} (about 20 minutes; LANDFALL_BENCH_GRASS_BIG=1 runs it)");
    }
    if grass {
        let out = dir.join("grass.tif");
        let script = format!(
            "r.in.gdal -o input={} output=dem --quiet && g.region raster=dem && \
             r.viewshed -b input=dem output=vs coordinates={},{} observer_elevation=10 target_elevation=0 memory=4000 --quiet && \
             r.out.gdal -c input=vs output={} type=Byte --quiet -f",
            tif.display(),
            o.x,
            o.y,
            out.display()
        );
        // r.viewshed's own time: the import and export are timed apart and subtracted.
        let run = |s: &str| Command::new("grass").args(["--tmp-location", "XY", "--exec", "bash", "-c", s]).output();
        let (status, t) = timed(|| run(&script));
        let (_, t_io) = timed(|| {
            run(&format!(
                "r.in.gdal -o input={} output=dem --quiet && g.region raster=dem && r.out.gdal input=dem output={} --quiet -f",
                tif.display(),
                dir.join("io.tif").display()
            ))
        });
        if status.is_ok_and(|s| s.status.success()) {
            tr = format!("{:.3}", t.saturating_sub(t_io).as_secs_f64());
            dr = format!("{:.2} %", disagree(&out, 1.0));
        }
    }
    println!(
        "{:<18} {:>10.3} {:>10.3} {:>9.1} {:>11.3} {:>11} {:>9} {:>11} {:>9} {:>9.1} %",
        name,
        t1.as_secs_f64(),
        t2.as_secs_f64(),
        (nx * ny) as f64 / t2.as_secs_f64() / 1e6,
        tp.as_secs_f64(),
        tg,
        dg,
        tr,
        dr,
        100.0 * visible as f64 / targets as f64
    );
}
