#!/bin/sh
# fuzz.sh [seconds] — build the fuzz targets with clang under ASan+UBSan and
# run libFuzzer for a bounded CPU time in all (default 120 s, in two lanes
# side by side, so about 66 s of wall time): a sixth on the
# Parquet parsers (two thirds of it on the footer, seeded from
# tests/fuzz/corpus_parquet/footer and the DuckDB fixtures, a third on the
# Bloom filter header), and of the rest two thirds on deserialize (seeded
# from tests/fuzz/corpus), one third on the byte-key views
# (tests/fuzz/corpus_keys). Exits non-zero on any finding (crash,
# sanitizer report, invariant failure, leak, timeout, OOM) or build failure.
#
# New inputs go to $BLOOMSIMD_FUZZ_WORK (default build-fuzz/corpus), never
# into the committed corpus; crash reproducers go to build-fuzz/artifacts/.
# Reproduce one with: build-fuzz/tests/fuzz/bloomsimd_fuzz_deserialize <file>
set -eu

seconds=${1:-120}
case $seconds in '' | *[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BLOOMSIMD_FUZZ_BUILD:-$root/build-fuzz}
work=${BLOOMSIMD_FUZZ_WORK:-$build/corpus}
artifacts=$build/artifacts

CC=${CC:-clang}
case $("$CC" --version 2>/dev/null | head -n 1) in
*clang*) ;;
*) echo "fuzz.sh: CC=$CC is not clang (libFuzzer needs clang and libclang-rt-dev)" >&2; exit 2 ;;
esac

CC=$CC cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBLOOMSIMD_BUILD_FUZZ=ON -DBLOOMSIMD_SANITIZE=address,undefined -DBLOOMSIMD_BUILD_BENCH=OFF >/dev/null
ninja -C "$build" bloomsimd_fuzz_deserialize bloomsimd_fuzz_replay bloomsimd_fuzz_keys bloomsimd_fuzz_keys_replay \
    bloomsimd_fuzz_parquet_footer bloomsimd_fuzz_parquet_footer_replay \
    bloomsimd_fuzz_parquet_header bloomsimd_fuzz_parquet_header_replay >/dev/null

mkdir -p "$work" "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The committed corpus must pass under the sanitizers before fuzzing starts.
"$build/tests/fuzz/bloomsimd_fuzz_replay" "$root/tests/fuzz/corpus"
"$build/tests/fuzz/bloomsimd_fuzz_keys_replay" "$root/tests/fuzz/corpus_keys"
fixtures=$root/tests/parquet/fixtures
"$build/tests/fuzz/bloomsimd_fuzz_parquet_footer_replay" "$root/tests/fuzz/corpus_parquet/footer" "$fixtures"/*.parquet
"$build/tests/fuzz/bloomsimd_fuzz_parquet_header_replay" "$root/tests/fuzz/corpus_parquet/header"
parquet_seconds=$((seconds / 6))
footer_seconds=$((parquet_seconds * 2 / 3))
header_seconds=$((parquet_seconds - footer_seconds))
seconds=$((seconds - parquet_seconds))
keys_seconds=$((seconds / 3))
seconds=$((seconds - keys_seconds))

# Two lanes run side by side (each target gets the same seconds as when they
# ran one after another; the wall time is the longer lane's, about 55% of the
# total): deserialize alone, and keys -> Parquet footer -> Bloom filter header.
# Each target's output goes to its own log; its final stats are printed, and
# the whole log's tail when it finds something.
#
# -max_len: the plain seeds are ~4.3 KiB, the layered ones (scalable, window:
# every layer on its own 4 KiB page) 12-16 KiB; 64 KiB lets the fuzzer grow
# either kind; the Parquet footer seeds are 0.2-20 KiB (the DuckDB files are
# copied into the work corpus). -timeout/-rss_limit_mb turn hangs and
# blow-ups into findings.
keys_work=$work-keys
footer_work=$work-parquet-footer
header_work=$work-parquet-header
mkdir -p "$keys_work" "$footer_work" "$header_work"
cp "$fixtures"/*.parquet "$footer_work/"

# fuzz_target NAME SECONDS ARTIFACT_PREFIX MAX_LEN WORK SEEDS: one bounded run.
fuzz_target() {
    [ "$2" -gt 0 ] || return 0
    log=$build/$1.log
    if "$build/tests/fuzz/$1" "$5" "$6" -max_total_time="$2" -max_len="$4" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/$3" -print_final_stats=1 >"$log" 2>&1; then
        echo "fuzz.sh: $1, $2 s: $(grep -c '' "$log") log lines ($log); $(grep -E '^stat::number_of_executed_units' "$log")"
        return 0
    fi
    echo "fuzz.sh: $1 FAILED; the end of $log:" >&2
    tail -n 60 "$log" >&2
    return 1
}

(
    fuzz_target bloomsimd_fuzz_keys "$keys_seconds" keys- 4096 "$keys_work" "$root/tests/fuzz/corpus_keys" &&
        fuzz_target bloomsimd_fuzz_parquet_footer "$footer_seconds" parquet-footer- 65536 "$footer_work" \
            "$root/tests/fuzz/corpus_parquet/footer" &&
        fuzz_target bloomsimd_fuzz_parquet_header "$header_seconds" parquet-header- 1024 "$header_work" \
            "$root/tests/fuzz/corpus_parquet/header"
) &
lane=$!
status=0
fuzz_target bloomsimd_fuzz_deserialize "$seconds" "" 65536 "$work" "$root/tests/fuzz/corpus" || status=1
wait "$lane" || status=1
if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: FINDING (above); reproducers in $artifacts/" >&2
    exit 1
fi
"$build/tests/fuzz/bloomsimd_fuzz_keys_replay" "$keys_work"
# Everything the fuzzer kept must still satisfy the invariant in replay.
"$build/tests/fuzz/bloomsimd_fuzz_replay" "$work"
"$build/tests/fuzz/bloomsimd_fuzz_parquet_footer_replay" "$footer_work"
"$build/tests/fuzz/bloomsimd_fuzz_parquet_header_replay" "$header_work"
echo "fuzz.sh: ${seconds}s on deserialize, ${keys_seconds}s on byte-key views," \
    "${footer_seconds}s on Parquet footers and ${header_seconds}s on Bloom filter headers, no findings"
