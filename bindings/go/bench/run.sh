#!/usr/bin/env bash
# run.sh — the Go package's short benchmark, run by scripts/bench.sh: bloomsimd
# against bits-and-blooms/bloom/v3 on 10^5 keys at 1% (BLOOMSIMD_BENCH_SIZES
# to change), paired rounds (BLOOMSIMD_BENCH_ROUNDS, default 11), one line per
# operation: CPU ns/key of each and the median per-round speedup in CPU and
# in wall time (README.md, "Benchmarks", says why both). Takes seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
eval "$(bash "$here/../env.sh" "${BLOOMSIMD_BUILD_DIR:-$here/../../../build}")"
cd "$here"
export BLOOMSIMD_BENCH_SIZES=${BLOOMSIMD_BENCH_SIZES:-1e5} BLOOMSIMD_BENCH_ROUNDS=${BLOOMSIMD_BENCH_ROUNDS:-11}
out=$(go test -run XXX -bench 'FPR|Paired' -benchtime 1x -timeout 10m .)
awk '
  /^BenchmarkFPR/ { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3])
                    printf "%-9s %-14s %6s bits/key  FPR %s%%  k=%d\n", p[2], p[3], $5, $7, $9 }
  /^BenchmarkPaired/ {
    split($1, p, "/"); sub(/-[0-9]+$/, "", p[4])
    for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i
    if (!hdr++) printf "%-9s %-16s %-20s %10s %10s %8s %8s\n", "n", "op", "bloomsimd", "ours cpu", "peer cpu", "x cpu", "x wall"
    printf "%-9s %-16s %-20s %10s %10s %8s %8s\n", p[2], p[3], p[4], m["ours-cpu-ns/key"], m["peer-cpu-ns/key"],
           m["x-cpu-median"], m["x-median"]
  }' <<<"$out"
grep -q '^ok' <<<"$out"
