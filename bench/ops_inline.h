/*
 * ops_inline.h — the single-key loops of ops.c, for files compiled with
 * wider instruction sets: there <bloomsimd.h> expands bloomsimd_contains_u64
 * and bloomsimd_add_u64 to its inline probe (the header's "inline single
 * keys" section), so these loops are what a user's program built with those
 * flags runs. The including file defines BENCH_INLINE_NAME(name), the name
 * of each function for its flags (ops.h declares them).
 */
#ifndef BENCH_INLINE_NAME
#error "define BENCH_INLINE_NAME(name) before including ops_inline.h"
#endif
#ifndef __AVX2__
#error "ops_inline.h is compiled with -mavx2 or wider: without it the header calls the library"
#endif

#include "ops.h"

uint64_t BENCH_INLINE_NAME(bench_op_single_inline)(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, for (size_t i = 0; i < count; i++) hits += bloomsimd_contains_u64(c->filter, c->keys[pos + i]));
    return hits;
}

uint64_t BENCH_INLINE_NAME(bench_op_single_add_inline)(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t failures = 0;
    FOR_CHUNKS(c, pos, count, for (size_t i = 0; i < count; i++) {
        failures += bloomsimd_add_u64(c->filter, c->keys[pos + i]) != BLOOMSIMD_OK;
    });
    return failures;
}
