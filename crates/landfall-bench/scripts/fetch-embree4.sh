#!/bin/bash
# Fetches Embree 4.4 for the benchmarks' `embree4` feature and prints where it is.
#
# Debian packages Embree 3 only. The Python binding `embreex` 4.4.0.post1 on PyPI (the binding that
# `trimesh` uses) ships Intel's release build of Embree 4.4.0 and the TBB it needs in its Linux
# wheel. pip downloads that wheel (no install, no Python code run), and its two libraries are copied
# to `target/embree-4.4.0` at the top of the workspace, with the `libembree4.so` link the linker
# looks for; landfall-bench's build script links them from there (or set `EMBREE4_DIR`).
#
#   crates/landfall-bench/scripts/fetch-embree4.sh
#   cargo bench -p landfall-bench --features embree4 --bench heightfield
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
dest="$root/target/embree-4.4.0"
if [ -f "$dest/libembree4.so" ]; then
  echo "$dest"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_28_x86_64 --dest "$tmp" embreex==4.4.0.post1
python3 -m zipfile -e "$tmp"/embreex-4.4.0.post1-*.whl "$tmp/wheel"
mkdir -p "$dest"
cp "$tmp"/wheel/embreex.libs/libembree4-*.so.4 "$tmp"/wheel/embreex.libs/libtbb-*.so.12 "$dest/"
cp "$tmp"/wheel/embreex-4.4.0.post1.dist-info/licenses/LICENSE "$dest/LICENSE.embreex"
(cd "$dest" && ln -sf "$(ls libembree4-*.so.4)" libembree4.so)
echo "$dest"
