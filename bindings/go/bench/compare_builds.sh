#!/usr/bin/env bash
# compare_builds.sh BUILD_DIR [ROUNDS] — the Go package's speed as `go get` builds it
# against the same package linked with the CMake build's library. A benchmark: it prints,
# it asserts nothing.
#
#   module cache  this bench module requiring github.com/libbloomsimd/libbloomsimd v0.1.0
#                 from a file module proxy of this tree (tests/packages/goproxy.sh): cgo
#                 compiles the library from the module zip in the module cache (cgo.go)
#   CMake         the same bench module on this tree with -tags bloomsimd_system, its
#                 pkg-config pointing at BUILD_DIR's libbloomsimd.a (static, as the
#                 package linked it before it compiled the library itself)
#
# Both test binaries run the same benchmarks (bloomsimd's batch and single-key add and
# contains of uint64 and 16-byte string keys, and insert-new; BLOOMSIMD_BENCH_SIZES,
# default 1e5,1e7) in ROUNDS rounds (default 21), one after the other, the order
# alternating each round. Per benchmark it prints each build's median CPU ns/key
# (the thread's CPU time: see README "Benchmarks") and the median, min and max over the
# rounds of the per-round ratio module-cache / CMake: 1.00 is equal speed.
#
#   bash bindings/go/bench/compare_builds.sh build 21
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "$1" && pwd)
rounds=${2:-21}
export BLOOMSIMD_BENCH_SIZES=${BLOOMSIMD_BENCH_SIZES:-1e5,1e7}
benchtime=${BLOOMSIMD_BENCH_KEYS:-2000000}
pattern='^Benchmark(AddUint64|ContainsUint64|AddStr16|ContainsStr16|InsertNewUint64)$/.*/bloomsimd'
work=$(mktemp -d)
cleanup() { GOPATH=$work/gopath GOFLAGS= go clean -modcache 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
[ -f "$build/libbloomsimd.a" ] || { echo "compare_builds.sh: $build/libbloomsimd.a missing" >&2; exit 1; }
unset CGO_CFLAGS CGO_LDFLAGS

# module cache: a copy of this module's go.mod and tests, without the replace of the root
bash "$root/tests/packages/goproxy.sh" "$work/proxy" >/dev/null
mkdir -p "$work/modcache"
cp "$here"/*_test.go "$work/modcache/"
cp -R "$here/testify-stub" "$work/modcache/"
sed -e 's#^\(\s*github.com/libbloomsimd/libbloomsimd\) v0.0.0#\1 v0.1.0#' \
  -e '/^replace github.com\/libbloomsimd\/libbloomsimd =>/d' "$here/go.mod" >"$work/modcache/go.mod"
(cd "$work/modcache" && GOPATH=$work/gopath GOPROXY=file://$work/proxy GOFLAGS=-mod=mod GOSUMDB=off \
  go test -c -o "$work/modcache.test" .)

# CMake: this tree's package linked with BUILD_DIR's static library through pkg-config
mkdir -p "$work/pc"
cat >"$work/pc/bloomsimd.pc" <<PC
Name: bloomsimd
Description: the CMake build's static libbloomsimd
Version: 0.1.0
Libs: $build/libbloomsimd.a -l:libxxhash.a -lm -lpthread
Cflags: -I$root/include -DBLOOMSIMD_STATIC_DEFINE
PC
(cd "$here" && PKG_CONFIG_PATH=$work/pc GOFLAGS=-mod=mod GOPROXY=off \
  CGO_CFLAGS="-g -O2 -DBLOOMSIMD_LIB_ID=0x$(sha256sum "$build/libbloomsimd.a" | cut -c1-16)" \
  go test -c -tags bloomsimd_system -o "$work/cmake.test" .)

echo "compare_builds.sh: $rounds rounds, sizes $BLOOMSIMD_BENCH_SIZES, $benchtime keys per benchmark; $(date -u '+%Y-%m-%d %H:%M UTC')"
for ((r = 1; r <= rounds; r++)); do
  order="modcache cmake"
  ((r % 2)) || order="cmake modcache"
  for b in $order; do
    (cd "$here" && "$work/$b.test" -test.run XXX -test.bench "$pattern" -test.benchtime "${benchtime}x") |
      awk -v b="$b" -v r="$r" '/^Benchmark/ { for (i = 3; i < NF; i += 2) if ($(i + 1) == "cpu-ns/op") print r, b, $1, $i }'
  done
done >"$work/results.txt"
awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { name = $3; sub(/-[0-9]+$/, "", name); v[$1, $2, name] = $4; if (!(name in seen)) { seen[name] = 1; order[++k] = name }
    rounds[$1] = 1 }
  END {
    printf "%-56s %10s %10s %8s %13s\n", "CPU ns/key, median", "mod cache", "CMake", "ratio", "[min - max]"
    for (i = 1; i <= k; i++) {
      n = order[i]; m = ""; c = ""; x = ""; lo = 1e9; hi = 0
      for (r in rounds) {
        if ((r, "modcache", n) in v && (r, "cmake", n) in v) {
          m = m " " v[r, "modcache", n]; c = c " " v[r, "cmake", n]
          q = v[r, "modcache", n] / v[r, "cmake", n]; x = x " " q
          if (q < lo) lo = q; if (q > hi) hi = q
        }
      }
      printf "%-56s %10.2f %10.2f %8.3f [%.3f - %.3f]\n", n, median(m), median(c), median(x), lo, hi
    }
  }' "$work/results.txt"
