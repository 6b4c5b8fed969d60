/*
 * fpr_model.c — the exact FPR of layout 2 (kernels/layout.h section 5), and
 * at the end that of layout 3 (kernels/layout_split256.h section 4).
 *
 * A query probes table entry Q (one of 64, uniform) and one bit in each of
 * its k words. By inclusion-exclusion over the subsets S of Q whose probed
 * bits are still clear, with n keys in m blocks and q = 31/32:
 *
 *   FPR(n, m) = 1/64 sum_Q sum_{S subset of Q} (-1)^|S| (1 - (1 - g(S))/m)^n
 *   g(S)      = 1/64 sum_T q^{|S ∩ T|}          (T: another key's entry)
 *
 * g(S) is the chance that one key in the query's block leaves all |S| probed
 * bits clear. Swapping the sums, S is counted once per entry containing it,
 * N(S) times, so FPR = 1/64 sum_S N(S) (-1)^|S| F(g(S)). Many S share the
 * same |S| and intersection profile (how many entries meet S in j words, for
 * each j), hence the same g: those are merged into one term. Per k there are
 * 2 to ~1700 terms (tests/test_layout.c prints them); they are built once per
 * process and k, on first use, in about a millisecond.
 *
 * The power is evaluated as exp(n log1p(-(1 - g)/m)) so that m up to 2^32
 * and n up to 2^64 keep full precision. The alternating sum has at most 2^16
 * terms of magnitude <= 1, so the absolute rounding error stays below ~1e-11:
 * hence BLOOMSIMD_MIN_FPR = 1e-10.
 *
 * bloomsimd_model_fpr_hypergeometric is layout 1's formula (a uniformly
 * random k-subset instead of the table); it is what layout 2 would be with a
 * perfect table, costs k+1 terms and brackets the exact search in sizing.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/kernel.h"
#include "internal.h"

typedef struct model_term {
    double clear;  /* g(S) */
    double weight; /* sum of N(S)/64 over the merged S, signed by (-1)^|S| */
} model_term;

typedef struct model_terms {
    const model_term *terms;
    uint32_t count;
} model_terms;

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static model_terms built[BLOOMSIMD_MAX_K]; /* published with release stores, read with acquire loads */

/* Terms are merged in an open-addressing table keyed by (|S|, g(S)): the
 * frozen tables give at most ~1700 distinct terms per k (test_layout prints
 * them), so 8192 slots never fill more than a quarter. */
#define MERGE_SLOTS 8192u

typedef struct merge_slot {
    uint32_t used;
    uint32_t size; /* |S| */
    double clear;  /* g(S) */
    double weight; /* signed */
} merge_slot;

static uint32_t merge_hash(uint32_t size, double clear)
{
    uint64_t bits;
    memcpy(&bits, &clear, sizeof bits);
    bits ^= (uint64_t)size << 59;
    bits *= UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(bits >> 40) & (MERGE_SLOTS - 1);
}

/* Builds the merged terms of one k. Returns false when out of memory. */
static bool build_terms(uint32_t k, model_terms *out)
{
    const uint16_t *table = bloomsimd_select_tables[k - 1];
    /* the table's distinct masks and how often each occurs (k = 1, 15, 16
     * repeat masks; the others do not) */
    uint16_t distinct[BLOOMSIMD_SELECT_ENTRIES];
    uint32_t times[BLOOMSIMD_SELECT_ENTRIES], ndistinct = 0;
    for (unsigned e = 0; e < BLOOMSIMD_SELECT_ENTRIES; e++) {
        unsigned d = 0;
        while (d < ndistinct && distinct[d] != table[e]) d++;
        if (d == ndistinct) distinct[ndistinct] = table[e], times[ndistinct++] = 0;
        times[d]++;
    }
    uint8_t *containing = calloc(1u << 16, 1); /* N(S): entries containing S */
    merge_slot *slots = calloc(MERGE_SLOTS, sizeof *slots);
    if (!containing || !slots) {
        free(containing);
        free(slots);
        return false;
    }
    for (unsigned d = 0; d < ndistinct; d++) {
        unsigned q_mask = distinct[d];
        for (unsigned s = q_mask;; s = (s - 1) & q_mask) { /* every submask of Q */
            containing[s] = (uint8_t)(containing[s] + times[d]);
            if (s == 0) break;
        }
    }
    double q_pow[17];
    q_pow[0] = 1.0;
    for (unsigned j = 1; j <= 16; j++) q_pow[j] = q_pow[j - 1] * (31.0 / 32.0);
    uint32_t count = 0;
    bool ok = true;
    for (unsigned s = 0; s < (1u << 16) && ok; s++) {
        if (!containing[s]) continue;
        uint32_t profile[17] = {0};
        for (unsigned d = 0; d < ndistinct; d++) profile[__builtin_popcount(s & distinct[d])] += times[d];
        double g = 0.0;
        for (unsigned j = 0; j <= 16; j++) g += profile[j] * q_pow[j];
        g /= BLOOMSIMD_SELECT_ENTRIES;
        uint32_t size = (uint32_t)__builtin_popcount(s);
        double weight = containing[s] / (double)BLOOMSIMD_SELECT_ENTRIES;
        uint32_t h = merge_hash(size, g);
        while (slots[h].used && !(slots[h].size == size && slots[h].clear == g)) h = (h + 1) & (MERGE_SLOTS - 1);
        if (!slots[h].used) {
            slots[h] = (merge_slot){1, size, g, 0.0};
            ok = ++count < MERGE_SLOTS / 2;
        }
        slots[h].weight += (size & 1u) ? -weight : weight;
    }
    free(containing);
    model_term *terms = ok ? malloc(sizeof *terms * count) : NULL;
    if (!terms) {
        free(slots);
        return false;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < MERGE_SLOTS; i++)
        if (slots[i].used) terms[n++] = (model_term){slots[i].clear, slots[i].weight};
    free(slots);
    out->terms = terms;
    out->count = count;
    return true;
}

