#!/usr/bin/env bash
# run.sh — the Go package's short benchmark, run by scripts/bench.sh: bloomsimd
# against bits-and-blooms/bloom/v3 (batches and single keys) and, for single
# keys, against greatroar/blobloom (handed each key's 64-bit hash: it hashes
# nothing, our calls include XXH3), on 10^5 keys at 1% (BLOOMSIMD_BENCH_SIZES
# to change), paired rounds (BLOOMSIMD_BENCH_ROUNDS, default 11), one line per
# operation: CPU ns/key of each and the median per-round speedup in CPU time
# (README.md, "Benchmarks", says why CPU time). Ten lines; takes seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
eval "$(bash "$here/../env.sh" "${BLOOMSIMD_BUILD_DIR:-$here/../../../build}")"
cd "$here"
export BLOOMSIMD_BENCH_SIZES=${BLOOMSIMD_BENCH_SIZES:-1e5} BLOOMSIMD_BENCH_ROUNDS=${BLOOMSIMD_BENCH_ROUNDS:-11}
out=$(go test -run XXX -bench 'FPR|Paired' -benchtime 1x -timeout 10m .)
awk '
  function metrics(   i) { delete m; for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i }
  function name(part) { sub(/-[0-9]+$/, "", part); return part }
  /^BenchmarkFPR\// { split($1, p, "/"); metrics(); n = p[2]
                      fpr[name(p[3])] = sprintf("%.2f bits/key, FPR %.2f%%", m["bits/key"], m["fpr%"]) }
  /^BenchmarkFPRBlobloom\// { split($1, p, "/"); metrics(); c = name(p[3])
                      if (c == "default-layout") deflayout = m["layout"]
                      else fpr[c] = sprintf("%.2f bits/key, FPR %.2f%%", m["bits/key"], m["fpr%"]) }
  /^BenchmarkPaired\// {
    split($1, p, "/"); metrics(); n = p[2]
    form = name(p[4]) ~ /single/ ? "single" : "batch"
    if (!(p[3] in seen)) { seen[p[3]] = 1; order[++ops] = p[3] }
    ns[p[3], form] = m["ours-cpu-ns/key"]; x[p[3], form] = m["x-cpu-median"]; peer[p[3]] = m["peer-cpu-ns/key"]
  }
  /^BenchmarkPairedBlobloom\// {
    split($1, p, "/"); metrics(); c = name(p[4])
    if (!(p[3] in bseen)) { bseen[p[3]] = 1; border[++bops] = p[3] }
    bns[p[3], c] = m["ours-cpu-ns/key"]; bx[p[3], c] = m["x-cpu-median"]; bpeer[p[3]] = m["peer-cpu-ns/key"]
  }
  END {
    sub(/^n=/, "", n)
    d512 = deflayout == 2 ? " (default)" : ""; d256 = deflayout == 3 ? " (default)" : ""
    printf "Go package, %s keys at 1%%: ns/key of CPU time; x = the peer'"'"'s time / ours (median of paired rounds);", n
    printf " *blobloom is handed each key'"'"'s 64-bit hash (it hashes nothing; our single-key calls include XXH3)\n"
    printf "  bloomsimd block512 %s (split256 %s); bits-and-blooms %s; blobloom %s\n", fpr["bloomsimd-block512"],
           fpr["bloomsimd-split256"], fpr["bitsandblooms"], fpr["blobloom-given-hash"]
    for (i = 1; i <= ops; i++) {
      o = order[i]
      printf "  %-16s batch %6.2f (%5.1fx)  one call %6.2f (%5.1fx)  bits-and-blooms %6.2f\n",
             o, ns[o, "batch"], x[o, "batch"], ns[o, "single"], x[o, "single"], peer[o]
    }
    label["SingleAddUint64"] = "AddUint64"; label["SingleContainsAbsent"] = "ContainsUint64, absent"
    label["SingleContainsPresent"] = "ContainsUint64, present"
    for (i = 1; i <= bops; i++) {
      o = border[i]
      printf "  %-23s block512%s %5.2f (%4.2fx)  split256%s %5.2f (%4.2fx)  blobloom* %5.2f\n",
             label[o], d512, bns[o, "bloomsimd-block512"], bx[o, "bloomsimd-block512"],
             d256, bns[o, "bloomsimd-split256"], bx[o, "bloomsimd-split256"], bpeer[o]
    }
  }' <<<"$out"
grep -q '^ok' <<<"$out"
