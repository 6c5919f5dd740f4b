//! The viewshed benchmark's peers, run as their users run them: `gdal_viewshed`, GRASS's
//! `r.viewshed`, xarray-spatial's `viewshed` (a Python subprocess), and landfall's own command
//! line; their wall and CPU times, and how often their answers differ from the exact one.

use landfall::viewshed::{NODATA, VISIBLE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The Earth's semi-major axis (m): the radius `gdal_viewshed` and `r.viewshed` lower samples by
/// on a raster in a WGS84-based CRS.
pub const WGS84_A: f64 = 6_378_137.0;

/// One viewshed problem as every peer is given it: the DEM as a GeoTIFF in EPSG:32610 (so that
/// GDAL applies curvature), the observer on a sample, its eye `height` above that sample, and
/// the curvature coefficient (`None` for none): samples lowered by `c`·d²/(2·[`WGS84_A`]), GDAL's
/// `-cc c`, `r.viewshed -c -r refraction_coeff=1−c`.
pub struct Problem<'a> {
    /// The DEM (f32 GeoTIFF).
    pub tif: &'a Path,
    /// Samples along x and y.
    pub size: (usize, usize),
    /// Observer world position (a sample's).
    pub observer: [f64; 2],
    /// Eye height above the ground.
    pub height: f64,
    /// Curvature coefficient, `None` for a flat Earth.
    pub curvature: Option<f64>,
}

/// What a peer's run cost: wall-clock time, CPU time (user + system, its child processes
/// included) and peak memory.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    /// Wall-clock time.
    pub wall: Duration,
    /// CPU time.
    pub cpu: Duration,
    /// The largest resident set of the process or of any of its descendants, bytes (GNU time's
    /// "Maximum resident set size"; `None` without `/usr/bin/time`).
    pub peak: Option<u64>,
}

/// Where GNU time writes its report of the command [`run`] runs (one at a time).
fn time_report() -> PathBuf {
    std::env::temp_dir().join(format!("landfall-bench-time-{}.txt", std::process::id()))
}

/// A command for `program` under GNU time (`/usr/bin/time -v`), so that [`run`] reads its peak
/// memory; the plain command where `/usr/bin/time` is missing.
pub fn tool(program: impl AsRef<std::ffi::OsStr>) -> Command {
    if !Path::new("/usr/bin/time").exists() {
        return Command::new(program);
    }
    let mut c = Command::new("/usr/bin/time");
    c.arg("-v").arg("-o").arg(time_report()).arg(program);
    c
}

/// The peak memory in GNU time's report, bytes, if the last command left one (which it removes).
fn reported_peak() -> Option<u64> {
    let report = std::fs::read_to_string(time_report()).ok()?;
    let _ = std::fs::remove_file(time_report());
    let line = report.lines().find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))?;
    line.trim().parse::<u64>().ok().map(|kib| kib * 1024)
}

/// CPU time (user + system) of this process (`who` = `RUSAGE_SELF`) or of its waited-for
/// children (`RUSAGE_CHILDREN`).
pub fn cpu_time(who: libc::c_int) -> Duration {
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut u);
        u
    };
    let t = |v: libc::timeval| Duration::new(v.tv_sec as u64, v.tv_usec as u32 * 1000);
    t(u.ru_utime) + t(u.ru_stime)
}

