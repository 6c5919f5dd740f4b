#!/usr/bin/env bash
# The whole test suite: Rust (`cargo test`: the library, landfall-io and the CLI; the benchmark
# crate and its peers build only under `cargo bench`), the code blocks of README.md and docs/
# (scripts/run_docs.py; the README's install line puts the Python package into .venv), then the
# Python tests (pytest, a two-process Dask cluster included).
# Needs cargo, a C compiler and python3 (≥ 3.9) with venv. Under LANDFALL_CI=1 (set by .ci/run) a
# test whose tool (GDAL, Chromium, …) is missing fails; otherwise it is skipped with a line, and
# every skip is listed again at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export LANDFALL_SKIPS="$(mktemp)"
# Cargo's target directory (CARGO_TARGET_DIR or the workspace's own).
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"

# The virtual environment and the Python test tools, set up while the Rust tests build (it is
# mostly downloading); its output is printed when it is waited for.
venv_log="$(mktemp)"
trap 'rm -f "$LANDFALL_SKIPS" "$venv_log"' EXIT
setup_venv() {
    # The virtual environment: reused only when its Python still runs, is this python3's version and
    # has a working pip; recreated otherwise.
    want="$(python3 -c 'import sys; print(sys.version_info[:2])')"
    if ! [ -x .venv/bin/python ] \
        || [ "$(.venv/bin/python -c 'import sys; print(sys.version_info[:2])' 2> /dev/null)" != "$want" ] \
        || ! .venv/bin/python -m pip --version > /dev/null 2>&1; then
        echo "test.sh: (re)creating .venv with $(python3 --version)"
        rm -rf .venv
        python3 -m venv .venv
    fi
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q pytest xarray rioxarray matplotlib
}
setup_venv > "$venv_log" 2>&1 &
venv_pid=$!

cargo test
echo "test.sh: Rust tests done at ${SECONDS} s"
venv_ok=0
wait "$venv_pid" || venv_ok=$?
cat "$venv_log"
if [ "$venv_ok" -ne 0 ]; then
    echo "test.sh: setting up .venv failed (above)" >&2
    exit 1
fi
echo "test.sh: .venv ready at ${SECONDS} s"
# The docs' `pip install ./crates/landfall-py[dask]` builds the wheel (maturin reads
# MATURIN_PEP517_ARGS) in the `dev` profile with the `suite` feature: the features and settings of
# `cargo test`'s build above, so the wheel reuses its landfall and landfall-io (Cargo.toml's
# profile.dev). A user's install builds in release.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev --features suite}"
python3 scripts/run_docs.py --bin "$target/debug" --python .venv/bin/python
.venv/bin/python -c 'import landfall, landfall.dask; print("test.sh: landfall", landfall.__version__, "from", landfall.__file__)'
echo "test.sh: docs' blocks done at ${SECONDS} s"
LANDFALL_BIN="$target/debug/landfall" .venv/bin/python -m pytest -q -rs -p no:cacheprovider \
    crates/landfall-py/tests scripts/test_run_docs.py
echo "test.sh: Python tests done at ${SECONDS} s"

if [ -s "$LANDFALL_SKIPS" ]; then
    echo
    echo "test.sh: $(wc -l < "$LANDFALL_SKIPS") test(s) skipped for a missing tool (LANDFALL_CI=1 makes them fail):"
    sed 's/^/  /' "$LANDFALL_SKIPS"
fi
