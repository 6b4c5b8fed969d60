/*
 * test_split256_kernels.c — the run's kernel's split256 table entries
 * (kernels/layout_split256.h), called directly on hand-made geometries,
 * against the scalar kernel's: the filter bytes after add_u64, add_hashes,
 * add_new_* and add_one, every lookup form and count, contains_one, for
 * every batch length 0..80 and long ones, plain and concurrent, and at the
 * block counts the public API makes expensive: 2^32 - 1 and 2^32 blocks,
 * where ((h >> 32) * 2^32) >> 32 = h >> 32 no longer fits a 32-bit lane
 * multiply (128 GiB of MAP_NORESERVE address space each; only the probed
 * pages are touched).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dispatch.h"
#include "internal.h"
#include "layout.h"
#include "layout_split256.h"
#include "support.h"

static bloomsimd_geometry geometry_over(void *words, uint64_t nblocks, uint64_t seed, bool concurrent)
{
    bloomsimd_geometry g = {.words = words,
                            .nblocks = nblocks,
                            .select = NULL,
                            .k = BLOOMSIMD_SPLIT256_K,
                            .hash_bitflip = bloomsimd_xxh3_bitflip(seed),
                            .concurrent = concurrent,
                            .layout = BLOOMSIMD_LAYOUT_SPLIT256,
                            .hash_id = BLOOMSIMD_HASH_XXH3};
    return g;
}

/* The 32-byte blocks the keys map to are equal in both geometries. */
static void assert_blocks_equal(const bloomsimd_geometry *gs, const bloomsimd_geometry *gk, const uint64_t *hashes,
                                size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t b = bloomsimd_split256_block_index(hashes[i], gs->nblocks);
        cr_assert(memcmp(gs->words + b * 8, gk->words + b * 8, 32) == 0, "%s: block %llu (key %zu) differs", what,
                  (unsigned long long)b, i);
    }
}

/*
 * n keys inserted by every insert entry of both kernels (each entry into its
 * own region of keys), then looked up (inserted and absent keys) in every
 * form. Block contents are compared where keys landed, so a filter of 2^32
 * blocks is never read whole.
 */
static void compare_entries(const bloomsimd_kernel *ks, const bloomsimd_kernel *kk, bloomsimd_geometry *gs,
                            bloomsimd_geometry *gk, size_t n, uint64_t *state)
{
    char what[96];
    snprintf(what, sizeof what, "%s nblocks=%llu n=%zu concurrent=%d", kk->name, (unsigned long long)gs->nblocks, n,
             gs->concurrent);
    uint64_t *keys = malloc((4 * n + 1) * sizeof *keys), *hashes = malloc((4 * n + 1) * sizeof *hashes);
    uint8_t *os = malloc(4 * n + 16), *ok = malloc(4 * n + 16);
    uint8_t *bs = malloc(n / 2 + 8), *bk = malloc(n / 2 + 8);
    uint32_t *is = malloc((4 * n + 8) * sizeof *is), *ik = malloc((4 * n + 8) * sizeof *ik);
    cr_assert(keys && hashes && os && ok && bs && bk && is && ik);
    for (size_t i = 0; i < 4 * n; i++) keys[i] = test_splitmix64(state);
    ks->hash_u64(gs->hash_bitflip, keys, 4 * n, hashes);

    /* inserts: fused, pre-hashed, insert-new (fused and pre-hashed), one at a time */
    kk->add_u64(gk, keys, n / 2);
    ks->add_u64(gs, keys, n / 2);
    kk->add_hashes(gk, hashes + n / 2, n - n / 2);
    ks->add_hashes(gs, hashes + n / 2, n - n / 2);
    memset(os, 0xEE, n + 16), memset(ok, 0xEE, n + 16);
    size_t ns = ks->add_new_u64(gs, keys + n, n, os), nk = kk->add_new_u64(gk, keys + n, n, ok);
    cr_assert_eq(nk, ns, "%s: add_new_u64 count", what);
    cr_assert(memcmp(os, ok, n + 16) == 0, "%s: add_new_u64 flags (or wrote past out[n-1])", what);
    ns = ks->add_new_hashes(gs, hashes + n / 4, n, os), nk = kk->add_new_hashes(gk, hashes + n / 4, n, ok);
    cr_assert_eq(nk, ns, "%s: add_new_hashes count (half the keys present)", what);
    cr_assert(memcmp(os, ok, n) == 0, "%s: add_new_hashes flags", what);
    cr_assert_eq(kk->add_new_u64(gk, keys + n, n, NULL), 0, "%s: inserted keys reported new", what);
    ks->add_new_u64(gs, keys + n, n, NULL);
    for (size_t i = 2 * n; i < 2 * n + n / 2; i++) {
        kk->add_one(gk, hashes[i]);
        ks->add_one(gs, hashes[i]);
    }
    assert_blocks_equal(gs, gk, hashes, 3 * n, what);

    /* lookups of keys[n, 4n): [n, 2.5n) present, the rest absent; every form */
    const uint64_t *q = keys + n, *qh = hashes + n;
    size_t hs = ks->contains_u64(gs, q, 3 * n, BLOOMSIMD_HITS_BYTES, os);
    memset(ok, 0xEE, 3 * n + 16);
    cr_assert_eq(kk->contains_u64(gk, q, 3 * n, BLOOMSIMD_HITS_BYTES, ok), hs, "%s: lookup count", what);
    cr_assert(memcmp(os, ok, 3 * n) == 0, "%s: lookup bytes", what);
    cr_assert_eq(ok[3 * n], 0xEE, "%s: wrote past out[n-1]", what);
    cr_assert_geq(hs, n + n / 2, "%s: false negatives", what);
    cr_assert_eq(kk->contains_u64(gk, q, 3 * n, BLOOMSIMD_HITS_BYTES, NULL), hs, "%s: count only", what);
    cr_assert_eq(kk->contains_hashes(gk, qh, 3 * n, BLOOMSIMD_HITS_BYTES, ok), hs);
    cr_assert(memcmp(os, ok, 3 * n) == 0, "%s: lookup bytes from hashes", what);
    memset(bs, 0xA5, 3 * n / 8 + 2), memset(bk, 0xA5, 3 * n / 8 + 2);
    cr_assert_eq(ks->contains_u64(gs, q, 3 * n, BLOOMSIMD_HITS_BITMAP, bs), hs);
    cr_assert_eq(kk->contains_u64(gk, q, 3 * n, BLOOMSIMD_HITS_BITMAP, bk), hs, "%s: bitmap count", what);
    cr_assert(memcmp(bs, bk, 3 * n / 8 + 2) == 0, "%s: bitmaps (or the bytes past one)", what);
    cr_assert_eq(kk->contains_hashes(gk, qh, 3 * n, BLOOMSIMD_HITS_BITMAP, bk), hs);
    cr_assert(memcmp(bs, bk, 3 * n / 8 + 2) == 0, "%s: bitmaps from hashes", what);
    cr_assert_eq(ks->contains_u64(gs, q, 3 * n, BLOOMSIMD_HITS_INDICES, is), hs);
    cr_assert_eq(kk->contains_u64(gk, q, 3 * n, BLOOMSIMD_HITS_INDICES, ik), hs, "%s: index count", what);
    cr_assert(memcmp(is, ik, hs * sizeof *is) == 0, "%s: indices", what);
    cr_assert_eq(kk->contains_hashes(gk, qh, 3 * n, BLOOMSIMD_HITS_INDICES, ik), hs);
    cr_assert(memcmp(is, ik, hs * sizeof *is) == 0, "%s: indices from hashes", what);
    for (size_t i = 0; i < 3 * n; i++) {
        bool want = ks->contains_one(gs, qh[i]);
        cr_assert_eq(kk->contains_one(gk, qh[i]), want, "%s: contains_one of key %zu", what, i);
        cr_assert_eq(want, os[i] != 0, "%s: scalar contains_one vs its batch at %zu", what, i);
    }
    if (kk->touch_u64 && ks->touch_u64)
        cr_assert_eq(kk->touch_u64(gk, q, 3 * n), ks->touch_u64(gs, q, 3 * n), "%s: touch_u64", what);
    free(keys), free(hashes), free(os), free(ok), free(bs), free(bk), free(is), free(ik);
}

