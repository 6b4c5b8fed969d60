/*
 * avx512.c — the AVX-512 (F+BW+DQ+VL) kernel.
 *
 * One 64-byte block is exactly one zmm register of 16 32-bit words, so a
 * probe is: broadcast lo, multiply by the 16 salts (vpmulld), >> 27, 1 << bit
 * (vpsllvd), then under the k-mask `select` either one vptestnmd against the
 * block (lookup: no selected lane may lack its bit) or one masked OR and
 * store (insert). Lanes outside `select` never take part.
 *
 * Hashing runs 8 keys per zmm: XXH3's 4..8-byte path is rotates, xors and two
 * 64x64 multiplies, which AVX-512DQ has natively (vpmullq). The block index
 * ((h >> 32) * nblocks) >> 32 is vpmuludq on the same register, so hash and
 * block address of 8 keys come out of ~14 vector instructions.
 *
 * Memory schedule (the fused and the hashes-in paths alike): keys are handled
 * in groups of 8. Group i is hashed, its 8 block addresses and word-subset
 * masks are stored in a small ring and its blocks prefetched into L2
 * (prefetcht1); group i - AVX512_AHEAD_GROUPS, whose blocks were prefetched
 * that many groups earlier, is probed, and on filters of 2 MiB or more the
 * group after it is moved on into L1 (prefetcht0). See AVX512_AHEAD_GROUPS,
 * AVX512_NEAR_GROUPS and AVX512_NEAR_MIN_BYTES for the measured choices.
 *
 * Concurrent filters (g->concurrent):
 *   - inserts OR only the bits still missing, with one `lock or` per 64-bit
 *     word that has any (the same relaxed fetch_or as bloomsimd_block_or, so
 *     filter bytes match scalar exactly);
 *   - blocks are read with an inline-asm vmovdqa64. The compiler (and TSan)
 *     see no C access, so there is no C data race. However the hardware
 *     splits the read, every byte is read atomically, and bits only ever go
 *     0 -> 1: any mix of old and new bytes a racing read observes is a valid
 *     answer ("may or may not see a concurrent insert"), exactly as with the
 *     scalar kernel's 16 relaxed loads. It costs nothing measurable.
 */
#include <immintrin.h>

#include "layout.h"
#include "xxh3_keys_avx512.h"

/* Keys per zmm of hashes. */
#define AVX512_LANES 8u

/* Prefetch distance in groups of 8 keys: 8 groups = 64 keys, prefetcht1.
 *
 * Once the filter is far larger than L3, throughput is capped by the lines
 * the core can have in flight (Little's law: ns/key = latency / lines in
 * flight). prefetcht0 holds one of the few L1 miss buffers for the whole
 * DRAM latency; prefetcht1 fills L2 only, whose miss queue is much deeper,
 * and the probe's own load then hits L2 (~14 cycles), which out-of-order
 * execution hides. Measured on this machine (2-core Zen VM, heavily shared:
 * thread CPU time, medians of 11-15 rotated reps, 10^8 keys, 125 MB filter
 * on 2 MiB pages, 10^6 negative lookups or new inserts per rep, batches of
 * 4096), ns/key:
 *
 *     distance (keys)          16    24    32    40    48    64    96   128   256
 *     lookup, prefetcht0        -  11.8  11.9  11.9  12.9  13.0  13.6  14.6     -
 *     lookup, prefetcht1      8.5     -   6.5     -   7.0   7.3   6.2   6.2   6.3
 *     ceiling, prefetcht1       -     -   6.2     -     -   4.7     -   4.8     -
 *
 * Same run, 32 keys: t0 13.6, t1 9.7; t2 behaves as t1. Inserts: prefetchw
 * 14.0 vs prefetcht1 7.7 at 64 keys (the line arrives exclusive when no
 * other core holds it, so the store needs no second trip). With prefetcht1
 * the distance hardly matters from 32 to 256 keys; 64 keeps ~130 ns of
 * look-ahead even on a quiet machine at ~2 ns/key. (With prefetcht0 longer
 * distances were worse: prefetches beyond the L1 miss buffers wait in the
 * load queue in front of the probe loads.) */
