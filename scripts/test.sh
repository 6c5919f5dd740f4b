#!/usr/bin/env bash
# The whole test suite: Rust (cargo test) and Python (the package built into .venv, then pytest,
# a two-process Dask cluster included). Needs cargo and python3 (≥ 3.9) with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q maturin numpy pytest "dask[array]" distributed xarray
.venv/bin/python -m pip install -q ./crates/landfall-py
LANDFALL_BIN="$PWD/target/debug/landfall" .venv/bin/python -m pytest -q -p no:cacheprovider crates/landfall-py/tests
