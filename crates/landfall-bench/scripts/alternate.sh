#!/bin/bash
# Runs profiling binaries in turn, one thread each, and prints each one's minimum and median time:
#   alternate.sh ROUNDS ARG1 ARG2 BINARY...
# Each binary is run ROUNDS times as `RAYON_NUM_THREADS=1 BINARY ARG1 ARG2` and must print its time
# per build first on its last line ("12.3ms per build ...", as `buildprof` does). Alternating the
# binaries spreads this shared host's slow and fast phases over all of them; copy each build of
# `target/release/examples/buildprof` aside to compare two versions.
set -euo pipefail
rounds=$1; a1=$2; a2=$3; shift 3
declare -A times
for _ in $(seq "$rounds"); do
  for b in "$@"; do
    t=$(RAYON_NUM_THREADS=1 "$b" "$a1" "$a2" 2>/dev/null | tail -1 | awk '{v=$1;
      if (v ~ /ms$/) {sub("ms","",v)} else if (v ~ /µs$/) {sub("µs","",v); v=v/1000}
      else {sub("s","",v); v=v*1000}; print v}')
    times[$b]="${times[$b]:-} $t"
  done
done
for b in "$@"; do
  echo "$b: $(echo ${times[$b]} | tr ' ' '\n' | sort -n |
    awk '{a[NR]=$1} END {printf "min %.2f ms, median %.2f ms (%d runs)", a[1], a[int((NR+1)/2)], NR}')"
done
