#!/usr/bin/env bash
# test.sh — the whole test suite, as CI runs it (README: "Run the tests").
#
#   release   gcc, -Werror, every suite once per kernel (+ consumer build, build checks,
#             no compiled file tracked in git)
#   clang     clang -Werror build of everything (compile check)
#   asan      ASan+UBSan build, every suite once per kernel (not the consumer and build checks,
#             which the release stage runs; the layered-filter suites not on sse42 and the
#             emulated neon: below), and the Python package's suite on it
#   tsan      TSan build, concurrency tests for every supported kernel (scripts/tsan.sh)
#   fuzz      libFuzzer on the deserializer, byte-key views and Parquet parsers under ASan+UBSan:
#             FUZZ_SECONDS (default 60) of fuzzing in two lanes side by side (scripts/fuzz.sh)
#   aarch64   cross-compiled suite under qemu-aarch64 + x86/aarch64 byte-identity (scripts/aarch64-check.sh)
#   bench     bloomsimd-bench on small sizes: it runs and checks its own results (no timing asserted)
#   go        the Go package (bindings/go): go vet, go test -race, the same for its Prometheus
#             collector (bindings/go/bloomsimdprom), its benchmarks on 10^5 keys
#   python    the Python package (bindings/python): its pytest suite on an in-tree build, then
#             pip install into a fresh venv (Debian's NumPy) and a check run outside the tree
#   java      the Java package (bindings/java): its JUnit 5 suite (every call against the C
#             library, the pure-Java probe under each BLOOMSIMD_KERNEL), then cmake --install
#             and a program compiled against the installed jar (bindings/java/install-check.sh),
#             mvn verify offline on Debian's Maven plugins, the benchmark on 10^5 keys
#   packages  each ecosystem's install as its users run it, offline (tests/packages/): go get
#             from a file module proxy into a consumer module, its example and go test
#             from the module cache; python3 -m build's sdist and wheel, each pip-installed
#             into a fresh venv and run through the package's suite; mvn install into an
#             empty local repository and a consumer project built offline on it alone; the
#             Debian packages (CPack in $out/deb), lintian, apt-get install, used, then purged
#
# STAGES="release asan" bash scripts/test.sh runs a subset. Exit status is
# non-zero if any stage fails; a summary with each stage's time is printed.
#
# bash scripts/test.sh --quick is a check under a minute once the release
# stage's build exists (it builds it if not): ctest on that build for the
# library's suites on this CPU's default kernel, the CLI's tests and the
# README's examples (labels kernel-<default>, cli, docs). No other stage runs.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${BLOOMSIMD_TEST_DIR:-$root/build-test}
stages=${STAGES:-release clang asan tsan fuzz aarch64 bench go python java packages}
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}
jobs=$(nproc)
declare -a summary
failed=0

configure_build() { # dir, cmake args...
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DBLOOMSIMD_WERROR=ON "$@" >"$dir.configure.log" 2>&1 &&
    cmake --build "$dir" -j "$jobs" >"$dir.build.log" 2>&1 ||
    { tail -n 50 "$dir.configure.log" "$dir.build.log" 2>/dev/null; return 1; }
}

