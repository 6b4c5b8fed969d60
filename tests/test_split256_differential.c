/*
 * test_split256_differential.c — layout 3 (split256) on the run's kernel
 * (BLOOMSIMD_KERNEL) must produce exactly what the scalar reference
 * produces: filter bytes after every kind of insert, every lookup form and
 * count, insert-and-report-new, single-key calls, concurrent filters.
 *
 * The scalar reference itself is checked against `oracle_*` below: a second
 * implementation written from the text of kernels/layout_split256.h (the
 * salts typed in from Parquet's specification, libxxhash for the hash, a
 * 128-bit product for the block), so the reference cannot drift from the
 * documented layout.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "dispatch.h"
#include "internal.h"
#include "layout_split256.h"
#include "support.h"

static const size_t batch_sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1000, 100003};
#define N_BATCH_SIZES (sizeof batch_sizes / sizeof batch_sizes[0])

/* ---- the oracle: layout_split256.h sections 1-3, re-derived ----------------- */

static uint64_t oracle_hash(uint64_t key, uint64_t seed)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(key >> (8 * i));
    return XXH3_64bits_withSeed(bytes, 8, seed);
}

static void oracle_mask(uint64_t h, uint32_t mask[8])
{
    static const uint32_t parquet_salts[8] = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
                                              0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31};
    uint32_t key = (uint32_t)(h & 0xffffffffu);
    for (int w = 0; w < 8; w++) mask[w] = UINT32_C(1) << ((uint32_t)(key * parquet_salts[w]) >> 27);
}

static uint64_t oracle_block(uint64_t h, uint64_t nblocks)
{
    unsigned __int128 wide = (unsigned __int128)(h >> 32) * nblocks;
    return (uint64_t)(wide >> 32);
}

static void oracle_insert(uint32_t *words, uint64_t nblocks, uint64_t h)
{
    uint32_t mask[8];
    oracle_mask(h, mask);
    for (int w = 0; w < 8; w++) words[oracle_block(h, nblocks) * 8 + w] |= mask[w];
}

static int oracle_contains(const uint32_t *words, uint64_t nblocks, uint64_t h)
{
    uint32_t mask[8];
    oracle_mask(h, mask);
    for (int w = 0; w < 8; w++)
        if ((words[oracle_block(h, nblocks) * 8 + w] & mask[w]) != mask[w]) return 0;
    return 1;
}

/* ---- helpers ------------------------------------------------------------- */

static bloomsimd_filter *make(const char *kernel, uint64_t blocks, uint64_t seed, uint32_t flags)
{
    bloomsimd_options o = {
        .bits = blocks * 256, .seed = seed, .kernel = kernel, .flags = flags, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, &o);
    cr_assert_eq(st, BLOOMSIMD_OK, "create %s blocks=%llu: %s", kernel, (unsigned long long)blocks,
                 bloomsimd_last_error());
    cr_assert_eq(f->geometry.layout, BLOOMSIMD_LAYOUT_SPLIT256);
    cr_assert_eq(f->geometry.nblocks, blocks);
    return f;
}

static void assert_same_bytes(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what)
{
    cr_assert_eq(a->geometry.nblocks, b->geometry.nblocks);
    cr_assert(memcmp(a->geometry.words, b->geometry.words, a->geometry.nblocks * 32) == 0,
              "%s: filter bytes differ between %s and %s (%llu blocks)", what, a->kernel->name, b->kernel->name,
              (unsigned long long)a->geometry.nblocks);
}

static void *aligned_buffer(size_t bytes)
{
    void *p = NULL;
    cr_assert_eq(posix_memalign(&p, 64, bytes + 128), 0);
    return p;
}

/* ---- the scalar reference matches the oracle ------------------------------- */

Test(split256_differential, scalar_reference_matches_the_specification)
{
    const uint64_t geometries[] = {1, 2, 3, 1000, (UINT64_C(1) << 20) + 7};
    const size_t n = 20000;
    uint64_t *keys = test_keys(n, 112), *absent = test_keys(n, 113);
    for (size_t gi = 0; gi < sizeof geometries / sizeof geometries[0]; gi++) {
        uint64_t blocks = geometries[gi];
        size_t count = blocks < 4 ? 12 : n;
        uint32_t *oracle = calloc(blocks * 8, sizeof *oracle);
        bloomsimd_filter *f = make("scalar", blocks, 99 + gi, 0);
        for (size_t i = 0; i < count; i++) oracle_insert(oracle, blocks, oracle_hash(keys[i], 99 + gi));
        cr_assert_eq(bloomsimd_add_batch_u64(f, keys, count), BLOOMSIMD_OK);
        cr_assert(memcmp(oracle, f->geometry.words, blocks * 32) == 0, "scalar differs from the spec at %llu blocks",
                  (unsigned long long)blocks);
        for (size_t i = 0; i < count; i++) {
            uint64_t h = oracle_hash(absent[i], 99 + gi);
            cr_assert_eq(bloomsimd_contains_u64(f, absent[i]), (bool)oracle_contains(oracle, blocks, h),
                         "answer differs from the spec at key %zu", i);
        }
        bloomsimd_destroy(f);
        free(oracle);
    }
    free(keys), free(absent);
}

