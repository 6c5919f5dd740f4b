//! The CLI contract: CSV headers and rows, placement options, errors naming line and field.

use crate::common;

use common::{fails, ok, rows, s};
use std::path::{Path, PathBuf};

/// A 4×3 ESRI grid, 10 m cells, lower-left sample centre at (1000, 2000), a hole at the north-east.
fn terrain(dir: &Path) -> PathBuf {
    let p = dir.join("t.asc");
    std::fs::write(
        &p,
        "ncols 4\nnrows 3\nxllcenter 1000\nyllcenter 2000\ncellsize 10\nNODATA_value -9999\n\
         5 9 7 -9999\n3 4 5 6\n1 2 3 4\n",
    )
    .unwrap();
    p
}

#[test]
fn height_topmost_floor_and_all() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&input, "x,y\n1000,2000\n1010,2010\n1005,2000\n999,2000\n1029,2019\n").unwrap();
    ok(&["height", s(&t), "--points", s(&input), "--out", s(&out)]);
    let r = rows(&out);
    assert_eq!(r[0], "x,y,z,nx,ny,nz");
    assert_eq!(r[1], "1000,2000,1,-0.09759000729485331,-0.19518001458970663,0.9759000729485331");
    assert!(r[2].starts_with("1010,2010,4,"));
    assert!(r[3].starts_with("1005,2000,1.5,"));
    assert_eq!(r[4], ",,,,,", "outside the grid");
    assert_eq!(r[5], ",,,,,", "over the hole");
    assert_eq!(r.len(), 6);

    std::fs::write(&input, "x,y,z\n1010,2010,4.5\n1010,2010,3.5\n1010,2010,4\n").unwrap();
    ok(&["height", s(&t), "--points", s(&input), "--out", s(&out)]);
    let r = rows(&out);
    assert!(r[1].starts_with("1010,2010,4,"));
    assert_eq!(r[2], ",,,,,", "ground is above the point");
    assert!(r[3].starts_with("1010,2010,4,"), "a point on the ground is at or below itself");

    std::fs::write(&input, "x,y\n1010,2010\n0,0\n1000,2000\n").unwrap();
    ok(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--all"]);
    let r = rows(&out);
    assert_eq!(r[0], "index,x,y,z,nx,ny,nz");
    assert!(r[1].starts_with("0,1010,2010,4,"));
    assert!(r[2].starts_with("2,1000,2000,1,"));
    assert_eq!(r.len(), 3);
}

/// A batch that finds nothing (coordinates in another unit or CRS) still succeeds, but warns with
/// the terrain's extent; every batch ends with a one-line summary.
#[test]
fn a_batch_entirely_off_the_terrain_warns_with_its_extent() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&input, "x,y\n10.5,20.25\n11,21\n").unwrap();
    let o = common::landfall(&["height", s(&t), "--points", s(&input), "-o", s(&out)]);
    assert!(o.status.success());
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("2 points: 0 on the ground, 2 without ground"), "{stdout}");
    assert!(stderr.contains("warning") && stderr.contains("x 1000 … 1030, y 2000 … 2020"), "{stderr}");
    std::fs::write(&input, "ox,oy,oz,dx,dy,dz\n0,0,10,0,0,-1\n").unwrap();
    let o = common::landfall(&["raycast", s(&t), "--rays", s(&input), "-o", s(&out)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("none of the 1 rays"));
    // One point on the ground: no warning.
    std::fs::write(&input, "x,y\n1000,2000\n11,21\n").unwrap();
    let o = common::landfall(&["height", s(&t), "--points", s(&input), "-o", s(&out)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 points: 1 on the ground, 1 without ground"));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    // A DEM in degrees asked in metres: the extent is in its longitude and latitude.
    let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/topobathy.npz");
    std::fs::write(&input, "x,y\n-1000,2000\n").unwrap();
    let o = common::landfall(&["height", s(&dem), "--points", s(&input), "-o", s(&out)]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("which covers lon 234.0167 … 237.9834, lat 48.01637 … 49.98418 (degrees)"), "{stderr}");
    std::fs::write(&input, "ox,oy,oz,dx,dy,dz\n236,49,3000,0,0,1\n").unwrap();
    let o = common::landfall(&["raycast", s(&dem), "--rays", s(&input), "-o", s(&out)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 rays: 0 hit, 1 missed"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("none of the 1 rays found the terrain, which covers lon"));
}

#[test]
fn placement_options_and_negative_origin() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&input, "x,y\n-500,-20\n-498,-19\n").unwrap();
    let args = ["--origin", "-500,-20", "--spacing", "2,1", "--z-scale", "10", "--z-offset", "-5"];
    let mut a = vec!["height", s(&t), "--points", s(&input), "--out", s(&out)];
    a.extend(args);
    ok(&a);
    let r = rows(&out);
    assert!(r[1].starts_with("-500,-20,5,"), "{}", r[1]);
    // Sample (1, 1) = 4 → 4·10 − 5.
    assert!(r[2].starts_with("-498,-19,35,"), "{}", r[2]);
    // The diagonal option changes answers between samples.
    std::fs::write(&input, "x,y\n1006,2012\n").unwrap();
    let mut z = Vec::new();
    for dg in ["alternating", "sw-ne", "se-nw"] {
        ok(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--diagonal", dg]);
        z.push(rows(&out)[1].split(',').nth(2).unwrap().to_string());
    }
    assert_eq!(z[0], z[1], "cell (0,1) is odd: alternating = sw-ne");
    assert_ne!(z[1], z[2]);
}

#[test]
fn raycast_rows_and_max_t() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("r.csv"), d.path().join("o.csv"));
    std::fs::write(
        &input,
        "ox,oy,oz,dx,dy,dz,max_t\n1010,2010,10,0,0,-2,\n1010,2010,10,0,0,-2,2\n1010,2010,0,0,0,1,\n5000,0,0,1,0,0,\n",
    )
    .unwrap();
    ok(&["raycast", s(&t), "--rays", s(&input), "--out", s(&out)]);
    let r = rows(&out);
    assert_eq!(r[0], "hit,t,x,y,z,nx,ny,nz");
    assert!(r[1].starts_with("1,3,1010,2010,4,"), "{}", r[1]);
    assert_eq!(r[2], "0,,,,,,,", "beyond max_t");
    assert!(r[3].starts_with("1,4,1010,2010,4,"), "from below, two-sided: {}", r[3]);
    assert_eq!(r[4], "0,,,,,,,");
    // Without the max_t column.
    std::fs::write(&input, "ox,oy,oz,dx,dy,dz\n1010,2010,10,0,0,-1\n").unwrap();
    ok(&["raycast", s(&t), "--rays", s(&input), "--out", s(&out)]);
    assert!(rows(&out)[1].starts_with("1,6,"));
}

#[test]
fn bad_rows_name_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("r.csv"), d.path().join("o.csv"));
    let cases = [
        ("ox,oy,oz,dx,dy,dz\n1,1,1,0,0,-1\n1,1,NaN,0,0,-1\n", "line 3", "oz"),
        ("ox,oy,oz,dx,dy,dz\n1,1,1,0,0,-1\n1,1,1,inf,0,-1\n", "line 3", "dx"),
        ("ox,oy,oz,dx,dy,dz\n1,1,1,0,0,0\n", "line 2", "direction is zero"),
        ("ox,oy,oz,dx,dy\n1,1,1,0,0\n", "line 1", "dz"),
        ("ox,oy,oz,dx,dy,dz\n1,1,1,0,0,-1\n\n1,1,1,0,zz,-1\n", "line 4", "'dy'"),
        ("ox,oy,oz,dx,dy,dz\n1,1,1,0,0\n", "line 2", "'dz'"),
        ("ox,oy,oz,dx,dy,dz,max_t\n1,1,1,0,0,-1,-3\n", "line 2", "max_t"),
        ("ox,oy,oz,dx,dy,dz,max_t\n1,1,1,0,0,-1,\n1,1,1,0,0,-1\n", "line 3", "'max_t': missing"),
    ];
    for (text, line, fld) in cases {
        std::fs::write(&input, text).unwrap();
        let _ = std::fs::remove_file(&out);
        let e = fails(&["raycast", s(&t), "--rays", s(&input), "--out", s(&out)]);
        assert!(e.contains(line) && e.contains(fld) && e.contains("r.csv"), "{e:?} should name {line} and {fld}");
        assert!(!out.exists(), "a failed run leaves no output file ({text:?})");
    }
    std::fs::write(&input, "x,y\n1,1\n2,oops\n").unwrap();
    let e = fails(&["height", s(&t), "--points", s(&input), "--out", s(&out)]);
    assert!(e.contains("line 3") && e.contains("'y'"), "{e}");
    assert!(!out.exists(), "a failed run leaves no output file");
    // A bad header is found before the output is opened: an existing file stays as it was.
    std::fs::write(&out, "stale").unwrap();
    std::fs::write(&input, "x,z\n1,1\n").unwrap();
    assert!(fails(&["height", s(&t), "--points", s(&input), "--out", s(&out)]).contains("'y'"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "stale");
    let e = fails(&["height", "/no/such.asc", "--points", s(&input), "--out", s(&out)]);
    assert!(e.contains("/no/such.asc"), "{e}");
}

