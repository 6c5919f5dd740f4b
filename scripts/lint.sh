#!/usr/bin/env bash
# The checks beside the tests: formatting, clippy with warnings as errors, the documentation with
# warnings as errors (broken links included), that the fuzz targets compile, and the public API
# against docs/api.txt.
#
#   scripts/lint.sh          check (CI runs this from .ci/run)
#   scripts/lint.sh --bless  rewrite docs/api.txt after a reviewed change of the public API
#
# The API listing needs a nightly toolchain (rustdoc's JSON output is unstable); it is installed
# with rustup when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--bless" ]; then
    bash scripts/api.sh > docs/api.txt
    echo "docs/api.txt rewritten: review its diff"
    exit 0
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p landfall --all-targets --all-features -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --lib
# The fuzz targets (a crate of their own, built by `cargo +nightly fuzz`) include the CLI's server
# modules by path: checked here so that a change there cannot break them unseen.
cargo check --manifest-path fuzz/Cargo.toml --bins --target-dir target/fuzz-check

now=$(mktemp)
trap 'rm -f "$now"' EXIT
bash scripts/api.sh > "$now"
if ! diff -u docs/api.txt "$now"; then
    echo "The public API changed (diff above: - docs/api.txt, + the code). If the change is meant," >&2
    echo "run scripts/lint.sh --bless and commit docs/api.txt with it." >&2
    exit 1
fi
echo "lint: format, clippy, docs and public API all clean"
