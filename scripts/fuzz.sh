#!/bin/sh
# fuzz.sh [seconds] — build the fuzz targets with clang under ASan+UBSan and
# run libFuzzer for a bounded time in all (default 120 s): a sixth on the
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

# -max_len: the plain seeds are ~4.3 KiB, the layered ones (scalable, window:
# every layer on its own 4 KiB page) 12-16 KiB; 64 KiB lets the fuzzer grow
# either kind. -timeout/-rss_limit_mb turn hangs and blow-ups into findings.
status=0
"$build/tests/fuzz/bloomsimd_fuzz_deserialize" "$work" "$root/tests/fuzz/corpus" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 || status=$?

keys_work=$work-keys
mkdir -p "$keys_work"
if [ "$status" -eq 0 ] && [ "$keys_seconds" -gt 0 ]; then
    "$build/tests/fuzz/bloomsimd_fuzz_keys" "$keys_work" "$root/tests/fuzz/corpus_keys" \
        -max_total_time="$keys_seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/keys-" -print_final_stats=1 || status=$?
fi
# The Parquet footer and header: -max_len 64 KiB lets the footer seeds
# (0.2-20 KiB; the DuckDB files are copied into the work corpus) grow.
footer_work=$work-parquet-footer
header_work=$work-parquet-header
mkdir -p "$footer_work" "$header_work"
cp "$fixtures"/*.parquet "$footer_work/"
if [ "$status" -eq 0 ] && [ "$footer_seconds" -gt 0 ]; then
    "$build/tests/fuzz/bloomsimd_fuzz_parquet_footer" "$footer_work" "$root/tests/fuzz/corpus_parquet/footer" \
        -max_total_time="$footer_seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/parquet-footer-" -print_final_stats=1 || status=$?
fi
if [ "$status" -eq 0 ] && [ "$header_seconds" -gt 0 ]; then
    "$build/tests/fuzz/bloomsimd_fuzz_parquet_header" "$header_work" "$root/tests/fuzz/corpus_parquet/header" \
        -max_total_time="$header_seconds" -max_len=1024 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/parquet-header-" -print_final_stats=1 || status=$?
fi
if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: FINDING (libFuzzer exit $status); reproducers in $artifacts/" >&2
    exit 1
fi
"$build/tests/fuzz/bloomsimd_fuzz_keys_replay" "$keys_work"
# Everything the fuzzer kept must still satisfy the invariant in replay.
"$build/tests/fuzz/bloomsimd_fuzz_replay" "$work"
"$build/tests/fuzz/bloomsimd_fuzz_parquet_footer_replay" "$footer_work"
"$build/tests/fuzz/bloomsimd_fuzz_parquet_header_replay" "$header_work"
echo "fuzz.sh: ${seconds}s on deserialize, ${keys_seconds}s on byte-key views," \
    "${footer_seconds}s on Parquet footers and ${header_seconds}s on Bloom filter headers, no findings"