#[test]
fn a_missing_or_wrong_terrain_path_is_named_once() {
    // Not named `.tmpXXXX`, like the temporary files that must not show in the messages.
    let d = tempfile::Builder::new().prefix("landfall-test").tempdir().unwrap();
    let missing = d.path().join("gone.lfq");
    let e = fails(&["info", s(&missing)]);
    assert!(e.contains("gone.lfq: No such file"), "{e}");
    // The operating system's reason once, not repeated by the error chain.
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
    let e = fails(&["height", s(&d.path().join("gone.asc")), "--points", "p.csv", "--out", "o.csv"]);
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
    let e = fails(&["info", s(d.path())]);
    assert!(e.contains("is a directory"), "{e}");
    // A file error from the library (here: writing an index into a missing directory).
    let e = fails(&["build", s(&polygon_terrain(d.path())), "-o", s(&d.path().join("no/dir/x.lfq"))]);
    assert!(e.contains("x.lfq: No such file"), "{e}");
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
    // Not the temporary file the write goes through.
    assert!(!e.contains(".tmp"), "{e}");
    // An output "directory" that is a file.
    let e = fails(&["build", s(&polygon_terrain(d.path())), "-o", s(&missing.with_file_name("p.obj/x.lfq"))]);
    assert!(e.contains("x.lfq") && e.contains("is not a directory") && !e.contains(".tmp"), "{e}");
}