stage_release() {
  bash tests/tracked_binaries.sh || return 1
  configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release &&
    (cd "$out/release" && ctest -j "$jobs" --output-on-failure --timeout 900)
}
stage_clang() {
  CC=clang configure_build "$out/clang" -DCMAKE_BUILD_TYPE=Release
}
stage_asan() {
  configure_build "$out/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMSIMD_SANITIZE=address,undefined \
    -DBLOOMSIMD_BUILD_BENCH=OFF &&
    # The suites of layered filters, their files and their estimates (scalable, window,
    # persist_layered, concurrency_new, estimate) spend their time in the library's own
    # code, which the scalar, avx2 and avx512 passes run under ASan; on sse42 and the
    # emulated neon (several times slower here) they were a fifth of this stage's test
    # time for no kernel code of their own. The release stage runs them on every kernel,
    # the aarch64 stage on the native neon.
    (cd "$out/asan" && BLOOMSIMD_TEST_QUICK=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest -j "$jobs" --output-on-failure --timeout 1200 -LE "^(consumer|build)$" \
        -E '^test_(scalable|window|persist_layered|concurrency_new|estimate)\.(sse42|neon)$') &&
    # the Python package's suite against the sanitized library (run.sh preloads the runtimes)
    BLOOMSIMD_SANITIZE=address,undefined bash bindings/python/tests/run.sh "$out/asan"
}
stage_tsan() { bash scripts/tsan.sh; }
stage_fuzz() { bash scripts/fuzz.sh "$FUZZ_SECONDS"; }
stage_aarch64() { bash scripts/aarch64-check.sh; }
stage_bench() {
  [ -x "$out/release/bench/bloomsimd-bench" ] || configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release
  # small sizes, every kernel including emulated ones, every output format;
  # the bench checks its own results (no false negatives, counts) and exits
  # non-zero if they are wrong. Timings are reported, never asserted.
  # The default report is the one-screen summary: at most 60 lines, ending
  # with the folder that holds report.txt and the data.
  rm -rf "$out/bench-smoke"
  "$out/release/bench/bloomsimd-bench" --keys 1e4,1e5 --reps 2 --queries 131072 --emulated --threads 2 --paired 20 --peer-rounds 10 \
    --quiet --out "$out/bench-smoke" >"$out/bench-smoke.txt" || { cat "$out/bench-smoke.txt"; return 1; }
  cat "$out/bench-smoke.txt"
  local lines
  lines=$(wc -l <"$out/bench-smoke.txt")
  [ "$lines" -le 60 ] || { echo "bench summary: $lines lines (more than 60)"; return 1; }
  tail -n 1 "$out/bench-smoke.txt" | grep -qF "$out/bench-smoke/report.txt" || { echo "bench summary: last line does not name the folder"; return 1; }
  for f in report.txt results.csv results.json; do
    test -s "$out/bench-smoke/$f" || { echo "bench: $out/bench-smoke/$f missing or empty"; return 1; }
  done
  grep -q "== verdict ==" "$out/bench-smoke/report.txt" || { echo "bench: report.txt lacks the full tables"; return 1; }
  # on an x86-64 CPU with AVX2, single keys are also measured as a -mavx2 program calls them
  # (the header's inline probe), against the peer's inlined probe
  if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
    grep -q "^single keys, one call per key" "$out/bench-smoke.txt" || { echo "bench: no inline single-key rows"; return 1; }
    grep -q "single-inline0" "$out/bench-smoke/results.csv" || { echo "bench: results.csv lacks single-inline0"; return 1; }
  fi
  # --verbose puts the full tables on stdout as well
  "$out/release/bench/bloomsimd-bench" --keys 1e4 --kernel scalar --reps 1 --queries 4096 --no-threads --paired 0 --peer-rounds 0 \
    --no-libbloom --quiet --verbose --out "$out/bench-verbose" | grep -q "== verdict ==" || { echo "bench --verbose: no full tables"; return 1; }
}
stage_go() {
  # (incremental: seconds after the release stage, and never a stale library when run alone)
  configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release || return 1
  # bindings/go/env.sh --cmake: the package linked with the release build's libbloomsimd.a
  # (no minute of C compiling per build mode; the packages stage tests the package's own
  # build of the library, from the module cache), offline modules, hashes in the cgo flags
  eval "$(bash bindings/go/env.sh --cmake "$out/release")" || return 1
  [ -n "${HOME:-}" ] || export GOCACHE=${GOCACHE:-$out/go-cache}
  (cd bindings/go && go vet ./... && go test -race -count=1 ./...) &&
    # the Prometheus collector: its own module on Debian's client_golang, scraped through promhttp
    (cd bindings/go/bloomsimdprom && go vet ./... && go test -race -count=1 ./...) &&
    (cd bindings/go/bench && go vet ./... &&
      go test -short -count=1 -run 'XXX' -bench . -benchtime 20000x . >"$out/go-bench-smoke.txt" 2>&1 &&
      tail -3 "$out/go-bench-smoke.txt")
}

stage_python() {
  # (incremental after the release stage, like go); always Debian's /usr/bin/python3
  configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release || return 1
  bash bindings/python/tests/run.sh "$out/release" || return 1
  # the README's install, offline, against the same library build (the venv's
  # pip is Debian's, seen through --system-site-packages: no copy of pip made)
  local venv=$out/python-venv
  rm -rf "$venv" && /usr/bin/python3 -m venv --system-site-packages --without-pip "$venv" &&
    BLOOMSIMD_BUILD_DIR=$out/release "$venv/bin/python" -m pip install -q --no-build-isolation --no-index ./bindings/python \
      >"$out/python-pip.log" 2>&1 || { tail -n 40 "$out/python-pip.log"; return 1; }
  (cd "$out" && "$venv/bin/python" "$root/bindings/python/tests/check_installed.py")
}

