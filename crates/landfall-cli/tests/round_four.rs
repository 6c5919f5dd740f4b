//! Hostile input, round four: GDAL's float32 nodata written to six digits, a mesh of nothing
//! refused, and the world's flags named in their errors, negative values included.

use crate::common;

use common::{ok, refused, s};
use std::path::Path;

/// A float32 DEM whose nodata GDAL wrote as "-3.40282e+38": the samples at −f32::MAX are holes.
#[test]
fn nodata_near_the_largest_float_matches_it() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("fmax.asc");
    let head = "ncols 3\nnrows 2\nxllcenter 0\nyllcenter 0\ncellsize 1\nNODATA_value -3.40282e+38\n";
    std::fs::write(&t, format!("{head}1 2 -3.4028234663852886e+38\n4 5 6\n")).unwrap();
    let said = ok(&["info", s(&t)]);
    assert!(said.contains("1 nodata samples"), "{said}");
    assert!(said.contains("height       1 … 6"), "{said}");
}

#[test]
fn a_mesh_of_nodata_alone_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("none.asc");
    let rows = "-9999 -9999 5\n-9999 -9999 -9999\n";
    std::fs::write(&t, format!("ncols 3\nnrows 2\nxllcenter 0\nyllcenter 0\ncellsize 1\nNODATA_value -9999\n{rows}"))
        .unwrap();
    let out = d.path().join("none.glb");
    let e = refused(&["mesh", s(&t), "-o", s(&out)]);
    assert!(e.contains("none.asc") && e.contains("no triangle"), "{e}");
    assert!(!out.exists());
}

/// Negative and absurd values reach the checks that name the flag (not a bare parser error).
#[test]
fn world_path_names_its_flags() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("p.csv");
    let path = |extra: &[&str]| {
        let mut a = vec!["world", "path", "--from", "0,0", "--to", "10,0", "-o", s(&o)];
        a.extend_from_slice(extra);
        refused(&a)
    };
    for (flag, v) in [("--radius", "-1"), ("--max-slope", "-5"), ("--step", "-1")] {
        let e = path(&[flag, v]);
        assert!(e.contains(flag) && !e.contains("unexpected argument"), "{flag} {v}: {e}");
    }
    let e = path(&["--slope-step", "1e-300"]);
    assert!(e.contains("--slope-step") && e.contains("slope cells of 2.384e-7 m"), "{e}");
    assert!(!o.exists());
}

#[test]
fn world_names_its_flags() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("w");
    for (flag, v) in [
        ("--layers", "1"),
        ("--layers", "0"),
        ("--layers", "200"),
        ("--inner-radius", "0"),
        ("--cell-size", "0"),
        ("--hysteresis", "-1"),
        ("--hysteresis", "1"),
    ] {
        let e = refused(&["world", "--frames", "1", "--path", "walk", "-o", s(&out), flag, v]);
        let internal = ["`levels`", "`layers`", "inner_radius", "cell_size", "parameter"];
        assert!(e.contains(flag) && !internal.iter().any(|w| e.contains(w)), "{flag} {v}: {e}");
    }
}

/// Huge and tiny cells are printed in exponent form, not as 301 digits or as 0.
#[test]
fn info_prints_extreme_spacings_in_exponent_form() {
    let d = tempfile::tempdir().unwrap();
    for (cell, want) in [("1e300", "spacing      1e300 × 1e300"), ("1e-300", "bounds x     0 … 2e-300")] {
        let t = d.path().join("t.asc");
        std::fs::write(&t, format!("ncols 3\nnrows 2\nxllcenter 0\nyllcenter 0\ncellsize {cell}\n1 2 3\n4 5 6\n"))
            .unwrap();
        let said = ok(&["info", s(&t)]);
        assert!(said.contains(want) && said.lines().all(|l| l.len() < 200), "{said}");
    }
}

/// A leaf size beyond any grid is refused by name (it overflowed the tiling and the sweep).
#[test]
fn a_huge_leaf_size_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.asc");
    std::fs::write(&t, "ncols 3\nnrows 2\nxllcenter 0\nyllcenter 0\ncellsize 1\n1 2 3\n4 5 6\n").unwrap();
    let (lfh, vis) = (d.path().join("t.lfh"), d.path().join("v.tif"));
    for big in ["65537", "9223372036854775808"] {
        assert!(refused(&["build", s(&t), "-o", s(&lfh), "--leaf-size", big]).contains("--leaf-size"));
        let e = refused(&["viewshed", s(&t), "--observer", "1,0.5", "-o", s(&vis), "--leaf-size", big]);
        assert!(e.contains("--leaf-size"), "{e}");
    }
    assert!(!lfh.exists() && !vis.exists());
}

