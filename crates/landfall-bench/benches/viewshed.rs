//! Viewsheds: landfall's exact viewshed (the horizon sweep, `landfall::viewshed::viewshed`)
//! beside `gdal_viewshed`, GRASS's `r.viewshed`, xarray-spatial's `viewshed` and landfall's own
//! exact walk (`viewshed::reference`: every target's segment tested in full, the old method), on
//! the same DEMs, the same observer, in one run.
//!
//! DEMs: the real DEM `data/volcano.asc` (87 × 61 samples 10 m apart: metres on both axes, which
//! every peer takes as it is; `data/topobathy.npz` is in degrees, a surface on the ellipsoid for
//! landfall and a flat grid of degrees for the peers, so no like-for-like comparison), a generated
//! 4097² (10 m cells, 1,500 m relief) and, with `LANDFALL_BENCH_BIG=1`, a generated 16385² (1 GiB
//! of f32). `LANDFALL_BENCH_SIZES=16385` (comma-separated) runs only those generated sizes.
//! Observer: on the highest sample, the eye 1.75 m above it; targets on the ground (target height
//! 0). Each DEM runs without curvature and with it: every tool lowers samples by
//! (6/7)·d²/(2·6,378,137 m) — GDAL's default `-cc 0.85714` on the WGS84 axis (the GeoTIFF is in
//! EPSG:32610 so that GDAL applies it), `r.viewshed -c -r` with refraction 1/7, landfall with the
//! refraction coefficient that gives the same drop on its 6,371,008.8 m radius. xarray-spatial has
//! no curvature: it runs in the flat case only.
//!
//! Sample (i, j) is pixel (i, ny − 1 − j) of the GeoTIFF every peer reads: the geotransform puts
//! pixel centres on the samples (PixelIsArea, origin half a cell west and north of the corner
//! sample), and all three peers decide visibility at pixel centres, so each peer's answer is
//! compared with the exact one pixel for pixel, on every sample that is a target (no DEM here has
//! holes).
//!
//! Printed per DEM and case: landfall's time on 1, 2 and all threads (rayon pools of that size),
//! samples per second, the share of targets the sweep's band sent to the exact test
//! (`Stats::band`), the peak memory of a run beyond the loaded DEM (measured in a child process:
//! this binary re-run with `LANDFALL_BENCH_VIEWSHED_CHILD` set loads the DEM, resets `VmHWM`, runs
//! the viewshed on all threads and reads `VmHWM`), the exact walk's rate (targets per second on all
//! threads, on a sample of the targets: all of them on the real DEM; on the generated ones the
//! targets of a thin sector from the observer towards the DEM's farthest corner — the longest
//! sight lines — sized to about 50,000 targets, since the walk takes minutes to hours on a whole
//! generated DEM; its answer must equal the sweep's on every sampled target, or the benchmark
//! fails), each peer's time, peak memory (GNU `/usr/bin/time -v`,
//! "Maximum resident set size") and the share of targets on which it disagrees with the exact
//! answer, the ratios to `gdal_viewshed`, and landfall's command line end to end on one thread
//! beside GDAL's (both read and write GeoTIFFs). Then a cumulative run: 256 observers on the 4097²
//! DEM (`ViewshedMode::Count`), time per observer against one viewshed. A peer that cannot run
//! prints why. Markdown tables of all of it come last.
//!
//! Peers: `gdal_viewshed` (GDAL 3.6 is single-threaded; its time is the whole process on the
//! GeoTIFF written beforehand, reading and writing included, nothing subtracted); `r.viewshed` in
//! a temporary GRASS location (`-c` with curvature; the time of the r.viewshed process alone, read
//! by the session's shell around it, so the import and export are outside it; only up to 4097²
//! unless `LANDFALL_BENCH_GRASS_BIG=1`); xarray-spatial
//! in the Python of `target/bench-venv` (`python3 -m venv target/bench-venv &&
//! target/bench-venv/bin/pip install xarray-spatial`, or `$LANDFALL_BENCH_PYTHON`), the call alone
//! timed, after a warm-up that compiles it; skipped where its event list would not fit in memory.
//!
//! `cargo bench -p landfall-bench --bench viewshed` (add `LANDFALL_BENCH_BIG=1` for 16385²;
//! `LANDFALL_BENCH_PEERS=gdal,grass,xrspatial,cli` picks the peers, all by default;
//! `LANDFALL_BENCH_CUMULATIVE=0` leaves the cumulative run out)