#ifndef AVX512_AHEAD_GROUPS
#define AVX512_AHEAD_GROUPS 8u
#endif
/* Second, near prefetch (prefetcht0), in groups: moves the line from L2 to
 * L1 one group before its probe, so the probe's loads hit L1 and the
 * out-of-order window is not held up by L2 hits (or by the odd line whose
 * far prefetch was dropped). Measured as above, 64 keys far: lookups 5.5
 * ns/key with it vs 6.4 without, inserts 5.65 vs 6.0; two groups ahead was
 * no better (5.6 / 5.9) and prefetchw instead of t0 no different; no cost at
 * 10^5 keys (2.4-2.6 ns/key either way). */
#ifndef AVX512_NEAR_GROUPS
#define AVX512_NEAR_GROUPS 1u
#endif
/* How close this pipeline gets to its memory floor at 10^8 keys depends on
 * the state of the shared host, and no probe formulation tried changes that.
 * 1500 alternating rounds of 65536 negative lookups and of the floor
 * (touch_u64: this pipeline with the probe replaced by a one-word read),
 * 2026-12-03 07:18 UTC, ns/key (bloomsimd-bench --paired N measures the
 * same split on any machine):
 *
 *     rounds                      share   floor   lookup   ratio   10^5-key lookup, same rounds
 *     quiet (lookup < 5.5)         33%     4.36    4.50    1.03x   2.22
 *     contended (lookup >= 6.5)    63%     5.53    7.86    1.42x   3.20
 *
 * (An earlier run the same morning: 6% quiet at 1.02x, 92% contended at
 * 1.39x.)
 * In the contended state the core itself runs ~40% slower (the cache-
 * resident column), and the probe's ~8 instructions per key are no longer
 * hidden behind DRAM latency. Rejected, each measured against the same
 * floor in the same process (on the stage before the one below, contended
 * state, lookup ns/key vs 7.4-7.9 for that code): prefetch distance 16..192 keys (no change); no near prefetch
 * (8.7); near prefetch 2-3 groups ahead (no change); prefetchnta (7.5);
 * block read folded into vptestnmd (7.4); results packed in integer
 * registers or stored as masks and converted after the loop (7.4-8.1);
 * k-register-free probes, select applied through shift counts and tested
 * with vptest or vptestmq (8.2-8.4); per-key bit masks precomputed at stage
 * time (8.4); scalar hashing at stage time (7.0 vs 7.0); demand loads one to
 * three groups ahead (8.1-9.2); clang instead of gcc (within 2%). */
/* Ring of hashed groups: a power of two larger than the distance. */
#ifndef AVX512_RING
#define AVX512_RING 16u
#endif
_Static_assert(AVX512_RING > AVX512_AHEAD_GROUPS && (AVX512_RING & (AVX512_RING - 1)) == 0,
               "ring must be a power of two larger than the prefetch distance");
/* Filters smaller than this skip the near prefetch: they sit in L2 (or L3
 * next to it), where the prefetcht1 line arrives in time anyway and the
 * extra 16 instructions per group only cost. At 10^5 keys (122 KiB):
 * lookups 2.24 ns/key with it, 2.10 without; at 10^8, 5.1 with, 5.7 without
 * (same run). 2 MiB: this CPU's L2 is 1 MiB per core, others' up to 2. */
#ifndef AVX512_NEAR_MIN_BYTES
#define AVX512_NEAR_MIN_BYTES (UINT64_C(2) << 20)
#endif
_Static_assert(AVX512_NEAR_GROUPS >= 1 && AVX512_NEAR_GROUPS < AVX512_AHEAD_GROUPS,
               "the near prefetch reads a slot the far stage has already filled");

#define AVX512_INLINE static inline __attribute__((always_inline))

/* One group of 8 keys in flight: hashes, block addresses, word-subset masks. */
typedef struct avx512_slot {
    uint64_t hash[AVX512_LANES]; /* lo = the low 32 bits of each */
    uint64_t addr[AVX512_LANES];
    uint64_t select[AVX512_LANES]; /* subsets[(lo * nsubsets) >> 32]: the key's k words */
} avx512_slot;

