/*
 * test_kernel_avx512_selfcheck.c — the avx512 kernel table entry, called
 * directly, equals the scalar entry: hashes (and libxxhash), filter bytes
 * after every insert path, lookup outputs and counts, set operations; for
 * every batch size that exercises a vector tail or the prefetch ring edge,
 * byte-misaligned inputs and outputs, k 1..16, 1 block to > 2^20 blocks and
 * the 2^31..2^32-block range (where the block index leaves 32-bit lanes),
 * with and without the concurrent flag, and under real concurrent inserts
 * and inserts-and-report-new. (tests/test_kernel_entries.c checks the hit
 * forms and insert-and-report-new of every kernel at every batch size; the
 * cases here are the ones only this kernel's pipeline has: the 2^32-block
 * index and the ring's prefetch paths under threads.)
 *
 * It calls both entries directly, so it does the same work whatever
 * BLOOMSIMD_KERNEL says: it runs in the avx512 pass of the suite only (and
 * skips when this CPU has no AVX-512).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "dispatch.h"
#include "internal.h"
#include "layout.h"
#include "support.h"

static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 1000, 100003};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static const bloomsimd_kernel *ref, *simd;

static void pick_kernels(void)
{
    if (strcmp(test_kernel(), "avx512") != 0)
        cr_skip_test("checks the avx512 entry directly: runs in the avx512 pass only");
    ref = bloomsimd_kernel_by_name("scalar");
    simd = bloomsimd_kernel_by_name("avx512");
    cr_assert_not_null(ref);
    if (!simd || !bloomsimd_kernel_runnable(simd)) cr_skip_test("avx512 kernel not compiled in or not runnable here");
}

TestSuite(avx512_selfcheck, .init = pick_kernels);

/* A geometry over a fresh zeroed, 64-byte-aligned array. */
static bloomsimd_geometry make_geometry(uint64_t nblocks, uint32_t k, uint64_t seed, bool concurrent)
{
    bloomsimd_geometry g = {0};
    g.nblocks = nblocks;
    g.k = k;
    g.select = bloomsimd_select_tables[(k) - 1];
    g.hash_bitflip = bloomsimd_xxh3_bitflip(seed);
    g.concurrent = concurrent;
    g.words = aligned_alloc(64, nblocks * 64);
    cr_assert_not_null(g.words);
    memset(g.words, 0, nblocks * 64);
    return g;
}

/* n keys copied to `offset` bytes past a 64-byte boundary (1..7 leave them
 * not even 8-byte aligned); the kernel must use unaligned loads. */
static const uint64_t *misaligned_copy(unsigned char *buf, const uint64_t *keys, size_t n, unsigned offset)
{
    memcpy(buf + offset, keys, n * sizeof *keys);
    return (const uint64_t *)(const void *)(buf + offset);
}

Test(avx512_selfcheck, hashes_equal_libxxhash_and_scalar_over_2_pow_20_keys_and_8_seeds)
{
    const size_t n = (size_t)1 << 20;
    const uint64_t seeds[8] = {0, 1, 42, 0xffffffffu, UINT64_C(0x100000000), UINT64_C(0xdeadbeefcafebabe),
                               UINT64_MAX, UINT64_C(0x8000000000000000)};
    uint64_t *keys = test_keys(n, 7);
    keys[0] = 0;
    keys[1] = UINT64_MAX;
    uint64_t *a = malloc(n * 8), *b = malloc(n * 8);
    for (unsigned s = 0; s < 8; s++) {
        uint64_t flip = bloomsimd_xxh3_bitflip(seeds[s]);
        simd->hash_u64(flip, keys, n, a);
        ref->hash_u64(flip, keys, n, b);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = XXH3_64bits_withSeed(&keys[i], 8, seeds[s]);
            if (a[i] != x || b[i] != x)
                cr_assert_fail("seed %u key %zu: avx512 %016llx scalar %016llx xxh3 %016llx", s, i,
                               (unsigned long long)a[i], (unsigned long long)b[i], (unsigned long long)x);
        }
    }
    free(a);
    free(b);
    free(keys);
}

