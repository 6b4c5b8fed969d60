/*
 * schedule.c — how a scalable filter splits its FPR budget between its
 * layers (docs/SCALABLE.md, "Layers" and "Choosing the schedule").
 *
 * Layer i holds c_i = c_0 * growth^i keys and is sized for FPR fpr_i. A key
 * that was never inserted is a false positive if any layer says "maybe", so
 * by the union bound the chain's FPR is at most sum_i fpr_i: a schedule is
 * any sequence with sum_i fpr_i <= fpr for EVERY number of layers, since the
 * filter cannot know how far it will grow.
 *
 * Budget schedule (the default, options.tightening 0). With
 * C_i = c_0 + ... + c_i the capacity of the chain through layer i and
 *
 *     left(C) = (2/3) (1 + (C - c_0) / (8 c_0))^(-1/4)
 *
 * the share of the budget not yet given out once C keys have a place,
 * layer 0 gets 1 - left(c_0) = 1/3 of fpr and layer i >= 1 gets
 *
 *     fpr_i = fpr (left(C_{i-1}) - left(C_i)).
 *
 * The sum telescopes: fpr_0 + ... + fpr_{L-1} = fpr (1 - left(C_{L-1})),
 * below fpr for every L and every growth, 1 included (equal layers: the
 * FPRs fall as i^(-5/4), so thousands of layers stay above
 * BLOOMSIMD_MIN_FPR). The curve spends the budget in proportion to keys up
 * to about 8 c_0 (where the best chain that knew its final size would
 * spend it) and then as a Pareto tail of index 1/4: it is the split that
 * minimises the expected bits per key when the final size N, in units of
 * c_0, has a heavy-tailed prior, and its two constants (8 and 1/4) were
 * chosen as those that minimise the mean ratio to a pre-sized filter over
 * growth factors 1 .. 10^4 to 1 .. 10^5, log-uniform, on both layouts. The
 * first share, 1/3, keeps a filter that never grows within 10% of the bits
 * of the geometric schedule's first layer (fpr / 2) at 1%.
 *
 * Geometric schedule (options.tightening r in (0, 1); the only one of
 * format version 2, and RedisBloom's with r = 1/2): fpr_i = fpr (1 - r) r^i.
 *
 * Arithmetic. Files record each layer's capacity and FPR, and readers
 * recompute the chain and require every bit to match (src/persist/format.c),
 * so every host must derive the same doubles: only +, -, *, / and sqrt are
 * used, each correctly rounded by IEEE-754, never pow, exp or log, whose
 * last bit differs between C libraries. x^(-1/4) is 1 / sqrt(sqrt(x)).
 */
#include <math.h>

#include "layers.h"

/* Budget schedule constants: left(C) = BUDGET_REST (1 + (C - c_0) / (BUDGET_KNEE c_0))^(-1/4). */
#define BUDGET_REST (1.0 - BLOOMSIMD_FIRST_LAYER_SHARE)
#define BUDGET_KNEE 8.0

static double budget_left(double through, double c0)
{
    double y = 1.0 + (through - c0) / (BUDGET_KNEE * c0);
    return BUDGET_REST / sqrt(sqrt(y));
}

bloomsimd_chain_step bloomsimd_chain_first(const bloomsimd_chain_plan *plan)
{
    double share = plan->schedule == BLOOMSIMD_SCHEDULE_BUDGET ? BLOOMSIMD_FIRST_LAYER_SHARE : 1.0 - plan->tightening;
    return (bloomsimd_chain_step){.capacity = plan->capacity, .fpr = plan->fpr * share, .through = (double)plan->capacity};
}

bloomsimd_status bloomsimd_chain_next(const bloomsimd_chain_plan *plan, const bloomsimd_chain_step *prev,
                                      bloomsimd_chain_step *next)
{
    if (prev->capacity > UINT64_MAX / plan->growth)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "the next layer's capacity overflows 64 bits");
    next->capacity = prev->capacity * plan->growth;
    next->through = prev->through + (double)next->capacity;
    if (plan->schedule == BLOOMSIMD_SCHEDULE_BUDGET) {
        double c0 = (double)plan->capacity;
        next->fpr = plan->fpr * (budget_left(prev->through, c0) - budget_left(next->through, c0));
    } else {
        next->fpr = prev->fpr * plan->tightening;
    }
    if (!(next->fpr >= BLOOMSIMD_MIN_FPR))
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "the next layer's fpr %g would be below the minimum 1e-10",
                              next->fpr);
    return BLOOMSIMD_OK;
}

bloomsimd_chain_plan bloomsimd_chain_plan_of(const bloomsimd_filter *f)
{
    const bloomsimd_layers *ls = f->layers;
    return (bloomsimd_chain_plan){.schedule = ls->schedule,
                                  .growth = ls->growth,
                                  .tightening = ls->tightening,
                                  .capacity = f->capacity,
                                  .fpr = f->fpr};
}
