#!/usr/bin/env bash
# install-deps.sh — Debian 12 packages, in two sets (Debian's archive only):
#
#   bash scripts/install-deps.sh          the main job: what building everything
#                                         and running the benchmark needs
#   bash scripts/install-deps.sh --test   also what the whole test suite needs
#                                         (CI and the README's test command):
#                                         clang, the aarch64 cross tools and
#                                         their arm64 sysroot, and the tools
#                                         behind the bench's optional modes
#
# Idempotent: when a set is installed it only checks, with no network and no
# apt-get update. The main job never touches dpkg's architectures; --test may
# add arm64 (scripts/aarch64-check.sh --install-only says why it needs it).
# Run as root, or with sudo available.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

mode=bench
case "${1:-}" in
  "") ;;
  --test) mode=test ;;
  *) echo "usage: install-deps.sh [--test]" >&2; exit 2 ;;
esac

# ---- the main job: build what the benchmarks run (scripts/bench.sh builds no
# test suite) and run bloomsimd-bench and the clients' short benchmarks ----
bench_packages=(
  gcc cmake ninja-build pkg-config
  libxxhash-dev          # XXH3 hashing
  libsimde-dev           # the NEON kernel is compiled on x86 through SIMDe
  libbloom-dev           # the bench's libbloom reference rows
  gnuplot-nox            # the bench's chart in its output folder
  # clients (redis/, cli/, bindings/go/): what their build and short benchmark need
  redis-server redis-tools  # Redis module: the server and redis-benchmark for redis/bench
  time                   # CLI benchmark (cli/bench): peak RSS from GNU time
  # Go package (bindings/go): toolchain; bits-and-blooms (and the murmur3 its
  # go.mod names) for its comparison benchmarks, built offline from Debian's sources
  golang-go golang-github-willf-bloom-dev golang-github-twmb-murmur3-dev
  golang-github-greatroar-blobloom-dev  # Go benchmark: blobloom, the blocked filter its single keys are compared with
  # Python package (bindings/python): its build, and its benchmark's peers (a set, flor, redis-py)
  python3-dev python3-numpy python3-setuptools python3-flor python3-redis
  # Java package (bindings/java): its short benchmark beside Guava
  openjdk-17-jdk-headless libguava-java
)

# ---- the test suite, on top of the above ----
test_packages=(
  clang libclang-rt-14-dev                               # clang stage, libFuzzer, sanitizers
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user  # the aarch64 stage
  libcriterion-dev                                       # the Criterion test suites
  valgrind linux-perf                                    # bench/cachegrind.sh, --perf
  # clients: what their tests need beyond the main job's packages
  python3-redis python3-pytest  # Redis module tests (redis/tests), run by Debian's /usr/bin/python3
  # Python package (bindings/python): build, tests, pip install into a venv on Debian's NumPy
  python3-dev python3-numpy python3-setuptools python3-pip python3-venv
  # Java package (bindings/java): JDK 17, the JUnit 5 console launcher, Guava for the benchmark
  openjdk-17-jdk-headless junit5 libguava-java
  maven libmaven-compiler-plugin-java libsurefire-java libmaven-jar-plugin-java libmaven-resources-plugin-java
  libmaven-install-plugin-java  # bindings/java/pom.xml offline (maven-debian.xml)
  # the metrics exporters' tests: Go's collector module (bindings/go/bloomsimdprom) and
  # Python's bloomsimd.metrics, each on its ecosystem's Prometheus client
  golang-github-prometheus-client-golang-dev python3-prometheus-client
  # installs as each ecosystem's users run them (tests/packages/)
  golang-golang-x-mod-dev  # go.sh: the module zip made by the code the go command uses
  python3-build python3-wheel  # python.sh: python3 -m build --no-isolation, the sdist and the wheel
  libmaven-source-plugin-java libmaven-javadoc-plugin-java  # java.sh: mvn install's sources and javadoc jars
  lintian dpkg-dev unzip  # deb.sh: lintian, dpkg-shlibdeps and dpkg-buildflags; go.sh, java.sh: zip listings
)

packages=("${bench_packages[@]}")
[ "$mode" = test ] && packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all ${#packages[@]} packages of the $mode set present"
fi

# the test set also prepares the arm64 sysroot (arm64 .debs unpacked into a
# private directory; the host's packages are not touched)
if [ "$mode" = test ]; then
  "$here/aarch64-check.sh" --install-only
fi