Test(avx512_selfcheck, hashes_for_every_batch_size_with_misaligned_input_and_output)
{
    uint64_t *keys = test_keys(100003, 8);
    unsigned char *in = malloc(100003 * 8 + 64), *out = malloc(100003 * 8 + 64);
    uint64_t *want = malloc(100003 * 8);
    for (size_t s = 0; s < N_SIZES; s++) {
        size_t n = sizes[s];
        ref->hash_u64(12345, keys, n, want);
        for (unsigned off = 0; off < 8; off += 3) {
            const uint64_t *src = misaligned_copy(in, keys, n, off);
            memset(out, 0xAA, n * 8 + 64);
            simd->hash_u64(12345, src, n, (uint64_t *)(void *)(out + off + 1));
            cr_assert(memcmp(out + off + 1, want, n * 8) == 0, "n=%zu offset=%u", n, off);
            cr_assert_eq(out[off], 0xAA, "wrote before the output");
            cr_assert_eq(out[off + 1 + n * 8], 0xAA, "wrote past the output (n=%zu)", n);
        }
    }
    free(want);
    free(in);
    free(out);
    free(keys);
}

/* Insert `present` through one path of each kernel, compare bytes, then look
 * up present + absent keys through both lookup paths of each kernel. */
static void compare_geometry(uint64_t nblocks, uint32_t k, bool concurrent, size_t n, unsigned offset, uint64_t seed)
{
    bloomsimd_geometry gs = make_geometry(nblocks, k, seed, concurrent);
    bloomsimd_geometry gv = make_geometry(nblocks, k, seed, concurrent);
    bloomsimd_geometry gh = make_geometry(nblocks, k, seed, concurrent);
    uint64_t *keys = test_keys(2 * n + 1, 100 + k);
    uint64_t *hashes = malloc((2 * n + 1) * 8);
    unsigned char *buf = malloc((2 * n + 1) * 8 + 64);
    uint8_t *out_s = malloc(2 * n + 64), *out_v = malloc(2 * n + 64);
    ref->hash_u64(gs.hash_bitflip, keys, 2 * n, hashes);

    ref->add_u64(&gs, keys, n);
    simd->add_u64(&gv, misaligned_copy(buf, keys, n, offset), n);
    simd->add_hashes(&gh, misaligned_copy(buf, hashes, n, offset), n);
    cr_assert(memcmp(gs.words, gv.words, nblocks * 64) == 0, "add_u64 bytes: blocks=%llu k=%u conc=%d n=%zu",
              (unsigned long long)nblocks, k, concurrent, n);
    cr_assert(memcmp(gs.words, gh.words, nblocks * 64) == 0, "add_hashes bytes: blocks=%llu k=%u conc=%d n=%zu",
              (unsigned long long)nblocks, k, concurrent, n);

    /* queries: the n inserted keys then n others (mostly absent) */
    size_t q = 2 * n;
    size_t want = ref->contains_u64(&gs, keys, q, BLOOMSIMD_HITS_BYTES, out_s);
    memset(out_v, 0xAA, q + 64);
    size_t got = simd->contains_u64(&gv, misaligned_copy(buf, keys, q, offset), q, BLOOMSIMD_HITS_BYTES, out_v + offset);
    cr_assert_eq(got, want, "contains_u64 count: blocks=%llu k=%u n=%zu", (unsigned long long)nblocks, k, n);
    cr_assert(memcmp(out_v + offset, out_s, q) == 0, "contains_u64 out");
    cr_assert_eq(out_v[offset + q], 0xAA, "wrote past out");
    cr_assert_eq(simd->contains_u64(&gv, misaligned_copy(buf, keys, q, offset), q, BLOOMSIMD_HITS_BYTES, NULL), want);
    got = simd->contains_hashes(&gv, misaligned_copy(buf, hashes, q, offset), q, BLOOMSIMD_HITS_BYTES, out_v + offset);
    cr_assert_eq(got, want, "contains_hashes count");
    cr_assert(memcmp(out_v + offset, out_s, q) == 0, "contains_hashes out");
    cr_assert_eq(ref->contains_hashes(&gs, hashes, q, BLOOMSIMD_HITS_BYTES, NULL), want);
    cr_assert_geq(want, n, "false negative");

    free(gs.words);
    free(gv.words);
    free(gh.words);
    free(keys);
    free(hashes);
    free(buf);
    free(out_s);
    free(out_v);
}

Test(avx512_selfcheck, every_batch_size_and_misalignment)
{
    for (size_t s = 0; s < N_SIZES; s++)
        for (unsigned off = 0; off < 8; off += 3) compare_geometry(1000, 7, off == 3, sizes[s], off, s);
}