use landfall::bench::synth::{generate, SynthParams};
use landfall::viewshed::{self, Hooks, Observer, Stats, ViewshedMode, ViewshedOutput, ViewshedParams, NODATA};
use landfall::Heightfield;
use landfall_bench::harness::{pool, process_memory, reset_peak_memory};
use landfall_bench::viewshed_peers::{self as peers, Cost, Problem, WGS84_A};
use landfall_io::{write_geotiff, Band, GeoKeys, GeoRef, LoadOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Set in the child process that measures memory: `tif<TAB>x<TAB>y<TAB>eye height`.
const CHILD: &str = "LANDFALL_BENCH_VIEWSHED_CHILD";
/// Eye height above the summit (landfall's default observer height).
const EYE: f64 = 1.75;
/// GDAL's default curvature coefficient, 1 − 1/7.
const CC: f64 = 6.0 / 7.0;
/// Observers of the cumulative run.
const CUMULATIVE: usize = 256;

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dems = dems();
    let tools = Tools::find();
    let mut rows = Vec::new();
    let mut cumulative = None;
    for (name, hf) in &dems {
        for curvature in [false, true] {
            let row = bench(name, hf, curvature, dir.path(), &tools);
            if !curvature && hf.nx() == 4097 && hf.ny() == 4097 {
                if std::env::var("LANDFALL_BENCH_CUMULATIVE").is_ok_and(|v| v == "0") {
                    println!("viewshed: the cumulative run left out (LANDFALL_BENCH_CUMULATIVE=0)");
                } else {
                    cumulative = Some(cumulative_run(hf, &row));
                }
            }
            rows.push(row);
        }
    }
    if cumulative.is_none() {
        println!(
            "viewshed: no cumulative run (it needs the 4097² DEM, which LANDFALL_BENCH_SIZES without 4097 leaves out)"
        );
    }
    tables(&rows, cumulative.as_ref());
}

/// The DEMs: the real one, then generated ones by size.
fn dems() -> Vec<(String, Heightfield)> {
    let mut dems = Vec::new();
    let mut sizes = vec![4097];
    if std::env::var("LANDFALL_BENCH_BIG").is_ok_and(|v| v == "1") {
        sizes.push(16385);
    } else {
        println!("viewshed: LANDFALL_BENCH_BIG=1 adds the 16385² DEM");
    }
    if let Ok(list) = std::env::var("LANDFALL_BENCH_SIZES") {
        sizes = list.split(',').filter_map(|s| s.trim().parse().ok()).collect();
    } else {
        let volcano = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/volcano.asc");
        match landfall_io::load_heightfield(&volcano, &LoadOptions::default()) {
            Ok(l) => dems.push(("volcano.asc 87×61, 10 m".to_string(), l.heightfield)),
            Err(e) => println!("viewshed: data/volcano.asc is not readable ({e}); skipped"),
        }
    }
    for n in sizes {
        let h = generate(n, n, &SynthParams { relief: 1500.0, ..Default::default() });
        let hf = Heightfield::builder(n, n, h).spacing(10.0, 10.0).origin(500_000.0, 4_000_000.0).build().unwrap();
        dems.push((format!("generated {n}², 10 m"), hf));
    }
    dems
}

/// The peers found on this machine (each missing one said once).
struct Tools {
    gdal: bool,
    grass: bool,
    python: Option<PathBuf>,
    cli: Option<PathBuf>,
}

impl Tools {
    fn find() -> Self {
        // `LANDFALL_BENCH_PEERS=gdal,cli` (say) runs only those peers.
        let chosen = std::env::var("LANDFALL_BENCH_PEERS").ok();
        let wanted = |peer: &str| {
            let on = chosen.as_deref().is_none_or(|list| list.split(',').any(|p| p.trim() == peer));
            if !on {
                println!("viewshed: {peer} left out (LANDFALL_BENCH_PEERS)");
            }
            on
        };
        let mut tools = Self::installed();
        tools.gdal &= wanted("gdal");
        tools.grass &= wanted("grass");
        if !wanted("xrspatial") {
            tools.python = None;
        }
        if !wanted("cli") {
            tools.cli = None;
        }
        tools
    }

