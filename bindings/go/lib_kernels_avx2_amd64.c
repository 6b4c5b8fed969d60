//go:build !bloomsimd_system

// Generated from CMakeLists.txt by internal/csources (go test ./internal/csources -update).
// The library's kernels/avx2.c with its instruction set (CMakeLists.txt: -mavx2) enabled for
// this file alone: GCC's target pragma, or clang's target attribute on every function.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>
#include <immintrin.h>
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#else
#error "bloomsimd: the kernels need GCC or clang (target pragmas)"
#endif
#include "../../kernels/avx2.c"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
