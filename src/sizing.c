/*
 * sizing.c — from bloomsimd_options to (layout, blocks, k): kernels/layout.h
 * section 6 for block512, kernels/layout_split256.h section 5 for split256
 * (k = 8: only the blocks are searched).
 *
 * Default: for each k in 1..16, the fewest blocks m with FPR(n, m, k) <= p
 * under the exact model; the k needing the fewest blocks wins, the smaller k
 * on a tie. The exact model costs up to ~1700 terms per evaluation, so the
 * k+1-term hypergeometric model (which differs by < 0.2% where it matters)
 * first finds each k's approximate m; only the k within 1% of the best are
 * searched exactly, starting from that m. Explicit bits fix m; explicit k
 * fixes k. FPR falls monotonically as m grows, so every search is a bisection.
 */
#include <math.h>

#include "../dispatch/dispatch.h"
#include "internal.h"

typedef double (*fpr_model)(double items, double blocks, uint32_t k);

/* True if the model says m blocks meet p. NaN (out of memory) never meets. */
static bool meets(fpr_model model, uint64_t capacity, uint64_t m, uint32_t k, double p)
{
    return m >= 1 && model((double)capacity, (double)m, k) <= p;
}

/* Fewest blocks in [1, max] with FPR <= p, or 0 if even `max` blocks miss
 * the target (max = 0 means BLOOMSIMD_MAX_BLOCKS). `guess` (0: none) starts a
 * galloping search from there, which takes ~2 log2(|answer - guess|)
 * evaluations; without one the search is a bisection of [0, max] after one
 * evaluation at a single block, which is the answer for a layer of a few
 * keys at a low FPR (a scalable filter of capacity 1 at growth 1 sizes one
 * such layer per key). The FPR falls as blocks are added, so each shortcut
 * returns what the full bisection would. */
static uint64_t fewest_blocks(fpr_model model, uint64_t capacity, double p, uint32_t k, uint64_t guess,
                              uint64_t max)
{
    if (max == 0 || max > BLOOMSIMD_MAX_BLOCKS) max = BLOOMSIMD_MAX_BLOCKS;
    uint64_t lo, hi; /* invariant: !meets(lo) (lo = 0 stands for "no filter"), meets(hi) */
    if (guess == 0 || guess > max) {
        if (meets(model, capacity, 1, k, p)) return 1;
        if (!meets(model, capacity, max, k, p)) return 0;
        lo = 0, hi = max;
    } else if (meets(model, capacity, guess, k, p)) {
        hi = guess;
        uint64_t step = guess / 1024 + 1;
        for (;;) {
            lo = hi > step ? hi - step : 0;
            if (!meets(model, capacity, lo, k, p)) break;
            hi = lo, step *= 2;
        }
    } else {
        lo = guess;
        uint64_t step = guess / 1024 + 1;
        for (;;) {
            hi = max - lo > step ? lo + step : max;
            if (meets(model, capacity, hi, k, p)) break;
            if (hi == max) return 0;
            lo = hi, step *= 2;
        }
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (meets(model, capacity, mid, k, p))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static bloomsimd_status validate(const bloomsimd_options *o, double *p)
{
    const uint32_t hash_flags = BLOOMSIMD_PARQUET | BLOOMSIMD_U64_XXH3 | BLOOMSIMD_U64_MUM;
    if (o->flags & ~(BLOOMSIMD_KNOWN_FLAGS | hash_flags))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "unknown flags 0x%x (known: BLOOMSIMD_CONCURRENT 0x1, BLOOMSIMD_NO_HUGEPAGES 0x2, "
                              "BLOOMSIMD_PARQUET 0x4, BLOOMSIMD_U64_XXH3 0x8, BLOOMSIMD_U64_MUM 0x10)",
                              (unsigned)(o->flags & ~(BLOOMSIMD_KNOWN_FLAGS | hash_flags)));
    uint32_t hashes = o->flags & hash_flags;
    if (hashes & (hashes - 1))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "flags 0x%x name %s: a filter has one hash (BLOOMSIMD_PARQUET, BLOOMSIMD_U64_XXH3 or "
                              "BLOOMSIMD_U64_MUM)",
                              (unsigned)o->flags, (o->flags & BLOOMSIMD_PARQUET) ? "Parquet's hash and another" : "two hashes");
    if (o->flags & BLOOMSIMD_PARQUET) {
        /* Parquet's filter is split256 hashed with XXH64 seed 0, nothing else */
        if (o->layout != BLOOMSIMD_LAYOUT_DEFAULT && o->layout != BLOOMSIMD_LAYOUT_SPLIT256)
            return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                                  "BLOOMSIMD_PARQUET with layout %u: Parquet's filter is layout 3, split256",
                                  (unsigned)o->layout);
        if (o->seed != 0)
            return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                                  "BLOOMSIMD_PARQUET with seed %llu: Parquet hashes with XXH64 seed 0",
                                  (unsigned long long)o->seed);
        if (o->k != 0 && o->k != BLOOMSIMD_SPLIT256_K)
            return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                                  "BLOOMSIMD_PARQUET with k %u: Parquet sets exactly 8 bits per value (k 0 or 8)",
                                  (unsigned)o->k);
    }
    if (o->k > BLOOMSIMD_MAX_K)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "k %u is above the maximum %u (BLOOMSIMD_MAX_K)",
                              (unsigned)o->k, BLOOMSIMD_MAX_K);
    if (o->layout != BLOOMSIMD_LAYOUT_DEFAULT && !bloomsimd_layout_name(o->layout))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "layout %u is unknown (0 the kernel's default, 2 block512, 3 split256)",
                              (unsigned)o->layout);
    if (o->layout == BLOOMSIMD_LAYOUT_SPLIT256 && o->k != 0 && o->k != BLOOMSIMD_SPLIT256_K)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "k %u with layout split256, which sets exactly 8 bits per key (k 0 or 8)",
                              (unsigned)o->k);
    double fpr = o->fpr;
    if (isnan(fpr)) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr is NaN");
    if (fpr < 0.0 || fpr >= 1.0)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr %g is outside [1e-10, 1) (0 means 0.01)", fpr);
    if (fpr == 0.0) fpr = BLOOMSIMD_DEFAULT_FPR;
    if (fpr < BLOOMSIMD_MIN_FPR)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "fpr %g is below the minimum 1e-10 (BLOOMSIMD_MIN_FPR: the FPR model's precision)", fpr);
    if (o->bits == 0 && o->capacity == 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "capacity 0 and bits 0: give the number of keys to size for (or an explicit size)");
    *p = fpr;
    return BLOOMSIMD_OK;
}