/// A mosaic keeps each tile open: `landfall` raises its soft limit on open files to the hard one, so
/// 300 tiles build under a soft limit of 256 (1,050 failed under the usual 1,024).
#[test]
fn a_mosaic_of_more_tiles_than_the_soft_file_limit_builds() {
    let d = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for k in 0..300 {
        let name = format!("t{k}.tif");
        let geo = landfall_io::GeoRef { origin: ((k % 20) as f64 * 3.0, (k / 20) as f64 * 3.0), spacing: (1.0, 1.0) };
        let band = landfall_io::Band::F32(&[5.0; 16]);
        landfall_io::write_geotiff(&d.path().join(&name), 4, 4, band, &geo, None, None).unwrap();
        names.push(name);
    }
    std::fs::write(d.path().join("list.txt"), names.join("\n")).unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -Sn 256 && exec '{}' build list.txt -o m.lfh", env!("CARGO_BIN_EXE_landfall")))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("61 × 46 samples"), "{}", String::from_utf8_lossy(&o.stdout));
}

/// A viewshed's outputs are named for what they hold (a TIFF named .png was written before), and
/// `-` is not taken for a file.
#[test]
fn outputs_are_named_for_what_they_hold() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.asc");
    std::fs::write(&t, "ncols 3\nnrows 2\nxllcenter 0\nyllcenter 0\ncellsize 1\n1 2 3\n4 5 6\n").unwrap();
    let (png, tif) = (d.path().join("v.png"), d.path().join("v.tif"));
    let e = refused(&["viewshed", s(&t), "--observer", "1,0.5", "-o", s(&png)]);
    assert!(e.contains("--out") && e.contains(".tif"), "{e}");
    let e = refused(&["viewshed", s(&t), "--observer", "1,0.5", "-o", s(&tif), "--png", s(&d.path().join("v.jpg"))]);
    assert!(e.contains("--png") && e.contains(".png"), "{e}");
    let e = refused(&["viewshed", s(&t), "--observer", "1,0.5", "-o", s(&tif), "--start-angle", "10"]);
    assert!(e.contains("--start-angle 10 given alone"), "{e}");
    let pts = d.path().join("p.csv");
    std::fs::write(&pts, "x,y\n1,0.5\n").unwrap();
    let e = refused(&["height", s(&t), "--points", s(&pts), "-o", "-"]);
    assert!(e.contains("standard output"), "{e}");
    assert!(!png.exists() && !tif.exists() && !Path::new("-").exists());
}

/// Fewer frames than stills is said as such (it was "a still and a still name the same file").
#[test]
fn behave_names_too_many_stills() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("bd");
    let e = refused(&["behave", "dance", "--seconds", "0.1", "-o", s(&out)]);
    assert!(e.contains("--stills") && e.contains("at most one a frame"), "{e}");
}

/// An id past i128 is said to be out of range, not "not an integer".
#[test]
fn an_id_beyond_i128_is_out_of_range() {
    let d = tempfile::tempdir().unwrap();
    let (objects, out) = (d.path().join("o.csv"), d.path().join("pairs.csv"));
    std::fs::write(&objects, "id,x,y,z,radius\n1,0,0,0,1\n170141183460469231731687303715884105728,1,0,0,1\n").unwrap();
    let e = refused(&["proximity", "--objects", s(&objects), "-o", s(&out)]);
    assert!(e.contains("line 3") && e.contains("beyond ±2¹²⁷"), "{e}");
}

/// `--points -` reads the CSV from standard input, as Unix tools do: the same answer as the file.
#[test]
fn points_from_standard_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let d = tempfile::tempdir().unwrap();
    let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/volcano.asc");
    let csv = "x,y\n100,200\n400.5,300.25\n-5,1\n";
    let file = d.path().join("p.csv");
    std::fs::write(&file, csv).unwrap();
    let (a, b) = (d.path().join("a.csv"), d.path().join("b.csv"));
    ok(&["height", s(&dem), "--points", s(&file), "--out", s(&a)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_landfall"))
        .args(["height", s(&dem), "--points", "-", "--out", s(&b)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(csv.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = std::fs::read_to_string(&b).unwrap();
    assert_eq!(got, std::fs::read_to_string(&a).unwrap());
    assert_eq!(got.lines().count(), 4, "{got}");
}

/// A ray from beyond ±1e150 is refused, naming the line and the fields (from so far the hit keeps
/// none of the terrain's digits: (−4e307, −4e307, −4e307) along (1, 1, 1) reported a miss).
#[test]
fn rays_from_beyond_the_coordinate_range_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let dem = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/volcano.asc");
    let rays = d.path().join("r.csv");
    std::fs::write(&rays, "ox,oy,oz,dx,dy,dz\n100,100,500,0,0,-1\n-4e307,-4e307,-4e307,1,1,1\n").unwrap();
    let out = d.path().join("h.csv");
    let e = refused(&["raycast", s(&dem), "--rays", s(&rays), "--out", s(&out)]);
    assert!(e.contains("line 3") && e.contains("'ox','oy','oz'") && e.contains("1e150"), "{e}");
    assert!(!out.exists());
}