#[test]
fn gravity_needs_points_on_the_line() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let (input, out) = (d.path().join("p.csv"), d.path().join("o.csv"));
    std::fs::write(&input, "x,y\n1010,2010\n").unwrap();
    let e = fails(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--gravity", "0.1,0,-1"]);
    assert!(e.contains("x,y,z"), "{e}");
    // Gravity straight down written differently gives the vertical answer; a tilted one slides.
    std::fs::write(&input, "x,y,z\n1010,2010,50\n").unwrap();
    ok(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--gravity", "0,0,-9.81"]);
    assert!(rows(&out)[1].starts_with("1010,2010,4,"));
    ok(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--gravity", "0.01,0,-1"]);
    let f: Vec<f64> = rows(&out)[1].split(',').map(|v| v.parse().unwrap()).collect();
    assert!(f[0] > 1010.0 && f[0] < 1011.0 && f[1] == 2010.0, "{f:?}");
    assert!(
        fails(&["height", s(&t), "--points", s(&input), "--out", s(&out), "--gravity", "0,0,0"]).contains("gravity")
    );
}

#[test]
fn info_and_demo() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let text = ok(&["info", s(&t)]);
    for want in ["4 × 3 samples", "bounds x     1000 … 1030", "height       1 … 9", "1 nodata samples", "build time"]
    {
        assert!(text.contains(want), "info lacks {want:?}:\n{text}");
    }
    let out = d.path().join("out");
    let text = ok(&[
        "demo",
        "--size",
        "65",
        "--queries",
        "2000",
        "--width",
        "64",
        "--height",
        "36",
        "--walkers",
        "20",
        "--walk-moves",
        "10",
        "--out",
        s(&out),
    ]);
    assert!(text.contains("vertical queries") && text.contains("line-of-sight rays"), "{text}");
    assert!(text.contains("crowd moves (controller)"), "{text}");
    assert!(out.join("demo.png").exists());
}

/// Off a terminal, each step of a long run ends with one line on standard error (every step when
/// `LANDFALL_PROGRESS_AFTER=0`; none of a short run by default: no noise).
#[test]
fn long_runs_report_each_step_off_a_terminal() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let run = |after: Option<&str>, args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_landfall"));
        c.args(args);
        if let Some(a) = after {
            c.env("LANDFALL_PROGRESS_AFTER", a);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    let world = ["world", "--inner-radius", "4", "--layers", "8", "--frames", "3", "--width", "32", "--height", "18"];
    let mut args = world.to_vec();
    args.extend(["--objects", "-o", s(&out)]);
    let e = run(Some("0"), &args);
    for step in
        ["placing the objects", "walk: 3 frames", "drive: 3 frames", "fly: 3 frames", "teleport: 3 frames", "rendering"]
    {
        assert!(e.contains(&format!("landfall: {step}")), "no line for {step}:\n{e}");
    }
    let demo = ["demo", "--size", "33", "--queries", "100", "--width", "16", "--height", "9", "--walkers", "2"];
    let mut args = demo.to_vec();
    args.extend(["--walk-moves", "2", "-o", s(&out)]);
    let e = run(Some("0"), &args);
    for step in ["generating the terrain", "vertical queries", "picking rays", "a crowd of walkers", "rendering"] {
        assert!(e.contains(&format!("landfall: {step}")), "no line for {step}:\n{e}");
    }
    assert!(!run(None, &args).contains("landfall: "), "a short run printed steps");
}

/// A polygon terrain as OBJ: a 2×1 floor of two quads at z = 0 with a hole (nothing at x > 20),
/// and a bridge deck at z = 10 over x in 5..15.
fn polygon_terrain(dir: &Path) -> PathBuf {
    let p = dir.join("p.obj");
    std::fs::write(
        &p,
        "v 0 0 0\nv 10 0 0\nv 20 0 0\nv 0 10 0\nv 10 10 0\nv 20 10 0\n\
         f 1 2 5 4\nf 2 3 6 5\n\
         v 5 2 10\nv 15 2 10\nv 15 8 10\nv 5 8 10\nf 8 7 10 9\n",
    )
    .unwrap();
    p
}

#[test]
fn polygon_terrains_and_their_index_files_follow_the_csv_contract() {
    let d = tempfile::tempdir().unwrap();
    let obj = polygon_terrain(d.path());
    let idx = d.path().join("p.lfq");
    let out = ok(&["build", s(&obj), "-o", s(&idx)]);
    assert!(out.contains("wrote") && out.contains("3 faces"), "{out}");
    let (input, o) = (d.path().join("q.csv"), d.path().join("o.csv"));
    for terrain in [&obj, &idx] {
        std::fs::write(&input, "x,y\n7,5\n2,5\n25,5\n").unwrap();
        ok(&["height", s(terrain), "--points", s(&input), "--out", s(&o)]);
        assert_eq!(rows(&o), ["x,y,z,nx,ny,nz", "7,5,10,0,0,1", "2,5,0,0,0,1", ",,,,,"]);
        std::fs::write(&input, "x,y,z\n7,5,9\n7,5,10\n7,5,-1\n").unwrap();
        ok(&["height", s(terrain), "--points", s(&input), "--out", s(&o)]);
        assert_eq!(rows(&o), ["x,y,z,nx,ny,nz", "7,5,0,0,0,1", "7,5,10,0,0,1", ",,,,,"]);
        std::fs::write(&input, "x,y\n7,5\n25,5\n2,5\n").unwrap();
        ok(&["height", s(terrain), "--points", s(&input), "--out", s(&o), "--all"]);
        assert_eq!(rows(&o), ["index,x,y,z,nx,ny,nz", "0,7,5,0,0,0,1", "0,7,5,10,0,0,1", "2,2,5,0,0,0,1"]);
        std::fs::write(
            &input,
            "ox,oy,oz,dx,dy,dz,max_t\n7,5,20,0,0,-1,\n7,5,5,0,0,-2,\n25,5,5,0,0,-1,\n7,5,5,0,0,1,4\n",
        )
        .unwrap();
        ok(&["raycast", s(terrain), "--rays", s(&input), "--out", s(&o)]);
        assert_eq!(
            rows(&o),
            ["hit,t,x,y,z,nx,ny,nz", "1,10,7,5,10,0,0,1", "1,2.5,7,5,0,0,0,1", "0,,,,,,,", "0,,,,,,,"]
        );
        let info = ok(&["info", s(terrain)]);
        assert!(info.contains("3 convex faces") && info.contains("expected"), "{info}");
    }
    // Gravity along −X: deck and floor are walls then, out of vertical queries, still hit by rays.
    std::fs::write(&input, "ox,oy,oz,dx,dy,dz\n7,5,20,0,0,-1\n").unwrap();
    ok(&["raycast", s(&obj), "--rays", s(&input), "--out", s(&o), "--gravity", "-1,0,0"]);
    let hit: Vec<f64> = rows(&o)[1].split(',').map(|v| v.parse().unwrap()).collect();
    assert!(hit[0] == 1.0 && (hit[1] - 10.0).abs() < 1e-9 && (hit[4] - 10.0).abs() < 1e-9, "{hit:?}");
    std::fs::write(&input, "x,y,z\n7,5,10\n").unwrap();
    ok(&["height", s(&obj), "--points", s(&input), "--out", s(&o), "--gravity", "-1,0,0"]);
    assert_eq!(rows(&o)[1], ",,,,,");
    // Options that do not apply are refused, naming them.
    assert!(fails(&["info", s(&obj), "--spacing", "2"]).contains("--spacing applies to rasters only"));
    assert!(fails(&["info", s(&idx), "--z-scale", "2"]).contains("--z-scale"));
    assert!(fails(&["info", s(&idx), "--gravity", "0,-1,0"]).contains("was built for gravity"));
    assert!(fails(&["info", s(&obj), "--max-polys", "0"]).contains("--max-polys"));
    // A raster builds too, and the index answers like the raster.
    let asc = terrain(d.path());
    let asc_idx = d.path().join("asc.lfq");
    ok(&["build", s(&asc), "-o", s(&asc_idx)]);
    std::fs::write(&input, "x,y\n1005,2000\n1012.5,2013\n1029,2019\n").unwrap();
    let o2 = d.path().join("o2.csv");
    ok(&["height", s(&asc), "--points", s(&input), "--out", s(&o)]);
    ok(&["height", s(&asc_idx), "--points", s(&input), "--out", s(&o2)]);
    let (a, b) = (rows(&o), rows(&o2));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b).skip(1) {
        let p = |r: &str| r.split(',').map(|v| v.parse::<f64>().unwrap_or(f64::NAN)).collect::<Vec<_>>();
        for (u, v) in p(x).iter().zip(p(y)) {
            assert!((u.is_nan() && v.is_nan()) || (u - v).abs() < 1e-9, "{x} vs {y}");
        }
    }
    // A corrupt index is refused.
    let mut bytes = std::fs::read(&idx).unwrap();
    let n = bytes.len();
    bytes[n - 100] ^= 0x40;
    std::fs::write(&idx, &bytes).unwrap();
    assert!(fails(&["info", s(&idx)]).contains("checksum"));
}

