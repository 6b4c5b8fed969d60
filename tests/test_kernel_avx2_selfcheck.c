/*
 * test_kernel_avx2_selfcheck.c — the avx2 kernel entry equals the scalar
 * entry bit for bit: hashes (and libxxhash), filter bytes after inserts from
 * keys and from hashes, lookup outputs and counts in every hit form (with
 * and without an out array), insert-and-report-new flags and counts, single
 * keys, set operations; for batch sizes around the 4-lane vector width, the
 * 8-key group and the 64-key prefetch ring, byte-misaligned keys, hashes and
 * outputs, duplicate keys, k 1..16 (the compact probe for k <= 8, the
 * 16-lane probe above), 1 to > 2^20 blocks, 2^32 - 1 and 2^32 blocks (where
 * the block multiply leaves the 32-bit lane), with and without the
 * concurrent flag. Also: the process-wide selection rows always follow
 * g->select (a table at another address, or another order, for the same k),
 * their first use from many threads at once, concurrent inserts racing with
 * lookups, and concurrent insert-and-report-new of the same keys.
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

static void assert_same_block(const bloomsimd_geometry *gs, const bloomsimd_geometry *ga, uint64_t hash)
{
    uint64_t block = bloomsimd_block_index(hash, gs->nblocks);
    cr_assert_eq(memcmp(gs->words + 16 * block, ga->words + 16 * block, 64), 0, "block %llu differs: k %u",
                 (unsigned long long)block, gs->k);
}

/* The bitmap and index forms of one lookup, against scalar: answers, counts,
 * nothing written past the output, bitmap padding zero. */
static void compare_forms(const bloomsimd_geometry *gs, const bloomsimd_geometry *ga, const uint64_t *keys_al,
                          const uint64_t *keys, const uint64_t *hashes_al, const uint64_t *hashes, size_t m,
                          bool from_hashes, unsigned variant)
{
    static uint32_t idx_s[2 * 100003 + 128], idx_a[2 * 100003 + 128];
    static uint8_t bits_s[(2 * 100003 + 64) / 8 + 64], bits_a[(2 * 100003 + 64) / 8 + 64];
    size_t boff = variant % 7, nbytes = (m + 7) / 8;
    memset(bits_s, 0x5a, sizeof bits_s);
    memset(bits_a, 0x5a, sizeof bits_a);
    memset(idx_s, 0x5a, sizeof idx_s);
    memset(idx_a, 0x5a, sizeof idx_a);
    size_t hb_s, hb_a, hi_s, hi_a;
    if (from_hashes) {
        hb_s = scalar->contains_hashes(gs, hashes_al, m, BLOOMSIMD_HITS_BITMAP, bits_s + boff);
        hb_a = avx2->contains_hashes(ga, hashes, m, BLOOMSIMD_HITS_BITMAP, bits_a + boff);
        hi_s = scalar->contains_hashes(gs, hashes_al, m, BLOOMSIMD_HITS_INDICES, idx_s);
        hi_a = avx2->contains_hashes(ga, hashes, m, BLOOMSIMD_HITS_INDICES, idx_a);
    } else {
        hb_s = scalar->contains_u64(gs, keys_al, m, BLOOMSIMD_HITS_BITMAP, bits_s + boff);
        hb_a = avx2->contains_u64(ga, keys, m, BLOOMSIMD_HITS_BITMAP, bits_a + boff);
        hi_s = scalar->contains_u64(gs, keys_al, m, BLOOMSIMD_HITS_INDICES, idx_s);
        hi_a = avx2->contains_u64(ga, keys, m, BLOOMSIMD_HITS_INDICES, idx_a);
    }
    cr_assert_eq(hb_a, hb_s, "bitmap hit counts: avx2 %zu scalar %zu (m %zu)", hb_a, hb_s, m);
    cr_assert_eq(hi_a, hi_s, "index hit counts: avx2 %zu scalar %zu (m %zu)", hi_a, hi_s, m);
    cr_assert_eq(memcmp(bits_a, bits_s, sizeof bits_s), 0, "bitmaps differ (m %zu, k %u)", m, gs->k);
    if (m % 8) cr_assert_eq(bits_a[boff + nbytes - 1] >> (m % 8), 0, "bitmap padding bits must be 0");
    cr_assert_eq(bits_a[boff + nbytes], 0x5a, "bitmap written past its end");
    cr_assert_eq(memcmp(idx_a, idx_s, hi_s * 4), 0, "hit indices differ (m %zu, k %u)", m, gs->k);
    for (size_t i = m; i < m + 64; i++) cr_assert_eq(idx_a[i], 0x5a5a5a5au, "indices written past n (m %zu)", m);
}

