#![warn(missing_docs)]
//! Shared set-up of the benchmarks: terrains, ray sets, the peer libraries on the same data, and
//! the ratio report printed after criterion has measured.

pub mod peers;
pub mod report;
pub mod sets;
pub mod terrains;
