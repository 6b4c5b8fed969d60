#!/usr/bin/env bash
# tsan.sh — run the concurrency suites under ThreadSanitizer for every kernel
# this CPU runs. Exit 0 only if every suite passed on every runnable kernel
# with no report.
#
#   scripts/tsan.sh [build-dir]        (default: build-tsan in the repository)
#   CC=clang scripts/tsan.sh           (any compiler with -fsanitize=thread)
#
# The library is configured with -DBLOOMSIMD_SANITIZE=thread (every source,
# kernels included, is instrumented). Criterion cannot start under TSan (its
# boxfort arena mapping fails: Criterion issue #274), so each suite in
# `suites` below is compiled as a plain pthread program
# (-DBLOOMSIMD_TSAN_STANDALONE, tests/standalone.h): same tests, same assertions. A kernel the CPU cannot run exits 77 and is listed
# as skipped; any TSan report, failed assertion or crash fails the script.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build-tsan}"
cc="${CC:-cc}"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBLOOMSIMD_SANITIZE=thread -DBLOOMSIMD_BUILD_TESTS=OFF -DBLOOMSIMD_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target bloomsimd_static >/dev/null

# plain filters (test_concurrency) and the layered calls: add_new, growth, rotate
suites=(test_concurrency test_concurrency_new)
for suite in "${suites[@]}"; do
  # shellcheck disable=SC2046
  "$cc" -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=thread -Wall -Wextra -DBLOOMSIMD_TSAN_STANDALONE \
    -D_GNU_SOURCE -I"$repo/include" -I"$repo/src" -I"$repo/kernels" -I"$repo/dispatch" -I"$repo/tests" \
    "$repo/tests/$suite.c" "$repo/tests/support_keys.c" "$build/libbloomsimd.a" $(pkg-config --libs libxxhash) \
    -lpthread -lm -o "$build/tsan_$suite"
done

mapfile -t kernels < <(grep -o 'BLOOMSIMD_KERNEL_ENTRY([a-z0-9_]*)' "$build/generated/kernel_list.inc" |
  sed 's/.*(\(.*\))/\1/')
[[ ${#kernels[@]} -gt 0 ]] || { echo "tsan.sh: no kernels in $build/generated/kernel_list.inc" >&2; exit 1; }

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
failed=() passed=() skipped=()
for suite in "${suites[@]}"; do
  driver="$build/tsan_$suite"
  for kernel in "${kernels[@]}"; do
    log="$build/tsan_${suite}_$kernel.log"
    set +e
    BLOOMSIMD_KERNEL="$kernel" "$driver" >"$log" 2>&1
    rc=$?
    # Kernels with high mmap randomisation (vm.mmap_rnd_bits > 28) break TSan's
    # fixed shadow layout; it then needs ASLR off for this process only.
    if grep -q 'unexpected memory mapping' "$log"; then
      BLOOMSIMD_KERNEL="$kernel" setarch "$(uname -m)" -R "$driver" >"$log" 2>&1
      rc=$?
    fi
    set -e
    if [[ $rc -eq 77 ]]; then
      skipped+=("$suite/$kernel")
      echo "SKIP $suite $kernel: $(head -n 1 "$log")"
    elif [[ $rc -eq 0 ]] && ! grep -q 'ThreadSanitizer' "$log"; then
      passed+=("$suite/$kernel")
      echo "PASS $suite $kernel ($(grep -c '^\[PASS\]' "$log") tests)"
    else
      failed+=("$suite/$kernel")
      echo "FAIL $suite $kernel (exit $rc), log: $log"
      sed -n '1,60p' "$log"
    fi
  done
done

echo "tsan.sh: passed: ${passed[*]:-none}; skipped: ${skipped[*]:-none}; failed: ${failed[*]:-none}"
[[ ${#failed[@]} -eq 0 && ${#passed[@]} -gt 0 ]]
