/*
 * create.c — life cycle and introspection of layered filters (scalable
 * filters and windows): options, the handle and its layers, destroy, clear,
 * get_info and the FPR model of the whole filter.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../dispatch/dispatch.h"
#include "../../kernels/layout.h"
#include "layers.h"

int64_t bloomsimd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bloomsimd_status bloomsimd_layered_handle(bloomsimd_kind kind, const bloomsimd_geometry_choice *shape, uint64_t seed,
                                          uint32_t flags, const char *kernel_name, bloomsimd_filter **out)
{
    const bloomsimd_kernel *kernel;
    bloomsimd_status st = bloomsimd_select_kernel(kernel_name, &kernel);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_filter *f = malloc(sizeof *f);
    void *ls = NULL;
    if (!f || posix_memalign(&ls, 64, sizeof(bloomsimd_layers)) != 0) {
        free(f);
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the layered filter object failed");
    }
    /* no bit array of its own: nblocks 0, words NULL (internal.h) */
    bloomsimd_geometry_choice none = *shape;
    none.blocks = 0;
    bloomsimd_filter_init(f, &none, seed, flags, kernel);
    f->storage = BLOOMSIMD_STORAGE_BORROWED;
    f->layers = ls;
    memset(f->layers, 0, sizeof *f->layers);
    f->layers->kind = kind;
    bloomsimd_bind_single_key(f);
    if (pthread_mutex_init(&f->layers->lock, NULL) != 0) {
        free(ls);
        free(f);
        return BLOOMSIMD_ERR_NO_MEMORY;
    }
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_layer_alloc(const bloomsimd_filter *handle, uint64_t blocks, uint32_t k,
                                       uint64_t capacity, double fpr, bloomsimd_filter **out)
{
    bloomsimd_filter *layer = malloc(sizeof *layer);
    if (!layer) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a layer object failed");
    bloomsimd_geometry_choice shape = bloomsimd_shape_of(handle, blocks, k);
    bloomsimd_filter_init(layer, &shape, handle->seed, handle->flags, handle->kernel);
    layer->capacity = capacity;
    layer->fpr = fpr;
    bloomsimd_status st = bloomsimd_alloc_bits(layer, blocks, handle->flags);
    if (st != BLOOMSIMD_OK) {
        free(layer);
        return st;
    }
    *out = layer;
    return BLOOMSIMD_OK;
}

bloomsimd_filter **bloomsimd_layer_slot(bloomsimd_layers *ls, uint32_t i)
{
    if (i < BLOOMSIMD_LAYERS_INLINE) return &ls->layer[i];
    uint32_t s = bloomsimd_layer_segment(i), first = bloomsimd_segment_first(s);
    if (!ls->segment[s]) ls->segment[s] = calloc(first, sizeof *ls->segment[s]); /* segment s holds `first` */
    return ls->segment[s] ? &ls->segment[s][i - first] : NULL;
}

void bloomsimd_layered_destroy(bloomsimd_filter *f)
{
    bloomsimd_layers *ls = f->layers;
    /* every slot, not only the first `count`: a failed load or clone leaves
     * layers in slots it never published */
    for (uint32_t i = 0; i < BLOOMSIMD_LAYERS_INLINE; i++) bloomsimd_destroy(ls->layer[i]);
    for (uint32_t s = 1; s < BLOOMSIMD_LAYER_SEGMENTS; s++) {
        if (!ls->segment[s]) continue;
        for (uint32_t j = 0; j < bloomsimd_segment_first(s); j++) bloomsimd_destroy(ls->segment[s][j]);
        free(ls->segment[s]);
    }
    pthread_mutex_destroy(&ls->lock);
    free(ls);
    f->layers = NULL;
}

/* ---- options ---- */

#define BAD_OPTION(...) bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, __VA_ARGS__)

