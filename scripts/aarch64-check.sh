#!/usr/bin/env bash
# aarch64-check.sh — the real AArch64 run: cross-build libbloomsimd and its
# whole Criterion suite with gcc-aarch64-linux-gnu, run the suite under
# qemu-aarch64 on the (native) neon kernel, beside the scalar kernel it is
# checked against, and prove that the same filters have the same bytes on
# x86-64 (every kernel this CPU runs) and on AArch64 (scalar and neon). Exits
# non-zero on any failure or mismatch.
#
#   scripts/aarch64-check.sh [--install-only] [BUILD_ROOT]
#
# BUILD_ROOT (default build-aarch64-check/ in the repository, git-ignored)
# holds the x86 build, the AArch64 build, the downloaded .debs and the
# unpacked arm64 sysroot. Idempotent: a second run downloads nothing and
# only rebuilds what changed. --install-only stops after the packages.
#
# Packages, all from the Debian archive:
#   host (apt-get install): gcc cmake ninja-build pkg-config libxxhash-dev
#     libcriterion-dev libsimde-dev gcc-aarch64-linux-gnu
#     libc6-dev-arm64-cross qemu-user
#   arm64 (dpkg --add-architecture arm64, then apt-get download + dpkg-deb -x
#     into BUILD_ROOT/sysroot; nothing is installed into the host's dpkg):
#     the ARM64_DEBS list below = libxxhash and Criterion with the run-time
#     closure of libcriterion3 (libc and libgcc come from the cross packages).
#   Why unpack instead of installing libcriterion-dev:arm64 as multiarch:
#   libnanomsg5, libnanomsg-dev and libhttp-parser-dev are not
#   "Multi-Arch: same", so apt removes the host's amd64 Criterion to make room.
#
# binfmt_misc is not needed: CTest calls qemu explicitly
# (CMAKE_CROSSCOMPILING_EMULATOR in cmake/toolchains/aarch64-linux-gnu.cmake),
# and tests/cross/qemu_exec_shim.c lets Criterion re-execute itself.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

install_only=0
if [ "${1:-}" = "--install-only" ]; then
  install_only=1
  shift
fi
root=${1:-$repo/build-aarch64-check}
mkdir -p "$root"
root=$(cd "$root" && pwd)

start=$(date +%s)
step_start=$start
step() {
  local now
  now=$(date +%s)
  printf '[aarch64-check] %4ss (+%ss) %s\n' "$((now - start))" "$((now - step_start))" "$*"
  step_start=$now
}