    fn installed() -> Self {
        let gdal = peers::installed("gdal_viewshed");
        if !gdal {
            println!("viewshed: gdal_viewshed is not installed (apt-get install gdal-bin): its columns are empty");
        }
        let grass = peers::installed("grass");
        if !grass {
            println!("viewshed: grass is not installed (apt-get install grass-core): the r.viewshed columns are empty");
        }
        let python = peers::xrspatial_python();
        let python = match peers::xrspatial_missing(&python) {
            Some(why) => {
                println!("viewshed: {why}: the xarray-spatial columns are empty");
                None
            }
            None => Some(python),
        };
        let cli = peers::landfall_cli()
            .inspect_err(|e| println!("viewshed: the landfall command line did not build ({e}): no end-to-end time"))
            .ok();
        Self { gdal, grass, python, cli }
    }
}

/// One DEM in one case (curvature or not): every figure of the tables.
struct Row {
    dem: String,
    curvature: bool,
    samples: usize,
    targets: usize,
    /// Best wall time and its CPU time, per thread count (1, 2, and all when more).
    landfall: Vec<(usize, Duration, Duration)>,
    band: u64,
    /// Bytes per sample: the loaded DEM, and a run's peak beyond it.
    memory: Option<(f64, f64)>,
    /// The exact walk: its time and the targets it walked.
    walk: (Duration, usize),
    /// Each peer's cost and disagreement with the exact answer (per cent of the targets).
    gdal: Option<(Cost, f64)>,
    grass: Option<(Cost, f64)>,
    xrspatial: Option<(Cost, f64)>,
    cli: Option<Cost>,
}

impl Row {
    fn on(&self, threads: usize) -> Option<Duration> {
        self.landfall.iter().find(|l| l.0 == threads).map(|l| l.1)
    }
}

/// The parameters of a case: the eye 10 m up, curvature as GDAL's default on the WGS84 axis.
fn params(curvature: bool) -> ViewshedParams {
    // (1 − K)/R = CC/a: the same drop as GDAL's and GRASS's.
    let refraction = 1.0 - CC * viewshed::EARTH_RADIUS / WGS84_A;
    ViewshedParams::default().with_observer_height(EYE).with_curvature(curvature).with_refraction(refraction)
}

/// The highest sample's position.
fn summit(hf: &Heightfield) -> [f64; 2] {
    let (k, _) = hf.samples().enumerate().filter(|(_, h)| !h.is_nan()).fold((0, f32::NEG_INFINITY), |best, (k, h)| {
        if h > best.1 {
            (k, h)
        } else {
            best
        }
    });
    let p = hf.sample_position(k % hf.nx(), k / hf.nx());
    [p.x, p.y]
}

/// The visibility of one observer, on the current rayon pool.
fn visibility(hf: &Heightfield, o: [f64; 2], params: &ViewshedParams) -> (Vec<u8>, Stats) {
    let out = viewshed::viewshed(hf, &[Observer::at(o[0], o[1])], params, ViewshedMode::Visibility, &Hooks::default());
    match out.expect("the viewshed runs") {
        ViewshedOutput::Visibility(v, stats) => (v.values, stats),
        _ => unreachable!("visibility answers visibility"),
    }
}

/// The cheapest of `runs` runs of `f` on a pool of `threads`: wall time, its CPU time, the value.
fn best<T>(threads: usize, runs: usize, f: impl Fn() -> T + Sync) -> (Duration, Duration, T)
where
    T: Send,
{
    let p = pool(threads);
    let mut best: Option<(Duration, Duration, T)> = None;
    for _ in 0..runs {
        let cpu = peers::cpu_time(libc::RUSAGE_SELF);
        let start = Instant::now();
        let v = p.install(&f);
        let (wall, cpu) = (start.elapsed(), peers::cpu_time(libc::RUSAGE_SELF).saturating_sub(cpu));
        if best.as_ref().is_none_or(|b| wall < b.0) {
            best = Some((wall, cpu, v));
        }
    }
    best.expect("at least one run")
}

