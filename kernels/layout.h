#ifndef BLOOMSIMD_LAYOUT_H
#define BLOOMSIMD_LAYOUT_H

/*
 * layout.h — THE block layout of libbloomsimd: derivation, FPR model, limits.
 *
 * This comment is the specification every kernel implements; the inline
 * functions below are its executable form (portable C, no intrinsics), used by
 * the scalar kernel and by SIMD kernels for their tails. tests/test_layout.c
 * re-measures the table at the end of this comment and checks the model.
 *
 * ---------------------------------------------------------------------------
 * 1. Hash
 *    h = XXH3_64bits_withSeed(key, len, seed). A 64-bit key x is hashed as its
 *    8 little-endian bytes, which for XXH3's 4..8-byte path reduces to
 *        h = rrmxmx(rotl64(x, 32) ^ bitflip(seed))
 *        bitflip(seed) = (secret[8..15] ^ secret[16..23]) - (seed ^ (bswap32(seed) << 32))
 *    (bloomsimd_xxh3_u64 below; tests compare it with libxxhash bit for bit).
 *
 * 2. Block (one 64-byte, 64-byte-aligned cache line of 16 32-bit words)
 *        hi    = h >> 32
 *        block = (hi * nblocks) >> 32          (Lemire multiply-shift, nblocks <= 2^32)
 *    Any block count works, so no memory is lost rounding to a power of two.
 *
 * 3. Which words: k of the 16 words, a uniformly random k-subset
 *        lo     = (uint32_t)h
 *        rank   = (lo * C(16,k)) >> 32          (0 .. C(16,k)-1)
 *        select = subsets_k[rank]               16-bit mask with k bits set
 *    subsets_k lists every 16-bit value with popcount k in ascending order
 *    (src/layout_tables.c); C(16,k) <= 12870 entries, 25 KiB at most.
 *
 * 4. Which bit in each selected word w (0..15): the top 5 bits of a 32-bit
 *    multiply by a distinct odd salt (RocksDB-style multiplicative hashing)
 *        bit_w = (lo * SALT[w]) >> 27
 *        mask_w = select has w ? 1u << bit_w : 0
 *    insert:  word[w] |= mask_w for all 16 w
 *    lookup:  (word[w] & mask_w) == mask_w for all 16 w
 *    So the whole probe is one 512-bit AND/OR with a per-key 512-bit mask:
 *    no lane ever receives two bits, which is what makes it vector-friendly
 *    (AVX-512: one register; AVX2: two; SSE/NEON: four).
 *
 * Rejected alternatives (measured at 10 bits/key with random hashes,
 * 2^16 blocks, 2e7 queries; /tmp experiments recorded in README "Layout"):
 *   - k positions anywhere in 512 bits (RocksDB): 0.964% at k=6, the same FPR
 *     as ours, but inserts need a scatter-OR of k bits into 16 words (lanes
 *     collide), which no SIMD ISA here does in one step.
 *   - a window of k consecutive words at a random rotation: 1.055% at k=7,
 *     ~9% worse, because overlapping windows correlate word loads.
 *   - 8 x 64-bit sectors, bit j in sector j mod 8: for k < 8 some sectors are
 *     never used (wasted bits); no variable 64-bit shift on SSE4.2.
 *
 * 5. FPR model (exact for this layout, derived here).
 *    Let n keys go into m = nblocks blocks, q = 31/32 (a given bit of a word
 *    stays clear when one key sets one of its 32 bits). A query selects word
 *    set Q (|Q| = k) and one bit per word. By inclusion-exclusion over the
 *    subsets S of Q whose probed bit is still clear:
 *        P(all k bits set) = sum_{S subset of Q} (-1)^|S| P(no key sets the probed bit in any word of S)
 *    One key in the query's block leaves all |S| = s probed bits clear with
 *    probability g_s = E[q^{|S ∩ T|}], T the key's uniform k-subset, so
 *    |S ∩ T| is hypergeometric(16, k, s):
 *        g_s = sum_j [C(k,j) C(16-k, s-j) / C(16,s)] q^j
 *    Each of the n keys lands in the query's block with probability 1/m, so
 *    a key leaves the s bits clear with probability 1 - (1 - g_s)/m, and
 *        FPR(n, m, k) = sum_{s=0}^{k} (-1)^s C(k,s) (1 - (1 - g_s)/m)^n
 *    This is exact for uniform hashes (no Poisson approximation). Setting
 *    g_s = (1-1/512)^{ks}-like terms recovers the Putze et al. (2007) blocked
 *    formula; with our sectorisation it matches to within 1% at 10 bits/key.
 *    The alternating sum loses at most ~C(16,8) * 2^-53 ≈ 3e-12 absolute, so
 *    targets below BLOOMSIMD_MIN_FPR = 1e-10 are refused.
 *
 * 6. Sizing from (capacity n, target p): for each k in 1..16, bisect for the
 *    fewest blocks m with FPR(n, m, k) <= p; keep the k with the fewest blocks
 *    (the smaller k on a tie: fewer bits to touch). Explicit bits and/or k
 *    override (src/sizing.c).
 *
 * 7. Limits: 1 <= nblocks <= 2^32 (256 GiB; the block index uses 32 hash
 *    bits), 1 <= k <= 16, BLOOMSIMD_MIN_FPR <= p < 1. The 32 low hash bits
 *    feed both the word subset and the in-word bits, so two keys whose 64-bit
 *    hashes collide are indistinguishable (as in every Bloom filter).
 *
 * Measured vs model (bits/key, k, model FPR, measured FPR). The rows are
 * what sizing picks for p = 0.1 .. 1e-5 at 10^6 keys, plus 10 bits/key k=7
 * to compare with Putze's 512-bit figure (0.957%) and the classic formula
 * (0.819%, which would under-predict ours by 15%). Measured by
 * tests/test_layout.c: 10^6 keys, >= 2000/p absent keys (Poisson noise
 * ~2.2%); the test fails if a re-measurement is off by > 10% or the model
 * column disagrees with src/fpr_model.c by > 0.5%. Sizing picks k = 3 at 10%,
 * 6 at 1%, 9 at 0.1%, 12 at 0.01%, 14 at 1e-5, 16 at 1e-6 (39.2 bits/key).
 */
