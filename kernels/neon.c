/*
 * neon.c — the Advanced SIMD (NEON) kernel.
 *
 * On AArch64 it is native (<arm_neon.h>; Advanced SIMD is baseline there).
 * On x86 the same source compiles through SIMDe's NEON-only aliases with
 * baseline flags: it is listed as "emulated" (tested and benchmarkable,
 * never auto-selected), and its speed there says nothing about real NEON.
 * No AArch64 machine is available to this project: every choice below was
 * made on instruction counts of the generated AArch64 code (gcc 12,
 * counted per key, docs/kernels/neon.md), not on timings.
 *
 * Probe of one key (kernels/layout.h §2-4). The 16-word mask is four
 * q-registers, three vector operations per register:
 *     x    = vmulq_u32(lo, SALT[4r..4r+3])
 *     c    = vsriq_n_u32(F_r, x, 27)     low 5 bits = x >> 27, the rest from F_r
 *     mask = vshlq_u32(1, c)             USHL reads the count from c's low byte
 * where F_r is 0 in the lanes of selected words and all-ones in the others:
 * there the count byte is 0xE0 | b = b - 32 < 0, a right shift of 1 by
 * 32 - b >= 1 places, which is 0. So the word selection costs no vector
 * operation per key: a batch expands its k's 64 selection masks into the
 * F registers once (a 4 KiB table, like sse42's bias table) and a key loads
 * its four (64 bytes) from row lo >> 26. Single keys build them from the
 * 16-bit mask: one dup of ~select and four vtstq.
 * Lookup ORs mask & ~word over the four registers and tests the maximum
 * lane (vmaxvq_u32) for zero; insert is four ORs into the block;
 * insert-and-report-new adds an EOR and an ORR per register to find the
 * words that changed.
 *
 * Hashing: XXH3's 64 x 64-bit multiply is one MUL in a general register,
 * and its rotations are free shifted operands of EOR, so the batch pipeline
 * hashes (and computes block indices) in general registers, leaving the
 * vector units to the probe (NEON has no 64-bit lane multiply; see
 * neon_mul64). hash_u64 alone keeps the two-keys-per-register form: the
 * two tie on instruction count (15.3 vs 15.0 per key). Byte keys
 * (hash_keys, kernels/xxh3_keys_neon.h) split each group of keys between
 * q-registers and general registers.
 *
 * Memory: block512 batches run kernels/block512_loop.h's pipeline (shared
 * with sse42.c): keys are hashed and their blocks prefetched 64 keys before
 * they are probed.
 *
 * Concurrent filters (g->concurrent): inserts go through one relaxed 64-bit
 * atomic OR per non-zero word pair (LDSET with LSE, an LDXR/STXR loop
 * without); lookups read the block with eight relaxed 64-bit atomic loads
 * (plain LDRs on AArch64) into a stack copy that the vector code then reads,
 * which keeps racing reads defined (TSan-clean).
 */
#include "layout.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#define NEON_REQUIRED_FEATURES BLOOMSIMD_CPU_NEON
#define NEON_EMULATED false
#else
/* NEON names only; the global SIMDE_ENABLE_NATIVE_ALIASES would also alias
 * x86 intrinsics that the x86 kernels name for real. */
#define SIMDE_ARM_NEON_A32V7_ENABLE_NATIVE_ALIASES
#define SIMDE_ARM_NEON_A64V8_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#define NEON_REQUIRED_FEATURES 0u
#define NEON_EMULATED true
#endif

#define NEON_INLINE static inline __attribute__((always_inline))

/* ---- hashing ------------------------------------------------------------- */

typedef struct neon_hash_consts {
    uint64x2_t bitflip;
    uint32x2_t mx2_lo, mx2_hi;
    uint64x2_t len;
} neon_hash_consts;

static inline neon_hash_consts neon_hash_setup(uint64_t bitflip)
{
    neon_hash_consts c;
    c.bitflip = vdupq_n_u64(bitflip);
    c.mx2_lo = vdup_n_u32((uint32_t)BLOOMSIMD_XXH3_MX2);
    c.mx2_hi = vdup_n_u32((uint32_t)(BLOOMSIMD_XXH3_MX2 >> 32));
    c.len = vdupq_n_u64(8u);
    return c;
}