/* ---- every entry, the run's kernel against scalar ---------------------------------- */

static void compare_everything(uint64_t blocks, uint64_t seed, uint32_t flags, size_t n, const uint64_t *keys,
                               const uint64_t *absent)
{
    bloomsimd_filter *fk = make(test_kernel(), blocks, seed, flags);
    bloomsimd_filter *fs = make("scalar", blocks, seed, flags);
    cr_assert_eq(bloomsimd_add_batch_u64(fk, keys, n), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(fs, keys, n), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "add_batch_u64");

    /* every hit form, fused and from hashes */
    uint8_t *ok = malloc(n + 1), *os = malloc(n + 1);
    uint8_t *bk = calloc(n / 8 + 2, 1), *bs = calloc(n / 8 + 2, 1);
    uint32_t *ik = malloc((n + 8) * sizeof *ik), *is = malloc((n + 8) * sizeof *is);
    uint64_t *hashes = malloc((n + 1) * sizeof *hashes);
    size_t cs = bloomsimd_contains_batch_u64(fs, absent, n, os);
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, absent, n, ok), cs, "blocks %llu: counts differ",
                 (unsigned long long)blocks);
    cr_assert(memcmp(ok, os, n) == 0, "blocks %llu: lookup bytes differ", (unsigned long long)blocks);
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, absent, n, NULL), cs);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(fk, absent, n, bk), cs);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(fs, absent, n, bs), cs);
    cr_assert(n == 0 || memcmp(bk, bs, (n + 7) / 8) == 0, "bitmaps differ");
    cr_assert_eq(bloomsimd_select_batch_u64(fk, absent, n, ik), cs);
    cr_assert_eq(bloomsimd_select_batch_u64(fs, absent, n, is), cs);
    cr_assert(memcmp(ik, is, cs * sizeof *ik) == 0, "selection vectors differ");
    bloomsimd_hash_batch_u64(fs, absent, n, hashes);
    cr_assert_eq(bloomsimd_contains_hashes(fk, hashes, n, ok), cs);
    cr_assert(memcmp(ok, os, n) == 0, "contains_hashes bytes differ");
    cr_assert_eq(bloomsimd_contains_bitmap_hashes(fk, hashes, n, bk), cs);
    cr_assert(n == 0 || memcmp(bk, bs, (n + 7) / 8) == 0, "bitmaps from hashes differ");
    cr_assert_eq(bloomsimd_select_hashes(fk, hashes, n, ik), cs);
    cr_assert(memcmp(ik, is, cs * sizeof *ik) == 0, "selection vectors from hashes differ");
    for (size_t i = 0; i < n; i += 1 + n / 500)
        cr_assert_eq(bloomsimd_contains_u64(fk, absent[i]), os[i] != 0, "single-key lookup %zu", i);
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, keys, n, NULL), n, "false negative on the kernel");

    /* inserts from hashes, one at a time, and insert-and-report-new */
    bloomsimd_hash_batch_u64(fs, keys, n, hashes);
    bloomsimd_clear(fk);
    cr_assert_eq(bloomsimd_add_hashes(fk, hashes, n), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "add_hashes");
    bloomsimd_clear(fk);
    for (size_t i = 0; i < n; i++) cr_assert_eq(bloomsimd_add_u64(fk, keys[i]), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "add_u64 one at a time");
    bloomsimd_clear(fk);
    bloomsimd_clear(fs);
    size_t nk = 0, ns = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(fk, keys, n, ok, &nk), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch_u64(fs, keys, n, os, &ns), BLOOMSIMD_OK);
    cr_assert_eq(nk, ns);
    cr_assert(memcmp(ok, os, n) == 0, "add_new flags differ");
    assert_same_bytes(fk, fs, "add_new_batch_u64");
    bloomsimd_hash_batch_u64(fs, absent, n, hashes);
    cr_assert_eq(bloomsimd_add_new_hashes(fk, hashes, n, ok, &nk), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_hashes(fs, hashes, n, os, &ns), BLOOMSIMD_OK);
    cr_assert_eq(nk, ns);
    cr_assert(memcmp(ok, os, n) == 0, "add_new_hashes flags differ");
    assert_same_bytes(fk, fs, "add_new_hashes");
    for (size_t i = 0; i < n; i += 1 + n / 300) {
        bool new_k, new_s;
        uint64_t key = absent[i] ^ UINT64_C(0x5555);
        cr_assert_eq(bloomsimd_add_new_u64(fk, key, &new_k), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_new_u64(fs, key, &new_s), BLOOMSIMD_OK);
        cr_assert_eq(new_k, new_s);
    }
    assert_same_bytes(fk, fs, "add_new_u64");
    free(ok), free(os), free(bk), free(bs), free(ik), free(is), free(hashes);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(split256_differential, every_entry_from_1_block_to_over_2_pow_20)
{
    const uint64_t geometries[] = {1, 2, 3, 17, 1000, 65537, (UINT64_C(1) << 20) + 3};
    uint64_t *keys = test_keys(50000, 114), *absent = test_keys(50000, 115);
    for (size_t gi = 0; gi < sizeof geometries / sizeof geometries[0]; gi++)
        compare_everything(geometries[gi], gi * 31 + 5, 0, geometries[gi] < 100 ? 500 : 50000, keys, absent);
    free(keys), free(absent);
}

