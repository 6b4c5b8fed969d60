#ifndef BLOOMSIMD_LAYOUT_SPLIT256_H
#define BLOOMSIMD_LAYOUT_SPLIT256_H

/*
 * layout_split256.h — layout 3, "split256": the 256-bit split-block layout.
 * Derivation, FPR model, sizing and limits; the inline functions below are
 * its executable form (portable C, no intrinsics), the reference every
 * kernel's split256 code is tested against (tests/test_kernels_differential.c
 * re-derives it once more from this text). tests/test_layout_split256.c
 * re-measures the table at the end of this comment and checks the model.
 *
 * ---------------------------------------------------------------------------
 * 1. Hash: as layout 2 (kernels/layout.h section 1), h = XXH3_64bits_withSeed
 *    of the key (a 64-bit key: its 8 little-endian bytes). The hash is the
 *    geometry's hash_id (kernel.h), so a Parquet-compatible filter needs
 *    only another id whose h is XXH64 with seed 0 of the value's plain
 *    encoding: the block and bit rules below are Parquet's.
 *
 * 2. Block (32 bytes, 8 32-bit words; 32-byte aligned, two per cache line)
 *        block = ((h >> 32) * nblocks) >> 32          1 <= nblocks <= 2^32
 *
 * 3. Bits: one in EVERY word (k = 8), the bit of word w from the top 5 bits
 *    of a 32-bit multiply by the w-th salt
 *        lo     = (uint32_t)h
 *        bit_w  = (lo * SALT[w]) >> 27               w = 0..7
 *        SALT   = 0x47b6137b 0x44974d91 0x8824ad5b 0xa2b7289d
 *                 0x705495c7 0x2df1424b 0x9efc4947 0x5c6bfb31
 *    Parquet's salts, which are also the first 8 of layout 2's
 *    (BLOOMSIMD_SALTS). insert: word[w] |= 1 << bit_w; lookup: all 8 set.
 *    Every lane of a 256-bit register gets exactly one bit, so a probe is
 *    one vector multiply, one shift, one variable shift and one vptest on
 *    AVX2, half a zmm on AVX-512 (two keys per register), two q-registers
 *    on NEON/SSE.
 *
 *    The payload of a split256 filter is therefore a Parquet split-block
 *    bitset: same block order, same word order, little-endian words.
 *
 *    Why a second layout: on AVX2 and narrower vectors the 512-bit block is
 *    two (AVX2) or four (SSE, NEON) registers per probe; this block is one
 *    (or two). It costs memory: k is fixed at 8 and the block is smaller,
 *    so the same FPR needs 6.3% more bits at 1% and 8.6% more at 0.1%
 *    (section 5), and much more at very low targets (1e-6: 64.7 against
 *    39.2 bits/key), where layout 2's k grows to 16.
 *
 * 4. FPR model (exact for uniform hash bits; src/fpr_model.c).
 *    A query of an absent key probes one bit in each of the 8 words of its
 *    block. For a set S of those words, let E_S be "every probed bit of S is
 *    still clear". By inclusion-exclusion,
 *        P(all 8 probed bits set) = sum_{S subset of 8 words} (-1)^|S| P(E_S).
 *    A key inserted into the query's block sets one uniform bit in each
 *    word, independently across words, so it misses all |S| probed bits of S
 *    with probability q^|S|, q = 31/32; a key in another block misses them
 *    surely. Each of the n keys lands in the query's block with probability
 *    1/m (m = nblocks), independently, so
 *        P(E_S) = (1 - (1 - q^|S|) / m)^n
 *    and, grouping the C(8, s) sets of each size s,
 *        FPR(n, m) = sum_{s=0}^{8} (-1)^s C(8, s) (1 - (1 - q^s) / m)^n.
 *    This is exact: the number of keys in the query's block is binomial
 *    (n, 1/m) inside the power, not a Poisson approximation of it. (Putze et
 *    al.'s sectorized formula, sum_i Poisson(i; n/m) (1 - q^i)^8, is its
 *    Poisson limit; the bench's split-block peer, bench/sbbf.c, uses the
 *    same formula.) The 9 terms are at most C(8,4) = 70 in magnitude, so
 *    the alternating sum loses at most ~70 * 9 * 2^-53 ~ 1e-13 absolute:
 *    BLOOMSIMD_MIN_FPR (1e-10) holds here too. The powers are computed as
 *    exp(n log1p(-(1 - q^s)/m)) for full precision at m up to 2^32.
 *    The model takes the 8 bit positions of a key as independent; they come
 *    from one 32-bit lo through 8 odd multipliers, and the table below shows
 *    the measured FPR within noise of the model.
 *
 * 5. Sizing from (capacity n, target p): the fewest m with FPR(n, m) <= p;
 *    k is 8. Explicit bits: m = ceil(bits / 256). At 10^6 keys that is 10.53
 *    bits/key at 1% (layout 2: 9.91) and 16.89 at 0.1% (layout 2: 15.55).
 *
 * 6. Limits: 1 <= nblocks <= 2^32 (128 GiB), k = 8, BLOOMSIMD_MIN_FPR <= p
 *    < 1 (at 1e-10 about 200 bits per key). Two keys with equal 64-bit
 *    hashes are indistinguishable; keys with equal lo (32 bits) in the same
 *    block set the same 8 bits.
 *
 * Measured vs model (bits/key, model FPR, measured FPR): the rows sizing
 * picks at 10^6 keys for 10%, 1%, 0.1%, 0.01%, plus 10 bits/key (Putze et
 * al.'s and Parquet's 1.26%). Measured by tests/test_layout_split256.c with
 * 10^6 keys and >= 2000/p absent keys (Poisson noise ~2.2%); the test fails
 * if a re-measurement is off by > 10% or the model column disagrees with
 * src/fpr_model.c by > 0.5%.
 */
