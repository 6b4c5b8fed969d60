#!/usr/bin/env bash
# run.sh [bench.py options...] — the Python package's benchmark (bench.py
# --help): builds the extension against BLOOMSIMD_BUILD_DIR's libbloomsimd.a
# (default: the tree's build/, a Release build) into BUILD/python, as
# tests/run.sh does, and c_batch.so (the C library's batched calls, timed in
# C) against the same library, then runs bench.py with Debian's
# /usr/bin/python3 and, when BUILD/redis/bloomsimd.so exists, the Redis rows.
#   bash bindings/python/bench/run.sh --quick    the short form (seconds)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${BLOOMSIMD_BUILD_DIR:-$here/../../../build}" && pwd)
out=$build/python
mkdir -p "$out"
(cd "$here/.." && BLOOMSIMD_BUILD_DIR=$build /usr/bin/python3 setup.py -q build --build-base "$out/setup" \
  --build-lib "$out/lib" >"$out/setup.log" 2>&1) || { cat "$out/setup.log"; exit 1; }
xxhash=$(pkg-config --libs libxxhash 2>/dev/null || echo -lxxhash)
# shellcheck disable=SC2086
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I "$here/../../../include" "$here/c_batch.c" \
  "$build/libbloomsimd.a" $xxhash -lm -lpthread -o "$out/c_batch.so"
redis=()
[ -f "$build/redis/bloomsimd.so" ] && redis=(--redis-module "$build/redis/bloomsimd.so")
PYTHONPATH="$out/lib" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$here/bench.py" --c-helper "$out/c_batch.so" \
  "${redis[@]}" "$@"
