#!/usr/bin/env bash
# install-deps.sh — everything the build, the bench and the full test suite
# need on a fresh Debian 12 machine, from Debian packages only. Idempotent:
# when everything is already installed it only checks (no network).
# Run as root (or with sudo available).
set -euo pipefail

packages=(
  # build
  gcc cmake ninja-build pkg-config
  # library dependencies
  libxxhash-dev          # XXH3 hashing
  libsimde-dev           # NEON kernel compiled on x86 through SIMDe
  # tests: Criterion; clang + compiler-rt for libFuzzer and sanitizers
  libcriterion-dev clang libclang-rt-14-dev
  # bench: peer library, plots, cache simulation, perf
  libbloom-dev gnuplot-nox valgrind linux-perf
  # the real aarch64 run: cross compiler and user-mode emulator
  gcc-aarch64-linux-gnu qemu-user
  # Go package (bindings/go): toolchain; bits-and-blooms (and the murmur3 its
  # go.mod names) for its comparison benchmarks, built offline from Debian's sources
  golang-go golang-github-willf-bloom-dev golang-github-twmb-murmur3-dev
)

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
  echo "install-deps: all ${#packages[@]} packages present"
fi

# aarch64 libraries for the cross test run: arm64 .debs unpacked into a private sysroot
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/aarch64-check.sh" ] && grep -q -- "--install-only" "$here/aarch64-check.sh"; then
  "$here/aarch64-check.sh" --install-only
fi
