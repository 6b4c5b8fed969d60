#!/usr/bin/env bash
# run.sh [Bench options...] — the Java package's short benchmark, for scripts/bench.sh
# (seconds): builds the jar, the JNI library and the benchmark (bloomsimd_java_all) in
# BLOOMSIMD_BUILD_DIR (default: the tree's build/, a Release build), then runs
# org.bloomsimd.bench.Bench beside Guava on 10^5 keys (--quick --short: batches, single keys,
# bits per key at an equal measured FPR, and, when redis-server is installed, a filter fetched
# from the build's Redis module through the file format). Other options go to the bench:
#   bash bindings/java/bench/run.sh --sizes 1e5,1e6,1e7 --rounds 7    the full run, minutes
# Exit status: non-zero if the build fails, or the bench finds a wrong answer (2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${BLOOMSIMD_BUILD_DIR:-$here/../../../build}" && pwd)
grep -q '^BLOOMSIMD_BUILD_JAVA:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null || {
  echo "java bench: $build has no Java package (it needs openjdk-17-jdk-headless when CMake configures it)" >&2
  exit 1
}
cmake --build "$build" --target bloomsimd_java_all >"$build/java-bench-build.log" 2>&1 ||
  { tail -n 30 "$build/java-bench-build.log" >&2; exit 1; }
[ -f "$build/bindings/java/bench.sh" ] || {
  echo "java bench: no $build/bindings/java/bench.sh: Guava missing (apt-get install libguava-java), then reconfigure" >&2
  exit 1
}
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--quick --short)
exec sh "$build/bindings/java/bench.sh" "${args[@]}"
