/*
 * size_for.c — bloomsimd_size_for: what bloomsimd_create_with would build,
 * without building it.
 *
 * It runs create_with's own steps in create_with's order (option checks,
 * sizing of kernels/layout.h section 6, kernel selection) and stops before
 * the first allocation, so every status and every number is the one create
 * would give. The predicted FPR repeats bloomsimd_predicted_fpr's arithmetic
 * for a new filter holding `capacity` keys (plain: FPR(n, m, k); scalable:
 * 1 - (1 - FPR of layer 0), since n keys fit in layer 0; window: every
 * generation holding n keys). tests/test_size_for.c compares both with a
 * created filter for every kind.
 */
#include <math.h>
#include <string.h>

#include "../dispatch/dispatch.h"
#include "internal.h"
#include "layers/layers.h"

bloomsimd_status bloomsimd_size_for(const bloomsimd_options *o, bloomsimd_sizing *s)
{
    bloomsimd_error_clear();
    if (s) memset(s, 0, sizeof *s);
    if (!o || !s) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", o ? "sizing" : "options");

    bool layered = o->growth != 0 || o->tightening != 0.0 || o->generations > 1;
    bloomsimd_geometry_choice choice;
    double target, fpr = 0.0;
    bloomsimd_chain_plan plan;
    uint32_t layers = 1;
    bloomsimd_status st;
    if (!layered) {
        st = bloomsimd_choose_geometry(o, &choice, &target);
        fpr = target;
    } else {
        st = bloomsimd_layered_validate(o, &fpr, &plan);
        if (st != BLOOMSIMD_OK) return st;
        bloomsimd_options lo;
        if (o->growth == 0) { /* a window: G generations of one geometry */
            lo = *o;
            lo.generations = 0;
            layers = o->generations;
        } else { /* scalable: create allocates layer 0 only */
            lo = (bloomsimd_options){.capacity = o->capacity,
                                     .fpr = bloomsimd_chain_first(&plan).fpr,
                                     .k = o->k,
                                     .flags = o->flags,
                                     .kernel = o->kernel,
                                     .layout = o->layout};
        }
        st = bloomsimd_choose_geometry(&lo, &choice, &target);
        if (o->growth == 0) fpr = target;
    }
    if (st != BLOOMSIMD_OK) return st;
    const bloomsimd_kernel *kernel;
    st = bloomsimd_select_kernel(o->kernel, &kernel);
    if (st != BLOOMSIMD_OK) return st;

    double one = bloomsimd_layout_model_fpr(choice.layout, (double)o->capacity, (double)choice.blocks, choice.k);
    const uint64_t block_bytes = bloomsimd_layout_block_bytes(choice.layout);
    s->blocks = choice.blocks * layers;
    s->bits = s->blocks * block_bytes * 8;
    s->k = choice.k;
    s->memory_bytes = s->blocks * block_bytes;
    s->bits_per_key = o->capacity ? (double)(choice.blocks * block_bytes * 8) / (double)o->capacity : 0.0;
    s->fpr = fpr;
    if (!layered)
        s->predicted_fpr = one;
    else if (o->growth != 0)
        s->predicted_fpr = 1.0 - (1.0 * (1.0 - one));
    else
        s->predicted_fpr = 1.0 - pow(1.0 - one, (double)layers);
    s->layers = layers;
    s->kernel = kernel->name;
    s->layout = choice.layout;
    return BLOOMSIMD_OK;
}
