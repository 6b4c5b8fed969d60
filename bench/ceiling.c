/*
 * ceiling.c — the floor of a batched lookup.
 *
 * Per key: the library's XXH3 hash, computed 16 keys at a time by the fastest
 * native kernel's batch hash (bit-exact with the portable one), the exact
 * block index of kernels/layout.h, and ONE 64-bit load from that 64-byte
 * block, prefetched `ahead` keys earlier: the schedule the kernels use (hash
 * a group, prefetch its blocks, probe a group hashed earlier). It builds no
 * mask and compares nothing, so no kernel can touch its block with less work;
 * kernel/ceiling is the cost of everything but hashing and the memory access.
 * The bench runs several distances and keeps the fastest, so the floor is not
 * handicapped by a badly chosen distance.
 *
 * Rejected: hashing with the portable scalar XXH3 here. Cache-resident, the
 * floor was then slower than the AVX-512 kernel (3.5 vs 2.4 ns/key at 10^5
 * keys): it measured scalar hashing, not memory.
 */
#include "layout.h"
#include "refs.h"

#define GROUP 16u
#define RING 256u /* >= max ahead + GROUP, a multiple of GROUP */

static inline const uint64_t *ceiling_line(const bench_ceiling *c, uint64_t h)
{
    return c->words + bloomsimd_block_index(h, c->nblocks) * 8u;
}

/* Hashes keys[from .. from+GROUP) into the ring and prefetches their blocks. */
static void hash_group(const bench_ceiling *c, const uint64_t *keys, size_t n, size_t from, uint64_t *ring)
{
    size_t count = n - from < GROUP ? n - from : GROUP;
    uint64_t *slot = ring + from % RING;
    if (c->hash_u64)
        c->hash_u64(c->hash_bitflip, keys + from, count, slot);
    else
        for (size_t i = 0; i < count; i++) slot[i] = bloomsimd_xxh3_u64(keys[from + i], c->hash_bitflip);
    for (size_t i = 0; i < count; i++) __builtin_prefetch(ceiling_line(c, slot[i]), 0, 3);
}

uint64_t bench_ceiling_run(const bench_ceiling *c, const uint64_t *keys, size_t n)
{
    uint64_t ring[RING];
    size_t ahead = (c->ahead + GROUP - 1) / GROUP * GROUP;
    if (ahead < GROUP) ahead = GROUP;
    if (ahead > RING - GROUP) ahead = RING - GROUP;
    uint64_t sum = 0;
    for (size_t i = 0; i < n && i < ahead; i += GROUP) hash_group(c, keys, n, i, ring);
    for (size_t base = 0; base < n; base += GROUP) {
        if (base + ahead < n) hash_group(c, keys, n, base + ahead, ring);
        size_t end = base + GROUP < n ? base + GROUP : n;
        for (size_t i = base; i < end; i++) {
            uint64_t h = ring[i % RING];
            sum += ceiling_line(c, h)[h & 7u];
        }
    }
    return sum;
}
