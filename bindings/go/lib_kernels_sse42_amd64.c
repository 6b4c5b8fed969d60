//go:build !bloomsimd_system

// Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update).
// The library's kernels/sse42.c with its instruction set (CMakeLists.txt: -msse4.2) enabled for
// this file alone: GCC's target pragma, or clang's target attribute on every function.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>
#include <immintrin.h>
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("sse4.2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("sse4.2")
#else
#error "bloomsimd: the kernels need GCC or clang (target pragmas)"
#endif
#include "../../kernels/sse42.c"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