/// Runs a command to its end: its cost, or why it failed (its exit status and the end of its
/// standard error).
pub fn run(cmd: &mut Command) -> Result<(Cost, String), String> {
    let cpu0 = cpu_time(libc::RUSAGE_CHILDREN);
    let start = Instant::now();
    let out = cmd.output().map_err(|e| format!("{:?} did not start: {e}", cmd.get_program()))?;
    let (wall, cpu) = (start.elapsed(), cpu_time(libc::RUSAGE_CHILDREN).saturating_sub(cpu0));
    let cost = Cost { wall, cpu, peak: reported_peak() };
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: String =
            err.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ");
        return Err(format!("{:?} failed ({}): {tail}", cmd.get_program(), out.status));
    }
    Ok((cost, String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The cheapest of `runs` runs (by wall time) of a command, or the first failure.
pub fn best_of(runs: usize, mut cmd: impl FnMut() -> Command) -> Result<(Cost, String), String> {
    let mut best: Option<(Cost, String)> = None;
    for _ in 0..runs {
        let r = run(&mut cmd())?;
        if best.as_ref().is_none_or(|b| r.0.wall < b.0.wall) {
            best = Some(r);
        }
    }
    best.ok_or_else(|| "no run".into())
}

/// Whether a program is there to run (`program --version` starts; `gdal_viewshed` answers it with
/// its version and a usage error).
pub fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok()
}

/// The share (per cent) of the exact answer's targets (`exact`: [`VISIBLE`], HIDDEN or
/// [`NODATA`], row 0 south) on which a peer's `visible(k)` differs.
pub fn disagreement(exact: &[u8], visible: impl Fn(usize) -> bool) -> f64 {
    let (mut targets, mut differ) = (0usize, 0usize);
    for (k, &v) in exact.iter().enumerate() {
        if v != NODATA {
            targets += 1;
            differ += usize::from((v == VISIBLE) != visible(k));
        }
    }
    100.0 * differ as f64 / targets.max(1) as f64
}

/// A raster the peers wrote, read back (row 0 south; nodata as NaN).
pub fn read_back(path: &Path) -> Vec<f32> {
    landfall_io::read_raster(path).unwrap_or_else(|e| panic!("reads the peer's output: {e}")).values
}

/// `gdal_viewshed` from the command line, `runs` times (the cheapest kept): its cost and its
/// output (255 visible).
pub fn gdal(p: &Problem, out: &Path, runs: usize) -> Result<Cost, String> {
    let [x, y] = p.observer;
    let cc = p.curvature.unwrap_or(0.0);
    best_of(runs, || {
        let mut c = tool("gdal_viewshed");
        c.args(["-q", "-cc", &format!("{cc:?}"), "-oz", &format!("{:?}", p.height), "-tz", "0"])
            .args(["-ox", &format!("{x:?}"), "-oy", &format!("{y:?}")])
            .arg(p.tif)
            .arg(out)
            .env("GDAL_NUM_THREADS", "1");
        c
    })
    .map(|(c, _)| c)
}

/// The `grass --exec` command for a script, in a temporary location of the DEM's CRS.
fn grass(script: &str) -> Command {
    let mut c = tool("grass");
    c.args(["--tmp-location", "EPSG:32610", "--exec", "bash", "-c", script]);
    c
}

/// `r.viewshed` (binary output, 1 visible) in a temporary location, `-c` with curvature: the wall
/// time of the `r.viewshed` process alone (clock read by the session's shell just before and
/// after it: the import and export are outside), the session's CPU time, and the session's peak
/// memory (r.viewshed's: its largest process).
pub fn r_viewshed(p: &Problem, out: &Path) -> Result<Cost, String> {
    let [x, y] = p.observer;
    let curv = match p.curvature {
        Some(c) => format!("-c -r refraction_coeff={:?}", 1.0 - c),
        None => String::new(),
    };
    let script = format!(
        "r.in.gdal input={} output=dem --quiet && g.region raster=dem && s=$(date +%s%N) && \
         r.viewshed -b {curv} input=dem output=vs coordinates={x:?},{y:?} observer_elevation={:?} \
         target_elevation=0 memory=4000 --quiet && e=$(date +%s%N) && echo \"r.viewshed ns $((e - s))\" && \
         r.out.gdal -c input=vs output={} type=Byte --quiet -f",
        p.tif.display(),
        p.height,
        out.display()
    );
    let (session, stdout) = run(&mut grass(&script))?;
    let ns: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("r.viewshed ns "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("the GRASS session printed no r.viewshed time: {stdout}"))?;
    Ok(Cost { wall: Duration::from_nanos(ns), ..session })
}

/// Where xarray-spatial is: `$LANDFALL_BENCH_PYTHON`, else the workspace's `target/bench-venv`.
pub fn xrspatial_python() -> PathBuf {
    std::env::var_os("LANDFALL_BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-venv/bin/python"))
}

