/*
 * test_kernel_sse42_selfcheck.c — the sse42 kernel entry, called directly,
 * against scalar where the generic suites do not aim:
 *
 *   - the two ways sse42 builds a key's mask: batches of >= 128 keys through
 *     the per-batch bias table (one row per selection entry), smaller
 *     batches and single keys through the nibble table. Crafted hashes put
 *     every selection entry of every k under every path, with bit numbers
 *     spread over all 32 values in every word;
 *   - every entry (inserts, insert-and-report-new, the three hit forms,
 *     single keys; plain and concurrent) on filters of 2^31 + 1 .. 2^32
 *     blocks, where the block index ((h >> 32) * nblocks) >> 32 needs its
 *     full 64-bit product (2^32 blocks: the index is h >> 32).
 *
 * Runs in the sse42 pass only (BLOOMSIMD_KERNEL=sse42); other passes skip.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dispatch.h"
#include "internal.h"
#include "layout.h"
#include "support.h"

static const bloomsimd_kernel *ref, *sse;

static void pick_kernels(void)
{
    if (strcmp(test_kernel(), "sse42") != 0) cr_skip_test("checks the sse42 entry directly: runs in the sse42 pass only");
    ref = bloomsimd_kernel_by_name("scalar");
    sse = bloomsimd_kernel_by_name("sse42");
    cr_assert_not_null(ref);
    if (!sse || !bloomsimd_kernel_runnable(sse)) cr_skip_test("sse42 kernel not compiled in or not runnable here");
}

TestSuite(sse42_selfcheck, .init = pick_kernels);

/* 40 hashes per selection entry (lo >> 26 = e), the rest of lo random, the
 * high half spread over the blocks. */
static size_t entry_hashes(uint64_t *h, uint64_t seed)
{
    size_t n = 0;
    uint64_t state = seed;
    for (uint32_t e = 0; e < BLOOMSIMD_SELECT_ENTRIES; e++)
        for (unsigned rep = 0; rep < 40; rep++) {
            uint32_t lo = (e << 26) | ((uint32_t)test_splitmix64(&state) >> 6);
            h[n++] = (test_splitmix64(&state) & UINT64_C(0xffffffff00000000)) | lo;
        }
    return n;
}

static bloomsimd_geometry geometry(void *words, uint64_t nblocks, uint32_t k, bool concurrent)
{
    bloomsimd_geometry g = {.words = words, .nblocks = nblocks, .k = k, .hash_bitflip = 17, .concurrent = concurrent};
    g.select = bloomsimd_select_tables[k - 1];
    return g;
}

/* Batches of `batch` hashes (>= 128: bias table; < 128: nibble table) and
 * single keys, against scalar on a filter of `nblocks`. */
