#!/usr/bin/env bash
# Prints the public API of the published crates (landfall, landfall-io), one item per line: the
# listing docs/api.txt holds. Uses rustdoc's JSON output, which needs a nightly toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup run nightly rustc --version > /dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal >&2
fi
for crate in landfall landfall-io; do
    cargo +nightly rustdoc -q -p "$crate" --lib -- -Z unstable-options --output-format json -A warnings >&2
    python3 scripts/public_api.py "target/doc/${crate//-/_}.json"
done
