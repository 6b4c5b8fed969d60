#!/usr/bin/env bash
# redis_bench.sh — the Redis module benchmark (redis/README.md "Benchmark").
#
#   bash redis/bench/redis_bench.sh [build-dir] [rounds]
#
# One redis-server on 127.0.0.1 (a free port, stopped by pid on exit) with
# bloomsimd.so loaded; a filter reserved for 10^7 items at 1%. Single-item and
# BF.M* rows use redis-benchmark -c 50 -P 16 (how RedisBloom was measured
# for comparison); the binary BFX rows, the 10^7 fill, and the
# SETBIT/GETBIT (Redisson) and SADD/SISMEMBER baselines use
# bloomsimd-redis-bench (redis/bench/redis_bench.c), pipelined the same way.
# A grown filter (RedisBloom's scaling default, measured side by side with
# RedisBloom in docs/ANCHORS): BF.RESERVE g 0.01 10^5 EXPANSION 2, then FILL
# items by BF.MADD x100 through redis-cli --pipe (load items/s), its
# used_memory per item, FPR over 2*10^5 absent items, and BF.MEXISTS x100 of
# absent items (redis-benchmark, as above).
# Every throughput row is measured in `rounds` alternating rounds (default 5)
# and reported as median [min - max]; ratios are computed per round, then
# their median is reported. Nothing is asserted: this is a program, not a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-5}
module=$build/redis/bloomsimd.so
client=$build/redis/bloomsimd-redis-bench
for f in "$module" "$client"; do
  [ -e "$f" ] || { echo "missing $f: build first (cmake --build $build)" >&2; exit 2; }
done
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
  { echo "redis-server / redis-benchmark missing: bash scripts/install-deps.sh" >&2; exit 2; }

free_port() { # a port on 127.0.0.1 that nothing answers on (bash's /dev/tcp: no python needed)
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
port=$(free_port)
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
  --enable-debug-command local --loadmodule "$module" --logfile "$dir/redis.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
until cli PING >/dev/null 2>&1; do
  kill -0 "$pid" 2>/dev/null || { tail -5 "$dir/redis.log" >&2; exit 1; }
  sleep 0.1
done

N=${BENCH_REQUESTS:-2000000}     # requests per redis-benchmark run
FILL=${BENCH_FILL:-10000000}     # distinct items for the memory / FPR / RDB rows
rb() { # requests, then the command: prints requests/s
  local n=$1
  shift
  redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -P 16 -n "$n" -r 1000000000 --csv "$@" 2>/dev/null |
    awk -F'"' 'NR == 2 { print $4 }'
}
rands() { local i; for ((i = 0; i < $1; i++)); do printf '__rand_int__ '; done; }
cb() { # bloomsimd-redis-bench args: prints items/s
  "$client" --port "$port" "$@" | sed -n 's/.* items\/s=\([0-9]*\).*/\1/p'
}
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }
mem() { cli INFO memory | tr -d '\r' | awk -F: -v k="$1" '$1 == k { print $2 }'; }


declare -A samples
add() { samples[$1]+="$2 "; }
median_range() { # values... -> "median [min - max]", or the value alone for one round
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    if (NR == 1) printf "%.3g", m; else printf "%.3g [%.3g - %.3g]", m, v[1], v[NR] }'
}

echo "rounds: $rounds; machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((round = 1; round <= rounds; round++)); do
  [ "$rounds" = 1 ] || echo "round $round/$rounds" >&2
  # fresh filters reserved for 10^7 at 1% each round, so inserts never grow them
  cli DEL bf bfx >/dev/null
  cli BF.RESERVE bf 0.01 10000000 >/dev/null
  cli BF.RESERVE bfx 0.01 10000000 >/dev/null
  ping=$(rb "$N" -t ping_mbulk)
  add_=$(rb "$N" BF.ADD bf __rand_int__)
  ex=$(rb "$N" BF.EXISTS bf __rand_int__)
  add ping "$ping"
  add bf.add "$add_"
  add bf.exists "$ex"
  add add/ping "$(calc "$add_ / $ping")"
  add exists/ping "$(calc "$ex / $ping")"
  for b in 100 1000; do
    # N items inserted per row (3N in all with BF.ADD's: under 10^7), 4N looked up
    add "bf.madd $b" "$(calc "$(rb $((N / b)) BF.MADD bf $(rands $b)) * $b")"
    add "bf.mexists $b" "$(calc "$(rb $((N / b * 4)) BF.MEXISTS bf $(rands $b)) * $b")"
  done
  for b in 1000 10000; do
    add "bfx.madd64 $b" "$(cb --cmd bfx.madd64 --key bfx --batch $b --items $((N * 2)) --start $((b * N)) --clients 4 --pipeline 4)"
    add "bfx.mexists64 $b" "$(cb --cmd bfx.mexists64 --key bfx --batch $b --items $((N * 5)) --clients 4 --pipeline 4)"
  done
  # Redisson's Bloom filter: k = 7 SETBIT/GETBIT per item on a bit string sized
  # for 10^7 items at 1% (m = -n ln p / ln^2 2 = 95,850,584 bits).
  add "setbit k=7" "$(cb --cmd setbit --key rbits --bits 95850584 --k 7 --items 300000 --start $((round * 1000000)) --clients 50 --pipeline 16)"
  add "getbit k=7" "$(cb --cmd getbit --key rbits --bits 95850584 --k 7 --items 300000 --clients 50 --pipeline 16)"
  add "sadd 100" "$(cb --cmd sadd --key set1 --batch 100 --items 2e6 --start $((round * 10000000)) --clients 4 --pipeline 16)"
  add "smismember 100" "$(cb --cmd smismember --key set1 --batch 100 --items 2e6 --clients 4 --pipeline 16)"
  add "sismember" "$(rb "$N" SISMEMBER set1 __rand_int__)"