/* Insert a batch into two copies with scalar and avx2 (from keys or from
 * hashes), compare the blocks; then look up the batch interleaved with as
 * many absent keys and compare outputs, counts and the out == NULL count, in
 * every hit form; insert-and-report-new those keys; single keys. */
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
    compare_forms(gs, ga, keys_al, keys, hashes_al, hashes, m, from_hashes, variant);
    /* insert and report new: the same keys (half present, half fresh, the
     * last group's tail included), flags at a misaligned address */
    memset(out_s, 0x77, m + 32);
    memset(out_a, 0x77, m + 32);
    size_t new_s = from_hashes ? scalar->add_new_hashes(gs, hashes_al, m, out_s + ooff)
                               : scalar->add_new_u64(gs, keys_al, m, out_s + ooff);
    size_t new_a = from_hashes ? avx2->add_new_hashes(ga, hashes, m, out_a + ooff)
                               : avx2->add_new_u64(ga, keys, m, out_a + ooff);
    cr_assert_eq(new_a, new_s, "new counts: avx2 %zu scalar %zu (m %zu, k %u)", new_a, new_s, m, gs->k);
    cr_assert_eq(memcmp(out_a, out_s, m + 32), 0, "insert-new flags differ (m %zu, k %u)", m, gs->k);
    cr_assert_eq(from_hashes ? avx2->add_new_hashes(ga, hashes, m, NULL) : avx2->add_new_u64(ga, keys, m, NULL), 0,
                 "a second insert-new pass finds nothing new");
    /* single keys: a few inserts, then lookups of every key */
    uint64_t singles[64];
    size_t nsingle = m < 64 ? m : 64;
    for (size_t i = 0; i < nsingle; i++) {
        uint64_t h = singles[i] = bloomsimd_xxh3_u64(test_splitmix64(state), gs->hash_bitflip);
        scalar->add_one(gs, h);
        avx2->add_one(ga, h);
        cr_assert(avx2->contains_one(ga, h), "single insert then lookup: false negative");
    }
    for (size_t i = 0; i < m; i++) {
        uint64_t h = from_hashes ? hashes_al[i] : bloomsimd_xxh3_u64(keys_al[i], gs->hash_bitflip);
        cr_assert_eq(avx2->contains_one(ga, h), scalar->contains_one(gs, h), "contains_one differs, key %zu", i);
        if (!compare_all_bytes) assert_same_block(gs, ga, h);
    }
    for (size_t i = 0; !compare_all_bytes && i < nsingle; i++) assert_same_block(gs, ga, singles[i]);
}

