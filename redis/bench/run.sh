#!/usr/bin/env bash
# run.sh — the Redis module's short benchmark for scripts/bench.sh (seconds,
# not minutes): one round, 3*10^5 requests per row, a 10^6-item fill, printed
# as a few lines with units (BENCH_SHORT=1). The full run (5 rounds, 2*10^6 requests, 10^7 items) is redis_bench.sh itself.
here=$(cd "$(dirname "$0")" && pwd)
BENCH_SHORT=1 BENCH_REQUESTS=${BENCH_REQUESTS:-300000} BENCH_FILL=${BENCH_FILL:-1000000} \
  exec bash "$here/redis_bench.sh" "${BLOOMSIMD_BUILD_DIR:-build}" "${1:-1}"
