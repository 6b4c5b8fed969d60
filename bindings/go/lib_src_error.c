//go:build !bloomsimd_system

// Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update).
// The library's src/error.c, compiled at the baseline instruction set like every
// file outside kernels/ (src/baseline.h refuses anything else), with _GNU_SOURCE as CMake defines it.
#define _GNU_SOURCE 1
#include "../../src/error.c"