/// The DEM as every peer reads it: an f32 GeoTIFF in EPSG:32610 (UTM 10N: a WGS84 CRS, so that
/// `gdal_viewshed` applies curvature), NaN nodata.
fn write_dem(hf: &Heightfield, tif: &Path) {
    let geo = GeoRef { origin: (hf.origin().x, hf.origin().y), spacing: (hf.spacing().x, hf.spacing().y) };
    // GTModelType projected, RasterType PixelIsArea, ProjectedCSType 32610.
    let keys =
        GeoKeys { directory: vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32610], ..Default::default() };
    let h: Vec<f32> = hf.samples().collect();
    write_geotiff(tif, hf.nx(), hf.ny(), Band::F32(&h), &geo, Some(f64::NAN), Some(&keys)).expect("writes the DEM");
}

fn bench(name: &str, hf: &Heightfield, curvature: bool, dir: &Path, tools: &Tools) -> Row {
    let (nx, ny) = (hf.nx(), hf.ny());
    let samples = nx * ny;
    let o = summit(hf);
    let params = params(curvature);
    let case = if curvature { "curvature (6/7)·d²/2a" } else { "no curvature" };
    println!("\n== {name}: {samples} samples; observer ({:.1}, {:.1}), {EYE} m above the summit; {case}", o[0], o[1]);
    let runs = if samples > 5000 * 5000 { 2 } else { 3 };
    let all = rayon::current_num_threads();
    let mut counts = vec![1, 2];
    if all > 2 {
        counts.push(all);
    }
    let mut landfall = Vec::new();
    let mut exact = None;
    for &t in &counts {
        let (wall, cpu, (vis, stats)) = best(t, runs, || visibility(hf, o, &params));
        println!(
            "landfall sweep, {t} thread{}: {:.3} s (CPU {:.3} s), {:.1} M samples/s",
            if t == 1 { "" } else { "s" },
            wall.as_secs_f64(),
            cpu.as_secs_f64(),
            samples as f64 / wall.as_secs_f64() / 1e6
        );
        landfall.push((t, wall, cpu));
        exact.get_or_insert((vis, stats));
    }
    if all <= 2 {
        println!("(rayon has {all} threads here: 'all threads' is the {all}-thread run)");
    }
    let (vis, stats) = exact.expect("one run at least");
    let targets = vis.iter().filter(|&&v| v != NODATA).count();
    println!(
        "band: {} of {targets} targets went to the exact test ({:.4} %)",
        stats.band,
        100.0 * stats.band as f64 / targets.max(1) as f64
    );

    let walk = walk(hf, o, &params, &vis, &format!("{name}, {case}"));

    let tif = dir.join("dem.tif");
    write_dem(hf, &tif);
    let problem = Problem { tif: &tif, size: (nx, ny), observer: o, height: EYE, curvature: curvature.then_some(CC) };
    let memory = (!curvature).then(|| memory(&tif, o)).flatten();
    let gdal = tools.gdal.then(|| gdal(&problem, &vis, dir, runs)).flatten();
    let grass = tools.grass.then(|| grass(name, &problem, &vis, dir)).flatten();
    let xrspatial = match (&tools.python, curvature) {
        (Some(python), false) => xrspatial(python, hf, &problem, &vis, dir),
        (Some(_), true) => {
            println!("xarray-spatial: no curvature option; not run with curvature");
            None
        }
        (None, _) => None,
    };
    let cli = tools.cli.as_deref().and_then(|bin| cli(bin, &problem, &params, &vis, dir, runs));
    if let (Some((g, _)), Some(t1)) = (gdal, landfall.first()) {
        let ratio = |t: Duration| t.as_secs_f64() / g.wall.as_secs_f64();
        println!(
            "against gdal_viewshed ({:.3} s): 1 thread {:.2}× (target ≤ 1.0×; CPU time {:.2}×), 2 threads {:.2}× (target ≤ 0.6×)",
            g.wall.as_secs_f64(),
            ratio(t1.1),
            t1.2.as_secs_f64() / g.cpu.as_secs_f64(),
            ratio(landfall[1].1)
        );
        if let Some(c) = cli {
            println!(
                "end to end, 1 thread: landfall viewshed {:.3} s, gdal_viewshed {:.3} s: {:.2}×",
                c.wall.as_secs_f64(),
                g.wall.as_secs_f64(),
                ratio(c.wall)
            );
        }
    }
    let _ = std::fs::remove_file(&tif);
    Row {
        dem: name.to_string(),
        curvature,
        samples,
        targets,
        landfall,
        band: stats.band,
        memory,
        walk,
        gdal,
        grass,
        xrspatial,
        cli,
    }
}

