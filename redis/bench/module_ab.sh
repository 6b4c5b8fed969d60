#!/usr/bin/env bash
# module_ab.sh — two builds of the module side by side: BF.MADD x100 and BFX.MADD64 x10^4
# throughput in paired alternating rounds, each server a fresh filter reserved for 10^7 items
# at 1% every round, so a change's cost on the write path is measured against the same load.
#
#   bash redis/bench/module_ab.sh A/bloomsimd.so B/bloomsimd.so CLIENT [ROUNDS]
#
# CLIENT is a build's bloomsimd-redis-bench. Two redis-servers on 127.0.0.1 (free ports, stopped
# by pid on exit). Each round runs A then B, or B then A (alternating); it prints each side's
# median items/s and the median [min - max] of the per-round ratio B/A (above 1: B is faster).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,11p' "$0"; exit 2; }
mod_a=$(realpath "$1") mod_b=$(realpath "$2") client=$(realpath "$3") rounds=${4:-11}
N=${BENCH_ITEMS:-2000000} # items inserted per side per row and round

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
start() { # module port: a server on it, its pid kept for cleanup (not in a subshell)
  mkdir -p "$dir/$2"
  redis-server --port "$2" --bind 127.0.0.1 --dir "$dir/$2" --save '' --appendonly no \
    --loadmodule "$1" --logfile "$dir/$2/redis.log" </dev/null >/dev/null 2>&1 &
  pids+=($!)
  until redis-cli -h 127.0.0.1 -p "$2" PING >/dev/null 2>&1; do
    kill -0 "${pids[-1]}" 2>/dev/null || { tail -5 "$dir/$2/redis.log" >&2; exit 1; }
    sleep 0.1
  done
}
port_a=$(free_port)
start "$mod_a" "$port_a"
port_b=$(free_port)
while [ "$port_b" = "$port_a" ]; do port_b=$(free_port); done
start "$mod_b" "$port_b"
rands() { local i; for ((i = 0; i < $1; i++)); do printf '__rand_int__ '; done; }
madd() { # port: items/s of BF.MADD x100
  redis-cli -h 127.0.0.1 -p "$1" DEL bf >/dev/null
  redis-cli -h 127.0.0.1 -p "$1" BF.RESERVE bf 0.01 10000000 >/dev/null
  local rps
  # shellcheck disable=SC2046
  rps=$(redis-benchmark -h 127.0.0.1 -p "$1" -c 50 -P 16 -n $((N / 100)) -r 1000000000 --csv BF.MADD bf $(rands 100) 2>/dev/null |
    awk -F'"' 'NR == 2 { print $4 }')
  awk -v r="$rps" 'BEGIN { printf "%.0f", r * 100 }'
}
madd64() { # port: items/s of BFX.MADD64 x10^4 (as redis_bench.sh measures it)
  redis-cli -h 127.0.0.1 -p "$1" DEL bfx >/dev/null
  redis-cli -h 127.0.0.1 -p "$1" BF.RESERVE bfx 0.01 10000000 >/dev/null
  "$client" --port "$1" --cmd bfx.madd64 --key bfx --batch 10000 --items "$N" --clients 4 --pipeline 4 |
    sed -n 's/.* items\/s=\([0-9]*\).*/\1/p'
}
declare -A s
for ((r = 1; r <= rounds; r++)); do
  for op in madd madd64; do
    if ((r % 2)); then a=$($op "$port_a"); b=$($op "$port_b"); else b=$($op "$port_b"); a=$($op "$port_a"); fi
    s[$op.a]+="$a " s[$op.b]+="$b "
    s[$op.r]+="$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }') "
  done
done
med() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4g [%.4g - %.4g]", m, v[1], v[NR] }'; }
echo "A $mod_a"
echo "B $mod_b"
echo "$rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "BF.MADD x100     items/s A $(med "${s[madd.a]}")  B $(med "${s[madd.b]}")  B/A $(med "${s[madd.r]}")"
echo "BFX.MADD64 x1e4  items/s A $(med "${s[madd64.a]}")  B $(med "${s[madd64.b]}")  B/A $(med "${s[madd64.r]}")"