static void kernels(const bloomsimd_kernel **ks, const bloomsimd_kernel **kk)
{
    *ks = bloomsimd_kernel_by_name("scalar");
    *kk = bloomsimd_kernel_by_name(test_kernel());
    cr_assert_not_null(*ks);
    cr_assert_not_null(*kk);
}

Test(split256_kernels, every_batch_length_to_80_and_long_ones_plain_and_concurrent)
{
    const bloomsimd_kernel *ks, *kk;
    kernels(&ks, &kk);
    const uint64_t blocks[] = {1, 2, 7, 4096, 100003};
    uint64_t state = 42;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (int concurrent = 0; concurrent <= 1; concurrent++) {
            size_t bytes = (size_t)blocks[b] * 32, rounded = (bytes + 63) & ~(size_t)63; /* C11: a multiple of 64 */
            uint32_t *ws = aligned_alloc(64, rounded), *wk = aligned_alloc(64, rounded);
            cr_assert(ws && wk);
            memset(ws, 0, bytes), memset(wk, 0, bytes);
            bloomsimd_geometry gs = geometry_over(ws, blocks[b], b + 3, concurrent);
            bloomsimd_geometry gk = geometry_over(wk, blocks[b], b + 3, concurrent);
            for (size_t n = 0; n <= 80; n++) compare_entries(ks, kk, &gs, &gk, n, &state);
            compare_entries(ks, kk, &gs, &gk, 1000, &state);
            compare_entries(ks, kk, &gs, &gk, 5003, &state);
            cr_assert(memcmp(ws, wk, bytes) == 0, "%s: filters differ after every entry (%llu blocks)", kk->name,
                      (unsigned long long)blocks[b]);
            free(ws), free(wk);
        }
}

Test(split256_kernels, block_index_at_2_pow_32_minus_1_and_2_pow_32_blocks)
{
    const bloomsimd_kernel *ks, *kk;
    kernels(&ks, &kk);
    size_t bytes = (size_t)32 << 32;
    void *ms = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *mk = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (ms == MAP_FAILED || mk == MAP_FAILED) cr_skip_test("cannot reserve 2 x 128 GiB of address space");
    uint64_t state = 7;
    for (uint64_t nblocks = (UINT64_C(1) << 32) - 1; nblocks <= (UINT64_C(1) << 32); nblocks++)
        for (int concurrent = 0; concurrent <= 1; concurrent++) {
            bloomsimd_geometry gs = geometry_over(ms, nblocks, nblocks + 1, concurrent);
            bloomsimd_geometry gk = geometry_over(mk, nblocks, nblocks + 1, concurrent);
            compare_entries(ks, kk, &gs, &gk, 2001, &state);
        }
    munmap(ms, bytes);
    munmap(mk, bytes);
}
