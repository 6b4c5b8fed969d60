/*
 * fpr_model.c — the exact FPR of the layout (kernels/layout.h section 5):
 *
 *   FPR(n, m, k) = sum_{s=0}^{k} (-1)^s C(k,s) (1 - (1 - g_s)/m)^n
 *   g_s = sum_j C(k,j) C(16-k,s-j) / C(16,s) * (31/32)^j
 *
 * n keys, m blocks, k bits per key in k distinct words of 16. The power is
 * evaluated as exp(n * log1p(-(1-g_s)/m)) so that m up to 2^32 and n up to
 * 2^64 keep full precision.
 */
#include <math.h>

#include "internal.h"

static double binomial(unsigned n, unsigned r)
{
    if (r > n) return 0.0;
    double c = 1.0;
    for (unsigned i = 1; i <= r; i++) c = c * (double)(n - r + i) / (double)i;
    return c;
}

double bloomsimd_model_fpr(double items, double blocks, uint32_t k)
{
    const double q = 31.0 / 32.0;
    double fpr = 0.0;
    for (unsigned s = 0; s <= k; s++) {
        double g = 0.0;
        for (unsigned j = 0; j <= s; j++) {
            if (s - j > 16 - k) continue;
            g += binomial(k, j) * binomial(16 - k, s - j) / binomial(16, s) * pow(q, (double)j);
        }
        double clear_all = exp(items * log1p(-(1.0 - g) / blocks));
        double term = binomial(k, s) * clear_all;
        fpr += (s & 1u) ? -term : term;
    }
    /* Rounding can leave a tiny negative value for an empty filter. */
    return fpr < 0.0 ? 0.0 : fpr;
}
