//go:build !bloomsimd_system

// Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update).
// The library's kernels/scalar.c (baseline instruction set, as in CMakeLists.txt).
#include "../../kernels/scalar.c"
