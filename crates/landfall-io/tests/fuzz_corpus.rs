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

/// One test per target: `name => what the target does with an input`.
macro_rules! replay_tests {
    ($($name:ident => $run:expr),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name), $run);
            }
        )*
    };
}

replay_tests! {
    npy => |d| fuzz_targets::raster("npy", d),
    npz => |d| fuzz_targets::raster("npz", d),
    asc => |d| fuzz_targets::raster("asc", d),
    png => |d| fuzz_targets::raster("png", d),
    tiff => |d| fuzz_targets::raster("tif", d),
    obj => |d| fuzz_targets::mesh("obj", d),
    gltf => |d| fuzz_targets::mesh("gltf", d),
    glb => |d| fuzz_targets::mesh("glb", d),
    index => fuzz_targets::index,
    hf_index => fuzz_targets::hf_index,
    csv => fuzz_targets::csv,
    heightfield => fuzz_targets::heightfield,
    polygons => fuzz_targets::polygons,
    events => fuzz_targets::events,
}