/// Why xarray-spatial cannot run here, if it cannot.
pub fn xrspatial_missing(python: &Path) -> Option<String> {
    let ok = Command::new(python).args(["-c", "import xrspatial"]).output().is_ok_and(|o| o.status.success());
    (!ok).then(|| {
        format!(
            "xarray-spatial is not importable by {} (python3 -m venv target/bench-venv && \
             target/bench-venv/bin/pip install xarray-spatial; or set LANDFALL_BENCH_PYTHON)",
            python.display()
        )
    })
}

/// Bytes xarray-spatial's CPU viewshed allocates per sample: its event list (3 events of 7 f64),
/// the sorted copy and the split arrays, the status tree (8 f64 + 4 i64 per node), the
/// visibility grid and the f64 heights.
pub const XRSPATIAL_BYTES_PER_SAMPLE: usize = 3 * 7 * 8 * 2 + 3 * 7 * 8 + 96 + 8 + 8;

/// xarray-spatial's `viewshed` in a Python subprocess (see `scripts/xrspatial_viewshed.py`): the
/// time of the call alone, the process's peak memory, and per sample whether it is visible (row 0
/// south).
pub fn xrspatial(
    python: &Path,
    p: &Problem,
    heights: &[f32],
    origin: [f64; 2],
    spacing: [f64; 2],
    dir: &Path,
) -> Result<(Cost, Vec<u8>), String> {
    let dem = dir.join("dem.f32");
    let out = dir.join("xrs.u8");
    let bytes: Vec<u8> = heights.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&dem, bytes).map_err(|e| format!("{}: {e}", dem.display()))?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/xrspatial_viewshed.py");
    let args = [origin[0], origin[1], spacing[0], spacing[1], p.observer[0], p.observer[1], p.height];
    let mut c = tool(python);
    c.arg(&script).arg(&dem).arg(p.size.0.to_string()).arg(p.size.1.to_string());
    c.args(args.iter().map(|v| format!("{v:?}"))).arg(&out);
    let r = run(&mut c);
    let _ = std::fs::remove_file(&dem);
    let (cost, stdout) = r?;
    let seconds = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v["seconds"].as_f64())
        .ok_or_else(|| format!("xarray-spatial printed no time: {stdout}"))?;
    let vis = std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    if vis.len() != heights.len() {
        return Err(format!("xarray-spatial wrote {} samples, expected {}", vis.len(), heights.len()));
    }
    Ok((Cost { wall: Duration::from_secs_f64(seconds), ..cost }, vis))
}

/// The landfall binary: `$LANDFALL_BIN`, else the workspace's release build, built now
/// (`cargo build --release -p landfall-cli`) so that it is the current code.
pub fn landfall_cli() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("LANDFALL_BIN") {
        return Ok(p.into());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.args(["build", "--release", "-q", "-p", "landfall-cli", "--bin", "landfall"]).current_dir(&root);
    run(&mut c)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/landfall"))
}

/// `landfall viewshed` end to end on one thread (`RAYON_NUM_THREADS=1`): reading the GeoTIFF,
/// the pyramid, the viewshed and writing the result (1 visible), `runs` times (the cheapest kept).
pub fn landfall_cli_run(bin: &Path, p: &Problem, refraction: f64, out: &Path, runs: usize) -> Result<Cost, String> {
    let [x, y] = p.observer;
    best_of(runs, || {
        let mut c = tool(bin);
        c.arg("viewshed").arg(p.tif).args(["--observer", &format!("{x:?},{y:?}")]);
        c.args(["--observer-height", &format!("{:?}", p.height), "--out"]).arg(out);
        if p.curvature.is_some() {
            c.args(["--curvature", "--refraction", &format!("{refraction:?}")]);
        }
        c.env("RAYON_NUM_THREADS", "1");
        let _ = std::fs::remove_file(out);
        c
    })
    .map(|(c, _)| c)
}