/* Per-call constants kept in registers. */
typedef struct avx512_ctx {
    __m512i bitflip;     /* XXH3 seed constant, every lane */
    __m512i base;        /* g->words as an integer, every lane */
    __m512i nblocks_lo;  /* low 32 bits of nblocks (vpmuludq reads 32 bits) */
    __m512i nblocks_all; /* all-ones iff nblocks == 2^32: then block = hi */
    __m512i nsubsets;
    __m512i salts;
    __m512i ones;
    const uint16_t *subsets;
    bool near; /* the near prefetch pays only on filters larger than L2 (AVX512_NEAR_MIN_BYTES) */
} avx512_ctx;

AVX512_INLINE avx512_ctx avx512_context(const bloomsimd_geometry *g)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    avx512_ctx c;
    c.bitflip = _mm512_set1_epi64((long long)g->hash_bitflip);
    c.base = _mm512_set1_epi64((long long)(uintptr_t)g->words);
    c.nblocks_lo = _mm512_set1_epi64((long long)(g->nblocks & 0xffffffffu));
    c.nblocks_all = _mm512_set1_epi64(g->nblocks >> 32 ? -1 : 0);
    c.nsubsets = _mm512_set1_epi64(BLOOMSIMD_SELECT_ENTRIES);
    c.near = g->nblocks * 64u >= AVX512_NEAR_MIN_BYTES;
    c.salts = _mm512_loadu_si512(salts);
    c.ones = _mm512_set1_epi32(1);
    c.subsets = g->select;
    return c;
}

/* bloomsimd_xxh3_u64 on 8 lanes. */
AVX512_INLINE __m512i avx512_xxh3(__m512i key, __m512i bitflip)
{
    const __m512i mx2 = _mm512_set1_epi64((long long)BLOOMSIMD_XXH3_MX2);
    __m512i h = _mm512_xor_si512(_mm512_rol_epi64(key, 32), bitflip);
    /* 0x96 = a ^ b ^ c */
    h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96);
    h = _mm512_mullo_epi64(h, mx2);
    h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), _mm512_set1_epi64(8)));
    h = _mm512_mullo_epi64(h, mx2);
    return _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
}

/* Address of each lane's block: words + 64 * (((h >> 32) * nblocks) >> 32).
 * For nblocks = 2^32 the 32-bit multiply sees 0 and the block is hi itself;
 * ternlog 0xF8 = a | (b & c) merges the two cases without a branch. */
AVX512_INLINE __m512i avx512_block_addr(const avx512_ctx *c, __m512i h)
{
    __m512i hi = _mm512_srli_epi64(h, 32);
    __m512i scaled = _mm512_srli_epi64(_mm512_mul_epu32(hi, c->nblocks_lo), 32);
    __m512i block = _mm512_ternarylogic_epi64(scaled, hi, c->nblocks_all, 0xF8);
    return _mm512_add_epi64(_mm512_slli_epi64(block, 6), c->base);
}

/* The 16 per-word bits 1 << ((lo * SALT[w]) >> 27), before word selection. */
AVX512_INLINE __m512i avx512_bits(const avx512_ctx *c, uint32_t lo)
{
    __m512i bit_index = _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_set1_epi32((int)lo), c->salts), 27);
    return _mm512_sllv_epi32(c->ones, bit_index);
}

/* A block read that is not a C access (see the file comment). */
AVX512_INLINE __m512i avx512_load_racy(const uint32_t *block)
{
    __m512i v;
    __asm__("vmovdqa64 %1, %0" : "=v"(v) : "m"(*(const __m512i *)(const void *)block));
    return v;
}

AVX512_INLINE __m512i avx512_load_block(const uint32_t *block, const int concurrent)
{
    return concurrent ? avx512_load_racy(block) : _mm512_load_si512((const void *)block);
}

/* The selected words of the block that lack their bit (0: the key may be
 * present). The slot already holds the subset mask and lo, so the per-key work is a
 * broadcast from memory, four vector operations and a table load. */