#define BLOOMSIMD_FPR_TABLE(ROW)                                                                                   \
    /*  bits/key  k   model         measured (1e6 keys, >= 2000/p absent keys) */                                  \
    ROW(4.832, 3, 0.0999681, 0.099772)                                                                             \
    ROW(9.909, 6, 0.00999586, 0.010077)                                                                            \
    ROW(10.0, 7, 0.00968901, 0.009575)                                                                             \
    ROW(15.553, 9, 0.000999921, 0.001004)                                                                          \
    ROW(22.109, 12, 9.99817e-05, 9.98571e-05)                                                                        \
    ROW(29.86, 14, 1.00024e-05, 1.0345e-05)

#include <stdint.h>
#include <string.h>

#include "kernel.h"

#define BLOOMSIMD_WORDS_PER_BLOCK 16u

/* Distinct odd 32-bit salts, one per word (bit_w = (lo * SALT[w]) >> 27). */
#define BLOOMSIMD_SALTS                                                                                             \
    {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u,       \
     0x3c6ef373u, 0x9e3779b9u, 0x2545f491u, 0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu, 0x165667b1u, 0xd3a2646du}

/* XXH3 default secret bytes 8..15 and 16..23, read little-endian. */
#define BLOOMSIMD_XXH3_SECRET_8 UINT64_C(0x1cad21f72c81017c)
#define BLOOMSIMD_XXH3_SECRET_16 UINT64_C(0xdb979083e96dd4de)
/* XXH3 rrmxmx multiplier (PRIME_MX2). */
#define BLOOMSIMD_XXH3_MX2 UINT64_C(0x9FB21C651E98DF25)

static inline uint64_t bloomsimd_rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64u - r)); }

/* The seed-dependent constant of XXH3's 4..8-byte path (computed once per filter). */
static inline uint64_t bloomsimd_xxh3_bitflip(uint64_t seed)
{
    uint32_t lo = (uint32_t)seed;
    uint32_t swapped = (lo >> 24) | ((lo >> 8) & 0xff00u) | ((lo << 8) & 0xff0000u) | (lo << 24);
    uint64_t mixed_seed = seed ^ ((uint64_t)swapped << 32);
    return (BLOOMSIMD_XXH3_SECRET_8 ^ BLOOMSIMD_XXH3_SECRET_16) - mixed_seed;
}

