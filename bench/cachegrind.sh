#!/usr/bin/env bash
# cachegrind.sh — cache lines touched per lookup, simulated by valgrind's
# cachegrind, for the blocked kernels valgrind can run (scalar, sse42, avx2:
# valgrind does not emulate AVX-512) and for the bench's classic Bloom filter.
#
# Expected: ~1 D1 and ~1 LL miss per lookup for every blocked kernel (one
# 64-byte block per key), against ~k for the classic filter on present keys
# (k probes in k random lines; on absent keys it stops at the first clear
# bit, ~2 probes at 10 bits/key).
#
# Method: each case runs `bloomsimd-bench --phase lookup` twice under
# cachegrind, with --reps 1 and --reps 0 (same keys, same allocations, same
# fill); the difference of the miss totals divided by the number of queries
# is the cost of the lookups alone. It includes reading the query array
# sequentially: 8 bytes per key = 0.125 lines per lookup.
#
# Usage: bench/cachegrind.sh [path/to/bloomsimd-bench]
# Environment: KEYS (default 2000000: a 2.4 MiB filter at 10 bits/key),
#   QUERIES (default 200000), D1 (default 32768,8,64), LL (default
#   262144,16,64: the filter is ~10x the simulated last level, so ~90% of
#   blocks miss it), KERNELS (default "scalar sse42 avx2").
set -euo pipefail

BENCH=${1:-}
if [[ -z "$BENCH" ]]; then
    for candidate in build/bench/bloomsimd-bench "$(dirname "$0")/../build/bench/bloomsimd-bench" \
                     "$(command -v bloomsimd-bench || true)"; do
        if [[ -n "$candidate" && -x "$candidate" ]]; then BENCH=$candidate; break; fi
    done
fi
if [[ -z "$BENCH" || ! -x "$BENCH" ]]; then
    echo "cachegrind.sh: bloomsimd-bench not found; pass its path as the first argument" >&2
    exit 1
fi
if ! command -v valgrind >/dev/null; then
    echo "cachegrind.sh: needs valgrind: apt-get install valgrind" >&2
    exit 1
fi

KEYS=${KEYS:-2000000}
QUERIES=${QUERIES:-200000}
D1=${D1:-32768,8,64}
LL=${LL:-262144,16,64}
KERNELS=${KERNELS:-scalar sse42 avx2}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# misses IMPL PRESENT REPS -> "D1 LL" data-cache misses (reads + writes)
misses() {
    local out="$TMP/cg.$1.$2.$3"
    if ! valgrind --tool=cachegrind --cache-sim=yes --D1="$D1" --LL="$LL" --cachegrind-out-file="$out" \
        "$BENCH" --phase lookup --kernel "$1" --keys "$KEYS" --queries "$QUERIES" --present "$2" --reps "$3" \
        --no-pin --quiet >"$TMP/stdout" 2>"$TMP/stderr"; then
        echo "cachegrind.sh: $1 failed under valgrind:" >&2
        tail -5 "$TMP/stderr" >&2
        return 1
    fi
    awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
         /^summary:/ { d1 = $(col["D1mr"]) + $(col["D1mw"]); ll = $(col["DLmr"]) + $(col["DLmw"]); print d1, ll }' "$out"
}

report() { # IMPL PRESENT
    local with without
    with=$(misses "$1" "$2" 1) || return 0
    without=$(misses "$1" "$2" 0) || return 0
    awk -v a="$with" -v b="$without" -v q="$QUERIES" -v impl="$1" -v p="$2" 'BEGIN {
        split(a, x, " "); split(b, y, " ");
        printf "%-10s %7s%% %12.2f %12.2f\n", impl, p, (x[1] - y[1]) / q, (x[2] - y[2]) / q }'
}

echo "cachegrind: D1=$D1 LL=$LL, filter of $KEYS keys at 10 bits/key, $QUERIES lookups per case"
echo "(includes 0.125 lines/lookup of streaming the query array)"
printf "%-10s %8s %12s %12s\n" impl present "D1 miss/key" "LL miss/key"
for kernel in $KERNELS; do
    if ! BLOOMSIMD_KERNEL= valgrind --tool=none "$BENCH" --phase lookup --kernel "$kernel" --keys 1000 \
         --queries 10 --reps 1 --no-pin --quiet >/dev/null 2>&1; then
        printf "%-10s %8s %s\n" "$kernel" "-" "not runnable under valgrind here (not compiled in or unsupported)"
        continue
    fi
    report "$kernel" 0
    report "$kernel" 100
done
report classic 0
report classic 100
