/*
 * test_kernels_differential.c — the run's kernel (BLOOMSIMD_KERNEL) must
 * produce exactly what the scalar reference produces: hashes, filter bytes
 * after inserts, lookup outputs and counts.
 *
 * The scalar kernel itself is checked against `oracle_*` below: a second,
 * deliberately naive implementation of kernels/layout.h written from the
 * specification text (libxxhash for the hash, a linear scan for the word
 * subset), so the reference cannot silently drift from the documented layout.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"
#include "dispatch.h"
#include "layout.h"
#include "support.h"

static const size_t batch_sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1000, 100003};
#define N_BATCH_SIZES (sizeof batch_sizes / sizeof batch_sizes[0])

/* ---- the oracle: layout.h sections 1-4, re-derived naively ---------------- */

static uint64_t oracle_hash(uint64_t key, uint64_t seed)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(key >> (8 * i)); /* little-endian bytes */
    return XXH3_64bits_withSeed(bytes, 8, seed);
}

/* The frozen word-selection table of k (its own tests: the generator
 * reproduces it byte for byte, test_layout checks its balance); the oracle
 * re-derives only how a hash indexes it: the top 6 of the low 32 bits. */
static uint16_t oracle_select(uint32_t k, uint64_t h)
{
    uint64_t low32 = h % (UINT64_C(1) << 32);
    return bloomsimd_select_tables[k - 1][low32 / (UINT64_C(1) << 26)];
}

static void oracle_insert(uint32_t *words, uint64_t nblocks, uint32_t k, uint64_t h)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    unsigned __int128 wide = (unsigned __int128)(h >> 32) * nblocks;
    uint64_t block = (uint64_t)(wide >> 32);
    uint32_t lo = (uint32_t)h;
    uint16_t select = oracle_select(k, h);
    for (unsigned w = 0; w < 16; w++)
        if (select & (1u << w)) words[block * 16 + w] |= 1u << ((uint32_t)(lo * salts[w]) >> 27);
}

/* ---- helpers ------------------------------------------------------------- */

static bloomsimd_filter *make(const char *kernel, uint64_t blocks, uint32_t k, uint64_t seed, uint32_t flags)
{
    /* kernels/layout.h is block512's; split256 has test_split256_differential.c */
    bloomsimd_options o = {.bits = blocks * 512, .k = k, .seed = seed, .kernel = kernel, .flags = flags,
                           .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, &o);
    cr_assert_eq(st, BLOOMSIMD_OK, "create %s blocks=%llu k=%u: %s", kernel, (unsigned long long)blocks, k,
                 bloomsimd_status_string(st));
    return f;
}

static void assert_same_bytes(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    cr_assert_eq(a->geometry.nblocks, b->geometry.nblocks);
    cr_assert(memcmp(a->geometry.words, b->geometry.words, bloomsimd_filter_bytes(a)) == 0,
              "%s: filter bytes differ between %s and %s", what, a->kernel->name, b->kernel->name);
}

/* 64-byte-aligned buffer with room to offset the start. */
static void *aligned_buffer(size_t bytes)
{
    void *p = NULL;
    cr_assert_eq(posix_memalign(&p, 64, bytes + 128), 0);
    return p;
}

/* ---- hashes ---------------------------------------------------------------- */

