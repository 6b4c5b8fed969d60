/*
 * test_kernel_sse42_selfcheck.c — the sse42 kernel entry, called directly,
 * against scalar where the generic differential suite does not reach:
 * filters of 2^31 + 1 .. 2^32 blocks through every path (fused key paths,
 * pre-hashed paths, concurrent and not). sse42 computes two block indices
 * with one 32 x 32-bit pmuludq, which cannot take nblocks = 2^32; this checks
 * the special case and its neighbours.
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

/* Two 256 GiB NORESERVE mappings (only touched pages materialise): one filled
 * by scalar, one by sse42; the blocks the keys touch must be identical. */
Test(sse42_selfcheck, every_path_from_2_pow_31_plus_1_to_2_pow_32_blocks, .timeout = 120)
{
    const uint64_t counts[] = {(UINT64_C(1) << 31) + 1, (UINT64_C(1) << 32) - 1, UINT64_C(1) << 32};
    const size_t bytes = (size_t)64 << 32;
    void *map_s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *map_v = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map_s == MAP_FAILED || map_v == MAP_FAILED) cr_skip_test("cannot reserve 2 x 256 GiB of address space");
    const size_t n = 1001; /* odd: the one-key tail of every 2-lane stage */
    uint64_t *keys = test_keys(2 * n, 71);
    uint64_t *hashes = malloc(2 * n * sizeof *hashes);
    uint8_t *out_s = malloc(2 * n), *out_v = malloc(2 * n);
    cr_assert(hashes && out_s && out_v);
    for (size_t c = 0; c < 3; c++) {
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            bloomsimd_geometry gs = {.words = map_s, .nblocks = counts[c], .k = 5, .hash_bitflip = 17,
                                     .concurrent = concurrent};
            gs.select = bloomsimd_select_tables[(5) - 1];
            bloomsimd_geometry gv = gs;
            gv.words = map_v;
            ref->hash_u64(gs.hash_bitflip, keys, 2 * n, hashes);
            /* hashes whose high half is all ones or zero: the first and last block */
            hashes[n] = UINT64_MAX;
            hashes[n + 1] = UINT64_C(0xffffffff00000000);
            hashes[n + 2] = UINT64_C(0x80000000ffffffff);
            hashes[n + 3] = 0;
            ref->add_u64(&gs, keys, n);
            sse->add_u64(&gv, keys, n);
            ref->add_hashes(&gs, hashes + n, n);
            sse->add_hashes(&gv, hashes + n, n);
            for (size_t i = 0; i < 2 * n; i++) {
                uint64_t block = bloomsimd_block_index(hashes[i], counts[c]);
                cr_assert(memcmp(bloomsimd_block_ptr(&gs, block), bloomsimd_block_ptr(&gv, block), 64) == 0,
                          "nblocks=%llu concurrent=%d key %zu: block %llu differs", (unsigned long long)counts[c],
                          concurrent, i, (unsigned long long)block);
            }
            /* every inserted key is found, through both lookup paths, and
             * absent keys give the same answers as scalar */
            uint64_t *absent = test_keys(n, 72 + c);
            cr_assert_eq(sse->contains_u64(&gv, keys, n, BLOOMSIMD_HITS_BYTES, out_v), n);
            cr_assert_eq(sse->contains_hashes(&gv, hashes, 2 * n, BLOOMSIMD_HITS_BYTES, out_v), 2 * n);
            size_t a = ref->contains_u64(&gs, absent, n, BLOOMSIMD_HITS_BYTES, out_s);
            size_t b = sse->contains_u64(&gv, absent, n, BLOOMSIMD_HITS_BYTES, out_v);
            cr_assert_eq(a, b);
            cr_assert(memcmp(out_s, out_v, n) == 0);
            free(absent);
            for (size_t i = 0; i < 2 * n; i++) {
                uint64_t block = bloomsimd_block_index(hashes[i], counts[c]);
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
}
