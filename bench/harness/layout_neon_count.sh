#!/usr/bin/env bash
# AArch64 instructions per key, block512 (layout 2) vs split256 (layout 3), for
# the scalar and neon kernels, counted under qemu-aarch64 -singlestep (one
# "Trace" line per executed guest instruction): (count at 3 rounds - count
# at 1 round) / (2 * 4096 keys). Quoted in docs/kernels/default-layout.md.
# usage: layout_neon_count.sh PATH/TO/static/layout_neon_count
#   (build: see the header of bench/harness/layout_neon_count.c)
set -euo pipefail
bin=${1:?usage: $0 path/to/layout_neon_count (a static aarch64 binary)}
n=4096
count() { qemu-aarch64 -singlestep -d exec,nochain -D /dev/stdout "$bin" "$@" | grep -c '^Trace'; }
echo "op: kernel block512 split256 split256/block512"
for op in lookup lookup-present insert insert-new contains1 add1; do
  for k in scalar neon; do
    line="$op: $k"
    per=()
    for layout in 2 3; do
      a=$(count $k $layout $op 1)
      b=$(count $k $layout $op 3)
      per+=("$(awk -v a="$a" -v b="$b" -v n=$n 'BEGIN{printf "%.1f", (b-a)/(2*n)}')")
    done
    echo "$line ${per[0]} ${per[1]} $(awk -v x="${per[0]}" -v y="${per[1]}" 'BEGIN{printf "%.2f", y/x}')"
  done
done