uint32_t bloomsimd_resolve_layout(const bloomsimd_options *o, const bloomsimd_kernel *kernel)
{
    if (o->layout != BLOOMSIMD_LAYOUT_DEFAULT) return o->layout;
    if (o->k != 0 && o->k != BLOOMSIMD_SPLIT256_K) return BLOOMSIMD_LAYOUT_BLOCK512;
    return kernel ? kernel->default_layout : BLOOMSIMD_LAYOUT_BLOCK512;
}

/* Layout 3 (kernels/layout_split256.h section 5): k is 8; the fewest blocks
 * meeting p, or ceil(bits / 256). */
static bloomsimd_status choose_split256(const bloomsimd_options *o, double p, bloomsimd_geometry_choice *choice,
                                        double *target_fpr)
{
    const uint32_t k = BLOOMSIMD_SPLIT256_K;
    uint64_t blocks;
    if (o->bits != 0) {
        blocks = o->bits / BLOOMSIMD_SPLIT256_BLOCK_BITS + (o->bits % BLOOMSIMD_SPLIT256_BLOCK_BITS != 0);
        if (blocks > BLOOMSIMD_MAX_BLOCKS)
            return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                                  "bits %llu need %llu blocks, above the maximum 2^32 split256 blocks (128 GiB)",
                                  (unsigned long long)o->bits, (unsigned long long)blocks);
        *target_fpr = o->capacity ? bloomsimd_model_fpr_split256((double)o->capacity, (double)blocks, k) : 0.0;
    } else {
        blocks = fewest_blocks(bloomsimd_model_fpr_split256, o->capacity, p, k, 0, 0);
        if (blocks == 0)
            return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                                  "capacity %llu at fpr %g needs more than 2^32 split256 blocks (128 GiB)",
                                  (unsigned long long)o->capacity, p);
        *target_fpr = p;
    }
    choice->blocks = blocks;
    choice->k = k;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_choose_geometry(const bloomsimd_options *o, bloomsimd_geometry_choice *choice,
                                           double *target_fpr)
{
    double p = 0.0; /* set by validate */
    bloomsimd_status st = validate(o, &p);
    if (st != BLOOMSIMD_OK) return st;
    /* A kernel that cannot run is reported by the kernel selection that
     * follows every sizing; here it only means no kernel default. */
    choice->layout = (o->flags & BLOOMSIMD_PARQUET) ? BLOOMSIMD_LAYOUT_SPLIT256
                                                    : bloomsimd_resolve_layout(o, bloomsimd_kernel_lookup(o->kernel));
    choice->hash_id = bloomsimd_hash_of_flags(o->flags);

    if (choice->layout == BLOOMSIMD_LAYOUT_SPLIT256) {
        st = choose_split256(o, p, choice, target_fpr);
        if (st != BLOOMSIMD_OK) return st;
    } else if (o->bits != 0) {
        uint64_t blocks = o->bits / BLOOMSIMD_BLOCK_BITS + (o->bits % BLOOMSIMD_BLOCK_BITS != 0);
        if (blocks > BLOOMSIMD_MAX_BLOCKS)
            return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                                  "bits %llu need %llu blocks, above the maximum 2^32 blocks (256 GiB)",
                                  (unsigned long long)o->bits, (unsigned long long)blocks);
        uint32_t k = o->k;
        if (k == 0 && o->capacity == 0) k = BLOOMSIMD_DEFAULT_K;
        if (k == 0) {
            /* the lowest exact FPR among the k whose hypergeometric FPR is
             * within 1% of the lowest */
            double approx[BLOOMSIMD_MAX_K + 1], lowest = 2.0;
            for (uint32_t c = 1; c <= BLOOMSIMD_MAX_K; c++) {
                approx[c] = bloomsimd_model_fpr_hypergeometric((double)o->capacity, (double)blocks, c);
                if (approx[c] < lowest) lowest = approx[c];
            }
            double best = 2.0;
            for (uint32_t c = 1; c <= BLOOMSIMD_MAX_K; c++) {
                if (approx[c] > lowest * 1.01) continue;
                double f = bloomsimd_model_fpr((double)o->capacity, (double)blocks, c);
                if (isnan(f)) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the FPR model's terms failed");
                if (f < best) best = f, k = c;
            }
        }
        choice->blocks = blocks;
        choice->k = k;
        *target_fpr = o->capacity ? bloomsimd_model_fpr((double)o->capacity, (double)blocks, k) : 0.0;
    } else {
        uint32_t k_first = o->k ? o->k : 1, k_last = o->k ? o->k : BLOOMSIMD_MAX_K;
        uint64_t approx[BLOOMSIMD_MAX_K + 1] = {0}, lowest = 0;
        /* A k whose approximate count is above 1.01 x the lowest so far is
         * skipped below (the lowest only falls), so its search stops there. */
        for (uint32_t k = k_first; k <= k_last; k++) {
            approx[k] = fewest_blocks(bloomsimd_model_fpr_hypergeometric, o->capacity, p, k, 0,
                                      lowest ? lowest + lowest / 100 : 0);
            if (approx[k] != 0 && (lowest == 0 || approx[k] < lowest)) lowest = approx[k];
        }
        uint64_t best_blocks = 0;
        uint32_t best_k = 0;
        for (uint32_t k = k_first; k <= k_last; k++) {
            if (approx[k] == 0 || approx[k] > lowest + lowest / 100) continue;
            if (bloomsimd_model_term_count(k) == 0)
                return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the FPR model's terms failed");
            uint64_t blocks = fewest_blocks(bloomsimd_model_fpr, o->capacity, p, k, approx[k], 0);
            if (blocks != 0 && (best_blocks == 0 || blocks < best_blocks)) best_blocks = blocks, best_k = k;
        }
        if (best_blocks == 0) {
            if (o->k)
                return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                                      "capacity %llu at fpr %g with k %u needs more than 2^32 blocks (256 GiB)",
                                      (unsigned long long)o->capacity, p, (unsigned)o->k);
            return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                                  "capacity %llu at fpr %g needs more than 2^32 blocks (256 GiB)",
                                  (unsigned long long)o->capacity, p);
        }
        choice->blocks = best_blocks;
        choice->k = best_k;
        *target_fpr = p;
    }
    if (choice->blocks > SIZE_MAX / bloomsimd_layout_block_bytes(choice->layout))
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "%llu blocks do not fit this address space",
                              (unsigned long long)choice->blocks);
    return BLOOMSIMD_OK;
}