Test(split256_differential, concurrent_flag_gives_the_same_bytes_and_answers)
{
    uint64_t *keys = test_keys(50000, 116), *absent = test_keys(50000, 117);
    compare_everything(4099, 7, BLOOMSIMD_CONCURRENT, 50000, keys, absent);
    compare_everything(3, 8, BLOOMSIMD_CONCURRENT, 300, keys, absent);
    free(keys), free(absent);
}

Test(split256_differential, every_batch_size_with_misaligned_keys_and_outputs)
{
    const size_t max = 100003;
    uint64_t *keybuf = aligned_buffer(max * 8), *absentbuf = aligned_buffer(max * 8);
    uint64_t *src = test_keys(max, 118), *src_absent = test_keys(max, 119);
    uint8_t *outk = aligned_buffer(max), *outs = aligned_buffer(max);
    uint64_t *keys = keybuf + 1, *absent = absentbuf + 3;
    memcpy(keys, src, max * 8);
    memcpy(absent, src_absent, max * 8);
    for (size_t b = 0; b < N_BATCH_SIZES; b++) {
        size_t n = batch_sizes[b];
        bloomsimd_filter *fk = make(test_kernel(), 4000, 5, 0);
        bloomsimd_filter *fs = make("scalar", 4000, 5, 0);
        cr_assert_eq(bloomsimd_add_batch_u64(fk, keys, n), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_batch_u64(fs, keys, n), BLOOMSIMD_OK);
        assert_same_bytes(fk, fs, "batch");
        memset(outk, 0xEE, max + 64), memset(outs, 0xEE, max + 64);
        size_t ck = bloomsimd_contains_batch_u64(fk, absent, n, outk + 1);
        size_t cs = bloomsimd_contains_batch_u64(fs, absent, n, outs + 1);
        cr_assert_eq(ck, cs, "batch %zu: counts differ", n);
        cr_assert(memcmp(outk, outs, max + 64) == 0, "batch %zu: outputs differ (or written out of range)", n);
        cr_assert_eq(outk[1 + n], 0xEE, "batch %zu: wrote past out[n-1]", n);
        memset(outk, 0xEE, max + 64), memset(outs, 0xEE, max + 64);
        size_t nk = 0, ns = 0;
        cr_assert_eq(bloomsimd_add_new_batch_u64(fk, absent, n, outk + 1, &nk), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_add_new_batch_u64(fs, absent, n, outs + 1, &ns), BLOOMSIMD_OK);
        cr_assert_eq(nk, ns);
        cr_assert(memcmp(outk, outs, max + 64) == 0, "batch %zu: add_new outputs differ", n);
        assert_same_bytes(fk, fs, "add_new batch");
        bloomsimd_destroy(fk);
        bloomsimd_destroy(fs);
    }
    free(keybuf), free(absentbuf), free(src), free(src_absent), free(outk), free(outs);
}

