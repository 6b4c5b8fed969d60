#!/usr/bin/env bash
# bench.sh — the main job (README: "Run the benchmark"): build everything in
# Release, run bloomsimd-bench on its default workload, then the short
# benchmark of each client that is present.
#
#   bash scripts/bench.sh [bloomsimd-bench options...]
#
# BUILD_DIR (default: build) is the build directory. Options go to
# bloomsimd-bench only (bloomsimd-bench --help). Exit status: non-zero if the
# build fails, if bloomsimd-bench fails (2: one of its correctness checks
# failed) or if a client's benchmark fails; every client still runs.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release || exit 1
cmake --build "$build" || exit 1

status=0
"$build/bench/bloomsimd-bench" "$@" || status=$?

# ---- clients' short benchmarks -------------------------------------------------
# One line per client: `client NAME SCRIPT [ARGS...]` runs SCRIPT only if it
# exists (the client is in this tree), with the build directory in
# BLOOMSIMD_BUILD_DIR. Each prints its own short table (seconds, not minutes)
# and exits non-zero on failure.
client() {
  local name=$1 script=$2
  shift 2
  [ -f "$script" ] || return 0
  echo
  echo "=============== $name: $script"
  BLOOMSIMD_BUILD_DIR="$build" bash "$script" "$@" || {
    echo "bench.sh: $name benchmark FAILED" >&2
    status=1
  }
}
client redis redis/bench/run.sh
client cli cli/bench/cli_bench.sh
client go bindings/go/bench/run.sh
# ---- end of clients ----------------------------------------------------------

exit $status
