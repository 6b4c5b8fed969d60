/*
 * test_kernel_avx2_selfcheck.c — the avx2 kernel entry equals the scalar
 * entry bit for bit: hashes (and libxxhash), filter bytes after inserts from
 * keys and from hashes, lookup outputs and counts (with and without an out
 * array), set operations; for batch sizes around the 4-lane vector width, the
 * 8-key group and the 64-key prefetch ring, byte-misaligned keys, hashes and
 * outputs, duplicate keys, k 1..16, 1 to > 2^20 blocks, 2^32 - 1 and 2^32
 * blocks (where the block multiply leaves the 32-bit lane), with and without
 * the concurrent flag, and concurrent inserts racing with lookups.
 *
 * Both entries are called directly, so the work does not depend on
 * BLOOMSIMD_KERNEL: the suite runs in the avx2 pass only.
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

static const size_t batch_sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 71, 72, 73, 1000, 100003};
#define N_BATCH_SIZES (sizeof batch_sizes / sizeof batch_sizes[0])

static const bloomsimd_kernel *scalar, *avx2;

static void select_kernels(void)
{
    if (strcmp(test_kernel(), "avx2") != 0) cr_skip_test("calls the avx2 entry directly: avx2 pass only");
    scalar = bloomsimd_kernel_by_name("scalar");
    avx2 = bloomsimd_kernel_by_name("avx2");
    cr_assert_not_null(scalar);
    if (!avx2 || !bloomsimd_kernel_runnable(avx2)) cr_skip_test("avx2 kernel not built or not runnable here");
}

TestSuite(avx2_selfcheck, .init = select_kernels);

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void store64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

static bloomsimd_geometry geometry_over(uint32_t *words, uint64_t nblocks, uint32_t k, uint64_t seed,
                                        bool concurrent)
{
    bloomsimd_geometry g = {0};
    g.words = words;
    g.nblocks = nblocks;
    g.k = k;
    g.select = bloomsimd_select_tables[(k) - 1];
    g.hash_bitflip = bloomsimd_xxh3_bitflip(seed);
    g.concurrent = concurrent;
    return g;
}

static uint32_t *zeroed_blocks(uint64_t nblocks)
{
    uint32_t *w = aligned_alloc(64, (size_t)nblocks * 64);
    cr_assert_not_null(w);
    memset(w, 0, (size_t)nblocks * 64);
    return w;
}

Test(avx2_selfcheck, hashes_equal_scalar_and_libxxhash_for_8_seeds_and_misaligned_buffers)
{
    const uint64_t seeds[8] = {0, 1, 42, 0xdeadbeef, UINT64_MAX, UINT64_C(1) << 63, 0x0123456789abcdef, 977};
    const size_t n = (1u << 20) + 3;
    unsigned char *kbuf = malloc(n * 8 + 16), *hbuf = malloc(n * 8 + 16);
    uint64_t *ref = malloc(n * 8);
    cr_assert(kbuf && hbuf && ref);
    uint64_t state = 5;
    for (unsigned s = 0; s < 8; s++) {
        size_t koff = s, hoff = (3 * s + 1) % 8;
        for (size_t i = 0; i < n; i++) {
            /* small, huge, single-bit and random keys */
            uint64_t key = i < 64 ? (i < 32 ? i : UINT64_MAX - i) : i < 2000 ? UINT64_C(1) << (i % 64)
                                                                                : test_splitmix64(&state);
            store64(kbuf + koff + 8 * i, key);
        }
        const uint64_t *keys = (const uint64_t *)(const void *)(kbuf + koff);
        uint64_t *hashes = (uint64_t *)(void *)(hbuf + hoff);
        uint64_t bitflip = bloomsimd_xxh3_bitflip(seeds[s]);
        /* the scalar reference gets an aligned copy: the API requires 8-byte
         * alignment and scalar dereferences uint64_t; only avx2 is stressed
         * with byte-misaligned buffers */
        memcpy(ref, kbuf + koff, n * 8);
        scalar->hash_u64(bitflip, ref, n, ref);
        avx2->hash_u64(bitflip, keys, n, hashes);
        for (size_t i = 0; i < n; i++) {
            uint64_t key = load64(kbuf + koff + 8 * i);
            cr_assert_eq(load64(hbuf + hoff + 8 * i), ref[i], "seed %u key %zu: avx2 != scalar", s, i);
            cr_assert_eq(ref[i], XXH3_64bits_withSeed(&key, 8, seeds[s]), "seed %u key %zu: scalar != xxhash", s, i);
        }
        /* every batch size writes exactly n hashes, nothing before or after */
        for (size_t b = 0; b < N_BATCH_SIZES; b++) {
            size_t m = batch_sizes[b];
            memset(hbuf, 0xa5, m * 8 + 16);
            avx2->hash_u64(bitflip, keys, m, hashes);
            for (size_t i = 0; i < m; i++) cr_assert_eq(load64(hbuf + hoff + 8 * i), ref[i], "n=%zu i=%zu", m, i);
            for (size_t i = 0; i < hoff; i++) cr_assert_eq(hbuf[i], 0xa5, "n=%zu wrote before", m);
            for (size_t i = hoff + 8 * m; i < 8 * m + 16; i++) cr_assert_eq(hbuf[i], 0xa5, "n=%zu wrote after", m);
        }
    }
    free(kbuf);
    free(hbuf);
    free(ref);
}