Test(differential, u64_hashes_equal_scalar_and_libxxhash_over_8_seeds)
{
    const size_t n = 1000000;
    const uint64_t seeds[8] = {0, 1, 42, 0xffffffffu, UINT64_C(1) << 32, UINT64_C(0x8000000000000000),
                               UINT64_C(0x0123456789abcdef), UINT64_MAX};
    uint64_t *keys = test_keys(n, 11);
    keys[0] = 0, keys[1] = UINT64_MAX, keys[2] = 1; /* edge keys */
    uint64_t *got = malloc(n * sizeof *got), *ref = malloc(n * sizeof *ref);
    for (int s = 0; s < 8; s++) {
        bloomsimd_filter *fk = make(test_kernel(), 1, 7, seeds[s], 0);
        bloomsimd_filter *fs = make("scalar", 1, 7, seeds[s], 0);
        bloomsimd_hash_batch_u64(fk, keys, n, got);
        bloomsimd_hash_batch_u64(fs, keys, n, ref);
        for (size_t i = 0; i < n; i++) {
            if (got[i] != ref[i] || ref[i] != oracle_hash(keys[i], seeds[s]))
                cr_assert_fail("seed %d key %zu: kernel %016llx scalar %016llx xxhash %016llx", s, i,
                               (unsigned long long)got[i], (unsigned long long)ref[i],
                               (unsigned long long)oracle_hash(keys[i], seeds[s]));
        }
        /* every batch size, writing to an output that is not vector-aligned */
        uint64_t *buf = aligned_buffer(100003 * 8);
        for (size_t b = 0; b < N_BATCH_SIZES; b++) {
            memset(buf, 0xAB, 100003 * 8 + 128);
            bloomsimd_hash_batch_u64(fk, keys + 1, batch_sizes[b], buf + 1);
            for (size_t i = 0; i < batch_sizes[b]; i++) cr_assert_eq(buf[1 + i], ref[1 + i]);
            cr_assert_eq(buf[1 + batch_sizes[b]], UINT64_C(0xABABABABABABABAB), "wrote past the end");
        }
        free(buf);
        bloomsimd_destroy(fk);
        bloomsimd_destroy(fs);
    }
    free(keys), free(got), free(ref);
}

/* ---- the scalar reference matches the oracle --------------------------------- */

Test(differential, scalar_reference_matches_the_specification_for_every_k)
{
    const uint64_t geometries[] = {1, 3, 1000, (UINT64_C(1) << 20) + 7};
    uint64_t *keys = test_keys(20000, 12);
    for (size_t gi = 0; gi < 4; gi++) {
        uint64_t blocks = geometries[gi];
        uint32_t *oracle = calloc(blocks * 16, sizeof *oracle);
        for (uint32_t k = 1; k <= 16; k++) {
            size_t n = blocks == 1 ? 20 : 20000;
            bloomsimd_filter *f = make("scalar", blocks, k, 99, 0);
            memset(oracle, 0, blocks * 64);
            for (size_t i = 0; i < n; i++) oracle_insert(oracle, blocks, k, oracle_hash(keys[i], 99));
            cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
            cr_assert(memcmp(oracle, f->geometry.words, blocks * 64) == 0,
                      "scalar differs from the spec at blocks=%llu k=%u", (unsigned long long)blocks, k);
            bloomsimd_destroy(f);
        }
        free(oracle);
    }
    free(keys);
}

/* ---- filter bytes and answers, every geometry and k ----------------------------- */

static void compare_inserts_and_lookups(uint64_t blocks, uint32_t k, uint64_t seed, uint32_t flags, size_t n,
                                        const uint64_t *keys, const uint64_t *absent)
{
    bloomsimd_filter *fk = make(test_kernel(), blocks, k, seed, flags);
    bloomsimd_filter *fs = make("scalar", blocks, k, seed, flags);
    cr_assert_eq(bloomsimd_add_batch_u64(fk, keys, n), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(fs, keys, n), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "add_batch_u64");

    uint8_t *ok = malloc(n + 1), *os = malloc(n + 1);
    size_t ck = bloomsimd_contains_batch_u64(fk, absent, n, ok);
    size_t cs = bloomsimd_contains_batch_u64(fs, absent, n, os);
    cr_assert_eq(ck, cs, "blocks=%llu k=%u: count %zu vs scalar %zu", (unsigned long long)blocks, k, ck, cs);
    cr_assert(memcmp(ok, os, n) == 0, "blocks=%llu k=%u: lookup outputs differ", (unsigned long long)blocks, k);
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, keys, n, ok), n, "false negative on the kernel");

    /* the hash paths give the same bytes as the fused paths */
    uint64_t *hashes = malloc(n * sizeof *hashes + 8);
    bloomsimd_hash_batch_u64(fs, keys, n, hashes);
    bloomsimd_clear(fk);
    cr_assert_eq(bloomsimd_add_hashes(fk, hashes, n), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "add_hashes");
    bloomsimd_hash_batch_u64(fs, absent, n, hashes);
    cr_assert_eq(bloomsimd_contains_hashes(fk, hashes, n, ok), cs);
    cr_assert(memcmp(ok, os, n) == 0, "contains_hashes outputs differ");
    free(ok), free(os), free(hashes);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(differential, filter_bytes_and_answers_for_every_k_from_1_block_to_over_2_pow_20)
{
    const uint64_t geometries[] = {1, 2, 3, 17, 1000, 65537, (UINT64_C(1) << 20) + 3};
    uint64_t *keys = test_keys(50000, 13), *absent = test_keys(50000, 14);
    for (size_t gi = 0; gi < sizeof geometries / sizeof geometries[0]; gi++)
        for (uint32_t k = 1; k <= 16; k++)
            compare_inserts_and_lookups(geometries[gi], k, gi * 31 + k, 0, geometries[gi] < 100 ? 500 : 50000,
                                        keys, absent);
    free(keys), free(absent);
}