AVX512_INLINE __mmask16 avx512_missing(const avx512_ctx *c, const avx512_slot *slot, unsigned j, const int concurrent)
{
    uint32_t lo;
    memcpy(&lo, &slot->hash[j], sizeof lo); /* little-endian: the low half */
    __mmask16 select = (__mmask16)slot->select[j];
    const uint32_t *block = (const uint32_t *)(uintptr_t)slot->addr[j];
    return _mm512_mask_testn_epi32_mask(select, avx512_load_block(block, concurrent), avx512_bits(c, lo));
}

AVX512_INLINE void avx512_insert_slot(const avx512_ctx *c, const avx512_slot *slot, unsigned j, const int concurrent)
{
    uint32_t lo;
    memcpy(&lo, &slot->hash[j], sizeof lo);
    __mmask16 select = (__mmask16)slot->select[j];
    uint32_t *block = (uint32_t *)(uintptr_t)slot->addr[j];
    __m512i bits = avx512_bits(c, lo);
    if (!concurrent) {
        __m512i old = _mm512_load_si512((void *)block);
        _mm512_store_si512((void *)block, _mm512_mask_or_epi32(old, select, old, bits));
        return;
    }
    /* Only words still missing a bit need a locked OR; ORing just those bits
     * leaves the same bytes as ORing the whole mask. */
    __m512i missing = _mm512_maskz_andnot_epi32(select, avx512_load_racy(block), bits);
    __mmask8 words = _mm512_test_epi64_mask(missing, missing);
    if (!words) return;
    uint64_t m[8];
    _mm512_storeu_si512((void *)m, missing);
    uint64_t *block64 = (uint64_t *)(void *)block;
    for (unsigned w = words; w; w &= w - 1) {
        unsigned i = (unsigned)__builtin_ctz(w);
        __atomic_fetch_or(&block64[i], m[i], __ATOMIC_RELAXED);
    }
}

/* Far prefetch into L2, near prefetch into L1: see AVX512_AHEAD_GROUPS. */
AVX512_INLINE void avx512_prefetch_far(uint64_t addr) { _mm_prefetch((const char *)(uintptr_t)addr, _MM_HINT_T1); }

AVX512_INLINE void avx512_prefetch_near(const avx512_slot *slot)
{
    for (unsigned j = 0; j < AVX512_LANES; j++) _mm_prefetch((const char *)(uintptr_t)slot->addr[j], _MM_HINT_T0);
}

/* Lanes [0, count) of a group starting at src. Masked loads never touch
 * memory outside the mask, so tails and unaligned arrays are exact. */
AVX512_INLINE __m512i avx512_load_group(const uint64_t *src, size_t count)
{
    if (count >= AVX512_LANES) return _mm512_loadu_si512((const void *)src);
    return _mm512_maskz_loadu_epi64((__mmask8)((1u << count) - 1u), (const void *)src);
}

/* Lane j of a vector of 8 64-bit lanes, as 8 scalars (vmovq/vpextrq). */
AVX512_INLINE void avx512_lanes(__m512i v, uint64_t lane[AVX512_LANES])
{
    const __m128i l01 = _mm512_castsi512_si128(v), l23 = _mm512_extracti64x2_epi64(v, 1);
    const __m128i l45 = _mm512_extracti64x2_epi64(v, 2), l67 = _mm512_extracti64x2_epi64(v, 3);
    lane[0] = (uint64_t)_mm_cvtsi128_si64(l01), lane[1] = (uint64_t)_mm_extract_epi64(l01, 1);
    lane[2] = (uint64_t)_mm_cvtsi128_si64(l23), lane[3] = (uint64_t)_mm_extract_epi64(l23, 1);
    lane[4] = (uint64_t)_mm_cvtsi128_si64(l45), lane[5] = (uint64_t)_mm_extract_epi64(l45, 1);
    lane[6] = (uint64_t)_mm_cvtsi128_si64(l67), lane[7] = (uint64_t)_mm_extract_epi64(l67, 1);
}