static const model_terms *terms_for(uint32_t k)
{
    model_terms *slot = &built[k - 1];
    if (__atomic_load_n(&slot->terms, __ATOMIC_ACQUIRE)) return slot;
    pthread_mutex_lock(&build_lock);
    bool ok = true;
    if (!slot->terms) {
        model_terms fresh;
        ok = build_terms(k, &fresh);
        if (ok) {
            slot->count = fresh.count;
            __atomic_store_n(&slot->terms, fresh.terms, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&build_lock);
    return ok ? slot : NULL;
}

uint32_t bloomsimd_model_term_count(uint32_t k)
{
    if (k < 1 || k > BLOOMSIMD_MAX_K) return 0;
    const model_terms *t = terms_for(k);
    return t ? t->count : 0;
}

double bloomsimd_model_fpr(double items, double blocks, uint32_t k)
{
    if (k < 1 || k > BLOOMSIMD_MAX_K) return NAN;
    const model_terms *t = terms_for(k);
    if (!t) return NAN;
    double fpr = 0.0;
    for (uint32_t i = 0; i < t->count; i++)
        fpr += t->terms[i].weight * exp(items * log1p(-(1.0 - t->terms[i].clear) / blocks));
    /* Rounding can leave a tiny negative value for an empty filter. */
    return fpr < 0.0 ? 0.0 : fpr;
}

static double binomial(unsigned n, unsigned r)
{
    if (r > n) return 0.0;
    double c = 1.0;
    for (unsigned i = 1; i <= r; i++) c = c * (double)(n - r + i) / (double)i;
    return c;
}

double bloomsimd_model_fpr_hypergeometric(double items, double blocks, uint32_t k)
{
    const double q = 31.0 / 32.0;
    double fpr = 0.0;
    for (unsigned s = 0; s <= k; s++) {
        double g = 0.0;
        for (unsigned j = 0; j <= s; j++) {
            if (s - j > 16 - k) continue;
            g += binomial(k, j) * binomial(16 - k, s - j) / binomial(16, s) * pow(q, (double)j);
        }
        double term = binomial(k, s) * exp(items * log1p(-(1.0 - g) / blocks));
        fpr += (s & 1u) ? -term : term;
    }
    return fpr < 0.0 ? 0.0 : fpr;
}

/*
 * Layout 3 (kernels/layout_split256.h section 4): every key sets one bit in
 * each of the 8 words of its 32-byte block, so a query's probed bits of a
 * set S of s words all stay clear with probability (1 - (1 - q^s)/m)^n, and
 *   FPR(n, m) = sum_{s=0}^{8} (-1)^s C(8, s) (1 - (1 - q^s)/m)^n.
 * Exact for uniform hash bits (binomial block loads, no Poisson limit).
 */
double bloomsimd_model_fpr_split256(double items, double blocks, uint32_t k)
{
    if (k != BLOOMSIMD_SPLIT256_K) return NAN;
    const double q = 31.0 / 32.0;
    double fpr = 0.0, q_s = 1.0;
    for (unsigned s = 0; s <= 8; s++, q_s *= q) {
        double term = binomial(8, s) * exp(items * log1p(-(1.0 - q_s) / blocks));
        fpr += (s & 1u) ? -term : term;
    }
    return fpr < 0.0 ? 0.0 : fpr;
}

double bloomsimd_layout_model_fpr(uint32_t layout, double items, double blocks, uint32_t k)
{
    if (layout == BLOOMSIMD_LAYOUT_SPLIT256) return bloomsimd_model_fpr_split256(items, blocks, k);
    return bloomsimd_model_fpr(items, blocks, k);
}
