#!/bin/bash
# Fetches the source of Jolt Physics 5.0.0 for the benchmarks' `jolt` feature and prints where it is.
#
# Jolt is C++ and not packaged by Debian; the crate `joltc-sys 0.3.1+Jolt-5.0.0` on crates.io carries
# its source unchanged. Cargo fetches that crate (through whatever registry it is configured for), and
# its `Jolt/` directory and licence are copied to `target/jolt-5.0.0` at the top of the workspace, where
# landfall-bench's build script looks for them (or set `JOLT_SRC` to another copy).
#
#   crates/landfall-bench/scripts/fetch-jolt.sh
#   cargo bench -p landfall-bench --features jolt --bench heightfield
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
dest="$root/target/jolt-5.0.0"
if [ -f "$dest/Jolt/Jolt.h" ]; then
  echo "$dest"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
cat > "$tmp/Cargo.toml" <<'TOML'
[package]
name = "fetch-jolt"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
joltc-sys = "=0.3.1"
TOML
echo 'fn main() {}' > "$tmp/src/main.rs"
(cd "$tmp" && cargo fetch --quiet)
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/joltc-sys-0.3.1+Jolt-5.0.0/JoltC/JoltPhysics | head -1)
mkdir -p "$dest"
cp -r "$src/Jolt" "$src/LICENSE" "$dest/"
echo "$dest"
