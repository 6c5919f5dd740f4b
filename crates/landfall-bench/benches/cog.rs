//! Build throughput on compressed Cloud-Optimized GeoTIFFs: `landfall_io::build_heightfield_index`
//! (the streamed build behind `landfall build dem.tif -o dem.lfh`) beside GDAL's own
//! `gdal_translate` of the same file to an uncompressed GeoTIFF, in the same run. Also measured: the
//! GeoTIFF decoder alone (`landfall_io::stream_geotiff_rows`).
//!
//! The input: an n × n f32 DEM generated here (ridges and valleys, centimetre detail, a sea of
//! nodata), written by `gdal_translate -of COG` twice — ZSTD with the floating-point predictor, and
//! LERC with MAX_Z_ERROR=0.001 — into `target/bench-cog/` (kept for the next run).
//!
//! `cargo bench -p landfall-bench --bench cog` (n = 4096: 64 MiB of f32 samples, measured by
//! criterion); `LANDFALL_BENCH_COG=32768` for the 4 GiB raster of the docs (about 11 GB of disk:
//! the two COGs and one output at a time; past n = 8192 each peer runs twice, alternating, and the
//! means are printed, criterion's ten samples taking hours there); `LANDFALL_BENCH_COG_CODECS=lerc`
//! measures one compression. Needs GDAL.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use landfall_bench::report::print_ratios;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The compressions measured: name, `gdal_translate` creation options.
const CODECS: [(&str, &[&str]); 2] =
    [("zstd", &["COMPRESS=ZSTD", "PREDICTOR=3"]), ("lerc", &["COMPRESS=LERC", "MAX_Z_ERROR=0.001"])];

/// Height at sample (i, j), centimetres: ridges and valleys over ~1,500 m, detail, noise; below 0
/// is sea (nodata).
fn sample(i: u64, j: u64) -> f32 {
    let (x, y) = (i as f64, j as f64);
    let base = 600.0 * (x / 2300.0).sin() * (y / 1700.0).cos() + 300.0 * ((x + y) / 900.0).sin() + 250.0;
    let detail = 40.0 * (x / 97.0).sin() * (y / 83.0).cos();
    let noise = (landfall::support::mix(i << 32 | j) >> 40) as f64 / (1u64 << 24) as f64 * 0.5;
    let h = ((base + detail + noise) * 100.0).round() / 100.0;
    if h < 0.0 {
        -9999.0
    } else {
        h as f32
    }
}