done

# ---- memory, FPR and RDB times after 10^7 distinct items ----------------------
cli FLUSHALL >/dev/null
before=$(mem used_memory)
cli BF.RESERVE big 0.01 "$FILL" >/dev/null
fill=$(cb --cmd bfx.madd64 --key big --batch 10000 --items "$FILL" --clients 2 --pipeline 4)
after=$(mem used_memory)
usage=$(cli MEMORY USAGE big)
fpr=$("$client" --port "$port" --cmd bfx.mexists64 --key big --batch 10000 --items "$FILL" --start 1e12 --clients 2 --pipeline 4 |
  sed -n 's/.*hit_fraction=\([0-9.]*\).*/\1/p')
t0=$(date +%s.%N); cli SAVE >/dev/null; t1=$(date +%s.%N)
cli DEBUG RELOAD NOSAVE >/dev/null; t2=$(date +%s.%N)
rdb_bytes=$(stat -c %s "$dir/dump.rdb")
info=$(cli BF.INFO big | tr '\n' ' ')
cli FLUSHALL >/dev/null
set_before=$(mem used_memory)
cb --cmd sadd --key set --batch 1000 --items "$FILL" --clients 4 --pipeline 4 >/dev/null
set_after=$(mem used_memory)

# ---- a grown filter: reserved for 10^5 items, fed FILL at EXPANSION 2 ---------
resp_madd() { # $1 items named $2<i>, 100 per BF.MADD on key g, as RESP (redis-cli --pipe input)
  awk -v n="$1" -v pre="$2" 'BEGIN { for (i = 0; i < n; i += 100) { m = n - i < 100 ? n - i : 100;
      printf "*%d\r\n$7\r\nBF.MADD\r\n$1\r\ng\r\n", m + 2;
      for (j = i; j < i + m; j++) { s = pre j; printf "$%d\r\n%s\r\n", length(s), s } } }'
}
resp_madd "$FILL" "item:" >"$dir/grow.resp"
cli FLUSHALL >/dev/null
grown_before=$(mem used_memory)
cli BF.RESERVE g 0.01 100000 EXPANSION 2 >/dev/null
g0=$(date +%s.%N)
cli --pipe <"$dir/grow.resp" >/dev/null
g1=$(date +%s.%N)
rm -f "$dir/grow.resp"
grown_after=$(mem used_memory)
grown_load=$(calc "$FILL / ($g1 - $g0)")
grown_layers=$(cli BF.INFO g FILTERS | tail -1)
absent=200000
grown_fp=$(awk -v n="$absent" 'BEGIN { for (i = 0; i < n; i += 100) { printf "BF.MEXISTS g"; for (j = i; j < i + 100; j++) printf " absent:%d", j; printf "\n" } }' |
  cli | awk '$1 == 1 { c++ } END { print c + 0 }')
grown_mexists=()
for ((round = 1; round <= rounds; round++)); do grown_mexists+=("$(calc "$(rb $((N / 100 * 4)) BF.MEXISTS g $(rands 100)) * 100")"); done