/* Insert a batch into two copies with scalar and avx2 (from keys or from
 * hashes), compare the blocks; then look up the batch interleaved with as
 * many absent keys and compare outputs, counts and the out == NULL count. */
static void compare_batch(bloomsimd_geometry *gs, bloomsimd_geometry *ga, size_t n, unsigned variant,
                          uint64_t *state, bool compare_all_bytes)
{
    static unsigned char keymem[(2 * 100003 + 8) * 8], hashmem[(2 * 100003 + 8) * 8];
    /* aligned copies for the scalar reference (see the hash test) */
    static uint64_t keys_al[2 * 100003 + 8], hashes_al[2 * 100003 + 8];
    static uint8_t out_s[2 * 100003 + 64], out_a[2 * 100003 + 64];
    size_t koff = variant % 8, hoff = (variant * 5 + 3) % 8, ooff = (variant * 7) % 16;
    bool from_hashes = variant % 2;
    for (size_t i = 0; i < n; i++) { /* about one key in eight repeats an earlier one */
        uint64_t key = (i > 8 && test_splitmix64(state) % 8 == 0)
                           ? load64(keymem + koff + 8 * (test_splitmix64(state) % i))
                           : test_splitmix64(state);
        store64(keymem + koff + 8 * i, key);
    }
    const uint64_t *keys = (const uint64_t *)(const void *)(keymem + koff);
    uint64_t *hashes = (uint64_t *)(void *)(hashmem + hoff);
    memcpy(keys_al, keymem + koff, n * 8);
    if (from_hashes) {
        scalar->hash_u64(gs->hash_bitflip, keys_al, n, hashes_al);
        memcpy(hashmem + hoff, hashes_al, n * 8);
        scalar->add_hashes(gs, hashes_al, n);
        avx2->add_hashes(ga, hashes, n);
    } else {
        scalar->add_u64(gs, keys_al, n);
        avx2->add_u64(ga, keys, n);
    }
    if (compare_all_bytes) {
        cr_assert_eq(memcmp(gs->words, ga->words, (size_t)gs->nblocks * 64), 0,
                     "filter bytes differ: %llu blocks, k %u, n %zu, concurrent %d",
                     (unsigned long long)gs->nblocks, gs->k, n, gs->concurrent);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t block = bloomsimd_block_index(bloomsimd_xxh3_u64(load64(keymem + koff + 8 * i), gs->hash_bitflip),
                                                   gs->nblocks);
            cr_assert_eq(memcmp(gs->words + 16 * block, ga->words + 16 * block, 64), 0,
                         "block %llu differs: k %u, n %zu", (unsigned long long)block, gs->k, n);
        }
    }
    size_t m = n ? 2 * n + 1 : 0;
    for (size_t i = m; i-- > 0;) { /* even slots: the inserted keys; odd and last: fresh keys */
        uint64_t key = (i % 2 == 0 && i / 2 < n) ? load64(keymem + koff + 8 * (i / 2)) : test_splitmix64(state);
        store64(keymem + koff + 8 * i, key);
    }
    memset(out_s, 0x77, m + 32);
    memset(out_a, 0x77, m + 32);
    size_t hits_s, hits_a, hits_null;
    memcpy(keys_al, keymem + koff, m * 8);
    if (from_hashes) {
        scalar->hash_u64(gs->hash_bitflip, keys_al, m, hashes_al);
        memcpy(hashmem + hoff, hashes_al, m * 8);
        hits_s = scalar->contains_hashes(gs, hashes_al, m, BLOOMSIMD_HITS_BYTES, out_s + ooff);
        hits_a = avx2->contains_hashes(ga, hashes, m, BLOOMSIMD_HITS_BYTES, out_a + ooff);
        hits_null = avx2->contains_hashes(ga, hashes, m, BLOOMSIMD_HITS_BYTES, NULL);
    } else {
        hits_s = scalar->contains_u64(gs, keys_al, m, BLOOMSIMD_HITS_BYTES, out_s + ooff);
        hits_a = avx2->contains_u64(ga, keys, m, BLOOMSIMD_HITS_BYTES, out_a + ooff);
        hits_null = avx2->contains_u64(ga, keys, m, BLOOMSIMD_HITS_BYTES, NULL);
    }
    cr_assert_eq(hits_a, hits_s, "hit counts: avx2 %zu scalar %zu (m %zu, k %u)", hits_a, hits_s, m, gs->k);
    cr_assert_eq(hits_null, hits_s, "hit count without out: %zu vs %zu", hits_null, hits_s);
    cr_assert_eq(memcmp(out_a, out_s, m + 32), 0, "lookup outputs differ (m %zu, k %u)", m, gs->k);
    for (size_t i = 0; i < 2 * n; i += 2) cr_assert_eq(out_a[ooff + i], 1, "inserted key %zu not found", i / 2);
}

