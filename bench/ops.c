/*
 * ops.c — the measured operations (see ops.h).
 */
#include <stdint.h>
#include <xxhash.h>

#include "ops.h"

uint64_t bench_op_insert(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t failures = 0;
    FOR_CHUNKS(c, pos, count, failures += bloomsimd_add_batch_u64(c->filter, c->keys + pos, count) != BLOOMSIMD_OK);
    return failures;
}

uint64_t bench_op_lookup(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bloomsimd_contains_batch_u64(c->filter, c->keys + pos, count, c->out));
    return hits;
}

uint64_t bench_op_single(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, for (size_t i = 0; i < count; i++) hits += bloomsimd_contains_u64(c->filter, c->keys[pos + i]));
    return hits;
}

uint64_t bench_op_add_new(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t fresh = 0;
    FOR_CHUNKS(c, pos, count, {
        size_t k = 0;
        if (bloomsimd_add_new_batch_u64(c->filter, c->keys + pos, count, c->out, &k) != BLOOMSIMD_OK) k = SIZE_MAX;
        fresh += k;
    });
    return fresh;
}

/* what a caller does without insert-and-report-new: look the batch up, then insert it */
uint64_t bench_op_lookup_then_add(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, {
        hits += bloomsimd_contains_batch_u64(c->filter, c->keys + pos, count, c->out);
        if (bloomsimd_add_batch_u64(c->filter, c->keys + pos, count) != BLOOMSIMD_OK) hits = UINT64_MAX;
    });
    return hits;
}

uint64_t bench_op_select(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bloomsimd_select_batch_u64(c->filter, c->keys + pos, count, c->indices));
    return hits;
}

uint64_t bench_op_bitmap(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bloomsimd_contains_bitmap_u64(c->filter, c->keys + pos, count, c->out));
    return hits;
}

/* The single-key loops are what a user writes: one call per key, nothing
 * batched; the compiler cannot merge calls into the library. */
uint64_t bench_op_single_add(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t failures = 0;
    FOR_CHUNKS(c, pos, count, for (size_t i = 0; i < count; i++) {
        failures += bloomsimd_add_u64(c->filter, c->keys[pos + i]) != BLOOMSIMD_OK;
    });
    return failures;
}

uint64_t bench_op_single_bytes(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count,
               for (size_t i = 0; i < count; i++) hits +=
               bloomsimd_contains(c->filter, c->bytes->ptrs[pos + i], c->bytes->lens[pos + i]));
    return hits;
}

uint64_t bench_op_single_add_bytes(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t failures = 0;
    FOR_CHUNKS(c, pos, count,
               for (size_t i = 0; i < count; i++) failures +=
               bloomsimd_add(c->filter, c->bytes->ptrs[pos + i], c->bytes->lens[pos + i]) != BLOOMSIMD_OK);
    return failures;
}

uint64_t bench_op_hash(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t x = 0;
    FOR_CHUNKS(c, pos, count, {
        bloomsimd_hash_batch_u64(c->filter, c->keys + pos, count, c->hashes);
        x ^= c->hashes[0] ^ c->hashes[count - 1];
    });
    return x;
}

uint64_t bench_op_add_bytes(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t failures = 0;
    FOR_CHUNKS(c, pos, count,
               failures += bloomsimd_add_batch(c->filter, c->bytes->ptrs + pos, c->bytes->lens + pos, count) !=
                           BLOOMSIMD_OK);
    return failures;
}

uint64_t bench_op_lookup_bytes(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count,
               hits += bloomsimd_contains_batch(c->filter, c->bytes->ptrs + pos, c->bytes->lens + pos, count, c->out));
    return hits;
}

uint64_t bench_op_xxh3_lib(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t x = 0;
    FOR_CHUNKS(c, pos, count, {
        for (size_t i = 0; i < count; i++) c->hashes[i] = XXH3_64bits_withSeed(&c->keys[pos + i], 8, 0);
        x ^= c->hashes[0] ^ c->hashes[count - 1];
    });
    return x;
}

uint64_t bench_op_ceiling(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t sum = 0;
    FOR_CHUNKS(c, pos, count, sum += bench_ceiling_run(&c->ceiling, c->keys + pos, count));
    return sum;
}

uint64_t bench_op_classic_insert(void *ctx)
{
    bench_op_ctx *c = ctx;
    FOR_CHUNKS(c, pos, count, bench_classic_add(c->classic, c->keys + pos, count));
    return 0;
}

uint64_t bench_op_classic_lookup(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bench_classic_contains(c->classic, c->keys + pos, count));
    return hits;
}

uint64_t bench_op_sbbf_insert(void *ctx)
{
    bench_op_ctx *c = ctx;
    FOR_CHUNKS(c, pos, count, bench_sbbf_add(c->sbbf, c->keys + pos, count));
    return 0;
}

uint64_t bench_op_sbbf_lookup(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bench_sbbf_contains(c->sbbf, c->keys + pos, count, c->out));
    return hits;
}

uint64_t bench_op_sbbf_single(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bench_sbbf_contains_one_by_one(c->sbbf, c->keys + pos, count));
    return hits;
}

uint64_t bench_op_sbbf_single_add(void *ctx)
{
    bench_op_ctx *c = ctx;
    FOR_CHUNKS(c, pos, count, bench_sbbf_add_one_by_one(c->sbbf, c->keys + pos, count));
    return 0;
}

bool bench_inline_ops_for_cpu(bench_inline_ops *ops)
{
    *ops = (bench_inline_ops){NULL, NULL, NULL};
#if defined(BLOOMSIMD_BENCH_HAVE_INLINE_X86)
    __builtin_cpu_init();
    /* gcc's checks include the OS's YMM / ZMM state (XGETBV); the header's
     * mum hash is a mulx under -mbmi2 */
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2")) return false;
    if (__builtin_cpu_supports("avx512f"))
        *ops = (bench_inline_ops){bench_op_single_inline_avx512, bench_op_single_add_inline_avx512, "-mavx512f"};
    else
        *ops = (bench_inline_ops){bench_op_single_inline_avx2, bench_op_single_add_inline_avx2, "-mavx2"};
    return true;
#else
    return false;
#endif
}

uint64_t bench_op_libbloom_insert(void *ctx)
{
    bench_op_ctx *c = ctx;
    FOR_CHUNKS(c, pos, count, bench_libbloom_add(c->libbloom, c->keys + pos, count));
    return 0;
}

uint64_t bench_op_libbloom_lookup(void *ctx)
{
    bench_op_ctx *c = ctx;
    uint64_t hits = 0;
    FOR_CHUNKS(c, pos, count, hits += bench_libbloom_contains(c->libbloom, c->keys + pos, count));
    return hits;
}
