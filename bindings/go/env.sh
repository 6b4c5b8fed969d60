#!/usr/bin/env bash
# env.sh [--cmake] [BUILD_DIR] — the environment the Go package is developed and tested
# with in a checkout, as export lines for eval (README "Building from a checkout"):
#
#   eval "$(bash bindings/go/env.sh build)" && cd bindings/go && go test -race ./...
#
# The package compiles the library's sources itself (cgo.go); BUILD_DIR (default: the
# repository's build/) is a top-level CMake build that the tests compare against. Why
# each variable:
#   BLOOMSIMD_BUILD_DIR  the interop test links a C program with BUILD_DIR's
#                        libbloomsimd.a, and the CLI test runs BUILD_DIR's bloomsimd
#   CGO_CFLAGS           -g -O2 (cgo's default, which CGO_CFLAGS replaces) plus a hash
#                        of the library's sources and of BUILD_DIR's libbloomsimd.a: the
#                        Go build cache keys a cgo package on its own directory's files
#                        and its flags, never on the files its lib_*.c include or on a
#                        library it links, so without the hash an edited src/ or
#                        kernels/ file could be linked from a stale cached package
#   GOFLAGS, GOPROXY     offline: no module download, ever (bench/go.mod replaces
#                        every dependency with a Debian source tree)
#
# --cmake links BUILD_DIR's libbloomsimd.a instead of compiling the library (-tags
# bloomsimd_system, with PKG_CONFIG_PATH at a bloomsimd.pc written into
# BUILD_DIR/go-pkgconfig): seconds instead of a minute of C compiling for every build
# mode. The go stage of scripts/test.sh uses it; the packages stage tests the package's
# own build of the library (tests/packages/go.sh, from the module cache).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cmake_lib=0
[ "${1:-}" = --cmake ] && { cmake_lib=1; shift; }
build=$(cd "${1:-$root/build}" && pwd)
lib=$build/libbloomsimd.a
[ -f "$lib" ] || { echo "env.sh: $lib missing: cmake --build $build --target bloomsimd_static" >&2; exit 1; }
src_id=$( (cd "$root" && find include src kernels dispatch bindings/go -maxdepth 3 -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) | LC_ALL=C sort | xargs sha256sum; sha256sum "$lib") |
  sha256sum | cut -c1-16)
echo "export BLOOMSIMD_BUILD_DIR='$build'"
echo "export CGO_CFLAGS='-g -O2 -DBLOOMSIMD_SRC_ID=0x$src_id'"
if ((cmake_lib)); then
  mkdir -p "$build/go-pkgconfig"
  cat >"$build/go-pkgconfig/bloomsimd.pc" <<PC
Name: bloomsimd
Description: libbloomsimd.a of the CMake build $build (bindings/go/env.sh --cmake)
Version: 0.1.0
Libs: $lib -l:libxxhash.a -lm -lpthread
Cflags: -I$root/include -DBLOOMSIMD_STATIC_DEFINE
PC
  echo "export PKG_CONFIG_PATH='$build/go-pkgconfig'"
  echo "export GOFLAGS='-mod=mod -tags=bloomsimd_system' GOPROXY=off"
else
  echo "export GOFLAGS=-mod=mod GOPROXY=off"
fi
