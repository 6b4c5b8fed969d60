# aarch64-linux-gnu.cmake — cross-build for AArch64 Linux with Debian's
# gcc-aarch64-linux-gnu, run under qemu-user.
#
#   cmake -S . -B build-aarch64 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DBLOOMSIMD_AARCH64_SYSROOT=/path/to/extracted/arm64/debs
#
# The C library comes from libc6-dev-arm64-cross (/usr/aarch64-linux-gnu).
# libxxhash and Criterion come from the Debian arm64 packages, unpacked with
# dpkg-deb -x into BLOOMSIMD_AARCH64_SYSROOT by scripts/aarch64-check.sh.
# They are unpacked rather than installed as multiarch packages because
# libcriterion3's dependency libnanomsg5 (and libnanomsg-dev,
# libhttp-parser-dev) are not Multi-Arch: same: installing the arm64
# Criterion removes the host's amd64 Criterion.
#
# Tests run through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64, no
# binfmt_misc needed). QEMU_LD_PREFIX plays the role of qemu's -L;
# QEMU_SET_ENV gives the guest its library path and preloads
# tests/cross/qemu_exec_shim.c, without which Criterion cannot spawn its
# per-test worker processes (see that file). BLOOMSIMD_QEMU_USER=1 tells
# tests they run under qemu-user, which accepts but ignores madvise (so a
# test cannot observe MADV_HUGEPAGE in /proc/self/smaps there).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(BLOOMSIMD_AARCH64_GNU_ROOT /usr/aarch64-linux-gnu)

if(NOT BLOOMSIMD_AARCH64_SYSROOT AND DEFINED ENV{BLOOMSIMD_AARCH64_SYSROOT})
  set(BLOOMSIMD_AARCH64_SYSROOT "$ENV{BLOOMSIMD_AARCH64_SYSROOT}")
endif()
if(NOT BLOOMSIMD_AARCH64_SYSROOT)
  message(FATAL_ERROR "set BLOOMSIMD_AARCH64_SYSROOT to the unpacked arm64 packages (scripts/aarch64-check.sh does it)")
endif()
set(BLOOMSIMD_AARCH64_SYSROOT "${BLOOMSIMD_AARCH64_SYSROOT}" CACHE PATH "unpacked arm64 Debian packages")
# try_compile projects re-read this file; hand them the sysroot too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES BLOOMSIMD_AARCH64_SYSROOT)

set(_bloomsimd_libdirs "${BLOOMSIMD_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu"
                       "${BLOOMSIMD_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")

# pkg-config sees only the arm64 .pc files, and prefixes their paths with the sysroot.
set(ENV{PKG_CONFIG_LIBDIR} "${BLOOMSIMD_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${BLOOMSIMD_AARCH64_SYSROOT}")
unset(ENV{PKG_CONFIG_PATH})

set(CMAKE_FIND_ROOT_PATH "${BLOOMSIMD_AARCH64_GNU_ROOT}" "${BLOOMSIMD_AARCH64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# libcriterion.so needs libgit2, libnanomsg, ... at link time: let ld find them.
string(REPLACE ";" ":" _bloomsimd_rpath_link "${_bloomsimd_libdirs}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_bloomsimd_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_bloomsimd_rpath_link}")

find_program(BLOOMSIMD_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(_bloomsimd_shim "${CMAKE_BINARY_DIR}/tests/cross/libbloomsimd_qemu_exec_shim.so")
string(REPLACE ";" ":" _bloomsimd_guest_path "${BLOOMSIMD_AARCH64_GNU_ROOT}/lib;${_bloomsimd_libdirs}")
set(CMAKE_CROSSCOMPILING_EMULATOR
    /usr/bin/env "QEMU_LD_PREFIX=${BLOOMSIMD_AARCH64_GNU_ROOT}" "BLOOMSIMD_QEMU=${BLOOMSIMD_QEMU_AARCH64}"
    "QEMU_SET_ENV=LD_LIBRARY_PATH=${_bloomsimd_guest_path},LD_PRELOAD=${_bloomsimd_shim},BLOOMSIMD_QEMU_USER=1"
    "${BLOOMSIMD_QEMU_AARCH64}")