static void compare_geometry(uint64_t nblocks, uint32_t k, bool concurrent, uint64_t seed, bool compare_all_bytes)
{
    bloomsimd_geometry gs = geometry_over(zeroed_blocks(nblocks), nblocks, k, seed, concurrent);
    bloomsimd_geometry ga = geometry_over(zeroed_blocks(nblocks), nblocks, k, seed, concurrent);
    uint64_t state = seed;
    for (size_t b = 0; b < N_BATCH_SIZES; b++)
        compare_batch(&gs, &ga, batch_sizes[b], (unsigned)(b + k), &state, compare_all_bytes);
    cr_assert_eq(memcmp(gs.words, ga.words, (size_t)nblocks * 64), 0, "final bytes differ");
    free(gs.words);
    free(ga.words);
}

Test(avx2_selfcheck, every_k_batch_size_and_misalignment_on_small_geometries)
{
    const uint64_t nblocks[] = {1, 2, 3, 7, 1000, 65537};
    for (size_t i = 0; i < sizeof nblocks / sizeof nblocks[0]; i++)
        for (uint32_t k = 1; k <= 16; k++)
            for (int concurrent = 0; concurrent < 2; concurrent++)
                compare_geometry(nblocks[i], k, concurrent, 1000 * i + 10 * k + (uint64_t)concurrent, true);
}

Test(avx2_selfcheck, more_than_2_pow_20_blocks)
{
    const uint32_t ks[] = {1, 2, 7, 12, 16};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        compare_geometry((UINT64_C(1) << 20) + 3, ks[i], i % 2, 77 + i, false);
}

/* 2^32 blocks: ((h >> 32) * 2^32) >> 32 = h >> 32, a multiplier that does not
 * fit the 32-bit lane; 2^32 - 1 must still use the multiply. 256 GiB of
 * MAP_NORESERVE address space; only the probed pages are ever touched. */
Test(avx2_selfcheck, block_index_at_2_pow_32_minus_1_and_2_pow_32_blocks)
{
    size_t bytes = (size_t)64 << 32;
    void *mem_s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *mem_a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem_s == MAP_FAILED || mem_a == MAP_FAILED) cr_skip_test("cannot reserve 2 x 256 GiB of address space");
    uint64_t state = 3;
    for (uint64_t nblocks = (UINT64_C(1) << 32) - 1; nblocks <= (UINT64_C(1) << 32); nblocks++) {
        for (uint32_t k = 1; k <= 16; k += 5) {
            bloomsimd_geometry gs = geometry_over(mem_s, nblocks, k, nblocks + k, k % 2);
            bloomsimd_geometry ga = geometry_over(mem_a, nblocks, k, nblocks + k, k % 2);
            compare_batch(&gs, &ga, 3001, k + 2, &state, false);
        }
    }
    munmap(mem_s, bytes);
    munmap(mem_a, bytes);
}

