//! Tests that need a tool from outside the workspace (GDAL, Chromium, Linux's /proc): in CI
//! (`LANDFALL_CI=1`, set by `.ci/run`) a missing tool fails the test; elsewhere the test is
//! skipped with one line on the terminal (past the test harness's capture, so a green run still
//! shows it) and one in the file `$LANDFALL_SKIPS` names, which `scripts/test.sh` prints in its
//! summary.

#![allow(dead_code)] // each test file uses what it needs

use std::io::Write;
use std::process::{Command, Stdio};

/// Whether this is a CI run, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("LANDFALL_CI").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says that the running test cannot run because `what` is missing (`how` gets it): a panic in CI,
/// a visible skip line elsewhere.
pub fn missing(what: &str, how: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let line = format!("skipped: {test}: {what} is missing ({how})");
    assert!(!in_ci(), "{line}; LANDFALL_CI is set, so this fails instead");
    let _ = writeln!(std::io::stderr(), "{line}");
    if let Some(path) = std::env::var_os("LANDFALL_SKIPS") {
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The first of `names` that runs (`NAME --version` succeeds), or `None` after [`missing`].
pub fn tool(names: &[&'static str], how: &str) -> Option<&'static str> {
    let found = names.iter().copied().find(|n| {
        Command::new(n).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    });
    if found.is_none() {
        missing(&names.join(" or "), how);
    }
    found
}
