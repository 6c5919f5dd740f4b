#!/usr/bin/env bash
# Runs fuzz targets for N seconds each (default 60), JOBS at a time (default 2), then minimises each
# grown corpus. Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
# The repository keeps only seeds: at most SEEDS (256) coverage-minimised inputs per target in
# fuzz/corpus/<target>/, and every fixed finding in fuzz/regressions/<target>/ (`cargo test` replays
# both). A run grows fuzz/grown/<target>/ (not committed) from the seeds, the regressions and what
# it finds, and minimises it (`cargo fuzz cmin`). `--seeds` then rewrites the committed seeds: every
# input of the seeds and the grown corpus goes through libFuzzer's set-cover merge, which records
# all the coverage features of each, and a greedy set cover keeps the input adding the most features
# not yet covered (by the regressions or by those kept before it; the smaller on a tie) until every
# feature is covered or SEEDS are kept. It prints how many features the kept seeds cover of all.
# A target's dictionary, fuzz/dicts/<target>.dict, is used when it exists.
# Findings land in fuzz/artifacts/<target>/; replay one with `cargo +nightly fuzz run <target> <file>`,
# and once fixed keep it in fuzz/regressions/<target>/.
# `cargo fuzz run` rebuilds when the sources change: run this on a checkout nobody edits meanwhile,
# or a half-made edit stops every target.
#   fuzz/run.sh 600          # ten minutes per target
#   TARGETS="npy csv" fuzz/run.sh 30
#   fuzz/run.sh 600 --seeds  # and rewrite fuzz/corpus/ from the grown corpora (review, commit)
#   fuzz/run.sh 0 --seeds    # no fuzzing: only re-minimise the committed seeds (and grown/)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
refresh=${2:-}
jobs=${JOBS:-2}
seeds=${SEEDS:-256}
targets=${TARGETS:-$(cargo +nightly fuzz list)}
for t in $targets; do
    cargo +nightly fuzz build -O "$t"
done
mkdir -p logs
# Inputs up to 64 KiB, a memory cap (a reader must refuse, not allocate, what a file only claims)
# and 10 s per input.
export LIBFUZZER_LIMITS="-max_len=65536 -rss_limit_mb=2048 -timeout=10"
run() {
    local t=$1
    mkdir -p "grown/$t" "corpus/$t"
    local extra=() flags=()
    [ -d "regressions/$t" ] && extra+=("regressions/$t")
    [ -f "dicts/$t.dict" ] && flags+=("-dict=dicts/$t.dict")
    # New inputs go to the first directory (grown/); the seeds and regressions are read only.
    # shellcheck disable=SC2086
    cargo +nightly fuzz run -O "$t" "grown/$t" "corpus/$t" "${extra[@]}" -- -max_total_time="$secs" \
        $LIBFUZZER_LIMITS "${flags[@]}" > "logs/$t.log" 2>&1 \
        && echo "$t: ok ($(grep -c '^#' "logs/$t.log") status lines)" \
        || echo "$t: FINDING, see fuzz/logs/$t.log and fuzz/artifacts/$t/"
}
export -f run
export secs
if [ "$secs" -gt 0 ]; then
    printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run {}'
    for t in $targets; do
        cargo +nightly fuzz cmin -O "$t" "grown/$t" > "logs/$t.cmin.log" 2>&1 || echo "$t: cmin failed"
    done
fi
[ "$refresh" = "--seeds" ] || exit 0
for t in $targets; do
    mkdir -p "grown/$t" "regressions/$t"
    scratch=$(mktemp -d)
    mkdir "$scratch/merged"
    # The set-cover merge runs every input once in a child process and records all its features in
    # the control file (a plain merge records only those no smaller input had); its own output, in
    # merged/, is not used.
    # shellcheck disable=SC2086
    cargo +nightly fuzz run -O "$t" "$scratch/merged" "regressions/$t" "corpus/$t" "grown/$t" -- \
        -set_cover_merge=1 -merge_control_file="$scratch/control" $LIBFUZZER_LIMITS > "logs/$t.merge.log" 2>&1 \
        || { echo "$t: merge failed, see fuzz/logs/$t.merge.log"; rm -rf "$scratch"; continue; }
    python3 - "$t" "$seeds" "$scratch" <<'PY' || echo "$t: seeds unchanged"
import heapq, os, shutil, sys
t, keep, scratch = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(os.path.join(scratch, "control")).read().splitlines()
n = int(lines[0])
paths = lines[2:2 + n]
size, features = {}, {}
for line in lines[2 + n:]:
    mark, *rest = line.split()
    if mark == "STARTED":
        size[int(rest[0])] = int(rest[1])
    elif mark == "FT":
        features[int(rest[0])] = set(map(int, rest[1:]))
crashed = [paths[i] for i in size if i not in features]
if crashed:
    sys.exit(f"{t}: {len(crashed)} inputs crash or time out (fix them first): {crashed[:5]}")
regression = os.path.join("regressions", t) + os.sep
regressions = [i for i in features if os.path.relpath(paths[i]).startswith(regression)]
covered = set().union(*(features[i] for i in regressions))
every = covered.union(*features.values())
# Lazy greedy set cover: a heap of (-gain, size, path, id) with gains that can only shrink.
heap = [(-len(f - covered), size[i], paths[i], i) for i, f in features.items() if i not in regressions]
heapq.heapify(heap)
picked = []  # in the greedy order, until every feature is covered
while heap:
    gain, s, p, i = heapq.heappop(heap)
    new = features[i] - covered
    if not new:
        continue
    if -len(new) != gain:  # stale: push back with its current gain
        heapq.heappush(heap, (-len(new), s, p, i))
        continue
    covered |= new
    picked.append(i)
kept = [paths[i] for i in picked[:keep]]
seeds = set().union(*(features[i] for i in regressions + picked[:keep]))
dst = os.path.join("corpus", t)
staged = os.path.join(scratch, "seeds")
os.makedirs(staged)
for p in kept:
    name = os.path.basename(p)
    while os.path.exists(os.path.join(staged, name)):  # two seeds of one name, from two folders
        name += "_"
    shutil.copy(p, os.path.join(staged, name))
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(staged, dst)
print(f"{t}: {len(kept)} seeds (of {len(features)} inputs; {len(picked)} would cover all) and the regressions "
      f"cover {len(seeds)} of {len(every)} features")
PY
    rm -rf "$scratch"
done
