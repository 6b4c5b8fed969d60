//go:build !bloomsimd_system

// Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update).
// The library's kernels/neon.c (baseline instruction set, as in CMakeLists.txt).
#include "../../kernels/neon.c"
