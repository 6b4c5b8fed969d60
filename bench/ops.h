/*
 * ops.h — the measured operations, as bench_fn callbacks over one context.
 *
 * Every operation walks `total` keys of `keys[0..nkeys)` cyclically, in calls
 * of at most `batch` keys (so a re-insert of n keys, or 2M lookups into a
 * 10^4-key filter, both take the same time per call), and returns a count
 * that depends on the work.
 */
#ifndef BLOOMSIMD_BENCH_OPS_H
#define BLOOMSIMD_BENCH_OPS_H

#include <bloomsimd.h>

#include "bench.h"
#include "refs.h"
#include "sbbf.h"

typedef struct bench_op_ctx {
    bloomsimd_filter *filter;
    const bench_classic *classic;
    void *libbloom;
    const bench_sbbf *sbbf;
    bench_ceiling ceiling;
    const uint64_t *keys;
    size_t nkeys;
    size_t total;
    size_t batch;
    uint8_t *out;              /* batch bytes, for lookup answers (and bitmaps) */
    uint32_t *indices;         /* batch indices, for selection vectors */
    uint64_t *hashes;          /* batch hashes */
    const bench_byte_keys *bytes;
} bench_op_ctx;

/* Calls body(pos, count) over `total` keys of keys[0..nkeys) cyclically, in
 * chunks of at most `batch`. */
#define FOR_CHUNKS(c, pos, count, body)                                                                            \
    do {                                                                                                           \
        size_t done_ = 0, pos = 0;                                                                                 \
        while (done_ < (c)->total) {                                                                               \
            size_t count = (c)->total - done_;                                                                     \
            if (count > (c)->batch) count = (c)->batch;                                                            \
            if (count > (c)->nkeys - pos) count = (c)->nkeys - pos;                                                \
            body;                                                                                                  \
            done_ += count;                                                                                        \
            pos += count;                                                                                          \
            if (pos == (c)->nkeys) pos = 0;                                                                        \
        }                                                                                                          \
    } while (0)

uint64_t bench_op_insert(void *ctx);        /* bloomsimd_add_batch_u64 */
uint64_t bench_op_lookup(void *ctx);        /* bloomsimd_contains_batch_u64; hits */
uint64_t bench_op_single(void *ctx);        /* bloomsimd_contains_u64 per key; hits */
uint64_t bench_op_single_add(void *ctx);    /* bloomsimd_add_u64 per key; failures */
uint64_t bench_op_single_bytes(void *ctx);  /* bloomsimd_contains per byte key; hits */
uint64_t bench_op_single_add_bytes(void *ctx); /* bloomsimd_add per byte key; failures */
uint64_t bench_op_add_new(void *ctx);       /* bloomsimd_add_new_batch_u64; new keys */
uint64_t bench_op_lookup_then_add(void *ctx); /* contains_batch_u64 then add_batch_u64, per batch; hits */
uint64_t bench_op_select(void *ctx);        /* bloomsimd_select_batch_u64; hits */
uint64_t bench_op_bitmap(void *ctx);        /* bloomsimd_contains_bitmap_u64; hits */
uint64_t bench_op_hash(void *ctx);          /* bloomsimd_hash_batch_u64; xor of hashes */
uint64_t bench_op_add_bytes(void *ctx);     /* bloomsimd_add_batch on byte keys */
uint64_t bench_op_lookup_bytes(void *ctx);  /* bloomsimd_contains_batch on byte keys; hits */
uint64_t bench_op_ceiling(void *ctx);
uint64_t bench_op_xxh3_lib(void *ctx);      /* libxxhash XXH3_64bits_withSeed per key, seed 0 */
uint64_t bench_op_classic_insert(void *ctx);
uint64_t bench_op_classic_lookup(void *ctx);
uint64_t bench_op_sbbf_insert(void *ctx);
uint64_t bench_op_sbbf_lookup(void *ctx);
uint64_t bench_op_sbbf_single(void *ctx);   /* the peer's probe inlined per key, no prefetch; hits */
uint64_t bench_op_sbbf_single_add(void *ctx); /* the peer's insert inlined per key */
uint64_t bench_op_libbloom_insert(void *ctx);
uint64_t bench_op_libbloom_lookup(void *ctx);


/*
 * Single-key calls as a program built for AVX2 or AVX-512 makes them: the
 * same loops as bench_op_single / bench_op_single_add, in files compiled with
 * -mavx2 -mbmi2 (ops_inline_avx2.c) and -mavx512f (ops_inline_avx512.c), where
 * <bloomsimd.h> turns bloomsimd_contains_u64 / bloomsimd_add_u64 into its
 * inline probe. bench_inline_ops_for_cpu picks the widest this CPU runs (what
 * -march=native would give) and names its flags; false (and NULLs) on other
 * CPUs and architectures: those rows are then skipped.
 */
typedef struct bench_inline_ops {
    bench_fn contains; /* hits */
    bench_fn add;      /* failures */
    const char *flags; /* "-mavx2" or "-mavx512f" */
} bench_inline_ops;

bool bench_inline_ops_for_cpu(bench_inline_ops *ops);
uint64_t bench_op_single_inline_avx2(void *ctx);
uint64_t bench_op_single_add_inline_avx2(void *ctx);
uint64_t bench_op_single_inline_avx512(void *ctx);
uint64_t bench_op_single_add_inline_avx512(void *ctx);

#endif
