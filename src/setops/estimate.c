/*
 * estimate.c — bit occupancy: fill ratio and the estimated number of keys.
 *
 * Estimator (derivation, variance and measured error: docs/ESTIMATES.md).
 * With m blocks there are B = 512 m bits. A key sets exactly k bits, one in
 * each of k distinct words of one block; every bit of the array is one of
 * them with probability p = (1/m) (k/16) (1/32) = k / B. Keys hash
 * independently, so after n distinct keys a given bit is still clear with
 * probability (1 - p)^n, and the number X of set bits has
 *     E[X] = B (1 - (1 - p)^n)              (exact, by linearity)
 * Solving for n at the observed X:
 *     n^ = ln(1 - X/B) / ln(1 - k/B)
 * The logarithms are taken with log1p so that a nearly empty filter of 2^41
 * bits keeps full precision. X = 0 gives 0; X = B (no clear bit left, no
 * information about n) gives +infinity.
 *
 * Code outside kernels/ has baseline flags, so the popcount is portable SWAR
 * arithmetic rather than the popcnt instruction; docs/ESTIMATES.md gives its
 * measured speed against a plain read of the array.
 */
#include "../baseline.h"

#include <math.h>
#include <stdbool.h>

#include "../internal.h"
#include "../layers/layers.h"

#define SWAR_M1 UINT64_C(0x5555555555555555)
#define SWAR_M2 UINT64_C(0x3333333333333333)
#define SWAR_M4 UINT64_C(0x0f0f0f0f0f0f0f0f)
#define SWAR_M8 UINT64_C(0x00ff00ff00ff00ff)

/* Word i of the array; concurrent filters are read with relaxed atomic
 * loads so that counting while other threads insert is defined. */
static inline uint64_t load_word(const uint64_t *w, size_t i, bool concurrent)
{
    return concurrent ? __atomic_load_n(&w[i], __ATOMIC_RELAXED) : w[i];
}

/*
 * Bits set in w[0..n), n even. Per pair of words: 2-bit field counts of each
 * word, summed into one word of 4-bit fields (each <= 8), folded into 8-bit
 * fields that accumulate over up to 15 pairs (15 * 16 = 240 < 256); one
 * horizontal sum per 15 pairs. About 1.5x faster than counting word by
 * word with a multiply each (docs/ESTIMATES.md, "Cost").
 */
static inline uint64_t count_pairs(const uint64_t *w, size_t n, bool concurrent)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n;) {
        size_t end = n - i < 30 ? n : i + 30;
        uint64_t bytes = 0;
        for (; i < end; i += 2) {
            uint64_t x = load_word(w, i, concurrent), y = load_word(w, i + 1, concurrent);
            x -= (x >> 1) & SWAR_M1;
            y -= (y >> 1) & SWAR_M1;
            uint64_t nibbles = (x & SWAR_M2) + ((x >> 2) & SWAR_M2) + (y & SWAR_M2) + ((y >> 2) & SWAR_M2);
            bytes += (nibbles & SWAR_M4) + ((nibbles >> 4) & SWAR_M4);
        }
        uint64_t halves = (bytes & SWAR_M8) + ((bytes >> 8) & SWAR_M8);
        total += (halves * UINT64_C(0x0001000100010001)) >> 48;
    }
    return total;
}

static uint64_t count_set_bits(const bloomsimd_filter *f)
{
    const uint64_t *w = (const uint64_t *)(const void *)f->geometry.words;
    size_t n = bloomsimd_filter_bytes(f) / sizeof(uint64_t); /* 8 per block: even */
    return f->geometry.concurrent ? count_pairs(w, n, true) : count_pairs(w, n, false);
}

double bloomsimd_fill_ratio(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    if (f->layers) {
        /* all bits of all layers */
        const bloomsimd_filter *order[BLOOMSIMD_MAX_LAYERS];
        size_t layers = bloomsimd_layers_in_order(f, order);
        double set = 0.0, bits = 0.0;
        for (size_t i = 0; i < layers; i++) {
            set += (double)count_set_bits(order[i]);
            bits += (double)order[i]->geometry.nblocks * BLOOMSIMD_BLOCK_BITS;
        }
        return set / bits;
    }
    double bits = (double)f->geometry.nblocks * BLOOMSIMD_BLOCK_BITS;
    return (double)count_set_bits(f) / bits;
}

static double estimate_one(const bloomsimd_filter *f)
{
    uint64_t bits = f->geometry.nblocks * BLOOMSIMD_BLOCK_BITS;
    uint64_t set = count_set_bits(f);
    if (set == 0) return 0.0;
    if (set >= bits) return INFINITY;
    double b = (double)bits;
    return log1p(-(double)set / b) / log1p(-(double)f->geometry.k / b);
}

double bloomsimd_estimate_count(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    if (!f->layers) return estimate_one(f);
    /* Layers hold disjoint insertions (a scalable filter puts each new key in
     * one layer), so their estimates add; a window's generations may share
     * refreshed keys, which then count once per generation
     * (docs/ESTIMATES.md, "Layered filters"). */
    const bloomsimd_filter *order[BLOOMSIMD_MAX_LAYERS];
    size_t layers = bloomsimd_layers_in_order(f, order);
    double total = 0.0;
    for (size_t i = 0; i < layers; i++) total += estimate_one(order[i]);
    return total;
}