/* Hash (unless the input already is hashes) one group, store its hashes and
 * block addresses in its slot, prefetch its blocks, and (with_subset) look up
 * its word subsets, subsets[(lo * nsubsets) >> 32]. Lanes past the end hash a
 * zero and address a real block, so all 8 prefetches and table reads are
 * harmless. with_subset = 0 is the memory floor (touch_u64): choosing words
 * is probe work, and the floor computes only the block index.
 *
 * Addresses and table ranks leave the vector through registers (vmovq,
 * vpextrq), never by reloading lanes of the 512-bit store just made: such a
 * load waits for the store. Against the earlier stage (both reloaded), 600
 * alternating rounds each, contended host, lookups in ns/key: 10^5 keys
 * 3.53 -> 3.11, 10^7 4.10 -> 4.27, 10^8 7.70 -> 7.82 (quiet host, 10^5:
 * 2.64 -> 2.19). Rejected: the subsets gathered with vpgatherqq (no
 * faster), or looked up in scalar code one group before the probe (as fast
 * at 10^5, 4-7% slower at 10^8), or at probe time (a dependent load that
 * missed L1 ~0.4 times per key, cachegrind, while the prefetched blocks
 * streamed through). The empty asm stops gcc from turning the 8 table reads
 * back into a vector build (vmovd/vpinsrw). */
AVX512_INLINE void avx512_stage(const avx512_ctx *c, const uint64_t *src, size_t count, avx512_slot *slot,
                                const int hashed, const int with_subset)
{
    __m512i v = avx512_load_group(src, count);
    __m512i h = hashed ? v : avx512_xxh3(v, c->bitflip);
    __m512i addr = avx512_block_addr(c, h);
    _mm512_store_si512((void *)slot->hash, h);
    _mm512_store_si512((void *)slot->addr, addr);
    uint64_t lane[AVX512_LANES];
    avx512_lanes(addr, lane);
    for (unsigned j = 0; j < AVX512_LANES; j++) avx512_prefetch_far(lane[j]);
    if (!with_subset) return;
    avx512_lanes(_mm512_srli_epi64(_mm512_mul_epu32(h, c->nsubsets), 32), lane);
    for (unsigned j = 0; j < AVX512_LANES; j++) {
        uint64_t select = c->subsets[lane[j]];
        __asm__("" : "+r"(select));
        slot->select[j] = select;
    }
}

/* Lookups of one group. The 8 missing-word masks are packed 4 to a 64-bit
 * mask register (kunpckwd, kunpckdq), moved to one xmm, and a single 16-bit
 * compare against zero gives the 8 answers: ~1.5 instructions per key
 * instead of a per-key test/setcc/shift/or chain. */
AVX512_INLINE __mmask8 avx512_lookup_group(const avx512_ctx *c, const avx512_slot *slot, size_t count,
                                           const int concurrent)
{
    if (count < AVX512_LANES) {
        unsigned hits = 0;
        for (unsigned j = 0; j < count; j++) hits |= (avx512_missing(c, slot, j, concurrent) == 0) << j;
        return (__mmask8)hits;
    }
    __mmask16 m0 = avx512_missing(c, slot, 0, concurrent), m1 = avx512_missing(c, slot, 1, concurrent);
    __mmask16 m2 = avx512_missing(c, slot, 2, concurrent), m3 = avx512_missing(c, slot, 3, concurrent);
    __mmask16 m4 = avx512_missing(c, slot, 4, concurrent), m5 = avx512_missing(c, slot, 5, concurrent);
    __mmask16 m6 = avx512_missing(c, slot, 6, concurrent), m7 = avx512_missing(c, slot, 7, concurrent);
    __mmask64 lo4 = _mm512_kunpackd(_mm512_kunpackw(m3, m2), _mm512_kunpackw(m1, m0));
    __mmask64 hi4 = _mm512_kunpackd(_mm512_kunpackw(m7, m6), _mm512_kunpackw(m5, m4));
    __m128i packed = _mm_set_epi64x((long long)_cvtmask64_u64(hi4), (long long)_cvtmask64_u64(lo4));
    return _mm_cmpeq_epi16_mask(packed, _mm_setzero_si128());
}

