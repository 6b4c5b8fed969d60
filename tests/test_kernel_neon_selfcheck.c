/*
 * test_kernel_neon_selfcheck.c — the neon kernel's own table entry, called
 * directly, against the scalar kernel and libxxhash, on inputs aimed at
 * what is particular to it: the emulated 64-bit multiply (operands with
 * carries across the 32-bit halves), the two-keys-per-register hashing and
 * its scalar tail, the four-register masks (every word, every bit, every
 * selection entry: USHL by a count whose low byte SRI builds, through the
 * per-batch table of batches >= 128 keys and the 16-bit masks of smaller
 * batches and single keys), every entry (insert-and-report-new, the three
 * hit forms, single keys), the block index at the 2^32-block limit, and the
 * concurrent path.
 *
 * Runs in the neon pass of the suite only (BLOOMSIMD_KERNEL=neon): natively
 * on AArch64, through SIMDe on x86.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "dispatch.h"
#include "internal.h"
#include "layout.h"
#include "support.h"

static const bloomsimd_kernel *neon, *scalar;

static void pick_kernels(void)
{
    if (strcmp(test_kernel(), "neon") != 0) cr_skip_test("neon selfcheck: runs in the neon pass only");
    neon = bloomsimd_kernel_by_name("neon");
    scalar = bloomsimd_kernel_by_name("scalar");
    cr_assert_not_null(neon);
    cr_assert_not_null(scalar);
}

TestSuite(neon_selfcheck, .init = pick_kernels);

static const uint64_t seeds[8] = {0,
                                  1,
                                  UINT64_C(0xffffffffffffffff),
                                  UINT64_C(0x9E3779B97F4A7C15),
                                  UINT64_C(0x00000000ffffffff),
                                  UINT64_C(0xffffffff00000000),
                                  UINT64_C(0x0123456789abcdef),
                                  UINT64_C(0x8000000080000000)};

Test(neon_selfcheck, table_entry_matches_the_build)
{
    cr_assert_str_eq(neon->name, "neon");
#if defined(__aarch64__)
    cr_assert_eq(neon->emulated, false);
    cr_assert_eq(neon->required_features, BLOOMSIMD_CPU_NEON);
#else
    cr_assert_eq(neon->emulated, true, "on x86 neon runs through SIMDe and must say so");
    cr_assert_eq(neon->required_features, 0u);
#endif
}

/* Keys whose halves and rotations exercise the carries of
 * a*b mod 2^64 = al*bl + ((al*bh + ah*bl) mod 2^32) << 32. */
static size_t edge_keys(uint64_t *keys)
{
    size_t n = 0;
    for (unsigned i = 0; i < 64; i++) {
        keys[n++] = UINT64_C(1) << i;
        keys[n++] = ~(UINT64_C(1) << i);
        keys[n++] = (UINT64_C(1) << i) - 1;
    }
    keys[n++] = 0;
    keys[n++] = UINT64_C(0xffffffff);
    keys[n++] = UINT64_C(0xffffffff00000000);
    keys[n++] = UINT64_C(0x8000000080000000);
    keys[n++] = UINT64_C(0x7fffffff7fffffff);
    return n;
}

Test(neon_selfcheck, hashes_equal_libxxhash_on_edge_keys_and_2_pow_18_random_keys)
{
    size_t n = (1u << 18) + 200;
    uint64_t *keys = test_keys(n, 31);
    size_t edges = edge_keys(keys);
    cr_assert_lt(edges, 200u);
    uint64_t *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    cr_assert(got && want);
    for (size_t s = 0; s < 8; s++) {
        uint64_t bitflip = bloomsimd_xxh3_bitflip(seeds[s]);
        neon->hash_u64(bitflip, keys, n, got);
        scalar->hash_u64(bitflip, keys, n, want);
        for (size_t i = 0; i < n; i++) {
            unsigned char le[8];
            for (int b = 0; b < 8; b++) le[b] = (unsigned char)(keys[i] >> (8 * b));
            uint64_t ref = XXH3_64bits_withSeed(le, 8, seeds[s]);
            cr_assert_eq(want[i], ref, "scalar vs libxxhash, key %zu seed %zu", i, s);
            cr_assert_eq(got[i], ref, "neon %016llx != libxxhash %016llx (key %016llx, seed %016llx)",
                         (unsigned long long)got[i], (unsigned long long)ref, (unsigned long long)keys[i],
                         (unsigned long long)seeds[s]);
        }
    }
    free(keys);
    free(got);
    free(want);
}

