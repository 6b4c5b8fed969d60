#!/usr/bin/env bash
# run.sh BUILD_DIR [PYTEST_ARGS...] — builds the extension against
# BUILD_DIR's libbloomsimd.a into BUILD_DIR/python and runs its pytest suite
# with Debian's /usr/bin/python3. The tests compile a C reference
# program against the same library and use BUILD_DIR/cli/bloomsimd.
#
# BLOOMSIMD_SANITIZE=address,undefined (for an ASan+UBSan BUILD_DIR): the
# module is built with the sanitizers and Python runs with libasan preloaded
# and PYTHONMALLOC=malloc, so ASan sees every Python object too. Leak
# checking stays off: the interpreter frees little at exit; the suite's own
# leak tests count references and allocations instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$build/python
shift
mkdir -p "$out"
export BLOOMSIMD_BUILD_DIR=$build BLOOMSIMD_WERROR=1
(cd "$here/.." && /usr/bin/python3 setup.py -q build --build-base "$out/setup" --build-lib "$out/lib" \
  >"$out/setup.log" 2>&1) || { cat "$out/setup.log"; exit 1; }
env=(PYTHONPATH="$out/lib" PYTHONDONTWRITEBYTECODE=1)
if [ -n "${BLOOMSIMD_SANITIZE:-}" ]; then
  env+=(LD_PRELOAD="$(gcc -print-file-name=libasan.so)" PYTHONMALLOC=malloc
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
fi
cd "$here"
env "${env[@]}" /usr/bin/python3 -m pytest -q -p no:cacheprovider "$here" "$@"
