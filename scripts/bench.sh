#!/usr/bin/env bash
# bench.sh — the main job (README: "Run the benchmark"): build in Release
# what the benchmarks run (no test suites), run bloomsimd-bench on its default
# workload, then the short benchmark of each client that is present.
#
#   bash scripts/bench.sh [bloomsimd-bench options...]
#   bash scripts/bench.sh --quick      a first taste: the library only, 10^4 and 10^6 keys
#                                      (about 7 s once built; the first run builds the
#                                      library and the bench first: README, "Two commands")
#
# BUILD_DIR (default: build) is the build directory. Options go to
# bloomsimd-bench only (bloomsimd-bench --help). Exit status: non-zero if the
# build fails, if bloomsimd-bench fails (2: one of its correctness checks
# failed) or if a client's benchmark fails; every client still runs.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

quick=0 folder=
prev=
for a in "$@"; do
  [ "$a" = --quick ] && quick=1
  [ "$prev" = --out ] && folder=$a
  prev=$a
done
# one folder for the whole run: bloomsimd-bench's report and data, the clients' output
out_args=()
[ -n "$folder" ] || { folder=bench-results/$(date -u +%Y%m%dT%H%M%SZ); out_args=(--out "$folder"); }

# Only the programs the benchmarks run: the bench (all --quick runs), and for
# the whole job the CLI, the Redis module and its client, the static library
# the Go package links. A new build directory is configured without the test
# suites; an existing one keeps its settings (it may be the user's build, with
# its tests): naming the targets is what keeps the test programs out. The
# build log goes to a file in the build directory (nothing lands in the
# source tree outside the ignored build*/ and bench-results/); its last lines
# are shown if it fails.
mkdir -p "$build"
log=$build/bench-build.log
echo "building the benchmarks in $build (log: $log) ..."
targets=(bloomsimd-bench)
[ $quick = 1 ] || targets+=(bloomsimd-cli bloomsimd-gen-records bloomsimd_static)
configure=(-DCMAKE_BUILD_TYPE=Release)
# a new build directory gets neither the test suites nor the NEON kernel
# emulated through SIMDe (only the tests and bloomsimd-bench --emulated run it)
[ -f "$build/CMakeCache.txt" ] || configure+=(-DBLOOMSIMD_BUILD_TESTS=OFF -DBLOOMSIMD_EMULATED_NEON=OFF)
{ cmake -S . -B "$build" -G Ninja "${configure[@]}" &&
  cmake --build "$build" --target "${targets[@]}" &&
  { [ $quick = 1 ] || ! cmake --build "$build" --target help | grep -q bloomsimd_redis ||
    cmake --build "$build" --target bloomsimd_redis bloomsimd-redis-bench; }; } >"$log" 2>&1 ||
  { tail -n 40 "$log"; echo "bench.sh: the build failed (full log: $log)" >&2; exit 1; }

status=0
"$build/bench/bloomsimd-bench" "${out_args[@]}" "$@" || status=$?
if [ $quick = 1 ]; then
  echo
  echo "(--quick: the clients' benchmarks skipped; bash scripts/bench.sh runs them)"
  exit $status
fi

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
  BLOOMSIMD_BUILD_DIR="$build" bash "$script" "$@" 2>"$folder/$name-bench.log" | tee "$folder/$name-bench.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || {
    tail -n 20 "$folder/$name-bench.log" >&2
    echo "bench.sh: $name benchmark FAILED" >&2
    status=1
  }
}
client redis redis/bench/run.sh
client cli cli/bench/cli_bench.sh --short
client go bindings/go/bench/run.sh
client python bindings/python/bench/run.sh --quick --short
client java bindings/java/bench/run.sh
# ---- end of clients ----------------------------------------------------------

echo
echo "everything this run measured: $folder/ (report.txt, results.csv, results.json, the clients' *-bench.txt)"
exit $status
