#!/usr/bin/env bash
# callgrind.sh — instructions per request / per item of the whole server,
# counted by callgrind: repeatable on a noisy shared host where wall-clock
# ratios are not. Each workload runs in its own redis-server under
# callgrind (127.0.0.1, a free port, stopped by pid); a server that only
# starts and reserves the filter is the baseline subtracted from each.
# callgrind cannot run AVX-512, so the library runs its AVX2 kernel here.
#
#   bash redis/bench/callgrind.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
client=$build/redis/bloomsimd-redis-bench
module=$build/redis/bloomsimd.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

free_port() { # a port on 127.0.0.1 that nothing answers on (bash's /dev/tcp: no python needed)
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
instructions() { # name, items, bench args... -> prints total Ir of the server
  local name=$1 port pid
  shift
  port=$(free_port)
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" /usr/bin/redis-server --port "$port" \
    --bind 127.0.0.1 --save '' --loadmodule "$module" >"$out/$name.log" 2>&1 &
  pid=$!
  until redis-cli -p "$port" PING >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || { cat "$out/$name.log" >&2; exit 1; }
    sleep 0.5
  done
  redis-cli -p "$port" BF.RESERVE bf 0.01 10000000 >/dev/null
  [ $# -eq 0 ] || "$client" --port "$port" "$@" >/dev/null
  redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" || true
  sed -n 's/^summary: //p' "$out/$name.out"
}

base=$(instructions base)
ping=""
echo "| workload | instructions per request | per item | x PING per request |"
echo "|---|---|---|---|"
while read -r name items args; do
  # shellcheck disable=SC2086
  total=$(instructions "$name" $args)
  read -r per_item per_request <<<"$(awk -v t="$total" -v b="$base" -v n="$items" -v a="$args" 'BEGIN {
    batch = 1; if (match(a, /--batch [0-9]+/)) batch = substr(a, RSTART + 8, RLENGTH - 8);
    printf "%.0f %.0f", (t - b) / n, (t - b) / n * batch }')"
  [ -n "$ping" ] || ping=$per_request
  echo "| $name | $per_request | $per_item | $(awk -v x="$per_request" -v p="$ping" 'BEGIN { printf "%.2f", x / p }') |"
done <<'EOF'
PING 200000 --cmd ping --items 200000 --clients 4 --pipeline 16
SISMEMBER 200000 --cmd sismember --key s --items 200000 --clients 4 --pipeline 16
BF.EXISTS 200000 --cmd bf.exists --key bf --items 200000 --clients 4 --pipeline 16
BF.ADD 200000 --cmd bf.add --key bf --items 200000 --clients 4 --pipeline 16
BF.MEXISTS_x100 1000000 --cmd bf.mexists --key bf --batch 100 --items 1000000 --clients 4 --pipeline 16
BF.MADD_x100 1000000 --cmd bf.madd --key bf --batch 100 --items 1000000 --clients 4 --pipeline 16
BFX.MEXISTS64_x10000 5000000 --cmd bfx.mexists64 --key bf --batch 10000 --items 5000000 --clients 2 --pipeline 4
BFX.MADD64_x10000 5000000 --cmd bfx.madd64 --key bf --batch 10000 --items 5000000 --clients 2 --pipeline 4
EOF
