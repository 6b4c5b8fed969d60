/*
 * avx512.c — the AVX-512 (F+BW+DQ+VL, BMI2) kernel.
 *
 * One 64-byte block is one zmm register of 16 32-bit words, so a key's probe
 * is one 512-bit test (lookup) or OR (insert) against a per-key vector:
 *
 *     prod  = lo * SALT[w]             vpmulld, lo broadcast from the ring
 *     bits  = 1 << (prod >> 27)        vprold 5, then vpermi2d from a table
 *                                      of the 32 powers of two
 *     words = SELECT_k[lo >> 26]       the key's k words
 *
 * bits is computed for all 16 words; the selection is applied where it is
 * free: a lookup stores which of the 16 words have their bit (vptestmd, the
 * mask stored as is) and the answer keeps the selected ones, 8 keys at a
 * time; an insert ORs bits & words in one vpternlogd, words being the key's
 * row of SELECT_k expanded to 16 all-ones/zero words (a 4 KiB table built
 * per call). No key's word mask ever goes through a mask register.
 *
 * Keys go in groups of 8 (one zmm of hashes). Staging a group hashes it,
 * computes its 8 block offsets and looks up its 8 word masks in the 64-entry
 * selection table of this k held in two registers (one vpermi2w, no table
 * load), and stores those vectors in a ring; the group is probed
 * AVX512_AHEAD_GROUPS iterations later, when every per-key operand is a load
 * from a slot whose store has long left the store buffer (a load of part of
 * a fresh 512-bit store is not forwarded and waits). Two iterations after
 * its probe, one compare per group turns the stored masks into 8 answers:
 * an 8-bit mask that is the bitmap byte itself, that pdep spreads into 8
 * answer bytes, and under which vpcompressd packs lane indices into the
 * selection vector.
 *
 * Insert-and-report-new is the insert pipeline plus the found masks, in key
 * order: each key's read of its block sees the previous key's store.
 *
 * Why each piece is the way it is, and what was measured and rejected:
 * docs/kernels/avx512.md.
 *
 * Concurrent filters (g->concurrent):
 *   - inserts OR only the bits still missing, with one `lock or` per 64-bit
 *     word that has any (the same relaxed fetch_or as bloomsimd_block_or, so
 *     filter bytes match scalar exactly); insert-and-report-new uses one
 *     compare-and-swap per such word, seeded with the value just read, and
 *     calls the key new if any swap found a bit missing (as
 *     bloomsimd_block_or_report decides from fetch_or's old value);
 *   - blocks are read with an inline-asm vmovdqa64. The compiler (and TSan)
 *     see no C access, so there is no C data race. The hardware reads every
 *     byte atomically and bits only ever go 0 -> 1: any mix of old and new
 *     bytes a racing read observes is a valid answer ("may or may not see a
 *     concurrent insert"), exactly as with the scalar kernel's relaxed loads.
 */
#include <immintrin.h>

#include "layout.h"
#include "xxh3_keys_avx512.h"
#include "xxh64_u64_avx512.h"

/* pdep (answer bytes) needs BMI2, which every AVX-512 CPU has: the kernel
 * table lists it as required, and CMakeLists.txt compiles this file with
 * -mbmi2 (a pragma would be gcc-only). */

/* Keys per zmm of hashes: one group. */
#define AVX512_LANES 8u

/* Prefetch distance in groups of 8 keys (prefetcht1, into L2: L2 has more
 * miss buffers than L1). 64 keys hides DRAM latency at 10^8 keys; from 32
 * to 256 keys it hardly mattered (docs/kernels/avx512.md). */
#ifndef AVX512_AHEAD_GROUPS
#define AVX512_AHEAD_GROUPS 8u
#endif
/* A group's blocks are prefetched this many groups after it was staged: the
 * addresses are re-read from the ring, and a load of part of a 512-bit store
 * that has not yet left the store buffer cannot be forwarded and waits for
 * it; one group later it has. */
#ifndef AVX512_PREFETCH_LAG
#define AVX512_PREFETCH_LAG 2u
#endif
/* Near prefetch (prefetcht0) this many groups before the probe, on filters
 * of at least AVX512_NEAR_MIN_BYTES: L2 -> L1, so the probe's loads hit L1. */
#ifndef AVX512_NEAR_GROUPS
#define AVX512_NEAR_GROUPS 1u
#endif
#ifndef AVX512_NEAR_MIN_BYTES
#define AVX512_NEAR_MIN_BYTES (UINT64_C(2) << 20)
#endif
/* Filters smaller than this are not prefetched at all: out-of-order
 * execution hides an L2 hit, and 16 instructions per group only cost. */
#ifndef AVX512_FAR_MIN_BYTES
#define AVX512_FAR_MIN_BYTES (UINT64_C(1) << 20)
#endif
/* A group's answers are read back this many groups after its probe, for the
 * same store-forwarding reason as AVX512_PREFETCH_LAG. */
#ifndef AVX512_ANSWER_LAG
#define AVX512_ANSWER_LAG 2u
#endif
/* Ring of staged groups: a power of two larger than every slot in use. */
#ifndef AVX512_RING
#define AVX512_RING 16u
#endif
_Static_assert(AVX512_RING > AVX512_AHEAD_GROUPS + AVX512_ANSWER_LAG && (AVX512_RING & (AVX512_RING - 1)) == 0,
               "ring must be a power of two larger than the groups in flight");