bloomsimd_status bloomsimd_layered_validate(const bloomsimd_options *o, double *fpr, bloomsimd_chain_plan *plan)
{
    if (isnan(o->fpr)) return BAD_OPTION("fpr is NaN");
    if (o->fpr < 0.0 || o->fpr >= 1.0) return BAD_OPTION("fpr %g is outside [1e-10, 1) (0 means 0.01)", o->fpr);
    *fpr = o->fpr == 0.0 ? BLOOMSIMD_DEFAULT_FPR : o->fpr;
    if (o->growth != 0 && o->generations > 1)
        return BAD_OPTION("growth %u with generations %u: a filter is scalable or a window, not both",
                          (unsigned)o->growth, (unsigned)o->generations);
    if (isnan(o->tightening) || o->tightening < 0.0 || o->tightening >= 1.0)
        return BAD_OPTION("tightening %g is outside (0, 1) (0 means the default budget schedule)", o->tightening);
    if (o->growth == 0 && o->tightening != 0.0)
        return BAD_OPTION("tightening %g without growth: only a scalable filter has one", o->tightening);
    if (o->generations > BLOOMSIMD_MAX_GENERATIONS)
        return BAD_OPTION("generations %u is above the maximum %u", (unsigned)o->generations,
                          BLOOMSIMD_MAX_GENERATIONS);
    if (o->growth != 0) {
        /* every layer is sized from its capacity: no explicit bits */
        if (o->capacity == 0) return BAD_OPTION("growth without capacity: the first layer is sized from it");
        if (o->bits != 0) return BAD_OPTION("growth with bits: each layer is sized from its capacity and fpr");
        *plan = (bloomsimd_chain_plan){
            .schedule = o->tightening == 0.0 ? BLOOMSIMD_SCHEDULE_BUDGET : BLOOMSIMD_SCHEDULE_GEOMETRIC,
            .growth = o->growth,
            .tightening = o->tightening,
            .capacity = o->capacity,
            .fpr = *fpr};
        /* the remaining options (k, flags) are checked by sizing */
        double first = bloomsimd_chain_first(plan).fpr;
        if (first < BLOOMSIMD_MIN_FPR) {
            if (plan->schedule == BLOOMSIMD_SCHEDULE_BUDGET)
                return BAD_OPTION("the first layer's fpr %g / 3 = %g is below the minimum 1e-10", *fpr, first);
            return BAD_OPTION("the first layer's fpr %g * (1 - %g) = %g is below the minimum 1e-10", *fpr,
                              o->tightening, first);
        }
    }
    return BLOOMSIMD_OK;
}

/* Sizes and allocates the layer of one step of a scalable filter's plan. */
static bloomsimd_status scalable_layer(const bloomsimd_filter *f, const bloomsimd_chain_step *step,
                                       bloomsimd_filter **out)
{
    bloomsimd_options lo = {.capacity = step->capacity,
                            .fpr = step->fpr,
                            .k = f->layers->k_option,
                            .flags = f->flags,
                            .layout = f->geometry.layout};
    bloomsimd_geometry_choice choice;
    double target;
    bloomsimd_status st = bloomsimd_choose_geometry(&lo, &choice, &target);
    if (st != BLOOMSIMD_OK) return st;
    return bloomsimd_layer_alloc(f, choice.blocks, choice.k, step->capacity, step->fpr, out);
}

bloomsimd_status bloomsimd_scalable_next_layer(const bloomsimd_filter *f, uint32_t i, bloomsimd_filter **out,
                                               double *through)
{
    const bloomsimd_layers *ls = f->layers;
    if (i >= BLOOMSIMD_MAX_LAYERS)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "the filter has the maximum %u layers", BLOOMSIMD_MAX_LAYERS);
    const bloomsimd_filter *prev = bloomsimd_layer_get(ls, i - 1);
    bloomsimd_chain_plan plan = bloomsimd_chain_plan_of(f);
    bloomsimd_chain_step last = {.capacity = prev->capacity, .fpr = prev->fpr, .through = ls->through}, next;
    bloomsimd_status st = bloomsimd_chain_next(&plan, &last, &next);
    if (st != BLOOMSIMD_OK) return st;
    *through = next.through;
    return scalable_layer(f, &next, out);
}