/// `landfall world` on a small cache (inner radius 4) with small pictures written to `out`, and
/// `args`; its standard output.
fn small_world(out: &Path, args: &[&str]) -> String {
    let mut a = vec!["world", "--inner-radius", "4", "--width", "48", "--height", "27", "--out", s(out)];
    a.extend_from_slice(args);
    ok(&a)
}

/// `world --objects`: the objects' table, no entity ever alive twice, both pictures.
#[test]
fn world_with_objects_reports_and_never_duplicates() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let text = small_world(&out, &["--objects", "--frames", "15", "--layers", "10"]);
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("objects")).skip(2).take(4).collect();
    assert_eq!(rows.len(), 4, "{text}");
    for r in rows {
        let duplicates: u64 = r.split_whitespace().last().unwrap().parse().unwrap();
        assert_eq!(duplicates, 0, "{r}");
    }
    assert!(text.contains("hall 40–100 m"), "{text}");
    assert!(out.join("world-layers.png").exists() && out.join("world-view.png").exists());
}

#[test]
fn world_flies_draws_and_exports() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let mesh = d.path().join("w.obj");
    let text = small_world(&out, &["--frames", "20", "--layers", "9", "--export", s(&mesh)]);
    for want in ["walk", "drive", "fly", "teleport", "cells/frame", "M cells generated per second"] {
        assert!(text.contains(want), "world output lacks {want:?}:\n{text}");
    }
    assert!(out.join("world-layers.png").exists() && out.join("world-view.png").exists());
    // The exported mesh loads as a polygon terrain.
    let info = ok(&["info", s(&mesh)]);
    assert!(info.contains("polygons"), "{info}");
    // Far from the origin too.
    let text = ok(&[
        "world",
        "--path",
        "drive",
        "--frames",
        "10",
        "--layers",
        "9",
        "--inner-radius",
        "4",
        "--east",
        "1e7",
        "--width",
        "16",
        "--height",
        "9",
        "--out",
        s(&out),
    ]);
    assert!(text.contains("drive"), "{text}");
    assert!(fails(&["world", "--hysteresis", "0.5", "--out", s(&out)]).contains("hysteresis"));
    assert!(fails(&[
        "world",
        "--export",
        s(&d.path().join("w.stl")),
        "--frames",
        "1",
        "--layers",
        "9",
        "--inner-radius",
        "4",
        "--out",
        s(&out)
    ])
    .contains(".stl"));
}

/// `proximity` against brute force over all pairs: 100,000 spheres of radii 1 cm … 100 m (five
/// billion pairs tested), some touching exactly, ids in any order (negative too); the contract's
/// header and order.
#[test]
fn proximity_equals_brute_force() {
    let d = tempfile::tempdir().unwrap();
    let (input, out) = (d.path().join("o.csv"), d.path().join("pairs.csv"));
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    // 20,000 spheres of 0.01–100 m over 1.8 km square: the brute force below tests 2·10⁸ pairs.
    let mut spheres = Vec::new();
    for k in 0..20_000i64 {
        let r = 10f64.powf(next() * 4.0 - 2.0);
        let (x, y, z) = (next() * 1800.0 - 900.0, next() * 1800.0 - 900.0, next() * 20.0);
        spheres.push((if k % 2 == 0 { k * 3 } else { -k * 7 - 1 }, x, y, z, r));
    }
    // Two that touch exactly, across the origin.
    spheres.push((1_000_001, -0.5, 0.0, 0.0, 0.5));
    spheres.push((1_000_000, 0.5, 0.0, 0.0, 0.5));
    let mut text = String::from("id,x,y,z,radius\n");
    for (id, x, y, z, r) in &spheres {
        text += &format!("{id},{x},{y},{z},{r}\n");
    }
    std::fs::write(&input, text).unwrap();
    ok(&["proximity", "--objects", s(&input), "--out", s(&out)]);
    let got = rows(&out);
    assert_eq!(got[0], "a,b");
    // Every pair, column by column (x, y, z, r apart, so the inner loop is plain arithmetic).
    let col = |f: fn(&(i64, f64, f64, f64, f64)) -> f64| spheres.iter().map(f).collect::<Vec<f64>>();
    let (xs, ys, zs, rs) = (col(|s| s.1), col(|s| s.2), col(|s| s.3), col(|s| s.4));
    let mut want = Vec::new();
    for a in 0..spheres.len() {
        for b in a + 1..spheres.len() {
            let (dx, dy, dz, r) = (xs[a] - xs[b], ys[a] - ys[b], zs[a] - zs[b], rs[a] + rs[b]);
            if dx * dx + dy * dy + dz * dz <= r * r {
                want.push((spheres[a].0.min(spheres[b].0), spheres[a].0.max(spheres[b].0)));
            }
        }
    }
    want.sort_unstable();
    assert!(want.len() > 10_000, "{} pairs", want.len());
    assert!(want.contains(&(1_000_000, 1_000_001)));
    let got: Vec<(i64, i64)> = got[1..]
        .iter()
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    assert_eq!(got, want);
}

/// Ids beyond i64: every u64 (hashes) and i64 id, ordered by value.
#[test]
fn proximity_takes_ids_of_every_64_bit_integer() {
    let d = tempfile::tempdir().unwrap();
    let (input, out) = (d.path().join("o.csv"), d.path().join("pairs.csv"));
    let text = "id,x,y,z,radius\n18446744073709551615,0,0,0,1\n-9223372036854775808,1.5,0,0,1\n\
                +0007,3,0,0,1\n9223372036854775808,50,0,0,1\n";
    std::fs::write(&input, text).unwrap();
    ok(&["proximity", "--objects", s(&input), "--out", s(&out)]);
    assert_eq!(
        rows(&out),
        ["a,b", "-9223372036854775808,7", "-9223372036854775808,18446744073709551615"].map(String::from)
    );
    std::fs::write(&input, "id,x,y,z,radius\n1,0,0,0,1\n340282366920938463463374607431768211456,0,0,0,1\n").unwrap();
    assert!(fails(&["proximity", "--objects", s(&input), "--out", s(&out)]).contains("line 3: field 'id'"));
}

#[test]
fn proximity_bad_input_names_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    let (input, out) = (d.path().join("o.csv"), d.path().join("pairs.csv"));
    for (text, says) in [
        ("id,x,y,z,radius\n1,0,0,0,1\n2,0,0,0,-1\n", "line 3: field 'radius'"),
        ("id,x,y,z,radius\n1,0,0,0,1\n\n1,5,0,0,1\n", "line 4: field 'id': 1 is also the id on line 2"),
        ("id,x,y,z,radius\n1.5,0,0,0,1\n", "line 2: field 'id'"),
        ("id,x,y,z,radius\n1,nan,0,0,1\n", "line 2: field 'x'"),
        ("id,x,y,radius\n1,0,0,1\n", "missing column 'z'"),
        ("id,x,y,z,radius\n1,1e300,0,0,1\n", "line 2: "),
    ] {
        std::fs::write(&input, text).unwrap();
        std::fs::write(&out, "old").unwrap();
        let e = fails(&["proximity", "--objects", s(&input), "--out", s(&out)]);
        assert!(e.contains(says), "{text:?}: {e}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old", "the old output stays");
    }
}