_Static_assert(AVX512_PREFETCH_LAG < AVX512_AHEAD_GROUPS && AVX512_NEAR_GROUPS >= 1 &&
                   AVX512_NEAR_GROUPS < AVX512_AHEAD_GROUPS - AVX512_PREFETCH_LAG,
               "prefetches read slots that are already filled");

#define AVX512_INLINE static inline __attribute__((always_inline))

/* What a pass does with each key (constant-folded by always_inline). */
enum {
    AVX512_LOOKUP = 0,  /* test; answers in the requested form */
    AVX512_INSERT = 1,  /* OR */
    AVX512_ADD_NEW = 2, /* test, then OR; answers as bytes (1 = new) */
    AVX512_TOUCH = 3    /* read one word (the bench's memory floor) */
};
/* Answer forms: the three of kernel.h, plus "count only". */
enum {
    AVX512_BYTES = BLOOMSIMD_HITS_BYTES,
    AVX512_BITMAP = BLOOMSIMD_HITS_BITMAP,
    AVX512_INDICES = BLOOMSIMD_HITS_INDICES,
    AVX512_COUNT = 3
};

/* One group of 8 keys in flight. All but `found` are written by the stage;
 * `found` by the probe. Each is read back from memory only after its store
 * has left the store buffer (the lags above). */
typedef struct avx512_slot {
    uint64_t hash[AVX512_LANES];   /* lo = the low 32 bits of each */
    uint64_t offset[AVX512_LANES]; /* byte offset of each key's block */
    uint64_t select[AVX512_LANES]; /* low 16 bits: SELECT_k[lo >> 26] (lookups) */
    uint64_t mask_at[AVX512_LANES]; /* 64 * (lo >> 26): the key's row of the word-mask table (inserts) */
    uint64_t found[AVX512_LANES];  /* low 16 bits: the words whose bit is set */
} avx512_slot;

/* Per-call constants kept in registers. */
typedef struct avx512_ctx {
    __m512i bitflip;    /* XXH3 seed constant, every lane */
    __m512i nblocks_lo; /* low 32 bits of nblocks (vpmuludq reads 32 bits) */
    __m512i full;       /* high-half mask iff nblocks == 2^32 (see avx512_block_offset) */
    __m512i salts;
    __m512i pow2_lo, pow2_hi;     /* 1 << i, i = 0..31: the vpermi2d table */
    __m512i select_lo, select_hi; /* SELECT_k, 64 x 16 bits: the vpermi2w table */
    const char *base;             /* g->words */
    const char *word_masks;       /* inserts: SELECT_k as 64 rows of 16 all-ones/zero words */
    bool far, near;               /* prefetch into L2 / also into L1 (by filter size) */
} avx512_ctx;

static const uint32_t avx512_salts[16] __attribute__((aligned(64))) = BLOOMSIMD_SALTS;

static const uint32_t avx512_pow2[32] __attribute__((aligned(64))) = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,  1u << 8,  1u << 9,  1u << 10,
    1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21,
    1u << 22, 1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

/* Hit counts of the 256 group masks (no popcnt: not implied by the features
 * the dispatcher checks). */
static const uint8_t avx512_popcount8[256] = {
#define AVX512_P2(n) n, n + 1, n + 1, n + 2
#define AVX512_P4(n) AVX512_P2(n), AVX512_P2(n + 1), AVX512_P2(n + 1), AVX512_P2(n + 2)
#define AVX512_P6(n) AVX512_P4(n), AVX512_P4(n + 1), AVX512_P4(n + 1), AVX512_P4(n + 2)
    AVX512_P6(0), AVX512_P6(1), AVX512_P6(1), AVX512_P6(2)
#undef AVX512_P2
#undef AVX512_P4
#undef AVX512_P6
};