Test(avx512_selfcheck, every_k_from_1_block_to_over_2_pow_20_blocks, .timeout = 120)
{
    const uint64_t blocks[] = {1, 2, 3, 7, 64, 4099};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (uint32_t k = 1; k <= 16; k++)
            for (int conc = 0; conc < 2; conc++) compare_geometry(blocks[b], k, conc, 3 * blocks[b] + 5, k % 8, k);
    for (uint32_t k = 1; k <= 16; k += 5)
        for (int conc = 0; conc < 2; conc++) compare_geometry(((uint64_t)1 << 20) + 3, k, conc, 200003, 1, k);
}

/* nblocks near and at 2^32 (the block index no longer fits 32-bit lanes):
 * a 256 GiB sparse, never-populated mapping (reads see the zero page; only
 * the touched blocks get memory). Keys are chosen as raw hashes with large
 * and extreme high halves. */
Test(avx512_selfcheck, block_index_up_to_2_pow_32_blocks)
{
    const uint64_t counts[] = {(UINT64_C(1) << 31) + 1, (UINT64_C(1) << 32) - 1, UINT64_C(1) << 32};
    size_t bytes = (size_t)64 << 32;
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) cr_skip_test("cannot reserve 256 GiB of address space");
    const size_t n = 4099;
    uint64_t *hashes = test_keys(n, 55);
    hashes[0] = UINT64_MAX;
    hashes[1] = UINT64_C(0xffffffff00000000);
    hashes[2] = UINT64_C(0x80000000ffffffff);
    hashes[3] = 0;
    uint8_t *out_s = malloc(n), *out_v = malloc(n);
    for (size_t c = 0; c < 3; c++) {
        bloomsimd_geometry g = {.words = map, .nblocks = counts[c], .k = 5, .hash_bitflip = 9};
        g.select = bloomsimd_select_tables[(5) - 1];
        /* insert half with avx512, then both kernels must agree on all */
        simd->add_hashes(&g, hashes, n / 2);
        size_t a = ref->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_BYTES, out_s);
        size_t b = simd->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_BYTES, out_v);
        cr_assert_eq(a, b, "nblocks=%llu", (unsigned long long)counts[c]);
        cr_assert(memcmp(out_s, out_v, n) == 0);
        cr_assert_geq(a, n / 2);
        for (size_t i = 0; i < n / 2; i++) cr_assert(out_s[i], "scalar misses an avx512 insert: wrong block");
        /* every hit form and insert-and-report-new agree there too */
        uint32_t *idx_s = malloc(n * 4), *idx_v = malloc(n * 4);
        uint8_t *bm_s = calloc((n + 7) / 8, 1), *bm_v = calloc((n + 7) / 8, 1);
        cr_assert_eq(simd->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_INDICES, idx_v), a);
        cr_assert_eq(ref->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_INDICES, idx_s), a);
        cr_assert(memcmp(idx_s, idx_v, a * 4) == 0, "indices, nblocks=%llu", (unsigned long long)counts[c]);
        cr_assert_eq(simd->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_BITMAP, bm_v), a);
        cr_assert_eq(ref->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_BITMAP, bm_s), a);
        cr_assert(memcmp(bm_s, bm_v, (n + 7) / 8) == 0, "bitmap, nblocks=%llu", (unsigned long long)counts[c]);
        size_t fresh = simd->add_new_hashes(&g, hashes, n, out_v);
        for (size_t i = 0; i < n; i++) cr_assert_eq(out_v[i], !out_s[i], "add_new at key %zu: new iff it was absent", i);
        cr_assert_eq(fresh, n - a);
        free(idx_s), free(idx_v), free(bm_s), free(bm_v);
        /* the same with scalar inserts of the other half, read by avx512 */
        ref->add_hashes(&g, hashes + n / 2, n - n / 2);
        cr_assert_eq(simd->contains_hashes(&g, hashes, n, BLOOMSIMD_HITS_BYTES, NULL), n);
        /* clear the touched blocks for the next count */
        for (size_t i = 0; i < n; i++)
            memset(bloomsimd_block_ptr(&g, bloomsimd_block_index(hashes[i], counts[c])), 0, 64);
    }
    munmap(map, bytes);
    free(hashes);
    free(out_s);
    free(out_v);
}

