#![no_main]
//! `landfall serve` fed arbitrary bytes as a connection's requests (`serve::fuzz::request`): the
//! server's modules are included by path, the CLI being a binary.
#[allow(dead_code)] // what the CLI uses beyond the request handling
#[path = "../../crates/landfall-cli/src/serve/mod.rs"]
mod serve;
#[allow(dead_code)]
#[path = "../../crates/landfall-cli/src/world_map.rs"]
mod world_map;
#[allow(dead_code)]
#[path = "../../crates/landfall-cli/src/geo.rs"]
mod geo;
#[path = "../../crates/landfall-cli/src/path_error.rs"]
mod path_error;
#[path = "../../crates/landfall-cli/src/open_files.rs"]
mod open_files;
libfuzzer_sys::fuzz_target!(|data: &[u8]| serve::fuzz::request(data));