Test(split256_differential, duplicate_keys_in_a_batch_are_new_once)
{
    const size_t n = 10000;
    uint64_t *keys = test_keys(n, 120);
    for (size_t i = 0; i < n; i++)
        if (i % 3) keys[i] = keys[i / 7];
    for (size_t i = 0; i < 64; i++) keys[i] = 12345;
    bloomsimd_filter *fk = make(test_kernel(), 300, 1, 0);
    bloomsimd_filter *fs = make("scalar", 300, 1, 0);
    uint8_t *ok = malloc(n), *os = malloc(n);
    size_t nk, ns;
    cr_assert_eq(bloomsimd_add_new_batch_u64(fk, keys, n, ok, &nk), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_new_batch_u64(fs, keys, n, os, &ns), BLOOMSIMD_OK);
    cr_assert_eq(nk, ns);
    cr_assert(memcmp(ok, os, n) == 0);
    for (size_t i = 1; i < 64; i++) cr_assert_eq(ok[i], 0, "a repeat of key 0 reported new at %zu", i);
    assert_same_bytes(fk, fs, "duplicates");
    cr_assert_eq(bloomsimd_contains_batch_u64(fk, keys, n, NULL), n);
    free(keys), free(ok), free(os);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(split256_differential, byte_keys_in_every_view)
{
    const size_t n = 3000;
    char *data = malloc(n * 40);
    uint32_t *off = malloc((n + 1) * sizeof *off);
    const void **ptrs = malloc(n * sizeof *ptrs);
    size_t *lens = malloc(n * sizeof *lens);
    uint64_t state = 3;
    for (size_t i = 0; i < n * 40; i++) data[i] = (char)test_splitmix64(&state);
    off[0] = 0;
    for (size_t i = 0; i < n; i++) {
        lens[i] = i % 40;
        off[i + 1] = off[i] + (uint32_t)lens[i];
        ptrs[i] = data + off[i];
    }
    bloomsimd_filter *fk = make(test_kernel(), 700, 77, 0);
    bloomsimd_filter *fs = make("scalar", 700, 77, 0);
    cr_assert_eq(bloomsimd_add_batch(fk, (const void *const *)ptrs, lens, n / 2), BLOOMSIMD_OK);
    bloomsimd_keys view = bloomsimd_keys_offsets32(data, n * 40, off, n / 2);
    cr_assert_eq(bloomsimd_add_keys(fs, &view), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "byte keys: pointer batch vs offsets view");
    uint8_t *ok = malloc(n), *os = malloc(n);
    size_t hits;
    bloomsimd_keys all = bloomsimd_keys_offsets32(data, n * 40, off, n);
    cr_assert_eq(bloomsimd_contains_keys(fk, &all, ok, &hits), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch(fs, (const void *const *)ptrs, lens, n, os), hits);
    cr_assert(memcmp(ok, os, n) == 0);
    for (size_t i = 0; i < n / 2; i++) {
        cr_assert(ok[i], "inserted byte key %zu not found", i);
        cr_assert_eq(bloomsimd_contains(fk, ptrs[i], lens[i]), true);
    }
    bloomsimd_keys fixed = bloomsimd_keys_fixed(data, n * 40, 16, n);
    cr_assert_eq(bloomsimd_add_new_keys(fk, &fixed, ok, NULL), BLOOMSIMD_OK);
    for (size_t i = 0; i < n; i++) cr_assert_eq(bloomsimd_add(fs, data + 16 * i, 16), BLOOMSIMD_OK);
    assert_same_bytes(fk, fs, "fixed-width view vs single adds");
    free(data), free(off), free(ptrs), free(lens), free(ok), free(os);
    bloomsimd_destroy(fk);
    bloomsimd_destroy(fs);
}

Test(split256_differential, touch_u64_reads_the_first_word_of_each_keys_block)
{
    const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(test_kernel());
    cr_assert_not_null(kernel);
    if (!kernel->touch_u64) cr_skip_test("kernel %s has no touch_u64 (optional, bench only)", kernel->name);
    const uint64_t blocks[] = {1, 3, 1001, (UINT64_C(1) << 20) + 3};
    uint64_t *keys = test_keys(100003, 121);
    for (size_t gi = 0; gi < 4; gi++) {
        bloomsimd_filter *f = make(kernel->name, blocks[gi], gi, 0);
        uint64_t *words64 = (uint64_t *)(void *)f->geometry.words;
        for (uint64_t b = 0; b < blocks[gi]; b++) words64[b * 4] = b + 1;
        for (size_t bs = 0; bs < N_BATCH_SIZES; bs++) {
            size_t n = batch_sizes[bs];
            uint64_t want = 0;
            for (size_t i = 0; i < n; i++) want += oracle_block(oracle_hash(keys[i], gi), blocks[gi]) + 1;
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