static void compare_paths(uint32_t k, uint64_t nblocks, size_t batch, bool concurrent)
{
    enum { N = 64 * 40 };
    static uint64_t h[N];
    size_t n = entry_hashes(h, 1000u * k + batch);
    size_t bytes = (size_t)nblocks * 64;
    uint32_t *wr = aligned_alloc(64, bytes), *ws = aligned_alloc(64, bytes);
    cr_assert(wr && ws);
    memset(wr, 0, bytes);
    memset(ws, 0, bytes);
    bloomsimd_geometry gr = geometry(wr, nblocks, k, concurrent), gs = geometry(ws, nblocks, k, concurrent);
    static uint8_t out_r[N], out_s[N];
    static uint32_t idx_r[N], idx_s[N];
    /* first half: insert-and-report-new in batches; then the whole set looked up in every form */
    for (size_t i = 0; i < n / 2; i += batch) {
        size_t c = n / 2 - i < batch ? n / 2 - i : batch;
        size_t fr = ref->add_new_hashes(&gr, h + i, c, out_r + i), fs = sse->add_new_hashes(&gs, h + i, c, out_s + i);
        cr_assert_eq(fs, fr, "k %u batch %zu: %zu new vs scalar %zu", k, batch, fs, fr);
    }
    cr_assert(memcmp(out_r, out_s, n / 2) == 0, "k %u batch %zu: new flags differ", k, batch);
    cr_assert(memcmp(wr, ws, bytes) == 0, "k %u batch %zu: add_new filter bytes differ", k, batch);
    for (size_t i = 0; i < n; i += batch) {
        size_t c = n - i < batch ? n - i : batch;
        for (int form = 0; form < 3; form++) {
            void *o_r = form == BLOOMSIMD_HITS_INDICES ? (void *)idx_r : (void *)out_r;
            void *o_s = form == BLOOMSIMD_HITS_INDICES ? (void *)idx_s : (void *)out_s;
            size_t hr = ref->contains_hashes(&gr, h + i, c, (bloomsimd_hit_form)form, o_r);
            size_t hs = sse->contains_hashes(&gs, h + i, c, (bloomsimd_hit_form)form, o_s);
            cr_assert_eq(hs, hr, "k %u batch %zu form %d: %zu hits vs scalar %zu", k, batch, form, hs, hr);
            size_t len = form == BLOOMSIMD_HITS_BYTES ? c : form == BLOOMSIMD_HITS_BITMAP ? (c + 7) / 8 : 4 * hr;
            cr_assert(memcmp(o_r, o_s, len) == 0, "k %u batch %zu form %d: answers differ", k, batch, form);
        }
    }
    /* second half: plain inserts, then single keys */
    for (size_t i = n / 2; i < n; i += batch) {
        size_t c = n - i < batch ? n - i : batch;
        ref->add_hashes(&gr, h + i, c);
        sse->add_hashes(&gs, h + i, c);
    }
    cr_assert(memcmp(wr, ws, bytes) == 0, "k %u batch %zu: add_hashes filter bytes differ", k, batch);
    uint64_t state = k;
    for (size_t i = 0; i < 2000; i++) {
        uint64_t q = test_splitmix64(&state);
        cr_assert_eq(sse->contains_one(&gs, q), ref->contains_one(&gr, q), "k %u: contains_one differs", k);
        if (i % 4 == 0) {
            ref->add_one(&gr, q);
            sse->add_one(&gs, q);
        }
    }
    cr_assert(memcmp(wr, ws, bytes) == 0, "k %u: add_one filter bytes differ", k);
    free(wr);
    free(ws);
}

Test(sse42_selfcheck, every_selection_entry_of_every_k_through_the_bias_table_and_the_nibble_table)
{
    for (uint32_t k = 1; k <= 16; k++) {
        compare_paths(k, 1, 2560, false);  /* bias table; one block: every key shares it */
        compare_paths(k, 37, 500, false);  /* bias table, partial last batch */
        compare_paths(k, 37, 127, false);  /* nibble table (below BLOCK512_LOOP_SMALL, 128) */
        compare_paths(k, 1, 128, false);   /* the threshold itself */
        compare_paths(k, 37, 7, false);    /* a small batch's partial bitmap byte */
    }
    for (uint32_t k = 1; k <= 16; k += 3) {
        compare_paths(k, 37, 500, true);
        compare_paths(k, 37, 127, true);
    }
}

/* Two 256 GiB NORESERVE mappings (only touched pages materialise): one filled
 * by scalar, one by sse42; the blocks the keys touch must be identical. */
