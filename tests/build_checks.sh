#!/usr/bin/env bash
# build_checks.sh CC SOURCE_DIR SHARED_LIB KERNEL_OBJECTS... — properties of the build itself:
#  1. the baseline guard: core code compiled with an ISA flag is a compile error
#     (so AVX can never leak into the dispatcher);
#  2. each kernel object exports exactly one symbol, bloomsimd_kernel_<name>;
#  3. the shared library exports only the public bloomsimd_ API (hidden visibility);
#  4. the library never prints, aborts or exits: it imports none of those functions.
set -euo pipefail
cc=$1 src=$2 lib=$3
shift 3
fail=0

for flag in -mavx2 -mavx512f -msse4.2 -march=native; do
  if out=$("$cc" $flag -fsyntax-only -I"$src/include" "$src/src/filter.c" 2>&1); then
    echo "FAIL: src/filter.c compiled with $flag: the baseline guard did not fire"; fail=1
  elif ! grep -q "must be built with baseline flags" <<<"$out"; then
    echo "FAIL: $flag rejected for another reason:"; echo "$out" | head -5; fail=1
  else
    echo "ok: baseline guard rejects $flag"
  fi
done

for obj in "$@"; do
  case "$obj" in */kernels/*) ;; *) continue ;; esac
  name=$(basename "$obj" .c.o)
  # (sanitizer builds add their own __odr_asan / __asan bookkeeping symbols)
  syms=$(nm -g --defined-only "$obj" | awk '{print $3}' | grep -v -E '^_*(odr_asan|asan|tsan|ubsan)' || true)
  if [ "$syms" != "bloomsimd_kernel_$name" ]; then
    echo "FAIL: kernels/$name.c exports: $syms (want only bloomsimd_kernel_$name)"; fail=1
  else
    echo "ok: kernels/$name.c exports only bloomsimd_kernel_$name"
  fi
done

bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^bloomsimd_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: $lib exports non-API symbols:"; echo "$bad" | head; fail=1
else
  echo "ok: $(nm -D --defined-only "$lib" | wc -l) exported symbols, all bloomsimd_*"
fi
for obj in "$@"; do
  case "$obj" in */kernels/*) ;; *) continue ;; esac
  name=$(basename "$obj" .c.o)
  if nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx "bloomsimd_kernel_$name"; then
    echo "FAIL: kernel table bloomsimd_kernel_$name is exported from the shared library"; fail=1
  fi
done
forbidden=$(nm -u "$lib" | awk '{print $2}' | sed 's/@.*//' |
  grep -x -E '(printf|fprintf|vprintf|vfprintf|puts|fputs|putchar|perror|abort|exit|_exit|__assert_fail|__stack_chk_fail_local)' || true)
if [ -n "$forbidden" ]; then
  echo "FAIL: $lib imports functions that print or terminate: $forbidden"; fail=1
else
  echo "ok: the library imports no printing, aborting or exiting function"
fi
exit $fail
