#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60), JOBS at a time (default 2), then minimises each
# grown corpus. Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
# The repository keeps only seeds: at most SEEDS (256) inputs per target in fuzz/corpus/<target>/,
# and every fixed finding in fuzz/regressions/<target>/ (`cargo test` replays both). A run grows
# fuzz/grown/<target>/ (not committed) from the seeds, the regressions and what it finds, and
# minimises it (`cargo fuzz cmin`); `--seeds` then refreshes the committed seeds from it: the
# minimised corpus when it has at most SEEDS inputs, else SEEDS of them spread over its sizes.
# Findings land in fuzz/artifacts/<target>/; replay one with `cargo +nightly fuzz run <target> <file>`,
# and once fixed keep it in fuzz/regressions/<target>/.
# `cargo fuzz run` rebuilds when the sources change: run this on a checkout nobody edits meanwhile,
# or a half-made edit stops every target.
#   fuzz/run.sh 600          # ten minutes per target
#   TARGETS="npy csv" fuzz/run.sh 30
#   fuzz/run.sh 600 --seeds  # and rewrite fuzz/corpus/ from the grown corpora (review, commit)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
refresh=${2:-}
jobs=${JOBS:-2}
seeds=${SEEDS:-256}
targets=${TARGETS:-$(cargo +nightly fuzz list)}
cargo +nightly fuzz build -O
mkdir -p logs
run() {
    local t=$1
    mkdir -p "grown/$t" "corpus/$t"
    local extra=()
    [ -d "regressions/$t" ] && extra+=("regressions/$t")
    # Small inputs and a memory cap: a reader must refuse, not allocate, what a file only claims.
    # New inputs go to the first directory (grown/); the seeds and regressions are read only.
    cargo +nightly fuzz run -O "$t" "grown/$t" "corpus/$t" "${extra[@]}" -- -max_total_time="$secs" \
        -max_len=65536 -rss_limit_mb=2048 -timeout=10 > "logs/$t.log" 2>&1 \
        && echo "$t: ok ($(grep -c '^#' "logs/$t.log") status lines)" \
        || echo "$t: FINDING, see fuzz/logs/$t.log and fuzz/artifacts/$t/"
}
export -f run
export secs
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run {}'
for t in $targets; do
    cargo +nightly fuzz cmin -O "$t" "grown/$t" > "logs/$t.cmin.log" 2>&1 || echo "$t: cmin failed"
done
if [ "$refresh" = "--seeds" ]; then
    for t in $targets; do
        python3 - "$t" "$seeds" <<'PY'
import os, shutil, sys
t, keep = sys.argv[1], int(sys.argv[2])
src, dst = os.path.join("grown", t), os.path.join("corpus", t)
files = sorted(os.listdir(src), key=lambda f: (os.path.getsize(os.path.join(src, f)), f))
if len(files) > keep:  # spread over the sizes, smallest and largest included
    files = sorted({files[round(k * (len(files) - 1) / (keep - 1))] for k in range(keep)})
shutil.rmtree(dst)
os.makedirs(dst)
for f in files:
    shutil.copy(os.path.join(src, f), dst)
print(f"{t}: {len(files)} seeds")
PY
    done
fi