Test(neon_selfcheck, hash_tails_and_misaligned_pointers)
{
    enum { MAXN = 70 };
    unsigned char in[MAXN * 8 + 16], out_neon[MAXN * 8 + 16], out_scalar[MAXN * 8 + 16];
    uint64_t state = 5;
    for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)test_splitmix64(&state);
    for (size_t n = 0; n <= MAXN; n++)
        for (unsigned off = 0; off < 8; off++) {
            memset(out_neon, 0xa5, sizeof out_neon);
            memset(out_scalar, 0xa5, sizeof out_scalar);
            /* Misaligned uint64_t pointers, as callers with packed buffers pass them. */
            neon->hash_u64(UINT64_C(0x1234), (const uint64_t *)(const void *)(in + off), n,
                           (uint64_t *)(void *)(out_neon + 8 - off));
            uint64_t keys[MAXN], hashes[MAXN];
            memcpy(keys, in + off, n * 8);
            scalar->hash_u64(UINT64_C(0x1234), keys, n, hashes);
            memcpy(out_scalar + 8 - off, hashes, n * 8);
            cr_assert_arr_eq(out_neon, out_scalar, sizeof out_neon, "n %zu offset %u (or it wrote past the end)",
                             n, off);
        }
}

typedef struct test_geometry {
    bloomsimd_geometry g;
    void *mem;
    size_t bytes;
} test_geometry;

static test_geometry make_geometry(uint64_t nblocks, uint32_t k, uint64_t seed, bool concurrent)
{
    test_geometry t = {.bytes = (size_t)nblocks * 64};
    t.mem = aligned_alloc(64, t.bytes);
    cr_assert_not_null(t.mem);
    memset(t.mem, 0, t.bytes);
    t.g.words = t.mem;
    t.g.nblocks = nblocks;
    t.g.select = bloomsimd_select_tables[(k) - 1];
    t.g.k = k;
    t.g.hash_bitflip = bloomsimd_xxh3_bitflip(seed);
    t.g.concurrent = concurrent;
    return t;
}

/* Hashes that put every possible bit into every word: lo runs over values
 * whose (lo * SALT[w]) >> 27 covers 0..31 for each w, and hi spans the
 * block range including both ends. */
static size_t crafted_hashes(uint64_t *h, size_t cap)
{
    size_t n = 0;
    uint64_t state = 77;
    for (uint32_t top = 0; top < 32 && n < cap; top++)
        for (unsigned rep = 0; rep < 40 && n < cap; rep++) {
            uint32_t lo = (top << 27) | ((uint32_t)test_splitmix64(&state) >> 5);
            uint32_t hi = rep == 0 ? 0u : rep == 1 ? 0xffffffffu : (uint32_t)test_splitmix64(&state);
            h[n++] = ((uint64_t)hi << 32) | lo;
        }
    h[n++] = 0;
    h[n++] = ~UINT64_C(0);
    return n;
}

static void compare_on(uint64_t nblocks, uint32_t k, bool concurrent)
{
    enum { CAP = 1400 };
    uint64_t hashes[CAP];
    size_t n = crafted_hashes(hashes, CAP - 2);
    test_geometry a = make_geometry(nblocks, k, 3, concurrent), b = make_geometry(nblocks, k, 3, concurrent);
    neon->add_hashes(&a.g, hashes, n / 2);
    scalar->add_hashes(&b.g, hashes, n / 2);
    cr_assert_arr_eq(a.mem, b.mem, a.bytes, "add_hashes bytes, k %u, %llu blocks", k, (unsigned long long)nblocks);
    uint8_t out_a[CAP], out_b[CAP];
    size_t hits_a = neon->contains_hashes(&a.g, hashes, n, BLOOMSIMD_HITS_BYTES, out_a);
    size_t hits_b = scalar->contains_hashes(&b.g, hashes, n, BLOOMSIMD_HITS_BYTES, out_b);
    cr_assert_eq(hits_a, hits_b, "k %u: %zu hits vs scalar %zu", k, hits_a, hits_b);
    cr_assert_arr_eq(out_a, out_b, n);
    cr_assert_eq(neon->contains_hashes(&a.g, hashes, n, BLOOMSIMD_HITS_BYTES, NULL), hits_b, "out == NULL must count the same");

    /* Insert-and-report-new (half of each batch) and every hit form, in
     * batches on both sides of the table threshold (BLOCK512_LOOP_SMALL =
     * 128: lookups at 127 / 128, inserts at 255 / 2 and 257 / 2) and in
     * single keys. */
    static const size_t batches[] = {1, 5, 21, 85, 127, 128, 255, 257};
    for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
        size_t batch = batches[bi];
        test_geometry c = make_geometry(nblocks, k, 5, concurrent), d = make_geometry(nblocks, k, 5, concurrent);
        for (size_t i = 0; i < n; i += batch) {
            size_t cnt = n - i < batch ? n - i : batch;
            size_t half = cnt / 2;
            cr_assert_eq(neon->add_new_hashes(&c.g, hashes + i, half, out_a + i),
                         scalar->add_new_hashes(&d.g, hashes + i, half, out_b + i), "k %u batch %zu: new counts", k, batch);
            cr_assert_arr_eq(out_a + i, out_b + i, half, "k %u batch %zu: new flags", k, batch);
            for (int form = 0; form < 3; form++) {
                uint32_t ia[CAP], ib[CAP];
                void *oa = form == BLOOMSIMD_HITS_INDICES ? (void *)ia : (void *)out_a;
                void *ob = form == BLOOMSIMD_HITS_INDICES ? (void *)ib : (void *)out_b;
                size_t ha = neon->contains_hashes(&c.g, hashes + i, cnt, (bloomsimd_hit_form)form, oa);
                size_t hb = scalar->contains_hashes(&d.g, hashes + i, cnt, (bloomsimd_hit_form)form, ob);
                cr_assert_eq(ha, hb, "k %u batch %zu form %d: hits", k, batch, form);
                size_t len = form == BLOOMSIMD_HITS_BYTES ? cnt : form == BLOOMSIMD_HITS_BITMAP ? (cnt + 7) / 8 : 4 * hb;
                cr_assert(memcmp(oa, ob, len) == 0, "k %u batch %zu form %d: answers", k, batch, form);
            }
            neon->add_one(&c.g, hashes[i + cnt - 1]);
            scalar->add_one(&d.g, hashes[i + cnt - 1]);
            cr_assert_eq(neon->contains_one(&c.g, ~hashes[i]), scalar->contains_one(&d.g, ~hashes[i]));
        }
        cr_assert_arr_eq(c.mem, d.mem, c.bytes, "add_new/add_one bytes, k %u batch %zu", k, batch);
        free(c.mem);
        free(d.mem);
    }

    /* Fused paths on keys, into the same filters. */
    uint64_t *keys = test_keys(1000, k);
    neon->add_u64(&a.g, keys, 500);
    scalar->add_u64(&b.g, keys, 500);
    cr_assert_arr_eq(a.mem, b.mem, a.bytes, "add_u64 bytes, k %u", k);
    uint8_t ka[1000], kb[1000];
    cr_assert_eq(neon->contains_u64(&a.g, keys, 1000, BLOOMSIMD_HITS_BYTES, ka), scalar->contains_u64(&b.g, keys, 1000, BLOOMSIMD_HITS_BYTES, kb));
    cr_assert_arr_eq(ka, kb, 1000);
    free(keys);
    free(a.mem);
    free(b.mem);
}