/// `events line`: the collisions of a small case worked by hand, wall codes, the final state, and
/// events at exactly T.
#[test]
fn events_line_lists_collisions_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out, fin) = (dir.path().join("b.csv"), dir.path().join("e.csv"), dir.path().join("f.csv"));
    // Row 0 at 1 moving right meets row 1 (mass 2) at t = 0.5; row 2 sits still on the left.
    std::fs::write(&input, "x,v,r,m\n1,1,0.5,1\n3,-1,0.5,2\n-2,0,0.25,1\n").unwrap();
    ok(&[
        "events",
        "line",
        "--balls",
        s(&input),
        "--walls",
        "-5,5",
        "--until",
        "8",
        "--out",
        s(&out),
        "--final",
        s(&fin),
    ]);
    let r = rows(&out);
    assert_eq!(r[0], "t,a,b");
    let ev: Vec<(f64, i64, i64)> = r[1..]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    // After 0.5: v0 = −5/3, v1 = 1/3. Row 0 meets row 2 (at −2, r 0.25) when its left edge, at
    // 1 − (5/3)(t − 0.5), reaches −1.75: t = 0.5 + 2.75·3/5 = 2.15.
    let want = [(0.5, 0, 1), (2.15, 0, 2)];
    for (g, w) in ev.iter().zip(&want) {
        assert!((g.0 - w.0).abs() < 1e-12 && (g.1, g.2) == (w.1, w.2), "{g:?} vs {w:?}");
    }
    assert!(ev.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
    assert!(ev.iter().all(|e| e.0 <= 8.0 && (e.2 == -1 || e.2 == -2 || e.1 < e.2)));
    assert!(ev.iter().any(|e| e.2 == -1) && ev.iter().any(|e| e.2 == -2), "both walls are hit");
    let f = rows(&fin);
    assert_eq!(f[0], "x,v");
    assert_eq!(f.len(), 4);
    // Momentum changes only at the walls, energy never.
    let st: Vec<(f64, f64)> = f[1..]
        .iter()
        .map(|l| {
            let (x, v) = l.split_once(',').unwrap();
            (x.parse().unwrap(), v.parse().unwrap())
        })
        .collect();
    let m = [1.0, 2.0, 1.0];
    let energy: f64 = st.iter().zip(m).map(|((_, v), m)| 0.5 * m * v * v).sum();
    assert!((energy - 1.5).abs() < 1e-12, "energy {energy}");
    assert!(st.iter().all(|(x, _)| (-5.0..=5.0).contains(x)));

    // A ball reaching a wall at exactly T is listed.
    std::fs::write(&input, "x,v,r,m\n0,1,1,1\n").unwrap();
    ok(&["events", "line", "--balls", s(&input), "--walls", "-5,5", "--until", "4", "--out", s(&out)]);
    assert_eq!(rows(&out), ["t,a,b", "4,0,-2"]);
    // Touching balls at rest: nothing happens.
    std::fs::write(&input, "x,v,r,m\n0,0,1,1\n2,0,1,1\n").unwrap();
    ok(&["events", "line", "--balls", s(&input), "--walls", "-1,3", "--until", "100", "--out", s(&out)]);
    assert_eq!(rows(&out), ["t,a,b"]);
}

