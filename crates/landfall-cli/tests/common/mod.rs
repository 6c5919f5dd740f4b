//! Helpers shared by the CLI's integration tests: run the binary, expect success or failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// Runs `landfall` and expects a clean error: exit status 1, a message on standard error, no
/// panic; the message.
pub fn refused(args: &[&str]) -> String {
    let o = landfall(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "landfall {args:?}: {err}");
    assert!(err.starts_with("landfall: error:") && !err.contains("panicked"), "{err}");
    err
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

/// A minimal glTF: one triangle whose POSITION accessor has the given `accessor` JSON fields and
/// whose buffer view has `view` fields; the buffer (36 bytes) is in `tri.bin`.
pub fn gltf(dir: &Path, accessor: &str, view: &str, uri: &str) -> PathBuf {
    let mut bin = Vec::new();
    for v in [0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(dir.join("tri.bin"), &bin).unwrap();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
        "buffers":[{{"uri":"{uri}","byteLength":36}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36{view}}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]{accessor}}}]}}"#
    );
    let p = dir.join("m.gltf");
    std::fs::write(&p, json).unwrap();
    p
}

/// A smooth `n`² raster of f32 heights as `.npy` (`height(i, j)`, row j of the file).
pub fn npy_raster(path: &Path, n: usize, height: impl Fn(usize, usize) -> f32) {
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n}, {n}), }}");
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 118 - dict.len();
    b.extend_from_slice(&((dict.len() + pad + 1) as u16).to_le_bytes());
    b.extend_from_slice(dict.as_bytes());
    b.extend(std::iter::repeat_n(b' ', pad));
    b.push(b'\n');
    for j in 0..n {
        for i in 0..n {
            b.extend_from_slice(&height(i, j).to_le_bytes());
        }
    }
    std::fs::write(path, b).unwrap();
}

/// Two heightfield indexes built in `dir`, `big.lfh` (700²) and `small.lfh` (20²): writing the
/// small one over the big one in place (`cp small.lfh big.lfh`) truncates a mapped file.
pub fn big_and_small_index(dir: &Path) -> (PathBuf, PathBuf) {
    let smooth = |i: usize, j: usize| (i as f32 * 0.1).sin() * 10.0 + j as f32 * 0.01;
    let mut out = Vec::new();
    for (name, n) in [("big", 700), ("small", 20)] {
        let (npy, lfh) = (dir.join(format!("{name}.npy")), dir.join(format!("{name}.lfh")));
        npy_raster(&npy, n, smooth);
        ok(&["build", s(&npy), "-o", s(&lfh)]);
        out.push(lfh);
    }
    (out.remove(0), out.remove(0))
}
