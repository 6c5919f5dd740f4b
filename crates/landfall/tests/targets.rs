//! Every file of a crate's `tests/` folder runs: the crate's integration tests are one binary
//! (`tests/integration.rs` declares each file as a module, and `autotests = false` in its
//! Cargo.toml), so a new file that is neither a module there nor a `[[test]]` of its own would
//! never be built. Shared by the three crates' integration binaries; each checks its own crate.

use std::path::Path;

#[test]
fn every_test_file_is_a_module_or_a_test_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = std::fs::read_to_string(dir.join("tests/integration.rs")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(dir.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        let module = root.lines().any(|l| l.trim() == format!("mod {stem};"));
        let target = manifest.lines().any(|l| l.trim() == format!("path = \"tests/{name}\""));
        if !module && !target {
            stray.push(name);
        }
    }
    assert!(
        stray.is_empty(),
        "{}/tests: {stray:?} would never run: declare each as `mod …;` in tests/integration.rs (or give it a [[test]] in Cargo.toml)",
        dir.display()
    );
}