Test(differential, concurrent_flag_gives_the_same_bytes_and_answers)
{
    uint64_t *keys = test_keys(50000, 15), *absent = test_keys(50000, 16);
    for (uint32_t k = 1; k <= 16; k += 5) compare_inserts_and_lookups(4099, k, 7, BLOOMSIMD_CONCURRENT, 50000, keys, absent);
    free(keys), free(absent);
}

Test(differential, every_batch_size_with_misaligned_keys_and_outputs)
{
    const size_t max = 100003;
    uint64_t *keybuf = aligned_buffer(max * 8), *absentbuf = aligned_buffer(max * 8);
    uint64_t *src = test_keys(max, 17), *src_absent = test_keys(max, 18);
    uint8_t *outk = aligned_buffer(max), *outs = aligned_buffer(max);
    /* keys start 8 bytes past a 64-byte boundary (not vector-aligned);
     * outputs start at odd byte offsets */
    uint64_t *keys = keybuf + 1, *absent = absentbuf + 3;
    memcpy(keys, src, max * 8);
    memcpy(absent, src_absent, max * 8);
    for (size_t b = 0; b < N_BATCH_SIZES; b++) {
        size_t n = batch_sizes[b];
        bloomsimd_filter *fk = make(test_kernel(), 2000, 8, 5, 0);
        bloomsimd_filter *fs = make("scalar", 2000, 8, 5, 0);
        cr_assert_eq(bloomsimd_add_batch_u64(fk, keys, n), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(fs, keys, n), BLOOMSIMD_OK);
        assert_same_bytes(fk, fs, "batch");
        memset(outk, 0xEE, max + 64), memset(outs, 0xEE, max + 64);
        size_t ck = bloomsimd_contains_batch_u64(fk, absent, n, outk + 1);
        size_t cs = bloomsimd_contains_batch_u64(fs, absent, n, outs + 1);
        cr_assert_eq(ck, cs, "batch %zu: counts differ", n);
        cr_assert(memcmp(outk, outs, max + 64) == 0, "batch %zu: outputs differ (or written out of range)", n);
        cr_assert_eq(outk[1 + n], 0xEE, "batch %zu: wrote past out[n-1]", n);
        cr_assert_eq(bloomsimd_contains_batch_u64(fk, keys, n, NULL), n, "batch %zu: NULL out", n);
        bloomsimd_destroy(fk);
        bloomsimd_destroy(fs);
    }
    free(keybuf), free(absentbuf), free(src), free(src_absent), free(outk), free(outs);
}

