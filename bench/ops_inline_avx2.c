/*
 * ops_inline_avx2.c — the single-key loops as a program built with -mavx2
 * runs them (ops_inline.h); compiled with -mavx2 -mbmi2 and called only
 * after bench_inline_ops_for_cpu has checked the CPU.
 */
#define BENCH_INLINE_NAME(name) name##_avx2
#include "ops_inline.h"
