#!/usr/bin/env bash
# env.sh [BUILD_DIR] — the environment the Go package builds and tests with,
# as export lines for eval (README "Building"):
#
#   eval "$(bash bindings/go/env.sh build)" && cd bindings/go && go test -race ./...
#
# BUILD_DIR (default: the repository's build/) is a top-level CMake build
# holding libbloomsimd.a. Why each variable:
#   CGO_LDFLAGS          -L BUILD_DIR: searched before the package's default ../../build
#   BLOOMSIMD_BUILD_DIR  the same, for the interop test that links a C program
#   CGO_CFLAGS           -g -O2 (cgo's default, which CGO_CFLAGS replaces) plus
#                        hashes of include/bloomsimd.h and libbloomsimd.a: the Go
#                        build cache keys a cgo package on its own directory's
#                        files and on these flags, never on a header or library
#                        outside it, so without them a changed header could be
#                        compiled against a stale cached package
#   GOFLAGS, GOPROXY     offline: no module download, ever (bench/go.mod
#                        replaces every dependency with a Debian source tree)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
lib=$build/libbloomsimd.a
[ -f "$lib" ] || { echo "env.sh: $lib missing: cmake --build $build --target bloomsimd_static" >&2; exit 1; }
header_id=$(sha256sum "$root/include/bloomsimd.h" | cut -c1-16)
lib_id=$(sha256sum "$lib" | cut -c1-16)
echo "export CGO_LDFLAGS='-L$build'"
echo "export BLOOMSIMD_BUILD_DIR='$build'"
echo "export CGO_CFLAGS='-g -O2 -DBLOOMSIMD_HEADER_ID=0x$header_id -DBLOOMSIMD_LIB_ID=0x$lib_id'"
echo "export GOFLAGS=-mod=mod GOPROXY=off"