Test(differential, duplicate_keys_in_a_batch)
{
    const size_t n = 10000;
    uint64_t *keys = test_keys(n, 19);
    for (size_t i = 0; i < n; i++)
        if (i % 3) keys[i] = keys[i / 7]; /* many repeats, near and far apart */
    for (size_t i = 0; i < 64; i++) keys[i] = 12345; /* a run of one key */
    bloomsimd_filter *fk = make(test_kernel(), 300, 6, 1, 0);
    bloomsimd_filter *fs = make("scalar", 300, 6, 1, 0);
    cr_assert_eq(bloomsimd_add_batch_u64(fk, keys, n), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(fs, keys, n), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "duplicates");
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, keys, n, NULL), n);
    free(keys);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(differential, byte_key_batches)
{
    const size_t n = 5000;
    char (*storage)[40] = malloc(n * sizeof *storage);
    const void **keys = malloc(n * sizeof *keys);
    size_t *lens = malloc(n * sizeof *lens);
    uint64_t state = 3;
    for (size_t i = 0; i < n; i++) {
        lens[i] = i % 40;
        for (size_t j = 0; j < 40; j++) storage[i][j] = (char)test_splitmix64(&state);
        keys[i] = storage[i];
    }
    bloomsimd_filter *fk = make(test_kernel(), 500, 9, 77, 0);
    bloomsimd_filter *fs = make("scalar", 500, 9, 77, 0);
    cr_assert_eq(bloomsimd_add_batch(fk, (const void *const *)keys, lens, n / 2), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch(fs, (const void *const *)keys, lens, n / 2), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "byte keys");
    uint8_t *ok = malloc(n), *os = malloc(n);
    cr_assert_eq(bloomsimd_contains_batch(fk, (const void *const *)keys, lens, n, ok),
                 bloomsimd_contains_batch(fs, (const void *const *)keys, lens, n, os));
    cr_assert(memcmp(ok, os, n) == 0);
    free(storage), free(keys), free(lens), free(ok), free(os);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(differential, union_and_intersect_words_match_scalar)
{
    const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(test_kernel());
    const bloomsimd_kernel *scalar = bloomsimd_kernel_by_name("scalar");
    cr_assert_not_null(kernel);
    const size_t sizes[] = {8, 16, 24, 64, 8 * 1001};
    for (size_t si = 0; si < 5; si++) {
        size_t nw = sizes[si];
        uint64_t *a = aligned_buffer(nw * 8), *b = aligned_buffer(nw * 8), *c = aligned_buffer(nw * 8);
        uint64_t state = nw;
        for (size_t i = 0; i < nw; i++) a[i] = test_splitmix64(&state), b[i] = test_splitmix64(&state);
        memcpy(c, a, nw * 8);
        kernel->union_words(a, b, nw);
        scalar->union_words(c, b, nw);
        cr_assert(memcmp(a, c, nw * 8) == 0, "union differs at %zu words", nw);
        kernel->intersect_words(a, b, nw);
        scalar->intersect_words(c, b, nw);
        cr_assert(memcmp(a, c, nw * 8) == 0, "intersect differs at %zu words", nw);
        free(a), free(b), free(c);
    }
}

Test(differential, touch_u64_reads_the_first_word_of_each_keys_block)
{
    const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(test_kernel());
    cr_assert_not_null(kernel);
    if (!kernel->touch_u64) cr_skip_test("kernel %s has no touch_u64 (optional, bench only)", kernel->name);
    /* word 0 of block b holds b + 1: the sum names exactly the blocks read */
    const uint64_t blocks[] = {1, 3, 1000, (UINT64_C(1) << 20) + 3};
    uint64_t *keys = test_keys(100003, 20);
    for (size_t gi = 0; gi < 4; gi++) {
        bloomsimd_filter *f = make(kernel->name, blocks[gi], 6, gi, 0);
        uint64_t *words64 = (uint64_t *)(void *)f->geometry.words;
        for (uint64_t b = 0; b < blocks[gi]; b++) words64[b * 8] = b + 1;
        for (size_t bs = 0; bs < N_BATCH_SIZES; bs++) {
            size_t n = batch_sizes[bs];
            uint64_t want = 0;
            for (size_t i = 0; i < n; i++)
                want += bloomsimd_block_index(bloomsimd_xxh3_u64(keys[i], f->geometry.hash_bitflip), blocks[gi]) + 1;
            cr_assert_eq(kernel->touch_u64(&f->geometry, keys, n), want, "blocks=%llu n=%zu",
                         (unsigned long long)blocks[gi], n);
            /* the two-pass form of the bench's floor: the same blocks from the kernel's own hashes */
            if (kernel->touch_hashes) {
                uint64_t *hashes = malloc((n ? n : 1) * sizeof *hashes);
                cr_assert_not_null(hashes);
                kernel->hash_u64(f->geometry.hash_bitflip, keys, n, hashes);
                cr_assert_eq(kernel->touch_hashes(&f->geometry, hashes, n), want, "touch_hashes: blocks=%llu n=%zu",
                             (unsigned long long)blocks[gi], n);
                free(hashes);
            }
        }
        bloomsimd_destroy(f);
    }
    free(keys);
}