AVX512_INLINE avx512_ctx avx512_context(const bloomsimd_geometry *g)
{
    avx512_ctx c;
    c.bitflip = _mm512_set1_epi64((long long)g->hash_bitflip);
    c.nblocks_lo = _mm512_set1_epi64((long long)(g->nblocks & 0xffffffffu));
    c.full = _mm512_set1_epi64(g->nblocks >> 32 ? (long long)UINT64_C(0xffffffff00000000) : 0);
    c.salts = _mm512_load_si512((const void *)avx512_salts);
    c.pow2_lo = _mm512_load_si512((const void *)avx512_pow2);
    c.pow2_hi = _mm512_load_si512((const void *)(avx512_pow2 + 16));
    c.select_lo = _mm512_loadu_si512((const void *)g->select);
    c.select_hi = _mm512_loadu_si512((const void *)(g->select + 32));
    c.base = (const char *)g->words;
    c.word_masks = NULL;
    c.far = g->nblocks * 64u >= AVX512_FAR_MIN_BYTES;
    c.near = g->nblocks * 64u >= AVX512_NEAR_MIN_BYTES;
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

/* Byte offset of each lane's block: 64 * (((h >> 32) * nblocks) >> 32).
 * vpmuludq multiplies the low 32 bits of each lane, so hi is moved there
 * (vpshufd) and the product hi * (nblocks mod 2^32) is exact; for nblocks =
 * 2^32 that is 0 and the missing hi * 2^32 is h's high half itself (`full`).
 * ((p >> 32) << 6) = (p >> 26) with the low 6 bits cleared. */
AVX512_INLINE __m512i avx512_block_offset(const avx512_ctx *c, __m512i h)
{
    __m512i p = _mm512_mul_epu32(_mm512_shuffle_epi32(h, _MM_PERM_DDBB), c->nblocks_lo);
    p = _mm512_add_epi64(p, _mm512_and_si512(h, c->full));
    return _mm512_and_si512(_mm512_srli_epi64(p, 26), _mm512_set1_epi64(~INT64_C(63)));
}

/* A block read that is not a C access (see the file comment). */
AVX512_INLINE __m512i avx512_load_racy(const uint32_t *block)
{
    __m512i v;
    __asm__("vmovdqa64 %1, %0" : "=v"(v) : "m"(*(const __m512i *)(const void *)block));
    return v;
}

/* Key j's bit for each of the 16 words, before word selection: the probe
 * tests all 16 and the answer keeps the selected ones (lookups), or the
 * word-mask row drops the others in the same operation as the OR (inserts),
 * so no key's word mask has to reach a mask register (kmovw from memory
 * costs a port-5 uop, as vpermi2d and vptestmd do). */
AVX512_INLINE __m512i avx512_key_bits(const avx512_ctx *c, const avx512_slot *slot, unsigned j)
{
    const uint32_t *lo = (const uint32_t *)(const void *)&slot->hash[j]; /* little-endian: the low half */
    __m512i prod = _mm512_mullo_epi32(_mm512_set1_epi32((int)*lo), c->salts);
    return _mm512_permutex2var_epi32(c->pow2_lo, _mm512_rol_epi32(prod, 5), c->pow2_hi);
}

/* Key j's word-mask row (all-ones in its k words). */
AVX512_INLINE __m512i avx512_key_words(const avx512_ctx *c, const avx512_slot *slot, unsigned j)
{
    return _mm512_load_si512((const void *)(c->word_masks + slot->mask_at[j]));
}

AVX512_INLINE uint32_t *avx512_block_of(const avx512_ctx *c, const avx512_slot *slot, unsigned j)
{
    return (uint32_t *)(void *)(c->base + slot->offset[j]);
}

AVX512_INLINE void avx512_store_found(avx512_slot *slot, unsigned j, __mmask16 found)
{
    _store_mask16((__mmask16 *)(void *)&slot->found[j], found);
}

/* Lookup of key j: which of the 16 words have its bit, into slot->found. */
AVX512_INLINE void avx512_lookup_key(const avx512_ctx *c, avx512_slot *slot, unsigned j, const int concurrent)
{
    __m512i bits = avx512_key_bits(c, slot, j);
    const uint32_t *block = avx512_block_of(c, slot, j);
    __m512i v = concurrent ? avx512_load_racy(block) : _mm512_load_si512((const void *)block);
    avx512_store_found(slot, j, _mm512_test_epi32_mask(bits, v));
}

/* Concurrent OR of `bits` into a block read as `old`: one locked operation per
 * 64-bit word that still lacks a bit. report: compare-and-swap instead, and
 * return 1 if some word lacked a bit when this thread's swap landed. */
AVX512_INLINE unsigned avx512_or_atomic(uint32_t *block, __m512i old, __m512i bits, const int report)
{
    __m512i missing = _mm512_andnot_si512(old, bits);
    unsigned words = _mm512_test_epi64_mask(missing, missing);
    if (!words) return 0;
    uint64_t m[8], seen[8];
    _mm512_storeu_si512((void *)m, missing);
    if (report) _mm512_storeu_si512((void *)seen, old);
    uint64_t *block64 = (uint64_t *)(void *)block;
    unsigned fresh = 0;
    for (; words; words &= words - 1) {
        unsigned i = (unsigned)__builtin_ctz(words);
        if (!report) {
            __atomic_fetch_or(&block64[i], m[i], __ATOMIC_RELAXED);
            continue;
        }
        /* exp = the value this word had; on failure it becomes the current
         * one, and once that has all of m[i] someone else set them. */
        uint64_t exp = seen[i];
        while (!__atomic_compare_exchange_n(&block64[i], &exp, exp | m[i], false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
            if ((exp & m[i]) == m[i]) goto next;
        fresh = 1;
    next:;
    }
    return fresh;
}

/* OR key j into its block. With report (insert-and-report-new), slot->found
 * says which words already had their bit; a concurrent insert reports all
 * 16 (not new) or none (new), as its atomic operations decided. */
AVX512_INLINE void avx512_insert_key(const avx512_ctx *c, avx512_slot *slot, unsigned j, const int concurrent,
                                     const int report)
{
    __m512i bits = avx512_key_bits(c, slot, j);
    uint32_t *block = avx512_block_of(c, slot, j);
    if (concurrent) {
        __m512i selected = _mm512_and_si512(bits, avx512_key_words(c, slot, j));
        unsigned fresh = avx512_or_atomic(block, avx512_load_racy(block), selected, report);
        if (report) avx512_store_found(slot, j, fresh ? 0 : 0xffff);
        return;
    }
    __m512i v = _mm512_load_si512((const void *)block);
    if (report) avx512_store_found(slot, j, _mm512_test_epi32_mask(bits, v));
    /* 0xF8: v | (bits & words) */
    _mm512_store_si512((void *)block, _mm512_ternarylogic_epi32(v, bits, avx512_key_words(c, slot, j), 0xF8));
}

/* Lanes [0, count) of a group starting at src. Masked loads never touch
 * memory outside the mask, so tails and unaligned arrays are exact. */
AVX512_INLINE __m512i avx512_load_group(const uint64_t *src, size_t count)
{
    if (count >= AVX512_LANES) return _mm512_loadu_si512((const void *)src);
    return _mm512_maskz_loadu_epi64((__mmask8)((1u << count) - 1u), (const void *)src);
}

/* Hash (unless src already holds hashes) one group and fill its slot. Lanes
 * past the end hash a zero and address a real block. The floor (touch) needs
 * only the offsets: choosing words is probe work. */
AVX512_INLINE void avx512_stage(const avx512_ctx *c, const uint64_t *src, size_t count, avx512_slot *slot,
                                const int hashed, const int op)
{
    if (!hashed && count == AVX512_LANES) bloomsimd_prefetch_keys_ahead(src);
    __m512i v = avx512_load_group(src, count);
    __m512i h = hashed ? v : avx512_xxh3(v, c->bitflip);
    _mm512_store_si512((void *)slot->offset, avx512_block_offset(c, h));
    if (op == AVX512_TOUCH) return;
    _mm512_store_si512((void *)slot->hash, h);
    /* index = bits 26..31 of each lane (vpermi2w reads 6 index bits) */
    if (op == AVX512_LOOKUP || op == AVX512_ADD_NEW)
        _mm512_store_si512((void *)slot->select,
                           _mm512_permutex2var_epi16(c->select_lo, _mm512_srli_epi64(h, 26), c->select_hi));
    /* 64 * index = bits 26..31 moved to 6..11 */
    if (op == AVX512_INSERT || op == AVX512_ADD_NEW)
        _mm512_store_si512((void *)slot->mask_at,
                           _mm512_and_si512(_mm512_srli_epi64(h, 20), _mm512_set1_epi64(63 << 6)));
}

AVX512_INLINE void avx512_prefetch(const avx512_ctx *c, const avx512_slot *slot, const int near)
{
    /* the hint must be a compile-time constant (clang checks), hence two loops */
    if (near)
        for (unsigned j = 0; j < AVX512_LANES; j++) _mm_prefetch(c->base + slot->offset[j], _MM_HINT_T0);
    else
        for (unsigned j = 0; j < AVX512_LANES; j++) _mm_prefetch(c->base + slot->offset[j], _MM_HINT_T1);
}

/* Probes one group of `count` keys. */
AVX512_INLINE void avx512_probe(const avx512_ctx *c, avx512_slot *slot, size_t count, const int op,
                                const int concurrent)
{
    if (count == AVX512_LANES) {
        for (unsigned j = 0; j < AVX512_LANES; j++) {
            if (op == AVX512_LOOKUP)
                avx512_lookup_key(c, slot, j, concurrent);
            else
                avx512_insert_key(c, slot, j, concurrent, op == AVX512_ADD_NEW);
        }
        return;
    }
    for (unsigned j = 0; j < count; j++) {
        if (op == AVX512_LOOKUP)
            avx512_lookup_key(c, slot, j, concurrent);
        else
            avx512_insert_key(c, slot, j, concurrent, op == AVX512_ADD_NEW);
    }
}

/* A probed group's answer mask (bit j = every selected word of key j has
 * its bit; for insert-and-report-new, 1 = new), `count` keys. */
AVX512_INLINE unsigned avx512_answers(const avx512_slot *slot, size_t count, const int op)
{
    __m512i lacking = _mm512_ternarylogic_epi64(_mm512_load_si512((const void *)slot->found),
                                                _mm512_load_si512((const void *)slot->select),
                                                _mm512_set1_epi64(0xffff), 0x08); /* ~a & b & c */
    __mmask8 hit = _mm512_testn_epi64_mask(lacking, lacking);
    unsigned mask = op == AVX512_ADD_NEW ? (unsigned)(__mmask8)~hit : (unsigned)hit;
    return mask & ((1u << count) - 1u);
}

/* Writes a group's answers (`count` keys starting at key `first` of `n`) in
 * `form`; returns how many are set. */
AVX512_INLINE size_t avx512_put(unsigned mask, size_t first, size_t count, size_t n, size_t hits, void *out,
                                const int form)
{
    size_t nhits = avx512_popcount8[mask];
    if (form == AVX512_BYTES) {
        uint64_t bytes = _pdep_u64(mask, UINT64_C(0x0101010101010101));
        if (count == AVX512_LANES)
            memcpy((uint8_t *)out + first, &bytes, 8);
        else
            memcpy((uint8_t *)out + first, &bytes, count);
    } else if (form == AVX512_BITMAP) {
        ((uint8_t *)out)[first / AVX512_LANES] = (uint8_t)mask;
    } else if (form == AVX512_INDICES) {
        __m256i index = _mm256_add_epi32(_mm256_set1_epi32((int)first), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256i packed = _mm256_maskz_compress_epi32((__mmask8)mask, index);
        uint32_t *dst = (uint32_t *)out + hits;
        /* a whole-vector store stays inside out[0 .. n) while hits + 8 <= n;
         * near the end only the packed indices are written */
        if (hits + AVX512_LANES <= n)
            _mm256_storeu_si256((__m256i *)(void *)dst, packed);
        else
            _mm256_mask_storeu_epi32((void *)dst, (__mmask8)((1u << nhits) - 1u), packed);
    }
    return nhits;
}

/* One iteration of the pipeline: stage group i + AHEAD, prefetch the group
 * staged PREFETCH_LAG iterations ago (and move group i + NEAR into L1),
 * probe group i, write the answers of group i - ANSWER_LAG. `steady` (a
 * constant) promises that all of those groups exist and are full, so the
 * steady-state loop carries no bounds checks. */
typedef struct avx512_pass {
    avx512_slot *ring;
    const uint64_t *src;
    size_t n, groups;
    void *out;
    size_t total;
    uint64_t touched;
} avx512_pass;

AVX512_INLINE void avx512_iteration(const avx512_ctx *c, avx512_pass *p, size_t i, const int steady,
                                    const int hashed, const int op, const int form, const int concurrent)
{
    const int answers = op == AVX512_LOOKUP || op == AVX512_ADD_NEW;
    avx512_slot *ring = p->ring;
    if (steady || i < p->groups) {
        size_t ahead = i + AVX512_AHEAD_GROUPS;
        if (steady || ahead < p->groups)
            avx512_stage(c, p->src + ahead * AVX512_LANES, steady ? AVX512_LANES : p->n - ahead * AVX512_LANES,
                         &ring[ahead % AVX512_RING], hashed, op);
        if (c->far && (steady || ahead - AVX512_PREFETCH_LAG < p->groups))
            avx512_prefetch(c, &ring[(ahead - AVX512_PREFETCH_LAG) % AVX512_RING], 0);
        if (c->near && (steady || i + AVX512_NEAR_GROUPS < p->groups))
            avx512_prefetch(c, &ring[(i + AVX512_NEAR_GROUPS) % AVX512_RING], 1);
        avx512_slot *slot = &ring[i % AVX512_RING];
        size_t count = steady || p->n - i * AVX512_LANES >= AVX512_LANES ? AVX512_LANES : p->n - i * AVX512_LANES;
        if (op == AVX512_TOUCH)
            for (unsigned j = 0; j < count; j++) p->touched += *(const uint64_t *)(c->base + slot->offset[j]);
        else
            avx512_probe(c, slot, count, op, concurrent);
    }
    if (!answers || (!steady && i < AVX512_ANSWER_LAG)) return;
    size_t done = i - AVX512_ANSWER_LAG;
    size_t first = done * AVX512_LANES;
    size_t count = steady || p->n - first >= AVX512_LANES ? AVX512_LANES : p->n - first;
    unsigned mask = avx512_answers(&ring[done % AVX512_RING], count, op);
    p->total += avx512_put(mask, first, count, p->n, p->total, p->out, form);
}

/* The whole pipeline; the constant flags are folded by always_inline, giving
 * one loop per (hashed, op, form, concurrent). Returns the count of hits
 * (lookups) or new keys (insert-and-report-new), or the sum of the words
 * read (touch). */
AVX512_INLINE size_t avx512_run(const bloomsimd_geometry *g, const uint64_t *src, size_t n, void *out,
                                const int hashed, const int op, const int form, const int concurrent)
{
    __attribute__((aligned(64))) avx512_slot ring[AVX512_RING];
    /* inserts: SELECT_k expanded to 64 rows of 16 words (4 KiB, ~64 cycles
     * to build: vpmovm2d of each mask) */
    __attribute__((aligned(64))) uint32_t word_masks[(op == AVX512_INSERT || op == AVX512_ADD_NEW) ? 64 * 16 : 1];
    avx512_ctx ctx = avx512_context(g);
    if (op == AVX512_INSERT || op == AVX512_ADD_NEW) {
        for (unsigned e = 0; e < BLOOMSIMD_SELECT_ENTRIES; e++)
            _mm512_store_si512((void *)(word_masks + 16 * e), _mm512_movm_epi32((__mmask16)g->select[e]));
        ctx.word_masks = (const char *)word_masks;
    }
    const int answers = op == AVX512_LOOKUP || op == AVX512_ADD_NEW;
    avx512_pass p = {ring, src, n, (n + AVX512_LANES - 1) / AVX512_LANES, out, 0, 0};
    const size_t full = n / AVX512_LANES;
    /* iterations in [ANSWER_LAG, steady_end) stage, probe and answer full groups */
    const size_t steady_end = full > AVX512_AHEAD_GROUPS ? full - AVX512_AHEAD_GROUPS : 0;
    const size_t steady_begin = AVX512_ANSWER_LAG < steady_end ? AVX512_ANSWER_LAG : steady_end;
    const size_t end = p.groups + (answers ? AVX512_ANSWER_LAG : 0);

    for (size_t i = 0; i < p.groups && i < AVX512_AHEAD_GROUPS; i++) {
        avx512_stage(&ctx, src + i * AVX512_LANES, n - i * AVX512_LANES, &ring[i % AVX512_RING], hashed, op);
        if (ctx.far && i >= AVX512_PREFETCH_LAG)
            avx512_prefetch(&ctx, &ring[(i - AVX512_PREFETCH_LAG) % AVX512_RING], 0);
    }
    size_t i = 0;
    for (; i < steady_begin; i++) avx512_iteration(&ctx, &p, i, 0, hashed, op, form, concurrent);
    for (; i < steady_end; i++) avx512_iteration(&ctx, &p, i, 1, hashed, op, form, concurrent);
    for (; i < end; i++) avx512_iteration(&ctx, &p, i, 0, hashed, op, form, concurrent);
    return op == AVX512_TOUCH ? (size_t)p.touched : p.total;
}

/* ---- entries ----------------------------------------------------------- */

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

/* Each (hashed, op, form, concurrent) is its own loop. */
#define AVX512_BOTH(g, src, n, out, hashed, op, form)                                                               \
    ((g)->concurrent ? avx512_run(g, src, n, out, hashed, op, form, 1) : avx512_run(g, src, n, out, hashed, op, form, 0))

AVX512_INLINE size_t avx512_lookup(const bloomsimd_geometry *g, const uint64_t *src, size_t n,
                                   bloomsimd_hit_form form, void *out, const int hashed)
{
    if (!out) return AVX512_BOTH(g, src, n, out, hashed, AVX512_LOOKUP, AVX512_COUNT);
    if (form == BLOOMSIMD_HITS_BITMAP) return AVX512_BOTH(g, src, n, out, hashed, AVX512_LOOKUP, AVX512_BITMAP);
    if (form == BLOOMSIMD_HITS_INDICES) return AVX512_BOTH(g, src, n, out, hashed, AVX512_LOOKUP, AVX512_INDICES);
    return AVX512_BOTH(g, src, n, out, hashed, AVX512_LOOKUP, AVX512_BYTES);
}

static size_t avx512_contains_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n,
                                     bloomsimd_hit_form form, void *out)
{
    return avx512_lookup(g, hashes, n, form, out, 1);
}

static size_t avx512_contains_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n,
                                  bloomsimd_hit_form form, void *out)
{
    return avx512_lookup(g, keys, n, form, out, 0);
}

static void avx512_add_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    AVX512_BOTH(g, hashes, n, NULL, 1, AVX512_INSERT, AVX512_COUNT);
}

static void avx512_add_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    AVX512_BOTH(g, keys, n, NULL, 0, AVX512_INSERT, AVX512_COUNT);
}

