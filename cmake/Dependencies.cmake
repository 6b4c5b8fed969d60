# Dependencies.cmake — every dependency comes from a Debian package through
# pkg-config; a missing one stops configure with the package to install.
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: run 'apt-get install pkg-config' (or scripts/install-deps.sh)")
endif()

function(bloomsimd_require_pkg prefix module debian_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${module} not found by pkg-config: run 'apt-get install ${debian_package}' "
                        "(or scripts/install-deps.sh)")
  endif()
endfunction()

bloomsimd_require_pkg(XXHASH libxxhash libxxhash-dev)
find_package(Threads REQUIRED)