#define BLOOMSIMD_SPLIT256_FPR_TABLE(ROW)                                                                          \
    /*  bits/key  model        measured (1e6 keys, >= 2000/p absent keys) */                                       \
    ROW(5.9886, 0.0999957, 0.1006)                                                                                 \
    ROW(10.0, 0.0126476, 0.0125662)                                                                                \
    ROW(10.5293, 0.0099986, 0.00973976)                                                                            \
    ROW(16.8899, 0.000999899, 0.000995476)                                                                         \
    ROW(26.3416, 9.99978e-05, 9.57979e-05)

#include <stdint.h>
#include <string.h>

#include "kernel.h"

#define BLOOMSIMD_SPLIT256_WORDS 8u

/* Parquet's salts, the first 8 of BLOOMSIMD_SALTS (layout.h). */
#define BLOOMSIMD_SPLIT256_SALTS                                                                                    \
    {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u}

static inline uint64_t bloomsimd_split256_block_index(uint64_t hash, uint64_t nblocks)
{
    return ((hash >> 32) * nblocks) >> 32;
}

static inline uint32_t *bloomsimd_split256_block_ptr(const bloomsimd_geometry *g, uint64_t hash)
{
    return g->words + bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_WORDS;
}

/* The key's 8 word masks, one bit each. */
static inline void bloomsimd_split256_mask(uint64_t hash, uint32_t mask[8])
{
    static const uint32_t salts[8] = BLOOMSIMD_SPLIT256_SALTS;
    uint32_t lo = (uint32_t)hash;
    for (unsigned w = 0; w < 8; w++) mask[w] = 1u << ((lo * salts[w]) >> 27);
}

/* The 64-bit word i (0..3) of a mask, as the filter stores it (LE halves). */
static inline uint64_t bloomsimd_split256_mask64(const uint32_t mask[8], unsigned i)
{
    return (uint64_t)mask[2 * i] | ((uint64_t)mask[2 * i + 1] << 32);
}

/* Concurrent filters: relaxed 64-bit atomic ORs and loads, as layout 2's
 * bloomsimd_block_or / _test / _or_report (the same reasoning applies). */
static inline void bloomsimd_split256_or(const bloomsimd_geometry *g, uint32_t *block, const uint32_t mask[8])
{
    if (g->concurrent) {
        uint64_t *block64 = (uint64_t *)(void *)block;
        for (unsigned i = 0; i < 4; i++) {
            uint64_t m = bloomsimd_split256_mask64(mask, i);
            if ((__atomic_load_n(&block64[i], __ATOMIC_RELAXED) & m) != m)
                __atomic_fetch_or(&block64[i], m, __ATOMIC_RELAXED);
        }
    } else {
        for (unsigned w = 0; w < 8; w++) block[w] |= mask[w];
    }
}

static inline uint8_t bloomsimd_split256_test(const bloomsimd_geometry *g, const uint32_t *block,
                                              const uint32_t mask[8])
{
    uint32_t missing = 0;
    if (g->concurrent) {
        const uint64_t *block64 = (const uint64_t *)(const void *)block;
        for (unsigned i = 0; i < 4; i++) {
            uint64_t word = __atomic_load_n(&block64[i], __ATOMIC_RELAXED);
            missing |= mask[2 * i] & ~(uint32_t)word;
            missing |= mask[2 * i + 1] & ~(uint32_t)(word >> 32);
        }
    } else {
        for (unsigned w = 0; w < 8; w++) missing |= mask[w] & ~block[w];
    }
    return missing == 0;
}

static inline uint8_t bloomsimd_split256_or_report(const bloomsimd_geometry *g, uint32_t *block,
                                                   const uint32_t mask[8])
{
    uint32_t missing = 0;
    if (g->concurrent) {
        uint64_t *block64 = (uint64_t *)(void *)block;
        for (unsigned i = 0; i < 4; i++) {
            uint64_t m = bloomsimd_split256_mask64(mask, i);
            if ((__atomic_load_n(&block64[i], __ATOMIC_RELAXED) & m) == m) continue;
            uint64_t old = __atomic_fetch_or(&block64[i], m, __ATOMIC_RELAXED);
            missing |= (old & m) != m;
        }
    } else {
        for (unsigned w = 0; w < 8; w++) {
            missing |= mask[w] & ~block[w];
            block[w] |= mask[w];
        }
    }
    return missing != 0;
}

static inline void bloomsimd_split256_add_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t mask[8];
    bloomsimd_split256_mask(hash, mask);
    bloomsimd_split256_or(g, bloomsimd_split256_block_ptr(g, hash), mask);
}

static inline uint8_t bloomsimd_split256_contains_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t mask[8];
    bloomsimd_split256_mask(hash, mask);
    return bloomsimd_split256_test(g, bloomsimd_split256_block_ptr(g, hash), mask);
}

static inline uint8_t bloomsimd_split256_add_new_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    uint32_t mask[8];
    bloomsimd_split256_mask(hash, mask);
    return bloomsimd_split256_or_report(g, bloomsimd_split256_block_ptr(g, hash), mask);
}

#endif /* BLOOMSIMD_LAYOUT_SPLIT256_H */