fn gdal_translate(args: &[&str], from: &Path, to: &Path) {
    let out = Command::new("gdal_translate").arg("-q").args(args).arg(from).arg(to).output();
    let out = out.expect("gdal_translate is needed (apt-get install gdal-bin)");
    assert!(out.status.success(), "gdal_translate {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

struct Setup {
    n: usize,
    dir: PathBuf,
    /// (codec name, COG path).
    cogs: Vec<(&'static str, PathBuf)>,
}

fn setup() -> &'static Setup {
    static S: OnceLock<Setup> = OnceLock::new();
    S.get_or_init(|| {
        let n: usize = std::env::var("LANDFALL_BENCH_COG").ok().and_then(|v| v.parse().ok()).unwrap_or(4096);
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-cog");
        std::fs::create_dir_all(&dir).unwrap();
        let mut cogs = Vec::new();
        let src = dir.join(format!("dem{n}.tif"));
        let only = std::env::var("LANDFALL_BENCH_COG_CODECS").unwrap_or_default();
        for (name, options) in CODECS.into_iter().filter(|(name, _)| only.is_empty() || only.contains(name)) {
            let cog = dir.join(format!("dem{n}-{name}.tif"));
            if !cog.exists() {
                if !src.exists() {
                    let start = Instant::now();
                    let tmp = dir.join("writing.tif");
                    landfall_bench::geotiff::write_strips(&tmp, n, 1.0, Some("-9999"), sample);
                    std::fs::rename(&tmp, &src).unwrap();
                    println!("cog: wrote {} in {:.1} s", src.display(), start.elapsed().as_secs_f64());
                }
                let start = Instant::now();
                let tmp = dir.join("writing-cog.tif");
                let mut args = vec!["-of", "COG", "-co", "BIGTIFF=IF_SAFER"];
                args.extend(options.iter().flat_map(|o| ["-co", o]));
                gdal_translate(&args, &src, &tmp);
                std::fs::rename(&tmp, &cog).unwrap();
                println!("cog: wrote {} in {:.1} s", cog.display(), start.elapsed().as_secs_f64());
            }
            let bytes = std::fs::metadata(&cog).unwrap().len();
            println!(
                "cog: {name}: {n}² f32 samples ({:.2} GiB) in {:.2} GiB ({:.2} bytes/sample)",
                (n * n * 4) as f64 / (1u64 << 30) as f64,
                bytes as f64 / (1u64 << 30) as f64,
                bytes as f64 / (n * n) as f64
            );
            cogs.push((name, cog));
        }
        // The source is not measured; the COGs stay for the next run.
        let _ = std::fs::remove_file(&src);
        Setup { n, dir, cogs }
    })
}

/// The streamed build of `cog`, as `landfall build` runs it.
fn build(cog: &Path, lfh: &Path) -> u64 {
    let mut opts = landfall_io::LoadOptions::default();
    // The index stores every tile the raster covers: past the default limit at 4 GiB.
    opts.limits.max_samples = u64::MAX;
    let r = landfall_io::build_heightfield_index(cog, lfh, &opts, landfall::Frame::z_up(), &mut |_, _| {}).unwrap();
    r.bytes
}

/// The decoder alone: every row of `cog`, summed.
fn decode(cog: &Path) -> f64 {
    let mut sum = 0.0;
    landfall_io::stream_geotiff_rows(cog, |_, row| {
        sum += row[row.len() / 2];
        Ok(())
    })
    .unwrap();
    sum
}

/// Past n = 8192: each peer twice, alternating, on each COG; the medians (here: the mean of two)
/// and the ratio printed.
fn once_each(s: &Setup) {
    for (name, cog) in &s.cogs {
        let lfh = s.dir.join(format!("out-{name}.lfh"));
        let tif = s.dir.join(format!("out-{name}.tif"));
        let (mut ours, mut gdal, mut alone) = (0.0, 0.0, 0.0);
        for _ in 0..2 {
            // Each output removed once timed: the disk holds one of them at a time.
            let t = Instant::now();
            black_box(build(cog, &lfh));
            ours += t.elapsed().as_secs_f64() / 2.0;
            let _ = std::fs::remove_file(&lfh);
            let t = Instant::now();
            gdal_translate(&["-of", "GTiff"], cog, &tif);
            gdal += t.elapsed().as_secs_f64() / 2.0;
            let _ = std::fs::remove_file(&tif);
            let t = Instant::now();
            black_box(decode(cog));
            alone += t.elapsed().as_secs_f64() / 2.0;
        }
        let samples = (s.n * s.n) as f64;
        println!(
            "cog_build {name} {}²: landfall build {ours:.1} s ({:.1} M samples/s), gdal_translate to GTiff {gdal:.1} s \
             ({:.2}× landfall's time; landfall / GDAL = {:.2}), decode alone {alone:.1} s",
            s.n,
            samples / ours / 1e6,
            gdal / ours,
            ours / gdal
        );
    }
}

fn builds(c: &mut Criterion) {
    let s = setup();
    if s.n > 8192 {
        return once_each(s);
    }
    let mut g = c.benchmark_group("cog_build");
    g.throughput(Throughput::Bytes((s.n * s.n * 4) as u64));
    for (name, cog) in &s.cogs {
        let lfh = s.dir.join(format!("out-{name}.lfh"));
        let tif = s.dir.join(format!("out-{name}.tif"));
        g.bench_function(BenchmarkId::new("landfall", name), |b| b.iter(|| black_box(build(cog, &lfh))));
        g.bench_function(BenchmarkId::new("gdal_translate", name), |b| {
            b.iter(|| gdal_translate(&["-of", "GTiff"], cog, &tif))
        });
        g.bench_function(BenchmarkId::new("decode alone", name), |b| b.iter(|| black_box(decode(cog))));
        let _ = std::fs::remove_file(&lfh);
        let _ = std::fs::remove_file(&tif);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = landfall_bench::report::criterion().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = builds
}

fn main() {
    benches();
    if setup().n > 8192 {
        return;
    }
    landfall_bench::report::criterion().configure_from_args().final_summary();
    let params: Vec<String> = setup().cogs.iter().map(|(name, _)| name.to_string()).collect();
    print_ratios("cog_build", &["gdal_translate", "decode alone"], &params);
    println!("(target: gdal_translate / landfall ≥ 0.67, landfall's build within 1.5× of GDAL's translation)");
}
