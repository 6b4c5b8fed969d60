#!/usr/bin/env bash
# run.sh BUILD_DIR — install BUILD_DIR into a scratch prefix, then build and run
# the consumer four ways: CMake package (shared, static) and pkg-config
# (shared, --static). Fails on the first thing that does not work.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null

echo "== CMake package: find_package(bloomsimd CONFIG)"
cmake -S "$here/project" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/$(gcc -print-multiarch 2>/dev/null || true)" "$scratch/cmake/consumer_shared"
"$scratch/cmake/consumer_static"
# the shared consumer must really use the shared library
ldd "$scratch/cmake/consumer_shared" >"$scratch/ldd.txt"
if grep -q "libbloomsimd.so.0 => $prefix" "$scratch/ldd.txt"; then echo "consumer_shared links libbloomsimd.so.0"; else echo "consumer_shared is not dynamically linked"; exit 1; fi

echo "== pkg-config bloomsimd"
pcdir=$(dirname "$(find "$prefix" -name bloomsimd.pc | head -1)")
export PKG_CONFIG_PATH="$pcdir"
libdir=$(pkg-config --variable=libdir bloomsimd)
cc "$here/consumer.c" -o "$scratch/pc_shared" $(pkg-config --cflags --libs bloomsimd)
LD_LIBRARY_PATH="$libdir" "$scratch/pc_shared"
cc "$here/consumer.c" -o "$scratch/pc_static" $(pkg-config --cflags bloomsimd) -DBLOOMSIMD_STATIC_DEFINE \
   "$libdir/libbloomsimd.a" $(pkg-config --libs-only-l --static bloomsimd | sed 's/-lbloomsimd//')
"$scratch/pc_static"
echo "consumer builds: all four OK"