/* a * b mod 2^64 per lane, b given as its 32-bit halves (see the header). */
static inline uint64x2_t neon_mul64(uint64x2_t a, uint32x2_t b_lo, uint32x2_t b_hi)
{
    uint32x2_t a_lo = vmovn_u64(a);
    uint32x2_t a_hi = vshrn_n_u64(a, 32);
    uint32x2_t cross = vmla_u32(vmul_u32(a_lo, b_hi), a_hi, b_lo);
    return vmlal_u32(vshlq_n_u64(vmovl_u32(cross), 32), a_lo, b_lo);
}

static inline uint64x2_t neon_xxh3_x2(uint64x2_t key, const neon_hash_consts *c)
{
    uint64x2_t h = veorq_u64(vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(key))), c->bitflip);
    uint64x2_t r49 = vsriq_n_u64(vshlq_n_u64(h, 49), h, 15);
    uint64x2_t r24 = vsriq_n_u64(vshlq_n_u64(h, 24), h, 40);
    h = veorq_u64(h, veorq_u64(r49, r24));
    h = neon_mul64(h, c->mx2_lo, c->mx2_hi);
    h = veorq_u64(h, vaddq_u64(vshrq_n_u64(h, 35), c->len));
    h = neon_mul64(h, c->mx2_lo, c->mx2_hi);
    return veorq_u64(h, vshrq_n_u64(h, 28));
}

/* hashes[i] = XXH3 of keys[i]; both pointers may be misaligned. */
static void neon_hash_u64_keys(const neon_hash_consts *c, uint64_t bitflip, const uint64_t *keys, size_t n,
                               uint64_t *hashes)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint64x2_t h0 = neon_xxh3_x2(vld1q_u64(keys + i), c);
        uint64x2_t h1 = neon_xxh3_x2(vld1q_u64(keys + i + 2), c);
        vst1q_u64(hashes + i, h0);
        vst1q_u64(hashes + i + 2, h1);
    }
    for (; i < n; i++) {
        uint64_t key;
        memcpy(&key, keys + i, sizeof key);
        uint64_t h = bloomsimd_xxh3_u64(key, bitflip);
        memcpy(hashes + i, &h, sizeof h);
    }
}

static void neon_hash_u64(uint64_t bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    neon_hash_consts c = neon_hash_setup(bitflip);
    neon_hash_u64_keys(&c, bitflip, keys, n, hashes);
}

/* Byte keys (hash_keys): uses neon_mul64 and neon_xxh3_x2 above. */
#include "xxh3_keys_neon.h"

/* ---- the in-block mask ------------------------------------------------------ */

static const uint32_t neon_salts[16] = BLOOMSIMD_SALTS;
/* Lane w of register r: bit 4r + w of a selection mask. */
static const uint32_t neon_lane_bits[16] = {0x1,   0x2,   0x4,   0x8,   0x10,   0x20,   0x40,   0x80,
                                            0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000};

/* One key's mask (block512_loop.h's block512_simd_mask). */
typedef struct block512_simd_mask {
    uint32x4_t q[4]; /* words 4r..4r+3 */
} block512_simd_mask;

/* The mask of one key from its four selection registers F (header). */
NEON_INLINE block512_simd_mask neon_mask_from(uint32_t lo, uint32x4x4_t salt, uint32x4_t f0, uint32x4_t f1,
                                              uint32x4_t f2, uint32x4_t f3)
{
    const uint32x4_t one = vdupq_n_u32(1u);
    const uint32x4_t vlo = vdupq_n_u32(lo);
    block512_simd_mask m;
    m.q[0] = vshlq_u32(one, vreinterpretq_s32_u32(vsriq_n_u32(f0, vmulq_u32(vlo, salt.val[0]), 27)));
    m.q[1] = vshlq_u32(one, vreinterpretq_s32_u32(vsriq_n_u32(f1, vmulq_u32(vlo, salt.val[1]), 27)));
    m.q[2] = vshlq_u32(one, vreinterpretq_s32_u32(vsriq_n_u32(f2, vmulq_u32(vlo, salt.val[2]), 27)));
    m.q[3] = vshlq_u32(one, vreinterpretq_s32_u32(vsriq_n_u32(f3, vmulq_u32(vlo, salt.val[3]), 27)));
    return m;
}

