#!/usr/bin/env bash
# env.sh [BUILD_DIR] — the environment the Go package is developed and tested
# with in a checkout, as export lines for eval (README "Building from a checkout"):
#
#   eval "$(bash bindings/go/env.sh build)" && cd bindings/go && go test -race ./...
#
# The package compiles the library's sources itself (cgo.go); BUILD_DIR
# (default: the repository's build/) is a top-level CMake build that the
# tests compare against. Why each variable:
#   BLOOMSIMD_BUILD_DIR  the interop test links a C program with BUILD_DIR's
#                        libbloomsimd.a, and the CLI test runs BUILD_DIR's bloomsimd
#   CGO_CFLAGS           -g -O2 (cgo's default, which CGO_CFLAGS replaces) plus a
#                        hash of the library's sources: the Go build cache keys a
#                        cgo package on its own directory's files and its flags,
#                        never on the files its lib_*.c include, so without the
#                        hash an edited src/ or kernels/ file would be linked
#                        from a stale cached package
#   GOFLAGS, GOPROXY     offline: no module download, ever (bench/go.mod
#                        replaces every dependency with a Debian source tree)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
lib=$build/libbloomsimd.a
[ -f "$lib" ] || { echo "env.sh: $lib missing: cmake --build $build --target bloomsimd_static" >&2; exit 1; }
src_id=$(cd "$root" && find include src kernels dispatch bindings/go -maxdepth 3 -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
echo "export BLOOMSIMD_BUILD_DIR='$build'"
echo "export CGO_CFLAGS='-g -O2 -DBLOOMSIMD_SRC_ID=0x$src_id'"
echo "export GOFLAGS=-mod=mod GOPROXY=off"
