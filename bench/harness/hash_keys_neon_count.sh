#!/usr/bin/env bash
# AArch64 instructions per key of bloomsimd_hash_keys, scalar vs neon filter,
# counted under qemu-aarch64 -singlestep (one "Trace" line per executed guest
# instruction): (count at 3 rounds - count at 1 round) / (2 * 4096 keys).
# usage: hash_keys_neon_count.sh PATH/TO/static/hash_keys_neon_count
set -euo pipefail
bin=${1:?usage: $0 path/to/hash_keys_neon_count (a static aarch64 binary)}
n=4096
count() { qemu-aarch64 -singlestep -d exec,nochain -D /dev/stdout "$bin" "$@" | grep -c '^Trace'; }
for case in "fixed 8" "fixed 16" "fixed 32" "fixed 64" "off32 8" "off32 16" "off32 32" "off32 64" "mixed32 0"; do
  line="$case:"
  for k in scalar neon; do
    a=$(count $k $case 1)
    b=$(count $k $case 3)
    line="$line $k $(awk -v a="$a" -v b="$b" -v n=$n 'BEGIN{printf "%.1f", (b-a)/(2*n)}')"
  done
  echo "$line"
done