stage_java() {
  # (incremental after the release stage, like go: the release build holds the jar, the JNI
  # library and the tests when a JDK was found; alone, it configures that build itself)
  [ -f "$out/release/CMakeCache.txt" ] || configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release || return 1
  grep -q '^BLOOMSIMD_BUILD_JAVA:BOOL=ON' "$out/release/CMakeCache.txt" ||
    { echo "java: BLOOMSIMD_BUILD_JAVA is off in $out/release (no JDK 17: scripts/install-deps.sh --test)"; return 1; }
  cmake --build "$out/release" -j "$jobs" --target bloomsimd_java_all >"$out/java-build.log" 2>&1 ||
    { tail -n 40 "$out/java-build.log"; return 1; }
  (cd "$out/release" && ctest -j "$jobs" --output-on-failure -L java) || return 1
  bash bindings/java/install-check.sh "$out/release" || return 1
  # the pom against Debian's packaged Maven plugins (offline), when they are installed
  if command -v mvn >/dev/null && [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3 ]; then
    (cd bindings/java && mvn -q -s maven-debian.xml -Dbloomsimd.build="$out/release" verify) >"$out/java-maven.log" 2>&1 ||
      { tail -n 40 "$out/java-maven.log"; return 1; }
    echo "java: mvn verify ok ($(cat bindings/java/target/surefire-reports/*.txt | grep -o 'Tests run: [0-9]*' | awk '{s+=$3} END {print s}') tests)"
  else
    echo "java: mvn verify skipped (no maven or Debian's Maven plugins)"
  fi
  # the benchmark's short form: it runs, both filters have no false negatives
  if [ -f "$out/release/bindings/java/bench.sh" ]; then
    sh "$out/release/bindings/java/bench.sh" --quick --short >"$out/java-bench-smoke.txt" 2>&1 || { cat "$out/java-bench-smoke.txt"; return 1; }
    cat "$out/java-bench-smoke.txt"
  fi
}

stage_packages() {
  # (incremental after the release stage, like go: the consumers compare with that build)
  configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release || return 1
  [ -n "${HOME:-}" ] || export GOCACHE=${GOCACHE:-$out/go-cache}
  # the jar also carries an AArch64 JNI library when the aarch64 stage's cross build exists
  local a64=$root/build-aarch64-check/aarch64
  if [ -f "$a64/build.ninja" ] && ninja -C "$a64" bloomsimd_jni >"$out/jni-aarch64.log" 2>&1; then
    export BLOOMSIMD_JNI_AARCH64=$a64/bindings/java
  else
    unset BLOOMSIMD_JNI_AARCH64
    echo "packages: the jar carries no AArch64 JNI library (no cross build from the aarch64 stage)"
  fi
  # Two lanes side by side: go.sh's C compiling is one process (cgo compiles a package's
  # files one at a time), so it leaves a core to the other lane's builds.
  package_test go >"$out/packages-go.log" 2>&1 &
  local go_lane=$! rc=0 p
  for p in python java deb; do
    package_test $p || rc=1
  done
  wait $go_lane || rc=1
  cat "$out/packages-go.log"
  return $rc
}
package_test() { # go|python|java|deb: tests/packages/<it>.sh, timed
  local t dir=$out/release
  t=$(date +%s)
  [ "$1" = deb ] && dir=$out/deb # a build of its own: prefix /usr, Debian's flags
  bash "tests/packages/$1.sh" "$dir" || { echo "packages: $1 FAILED after $(($(date +%s) - t)) s"; return 1; }
  echo "packages: $1 ok in $(($(date +%s) - t)) s"
}

if [ "${1:-}" = --quick ]; then
  mkdir -p "$out"
  echo "building $out/release (log: $out/release.build.log) ..."
  configure_build "$out/release" -DCMAKE_BUILD_TYPE=Release || exit 1
  kernel=$("$out/release/bloomsimd-example" 1000 | sed -n 's/.*(default on this CPU: \([a-z0-9]*\)).*/\1/p')
  [ -n "$kernel" ] || { echo "test.sh --quick: bloomsimd-example did not name the default kernel" >&2; exit 1; }
  echo "quick check: the suites on kernel $kernel, the CLI, the README's examples"
  cd "$out/release" && exec ctest -j "$jobs" --output-on-failure --timeout 300 -L "^(kernel-$kernel|cli|docs)\$"
elif [ $# -gt 0 ]; then
  echo "usage: bash scripts/test.sh [--quick]   (STAGES=\"release asan\" selects stages)" >&2
  exit 2
fi

# Each stage's output also goes to $out/stage-<name>.log. A CI record often
# keeps only the end of the output, so a failed stage's last lines are printed
# again after the summary, where they cannot be cut off.
mkdir -p "$out"
declare -a failed_stages
for s in $stages; do
  echo "=============== stage: $s"
  start=$(date +%s)
  if "stage_$s" 2>&1 | tee "$out/stage-$s.log"; then result=ok; else result=FAILED; failed=1; failed_stages+=("$s"); fi
  summary+=("$(printf '%-8s %-6s %4ss' "$s" "$result" "$(($(date +%s) - start))")")
done
for s in "${failed_stages[@]}"; do
  echo "=============== why $s failed: the last 40 lines of $out/stage-$s.log"
  tail -n 40 "$out/stage-$s.log"
done
if ((failed)); then # what the environment gave the compilers (a stray CFLAGS breaks clang -Werror)
  echo "environment: CC=${CC-} CFLAGS=${CFLAGS-} CPPFLAGS=${CPPFLAGS-} LDFLAGS=${LDFLAGS-}"
  echo "compilers: $(gcc --version 2>&1 | head -n 1); $(clang --version 2>&1 | head -n 1); df: $(df -h "$out" | tail -n 1)"
fi
echo "=============== summary"
printf '%s\n' "${summary[@]}"
exit $failed
