# Run by `cmake --install` (an install(CODE) line in CMakeLists.txt): installs
# bloomsimd.pc with the prefix of this install. CMAKE_INSTALL_PREFIX here is the
# one given to `cmake --install --prefix` (or the configured one), never DESTDIR:
# a staged install still names its final prefix; file(INSTALL) adds DESTDIR and
# records the file in install_manifest.txt as install(FILES) would.
# Set by the caller: BLOOMSIMD_PC_TEMPLATE (the configured .pc.in),
# BLOOMSIMD_PC_SCRATCH (a directory in the build tree), BLOOMSIMD_PC_DESTINATION
# (libdir/pkgconfig, relative to the prefix unless absolute).
file(READ "${BLOOMSIMD_PC_TEMPLATE}" pc)
string(REPLACE "%BLOOMSIMD_INSTALL_PREFIX%" "${CMAKE_INSTALL_PREFIX}" pc "${pc}")
# one scratch copy per install: two installs of one build tree may run at once
string(RANDOM LENGTH 16 scratch_name)
set(scratch "${BLOOMSIMD_PC_SCRATCH}/${scratch_name}")
file(WRITE "${scratch}/bloomsimd.pc" "${pc}")
if(IS_ABSOLUTE "${BLOOMSIMD_PC_DESTINATION}")
  set(destination "${BLOOMSIMD_PC_DESTINATION}")
else()
  set(destination "${CMAKE_INSTALL_PREFIX}/${BLOOMSIMD_PC_DESTINATION}")
endif()
file(INSTALL DESTINATION "${destination}" TYPE FILE FILES "${scratch}/bloomsimd.pc")
file(REMOVE_RECURSE "${scratch}")
