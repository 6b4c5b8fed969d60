# Packaging.cmake — the Debian packages, one per install component (CMakeLists.txt):
#
#   libbloomsimd0      lib     the shared library (SONAME libbloomsimd.so.0)
#   libbloomsimd-dev   dev     header, libbloomsimd.so link, static library, pkg-config, CMake config
#   bloomsimd          cli     the command-line tool and its man page
#   redis-bloomsimd    redis   the Redis module, in /usr/lib/redis/modules (with a loadmodule line)
#   libbloomsimd-java  java    bloomsimd.jar in /usr/share/java, its JNI library in LIBDIR/jni
#
# Included when BLOOMSIMD_DEB is on; build them with (tests/packages/deb.sh):
#
#   cmake -S . -B build-deb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
#         -DBLOOMSIMD_DEB=ON -DBLOOMSIMD_BUILD_TESTS=OFF -DBLOOMSIMD_BUILD_BENCH=OFF -DBLOOMSIMD_EMULATED_NEON=OFF
#   cmake --build build-deb && (cd build-deb && cpack)
#
# Depends come from dpkg-shlibdeps (libc6, libxxhash0) plus the ones below. Every package
# carries /usr/share/doc/<package>/copyright and changelog.Debian.gz, as Debian policy asks.
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(FATAL_ERROR "BLOOMSIMD_DEB: configure with -DCMAKE_INSTALL_PREFIX=/usr (now ${CMAKE_INSTALL_PREFIX})")
endif()
set(BLOOMSIMD_DEB_MAINTAINER "libbloomsimd developers <maintainers@libbloomsimd.invalid>" CACHE STRING
    "Maintainer field of the Debian packages")

set(_deb_components lib dev cli)
set(_deb_lib_name libbloomsimd0)
set(_deb_dev_name libbloomsimd-dev)
set(_deb_cli_name bloomsimd)
set(_deb_redis_name redis-bloomsimd)
set(_deb_java_name libbloomsimd-java)
if(TARGET bloomsimd_redis)
  list(APPEND _deb_components redis)
endif()
if(TARGET bloomsimd_jni)
  list(APPEND _deb_components java)
endif()

# The Redis module's loadmodule line to copy into redis.conf: Debian's redis-server loads
# modules only where its configuration says.
file(WRITE "${PROJECT_BINARY_DIR}/deb/bloomsimd.conf" "# Load the bloomsimd module: copy this line into /etc/redis/redis.conf (or an
# instance's own file), uncomment it and restart redis-server.
# loadmodule /usr/${BLOOMSIMD_INSTALL_REDISDIR}/bloomsimd.so
")
install(FILES "${PROJECT_BINARY_DIR}/deb/bloomsimd.conf" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_deb_redis_name}
        COMPONENT redis)

# copyright and changelog.Debian.gz for each package (gzip -n: the same bytes every build)
string(TIMESTAMP _deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE "${PROJECT_BINARY_DIR}/deb/copyright" "libbloomsimd ${PROJECT_VERSION}: ${PROJECT_DESCRIPTION}
Source: https://github.com/libbloomsimd/libbloomsimd

Copyright 2026 the libbloomsimd authors.

License: the repository names no license yet; until it does, these packages are for the
project's own machines and carry no permission to redistribute them.
")
file(WRITE "${PROJECT_BINARY_DIR}/deb/changelog.Debian" "bloomsimd (${PROJECT_VERSION}-1) unstable; urgency=medium

  * Packages built with CPack from the CMake build.

 -- ${BLOOMSIMD_DEB_MAINTAINER}  ${_deb_date}
")
execute_process(COMMAND gzip -9nf "${PROJECT_BINARY_DIR}/deb/changelog.Debian" RESULT_VARIABLE _deb_gzip)
if(_deb_gzip)
  message(FATAL_ERROR "BLOOMSIMD_DEB: gzip failed (${_deb_gzip})")
endif()
foreach(c IN LISTS _deb_components)
  install(FILES "${PROJECT_BINARY_DIR}/deb/copyright" "${PROJECT_BINARY_DIR}/deb/changelog.Debian.gz"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_deb_${c}_name} COMPONENT ${c})
  string(TOUPPER ${c} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${_deb_${c}_name})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${_deb_components})
set(CPACK_SET_DESTDIR ON) # install to /usr under DESTDIR: bloomsimd.pc and the CMake config name /usr
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_NAME bloomsimd)
# CPack puts this summary above every package's description unless it is CPack's default
# text; so it is that text, and each package's description starts with its own summary line.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "bloomsimd built using CMake")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${BLOOMSIMD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BLOOMSIMD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SOURCE bloomsimd)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE https://github.com/libbloomsimd/libbloomsimd)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libbloomsimd0's shlibs file (what a package linking libbloomsimd.so.0 depends on) and its
# ldconfig trigger. CPack also gives it a postinst and postrm that call ldconfig, as it does for
# any library under /usr/lib, and replaces them only by scripts of our own, which lintian then
# calls empty instead: deb.sh expects lintian's maintscript-calls-ldconfig warning.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
file(WRITE "${PROJECT_BINARY_DIR}/deb/lib/triggers" "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/deb/lib/triggers")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/deb/packages")

set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIB_DESCRIPTION "SIMD cache-line-blocked Bloom filters (shared library)
libbloomsimd is a Bloom filter whose keys each touch one 64-byte block,
so a lookup costs one cache miss. Batches run SIMD kernels (AVX-512, AVX2,
SSE4.2, NEON, scalar) chosen at run time from the CPU. Filters save to a
portable file format that every binding reads.")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_deb_lib_name} (= ${PROJECT_VERSION}-1), libxxhash-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION "SIMD cache-line-blocked Bloom filters (development files)
The header bloomsimd.h, the static library, pkg-config's bloomsimd.pc and
the CMake package (find_package(bloomsimd)) for libbloomsimd.")
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_DESCRIPTION "command-line tool for libbloomsimd Bloom filter files
bloomsimd creates, fills, queries, merges and checks the Bloom filter files
of libbloomsimd, from lines, fixed-width or length-prefixed records and
Parquet columns.")
set(CPACK_DEBIAN_REDIS_PACKAGE_SECTION database)
set(CPACK_DEBIAN_REDIS_PACKAGE_DEPENDS "redis-server")
set(CPACK_DEBIAN_REDIS_DESCRIPTION "Redis module of SIMD cache-line-blocked Bloom filters
The BF.* commands on libbloomsimd's filters, and BFX.EXPORT and BFX.IMPORT
of its portable file format. The module is
/usr/${BLOOMSIMD_INSTALL_REDISDIR}/bloomsimd.so; the loadmodule line to copy
into redis.conf is in /usr/share/doc/${_deb_redis_name}/bloomsimd.conf.")
set(CPACK_DEBIAN_JAVA_PACKAGE_SECTION java)
set(CPACK_DEBIAN_JAVA_DESCRIPTION "SIMD cache-line-blocked Bloom filters for Java
org.bloomsimd.BloomFilter in /usr/share/java/bloomsimd.jar, with its JNI
library in the system's JNI directory (on the java.library.path of
Debian's JDKs).")

include(CPack)
