/*
 * ops_inline_avx512.c — the single-key loops as a program built with
 * -mavx512f runs them (ops_inline.h: a block512 probe is one 512-bit test);
 * compiled with -mavx512f -mavx2 -mbmi2 and called only after
 * bench_inline_ops_for_cpu has checked the CPU.
 */
#define BENCH_INLINE_NAME(name) name##_avx512
#include "ops_inline.h"