static size_t avx512_add_new_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out)
{
    return out ? AVX512_BOTH(g, hashes, n, out, 1, AVX512_ADD_NEW, AVX512_BYTES)
               : AVX512_BOTH(g, hashes, n, out, 1, AVX512_ADD_NEW, AVX512_COUNT);
}

static size_t avx512_add_new_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out)
{
    return out ? AVX512_BOTH(g, keys, n, out, 0, AVX512_ADD_NEW, AVX512_BYTES)
               : AVX512_BOTH(g, keys, n, out, 0, AVX512_ADD_NEW, AVX512_COUNT);
}

static uint64_t avx512_touch_u64(const bloomsimd_geometry *g, const uint64_t *keys, size_t n)
{
    return avx512_run(g, keys, n, NULL, 0, AVX512_TOUCH, AVX512_COUNT, 0);
}

static uint64_t avx512_touch_hashes(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n)
{
    return avx512_run(g, hashes, n, NULL, 1, AVX512_TOUCH, AVX512_COUNT, 0);
}

/* ---- single keys ------------------------------------------------------- */

/* The probe of one key, hash given: block index in scalar code (a 64-bit
 * product covers nblocks = 2^32), the key's word mask loaded straight into a
 * mask register from the table, and the bits as in the batch loop but with a
 * shift pair instead of the table permute (no 128 bytes of table to load). */