host_packages=(gcc cmake ninja-build pkg-config libxxhash-dev libcriterion-dev libsimde-dev
               gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
ARM64_DEBS=(libxxhash0 libxxhash-dev libcriterion3 libcriterion-dev
            libffi8 libgit2-1.5 libnanomsg5 libhttp-parser2.9 libpcre2-8-0 libssh2-1 libssl3 zlib1g
            libmbedcrypto7 libmbedtls14 libmbedx509-1
            libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
            # .pc files that criterion.pc names in Requires.private (pkg-config checks they exist)
            libboxfort-dev libffi-dev libgit2-dev libnanomsg-dev libpcre2-dev zlib1g-dev)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# ---- 1. host packages (only when something is missing) -----------------------
missing=()
for p in "${host_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
  need_update=1
fi
if ! apt-cache show libcriterion3:arm64 >/dev/null 2>&1; then need_update=1; fi
if [ "${need_update:-0}" = 1 ] || ((${#missing[@]})); then
  $SUDO apt-get update -qq
fi
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
step "host packages present (${#host_packages[@]}; installed now: ${missing[*]:-none})"

# ---- 2. arm64 sysroot from Debian .debs -----------------------------------------
debs=$root/debs
sysroot=$root/sysroot
mkdir -p "$debs"
want=()
for p in "${ARM64_DEBS[@]}"; do want+=("$p:arm64"); done
stamp_text="${want[*]}"
if [ ! -f "$sysroot/.stamp" ] || [ "$(cat "$sysroot/.stamp")" != "$stamp_text" ]; then
  rm -rf "$debs"/*.deb "$sysroot"
  (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${want[@]}" >/dev/null)
  mkdir -p "$sysroot"
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
  printf '%s' "$stamp_text" >"$sysroot/.stamp"
  step "arm64 sysroot unpacked from $(find "$debs" -name "*.deb" | wc -l) Debian packages"
else
  step "arm64 sysroot up to date ($(find "$debs" -name "*.deb" | wc -l) packages)"
fi
[ "$install_only" = 1 ] && exit 0

jobs=$(nproc 2>/dev/null || echo 2)

# ---- 3. x86-64 build: the digest program -----------------------------------------
cmake -S "$repo" -B "$root/x86" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMSIMD_BUILD_BENCH=OFF >/dev/null
ninja -C "$root/x86" -j "$jobs" bloomsimd-cross-digest >/dev/null
step "x86-64 digest built"

# ---- 4. AArch64 build: library, the whole test suite, the digest -----------------
cmake -S "$repo" -B "$root/aarch64" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMSIMD_BUILD_BENCH=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DBLOOMSIMD_AARCH64_SYSROOT="$sysroot" >/dev/null
ninja -C "$root/aarch64" -j "$jobs" >/dev/null
file "$root/aarch64/tests/cross/bloomsimd-cross-digest" | grep -q "ARM aarch64" ||
  { echo "aarch64-check: the cross build did not produce AArch64 binaries" >&2; exit 1; }
step "AArch64 library and tests built"

emulator=(env "QEMU_LD_PREFIX=/usr/aarch64-linux-gnu"
          "QEMU_SET_ENV=LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:$sysroot/usr/lib/aarch64-linux-gnu:$sysroot/lib/aarch64-linux-gnu"
          qemu-aarch64)

# ---- 5. the full Criterion suite under qemu, on the neon kernel --------------------
# The neon pass also runs the scalar kernel's AArch64 code: the differential and
# self-check suites compare neon against it, call for call, and step 6 compares
# its filters with x86-64's byte for byte. A second whole pass with
# BLOOMSIMD_KERNEL=scalar doubled this step's minutes for no code of its own.
arm_kernels=$("${emulator[@]}" "$root/aarch64/tests/cross/bloomsimd-cross-digest" --kernels)
while read -r line; do echo "[aarch64-check]   aarch64 kernel: $line"; done <<<"$arm_kernels"
echo "$arm_kernels" | grep -qx "neon native" ||
  { echo "aarch64-check: neon is not a native kernel in the AArch64 build" >&2; exit 1; }
# Under qemu, BLOOMSIMD_TEST_QUICK drops only the FPR rows that need >= 2e7
# lookups (the native release stage runs them; filter bytes are proven
# identical across architectures below), and the huge-page test skips itself
# (qemu-user does not forward madvise). Both are printed by the suites.
status=0
(cd "$root/aarch64" &&
  BLOOMSIMD_TEST_QUICK=1 ctest --output-on-failure -j "$jobs" --timeout 900 -L 'kernel-neon') ||
  status=1
step "Criterion suite under qemu-aarch64 (kernel neon, against scalar): $([ $status = 0 ] && echo PASSED || echo FAILED)"

# ---- 6. x86-64 vs AArch64 filter bytes --------------------------------------------
out=$root/digests
mkdir -p "$out"
rm -f "$out"/*.txt
x86_kernels=$("$root/x86/tests/cross/bloomsimd-cross-digest" --kernels | cut -d' ' -f1)
for k in $x86_kernels; do
  "$root/x86/tests/cross/bloomsimd-cross-digest" "$k" >"$out/x86-64.$k.txt"
done
for k in scalar neon; do
  "${emulator[@]}" "$root/aarch64/tests/cross/bloomsimd-cross-digest" "$k" >"$out/aarch64.$k.txt"
done
reference=$out/x86-64.scalar.txt
digest_status=0
for f in "$out"/*.txt; do
  name=$(basename "$f" .txt)
  if cmp -s "$reference" "$f"; then
    echo "[aarch64-check]   $name: $(tail -n1 "$f") == x86-64.scalar"
  else
    echo "[aarch64-check]   $name: DIFFERS from x86-64.scalar:" >&2
    diff "$reference" "$f" >&2 || true
    digest_status=1
  fi
done
[ "$(wc -l <"$reference")" -gt 1 ] || { echo "aarch64-check: empty digest" >&2; digest_status=1; }
step "filter digests: x86-64 {$(paste -sd, <<<"$x86_kernels")} vs aarch64 {scalar,neon}: $([ $digest_status = 0 ] && echo IDENTICAL || echo MISMATCH)"
[ $digest_status = 0 ] || status=1
echo "[aarch64-check] digest lines (each must be identical everywhere):"
sed 's/^/[aarch64-check]   /' "$reference"

if [ $status = 0 ]; then
  step "OK"
else
  step "FAILED"
fi
exit $status