static void compare_geometry(uint64_t nblocks, uint32_t k, bool concurrent, uint64_t seed, bool compare_all_bytes)
{
    bloomsimd_geometry gs = geometry_over(zeroed_blocks(nblocks), nblocks, k, seed, concurrent);
    bloomsimd_geometry ga = geometry_over(zeroed_blocks(nblocks), nblocks, k, seed, concurrent);
    uint64_t state = seed;
    for (size_t b = 0; b < N_BATCH_SIZES; b++) {
        /* The 100003-key batch (many prefetch rings, the long-run paths) for
         * every k, or in the sanitizer stage (test_quick_mode) for k = 1, 5,
         * 9, 13: the compact and the 16-lane probe both, a quarter of the cost. */
        if (batch_sizes[b] > 1000 && test_quick_mode() && k % 4 != 1) continue;
        compare_batch(&gs, &ga, batch_sizes[b], (unsigned)(b + k), &state, compare_all_bytes);
    }
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

/* The process-wide selection rows are keyed by k but must always expand the
 * table the geometry points at. In this process (Criterion forks one per
 * test) the first call for k = 5 and k = 12 claims the slot for a table in
 * another order; later calls with the frozen table must notice and build
 * their own rows, and both must equal scalar on the same geometry. A copy of
 * the frozen table at another address takes the same path. */
Test(avx2_selfcheck, selection_rows_always_follow_g_select)
{
    const uint32_t ks[] = {5, 12};
    for (size_t t = 0; t < 2; t++) {
        uint32_t k = ks[t];
        uint16_t reordered[BLOOMSIMD_SELECT_ENTRIES], copy[BLOOMSIMD_SELECT_ENTRIES];
        for (unsigned r = 0; r < BLOOMSIMD_SELECT_ENTRIES; r++) {
            reordered[r] = bloomsimd_select_tables[k - 1][(r * 37 + 11) % BLOOMSIMD_SELECT_ENTRIES];
            copy[r] = bloomsimd_select_tables[k - 1][r];
        }
        const uint16_t *tables[3] = {reordered, bloomsimd_select_tables[k - 1], copy};
        uint64_t state = 100 + k;
        for (size_t i = 0; i < 3; i++) {
            bloomsimd_geometry gs = geometry_over(zeroed_blocks(97), 97, k, 7, false);
            bloomsimd_geometry ga = geometry_over(zeroed_blocks(97), 97, k, 7, false);
            gs.select = ga.select = tables[i];
            compare_batch(&gs, &ga, 1000, (unsigned)i, &state, true);
            cr_assert_eq(memcmp(gs.words, ga.words, 97 * 64), 0, "table %zu: filter bytes differ", i);
            free(gs.words);
            free(ga.words);
        }
    }
}

/* Many threads making their first avx2 calls for a k at once: one builds
 * the shared rows, the others must not wait for them nor read them half
 * built. Each thread checks its own lookups against scalar. */
#define FIRST_USE_THREADS 6
typedef struct first_use_arg {
    const bloomsimd_geometry *g;
    const uint64_t *keys;
    const uint8_t *want;
    size_t n;
    pthread_barrier_t *start;
    int mismatches;
} first_use_arg;

static void *first_use(void *p)
{
    first_use_arg *a = p;
    uint8_t *out = malloc(a->n);
    pthread_barrier_wait(a->start);
    for (int rep = 0; rep < 4; rep++) {
        avx2->contains_u64(a->g, a->keys, a->n, BLOOMSIMD_HITS_BYTES, out);
        a->mismatches += memcmp(out, a->want, a->n) != 0;
    }
    free(out);
    return NULL;
}

Test(avx2_selfcheck, first_use_of_the_selection_rows_from_many_threads)
{
    const uint32_t ks[] = {3, 8, 9, 16};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        uint64_t nblocks = 500, n = 3000;
        bloomsimd_geometry g = geometry_over(zeroed_blocks(nblocks), nblocks, ks[t], 3, false);
        uint64_t *keys = test_keys(n, 40 + t);
        uint8_t *want = malloc(n);
        scalar->add_u64(&g, keys, n / 2);
        scalar->contains_u64(&g, keys, n, BLOOMSIMD_HITS_BYTES, want);
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, FIRST_USE_THREADS);
        pthread_t threads[FIRST_USE_THREADS];
        first_use_arg args[FIRST_USE_THREADS];
        for (int i = 0; i < FIRST_USE_THREADS; i++) {
            args[i] = (first_use_arg){&g, keys, want, n, &start, 0};
            cr_assert_eq(pthread_create(&threads[i], NULL, first_use, &args[i]), 0);
        }
        for (int i = 0; i < FIRST_USE_THREADS; i++) {
            pthread_join(threads[i], NULL);
            cr_assert_eq(args[i].mismatches, 0, "k %u thread %d: lookups differ from scalar", ks[t], i);
        }
        pthread_barrier_destroy(&start);
        free(keys);
        free(want);
        free(g.words);
    }
}