Test(avx512_selfcheck, union_and_intersect_words_for_every_tail)
{
    for (size_t nw = 0; nw <= 40; nw++) {
        uint64_t *a = aligned_alloc(64, 64 * 6), *b = aligned_alloc(64, 64 * 6), *c = aligned_alloc(64, 64 * 6);
        uint64_t st = nw;
        for (size_t i = 0; i < 48; i++) {
            a[i] = test_splitmix64(&st);
            b[i] = test_splitmix64(&st);
        }
        memcpy(c, a, 64 * 6);
        simd->union_words(a, b, nw);
        ref->union_words(c, b, nw);
        cr_assert(memcmp(a, c, 64 * 6) == 0, "union nwords=%zu", nw);
        simd->intersect_words(a, b + 8, nw);
        ref->intersect_words(c, b + 8, nw);
        cr_assert(memcmp(a, c, 64 * 6) == 0, "intersect nwords=%zu", nw);
        free(a);
        free(b);
        free(c);
    }
}

/* Two threads insert disjoint halves at once through the concurrent avx512
 * path while a third looks them up; the result must equal one scalar pass
 * (OR is commutative, and no bit may be lost to a racing read-modify-write). */
typedef struct job {
    bloomsimd_geometry *g;
    const uint64_t *keys;
    size_t n;
    int lookup;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    for (int rep = 0; rep < 4; rep++) {
        if (j->lookup)
            (void)simd->contains_u64(j->g, j->keys, j->n, BLOOMSIMD_HITS_BYTES, NULL);
        else
            simd->add_u64(j->g, j->keys + rep * (j->n / 4), j->n / 4);
    }
    return NULL;
}

Test(avx512_selfcheck, concurrent_inserts_lose_no_bits)
{
    const size_t n = 400000;
    /* few blocks: the threads collide on the same words all the time */
    bloomsimd_geometry gv = make_geometry(512, 9, 3, true);
    bloomsimd_geometry gs = make_geometry(512, 9, 3, false);
    uint64_t *keys = test_keys(n, 77);
    job jobs[3] = {{&gv, keys, n / 2, 0}, {&gv, keys + n / 2, n / 2, 0}, {&gv, keys, n, 1}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++) cr_assert_eq(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    ref->add_u64(&gs, keys, n);
    cr_assert(memcmp(gs.words, gv.words, 512 * 64) == 0, "concurrent inserts lost bits");
    free(keys);
    free(gv.words);
    free(gs.words);
}

/* Two threads insert-and-report-new the same keys at once through the
 * concurrent avx512 path (both in key order, different batch sizes, so
 * they race on the same key and the same words all the time). The filter
 * is large (4 MiB: the prefetch paths run) and sparse, so no key's bits
 * are set by other keys: every key that is new in one in-order pass must
 * be reported new by at least one thread (one that both missed was lost
 * between a read and an atomic OR), no key present before the race may be
 * reported new, and the bytes must equal one scalar pass. */
typedef struct new_job {
    bloomsimd_geometry *g;
    const uint64_t *keys;
    size_t n, chunk;
    uint8_t *fresh;
} new_job;

static void *run_new_job(void *arg)
{
    new_job *j = arg;
    for (size_t at = 0; at < j->n; at += j->chunk) {
        size_t count = j->n - at < j->chunk ? j->n - at : j->chunk;
        simd->add_new_u64(j->g, j->keys + at, count, j->fresh + at);
    }
    return NULL;
}

Test(avx512_selfcheck, concurrent_insert_and_report_new_loses_no_key)
{
    const uint64_t blocks = UINT64_C(1) << 16;
    const size_t n = 50000, old = 5000;
    uint64_t *keys = test_keys(n, 78);
    bloomsimd_geometry gs = make_geometry(blocks, 6, 5, false);
    ref->add_u64(&gs, keys, old); /* the first `old` keys are present before the race */
    uint8_t *first = malloc(n), *f0 = malloc(n), *f1 = malloc(n);
    ref->add_new_u64(&gs, keys, n, first); /* the in-order answers */
    for (int round = 0; round < 4; round++) {
        bloomsimd_geometry gr = make_geometry(blocks, 6, 5, true);
        simd->add_u64(&gr, keys, old);
        new_job jobs[2] = {{&gr, keys, n, 777, f0}, {&gr, keys, n, 1000 + round, f1}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++) cr_assert_eq(pthread_create(&t[i], NULL, run_new_job, &jobs[i]), 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        for (size_t i = 0; i < n; i++) {
            if (first[i]) cr_assert(f0[i] || f1[i], "round %d: key %zu (new) reported new by neither thread", round, i);
            else cr_assert(!f0[i] && !f1[i], "round %d: key %zu (present before) reported new", round, i);
        }
        cr_assert(memcmp(gs.words, gr.words, blocks * 64) == 0, "concurrent add_new: bytes differ from scalar");
        free(gr.words);
    }
    free(keys), free(first), free(f0), free(f1);
    free(gs.words);
}
