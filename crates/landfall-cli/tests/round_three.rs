//! Hostile input, round three: extreme cell sizes and timeouts refused or handled without a panic,
//! an index of nothing refused, and `world`'s outputs checked before its run.

use crate::common;

use common::{landfall, refused, s};
use std::path::{Path, PathBuf};

/// A 5 × 4 hill.
fn terrain(dir: &Path) -> PathBuf {
    let p = dir.join("t.asc");
    let rows = "1 2 3 2 1\n2 4 6 4 2\n2 4 6 4 2\n1 2 3 2 1\n";
    std::fs::write(&p, format!("ncols 5\nnrows 4\nxllcenter 0\nyllcenter 0\ncellsize 1\n{rows}")).unwrap();
    p
}

#[test]
fn a_viewshed_over_an_extent_beyond_1e150_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let out = d.path().join("v.tif");
    let e = refused(&["viewshed", s(&t), "--spacing", "1e155,10", "--observer", "1e156,10", "--out", s(&out)]);
    assert!(e.contains("1e150") && e.contains("spans"), "{e}");
    assert!(!out.exists());
}

#[test]
fn balls_over_a_terrain_of_huge_cells_run_without_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    // Cells far wider than the balls (which scale with the narrower side): the grid's unit grows.
    for spacing in ["1e14,10", "1e18,10"] {
        let png = d.path().join("e.png");
        let o = landfall(&[
            "events",
            "terrain",
            s(&t),
            "--spacing",
            spacing,
            "--balls",
            "10",
            "--until",
            "1",
            "--png",
            s(&png),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(matches!(o.status.code(), Some(0 | 1)) && !err.contains("panicked"), "{spacing}: {err}");
    }
}

#[test]
fn a_server_timeout_beyond_a_day_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = terrain(d.path());
    let e = refused(&["serve", s(&t), "--port", "0", "--timeout", "9223372036854775807"]);
    assert!(e.contains("--timeout") && e.contains("86400"), "{e}");
}

#[test]
fn an_index_of_nothing_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("none.asc");
    let rows = "-9999 -9999 -9999\n".repeat(3);
    std::fs::write(&t, format!("ncols 3\nnrows 3\nxllcenter 0\nyllcenter 0\ncellsize 1\nNODATA_value -9999\n{rows}"))
        .unwrap();
    let out = d.path().join("none.lfh");
    let e = refused(&["build", s(&t), "-o", s(&out)]);
    assert!(e.contains("none.asc") && e.contains("every sample is nodata"), "{e}");
    assert!(!out.exists());
}

#[test]
fn world_checks_its_outputs_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let pics = d.path().join("pics");
    let export = d.path().join("missing/x.glb");
    let e = refused(&["world", "--frames", "1", "--path", "walk", "--export", s(&export), "-o", s(&pics)]);
    assert!(e.contains("x.glb"), "{e}");
    assert!(!pics.join("world-layers.png").exists() && !pics.join("world-view.png").exists());
    // -o naming a file, not a directory.
    let file = d.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    let e = refused(&["world", "--frames", "1", "--path", "walk", "-o", s(&file)]);
    assert!(e.contains("afile"), "{e}");
}
