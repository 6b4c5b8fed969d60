/*
 * sbbf.c — the split-block peer's model, sizing, memory and dispatch
 * (baseline flags: the AVX2 code is in sbbf_avx2.c, called only after the
 * CPU check here).
 *
 * FPR model, exact for uniform hash bits. A query probes one bit in each of
 * the 8 words of its block. Let J be the number of the n keys in that block:
 * J ~ Binomial(n, 1/m). Each of them set one uniformly chosen bit in each
 * word, independently across words, so given J each probed bit is still clear
 * with probability q^J, q = 31/32, independently across the 8 words:
 *     P(false positive | J) = (1 - q^J)^8 = sum_s (-1)^s C(8,s) q^{sJ}
 * and the binomial's generating function E[z^J] = (1 - (1 - z)/m)^n gives
 *     FPR(n, m) = sum_{s=0}^{8} (-1)^s C(8,s) (1 - (1 - q^s)/m)^n.
 * (Putze et al. 2007 approximate J by a Poisson variable; at the sizes here
 * the two agree to ~1e-6 relative.) Published check: 1.265% at 10 bits/key
 * for this shape (ANCHORS, Parquet); this formula gives 1.2649% at n = 10^6.
 * The bench measures the peer's FPR at every size and fails a check if the
 * measurement is further from this model than its noise allows
 * (bench_sbbf_fpr_sigma), so a hash that correlated its bits would be
 * caught, not silently flattered.
 *
 * Sizing: the fewest blocks whose FPR at n keys is <= the target (bisection;
 * FPR falls monotonically with m).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sbbf.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define MAX_BLOCKS (UINT64_C(1) << 32)

bool bench_sbbf_available(const char **why)
{
#if defined(BLOOMSIMD_BENCH_HAVE_SBBF_AVX2)
    __builtin_cpu_init();
    /* gcc's check for avx2 includes the OS's YMM state (XGETBV) */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return true;
    if (why) *why = "this CPU has no AVX2+BMI2 (the peer is written for AVX2 only)";
    return false;
#else
    if (why) *why = "not built: the AVX2 peer is compiled only for x86-64";
    return false;
#endif
}

double bench_sbbf_fpr(uint64_t n, uint64_t nblocks)
{
    if (nblocks == 0) return 1.0;
    const double q = 31.0 / 32.0, m = (double)nblocks;
    double sum = 0, binom = 1, qs = 1;
    for (unsigned s = 0; s <= BENCH_SBBF_K; s++) {
        /* (1 - (1 - q^s)/m)^n through log1p: the base is within 1/m of 1 */
        double term = binom * exp((double)n * log1p(-(1.0 - qs) / m));
        sum += (s & 1u) ? -term : term;
        binom = binom * (double)(BENCH_SBBF_K - s) / (double)(s + 1);
        qs *= q;
    }
    return sum < 0 ? 0 : sum;
}

/* The noise of a measured FPR has two parts: which blocks this one filter
 * happened to fill (a filter of few blocks varies a lot around the mean over
 * filters that the model gives: 412 blocks at 10^4 keys, ~4%), and the
 * binomial sampling of the queries. With P_b the chance that a query into
 * block b is a false positive, the filter's own FPR is the mean of P_b over
 * its m nearly independent blocks, so Var = Var(P_b)/m + FPR(1-FPR)/Q.
 * Given J keys in a block the 8 words are independent, and for one word
 * whose set fraction is X/32, E[(X/32)^2 | J] is the chance that two
 * independent uniform bits are both set:
 *     1/32 (1 - q^J) + 31/32 (1 - 2 q^J + (15/16)^J)
 * so E[P_b^2] = E_J[(that)^8], with J ~ Poisson(n/m) (close enough for a
 * tolerance). */
double bench_sbbf_fpr_sigma(uint64_t n, uint64_t nblocks, uint64_t queries)
{
    if (nblocks == 0 || queries == 0) return 1.0;
    const double q = 31.0 / 32.0, lambda = (double)n / (double)nblocks;
    double second = 0, first = 0, pmf = exp(-lambda);
    unsigned jmax = (unsigned)(lambda + 12.0 * sqrt(lambda) + 30.0);
    for (unsigned j = 0; j <= jmax; j++) {
        double qj = pow(q, j), one = 1.0 - qj;
        double two = one / 32.0 + 31.0 / 32.0 * (1.0 - 2.0 * qj + pow(15.0 / 16.0, j));
        first += pmf * pow(one, BENCH_SBBF_K);
        second += pmf * pow(two, BENCH_SBBF_K);
        pmf *= lambda / (double)(j + 1);
    }
    double var_block = second - first * first;
    if (var_block < 0) var_block = 0;
    double p = bench_sbbf_fpr(n, nblocks);
    return sqrt(var_block / (double)nblocks + p * (1.0 - p) / (double)queries);
}

uint64_t bench_sbbf_blocks_for(uint64_t n, double fpr)
{
    if (!(fpr > 0 && fpr < 1)) return 0;
    if (n == 0) return 1;
    uint64_t hi = 1;
    while (hi < MAX_BLOCKS && bench_sbbf_fpr(n, hi) > fpr) hi *= 2;
    if (bench_sbbf_fpr(n, hi) > fpr) return 0;
    uint64_t lo = hi / 2; /* FPR(lo) > fpr, or lo == 0 */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bench_sbbf_fpr(n, mid) <= fpr)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

bool bench_sbbf_init(bench_sbbf *f, uint64_t nblocks)
{
    memset(f, 0, sizeof *f);
    if (nblocks == 0 || nblocks > MAX_BLOCKS) return false;
    size_t bytes = (size_t)nblocks * BENCH_SBBF_BLOCK_BYTES;
    if (bytes >= HUGE_PAGE) {
        /* the library's large filters are mappings with MADV_HUGEPAGE: the
         * peer gets the same TLB advantage (Boost.Bloom itself does not ask
         * for huge pages, which is most of its loss at 10^8 keys) */
        bytes = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return false;
#ifdef MADV_HUGEPAGE
        (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
        f->words = p;
        f->mapped = true;
    } else {
        bytes = (bytes + 63u) & ~(size_t)63u;
        f->words = aligned_alloc(64, bytes);
        if (!f->words) return false;
        memset(f->words, 0, bytes);
    }
    f->nblocks = nblocks;
    f->bytes = bytes;
    return true;
}

void bench_sbbf_free(bench_sbbf *f)
{
    if (f->mapped)
        munmap(f->words, f->bytes);
    else
        free(f->words);
    memset(f, 0, sizeof *f);
}

#if defined(BLOOMSIMD_BENCH_HAVE_SBBF_AVX2)
void bench_sbbf_add(const bench_sbbf *f, const uint64_t *keys, size_t n) { bench_sbbf_add_avx2(f, keys, n); }
size_t bench_sbbf_contains(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    return bench_sbbf_contains_avx2(f, keys, n, out);
}
size_t bench_sbbf_contains_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    return bench_sbbf_contains_one_by_one_avx2(f, keys, n);
}
void bench_sbbf_add_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    bench_sbbf_add_one_by_one_avx2(f, keys, n);
}
#else
/* never called: bench_sbbf_available() is false */
void bench_sbbf_add(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    (void)f, (void)keys, (void)n;
}
size_t bench_sbbf_contains(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    (void)f, (void)keys, (void)n, (void)out;
    return 0;
}
size_t bench_sbbf_contains_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    (void)f, (void)keys, (void)n;
    return 0;
}
void bench_sbbf_add_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n)
{
    (void)f, (void)keys, (void)n;
}
#endif