/* The mask of one key from the 16-bit selection (single keys, small batches). */
NEON_INLINE block512_simd_mask block512_simd_mask_of(const uint16_t *select, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    uint32x4_t unselected = vdupq_n_u32(~(uint32_t)select[lo >> BLOOMSIMD_SELECT_SHIFT]);
    /* One LD1 of four registers each: a single key pays for its constants. */
    const uint32x4x4_t lane = vld1q_u32_x4(neon_lane_bits);
    return neon_mask_from(lo, vld1q_u32_x4(neon_salts), vtstq_u32(unselected, lane.val[0]), vtstq_u32(unselected, lane.val[1]),
                          vtstq_u32(unselected, lane.val[2]), vtstq_u32(unselected, lane.val[3]));
}

/* A batch's F registers for all 64 selection entries of its k (4 KiB). */
typedef struct block512_simd_table {
    _Alignas(64) uint32_t row[BLOOMSIMD_SELECT_ENTRIES][16];
} block512_simd_table;

static void block512_simd_table_build(const uint16_t *select, block512_simd_table *t)
{
    for (unsigned e = 0; e < BLOOMSIMD_SELECT_ENTRIES; e++) {
        uint32x4_t unselected = vdupq_n_u32(~(uint32_t)select[e]);
        for (unsigned r = 0; r < 4; r++)
            vst1q_u32(t->row[e] + 4 * r, vtstq_u32(unselected, vld1q_u32(neon_lane_bits + 4 * r)));
    }
}

NEON_INLINE block512_simd_mask block512_simd_mask_row(const block512_simd_table *t, uint64_t hash)
{
    uint32_t lo = (uint32_t)hash;
    const uint32_t *row = t->row[lo >> BLOOMSIMD_SELECT_SHIFT];
    /* Four plain loads, which gcc hoists out of the batch loop (it keeps a
     * vld1q_u32_x4 inside it). */
    const uint32x4x4_t salt = {{vld1q_u32(neon_salts), vld1q_u32(neon_salts + 4), vld1q_u32(neon_salts + 8),
                                vld1q_u32(neon_salts + 12)}};
    return neon_mask_from(lo, salt, vld1q_u32(row), vld1q_u32(row + 4), vld1q_u32(row + 8), vld1q_u32(row + 12));
}

/* ---- one block ------------------------------------------------------------ */

/* The block as four registers; a concurrent filter's through eight relaxed
 * 64-bit atomic loads (bits only go 0 -> 1, so any mix of old and new words
 * is an allowed answer, as bloomsimd_block_test's loads). */
NEON_INLINE void neon_load_block(const uint32_t *block, uint32x4_t words[4], bool concurrent)
{
    if (concurrent) {
        const uint64_t *block64 = (const uint64_t *)(const void *)block;
        uint64_t copy[8];
        for (unsigned i = 0; i < 8; i++) copy[i] = __atomic_load_n(&block64[i], __ATOMIC_RELAXED);
        for (unsigned i = 0; i < 4; i++) words[i] = vreinterpretq_u32_u64(vld1q_u64(copy + 2 * i));
    } else {
        for (unsigned i = 0; i < 4; i++) words[i] = vld1q_u32(block + 4 * i);
    }
}

NEON_INLINE uint8_t block512_simd_test(const uint32_t *block, const block512_simd_mask *m, bool concurrent)
{
    uint32x4_t w[4];
    neon_load_block(block, w, concurrent);
    uint32x4_t missing = vorrq_u32(vorrq_u32(vbicq_u32(m->q[0], w[0]), vbicq_u32(m->q[1], w[1])),
                                   vorrq_u32(vbicq_u32(m->q[2], w[2]), vbicq_u32(m->q[3], w[3])));
    return vmaxvq_u32(missing) == 0;
}

/* One relaxed 64-bit atomic OR per non-zero word pair, bloomsimd_block_or's
 * atomicity. */
static void neon_block_or_atomic(uint32_t *block, const block512_simd_mask *m)
{
    uint64_t bits[8];
    for (unsigned r = 0; r < 4; r++) vst1q_u64(bits + 2 * r, vreinterpretq_u64_u32(m->q[r]));
    uint64_t *block64 = (uint64_t *)(void *)block;
    for (unsigned i = 0; i < 8; i++)
        if (bits[i]) __atomic_fetch_or(&block64[i], bits[i], __ATOMIC_RELAXED);
}

NEON_INLINE void block512_simd_or(uint32_t *block, const block512_simd_mask *m, bool concurrent)
{
    if (concurrent) {
        neon_block_or_atomic(block, m);
        return;
    }
    for (unsigned r = 0; r < 4; r++) vst1q_u32(block + 4 * r, vorrq_u32(vld1q_u32(block + 4 * r), m->q[r]));
}