/// Targets the exact walk is timed on, about (all of them on a smaller DEM).
const WALK_SAMPLE: usize = 50_000;

/// The exact walk on a sample of the targets (all of them up to [`WALK_SAMPLE`], else those of a
/// thin sector towards the DEM's farthest corner from `o`), on all threads: its time and the
/// targets walked. Panics unless its answer equals the sweep's `vis` on every one.
fn walk(hf: &Heightfield, o: [f64; 2], params: &ViewshedParams, vis: &[u8], case: &str) -> (Duration, usize) {
    let targets = vis.iter().filter(|&&v| v != NODATA).count();
    let mut params = params.clone();
    let mut what = "every target".to_string();
    if targets > WALK_SAMPLE {
        let (a, b) = (hf.sample_position(0, 0), hf.sample_position(hf.nx() - 1, hf.ny() - 1));
        let far_x = if o[0] - a.x > b.x - o[0] { a.x } else { b.x };
        let far_y = if o[1] - a.y > b.y - o[1] { a.y } else { b.y };
        // Degrees clockwise from north; the sector's share of a disc, about that of the targets.
        let azimuth = (far_x - o[0]).atan2(far_y - o[1]).to_degrees().rem_euclid(360.0);
        let width = 360.0 * WALK_SAMPLE as f64 / targets as f64;
        params.azimuths = Some((azimuth - width / 2.0, azimuth + width / 2.0));
        what = format!("the targets within {width:.2}° of azimuth {azimuth:.1}°");
    }
    let all = rayon::current_num_threads();
    let (time, _, reference) = best(all, 1, || match viewshed::reference(hf, o, &params, ViewshedMode::Visibility) {
        Ok(ViewshedOutput::Visibility(v, _)) => v.values,
        other => panic!("the exact walk: {other:?}"),
    });
    let walked: Vec<usize> = (0..vis.len()).filter(|&k| reference[k] != NODATA).collect();
    let differ = walked.iter().filter(|&&k| reference[k] != vis[k]).count();
    assert_eq!(differ, 0, "{case}: the sweep and the exact walk differ on {differ} of the walked targets");
    assert!(!walked.is_empty(), "{case}: the exact walk's sample holds no target");
    println!(
        "exact walk (every target's segment, the old method), {all} threads, {what}: {} targets in {:.3} s = {:.3} M targets/s; the sweep's answer on every one",
        walked.len(),
        time.as_secs_f64(),
        walked.len() as f64 / time.as_secs_f64() / 1e6
    );
    (time, walked.len())
}

/// Bytes per sample of the loaded DEM and of a viewshed's peak beyond it, measured in a child
/// process (this binary with [`CHILD`] set).
fn memory(tif: &Path, o: [f64; 2]) -> Option<(f64, f64)> {
    let exe = std::env::current_exe().ok()?;
    let spec = format!("{}\t{:?}\t{:?}\t{EYE:?}", tif.display(), o[0], o[1]);
    let out = std::process::Command::new(exe).env(CHILD, spec).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = text.split_whitespace().filter_map(|s| s.parse().ok()).collect();
    if !out.status.success() || v.len() != 4 {
        println!("memory: the child process failed: {} {}", text.trim(), String::from_utf8_lossy(&out.stderr).trim());
        return None;
    }
    let [before, dem, peak, samples] = [v[0], v[1], v[2], v[3]];
    let per = ((dem - before) / samples, (peak - dem) / samples);
    println!(
        "memory (child process, all threads): the loaded DEM {:.0} MiB ({:.2} B/sample); a run's peak beyond it {:.1} MiB = {:.2} B/sample (the 1 B/sample answer included)",
        (dem - before) / 1048576.0,
        per.0,
        (peak - dem) / 1048576.0,
        per.1
    );
    Some(per)
}

