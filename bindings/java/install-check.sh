#!/usr/bin/env bash
# install-check.sh [BUILD_DIR] — proves an installed Java package works: installs BUILD_DIR
# (default: the repository's build/) into a temporary prefix with `cmake --install`, checks
# that bloomsimd.jar landed in PREFIX/share/java and libbloomsimd_jni.so in PREFIX/lib, then
# compiles a program against the installed jar only and runs it twice: with no flag (the
# package finds its JNI library next to the jar) and with -Djava.library.path=PREFIX/lib.
# Exit status 0 if both runs print the expected answers.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
jar=$prefix/share/java/bloomsimd.jar
jni=$(find "$prefix/lib" -name libbloomsimd_jni.so | head -n 1)
[ -f "$jar" ] || { echo "install-check: $jar missing" >&2; exit 1; }
[ -n "$jni" ] || { echo "install-check: libbloomsimd_jni.so missing under $prefix/lib" >&2; exit 1; }
mkdir -p "$work/src"
cat >"$work/src/Guard.java" <<'JAVA'
import java.nio.file.Path;
import org.bloomsimd.BloomFilter;

public class Guard {
    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
            f.put("user:42");
            f.putAll(new long[] {1, 2, 3});
            f.save(file);
        }
        try (BloomFilter g = BloomFilter.map(file)) {
            System.out.println(g.mightContain("user:42") + " " + g.mightContain(2L) + " " + g.mightContainAll(new long[] {3})[0]
                    + " " + BloomFilter.libraryVersion());
        }
    }
}
JAVA
javac --release 17 -cp "$jar" -d "$work/classes" "$work/src/Guard.java"
expected="true true true"
for flags in "" "-Djava.library.path=$(dirname "$jni")"; do
  # shellcheck disable=SC2086
  got=$(cd "$work" && java $flags -cp "$jar:$work/classes" Guard "$work/f.bsf")
  case $got in
    "$expected "*) echo "install-check: ok (${flags:-no flag}): $got" ;;
    *) echo "install-check: FAILED (${flags:-no flag}): got '$got'" >&2; exit 1 ;;
  esac
done