/* The whole pipeline. hashed: src holds hashes, not keys. insert: 1 = OR
 * blocks, 0 = test them, 2 = only read the first word of each block (the
 * bench's memory floor, avx512_touch_u64; returns the sum of those words).
 * The constant flags are folded by always_inline, giving
 * one straight-line loop per (hashed, insert, concurrent) combination. */
AVX512_INLINE size_t avx512_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, uint8_t *out,
                                const int hashed, const int insert, const int concurrent)
{
    __attribute__((aligned(64))) avx512_slot ring[AVX512_RING];
    const avx512_ctx ctx = avx512_context(g);
    const size_t groups = (n + AVX512_LANES - 1) / AVX512_LANES;
    __m128i hit_sums = _mm_setzero_si128();
    uint64_t touched = 0;

    for (size_t i = 0; i < groups && i < AVX512_AHEAD_GROUPS; i++)
        avx512_stage(&ctx, src + i * AVX512_LANES, n - i * AVX512_LANES, &ring[i % AVX512_RING], hashed, insert != 2);

    for (size_t i = 0; i < groups; i++) {
        size_t ahead = i + AVX512_AHEAD_GROUPS;
        if (ahead < groups)
            avx512_stage(&ctx, src + ahead * AVX512_LANES, n - ahead * AVX512_LANES, &ring[ahead % AVX512_RING],
                         hashed, insert != 2);
        if (ctx.near && i + AVX512_NEAR_GROUPS < groups)
            avx512_prefetch_near(&ring[(i + AVX512_NEAR_GROUPS) % AVX512_RING]);
        const avx512_slot *slot = &ring[i % AVX512_RING];
        size_t first = i * AVX512_LANES;
        size_t count = n - first < AVX512_LANES ? n - first : AVX512_LANES;
        if (insert == 2) {
            for (unsigned j = 0; j < count; j++) touched += *(const uint64_t *)(uintptr_t)slot->addr[j];
            continue;
        }
        if (insert) {
            for (unsigned j = 0; j < count; j++) avx512_insert_slot(&ctx, slot, j, concurrent);
            continue;
        }
        __mmask8 group_hits = avx512_lookup_group(&ctx, slot, count, concurrent);
        /* 0/1 bytes; their sum (vpsadbw) counts the hits without popcnt */
        __m128i bytes = _mm_maskz_mov_epi8((__mmask16)group_hits, _mm_set1_epi8(1));
        if (out) _mm_mask_storeu_epi8((void *)(out + first), (__mmask16)((1u << count) - 1u), bytes);
        hit_sums = _mm_add_epi64(hit_sums, _mm_sad_epu8(bytes, _mm_setzero_si128()));
    }
    return insert == 2 ? (size_t)touched : (size_t)_mm_cvtsi128_si64(hit_sums);
}

static void avx512_hash_u64(uint64_t bitflip, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    const __m512i flip = _mm512_set1_epi64((long long)bitflip);
    size_t i = 0;
    /* Four independent groups per iteration hide the vpmullq latency. */
    for (; i + 4 * AVX512_LANES <= n; i += 4 * AVX512_LANES) {
        __m512i a = avx512_xxh3(_mm512_loadu_si512((const void *)(keys + i)), flip);
        __m512i b = avx512_xxh3(_mm512_loadu_si512((const void *)(keys + i + 8)), flip);
        __m512i c = avx512_xxh3(_mm512_loadu_si512((const void *)(keys + i + 16)), flip);
        __m512i d = avx512_xxh3(_mm512_loadu_si512((const void *)(keys + i + 24)), flip);
        _mm512_storeu_si512((void *)(hashes + i), a);
        _mm512_storeu_si512((void *)(hashes + i + 8), b);
        _mm512_storeu_si512((void *)(hashes + i + 16), c);
        _mm512_storeu_si512((void *)(hashes + i + 24), d);
    }
    for (; i < n; i += AVX512_LANES) {
        size_t count = n - i;
        __mmask8 m = count >= AVX512_LANES ? (__mmask8)0xff : (__mmask8)((1u << count) - 1u);
        __m512i h = avx512_xxh3(_mm512_maskz_loadu_epi64(m, (const void *)(keys + i)), flip);
        _mm512_mask_storeu_epi64((void *)(hashes + i), m, h);
    }
}