/* Concurrent insert-and-report-new (bloomsimd_block_or_report): a key whose
 * bits a relaxed read finds all set is old without an atomic; otherwise
 * each word pair still lacking a bit gets an atomic OR, and the key is new
 * if any of them replaced a value lacking one of its bits, so of two threads
 * racing on one new key at least one reports it. */
static uint8_t neon_block_or_report_atomic(uint32_t *block, const block512_simd_mask *m)
{
    uint32x4_t w[4];
    neon_load_block(block, w, true);
    uint64_t lack[8], bits[8];
    for (unsigned r = 0; r < 4; r++) {
        vst1q_u64(lack + 2 * r, vreinterpretq_u64_u32(vbicq_u32(m->q[r], w[r])));
        vst1q_u64(bits + 2 * r, vreinterpretq_u64_u32(m->q[r]));
    }
    uint64_t *block64 = (uint64_t *)(void *)block;
    uint8_t fresh = 0;
    for (unsigned i = 0; i < 8; i++) {
        if (!lack[i]) continue;
        uint64_t old = __atomic_fetch_or(&block64[i], bits[i], __ATOMIC_RELAXED);
        fresh |= (old & bits[i]) != bits[i];
    }
    return fresh;
}

/* Plain: new = any word changed, the OR over the block of (w | m) ^ w. */
NEON_INLINE uint8_t block512_simd_or_report(uint32_t *block, const block512_simd_mask *m, bool concurrent)
{
    if (concurrent) return neon_block_or_report_atomic(block, m);
    uint32x4_t changed = vdupq_n_u32(0);
    for (unsigned r = 0; r < 4; r++) {
        uint32x4_t w = vld1q_u32(block + 4 * r);
        uint32x4_t u = vorrq_u32(w, m->q[r]);
        vst1q_u32(block + 4 * r, u);
        changed = vorrq_u32(changed, veorq_u32(u, w));
    }
    return vmaxvq_u32(changed) != 0;
}

/* ---- batches ---------------------------------------------------------------------- */

/* kernels/block512_loop.h's pipeline over the primitives above: the F
 * table from batches of BLOCK512_LOOP_SMALL keys on, the 16-bit masks
 * below. Groups stay rolled: unrolled, gcc 12 hoisted the 8 keys' loads and
 * spilled ~20 q-registers per group (docs/kernels/neon.md). */
#define BLOCK512_LOOP_PREFIX neon
#include "block512_loop.h"

/* Single keys: the four-register probe from the 16-bit mask. Concurrent
 * filters go out of line, so that the plain probe needs no stack frame. */
static __attribute__((noinline)) void neon_add_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    neon_block_or_atomic(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m);
}

static __attribute__((noinline)) bool neon_contains_one_atomic(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    return block512_simd_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, true);
}

static void neon_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) {
        neon_add_one_atomic(g, hash);
        return;
    }
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    block512_simd_or(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
}

static bool neon_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) return neon_contains_one_atomic(g, hash);
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    return block512_simd_test(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)), &m, false);
}

NEON_INLINE bool neon_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    block512_simd_mask m = block512_simd_mask_of(g->select, hash);
    uint32_t *block = bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
    if (g->concurrent) return block512_simd_or_report(block, &m, true);
    return block512_simd_or_report(block, &m, false);
}

/* ---- set operations --------------------------------------------------------- */

static void neon_union_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8)
        for (unsigned j = 0; j < 8; j += 2)
            vst1q_u64(dst + i + j, vorrq_u64(vld1q_u64(dst + i + j), vld1q_u64(src + i + j)));
    for (; i < nwords; i++) dst[i] |= src[i];
}

static void neon_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8)
        for (unsigned j = 0; j < 8; j += 2)
            vst1q_u64(dst + i + j, vandq_u64(vld1q_u64(dst + i + j), vld1q_u64(src + i + j)));
    for (; i < nwords; i++) dst[i] &= src[i];
}

/* ---- split256 -----------------------------------------------------------------
 *
 * kernels/layout_split256.h: a block is two q-registers (words 0-3, 4-7)
 * with one bit in every word, so no selection flags:
 *     x    = vmulq_u32(lo, SALT[0..3]), vmulq_u32(lo, SALT[4..7])
 *     mask = vshlq_u32(1, x >> 27)
 *     lookup: no bit of mask & ~block (vbicq) in either register; a group
 *     of 8 keys folds its 16 registers by pairwise maxima (vpmaxq) into one
 *     lane per key, insert: two ORs.
 * Batches run kernels/split256_loop.h's pipeline, hashing in general
 * registers as the block512 batches do; a concurrent filter's blocks are
 * read by four relaxed 64-bit atomic loads (neon_load_block's reason), its
 * inserts go through split256_loop.h's atomic helpers.
 */