AVX512_INLINE __m512i avx512_one_bits(uint64_t hash, __mmask16 words)
{
    __m512i prod = _mm512_mullo_epi32(_mm512_set1_epi32((int)(uint32_t)hash),
                                      _mm512_load_si512((const void *)avx512_salts));
    return _mm512_maskz_sllv_epi32(words, _mm512_set1_epi32(1), _mm512_srli_epi32(prod, 27));
}

AVX512_INLINE __mmask16 avx512_one_words(const bloomsimd_geometry *g, uint64_t hash)
{
    __mmask16 m;
    __asm__("kmovw %1, %0" : "=k"(m) : "m"(g->select[(uint32_t)hash >> BLOOMSIMD_SELECT_SHIFT]));
    return m;
}

static void avx512_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    __mmask16 words = avx512_one_words(g, hash);
    __m512i bits = avx512_one_bits(hash, words);
    uint32_t *block = bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
    if (g->concurrent) {
        avx512_or_atomic(block, avx512_load_racy(block), bits, 0);
        return;
    }
    _mm512_store_si512((void *)block, _mm512_or_si512(_mm512_load_si512((const void *)block), bits));
}

static bool avx512_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    __mmask16 words = avx512_one_words(g, hash);
    __m512i bits = avx512_one_bits(hash, words);
    /* the racy read on plain filters too: the same instruction, and no
     * branch on g->concurrent in the one call users make per key */
    __m512i v = avx512_load_racy(bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks)));
    return _ktestc_mask16_u8(_mm512_mask_test_epi32_mask(words, bits, v), words);
}

