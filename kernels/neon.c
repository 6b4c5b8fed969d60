/*
 * neon.c — the Advanced SIMD (NEON) kernel.
 *
 * On AArch64 it is native (<arm_neon.h>; Advanced SIMD is baseline there).
 * On x86 the same source compiles through SIMDe's NEON-only aliases with
 * baseline flags: it is listed as "emulated" (tested and benchmarkable,
 * never auto-selected), and its speed there says nothing about real NEON.
 *
 * Hashing, two keys per q-register (XXH3 on 8 bytes, kernels/layout.h §1):
 *   rotl64(x, 32)  = vrev64q_u32 (swap the 32-bit halves of each lane)
 *   rotl64(h, r)   = vsriq_n_u64(h << r, h, 64 - r)   (shift-right-insert)
 *   h * MX2 mod 2^64: NEON has no 64x64 lane multiply. With a = ah:al and
 *   b = bh:bl (32-bit halves),
 *       a * b mod 2^64 = al*bl + ((al*bh + ah*bl) mod 2^32) << 32
 *   so one widening vmlal_u32 (al*bl, full 64 bits) plus two 32-bit
 *   vmul/vmla for the cross terms, whose high halves fall off the top.
 *   al = vmovn_u64(a), ah = vshrn_n_u64(a, 32).
 *
 * Probe of one key (kernels/layout.h §2-4): the block index and the subset
 * rank are 64-bit products, done in general registers. The 16-word mask is
 * four q-registers: vmulq_u32(lo, SALT[4i..4i+3]) >> 27 gives the bit
 * numbers, vshlq_u32(1, b) makes the bits (NEON shifts each lane by its own
 * count), and vtstq_u32(select, {1,2,4,8} << 4i) keeps the selected words.
 * Lookup ORs mask & ~word over the four registers and tests the maximum
 * lane (vmaxvq_u32) for zero; insert is four load-OR-stores.
 *
 * Memory: batches are hashed a group at a time and each group's blocks are
 * prefetched NEON_AHEAD_GROUPS groups before they are probed, the schedule
 * of kernels/scalar.c, so that DRAM latency overlaps the hashing.
 *
 * Concurrent filters (g->concurrent): inserts go through bloomsimd_block_or
 * (one relaxed 64-bit atomic OR per non-zero word pair, at most min(k, 8)
 * per key: LDSET with LSE, an LDXR/STXR loop without); lookups read the
 * block with eight relaxed 64-bit atomic loads (plain LDRs on AArch64) into
 * a stack copy that the vector code then reads, which costs a store and a
 * reload of 64 bytes per key but keeps racing reads defined (TSan-clean).
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

/* Keys hashed per group, and how many groups ahead blocks are prefetched
 * (NEON_GROUP * NEON_AHEAD_GROUPS = 32 lines in flight, as kernels/scalar.c). */
#define NEON_GROUP 16u
#define NEON_AHEAD_GROUPS 2u
#define NEON_RING (NEON_GROUP * (NEON_AHEAD_GROUPS + 1u))
#define NEON_AHEAD (NEON_GROUP * NEON_AHEAD_GROUPS)

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
static void neon_hash_keys(const neon_hash_consts *c, uint64_t bitflip, const uint64_t *keys, size_t n,
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
    neon_hash_keys(&c, bitflip, keys, n, hashes);
}

/* ---- one block ------------------------------------------------------------ */

typedef struct neon_probe_consts {
    uint32x4_t salt[4];
    uint32x4_t lane_bit[4]; /* 1u << w for the four words w of each q-register */
    uint32x4_t one;
} neon_probe_consts;

static inline neon_probe_consts neon_probe_setup(void)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    neon_probe_consts c;
    for (unsigned i = 0; i < 4; i++) {
        c.salt[i] = vld1q_u32(salts + 4 * i);
        uint32_t bits[4] = {1u << (4 * i), 1u << (4 * i + 1), 1u << (4 * i + 2), 1u << (4 * i + 3)};
        c.lane_bit[i] = vld1q_u32(bits);
    }
    c.one = vdupq_n_u32(1u);
    return c;
}