static void avx512_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    if (g->concurrent)
        avx512_run(g, hashes, n, NULL, 1, 1, 1);
    else
        avx512_run(g, hashes, n, NULL, 1, 1, 0);
}

static size_t avx512_contains_hashes_bytes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return g->concurrent ? avx512_run(g, hashes, n, out, 1, 0, 1) : avx512_run(g, hashes, n, out, 1, 0, 0);
}

static void avx512_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    if (g->concurrent)
        avx512_run(g, keys, n, NULL, 0, 1, 1);
    else
        avx512_run(g, keys, n, NULL, 0, 1, 0);
}

static size_t avx512_contains_u64_bytes(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return g->concurrent ? avx512_run(g, keys, n, out, 0, 0, 1) : avx512_run(g, keys, n, out, 0, 0, 0);
}

static uint64_t avx512_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return avx512_run(g, keys, n, NULL, 0, 2, 0);
}

/* dst op= src over whole zmm; a masked tail for nwords % 8. */
AVX512_INLINE void avx512_setop(uint64_t *dst, const uint64_t *src, size_t nwords, const int is_union)
{
    size_t i = 0;
    for (; i + AVX512_LANES <= nwords; i += AVX512_LANES) {
        __m512i a = _mm512_loadu_si512((const void *)(dst + i));
        __m512i b = _mm512_loadu_si512((const void *)(src + i));
        _mm512_storeu_si512((void *)(dst + i), is_union ? _mm512_or_si512(a, b) : _mm512_and_si512(a, b));
    }
    if (i < nwords) {
        __mmask8 m = (__mmask8)((1u << (nwords - i)) - 1u);
        __m512i a = _mm512_maskz_loadu_epi64(m, (const void *)(dst + i));
        __m512i b = _mm512_maskz_loadu_epi64(m, (const void *)(src + i));
        _mm512_mask_storeu_epi64((void *)(dst + i), m, is_union ? _mm512_or_si512(a, b) : _mm512_and_si512(a, b));
    }
}

static void avx512_union_words(uint64_t *dst, const uint64_t *src, size_t nwords) { avx512_setop(dst, src, nwords, 1); }

static void avx512_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    avx512_setop(dst, src, nwords, 0);
}

static size_t avx512_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                                    void *out)
{
    return bloomsimd_hits_via_bytes(avx512_contains_hashes_bytes, g, hashes, n, form, out);
}

static size_t avx512_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                                 void *out)
{
    return bloomsimd_hits_via_bytes(avx512_contains_u64_bytes, g, keys, n, form, out);
}

/* Insert-and-report-new and single keys: the layout's reference code for
 * now (correct on every filter, not yet vectorised). */
static size_t avx512_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, hashes[i]);
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static size_t avx512_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = bloomsimd_scalar_add_new_hash(g, bloomsimd_xxh3_u64(keys[i], g->hash_bitflip));
        if (out) out[i] = is_new;
        fresh += is_new;
    }
    return fresh;
}

static void avx512_add_one(const bloomsimd_geometry *g, uint64_t hash) { bloomsimd_scalar_add_hash(g, hash); }

static int avx512_contains_one(const bloomsimd_geometry *g, uint64_t hash) { return bloomsimd_scalar_contains_hash(g, hash); }

const bloomsimd_kernel bloomsimd_kernel_avx512 = {
    .name = "avx512",
    .required_features = BLOOMSIMD_CPU_AVX512,
    .emulated = false,
    .hash_u64 = avx512_hash_u64,
    .add_hashes = avx512_add_hashes,
    .contains_hashes = avx512_contains_hashes,
    .add_u64 = avx512_add_u64,
    .contains_u64 = avx512_contains_u64,
    .add_new_hashes = avx512_add_new_hashes,
    .add_new_u64 = avx512_add_new_u64,
    .add_one = avx512_add_one,
    .contains_one = avx512_contains_one,
    .touch_u64 = avx512_touch_u64,
    .hash_keys = avx512_hash_keys,
    .union_words = avx512_union_words,
    .intersect_words = avx512_intersect_words,
};
