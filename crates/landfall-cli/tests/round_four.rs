//! Hostile input, round four: GDAL's float32 nodata written to six digits, a mesh of nothing
//! refused, and the world's flags named in their errors, negative values included.

use crate::common;

use common::{ok, refused, s};

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
