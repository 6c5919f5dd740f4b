//! The CLI's integration tests: each file of this folder is a module of this one test binary (one
//! link instead of one per file), but for `serve_flood.rs`, whose latency bounds hold only without
//! the other tests' processes competing for the cores, and so runs in a process of its own (a
//! `[[test]]` in Cargo.toml). One file's tests: `cargo test -p landfall-cli --test integration cli::`.

mod behave;
mod big_index;
mod cli;
mod common;
mod hostile;
mod round_four;
mod round_three;
mod round_two;
#[path = "../../landfall/tests/targets.rs"]
mod targets;
mod viewer;
mod world_path;
