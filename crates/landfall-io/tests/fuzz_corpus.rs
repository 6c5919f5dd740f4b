//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and findings
//! (`fuzz/regressions/<target>/`) through the fuzz targets' own code on stable Rust, so every input
//! the fuzzers kept and every crash they once found stays a regression test in `cargo test`.

#[path = "fuzz_targets/mod.rs"]
mod fuzz_targets;

use std::path::PathBuf;

/// Every file of one target's corpus, and of its findings kept in `fuzz/regressions/<target>/`
/// (which a corpus minimisation would drop once they are fixed), through `run`; at least one
/// corpus file must exist.
fn replay(target: &str, run: impl Fn(&[u8])) {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let dir = fuzz.join("corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        run(&data);
        n += 1;
    }
    for entry in std::fs::read_dir(fuzz.join("regressions").join(target)).into_iter().flatten() {
        run(&std::fs::read(entry.unwrap().path()).unwrap());
    }
    let _ = std::fs::remove_dir_all(fuzz_targets::scratch());
    assert!(n > 0, "{}: empty corpus", dir.display());
}

#[test]
fn npy() {
    replay("npy", |d| fuzz_targets::raster("npy", d));
}

#[test]
fn npz() {
    replay("npz", |d| fuzz_targets::raster("npz", d));
}

#[test]
fn asc() {
    replay("asc", |d| fuzz_targets::raster("asc", d));
}

#[test]
fn png() {
    replay("png", |d| fuzz_targets::raster("png", d));
}

#[test]
fn tiff() {
    replay("tiff", |d| fuzz_targets::raster("tif", d));
}

#[test]
fn obj() {
    replay("obj", |d| fuzz_targets::mesh("obj", d));
}

#[test]
fn gltf() {
    replay("gltf", |d| fuzz_targets::mesh("gltf", d));
}

#[test]
fn glb() {
    replay("glb", |d| fuzz_targets::mesh("glb", d));
}

#[test]
fn index() {
    replay("index", fuzz_targets::index);
}

#[test]
fn csv() {
    replay("csv", fuzz_targets::csv);
}

#[test]
fn heightfield() {
    replay("heightfield", fuzz_targets::heightfield);
}

#[test]
fn polygons() {
    replay("polygons", fuzz_targets::polygons);
}