static inline uint32_t *neon_block(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
}

static inline void neon_mask(const bloomsimd_geometry *g, const neon_probe_consts *c, uint64_t hash,
                             uint32x4_t mask[4])
{
    uint32x4_t lo = vdupq_n_u32((uint32_t)hash);
    uint32x4_t select = vdupq_n_u32(bloomsimd_word_select(g, hash));
    for (unsigned i = 0; i < 4; i++) {
        uint32x4_t shift = vshrq_n_u32(vmulq_u32(lo, c->salt[i]), 27);
        uint32x4_t bit = vshlq_u32(c->one, vreinterpretq_s32_u32(shift));
        mask[i] = vandq_u32(bit, vtstq_u32(select, c->lane_bit[i]));
    }
}

static inline void neon_load_block(const bloomsimd_geometry *g, const uint32_t *block, uint32x4_t words[4])
{
    if (g->concurrent) {
        const uint64_t *block64 = (const uint64_t *)(const void *)block;
        uint64_t copy[8];
        for (unsigned i = 0; i < 8; i++) copy[i] = __atomic_load_n(&block64[i], __ATOMIC_RELAXED);
        for (unsigned i = 0; i < 4; i++) words[i] = vreinterpretq_u32_u64(vld1q_u64(copy + 2 * i));
    } else {
        for (unsigned i = 0; i < 4; i++) words[i] = vld1q_u32(block + 4 * i);
    }
}

static inline uint8_t neon_contains_hash(const bloomsimd_geometry *g, const neon_probe_consts *c, uint64_t hash)
{
    uint32x4_t mask[4], words[4];
    neon_mask(g, c, hash, mask);
    neon_load_block(g, neon_block(g, hash), words);
    uint32x4_t missing = vbicq_u32(mask[0], words[0]);
    for (unsigned i = 1; i < 4; i++) missing = vorrq_u32(missing, vbicq_u32(mask[i], words[i]));
    return vmaxvq_u32(missing) == 0;
}

static inline void neon_add_hash(const bloomsimd_geometry *g, const neon_probe_consts *c, uint64_t hash)
{
    uint32x4_t mask[4];
    neon_mask(g, c, hash, mask);
    uint32_t *block = neon_block(g, hash);
    if (g->concurrent) {
        uint32_t m[16];
        for (unsigned i = 0; i < 4; i++) vst1q_u32(m + 4 * i, mask[i]);
        bloomsimd_block_or(g, block, m);
        return;
    }
    for (unsigned i = 0; i < 4; i++) vst1q_u32(block + 4 * i, vorrq_u32(vld1q_u32(block + 4 * i), mask[i]));
}

static inline void neon_prefetch(const bloomsimd_geometry *g, uint64_t hash, int for_write)
{
    const uint32_t *block = neon_block(g, hash);
    if (for_write)
        __builtin_prefetch(block, 1, 3);
    else
        __builtin_prefetch(block, 0, 3);
}

static inline uint64_t neon_load_u64(const uint64_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- batches of pre-computed hashes -------------------------------------- */

static void neon_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    neon_probe_consts c = neon_probe_setup();
    for (size_t i = 0; i < n && i < NEON_AHEAD; i++) neon_prefetch(g, neon_load_u64(hashes + i), 1);
    for (size_t i = 0; i < n; i++) {
        if (i + NEON_AHEAD < n) neon_prefetch(g, neon_load_u64(hashes + i + NEON_AHEAD), 1);
        neon_add_hash(g, &c, neon_load_u64(hashes + i));
    }
}

static size_t neon_contains_hashes_bytes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    neon_probe_consts c = neon_probe_setup();
    size_t hits = 0;
    for (size_t i = 0; i < n && i < NEON_AHEAD; i++) neon_prefetch(g, neon_load_u64(hashes + i), 0);
    for (size_t i = 0; i < n; i++) {
        if (i + NEON_AHEAD < n) neon_prefetch(g, neon_load_u64(hashes + i + NEON_AHEAD), 0);
        uint8_t hit = neon_contains_hash(g, &c, neon_load_u64(hashes + i));
        if (out) out[i] = hit;
        hits += hit;
    }
    return hits;
}

