#!/usr/bin/env bash
# java.sh BUILD_DIR — the Java package as a Maven user gets it, offline:
#   1. `mvn install` of bindings/java (Debian's plugins, maven-debian.xml) into an empty
#      local repository: org.bloomsimd:bloomsimd:0.1.0 with its pom, sources and javadoc
#      jars, the jar carrying BUILD_DIR's libbloomsimd_jni.so as
#      org/bloomsimd/native/linux-<arch>/ (and linux-aarch64 when BLOOMSIMD_JNI_AARCH64
#      names a directory holding a cross-built one: an AArch64 ELF exporting the same JNI
#      functions; no JVM here can load it);
#   2. a consumer Maven project in an empty directory declares the dependency and is
#      built offline (mvn -o) on that local repository alone;
#   3. its program, the example of bindings/java/README.md ("Install"), runs with the jar
#      from the local repository and no flag: the jar loads its own copy of the JNI
#      library, prints the example's answers and the kernels (the C library's list, the
#      same default kernel as BUILD_DIR's bloomsimd-example), and leaves no file in
#      java.io.tmpdir.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "java.sh: FAIL: $*" >&2; exit 1; }
case $(uname -m) in
  x86_64) arch=x86_64 ;;
  aarch64) arch=aarch64 ;;
  *) echo "java.sh: skipped: the pom names no jar directory for $(uname -m)"; exit 0 ;;
esac

repo=$work/m2
extra=()
[ -n "${BLOOMSIMD_JNI_AARCH64:-}" ] && extra+=("-Dbloomsimd.native.aarch64=$BLOOMSIMD_JNI_AARCH64")
(cd "$root/bindings/java" && mvn -q -s maven-debian.xml -Dmaven.repo.local="$repo" -Dbloomsimd.build="$build" \
  -DskipTests "${extra[@]}" install) >"$work/install.log" 2>&1 || { tail -n 40 "$work/install.log"; fail "mvn install"; }
art=$repo/org/bloomsimd/bloomsimd/0.1.0
for f in bloomsimd-0.1.0.pom bloomsimd-0.1.0.jar bloomsimd-0.1.0-sources.jar bloomsimd-0.1.0-javadoc.jar; do
  [ -s "$art/$f" ] || fail "mvn install left no $f in the local repository"
done
unzip -l "$art/bloomsimd-0.1.0.jar" >"$work/jar.txt"
grep -q "org/bloomsimd/native/linux-$arch/libbloomsimd_jni.so" "$work/jar.txt" || fail "the jar carries no linux-$arch JNI library"
natives=$(grep -o 'org/bloomsimd/native/linux-[a-z0-9_]*/libbloomsimd_jni.so' "$work/jar.txt" | sed 's|.*/\(linux-[a-z0-9_]*\)/.*|\1|' | tr '\n' ' ')
jni_symbols() { readelf --dyn-syms -W "$1" | awk '$5 == "GLOBAL" && $7 != "UND" && $8 ~ /^Java_/ { print $8 }' | sort; }
if [ -n "${BLOOMSIMD_JNI_AARCH64:-}" ]; then
  grep -q "linux-aarch64/libbloomsimd_jni.so" "$work/jar.txt" || fail "the jar carries no linux-aarch64 JNI library"
  (cd "$work" && unzip -q -o "$art/bloomsimd-0.1.0.jar" 'org/bloomsimd/native/*')
  a64=$work/org/bloomsimd/native/linux-aarch64/libbloomsimd_jni.so
  file "$a64" | grep -q "ARM aarch64" || fail "the jar's linux-aarch64 library is $(file -b "$a64")"
  [ "$(jni_symbols "$a64")" = "$(jni_symbols "$work/org/bloomsimd/native/linux-$arch/libbloomsimd_jni.so")" ] ||
    fail "the linux-aarch64 library exports other JNI functions than the linux-$arch one"
fi
echo "java.sh: mvn install: $(cd "$art" && ls | grep -c '\.jar$') jars and the pom in the local repository; JNI libraries in the jar: $natives"

# The consumer: the README's example as its main class, the dependency, Debian's plugin
# versions (the ones mvn install just put into the local repository), and a manifest
# whose class path is the dependency's jar in that repository.
mkdir -p "$work/consumer/src/main/java" "$work/tmp"
awk '/^## Install/ { on = 1 } on && /^```java$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' \
  "$root/bindings/java/README.md" >"$work/consumer/src/main/java/Hello.java"
grep -q "public static void main" "$work/consumer/src/main/java/Hello.java" || fail "bindings/java/README.md has no Hello under 'Install'"
awk '/^## Install/ { on = 1 } on && /^```xml$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' \
  "$root/bindings/java/README.md" >"$work/dependency.xml"
grep -q "<artifactId>bloomsimd</artifactId>" "$work/dependency.xml" || fail "bindings/java/README.md has no dependency under 'Install'"
# Offline: nothing is read but the local repository. The mirror only names the repository
# the plugins were cached from ("debian", as in maven-debian.xml): Maven serves a cached
# artifact only for the repository it came from.
cat >"$work/settings.xml" <<XML
<settings>
  <localRepository>$repo</localRepository>
  <offline>true</offline>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///nonexistent</url></mirror></mirrors>
</settings>
XML
cat >"$work/consumer/pom.xml" <<XML
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>hello</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
$(cat "$work/dependency.xml")
  </dependencies>
  <build>
    <finalName>hello</finalName>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId><version>3.3.0</version>
        <configuration><archive><manifest>
          <mainClass>Hello</mainClass><addClasspath>true</addClasspath>
          <classpathPrefix>$repo/</classpathPrefix><classpathLayoutType>repository</classpathLayoutType>
        </manifest></archive></configuration>
      </plugin>
    </plugins>
  </build>
</project>
XML
(cd "$work/consumer" && mvn -q -o -s "$work/settings.xml" package) >"$work/consumer.log" 2>&1 ||
  { tail -n 40 "$work/consumer.log"; fail "the consumer does not build offline on the local repository"; }
mkdir -p "$work/nolib"  # (no system copy on java.library.path can stand in for the jar's)
got=$(cd "$work" && java -Djava.io.tmpdir="$work/tmp" -Djava.library.path="$work/nolib" -jar consumer/target/hello.jar) || fail "the consumer's program failed"
echo "$got" | sed 's/^/consumer: /'
c_default=$("$build/bloomsimd-example" 1000 | sed -n 's/.*(default on this CPU: \([a-z0-9]*\)).*/\1/p')
c_kernels=$(sed -n 's/^BLOOMSIMD_KERNEL_ENTRY(\([a-z0-9]*\))$/\1/p' "$build/generated/kernel_list.inc" | tr '\n' ' ' | sed 's/ $//')
[ "$(sed -n 1p <<<"$got")" = "true true false" ] || fail "the example's answers"
[ "$(sed -n 2p <<<"$got")" = "default kernel $c_default" ] || fail "Java's default kernel is not the C library's ($c_default)"
[ "$(sed -n 3p <<<"$got")" = "kernels $c_kernels" ] || fail "the kernels are not the C library's ($c_kernels)"
[ -z "$(ls -A "$work/tmp")" ] || fail "the JNI library's copy was left in java.io.tmpdir: $(ls -A "$work/tmp")"
echo "java.sh: ok: mvn install into an empty local repository, a consumer built offline on it alone, its example run with the jar's own JNI library"