#include "split256_scalar.h" /* BLOOMSIMD_BY_LAYOUT */
#define SPLIT256_LOOP_DISTANCE BLOCK512_LOOP_AHEAD
#define SPLIT256_LOOP_READ_LOCALITY 3
#define SPLIT256_LOOP_WRITE_LOCALITY 3
#define SPLIT256_LOOP_CONCURRENT_READS 1
#include "split256_loop.h"

static const uint32_t neon_split256_salts[8] __attribute__((aligned(16))) = BLOOMSIMD_SPLIT256_SALTS;

typedef struct neon_split256_pair {
    uint32x4_t lo, hi; /* words 0-3, 4-7 */
} neon_split256_pair;

NEON_INLINE neon_split256_pair neon_split256_mask(uint32_t lo)
{
    const uint32x4_t one = vdupq_n_u32(1);
    uint32x4_t vlo = vdupq_n_u32(lo);
    uint32x4_t c0 = vshrq_n_u32(vmulq_u32(vlo, vld1q_u32(neon_split256_salts)), 27);
    uint32x4_t c1 = vshrq_n_u32(vmulq_u32(vlo, vld1q_u32(neon_split256_salts + 4)), 27);
    neon_split256_pair m = {vshlq_u32(one, vreinterpretq_s32_u32(c0)), vshlq_u32(one, vreinterpretq_s32_u32(c1))};
    return m;
}

NEON_INLINE neon_split256_pair neon_split256_load(const char *block, const int concurrent)
{
    neon_split256_pair w;
    if (concurrent) {
        const uint64_t *block64 = (const uint64_t *)(const void *)block;
        uint64_t copy[4];
        for (unsigned i = 0; i < 4; i++) copy[i] = __atomic_load_n(&block64[i], __ATOMIC_RELAXED);
        w.lo = vreinterpretq_u32_u64(vld1q_u64(copy));
        w.hi = vreinterpretq_u32_u64(vld1q_u64(copy + 2));
    } else {
        w.lo = vld1q_u32((const uint32_t *)(const void *)block);
        w.hi = vld1q_u32((const uint32_t *)(const void *)(block + 16));
    }
    return w;
}

/* Per word, the mask bit the block lacks (0 where it has it). */
NEON_INLINE neon_split256_pair neon_split256_missing(const char *block, neon_split256_pair m, const int concurrent)
{
    neon_split256_pair w = neon_split256_load(block, concurrent);
    neon_split256_pair x = {vbicq_u32(m.lo, w.lo), vbicq_u32(m.hi, w.hi)};
    return x;
}

NEON_INLINE uint8_t split256_simd_test(uint64_t hash, const char *block, const int concurrent)
{
    neon_split256_pair x = neon_split256_missing(block, neon_split256_mask((uint32_t)hash), concurrent);
    return vmaxvq_u32(vorrq_u32(x.lo, x.hi)) == 0;
}

/* Staged key j's missing words folded to 4 lanes, and 4 keys to one lane each. */
NEON_INLINE uint32x4_t neon_split256_missing4(const uint64_t *hash, const uint64_t *block, size_t j,
                                              const int concurrent)
{
    uint32x4_t k[4];
    for (size_t i = 0; i < 4; i++) {
        neon_split256_pair x = neon_split256_missing((const char *)(uintptr_t)block[j + i],
                                                     neon_split256_mask((uint32_t)hash[j + i]), concurrent);
        k[i] = vorrq_u32(x.lo, x.hi);
    }
    return vpmaxq_u32(vpmaxq_u32(k[0], k[1]), vpmaxq_u32(k[2], k[3]));
}

NEON_INLINE unsigned split256_simd_test8(const uint64_t *hash, const uint64_t *block, const int concurrent)
{
    static const uint32_t weights[8] __attribute__((aligned(16))) = {1, 2, 4, 8, 16, 32, 64, 128};
    uint32x4_t hit0 = vceqq_u32(neon_split256_missing4(hash, block, 0, concurrent), vdupq_n_u32(0));
    uint32x4_t hit1 = vceqq_u32(neon_split256_missing4(hash, block, 4, concurrent), vdupq_n_u32(0));
    return vaddvq_u32(vorrq_u32(vandq_u32(hit0, vld1q_u32(weights)), vandq_u32(hit1, vld1q_u32(weights + 4))));
}