med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# "values..." -> their median with 3 significant digits: "1.23 M", "38.5 k"
mps() { awk -v v="$(med $1)" 'BEGIN { if (v >= 1e6) printf "%.3g M", v / 1e6; else printf "%.3g k", v / 1e3 }'; }
if [ "${BENCH_SHORT:-0}" = 1 ]; then
  # scripts/bench.sh's form: a few lines with units (the full tables: this script alone)
  # shellcheck disable=SC2086
  {
    what="median of $rounds rounds"; [ "$rounds" = 1 ] && what="one round"
    echo "Redis module: redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), 50 clients, pipeline 16, $what"
    printf '  %-37s %s req/s (PING %s req/s)\n' "BF.ADD / BF.EXISTS" "$(mps "${samples[bf.add]}") / $(mps "${samples[bf.exists]}")" "$(mps "${samples[ping]}")"
    printf '  %-37s %s items/s\n' "BF.MADD / BF.MEXISTS, 100 a command" "$(mps "${samples[bf.madd 100]}") / $(mps "${samples[bf.mexists 100]}")"
    printf '  %-37s %s items/s\n' "BFX.MADD64 / MEXISTS64, 10^4 a cmd" "$(mps "${samples[bfx.madd64 10000]}") / $(mps "${samples[bfx.mexists64 10000]}")"
    printf '  %-37s %s items/s\n' "SETBIT / GETBIT, k = 7 (Redisson)" "$(mps "${samples[setbit k=7]}") / $(mps "${samples[getbit k=7]}")"
    printf '  %-37s %s bits/item (MEMORY USAGE), FPR %s%% on absent items\n' "after $FILL items at 1%" \
      "$(awk "BEGIN { printf \"%.2f\", $usage * 8 / $FILL }")" "$(awk "BEGIN { printf \"%.3f\", $fpr * 100 }")"
    printf '  %-37s %s s / %s s\n' "SAVE / load (DEBUG RELOAD)" "$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")" \
      "$(awk "BEGIN { printf \"%.3f\", $t2 - $t1 }")"
    printf '  %-37s %s bits/item, FPR %s%%, load %s items/s, BF.MEXISTS x100 %s items/s\n' \
      "grown from 10^5 to $FILL (EXPANSION 2)" "$(calc "($grown_after - $grown_before) * 8 / $FILL")" \
      "$(calc "$grown_fp * 100 / $absent")" "$(awk -v v="$grown_load" 'BEGIN { printf "%.2f M", v / 1e6 }')" \
      "$(mps "${grown_mexists[*]}")"
  }
  exit 0
fi
echo
echo "| row | median [min - max] over $rounds rounds |"
echo "|---|---|"
for row in ping bf.add bf.exists add/ping exists/ping "bf.madd 100" "bf.mexists 100" "bf.madd 1000" \
  "bf.mexists 1000" "bfx.madd64 1000" "bfx.mexists64 1000" "bfx.madd64 10000" "bfx.mexists64 10000" \
  "setbit k=7" "getbit k=7" "sadd 100" "smismember 100" sismember; do
  # shellcheck disable=SC2086
  echo "| $row | $(median_range ${samples[$row]}) |"
done
echo
echo "| after $FILL distinct items (filter reserved for $FILL at 1%) | value |"
echo "|---|---|"
echo "| fill with BFX.MADD64, 10^4 keys per command | $fill items/s |"
echo "| used_memory delta | $((after - before)) bytes |"
echo "| MEMORY USAGE big | $usage bytes ($(calc "$usage * 8 / $FILL") bits/item) |"
echo "| measured FPR ($FILL absent keys) | $fpr |"
echo "| RDB file | $rdb_bytes bytes |"
echo "| SAVE | $(calc "$t1 - $t0") s |"
echo "| DEBUG RELOAD NOSAVE (load) | $(calc "$t2 - $t1") s |"
echo "| SADD set of $FILL items: used_memory delta | $((set_after - set_before)) bytes ($(calc "($set_after - $set_before) / $FILL") bytes/item) |"
echo "| Redisson bit string at 1% | $(calc "$FILL * 9.585 / 8") bytes (9.59 bits/item, k = 7) |"
echo "| BF.INFO big | $info |"
echo
echo "| grown filter: BF.RESERVE g 0.01 100000 EXPANSION 2, then $FILL items | value |"
echo "|---|---|"
echo "| layers | $grown_layers |"
echo "| load: BF.MADD x100 through redis-cli --pipe | $(calc "$grown_load") items/s |"
echo "| used_memory delta | $((grown_after - grown_before)) bytes ($(calc "($grown_after - $grown_before) * 8 / $FILL") bits/item) |"
echo "| measured FPR ($absent absent items) | $(calc "$grown_fp / $absent") ($grown_fp) |"
echo "| BF.MEXISTS x100, absent items (redis-benchmark -c 50 -P 16) | $(median_range "${grown_mexists[@]}") items/s |"