Test(sse42_selfcheck, every_path_from_2_pow_31_plus_1_to_2_pow_32_blocks, .timeout = 120)
{
    const uint64_t counts[] = {(UINT64_C(1) << 31) + 1, (UINT64_C(1) << 32) - 1, UINT64_C(1) << 32};
    const size_t bytes = (size_t)64 << 32;
    void *map_s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *map_v = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map_s == MAP_FAILED || map_v == MAP_FAILED) cr_skip_test("cannot reserve 2 x 256 GiB of address space");
    const size_t n = 1001; /* odd, and not a multiple of the group: every tail */
    uint64_t *keys = test_keys(3 * n, 71);
    uint64_t *hashes = malloc(3 * n * sizeof *hashes);
    uint8_t *out_s = malloc(3 * n), *out_v = malloc(3 * n);
    uint32_t *idx_s = malloc(3 * n * sizeof *idx_s), *idx_v = malloc(3 * n * sizeof *idx_v);
    cr_assert(hashes && out_s && out_v && idx_s && idx_v);
    for (size_t c = 0; c < 3; c++) {
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            bloomsimd_geometry gs = geometry(map_s, counts[c], 5, concurrent), gv = geometry(map_v, counts[c], 5, concurrent);
            ref->hash_u64(gs.hash_bitflip, keys, 3 * n, hashes);
            /* hashes whose high half is all ones or zero: the first and last block */
            hashes[n] = UINT64_MAX;
            hashes[n + 1] = UINT64_C(0xffffffff00000000);
            hashes[n + 2] = UINT64_C(0x80000000ffffffff);
            hashes[n + 3] = 0;
            ref->add_u64(&gs, keys, n);
            sse->add_u64(&gv, keys, n);
            ref->add_hashes(&gs, hashes + n, n);
            sse->add_hashes(&gv, hashes + n, n);
            /* insert-and-report-new: keys, then hashes, with repeats of the first third */
            size_t fr = ref->add_new_u64(&gs, keys + 2 * n, n, out_s);
            size_t fv = sse->add_new_u64(&gv, keys + 2 * n, n, out_v);
            cr_assert_eq(fv, fr);
            cr_assert(memcmp(out_s, out_v, n) == 0, "nblocks=%llu: add_new_u64 flags differ",
                      (unsigned long long)counts[c]);
            cr_assert_eq(sse->add_new_hashes(&gv, hashes, 2 * n, out_v), ref->add_new_hashes(&gs, hashes, 2 * n, out_s));
            cr_assert(memcmp(out_s, out_v, 2 * n) == 0, "nblocks=%llu: add_new_hashes flags differ",
                      (unsigned long long)counts[c]);
            for (size_t i = 0; i < 3 * n; i++) {
                uint64_t block = bloomsimd_block_index(hashes[i], counts[c]);
                cr_assert(memcmp(bloomsimd_block_ptr(&gs, block), bloomsimd_block_ptr(&gv, block), 64) == 0,
                          "nblocks=%llu concurrent=%d key %zu: block %llu differs", (unsigned long long)counts[c],
                          concurrent, i, (unsigned long long)block);
            }
            /* every inserted key is found, in every form; absent keys answer as scalar */
            cr_assert_eq(sse->contains_u64(&gv, keys, n, BLOOMSIMD_HITS_BYTES, out_v), n);
            cr_assert_eq(sse->contains_hashes(&gv, hashes, 3 * n, BLOOMSIMD_HITS_INDICES, idx_v), 3 * n);
            for (size_t i = 0; i < 3 * n; i++) cr_assert_eq(idx_v[i], i);
            uint64_t *absent = test_keys(n, 72 + c);
            for (int form = 0; form < 3; form++) {
                void *o_s = form == BLOOMSIMD_HITS_INDICES ? (void *)idx_s : (void *)out_s;
                void *o_v = form == BLOOMSIMD_HITS_INDICES ? (void *)idx_v : (void *)out_v;
                size_t a = ref->contains_u64(&gs, absent, n, (bloomsimd_hit_form)form, o_s);
                size_t b = sse->contains_u64(&gv, absent, n, (bloomsimd_hit_form)form, o_v);
                cr_assert_eq(a, b);
                size_t len = form == BLOOMSIMD_HITS_BYTES ? n : form == BLOOMSIMD_HITS_BITMAP ? (n + 7) / 8 : 4 * a;
                cr_assert(memcmp(o_s, o_v, len) == 0, "form %d: answers differ", form);
            }
            for (size_t i = 0; i < 3 * n; i += 7) cr_assert(sse->contains_one(&gv, hashes[i]), "single-key miss");
            for (size_t i = 0; i < n; i++) {
                uint64_t h = bloomsimd_xxh3_u64(absent[i], gs.hash_bitflip);
                cr_assert_eq(sse->contains_one(&gv, h), ref->contains_one(&gs, h));
            }
            free(absent);
            for (size_t i = 0; i < 3 * n; i++) {
                uint64_t block = bloomsimd_block_index(hashes[i], counts[c]);
                memset(bloomsimd_block_ptr(&gs, block), 0, 64);
                memset(bloomsimd_block_ptr(&gv, block), 0, 64);
            }
            /* single-key inserts at the edges */
            for (size_t i = n; i < n + 4; i++) {
                ref->add_one(&gs, hashes[i]);
                sse->add_one(&gv, hashes[i]);
                uint64_t block = bloomsimd_block_index(hashes[i], counts[c]);
                cr_assert(memcmp(bloomsimd_block_ptr(&gs, block), bloomsimd_block_ptr(&gv, block), 64) == 0,
                          "add_one at the edge, key %zu", i);
                memset(bloomsimd_block_ptr(&gs, block), 0, 64);
                memset(bloomsimd_block_ptr(&gv, block), 0, 64);
            }
        }
    }
    munmap(map_s, bytes);
    munmap(map_v, bytes);
    free(keys);
    free(hashes);
    free(out_s);
    free(out_v);
    free(idx_s);
    free(idx_v);
}