/* XXH3_64bits_withSeed of the 8 little-endian bytes of key. */
static inline uint64_t bloomsimd_xxh3_u64(uint64_t key, uint64_t bitflip)
{
    uint64_t h = bloomsimd_rotl64(key, 32) ^ bitflip;
    h ^= bloomsimd_rotl64(h, 49) ^ bloomsimd_rotl64(h, 24);
    h *= BLOOMSIMD_XXH3_MX2;
    h ^= (h >> 35) + 8u; /* + len */
    h *= BLOOMSIMD_XXH3_MX2;
    return h ^ (h >> 28);
}

static inline uint64_t bloomsimd_block_index(uint64_t hash, uint64_t nblocks)
{
    return ((hash >> 32) * nblocks) >> 32;
}

static inline uint16_t bloomsimd_word_select(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    return g->subsets[((uint64_t)lo * g->nsubsets) >> 32];
}

/* The 16-word mask of one key (words not selected are 0). */
static inline void bloomsimd_block_mask(const bloomsimd_geometry *g, uint64_t hash, uint32_t mask[16])
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    uint32_t lo = (uint32_t)hash;
    unsigned select = bloomsimd_word_select(g, hash);
    /* Branch-free: the select bit becomes an all-ones or all-zero word. With
     * a ?: here, gcc emits 16 data-dependent branches that mispredict on
     * random keys, which made the reference several times slower than it
     * needs to be (and every "x faster than scalar" figure flattering). */
    for (unsigned w = 0; w < 16; w++) {
        uint32_t bit = 1u << ((lo * salts[w]) >> 27);
        mask[w] = bit & (0u - ((select >> w) & 1u));
    }
}

static inline uint32_t *bloomsimd_block_ptr(const bloomsimd_geometry *g, uint64_t block)
{
    return g->words + block * BLOOMSIMD_WORDS_PER_BLOCK;
}

/* OR a mask into a block; atomically (relaxed, 64 bits at a time) when the
 * filter is concurrent. Relaxed is enough: bits only ever go 0 -> 1, and a
 * reader that must see an insert synchronises with its writer some other way. */
static inline void bloomsimd_block_or(const bloomsimd_geometry *g, uint32_t *block, const uint32_t mask[16])
{
    if (g->concurrent) {
        uint64_t *block64 = (uint64_t *)(void *)block;
        for (unsigned i = 0; i < 8; i++) {
            uint64_t m = (uint64_t)mask[2 * i] | ((uint64_t)mask[2 * i + 1] << 32);
            if (m) __atomic_fetch_or(&block64[i], m, __ATOMIC_RELAXED);
        }
    } else {
        for (unsigned w = 0; w < 16; w++) block[w] |= mask[w];
    }
}

/* 1 if every bit of mask is set in block. Concurrent filters read with
 * relaxed atomic loads so that racing with inserts is defined behaviour; the
 * loads are 64-bit, the same size as bloomsimd_block_or's atomic ORs (C11
 * does not define mixing atomic access sizes on one object). */
static inline uint8_t bloomsimd_block_test(const bloomsimd_geometry *g, const uint32_t *block,
                                           const uint32_t mask[16])
{
    uint32_t missing = 0;
    if (g->concurrent) {
        const uint64_t *block64 = (const uint64_t *)(const void *)block;
        for (unsigned i = 0; i < 8; i++) {
            uint64_t word = __atomic_load_n(&block64[i], __ATOMIC_RELAXED);
            missing |= mask[2 * i] & ~(uint32_t)word;
            missing |= mask[2 * i + 1] & ~(uint32_t)(word >> 32);
        }
    } else {
        for (unsigned w = 0; w < 16; w++) missing |= mask[w] & ~block[w];
    }
    return missing == 0;
}

static inline void bloomsimd_scalar_add_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t mask[16];
    bloomsimd_block_mask(g, hash, mask);
    bloomsimd_block_or(g, bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), mask);
}

static inline uint8_t bloomsimd_scalar_contains_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t mask[16];
    bloomsimd_block_mask(g, hash, mask);
    return bloomsimd_block_test(g, bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), mask);
}

#endif /* BLOOMSIMD_LAYOUT_H */