AVX512_INLINE bool avx512_add_new_one(const bloomsimd_geometry *g, uint64_t hash)
{
    __m512i bits = avx512_one_bits(hash, avx512_one_words(g, hash));
    uint32_t *block = bloomsimd_block_ptr(g, bloomsimd_block_index(hash, g->nblocks));
    if (g->concurrent) return avx512_or_atomic(block, avx512_load_racy(block), bits, 1) != 0;
    __m512i v = _mm512_load_si512((const void *)block);
    _mm512_store_si512((void *)block, _mm512_or_si512(v, bits));
    __m512i missing = _mm512_andnot_si512(v, bits);
    return _mm512_test_epi32_mask(missing, missing) != 0;
}

/* ---- set operations ---------------------------------------------------- */

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

/* ---- split256 -----------------------------------------------------------------
 *
 * kernels/layout_split256.h: a block is one ymm with one bit in each of its
 * 8 words, so a key's mask needs no selection:
 *   mask     = 1 << ((lo * SALT) >> 27)      vpmulld, vpsrld, vpsllvd (ymm)
 *   lookup   hit = (mask & ~block) == 0      vptest (single keys); a group
 *                                            of 8: two blocks per zmm,
 *                                            vptestnmd (split256_simd_test8)
 *   insert   block |= mask                   (concurrent: split256_loop.h's
 *                                            lock-or per 64-bit word lacking
 *                                            bits, lock bts for insert-new)
 * Batches run kernels/split256_loop.h's pipeline; staging hashes a group
 * of 8 keys in one zmm (avx512_xxh3) and computes the 8 block addresses
 * there. Blocks are read with an inline-asm vmovdqa64 (as avx512_load_racy).
 * Rejected: batched lookups one ymm per key (vpandn, two pack levels, a
 * compare, as the avx2 kernel): 5-10% slower at 10^5-10^6 keys, equal at
 * 10^7 (docs/kernels/split256.md).
 */

