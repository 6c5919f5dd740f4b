#![no_main]
#[path = "../../crates/landfall-io/tests/fuzz_targets/mod.rs"]
mod targets;
libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::events(data));