/* G generations of the geometry sizing gives the options (each sized for
 * `capacity` keys at `fpr`, or `bits`), all started now. */
static bloomsimd_status window_create(const bloomsimd_options *o, bloomsimd_filter **out)
{
    bloomsimd_geometry_choice choice;
    double target;
    bloomsimd_options lo = *o;
    lo.generations = 0;
    bloomsimd_status st = bloomsimd_choose_geometry(&lo, &choice, &target);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_filter *f;
    st = bloomsimd_layered_handle(BLOOMSIMD_KIND_WINDOW, &choice, o->seed, o->flags, o->kernel, &f);
    if (st != BLOOMSIMD_OK) return st;
    f->capacity = o->capacity;
    f->fpr = target;
    bloomsimd_layers *ls = f->layers;
    ls->k_option = o->k;
    int64_t now = bloomsimd_now_ns();
    for (uint32_t i = 0; i < o->generations && st == BLOOMSIMD_OK; i++) {
        st = bloomsimd_layer_alloc(f, choice.blocks, choice.k, o->capacity, target, &ls->layer[i]);
        if (st == BLOOMSIMD_OK) ls->layer[i]->started_ns = now;
    }
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        return st;
    }
    ls->count = o->generations;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_layered_create(const bloomsimd_options *o, bloomsimd_filter **out)
{
    double fpr = 0.0; /* set by validate */
    bloomsimd_chain_plan plan;
    bloomsimd_status st = bloomsimd_layered_validate(o, &fpr, &plan);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_kind kind = o->growth ? BLOOMSIMD_KIND_SCALABLE : BLOOMSIMD_KIND_WINDOW;
    if (kind == BLOOMSIMD_KIND_WINDOW) return window_create(o, out);

    /* the first layer decides k (and validates the remaining options) */
    bloomsimd_chain_step first = bloomsimd_chain_first(&plan);
    bloomsimd_options lo = {
        .capacity = o->capacity, .fpr = first.fpr, .k = o->k, .flags = o->flags, .kernel = o->kernel, .layout = o->layout};
    bloomsimd_geometry_choice choice;
    double target;
    st = bloomsimd_choose_geometry(&lo, &choice, &target);
    if (st != BLOOMSIMD_OK) return st;

    bloomsimd_filter *f;
    st = bloomsimd_layered_handle(kind, &choice, o->seed, o->flags, o->kernel, &f);
    if (st != BLOOMSIMD_OK) return st;
    f->capacity = o->capacity;
    f->fpr = fpr;
    bloomsimd_layers *ls = f->layers;
    ls->growth = o->growth;
    ls->tightening = plan.tightening;
    ls->schedule = plan.schedule;
    ls->through = first.through;
    ls->k_option = o->k;
    st = bloomsimd_layer_alloc(f, choice.blocks, choice.k, o->capacity, first.fpr, &ls->layer[0]);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        return st;
    }
    ls->count = 1;
    *out = f;
    return BLOOMSIMD_OK;
}

/* ---- clear, info, model ---- */

void bloomsimd_layered_clear(bloomsimd_filter *f)
{
    bloomsimd_layers *ls = f->layers;
    uint32_t count = ls->count;
    /* A heap scalable filter starts over from its first layer; layers that
     * live in a file mapping cannot be released, so they are only zeroed. */
    if (ls->kind == BLOOMSIMD_KIND_SCALABLE && f->storage != BLOOMSIMD_STORAGE_FILE_MAP) {
        for (uint32_t i = 1; i < count; i++) {
            bloomsimd_filter **slot = bloomsimd_layer_slot(ls, i); /* allocated: layer i exists */
            bloomsimd_destroy(*slot);
            *slot = NULL;
        }
        count = ls->count = 1;
        ls->through = (double)ls->layer[0]->capacity;
    }
    int64_t now = bloomsimd_now_ns();
    for (uint32_t i = 0; i < count; i++) {
        bloomsimd_filter *layer = bloomsimd_layer_get(ls, i);
        bloomsimd_clear(layer);
        layer->items = 0;
        if (ls->kind == BLOOMSIMD_KIND_WINDOW) layer->started_ns = now;
    }
}