/* ---- fused key -> hash -> probe ------------------------------------------- */

/* Hashes keys [from, from + NEON_GROUP) into their ring slots (contiguous:
 * from and NEON_RING are multiples of NEON_GROUP) and prefetches their blocks. */
static void neon_fill_ring(const bloomsimd_geometry *g, const neon_hash_consts *hc, const uint64_t *keys, size_t n,
                           size_t from, uint64_t ring[NEON_RING], int for_write)
{
    size_t count = n - from < NEON_GROUP ? n - from : NEON_GROUP;
    uint64_t *slot = ring + from % NEON_RING;
    neon_hash_keys(hc, g->hash_bitflip, keys + from, count, slot);
    for (size_t i = 0; i < count; i++) neon_prefetch(g, slot[i], for_write);
}

static void neon_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    neon_hash_consts hc = neon_hash_setup(g->hash_bitflip);
    neon_probe_consts c = neon_probe_setup();
    uint64_t ring[NEON_RING];
    for (size_t i = 0; i < NEON_AHEAD && i < n; i += NEON_GROUP) neon_fill_ring(g, &hc, keys, n, i, ring, 1);
    for (size_t base = 0; base < n; base += NEON_GROUP) {
        if (base + NEON_AHEAD < n) neon_fill_ring(g, &hc, keys, n, base + NEON_AHEAD, ring, 1);
        size_t end = base + NEON_GROUP < n ? base + NEON_GROUP : n;
        for (size_t i = base; i < end; i++) neon_add_hash(g, &c, ring[i % NEON_RING]);
    }
}

static size_t neon_contains_u64_bytes(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    neon_hash_consts hc = neon_hash_setup(g->hash_bitflip);
    neon_probe_consts c = neon_probe_setup();
    uint64_t ring[NEON_RING];
    size_t hits = 0;
    for (size_t i = 0; i < NEON_AHEAD && i < n; i += NEON_GROUP) neon_fill_ring(g, &hc, keys, n, i, ring, 0);
    for (size_t base = 0; base < n; base += NEON_GROUP) {
        if (base + NEON_AHEAD < n) neon_fill_ring(g, &hc, keys, n, base + NEON_AHEAD, ring, 0);
        size_t end = base + NEON_GROUP < n ? base + NEON_GROUP : n;
        for (size_t i = base; i < end; i++) {
            uint8_t hit = neon_contains_hash(g, &c, ring[i % NEON_RING]);
            if (out) out[i] = hit;
            hits += hit;
        }
    }
    return hits;
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

static size_t neon_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                                  void *out)
{
    return bloomsimd_hits_via_bytes(neon_contains_hashes_bytes, g, hashes, n, form, out);
}

static size_t neon_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                               void *out)
{
    return bloomsimd_hits_via_bytes(neon_contains_u64_bytes, g, keys, n, form, out);
}

/* Insert-and-report-new and single keys: the layout's reference code for
 * now (correct on every filter, not yet vectorised). */
static size_t neon_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, hashes[i]);
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static size_t neon_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, bloomsimd_xxh3_u64(keys[i], g->hash_bitflip));
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static void neon_add_one(const bloomsimd_geometry *g, uint64_t hash) { bloomsimd_scalar_add_hash(g, hash); }

static int neon_contains_one(const bloomsimd_geometry *g, uint64_t hash) { return bloomsimd_scalar_contains_hash(g, hash); }

const bloomsimd_kernel bloomsimd_kernel_neon = {
    .name = "neon",
    .required_features = NEON_REQUIRED_FEATURES,
    .emulated = NEON_EMULATED,
    .hash_u64 = neon_hash_u64,
    .add_hashes = neon_add_hashes,
    .contains_hashes = neon_contains_hashes,
    .add_u64 = neon_add_u64,
    .contains_u64 = neon_contains_u64,
    .add_new_hashes = neon_add_new_hashes,
    .add_new_u64 = neon_add_new_u64,
    .add_one = neon_add_one,
    .contains_one = neon_contains_one,
    .union_words = neon_union_words,
    .intersect_words = neon_intersect_words,
};