Test(avx2_selfcheck, union_and_intersect_equal_scalar_for_every_tail)
{
    uint64_t state = 11;
    for (size_t nwords = 0; nwords < 70; nwords++) {
        /* C11 aligned_alloc needs a size that is a multiple of the alignment: 72 words */
        uint64_t *src = aligned_alloc(64, 72 * 8), *d_s = aligned_alloc(64, 72 * 8), *d_a = aligned_alloc(64, 72 * 8);
        cr_assert(src && d_s && d_a);
        for (size_t i = 0; i < 70; i++) {
            src[i] = test_splitmix64(&state);
            d_s[i] = d_a[i] = test_splitmix64(&state);
        }
        scalar->union_words(d_s, src, nwords);
        avx2->union_words(d_a, src, nwords);
        cr_assert_eq(memcmp(d_s, d_a, 70 * 8), 0, "union of %zu words", nwords);
        scalar->intersect_words(d_s, src, nwords);
        avx2->intersect_words(d_a, src, nwords);
        cr_assert_eq(memcmp(d_s, d_a, 70 * 8), 0, "intersect of %zu words", nwords);
        free(src);
        free(d_s);
        free(d_a);
    }
}

/* Two threads insert disjoint key sets through the concurrent avx2 paths
 * while two threads look them up; afterwards the filter must equal the
 * scalar filter of all keys inserted one thread after the other. */
#define RACE_KEYS 100000u
typedef struct race_arg {
    bloomsimd_geometry *g;
    const uint64_t *keys;
    bool from_hashes;
} race_arg;

static void *race_insert(void *p)
{
    race_arg *a = p;
    uint64_t hashes[1000];
    for (size_t i = 0; i < RACE_KEYS; i += 1000) {
        if (a->from_hashes) {
            avx2->hash_u64(a->g->hash_bitflip, a->keys + i, 1000, hashes);
            avx2->add_hashes(a->g, hashes, 1000);
        } else {
            avx2->add_u64(a->g, a->keys + i, 1000);
        }
    }
    return NULL;
}

static void *race_lookup(void *p)
{
    race_arg *a = p;
    uint8_t out[1000];
    size_t hits = 0;
    for (size_t i = 0; i < RACE_KEYS; i += 1000) hits += avx2->contains_u64(a->g, a->keys + i, 1000, BLOOMSIMD_HITS_BYTES, out);
    return (void *)(uintptr_t)hits;
}

Test(avx2_selfcheck, concurrent_inserts_racing_with_lookups_lose_no_bits)
{
    uint64_t *keys = test_keys(2 * RACE_KEYS, 9);
    uint64_t nblocks = 2 * RACE_KEYS * 10 / 512 + 1;
    bloomsimd_geometry ga = geometry_over(zeroed_blocks(nblocks), nblocks, 7, 5, true);
    bloomsimd_geometry gs = geometry_over(zeroed_blocks(nblocks), nblocks, 7, 5, false);
    race_arg args[2] = {{&ga, keys, false}, {&ga, keys + RACE_KEYS, true}};
    pthread_t threads[4];
    for (int t = 0; t < 2; t++) cr_assert_eq(pthread_create(&threads[t], NULL, race_insert, &args[t]), 0);
    for (int t = 0; t < 2; t++) cr_assert_eq(pthread_create(&threads[2 + t], NULL, race_lookup, &args[t]), 0);
    for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
    scalar->add_u64(&gs, keys, 2 * RACE_KEYS);
    cr_assert_eq(memcmp(ga.words, gs.words, (size_t)nblocks * 64), 0, "a racing insert lost bits");
    cr_assert_eq(avx2->contains_u64(&ga, keys, 2 * RACE_KEYS, BLOOMSIMD_HITS_BYTES, NULL), 2 * RACE_KEYS);
    free(keys);
    free(ga.words);
    free(gs.words);
}