#include "split256_scalar.h" /* BLOOMSIMD_BY_LAYOUT */
#include "split256_loop.h"

static const uint32_t avx512_split256_salts[8] __attribute__((aligned(32))) = BLOOMSIMD_SPLIT256_SALTS;

AVX512_INLINE __m256i avx512_split256_mask(uint32_t lo)
{
    const __m256i salt = _mm256_load_si256((const __m256i *)(const void *)avx512_split256_salts);
    __m256i c = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((int)lo), salt), 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), c);
}

AVX512_INLINE __m256i avx512_split256_load_racy(const char *block)
{
    __m256i v;
    __asm__("vmovdqa64 %1, %0" : "=v"(v) : "m"(*(const __m256i *)(const void *)block));
    return v;
}

AVX512_INLINE uint8_t split256_simd_test(uint64_t hash, const char *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    return (uint8_t)_mm256_testc_si256(avx512_split256_load_racy(block), avx512_split256_mask((uint32_t)hash));
}

/* Blocks a and b as the two halves of one zmm, read as avx512_load_racy reads. */
AVX512_INLINE __m512i avx512_split256_load2_racy(const char *a, const char *b)
{
    __m512i v;
    __asm__("vmovdqa64 %1, %t0\n\tvinserti64x4 $1, %2, %0, %0"
            : "=&v"(v)
            : "m"(*(const __m256i *)(const void *)a), "m"(*(const __m256i *)(const void *)b));
    return v;
}

/*
 * A group of 8 keys, two blocks per zmm: lanes 0-7 key 2p, lanes 8-15 key
 * 2p + 1, their lo words dealt from the group's hashes by one vpermd, so a
 * vpmulld, shifts and a vptestnmd (the words lacking their bit) serve two
 * keys. Key j is present iff byte j of the four 16-bit masks is zero; the
 * SWAR step sets the top bit of exactly the zero bytes, pext gathers them.
 * Only lookups pair blocks: two keys of a pair may share a block, which an
 * insert written back per zmm would lose.
 */
AVX512_INLINE unsigned split256_simd_test8(const uint64_t *hash, const uint64_t *block, const int concurrent)
{
    (void)concurrent; /* blocks are read by inline asm on every filter */
    const __m512i h = _mm512_load_si512((const void *)hash);
    const __m256i salt8 = _mm256_load_si256((const __m256i *)(const void *)avx512_split256_salts);
    const __m512i salt = _mm512_broadcast_i64x4(salt8);
    const __m512i deal = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2);
    uint64_t missing = 0;
    for (unsigned p = 0; p < 4; p++) {
        __m512i lo = _mm512_permutexvar_epi32(_mm512_add_epi32(deal, _mm512_set1_epi32((int)(4 * p))), h);
        __m512i bits = _mm512_sllv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(_mm512_mullo_epi32(lo, salt), 27));
        __m512i words = avx512_split256_load2_racy((const char *)(uintptr_t)block[2 * p],
                                                   (const char *)(uintptr_t)block[2 * p + 1]);
        missing |= (uint64_t)_mm512_testn_epi32_mask(words, bits) << (16 * p);
    }
    const uint64_t low7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    uint64_t zero = ~(((missing & low7) + low7) | missing | low7);
    return (unsigned)_pext_u64(zero, UINT64_C(0x8080808080808080));
}

