#!/usr/bin/env bash
# variant_library.sh — a shared library from a release build's objects with one kernel file
# compiled again (from another source tree, or with extra flags), for library_ab.c:
#
#   bash bench/harness/variant_library.sh BUILD_DIR KERNEL OUT.so [SRC_DIR] [-DNAME=VALUE ...]
#
#   # this tree's avx2.c against the one of the last commit
#   mkdir -p /tmp/head && git archive HEAD kernels include | tar -x -C /tmp/head
#   bash bench/harness/variant_library.sh build avx2 /tmp/a.so /tmp/head
#   bash bench/harness/variant_library.sh build avx2 /tmp/b.so
#   cc -O2 -Iinclude bench/harness/library_ab.c -ldl -lm -o /tmp/ab
#   BLOOMSIMD_KERNEL=avx2 /tmp/ab /tmp/a.so /tmp/b.so 1e7
#
# The kernel is compiled with the exact command the build uses for it (ninja -t commands), so
# only the source or the -D flags differ between two variants. The other tree's kernel table
# must have the layout of this one's (kernels/kernel.h): the rest of the library reads it.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,14p' "$0"; exit 2; }
build=$(cd "$1" && pwd) kernel=$2 out=$3
shift 3
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then src=$(cd "$1" && pwd); shift; fi
cmd=$(cd "$build" && ninja -t commands bloomsimd_objects 2>/dev/null | grep -m1 "kernels/$kernel\.c") ||
  { echo "variant_library.sh: no compile command for kernels/$kernel.c in $build" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the build's command, writing elsewhere, reading the chosen tree, with the extra flags
cmd=$(printf '%s\n' "$cmd" | sed -e 's/ -MD -MT [^ ]* -MF [^ ]*//' -e "s| -o [^ ]*\.o | -o $tmp/$kernel.o |" \
  -e "s| -c [^ ]*kernels/$kernel\.c| -c $src/kernels/$kernel.c|" -e "s|-I[^ ]*/include |-I$src/include |")
(cd "$build" && eval "$cmd $*")
objs=$(find "$build/CMakeFiles/bloomsimd_objects.dir" -name '*.o' ! -name "$kernel.c.o")
cc -shared -o "$out" $objs "$tmp/$kernel.o" -lxxhash -lm -lpthread
echo "$out"
