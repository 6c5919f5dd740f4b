#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 60), JOBS at a time (default 2), then minimises each
# corpus in place. Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Findings land in fuzz/artifacts/<target>/; replay one with `cargo +nightly fuzz run <target> <file>`,
# and once fixed keep it in fuzz/regressions/<target>/ (minimisation drops it from the corpus).
# `cargo fuzz run` rebuilds when the sources change: run this on a checkout nobody edits meanwhile
# (a clone whose fuzz/corpus is a link to this one's), or a half-made edit stops every target.
#   fuzz/run.sh 600          # ten minutes per target
#   TARGETS="npy csv" fuzz/run.sh 30
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
jobs=${JOBS:-2}
targets=${TARGETS:-$(cargo +nightly fuzz list)}
cargo +nightly fuzz build -O
mkdir -p logs
run() {
    local t=$1
    mkdir -p "corpus/$t"
    # Small inputs and a memory cap: a reader must refuse, not allocate, what a file only claims.
    cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
        -timeout=10 > "logs/$t.log" 2>&1 && echo "$t: ok ($(grep -c '^#' "logs/$t.log") status lines)" \
        || echo "$t: FINDING, see fuzz/logs/$t.log and fuzz/artifacts/$t/"
}
export -f run
export secs
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run {}'
for t in $targets; do
    cargo +nightly fuzz cmin -O "$t" "corpus/$t" > "logs/$t.cmin.log" 2>&1 || echo "$t: cmin failed"
done