NEON_INLINE void split256_simd_or(char *block, uint64_t hash, const int concurrent)
{
    neon_split256_pair m = neon_split256_mask((uint32_t)hash);
    if (concurrent) {
        neon_split256_pair x = neon_split256_missing(block, m, 1);
        uint64_t missing[4];
        vst1q_u64(missing, vreinterpretq_u64_u32(x.lo));
        vst1q_u64(missing + 2, vreinterpretq_u64_u32(x.hi));
        split256_loop_or_atomic(block, missing);
        return;
    }
    uint32_t *b = (uint32_t *)(void *)block;
    vst1q_u32(b, vorrq_u32(vld1q_u32(b), m.lo));
    vst1q_u32(b + 4, vorrq_u32(vld1q_u32(b + 4), m.hi));
}

NEON_INLINE uint8_t split256_simd_or_report(char *block, uint64_t hash, const int concurrent)
{
    neon_split256_pair m = neon_split256_mask((uint32_t)hash);
    if (concurrent) {
        neon_split256_pair x = neon_split256_missing(block, m, 1);
        uint32_t missing[8];
        vst1q_u32(missing, x.lo);
        vst1q_u32(missing + 4, x.hi);
        return split256_loop_or_report_atomic(block, missing);
    }
    uint32_t *b = (uint32_t *)(void *)block;
    uint32x4_t w0 = vld1q_u32(b), w1 = vld1q_u32(b + 4);
    vst1q_u32(b, vorrq_u32(w0, m.lo));
    vst1q_u32(b + 4, vorrq_u32(w1, m.hi));
    return vmaxvq_u32(vorrq_u32(vbicq_u32(m.lo, w0), vbicq_u32(m.hi, w1))) != 0;
}

/* Hashes in general registers; block addresses base + ((h >> 32) * nblocks >> 32) * 32. */
NEON_INLINE void split256_simd_stage8(const split256_ctx *c, const uint64_t *src, uint64_t *hash, uint64_t *block,
                                      const int from_keys)
{
    for (size_t j = 0; j < 8; j++) {
        uint64_t h;
        memcpy(&h, src + j, sizeof h); /* keys may be under-aligned */
        if (from_keys) h = bloomsimd_xxh3_u64(h, c->bitflip);
        hash[j] = h;
        uint64_t index = bloomsimd_split256_block_index(h, c->nblocks);
        block[j] = (uint64_t)(uintptr_t)(c->base + index * BLOOMSIMD_SPLIT256_BLOCK_BYTES);
    }
}

NEON_INLINE char *neon_split256_block(const bloomsimd_geometry *g, uint64_t hash)
{
    return (char *)(void *)g->words + bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
}

static bool split256_simd_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent) return split256_simd_test(hash, neon_split256_block(g, hash), 1);
    return split256_simd_test(hash, neon_split256_block(g, hash), 0);
}

static void split256_simd_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent)
        split256_simd_or(neon_split256_block(g, hash), hash, 1);
    else
        split256_simd_or(neon_split256_block(g, hash), hash, 0);
}

BLOOMSIMD_BY_LAYOUT(neon, split256_simd)
#include "single_key.h"
BLOOMSIMD_SINGLE_KEY(neon, split256_simd)

const bloomsimd_kernel bloomsimd_kernel_neon = {
    .name = "neon",
    .required_features = NEON_REQUIRED_FEATURES,
    .emulated = NEON_EMULATED,
    .default_layout = BLOOMSIMD_LAYOUT_SPLIT256,
    .hash_u64 = neon_hash_u64,
    .add_hashes = neon_by_layout_add_hashes,
    .contains_hashes = neon_by_layout_contains_hashes,
    .add_u64 = neon_by_layout_add_u64,
    .contains_u64 = neon_by_layout_contains_u64,
    .add_new_hashes = neon_by_layout_add_new_hashes,
    .add_new_u64 = neon_by_layout_add_new_u64,
    .add_one = neon_by_layout_add_one,
    .contains_one = neon_by_layout_contains_one,
    .single = BLOOMSIMD_SINGLE_KEY_ENTRIES(neon),
    .hash_keys = neon_hash_keys,
    .union_words = neon_union_words,
    .intersect_words = neon_intersect_words,
};
