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
 * Code outside kernels/ has baseline flags, so the popcount is the portable
 * SWAR form rather than the popcnt instruction; docs/ESTIMATES.md gives its
 * measured speed against a plain read of the array.
 */
#include "../baseline.h"

#include <math.h>

#include "../internal.h"

/* Bits set in n 64-bit words: branch-free SWAR count per word, the byte
 * counts summed with one multiply. Concurrent filters are read with relaxed
 * atomic loads so that counting while other threads insert is defined. */
static uint64_t swar_popcount(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (x * UINT64_C(0x0101010101010101)) >> 56;
}

static uint64_t count_set_bits(const bloomsimd_filter *f)
{
    const uint64_t *w = (const uint64_t *)(const void *)f->geometry.words;
    size_t n = bloomsimd_filter_bytes(f) / sizeof(uint64_t);
    uint64_t total = 0;
    if (f->geometry.concurrent) {
        for (size_t i = 0; i < n; i++) total += swar_popcount(__atomic_load_n(&w[i], __ATOMIC_RELAXED));
    } else {
        for (size_t i = 0; i < n; i++) total += swar_popcount(w[i]);
    }
    return total;
}

double bloomsimd_fill_ratio(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    double bits = (double)f->geometry.nblocks * BLOOMSIMD_BLOCK_BITS;
    return (double)count_set_bits(f) / bits;
}

double bloomsimd_estimate_count(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    uint64_t bits = f->geometry.nblocks * BLOOMSIMD_BLOCK_BITS;
    uint64_t set = count_set_bits(f);
    if (set == 0) return 0.0;
    if (set >= bits) return INFINITY;
    double b = (double)bits;
    return log1p(-(double)set / b) / log1p(-(double)f->geometry.k / b);
}
