//! With the `jolt` feature: compiles Jolt Physics 5.0 and `jolt/shim.cpp` into a static library.
//! Jolt's source is looked for in `JOLT_SRC` (a directory holding `Jolt/Jolt.h`), else in
//! `target/jolt-5.0.0` at the top of the workspace, where `scripts/fetch-jolt.sh` puts it. With the
//! `embree4` feature: links Embree 4.4 (see `embree4::link`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=JOLT_SRC");
    #[cfg(feature = "jolt")]
    jolt::build();
    #[cfg(feature = "embree4")]
    embree4::link();
}

/// With the `embree4` feature: links Embree 4.4 from `EMBREE4_DIR` (a directory holding
/// `libembree4.so`), else from `target/embree-4.4.0` at the top of the workspace, where
/// `scripts/fetch-embree4.sh` puts it, and records that directory as the binaries' run path.
#[cfg(feature = "embree4")]
mod embree4 {
    use std::path::PathBuf;

    pub fn link() {
        println!("cargo:rerun-if-env-changed=EMBREE4_DIR");
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
        let dir = std::env::var_os("EMBREE4_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| manifest.join("../../target/embree-4.4.0"));
        if !dir.join("libembree4.so").is_file() {
            panic!(
                "the `embree4` feature needs Embree 4.4: no libembree4.so in {}. Run \
                 crates/landfall-bench/scripts/fetch-embree4.sh, or set EMBREE4_DIR to a directory holding it.",
                dir.display()
            );
        }
        let dir = dir.canonicalize().expect("Embree 4's directory has a canonical path");
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
}

#[cfg(feature = "jolt")]
mod jolt {
    use std::path::{Path, PathBuf};

    pub fn build() {
        println!("cargo:rerun-if-changed=jolt/shim.cpp");
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
        let src =
            std::env::var_os("JOLT_SRC").map(PathBuf::from).unwrap_or_else(|| manifest.join("../../target/jolt-5.0.0"));
        if !src.join("Jolt/Jolt.h").is_file() {
            panic!(
                "the `jolt` feature needs Jolt Physics 5.0's source: none at {} (no Jolt/Jolt.h). Run \
                 crates/landfall-bench/scripts/fetch-jolt.sh, or set JOLT_SRC to a directory holding Jolt/.",
                src.display()
            );
        }
        // Jolt's own sources take minutes: compiled once per build directory into `jolt_core` (its
        // archive kept in OUT_DIR, with the source directory it came from), the shim every time.
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
        let stamp = out.join("jolt_core.src");
        let archive = out.join("libjolt_core.a");
        let src_text = src.display().to_string();
        // Jolt's own defaults on x86-64 (its CMake options USE_AVX2, USE_LZCNT, USE_TZCNT, USE_F16C,
        // USE_FMADD), a release build without asserts, the profiler or the debug renderer.
        let build = || {
            let mut b = cc::Build::new();
            b.cpp(true)
                .std("c++17")
                .include(&src)
                .opt_level(3)
                .define("NDEBUG", None)
                .flag_if_supported("-mavx2")
                .flag_if_supported("-mbmi")
                .flag_if_supported("-mpopcnt")
                .flag_if_supported("-mlzcnt")
                .flag_if_supported("-mf16c")
                .flag_if_supported("-mfma")
                .flag_if_supported("-ffp-contract=off")
                .warnings(false);
            b
        };
        // The shim first: the linker then finds in Jolt what the shim needs.
        build().file(manifest.join("jolt/shim.cpp")).compile("landfall_jolt");
        let cached = archive.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == src_text);
        if cached {
            println!("cargo:rustc-link-search=native={}", out.display());
            println!("cargo:rustc-link-lib=static=jolt_core");
        } else {
            let mut files = Vec::new();
            collect_cpp(&src.join("Jolt"), &mut files);
            files.sort();
            build().files(&files).compile("jolt_core");
            std::fs::write(&stamp, &src_text).expect("OUT_DIR is writable");
        }
        // C++'s standard library, after both archives.
        println!("cargo:rustc-link-lib=dylib=stdc++");
    }

    fn collect_cpp(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("Jolt's source directory is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                collect_cpp(&path, out);
            } else if path.extension().is_some_and(|e| e == "cpp") {
                out.push(path);
            }
        }
    }
}