Test(neon_selfcheck, every_word_and_bit_for_every_k)
{
    for (uint32_t k = 1; k <= 16; k++) {
        compare_on(1, k, false);
        compare_on(37, k, false);
    }
}

Test(neon_selfcheck, concurrent_path_gives_the_same_bytes_and_answers)
{
    for (uint32_t k = 1; k <= 16; k += 5) compare_on(1000, k, true);
}

/* nblocks = 2^32 does not fit a 32-bit lane: block = h >> 32. A 256 GiB
 * MAP_NORESERVE mapping costs only the pages the probes touch. */
Test(neon_selfcheck, block_index_at_2_pow_32_blocks)
{
    size_t bytes = (size_t)64 << 32;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) cr_skip_test("cannot reserve 256 GiB of address space here");
    bloomsimd_geometry g = {.words = mem, .nblocks = UINT64_C(1) << 32, .k = 7, .hash_bitflip = 0};
    g.select = bloomsimd_select_tables[(7) - 1];
    uint64_t hashes[6] = {0, ~UINT64_C(0), UINT64_C(0xfffffffe12345678), UINT64_C(0x80000000deadbeef),
                          UINT64_C(0x00000001ffffffff), UINT64_C(0x7fffffff00000000)};
    neon->add_hashes(&g, hashes, 6);
    for (size_t i = 0; i < 6; i++) {
        uint32_t mask[16];
        bloomsimd_block_mask(&g, hashes[i], mask);
        const uint32_t *block = (const uint32_t *)mem + (hashes[i] >> 32) * 16;
        for (unsigned w = 0; w < 16; w++)
            cr_assert_eq(block[w] & mask[w], mask[w], "hash %zu word %u not in block h >> 32", i, w);
    }
    uint8_t out[6];
    cr_assert_eq(neon->contains_hashes(&g, hashes, 6, BLOOMSIMD_HITS_BYTES, out), 6u);
    munmap(mem, bytes);
}

Test(neon_selfcheck, union_and_intersect_for_every_tail)
{
    for (size_t nwords = 0; nwords <= 41; nwords++) {
        uint64_t a[48], b[48], c[48], d[48];
        uint64_t state = nwords;
        for (size_t i = 0; i < 48; i++) {
            a[i] = c[i] = test_splitmix64(&state);
            b[i] = d[i] = test_splitmix64(&state);
        }
        neon->union_words(a, b, nwords);
        scalar->union_words(c, d, nwords);
        cr_assert_arr_eq(a, c, sizeof a, "union, %zu words", nwords);
        neon->intersect_words(a, b, nwords);
        scalar->intersect_words(c, d, nwords);
        cr_assert_arr_eq(a, c, sizeof a, "intersect, %zu words", nwords);
    }
}