/// The memory child: load the DEM, reset the peak, run the viewshed, print
/// `resident-before resident-with-DEM peak samples` in bytes.
fn child(spec: &str) {
    let f: Vec<&str> = spec.split('\t').collect();
    let num = |k: usize| -> f64 { f[k].parse().expect("a number in the child's spec") };
    let before = process_memory("VmRSS").expect("VmRSS");
    let hf =
        landfall_io::load_heightfield(Path::new(f[0]), &LoadOptions::default()).expect("the DEM loads").heightfield;
    assert!(reset_peak_memory(), "/proc/self/clear_refs is not writable: cannot reset VmHWM");
    let dem = process_memory("VmRSS").expect("VmRSS");
    let params = ViewshedParams::default().with_observer_height(num(3));
    let (vis, _) = visibility(&hf, [num(1), num(2)], &params);
    let peak = process_memory("VmHWM").expect("VmHWM");
    println!("{before} {dem} {peak} {}", vis.len());
}

fn gdal(p: &Problem, exact: &[u8], dir: &Path, runs: usize) -> Option<(Cost, f64)> {
    let out = dir.join("gdal.tif");
    match peers::gdal(p, &out, runs) {
        Ok(cost) => {
            let r = peers::read_back(&out);
            let _ = std::fs::remove_file(&out);
            let d = peers::disagreement(exact, |k| r[k] == 255.0);
            println!(
                "gdal_viewshed: {:.3} s (CPU {:.3} s), peak {}, disagrees on {d:.3} % of the targets",
                cost.wall.as_secs_f64(),
                cost.cpu.as_secs_f64(),
                mib(cost.peak)
            );
            Some((cost, d))
        }
        Err(e) => {
            println!("gdal_viewshed: could not run: {e}");
            None
        }
    }
}

fn grass(name: &str, p: &Problem, exact: &[u8], dir: &Path) -> Option<(Cost, f64)> {
    // About 75 s on 4097² here and 20 minutes or more on 16385².
    if p.size.0 * p.size.1 > 4097 * 4097 && std::env::var_os("LANDFALL_BENCH_GRASS_BIG").is_none() {
        println!("r.viewshed: skipped on {name} (20 minutes or more; LANDFALL_BENCH_GRASS_BIG=1 runs it)");
        return None;
    }
    let out = dir.join("grass.tif");
    match peers::r_viewshed(p, &out) {
        Ok(cost) => {
            let r = peers::read_back(&out);
            let _ = std::fs::remove_file(&out);
            let d = peers::disagreement(exact, |k| r[k] == 1.0);
            println!(
                "r.viewshed: {:.3} s (the r.viewshed process alone), peak {}, disagrees on {d:.3} % of the targets",
                cost.wall.as_secs_f64(),
                mib(cost.peak)
            );
            Some((cost, d))
        }
        Err(e) => {
            println!("r.viewshed: could not run: {e}");
            None
        }
    }
}

fn xrspatial(python: &Path, hf: &Heightfield, p: &Problem, exact: &[u8], dir: &Path) -> Option<(Cost, f64)> {
    let need = p.size.0 * p.size.1 * peers::XRSPATIAL_BYTES_PER_SAMPLE;
    let free = process_memory_available();
    if free.is_some_and(|free| need as u64 > free) {
        println!(
            "xarray-spatial: not run: its event list and status tree need about {:.1} GiB ({} B/sample), {:.1} GiB is available",
            need as f64 / (1u64 << 30) as f64,
            peers::XRSPATIAL_BYTES_PER_SAMPLE,
            free.unwrap_or(0) as f64 / (1u64 << 30) as f64
        );
        return None;
    }
    let heights: Vec<f32> = hf.samples().collect();
    let origin = [hf.origin().x, hf.origin().y];
    let spacing = [hf.spacing().x, hf.spacing().y];
    match peers::xrspatial(python, p, &heights, origin, spacing, dir) {
        Ok((cost, vis)) => {
            let d = peers::disagreement(exact, |k| vis[k] == 1);
            println!(
                "xarray-spatial: {:.3} s (the call alone, compiled), peak {} (the Python process), disagrees on {d:.3} % of the targets",
                cost.wall.as_secs_f64(),
                mib(cost.peak)
            );
            Some((cost, d))
        }
        Err(e) => {
            println!("xarray-spatial: could not run: {e}");
            None
        }
    }
}