#[test]
fn events_line_bad_input_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("b.csv"), dir.path().join("e.csv"));
    std::fs::write(&out, "keep me").unwrap();
    let cases: [(&str, &str); 6] = [
        ("x,v,r,m\n0,0,1,1\n1.5,0,1,1\n", "lines 2 and 3"),
        ("x,v,r,m\n0,0,1,1\n4.5,0,1,1\n", "line 3"),
        ("x,v,r,m\n0,0,1,1\n2,0,-1,1\n", "line 3: field 'r'"),
        ("x,v,r,m\n0,0,1,1\n\n3,x,0.5,1\n", "line 4: field 'v'"),
        ("x,v,r,m\n0,0,1,0\n", "line 2: field 'm'"),
        ("x,v,r\n0,0,1\n", "missing column 'm'"),
    ];
    for (text, named) in cases {
        std::fs::write(&input, text).unwrap();
        let e = fails(&["events", "line", "--balls", s(&input), "--walls", "-5,5", "--until", "1", "--out", s(&out)]);
        assert!(e.contains(named), "{text:?}: {e}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    }
    std::fs::write(&input, "x,v,r,m\n0,0,1,1\n").unwrap();
    for (walls, until) in [("5,-5", "1"), ("1", "1"), ("-5,5", "-1"), ("-5,5", "nan")] {
        fails(&["events", "line", "--balls", s(&input), "--walls", walls, "--until", until, "--out", s(&out)]);
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
}

/// `viewshed`: a GeoTIFF of the raster's size and placement, 1/0/255 with the nodata tag, that
/// landfall (and GDAL, when installed) reads back; cumulative counts; bad input named.
#[test]
fn viewshed_writes_a_georeferenced_geotiff() {
    let dir = tempfile::tempdir().unwrap();
    // A 5×3 grid with a wall in column 2, 10 m cells, south-west sample at (1000, 2000).
    let dem = dir.path().join("dem.asc");
    std::fs::write(
        &dem,
        "ncols 5\nnrows 3\nxllcenter 1000\nyllcenter 2000\ncellsize 10\nNODATA_value -9999\n\
         0 0 50 0 -9999\n0 0 50 0 0\n0 0 50 0 0\n",
    )
    .unwrap();
    let out = dir.path().join("v.tif");
    let png = dir.path().join("v.png");
    ok(&["viewshed", s(&dem), "--observer", "1000,2010", "--out", s(&out), "--png", s(&png)]);
    let r = landfall_io::read_raster(&out).unwrap();
    assert_eq!((r.nx, r.ny), (5, 3));
    assert_eq!(r.georef, Some(landfall_io::GeoRef { origin: (1000.0, 2000.0), spacing: (10.0, 10.0) }));
    // Row 0 south. The wall (column 2) is seen, the ground behind it not; the hole is nodata.
    let v = |i: usize, j: usize| r.values[j * 5 + i];
    assert_eq!([v(0, 1), v(1, 1), v(2, 1), v(3, 1), v(4, 1)], [1.0, 1.0, 1.0, 0.0, 0.0]);
    assert!(v(4, 2).is_nan(), "the hole is nodata (255)");
    // The preview: at least 1024 pixels on its long side, whatever the raster's size.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let info = decoder.read_info().unwrap();
    let (w, h) = (info.info().width, info.info().height);
    assert!(w.max(h) >= 1024, "{w} × {h}");
    // Beyond --max-distance: nodata.
    ok(&["viewshed", s(&dem), "--observer", "1000,2010", "--max-distance", "15", "--out", s(&out)]);
    let r = landfall_io::read_raster(&out).unwrap();
    assert!(r.values[5 + 2].is_nan() && r.values[5 + 1] == 1.0);
    if common::skip::tool(&["gdalinfo"], "apt-get install gdal-bin").is_some() {
        let info = std::process::Command::new("gdalinfo").arg(&out).output().unwrap();
        let text = String::from_utf8_lossy(&info.stdout);
        assert!(text.contains("Size is 5, 3"), "{text}");
        assert!(text.contains("Origin = (995.000000000000000,2025.000000000000000)"), "{text}");
        assert!(text.contains("NoData Value=255"), "{text}");
    }
    // Cumulative: two observers; the east one sees the east side.
    let obs = dir.path().join("obs.csv");
    std::fs::write(&obs, "x,y,h\n1000,2010,1.75\n1030,2010,1.75\n").unwrap();
    ok(&["viewshed", s(&dem), "--observers", s(&obs), "--out", s(&out)]);
    let r = landfall_io::read_raster(&out).unwrap();
    assert_eq!(r.values[5 + 2], 2.0, "both see the wall");
    assert_eq!(r.values[5], 1.0);
    assert_eq!(r.values[5 + 3], 1.0);
    // Bad input.
    for (args, named) in [
        (vec!["--observer", "5000,5000"], "outside"),
        (vec!["--observer", "1040,2020"], "hole"),
        (vec!["--observer", "1000"], "--observer"),
        (vec!["--observer", "1000,2010", "--observer-height", "-1"], "--observer-height"),
        (vec!["--observer", "1000,2010", "--low-pitch", "10", "--high-pitch", "-10"], "--low-pitch/--high-pitch"),
        (
            vec!["--observer", "1000,2010", "--start-angle", "10"],
            "--start-angle/--end-angle: --start-angle and --end-angle go together (--start-angle 10 given alone)",
        ),
        (vec!["--observer", "1000,2010", "--end-angle", "20"], "--start-angle/--end-angle"),
        (vec!["--observer", "1000,2010", "--start-angle", "NaN", "--end-angle", "20"], "--start-angle/--end-angle"),
    ] {
        let mut a = vec!["viewshed", s(&dem)];
        a.extend(args);
        a.extend(["--out", s(&out)]);
        let e = fails(&a);
        assert!(e.contains(named), "{a:?}: {e}");
        if named == "outside" || named == "hole" {
            assert!(e.contains("the terrain covers x 1000 … 1040, y 2000 … 2020"), "{e}");
        }
    }
    std::fs::write(&obs, "x,y\n1000,2010\n9000,2010\n").unwrap();
    let e = fails(&["viewshed", s(&dem), "--observers", s(&obs), "--out", s(&out)]);
    assert!(e.contains("line 3") && e.contains("x 1000 … 1040"), "{e}");
    // Degrees taken for metres (no CRS): noted, as every command notes it on opening.
    let hill = dir.path().join("hill.asc");
    std::fs::write(&hill, "ncols 3\nnrows 3\nxllcenter 10\nyllcenter 46\ncellsize 0.01\n5 900 2000\n5 5 5\n5 5 5\n")
        .unwrap();
    let o = common::landfall(&["viewshed", s(&hill), "--observer", "10,46", "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("hill.asc: the heights span 1995 units"), "{err}");
    // An `x,y,z` export: its z is not an eye height, so it is refused, not ignored.
    std::fs::write(&obs, "x,y,z\n1000,2010,55\n").unwrap();
    let e = fails(&["viewshed", s(&dem), "--observers", s(&obs), "--out", s(&out)]);
    assert!(e.contains("line 1") && e.contains("column 'z'") && e.contains("(x,y,h)"), "{e}");
    // Counts stop at 65,534 (u16, 65,535 nodata): said when they do.
    let mut many = String::from("x,y\n");
    (0..65_600).for_each(|_| many.push_str("1000,2010\n"));
    std::fs::write(&obs, many).unwrap();
    let o = common::landfall(&["viewshed", s(&dem), "--observers", s(&obs), "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("65,534 observers or more"), "{err}");
}

/// `viewshed` on a raster in degrees: the Earth's shape (issue 67's masts at sea: two eyes 10 m
/// above a sea-level 1° tile see each other at 20 km, not at 30 km), observers at lon,lat, the
/// output on the input's grid with its CRS; an observer off the tile is named by its line.
#[test]
fn viewshed_in_degrees_follows_the_earth() {
    let dir = tempfile::tempdir().unwrap();
    let dem = dir.path().join("sea.tif");
    let geo = landfall_io::GeoRef { origin: (10.0, 45.0), spacing: (0.01, 0.01) };
    let keys = landfall_io::GeoKeys::wgs84();
    let flat = vec![0.0f32; 101 * 101];
    landfall_io::write_geotiff(&dem, 101, 101, landfall_io::Band::F32(&flat), &geo, None, Some(&keys)).unwrap();
    let out = dir.path().join("v.tif");
    // 0.01° of longitude at 45.5° N is 781 m: 26 columns ≈ 20.3 km, 38 ≈ 29.7 km.
    let args = ["--observer", "10.2,45.5", "--observer-height", "10", "--target-height", "10", "--out", s(&out)];
    let mut a = vec!["viewshed", s(&dem)];
    a.extend(args);
    ok(&a);
    let r = landfall_io::read_raster(&out).unwrap();
    assert_eq!((r.nx, r.ny, r.georef), (101, 101, Some(geo)));
    assert!(r.geokeys.is_some_and(|k| k.is_geographic()), "the output keeps the CRS");
    assert_eq!((r.values[50 * 101 + 46], r.values[50 * 101 + 58]), (1.0, 0.0));
    // The least target height 29.7 km away: ≈ 17.6 m with refraction 1/7 (the horizon, not zero).
    ok(&[
        "viewshed",
        s(&dem),
        "--observer",
        "10.2,45.5",
        "--observer-height",
        "10",
        "--mode",
        "ground",
        "--out",
        s(&out),
    ]);
    let need = landfall_io::read_raster(&out).unwrap().values[50 * 101 + 58];
    assert!((10.0..30.0).contains(&need), "{need}");
    let obs = dir.path().join("obs.csv");
    std::fs::write(&obs, "x,y\n10.2,45.5\n12.0,45.5\n").unwrap();
    let e = fails(&["viewshed", s(&dem), "--observers", s(&obs), "--out", s(&out)]);
    assert!(e.contains("line 3") && e.contains("outside"), "{e}");
}

/// `events terrain`: balls thrown over a raster bounce and rest; the table and the picture.
#[test]
fn events_terrain_runs_and_draws() {
    let dir = tempfile::tempdir().unwrap();
    let dem = dir.path().join("hill.asc");
    let n = 40;
    let mut text = format!("ncols {n}\nnrows {n}\nxllcorner 0\nyllcorner 0\ncellsize 10\n");
    for j in 0..n {
        let row: Vec<String> = (0..n)
            .map(|i| {
                let (x, y) = (i as f64 - 20.0, j as f64 - 20.0);
                format!("{:.3}", 30.0 * (-(x * x + y * y) / 200.0).exp())
            })
            .collect();
        text += &row.join(" ");
        text += "\n";
    }
    std::fs::write(&dem, text).unwrap();
    let png = dir.path().join("e.png");
    let out = ok(&["events", "terrain", s(&dem), "--balls", "60", "--until", "8", "--png", s(&png)]);
    assert!(out.contains("60 balls"), "{out}");
    for row in ["ground", "ball–ball", "at rest", "energy"] {
        assert!(out.contains(row), "{row}: {out}");
    }
    let ground: u64 = out
        .lines()
        .find(|l| l.trim_start().starts_with("ground"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(ground > 60, "{out}");
    assert!(png.exists());
    // The level of detail of behaviour beside the full simulation.
    let out =
        ok(&["events", "terrain", s(&dem), "--balls", "60", "--until", "4", "--png", s(&png), "--png-size", "64,40"]);
    let out_lod = ok(&[
        "events",
        "terrain",
        s(&dem),
        "--balls",
        "60",
        "--until",
        "4",
        "--png",
        s(&png),
        "--png-size",
        "64,40",
        "--viewer",
        "100,100",
        "--range",
        "50",
    ]);
    assert!(out_lod.contains("level of detail") && out_lod.contains("% saved"), "{out_lod}");
    let events = |o: &str| -> u64 {
        o.lines().find(|l| l.starts_with("events")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let full: u64 = out_lod
        .lines()
        .find(|l| l.contains("in the full simulation"))
        .unwrap()
        .split_whitespace()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(full, events(&out), "{out_lod}");
    assert!(events(&out_lod) <= full, "{out_lod}");
    // The procedural world as the terrain.
    let out =
        ok(&["events", "terrain", "world", "--balls", "30", "--until", "3", "--png", s(&png), "--png-size", "64,40"]);
    assert!(out.contains("30 balls") && events(&out) > 0, "{out}");
    // A walk over it: the cache follows the viewer, and the balls under changed ground are looked at.
    let walk = [
        "events",
        "terrain",
        "world",
        "--balls",
        "40",
        "--until",
        "6",
        "--walk",
        "20,0",
        "--viewer",
        "-60,0",
        "--range",
        "30",
        "--png",
        s(&png),
        "--png-size",
        "64,40",
    ];
    let out = ok(&walk);
    let walked = out.lines().find(|l| l.trim_start().starts_with("under balls")).unwrap_or_else(|| panic!("{out}"));
    let looked: u64 = walked.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(looked > 0 && out.contains("cache updates changed the ground"), "{out}");
    let m = fails(&["events", "terrain", "world", "--walk", "1,0", "--until", "601", "--png", s(&png)]);
    assert!(m.contains("--until") && m.contains("600"), "{m}");
    let m = fails(&["events", "terrain", "world", "--walk", "1e300,0", "--until", "1", "--png", s(&png)]);
    assert!(m.contains("--walk: the viewer at t = ") && m.contains("must be within"), "{m}");
    for (bad, option) in [
        (vec!["--walk", "1,0"], "--walk: only over TERRAIN `world`"),
        (vec!["--until", "0"], "--until"),
        (vec!["--restitution", "2"], "--restitution: 2 is not a fraction in [0, 1]"),
        (vec!["--restitution", "NaN"], "--restitution"),
        (vec!["--rest-speed=-1"], "--rest-speed: -1 is not a finite length"),
        (vec!["--rest-speed", "inf"], "--rest-speed"),
        (vec!["--balls", "0"], "--balls"),
        (vec!["--viewer", "1,1"], "--range"),
        (vec!["--viewer", "1,1", "--range=-1"], "--range: -1 is not a distance"),
        (vec!["--viewer", "1,1", "--range", "NaN"], "--range"),
        (vec!["--png-size", "10,10000"], "--png-size"),
    ] {
        let mut a = vec!["events", "terrain", s(&dem)];
        a.extend(bad.iter().copied());
        let m = fails(&a);
        assert!(m.contains(option), "{bad:?}: {m}");
    }
}

/// A raster in degrees, a directory or a list of tiles builds only a heightfield index: `-o X.lfq`
/// is refused, naming the `.lfh` to write instead, and nothing is written.
#[test]
fn build_names_the_heightfield_index_where_a_polygon_index_cannot_serve() {
    let d = tempfile::tempdir().unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let out = d.path().join("topo.lfq");
    let e = fails(&["build", s(&data.join("topobathy.npz")), "-o", s(&out)]);
    assert!(e.contains("topobathy.npz: a raster in degrees") && e.contains("-o topo.lfh"), "{e}");
    let list = d.path().join("tiles.txt");
    std::fs::write(&list, "a.tif\n").unwrap();
    let e = fails(&["build", s(&list), "-o", s(&out)]);
    assert!(e.contains("tiles.txt: a directory or a list of tiles") && e.contains("-o topo.lfh"), "{e}");
    let e = fails(&["build", s(d.path()), "-o", s(&out)]);
    assert!(e.contains("a directory or a list of tiles"), "{e}");
    assert!(!out.exists());
}

/// `build -o X.lfh` streams a GeoTIFF into a heightfield index: memory stays far below the
/// raster's size, every command reads the index, and the answers are the raster's, byte for byte.
#[test]
fn build_streams_a_heightfield_index_that_every_command_reads() {
    use tiff::encoder::colortype::Gray32Float;
    use tiff::tags::Tag;
    let d = tempfile::tempdir().unwrap();
    let tif = d.path().join("big.tif");
    // 4096 × 3000 samples, 47 MiB of f32, in strips of 16 rows.
    let (nx, ny) = (4096u32, 3000u32);
    let v: Vec<f32> = (0..nx * ny)
        .map(|k| {
            let (i, j) = ((k % nx) as f32, (k / nx) as f32);
            50.0 * (i / 97.0).sin() * (j / 61.0).cos() + 0.01 * ((k as u64 * 7919) % 1000) as f32
        })
        .collect();
    let mut enc = tiff::encoder::TiffEncoder::new(std::fs::File::create(&tif).unwrap()).unwrap();
    let mut img = enc.new_image::<Gray32Float>(nx, ny).unwrap();
    img.rows_per_strip(16).unwrap();
    img.encoder().write_tag(Tag::ModelPixelScaleTag, &[2.0f64, 2.0, 0.0][..]).unwrap();
    img.encoder().write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 1000.0, 9000.0, 0.0][..]).unwrap();
    img.write_data(&v).unwrap();
    drop(v);
    let lfh = d.path().join("big.lfh");
    let out = ok(&["build", s(&tif), "-o", s(&lfh)]);
    assert!(out.contains("streamed") && out.contains("4096 × 3000"), "{out}");
    let peak: f64 = out.split("peak memory ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
    assert!(peak < 40.0, "peak memory {peak} MiB for a 47 MiB raster: {out}");
    let info = ok(&["info", s(&lfh)]);
    assert!(info.contains("heightfield index file") && info.contains("mapped"), "{info}");
    // The same answers from the index as from the raster.
    let pts = d.path().join("p.csv");
    let mut text = String::from("x,y\n");
    for k in 0..500 {
        text += &format!("{},{}\n", 1000.0 + (k as f64 * 16.37) % 8192.0, 3000.0 + (k as f64 * 11.93) % 6000.0);
    }
    std::fs::write(&pts, text).unwrap();
    let (a, b) = (d.path().join("a.csv"), d.path().join("b.csv"));
    ok(&["height", s(&tif), "--points", s(&pts), "--out", s(&a)]);
    ok(&["height", s(&lfh), "--points", s(&pts), "--out", s(&b)]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // --cache-mb: the same answers, with little of the 47 MiB map kept in the process. The peak
    // each run prints, against one run with a single point (the program alone) and one whose
    // budget never binds (the whole map touched).
    let many = d.path().join("many.csv");
    let mut text = String::from("x,y\n");
    for k in 0..30000 {
        text += &format!("{},{}\n", 1000.0 + (k as f64 * 7.37) % 8190.0, 3000.0 + (k as f64 * 0.1993) % 5998.0);
    }
    std::fs::write(&many, text).unwrap();
    let one = d.path().join("one.csv");
    std::fs::write(&one, "x,y\n5000,5000\n").unwrap();
    let peak = |pts: &Path, mb: &str, out: &Path| -> f64 {
        let o = common::landfall(&["height", s(&lfh), "--points", s(pts), "--out", s(out), "--cache-mb", mb]);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{err}");
        err.split("peak resident memory ").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap()
    };
    let (c1, c2, c3) = (d.path().join("c1.csv"), d.path().join("c2.csv"), d.path().join("c3.csv"));
    let alone = peak(&one, "2", &c1);
    let bounded = peak(&many, "4", &c2);
    let unbounded = peak(&many, "100000", &c3);
    eprintln!("--cache-mb peaks: alone {alone}, bounded {bounded}, unbounded {unbounded} MiB");
    assert_eq!(std::fs::read(&c2).unwrap(), std::fs::read(&c3).unwrap());
    assert!(unbounded - alone > 30.0, "the queries touch the whole map: {alone} → {unbounded} MiB");
    assert!(bounded - alone < 12.0, "--cache-mb 4: {alone} → {bounded} MiB");
    assert!(fails(&["height", s(&lfh), "--points", s(&one), "--out", s(&c1), "--cache-mb", "0"]).contains("--cache-mb"));
    // The viewshed of the index is the raster's, byte for byte.
    let (va, vb) = (d.path().join("va.tif"), d.path().join("vb.tif"));
    ok(&["viewshed", s(&tif), "--observer", "5000,5000", "--max-distance", "1500", "--out", s(&va)]);
    ok(&["viewshed", s(&lfh), "--observer", "5000,5000", "--max-distance", "1500", "--out", s(&vb)]);
    assert_eq!(std::fs::read(&va).unwrap(), std::fs::read(&vb).unwrap());
    // A coloured mesh of the index.
    let glb = d.path().join("m.glb");
    let crop = d.path().join("crop.asc");
    std::fs::write(&crop, "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n").unwrap();
    let m = ok(&["mesh", s(&crop), "-o", s(&glb)]);
    assert!(m.contains("4 triangles") && m.contains("normals and colours"), "{m}");
    assert!(fails(&["mesh", s(&crop), "-o", s(&d.path().join("m.stl"))]).contains("use .glb or .obj"));
    // Placement options cannot change a built index; an index is not rebuilt.
    assert!(fails(&["height", s(&lfh), "--z-scale", "2", "--points", s(&pts), "--out", s(&b)]).contains("z-scale"));
    assert!(fails(&["build", s(&lfh), "-o", s(&d.path().join("c.lfh"))]).contains("already an index"));
}

/// A heightfield index keeps its GeoTIFF's CRS: `info` names it, and a viewshed of the index is the
/// same GeoTIFF, CRS included, as the viewshed of the raster.
#[test]
fn an_index_keeps_the_crs_of_its_geotiff() {
    use landfall_io::{write_geotiff, Band, GeoKeys, GeoRef};
    let d = tempfile::tempdir().unwrap();
    let tif = d.path().join("utm.tif");
    let keys = GeoKeys { directory: vec![1, 1, 0, 2, 1024, 0, 1, 1, 3072, 0, 1, 32610], ..GeoKeys::default() };
    let v: Vec<f32> = (0..60 * 50).map(|k| ((k % 60) as f32 * 0.3).sin() * 20.0 + (k / 60) as f32).collect();
    let geo = GeoRef { origin: (500000.0, 4000000.0), spacing: (10.0, 10.0) };
    write_geotiff(&tif, 60, 50, Band::F32(&v), &geo, None, Some(&keys)).unwrap();
    let lfh = d.path().join("utm.lfh");
    ok(&["build", s(&tif), "-o", s(&lfh)]);
    for t in [&tif, &lfh] {
        let info = ok(&["info", s(t)]);
        assert!(info.contains("EPSG:32610"), "{info}");
    }
    let (a, b) = (d.path().join("a.tif"), d.path().join("b.tif"));
    ok(&["viewshed", s(&tif), "--observer", "500200,4000150", "--out", s(&a)]);
    ok(&["viewshed", s(&lfh), "--observer", "500200,4000150", "--out", s(&b)]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}