void bloomsimd_layered_info(const bloomsimd_filter *f, bloomsimd_info *info)
{
    const bloomsimd_layers *ls = f->layers;
    uint32_t count = bloomsimd_layer_count(ls);
    info->layers = count;
    info->k = ls->layer[0]->geometry.k;
    info->blocks = 0;
    info->items = 0;
    for (uint32_t i = 0; i < count; i++) {
        const bloomsimd_filter *layer = bloomsimd_layer_get(ls, i);
        info->blocks += layer->geometry.nblocks;
        info->items += bloomsimd_items_get(layer);
    }
    info->bits = info->blocks * bloomsimd_filter_block_bits(f);
    info->memory_bytes = info->blocks * bloomsimd_layout_block_bytes(f->geometry.layout);
    if (ls->kind == BLOOMSIMD_KIND_SCALABLE) {
        info->growth = ls->growth;
        info->tightening = ls->tightening;
    } else {
        bloomsimd_window_info(f, info);
    }
}

/* FPR of the chain after `items` new keys filled the layers in order: every
 * layer but the last full, layers not grown yet sized as they would be.
 * Layers are modelled as independent, 1 - prod(1 - f_i); the union bound
 * sum f_i <= fpr (docs/SCALABLE.md) bounds it either way. */
static double scalable_fpr(const bloomsimd_filter *f, uint64_t items)
{
    const bloomsimd_layers *ls = f->layers;
    uint32_t count = bloomsimd_layer_count(ls);
    bloomsimd_chain_plan plan = bloomsimd_chain_plan_of(f);
    bloomsimd_chain_step step = bloomsimd_chain_first(&plan);
    double miss = 1.0;
    uint64_t left = items;
    for (uint32_t i = 0; i < BLOOMSIMD_MAX_LAYERS; i++) {
        uint64_t blocks;
        uint32_t k;
        if (i > 0) {
            bloomsimd_chain_step next;
            if (bloomsimd_chain_next(&plan, &step, &next) != BLOOMSIMD_OK) return NAN;
            step = next;
        }
        if (i < count) {
            const bloomsimd_filter *layer = bloomsimd_layer_get(ls, i);
            blocks = layer->geometry.nblocks, k = layer->geometry.k;
        } else {
            bloomsimd_options lo = {.capacity = step.capacity, .fpr = step.fpr, .k = ls->k_option, .layout = f->geometry.layout};
            bloomsimd_geometry_choice choice;
            double target;
            if (bloomsimd_choose_geometry(&lo, &choice, &target) != BLOOMSIMD_OK) return NAN;
            blocks = choice.blocks, k = choice.k;
        }
        uint64_t here = left < step.capacity ? left : step.capacity;
        miss *= 1.0 - bloomsimd_layout_model_fpr(f->geometry.layout, (double)here, (double)blocks, k);
        left -= here;
        if (left == 0) return 1.0 - miss;
    }
    return NAN;
}

double bloomsimd_layered_predicted_fpr(const bloomsimd_filter *f, uint64_t items)
{
    const bloomsimd_layers *ls = f->layers;
    if (ls->kind == BLOOMSIMD_KIND_SCALABLE) return scalable_fpr(f, items);
    /* a window: every generation holding `items` keys */
    const bloomsimd_filter *g = ls->layer[0];
    double one = bloomsimd_layout_model_fpr(g->geometry.layout, (double)items, (double)g->geometry.nblocks, g->geometry.k);
    return 1.0 - pow(1.0 - one, (double)ls->count);
}
