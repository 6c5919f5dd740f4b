//! landfall-io's integration tests: each file of this folder is a module of this one test binary
//! (one link instead of one per file), but for `tile_view_memory.rs`, which measures its own
//! process's resident memory and so runs in a process of its own (a `[[test]]` in Cargo.toml). One
//! file's tests: `cargo test -p landfall-io --test integration formats::`.

mod cog_compression;
mod cog_hostile;
mod common;
mod formats;
mod fuzz;
mod fuzz_corpus;
mod geographic;
mod heightfield_index;
mod mesh_index;
mod mesh_out;
#[path = "../../landfall/tests/targets.rs"]
mod targets;
