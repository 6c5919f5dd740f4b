//! Helpers shared by the CLI's integration tests: run the binary, expect success or failure.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `landfall` with `args`.
pub fn landfall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_landfall")).args(args).output().expect("runs")
}

/// Runs `landfall` and expects success; its standard output.
pub fn ok(args: &[&str]) -> String {
    let o = landfall(args);
    assert!(o.status.success(), "landfall {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `landfall` and expects failure; its standard error.
pub fn fails(args: &[&str]) -> String {
    let o = landfall(args);
    assert!(!o.status.success(), "landfall {args:?} should fail");
    String::from_utf8(o.stderr).unwrap()
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The lines of a file.
pub fn rows(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

/// The names of the entries of a directory (to check that nothing was left behind).
pub fn entries(dir: &Path) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect()
}

/// Tools from outside the workspace: a failure in CI, a visible skip elsewhere (shared with
/// landfall-io's tests).
#[path = "../../../landfall-io/tests/common/skip.rs"]
pub mod skip;
