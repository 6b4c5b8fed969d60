/*
 * sbbf_reference.h — Parquet's split-block Bloom filter written straight
 * from the specification, one value at a time, with libxxhash's XXH64: the
 * independent reference the tests hold the library and the fixtures to.
 *
 *   h     = XXH64(PLAIN encoding, seed 0)
 *   block = ((h >> 32) * z) >> 32           z = number of 32-byte blocks
 *   word w (0..7) of the block gets bit ((uint32_t)h * SALT[w]) >> 27
 *
 * And the FPR of such a filter, for uniform hashes:
 *   - of a given filter, exactly: a query lands in block b with probability
 *     1/z and is a false positive if its 8 bits are set, each with
 *     probability popcount(word)/32, independently: mean over blocks of
 *     prod_w popcount_w / 32;
 *   - over filters of n distinct values in z blocks (the model): with J ~
 *     Binomial(n, 1/z) values in the query's block and q = 31/32,
 *     E[(1 - q^J)^8] = sum_s (-1)^s C(8,s) (1 - (1 - q^s)/z)^n;
 *   - the spread of a given filter's FPR around the model: the mean of z
 *     block FPRs F_b, so Var ~ Var(F_b) / z, with E[F_b^2 | J] =
 *     E[(pop/32)^2 | J]^8 and E[pop(pop-1)] = 32*31*(1 - 2q^J + (30/32)^J)
 *     for J uniform bits in a 32-bit word (the block loads' slight negative
 *     correlation is ignored, which overstates the spread a little).
 */
#ifndef BLOOMSIMD_TEST_SBBF_REFERENCE_H
#define BLOOMSIMD_TEST_SBBF_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

static const uint32_t ref_sbbf_salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                          0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static inline uint64_t ref_sbbf_hash(const void *value, size_t len) { return XXH64(value, len, 0); }

static inline uint32_t *ref_sbbf_block(uint32_t *words, uint64_t z, uint64_t h)
{
    return words + (((h >> 32) * z) >> 32) * 8;
}

static inline void ref_sbbf_insert(uint32_t *words, uint64_t z, uint64_t h)
{
    uint32_t *b = ref_sbbf_block(words, z, h);
    for (int w = 0; w < 8; w++) b[w] |= UINT32_C(1) << (((uint32_t)h * ref_sbbf_salt[w]) >> 27);
}

static inline bool ref_sbbf_check(const uint32_t *words, uint64_t z, uint64_t h)
{
    const uint32_t *b = ref_sbbf_block((uint32_t *)(uintptr_t)words, z, h);
    for (int w = 0; w < 8; w++)
        if (!(b[w] & (UINT32_C(1) << (((uint32_t)h * ref_sbbf_salt[w]) >> 27)))) return false;
    return true;
}

/* The exact FPR of this filter for uniformly hashed queries. */
static inline double ref_sbbf_fpr_of_bits(const uint32_t *words, uint64_t z)
{
    double sum = 0;
    for (uint64_t b = 0; b < z; b++) {
        double p = 1;
        for (int w = 0; w < 8; w++) p *= __builtin_popcount(words[b * 8 + w]) / 32.0;
        sum += p;
    }
    return sum / (double)z;
}

static inline double ref_sbbf_model_fpr(double n, double z)
{
    double sum = 0, c = 1; /* C(8, s) */
    for (int s = 0; s <= 8; s++) {
        sum += (s % 2 ? -c : c) * pow(1 - (1 - pow(31.0 / 32.0, s)) / z, n);
        c = c * (8 - s) / (s + 1);
    }
    return sum;
}

/* The standard deviation of one filter's FPR around ref_sbbf_model_fpr. */
static inline double ref_sbbf_model_sigma(double n, double z)
{
    double p = 1 / z, q = 31.0 / 32.0, r = 30.0 / 32.0;
    double e1 = 0, e2 = 0;
    /* J ~ Binomial(n, p), summed while its terms matter */
    double logp = log(p), logq1 = log1p(-p);
    for (double j = 0; j <= n; j++) {
        double lw = lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1) + j * logp + (n - j) * logq1;
        double w = exp(lw);
        if (j > n * p && w < 1e-18) break;
        double m1 = 1 - pow(q, j);
        double m2 = (32.0 * 31.0 * (1 - 2 * pow(q, j) + pow(r, j)) + 32.0 * m1) / 1024.0;
        e1 += w * pow(m1, 8);
        e2 += w * pow(m2, 8);
    }
    double var = (e2 - e1 * e1) / z;
    return var > 0 ? sqrt(var) : 0;
}

#endif