/// `MemAvailable` of the machine, bytes.
fn process_memory_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line["MemAvailable:".len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

fn cli(bin: &Path, p: &Problem, params: &ViewshedParams, exact: &[u8], dir: &Path, runs: usize) -> Option<Cost> {
    let out = dir.join("cli.tif");
    match peers::landfall_cli_run(bin, p, params.refraction, &out, runs) {
        Ok(cost) => {
            let r = peers::read_back(&out);
            let _ = std::fs::remove_file(&out);
            let differ = exact
                .iter()
                .zip(&r)
                .filter(|(&e, &v)| if e == NODATA { !v.is_nan() } else { f32::from(e) != v })
                .count();
            assert_eq!(differ, 0, "the command line's answer differs from the library's on {differ} samples");
            println!(
                "landfall viewshed (command line, 1 thread, end to end): {:.3} s, peak {}; the library's answer",
                cost.wall.as_secs_f64(),
                mib(cost.peak)
            );
            Some(cost)
        }
        Err(e) => {
            println!("landfall viewshed (command line): could not run: {e}");
            None
        }
    }
}

/// Cumulative: 256 observers (a 16 × 16 lattice of samples, 10 m up) counted in one run on all
/// threads; per observer against the single viewshed on all threads.
struct Cumulative {
    threads: usize,
    total: Duration,
    single: Duration,
}

fn cumulative_run(hf: &Heightfield, row: &Row) -> Cumulative {
    let (nx, ny) = (hf.nx(), hf.ny());
    let side = (CUMULATIVE as f64).sqrt() as usize;
    let observers: Vec<Observer> = (0..CUMULATIVE)
        .map(|k| {
            let (a, b) = (k % side, k / side);
            let p = hf.sample_position((2 * a + 1) * (nx - 1) / (2 * side), (2 * b + 1) * (ny - 1) / (2 * side));
            Observer::at(p.x, p.y)
        })
        .collect();
    let params = params(false);
    let threads = rayon::current_num_threads();
    let (total, _, counts) = best(threads, 1, || {
        match viewshed::viewshed(hf, &observers, &params, ViewshedMode::Count, &Hooks::default()) {
            Ok(ViewshedOutput::Counts(c)) => c,
            other => panic!("the cumulative viewshed: {other:?}"),
        }
    });
    let most = counts.values.iter().flatten().max().copied().unwrap_or(0);
    assert!(most as usize <= CUMULATIVE);
    let single = row.on(threads).unwrap_or(row.landfall[row.landfall.len() - 1].1);
    let c = Cumulative { threads, total, single };
    println!(
        "\ncumulative: {CUMULATIVE} observers on {}, {threads} threads: {:.2} s, {:.3} s per observer against {:.3} s for one viewshed: {:.2}× (target ≤ 1.0×); most seen by {most}",
        row.dem,
        total.as_secs_f64(),
        total.as_secs_f64() / CUMULATIVE as f64,
        single.as_secs_f64(),
        total.as_secs_f64() / CUMULATIVE as f64 / single.as_secs_f64()
    );
    c
}

/// A peak memory in MiB, or "–".
fn mib(bytes: Option<u64>) -> String {
    bytes.map_or("–".into(), |b| format!("{:.0} MiB", b as f64 / 1048576.0))
}

fn secs(d: Option<Duration>) -> String {
    d.map_or("–".into(), |d| {
        if d.as_secs_f64() < 10.0 {
            format!("{:.3} s", d.as_secs_f64())
        } else {
            format!("{:.1} s", d.as_secs_f64())
        }
    })
}

fn pct(p: Option<f64>) -> String {
    p.map_or("–".into(), |p| format!("{p:.3} %"))
}

/// The results as the Markdown tables of `docs/benchmarks.md`.
fn tables(rows: &[Row], cumulative: Option<&Cumulative>) {
    let all = rayon::current_num_threads();
    let case = |r: &Row| format!("{} | {}", r.dem, if r.curvature { "yes" } else { "no" });
    println!("\nWall time, and in brackets its ratio to `gdal_viewshed`'s (CPU time: user + system, the ratio that a busy machine blurs least):\n");
    println!("| DEM | curvature | landfall 1 thread | 2 threads | all ({all}) | M samples/s (1 thread) | 1 thread, CPU time ÷ GDAL's | `gdal_viewshed` | CLI end to end, 1 thread | `r.viewshed` | xarray-spatial | exact walk, {all} threads: M targets/s (targets walked) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let g = r.gdal.map(|g| g.0.wall);
        let vs = |t: Option<Duration>| match (t, g) {
            (Some(t), Some(g)) => format!("{} ({:.2}×)", secs(Some(t)), t.as_secs_f64() / g.as_secs_f64()),
            _ => secs(t),
        };
        let t1 = r.on(1);
        let cpu = match (r.landfall.first(), r.gdal) {
            (Some(l), Some(g)) => format!("{:.2}×", l.2.as_secs_f64() / g.0.cpu.as_secs_f64()),
            _ => "–".into(),
        };
        let walk_rate = r.walk.1 as f64 / r.walk.0.as_secs_f64() / 1e6;
        println!(
            "| {} | {} | {} | {} | {:.1} | {cpu} | {} | {} | {} | {} | {walk_rate:.3} ({}) |",
            case(r),
            vs(t1),
            vs(r.on(2)),
            vs(r.on(all).or(r.on(2))),
            r.samples as f64 / t1.unwrap_or(Duration::MAX).as_secs_f64() / 1e6,
            secs(g),
            vs(r.cli.map(|c| c.wall)),
            vs(r.grass.map(|g| g.0.wall)),
            vs(r.xrspatial.map(|x| x.0.wall)),
            r.walk.1,
        );
    }
    println!("\nBand share, peak memory and disagreement with the exact answer (share of the targets):\n");
    println!("| DEM | curvature | targets | sent to the exact test | landfall: DEM in memory | a run's peak beyond the DEM | peak RSS: landfall CLI | `gdal_viewshed` | `r.viewshed` | xarray-spatial | GDAL disagrees | `r.viewshed` disagrees | xarray-spatial disagrees |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let (dem, extra) = match r.memory {
            Some((d, e)) => (format!("{d:.2} B/sample"), format!("{e:.2} B/sample")),
            None => ("–".into(), "–".into()),
        };
        println!(
            "| {} | {} | {:.4} % ({}) | {dem} | {extra} | {} | {} | {} | {} | {} | {} | {} |",
            case(r),
            r.targets,
            100.0 * r.band as f64 / r.targets.max(1) as f64,
            r.band,
            mib(r.cli.and_then(|c| c.peak)),
            mib(r.gdal.and_then(|g| g.0.peak)),
            mib(r.grass.and_then(|g| g.0.peak)),
            mib(r.xrspatial.and_then(|x| x.0.peak)),
            pct(r.gdal.map(|g| g.1)),
            pct(r.grass.map(|g| g.1)),
            pct(r.xrspatial.map(|x| x.1)),
        );
    }
    if let Some(c) = cumulative {
        let per = c.total.as_secs_f64() / CUMULATIVE as f64;
        println!(
            "\n| cumulative, {CUMULATIVE} observers, 4097², {} threads | total | per observer | one viewshed | per observer ÷ one |\n|---|---|---|---|---|\n| | {} | {per:.3} s | {} | {:.2}× |",
            c.threads,
            secs(Some(c.total)),
            secs(Some(c.single)),
            per / c.single.as_secs_f64()
        );
    }
}
