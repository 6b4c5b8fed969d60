/*
 * sizing.c — from bloomsimd_options to (blocks, k): kernels/layout.h section 6.
 *
 * Default: for each k in 1..16, the fewest blocks m with FPR(n, m, k) <= p,
 * found by bisection (FPR falls monotonically as m grows); the k needing the
 * fewest blocks wins, the smaller k on a tie. Explicit bits fix m; explicit k
 * fixes k.
 */
#include <math.h>

#include "internal.h"

/* Fewest blocks in [1, BLOOMSIMD_MAX_BLOCKS] with FPR <= p, or 0 if even the
 * largest filter misses the target. */
static uint64_t fewest_blocks(uint64_t capacity, double p, uint32_t k)
{
    uint64_t hi = BLOOMSIMD_MAX_BLOCKS;
    if (bloomsimd_model_fpr((double)capacity, (double)hi, k) > p) return 0;
    uint64_t lo = 1;
    if (bloomsimd_model_fpr((double)capacity, 1.0, k) <= p) return 1;
    /* invariant: FPR(lo) > p, FPR(hi) <= p */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bloomsimd_model_fpr((double)capacity, (double)mid, k) <= p)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static bloomsimd_status validate(const bloomsimd_options *o, double *p)
{
    if (o->flags & ~BLOOMSIMD_KNOWN_FLAGS) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (o->k > BLOOMSIMD_MAX_K) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    double fpr = o->fpr;
    if (isnan(fpr) || fpr < 0.0 || fpr >= 1.0) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (fpr == 0.0) fpr = BLOOMSIMD_DEFAULT_FPR;
    if (fpr < BLOOMSIMD_MIN_FPR) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (o->bits == 0 && o->capacity == 0) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    *p = fpr;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_choose_geometry(const bloomsimd_options *o, bloomsimd_geometry_choice *choice,
                                           double *target_fpr)
{
    double p;
    bloomsimd_status st = validate(o, &p);
    if (st != BLOOMSIMD_OK) return st;

    if (o->bits != 0) {
        uint64_t blocks = o->bits / BLOOMSIMD_BLOCK_BITS + (o->bits % BLOOMSIMD_BLOCK_BITS != 0);
        if (blocks > BLOOMSIMD_MAX_BLOCKS) return BLOOMSIMD_ERR_TOO_LARGE;
        uint32_t k = o->k;
        if (k == 0 && o->capacity == 0) k = BLOOMSIMD_DEFAULT_K;
        if (k == 0) {
            double best = 2.0;
            for (uint32_t c = 1; c <= BLOOMSIMD_MAX_K; c++) {
                double f = bloomsimd_model_fpr((double)o->capacity, (double)blocks, c);
                if (f < best) best = f, k = c;
            }
        }
        choice->blocks = blocks;
        choice->k = k;
        *target_fpr = o->capacity ? bloomsimd_model_fpr((double)o->capacity, (double)blocks, k) : 0.0;
    } else {
        uint64_t best_blocks = 0;
        uint32_t best_k = 0;
        uint32_t k_first = o->k ? o->k : 1, k_last = o->k ? o->k : BLOOMSIMD_MAX_K;
        for (uint32_t k = k_first; k <= k_last; k++) {
            uint64_t blocks = fewest_blocks(o->capacity, p, k);
            if (blocks != 0 && (best_blocks == 0 || blocks < best_blocks)) best_blocks = blocks, best_k = k;
        }
        if (best_blocks == 0) return BLOOMSIMD_ERR_TOO_LARGE;
        choice->blocks = best_blocks;
        choice->k = best_k;
        *target_fpr = p;
    }
    if (choice->blocks > SIZE_MAX / BLOOMSIMD_BLOCK_BYTES) return BLOOMSIMD_ERR_TOO_LARGE;
    return BLOOMSIMD_OK;
}