/* Two threads insert-and-report-new the same fresh keys (and one more half
 * each) into a concurrent filter sparse enough that no key's bits are set
 * by others: every key must be reported new by at least one thread, the
 * count of each thread must match its flags, and the filter must equal the
 * scalar filter of all keys. */
typedef struct new_race_arg {
    const bloomsimd_geometry *g;
    const uint64_t *keys;
    size_t n;
    bool from_hashes;
    uint8_t *flags;
    size_t count;
} new_race_arg;

static void *new_race(void *p)
{
    new_race_arg *a = p;
    uint64_t hashes[700];
    for (size_t i = 0; i < a->n; i += 700) {
        size_t c = a->n - i < 700 ? a->n - i : 700;
        if (a->from_hashes) {
            avx2->hash_u64(a->g->hash_bitflip, a->keys + i, c, hashes);
            a->count += avx2->add_new_hashes(a->g, hashes, c, a->flags + i);
        } else {
            a->count += avx2->add_new_u64(a->g, a->keys + i, c, a->flags + i);
        }
    }
    return NULL;
}

Test(avx2_selfcheck, concurrent_insert_new_reports_every_new_key_at_least_once)
{
    const size_t shared = 20000, own = 10000;
    uint64_t nblocks = 200000;
    for (uint32_t k = 6; k <= 9; k += 3) {
        uint64_t *keys[2];
        for (int t = 0; t < 2; t++) { /* [shared keys | this thread's own keys] */
            keys[t] = malloc((shared + own) * 8);
            for (size_t i = 0; i < shared; i++) keys[t][i] = test_key(60 + k, i);
            for (size_t i = 0; i < own; i++) keys[t][shared + i] = test_key(70 + k + (uint64_t)t, i);
        }
        bloomsimd_geometry ga = geometry_over(zeroed_blocks(nblocks), nblocks, k, 9, true);
        bloomsimd_geometry gs = geometry_over(zeroed_blocks(nblocks), nblocks, k, 9, false);
        new_race_arg args[2];
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            args[t] = (new_race_arg){&ga, keys[t], shared + own, t == 1, calloc(shared + own, 1), 0};
            cr_assert_eq(pthread_create(&threads[t], NULL, new_race, &args[t]), 0);
        }
        for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
        for (int t = 0; t < 2; t++) {
            size_t flagged = 0;
            for (size_t i = 0; i < shared + own; i++) flagged += args[t].flags[i];
            cr_assert_eq(flagged, args[t].count, "thread %d: count %zu but %zu flags", t, args[t].count, flagged);
            for (size_t i = shared; i < shared + own; i++)
                cr_assert_eq(args[t].flags[i], 1, "k %u thread %d: its own key %zu not new", k, t, i);
        }
        for (size_t i = 0; i < shared; i++)
            cr_assert(args[0].flags[i] | args[1].flags[i], "k %u: shared key %zu reported new by neither thread", k,
                      i);
        scalar->add_u64(&gs, keys[0], shared + own);
        scalar->add_u64(&gs, keys[1] + shared, own);
        cr_assert_eq(memcmp(ga.words, gs.words, (size_t)nblocks * 64), 0, "k %u: concurrent insert-new lost bits", k);
        for (int t = 0; t < 2; t++) {
            free(keys[t]);
            free(args[t].flags);
        }
        free(ga.words);
        free(gs.words);
    }
}
