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
                    fpr[p[3]] = sprintf("%s %s bits/key, FPR %s%%", p[3], $5, $7); n = p[2] }
  /^BenchmarkPaired/ {
    split($1, p, "/"); sub(/-[0-9]+$/, "", p[4]); n = p[2]
    for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i
    form = p[4] ~ /single/ ? "single" : "batch"
    if (!(p[3] in seen)) { seen[p[3]] = 1; order[++ops] = p[3] }
    ns[p[3], form] = m["ours-cpu-ns/key"]; x[p[3], form] = m["x-cpu-median"]; peer[p[3]] = m["peer-cpu-ns/key"]
  }
  END {
    sub(/^n=/, "", n)
    printf "Go package against bits-and-blooms/bloom/v3, %s keys at 1%% (ns/key of CPU time; x = its time / ours, paired rounds)\n", n
    printf "  %s; %s\n", fpr["bloomsimd"], fpr["bitsandblooms"]
    for (i = 1; i <= ops; i++) {
      o = order[i]
      printf "  %-16s batch %6.2f ns/key (%5.1fx)  one call %6.2f ns/key (%5.1fx)  bits-and-blooms %6.2f ns/key\n",
             o, ns[o, "batch"], x[o, "batch"], ns[o, "single"], x[o, "single"], peer[o]
    }
  }' <<<"$out"
grep -q '^ok' <<<"$out"