AVX512_INLINE void split256_simd_or(char *block, uint64_t hash, const int concurrent)
{
    __m256i mask = avx512_split256_mask((uint32_t)hash);
    if (concurrent) {
        _Alignas(32) uint64_t missing[4];
        _mm256_store_si256((__m256i *)(void *)missing, _mm256_andnot_si256(avx512_split256_load_racy(block), mask));
        split256_loop_or_atomic(block, missing);
        return;
    }
    __m256i *b = (__m256i *)(void *)block;
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), mask));
}

AVX512_INLINE uint8_t split256_simd_or_report(char *block, uint64_t hash, const int concurrent)
{
    __m256i mask = avx512_split256_mask((uint32_t)hash);
    if (concurrent) {
        _Alignas(32) uint32_t missing[8];
        _mm256_store_si256((__m256i *)(void *)missing, _mm256_andnot_si256(avx512_split256_load_racy(block), mask));
        return split256_loop_or_report_atomic(block, missing);
    }
    __m256i *b = (__m256i *)(void *)block;
    __m256i old = _mm256_load_si256(b);
    _mm256_store_si256(b, _mm256_or_si256(old, mask));
    return (uint8_t)!_mm256_testc_si256(old, mask);
}

/* 8 hashes in one zmm; block addresses base + ((h >> 32) * nblocks >> 32) * 32
 * (nblocks = 2^32: the product's high half is h >> 32 itself, `full`). */
AVX512_INLINE void split256_simd_stage8(const split256_ctx *c, const uint64_t *src, uint64_t *hash, uint64_t *block,
                                        const int from_keys)
{
    __m512i h = _mm512_loadu_si512((const void *)src);
    if (from_keys) h = avx512_xxh3(h, _mm512_set1_epi64((long long)c->bitflip));
    __m512i hi = _mm512_srli_epi64(h, 32);
    const __m512i nblocks = _mm512_set1_epi64((long long)c->nblocks);
    __m512i index = c->full ? hi : _mm512_srli_epi64(_mm512_mul_epu32(hi, nblocks), 32);
    _mm512_store_si512((void *)hash, h);
    _mm512_store_si512((void *)block,
                       _mm512_add_epi64(_mm512_slli_epi64(index, 5), _mm512_set1_epi64((long long)(uintptr_t)c->base)));
}

AVX512_INLINE char *avx512_split256_block(const bloomsimd_geometry *g, uint64_t hash)
{
    return (char *)(void *)g->words + bloomsimd_split256_block_index(hash, g->nblocks) * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
}

static bool split256_simd_contains_one(const bloomsimd_geometry *g, uint64_t hash)
{
    return split256_simd_test(hash, avx512_split256_block(g, hash), 0);
}

static void split256_simd_add_one(const bloomsimd_geometry *g, uint64_t hash)
{
    if (g->concurrent)
        split256_simd_or(avx512_split256_block(g, hash), hash, 1);
    else
        split256_simd_or(avx512_split256_block(g, hash), hash, 0);
}

BLOOMSIMD_BY_LAYOUT(avx512, split256_simd)
#include "single_key.h"
BLOOMSIMD_SINGLE_KEY(avx512, split256_simd)
BLOOMSIMD_BY_LAYOUT_TOUCH(avx512, split256_simd)

/* Parquet's XXH64 of a fixed-width view of 4-, 8- or 16-byte keys (xxh64_u64_avx512.h). */
static bool avx512_xxh64_keys(const bloomsimd_keys *v, size_t first, size_t count, uint64_t *hashes)
{
    if (v->layout != BLOOMSIMD_KEYS_FIXED || !v->data) return false;
    return avx512_xxh64_fixed((const uint8_t *)v->data + first * v->width, v->width, count, hashes);
}

const bloomsimd_kernel bloomsimd_kernel_avx512 = {
    .name = "avx512",
    .required_features = BLOOMSIMD_CPU_AVX512 | BLOOMSIMD_CPU_BMI2,
    .emulated = false,
    .default_layout = BLOOMSIMD_LAYOUT_SPLIT256, /* docs/kernels/default-layout.md */
    .hash_u64 = avx512_hash_u64,
    .add_hashes = avx512_by_layout_add_hashes,
    .contains_hashes = avx512_by_layout_contains_hashes,
    .add_u64 = avx512_by_layout_add_u64,
    .contains_u64 = avx512_by_layout_contains_u64,
    .add_new_hashes = avx512_by_layout_add_new_hashes,
    .add_new_u64 = avx512_by_layout_add_new_u64,
    .add_one = avx512_by_layout_add_one,
    .contains_one = avx512_by_layout_contains_one,
    .single = BLOOMSIMD_SINGLE_KEY_ENTRIES(avx512),
    .touch_u64 = avx512_by_layout_touch_u64,
    .touch_hashes = avx512_by_layout_touch_hashes,
    .hash_keys = avx512_hash_keys,
    .hash_u64_parquet = avx512_xxh64_u64,
    .hash_keys_parquet = avx512_xxh64_keys,
    .union_words = avx512_union_words,
    .intersect_words = avx512_intersect_words,
};
