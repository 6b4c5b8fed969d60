/*
 * ceiling.c — the floor of a batched lookup.
 *
 * Per key: the library's XXH3 hash, computed a group of 8 keys at a time by
 * the fastest native kernel's batch hash (bit-exact with the portable one),
 * the exact block index of kernels/layout.h, a prefetch of the block, and,
 * `ahead` keys later, ONE 64-bit load from it: the kernels' schedule (hash a
 * group, prefetch its blocks, probe a group staged earlier). It builds no
 * mask and compares nothing, so no kernel can touch its block with less work;
 * kernel/ceiling is the cost of everything but hashing and the memory access.
 * The bench runs several distances and keeps the fastest, so the floor is not
 * handicapped by a badly chosen distance.
 *
 * Measured at 10^8 keys (a 119 MiB filter on 2 MiB pages) on the project's
 * shared VM, medians of 11 repetitions:
 *   - rejected: hashing with the portable scalar XXH3. Cache-resident, the
 *     floor was slower than the AVX-512 kernel (3.5 vs 2.4 ns/key at 10^5);
 *   - rejected: a ring of hashes in groups of 16 with the block address
 *     recomputed at probe time (~12% above the AVX-512 kernel);
 *   - kept: block pointers staged in groups of 8, as the kernels do. It is
 *     still 5-10% slower than the AVX-512 kernel at 10^8 keys, at every
 *     distance from 16 to 128 keys and group size from 8 to 64. Our reading:
 *     its per-key scalar loop has more instructions per key than the kernel's
 *     vector loop, so the reorder window holds fewer outstanding loads. So
 *     ratios slightly below 1 are possible there; it is a reference point,
 *     not a proof of optimality.
 * Preferred whenever the fastest kernel has one (then the sweep is skipped):
 * the fastest kernel's own pipeline (hash, block address,
 * prefetch schedule) with its probe replaced by a one-word read
 * (bloomsimd_kernel.touch_u64, where the kernel has one). It does strictly
 * less work than that kernel's lookup, so it is a floor for it by construction.
 * Beside it, the same work in two passes (hash the batch into a buffer with
 * the kernel's hash_u64, then touch_hashes over the buffer): a caller's
 * hash-then-probe can beat a fused pipeline on some CPUs (an Intel Xeon,
 * 2026-12-06: 3.5 against 7.2 ns/key at 10^7 keys with the keys streamed
 * from memory), and a floor that one of the library's own call shapes beats
 * is not a floor. The bench times both and the floor is the faster.
 * The prefetch target is swept too, including the avx512 kernel's two-level
 * schedule (L2 far ahead, then L1 one group before the read). Prefetching into L2 (prefetcht1) instead
 * of L1 keeps more lines in flight (L2 has more miss buffers than L1), and
 * the AVX-512 kernel measured ~1.6x faster at 10^8 keys with it; a floor that
 * only used prefetcht0 would then sit far above that kernel.
 */
#include "layout.h"
#include "refs.h"

#define GROUP 8u
#define RING_GROUPS 32u /* > the largest distance in groups, a power of two */

typedef struct ceiling_slot {
    const uint64_t *line[GROUP];
} ceiling_slot;

/* Hashes the group of keys starting at `from` and prefetches its blocks. */
static void stage(const bench_ceiling *c, const uint64_t *keys, size_t n, size_t from, ceiling_slot *slot)
{
    uint64_t h[GROUP];
    size_t count = n - from < GROUP ? n - from : GROUP;
    if (c->hash_u64)
        c->hash_u64(c->hash_bitflip, keys + from, count, h);
    else
        for (size_t i = 0; i < count; i++) h[i] = bloomsimd_xxh3_u64(keys[from + i], c->hash_bitflip);
    for (size_t i = 0; i < count; i++) slot->line[i] = c->words + bloomsimd_block_index(h[i], c->nblocks) * 8u;
    /* the locality argument must be a constant */
    if (c->to_l2)
        for (size_t i = 0; i < count; i++) __builtin_prefetch(slot->line[i], 0, 2);
    else
        for (size_t i = 0; i < count; i++) __builtin_prefetch(slot->line[i], 0, 3);
}

uint64_t bench_ceiling_run(const bench_ceiling *c, const uint64_t *keys, size_t n)
{
    if (c->to_l2 == 3) return c->touch(c->geometry, keys, n);
    if (c->to_l2 == 4) {
        c->hash_u64(c->hash_bitflip, keys, n, c->scratch);
        return c->touch_hashes(c->geometry, c->scratch, n);
    }
    ceiling_slot ring[RING_GROUPS];
    size_t ahead = (c->ahead + GROUP - 1) / GROUP; /* in groups */
    if (ahead < 1) ahead = 1;
    if (ahead > RING_GROUPS - 1) ahead = RING_GROUPS - 1;
    size_t groups = (n + GROUP - 1) / GROUP;
    uint64_t sum = 0;
    for (size_t g = 0; g < groups && g < ahead; g++) stage(c, keys, n, g * GROUP, &ring[g % RING_GROUPS]);
    for (size_t g = 0; g < groups; g++) {
        if (g + ahead < groups) stage(c, keys, n, (g + ahead) * GROUP, &ring[(g + ahead) % RING_GROUPS]);
        if (c->to_l2 == 2 && g + 1 < groups) { /* near prefetch: L2 -> L1 one group ahead */
            const ceiling_slot *next = &ring[(g + 1) % RING_GROUPS];
            size_t next_count = n - (g + 1) * GROUP < GROUP ? n - (g + 1) * GROUP : GROUP;
            for (size_t i = 0; i < next_count; i++) __builtin_prefetch(next->line[i], 0, 3);
        }
        const ceiling_slot *slot = &ring[g % RING_GROUPS];
        size_t count = n - g * GROUP < GROUP ? n - g * GROUP : GROUP;
        for (size_t i = 0; i < count; i++) sum += slot->line[i][0];
    }
    return sum;
}
