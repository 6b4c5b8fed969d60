#!/usr/bin/env bash
# install-check.sh [BUILD_DIR] — proves an installed Java package works: installs BUILD_DIR
# (default: the repository's build/) into a temporary prefix with `cmake --install`, checks
# that bloomsimd.jar landed in PREFIX/share/java and libbloomsimd_jni.so in PREFIX/lib, then
# compiles a program against the installed jar only and runs it twice: with no flag (the
# package finds its JNI library next to the jar) and with -Djava.library.path=PREFIX/lib.
# Then the README's examples: its ```java blocks compile against the installed jar as written,
# the cache-penetration guard answers right and turns missing ids away, and a filter that
# Emails.publish saves is queried by the installed bloomsimd command.
# Exit status 0 if every run prints the expected answers.
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

# The README's examples: each ```java block is a compilation unit (file named after its
# first class), compiled as written; ReadmeCheck drives them.
mkdir -p "$work/readme"
awk -v dir="$work/readme" '
  /^```java[ \t]*$/ { inblock = 1; n++; file = sprintf("%s/block%d.java.txt", dir, n); next }
  inblock && /^```[ \t]*$/ { inblock = 0; close(file); next }
  inblock { print > file }
' "$root/bindings/java/README.md"
blocks=0
for b in "$work"/readme/block*.java.txt; do
  [ -f "$b" ] || continue
  cls=$(sed -n 's/^\(public \)\{0,1\}\(final \)\{0,1\}class \([A-Za-z0-9_]*\).*/\3/p' "$b" | head -n 1)
  [ -n "$cls" ] || { echo "install-check: a README java block has no class" >&2; exit 1; }
  cp "$b" "$work/readme/$cls.java"
  blocks=$((blocks + 1))
done
[ -f "$work/readme/UserCache.java" ] && [ -f "$work/readme/Emails.java" ] ||
  { echo "install-check: the README lost its UserCache or Emails example ($blocks java blocks)" >&2; exit 1; }
cat >"$work/readme/ReadmeCheck.java" <<'JAVA'
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class ReadmeCheck {
    public static void main(String[] args) {
        Map<Long, User> rows = new HashMap<>();
        long[] ids = new long[100_000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1_000_000L + 7L * i;
            rows.put(ids[i], new User(ids[i], "user" + i));
        }
        int[] dbLoads = {0};
        Database db = id -> {
            dbLoads[0]++;
            return rows.get(id);
        };
        Cache cache = id -> null;
        UserCache users = new UserCache(cache, db, ids);
        for (long id : ids) {
            if (users.get(id) == null || users.get(id).id() != id) {
                throw new AssertionError("an existing user refused: " + id);
            }
        }
        dbLoads[0] = 0;
        int missing = 100_000;
        for (long id = -1; id >= -missing; id--) {
            if (users.get(id) != null) {
                throw new AssertionError("a user that does not exist: " + id);
            }
        }
        // fpp 0.001 at 5e7 capacity holding 1e5 ids: almost every missing id stops at the filter
        if (dbLoads[0] > missing / 100) {
            throw new AssertionError(dbLoads[0] + " database loads for " + missing + " missing ids");
        }
        users.created(42);
        rows.put(42L, new User(42, "new"));
        if (users.get(42) == null) {
            throw new AssertionError("a created user refused");
        }
        Emails.publish(List.of("ann@example.com", "bob@example.com"), Path.of(args[0]));
        System.out.println("guard ok: " + dbLoads[0] + " database loads for " + missing + " missing ids");
    }
}
JAVA
# (-auxiliaryclass: the guard example declares its Cache, Database and User beside UserCache)
javac --release 17 -Xlint:all,-auxiliaryclass -Werror -cp "$jar" -d "$work/readme-classes" "$work"/readme/*.java
(cd "$work" && java -cp "$jar:$work/readme-classes" ReadmeCheck "$work/emails.bsf") ||
  { echo "install-check: the README's examples FAILED" >&2; exit 1; }
got=$(printf 'ann@example.com\ncarl@example.com\nbob@example.com\n' | "$prefix/bin/bloomsimd" query "$work/emails.bsf")
[ "$got" = "$(printf 'ann@example.com\nbob@example.com')" ] ||
  { echo "install-check: bloomsimd query of the README's Emails file printed '$got'" >&2; exit 1; }
echo "install-check: ok: the README's $blocks java examples compile and run; the CLI reads their file"
