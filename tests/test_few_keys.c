/*
 * test_few_keys.c — batches of fewer keys than one group of the kernels'
 * pipelines (kernels/split256_scalar.h, BLOOMSIMD_FEW_KEYS) take the layout's
 * one-key probes instead of the pipeline. On this run's kernel, a stream of
 * keys cut into batches of 1..7 must give what one batch of all of them
 * gives through the pipeline: the same bits, the same answers in every hit
 * form (bytes, bitmap, selection vector), the same new-key reports and
 * count; for 64-bit keys and hashes, both layouts, XXH3 and mum, plain and
 * concurrent filters, and Parquet's XXH64.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "support_samples.h"

#define KEYS 2000u
#define PROBES 6000u

/* The serialized bytes, header included: it holds the count of new keys. */
static void assert_same_filter(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    size_t lx, ly;
    uint8_t *x = test_serialize(a, &lx), *y = test_serialize(b, &ly);
    cr_assert(lx == ly && memcmp(x, y, lx) == 0, "%s: few-key batches built other bytes than one batch (kernel %s)",
              what, test_kernel());
    free(x);
    free(y);
}

/* The statement after it runs for batches [first, first + count) of sizes
 * 1, 2, .. 7, 1, 2, ... over n keys (the last one cut to what is left). */
#define FOR_FEW(n, first, count)                                                                                    \
    for (size_t first = 0, step_ = 1, count = 0;                                                                    \
         first < (n) && ((count = step_ < (n) - first ? step_ : (n) - first), 1); first += count, step_ = step_ % 7 + 1)

/* Insert-and-report-new of n keys (or hashes) in few-key batches; the count of new ones. */
static size_t add_new_few(bloomsimd_filter *f, const uint64_t *src, size_t n, bool hashed, uint8_t *out)
{
    size_t total = 0;
    FOR_FEW(n, i, c)
    {
        size_t fresh;
        bloomsimd_status st = hashed ? bloomsimd_add_new_hashes(f, src + i, c, out + i, &fresh)
                                     : bloomsimd_add_new_batch_u64(f, src + i, c, out + i, &fresh);
        cr_assert_eq(st, BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        total += fresh;
    }
    return total;
}

static void check(bloomsimd_options o, const char *what)
{
    bloomsimd_filter *few = test_filter(&o), *one = test_filter(&o), *few_new = test_filter(&o),
                     *one_new = test_filter(&o);
    uint64_t *keys = test_keys(KEYS, 41), *probes = test_keys(PROBES, 42);
    /* a quarter of the keys come again, so insert-and-report-new answers both ways */
    uint64_t *seq = malloc((KEYS + KEYS / 4) * sizeof *seq);
    const size_t nseq = KEYS + KEYS / 4;
    for (size_t i = 0; i < nseq; i++) seq[i] = i < KEYS ? keys[i] : keys[(i * 13) % KEYS];

    /* inserts: 64-bit keys, then the same filters' hashes path on the probes' first half */
    cr_assert_eq(bloomsimd_add_batch_u64(one, keys, KEYS), BLOOMSIMD_OK);
    FOR_FEW(KEYS, i, c) cr_assert_eq(bloomsimd_add_batch_u64(few, keys + i, c), BLOOMSIMD_OK);
    uint64_t *hashes = malloc(PROBES * sizeof *hashes);
    bloomsimd_hash_batch_u64(one, probes, PROBES, hashes);
    cr_assert_eq(bloomsimd_add_hashes(one, hashes, PROBES / 10), BLOOMSIMD_OK);
    FOR_FEW(PROBES / 10, i, c) cr_assert_eq(bloomsimd_add_hashes(few, hashes + i, c), BLOOMSIMD_OK);
    assert_same_filter(few, one, what);

    /* lookups in every form, against one pipeline batch */
    uint8_t *want = malloc(PROBES), *got = malloc(PROBES);
    size_t want_hits = bloomsimd_contains_batch_u64(one, probes, PROBES, want);
    cr_assert(want_hits > PROBES / 10 && want_hits < PROBES, "%s: %zu hits of %u: both answers occur", what,
              want_hits, PROBES);
    size_t hits = 0;
    FOR_FEW(PROBES, i, c) hits += bloomsimd_contains_batch_u64(few, probes + i, c, got + i);
    cr_assert_eq(hits, want_hits, "%s", what);
    cr_assert(memcmp(got, want, PROBES) == 0, "%s: byte answers", what);
    memset(got, 0xa5, PROBES);
    FOR_FEW(PROBES, i, c) bloomsimd_contains_hashes(few, hashes + i, c, got + i);
    cr_assert(memcmp(got, want, PROBES) == 0, "%s: byte answers of hashes", what);
    FOR_FEW(PROBES, i, c)
    {
        uint8_t bits = 0xff; /* the call must clear the bits past c */
        uint32_t idx[8];
        size_t nb = bloomsimd_contains_bitmap_u64(few, probes + i, c, &bits);
        size_t ns = bloomsimd_select_batch_u64(few, probes + i, c, idx);
        size_t nh = bloomsimd_contains_bitmap_hashes(few, hashes + i, c, &bits);
        size_t expect = 0;
        for (size_t j = 0; j < c; j++) {
            cr_assert_eq((bits >> j) & 1u, want[i + j], "%s: bitmap bit %zu of the batch at %zu", what, j, i);
            if (want[i + j]) cr_assert_eq(idx[expect++], (uint32_t)j, "%s: selection at %zu", what, i);
        }
        cr_assert_eq(bits >> c, 0, "%s: bitmap bits past %zu keys", what, c);
        cr_assert(nb == expect && ns == expect && nh == expect, "%s: counts at %zu", what, i);
    }

    /* insert-and-report-new, 64-bit keys and hashes */
    uint8_t *want_new = malloc(nseq), *got_new = malloc(nseq);
    size_t want_count, got_count;
    cr_assert_eq(bloomsimd_add_new_batch_u64(one_new, seq, nseq, want_new, &want_count), BLOOMSIMD_OK);
    cr_assert(want_count > KEYS / 2 && want_count < nseq, "%s: %zu new", what, want_count);
    got_count = add_new_few(few_new, seq, nseq, false, got_new);
    cr_assert_eq(got_count, want_count, "%s", what);
    cr_assert(memcmp(got_new, want_new, nseq) == 0, "%s: new-key reports", what);
    uint64_t *seq_hashes = malloc(nseq * sizeof *seq_hashes);
    bloomsimd_hash_batch_u64(one_new, seq, nseq, seq_hashes);
    cr_assert_eq(bloomsimd_add_new_hashes(one_new, seq_hashes, nseq, want_new, &want_count), BLOOMSIMD_OK);
    got_count = add_new_few(few_new, seq_hashes, nseq, true, got_new);
    cr_assert_eq(got_count, want_count, "%s: hashes, already inserted", what);
    cr_assert(memcmp(got_new, want_new, nseq) == 0, "%s: new-key reports of hashes", what);
    assert_same_filter(few_new, one_new, what);

    free(seq_hashes), free(want_new), free(got_new), free(want), free(got), free(hashes), free(seq);
    free(keys), free(probes);
    bloomsimd_destroy(few), bloomsimd_destroy(one), bloomsimd_destroy(few_new), bloomsimd_destroy(one_new);
}

Test(few_keys, every_layout_hash_and_concurrency)
{
    test_each_geometry(KEYS, 0.05, 70, 3, check);
    bloomsimd_options pq = {.capacity = KEYS, .fpr = 0.05, .flags = BLOOMSIMD_PARQUET};
    check(pq, "parquet");
}
