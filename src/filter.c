/*
 * filter.c — filter lifecycle and introspection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dispatch/dispatch.h"
#include "../kernels/layout.h"
#include "internal.h"
#include "layers/layers.h"

const char *bloomsimd_layout_name(uint32_t layout)
{
    switch (layout) {
    case BLOOMSIMD_LAYOUT_BLOCK512: return "block512";
    case BLOOMSIMD_LAYOUT_SPLIT256: return "split256";
    default: return NULL;
    }
}

bloomsimd_status bloomsimd_filter_init(bloomsimd_filter *f, const bloomsimd_geometry_choice *shape, uint64_t seed,
                                       uint32_t flags, const bloomsimd_kernel *kernel)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->kernel = kernel;
    f->seed = seed;
    /* a file records its hash, not the option: the hash flags follow the hash */
    f->flags = flags & ~(BLOOMSIMD_PARQUET | BLOOMSIMD_U64_XXH3 | BLOOMSIMD_U64_MUM);
    switch (shape->hash_id) {
    case BLOOMSIMD_HASH_PARQUET_XXH64: f->flags |= BLOOMSIMD_PARQUET; break;
    case BLOOMSIMD_HASH_MUM: f->flags |= BLOOMSIMD_U64_MUM; break;
    default: f->flags |= BLOOMSIMD_U64_XXH3; break;
    }
    f->geometry.nblocks = shape->blocks;
    f->geometry.k = shape->k;
    f->geometry.layout = shape->layout;
    f->geometry.hash_id = shape->hash_id;
    /* split256 uses every word: no selection table */
    f->geometry.select = shape->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? NULL : bloomsimd_select_tables[shape->k - 1];
    f->geometry.hash_bitflip = bloomsimd_xxh3_bitflip(seed);
    f->geometry.mum_a = bloomsimd_mum_word(seed, BLOOMSIMD_MUM_SALT_A);
    f->geometry.mum_b = bloomsimd_mum_word(seed, BLOOMSIMD_MUM_SALT_B);
    bloomsimd_xxh3_params_init(&f->xxh3, seed);
    f->geometry.concurrent = (flags & BLOOMSIMD_CONCURRENT) != 0;
    bloomsimd_bind_single_key(f);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_create_with(bloomsimd_filter **out, const bloomsimd_options *o)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!o) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "options is NULL");

    if ((o->flags & BLOOMSIMD_PARQUET) && (o->growth != 0 || o->tightening != 0.0 || o->generations > 1))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "BLOOMSIMD_PARQUET with growth %u, generations %u: a Parquet filter is one bit array",
                              (unsigned)o->growth, (unsigned)o->generations);
    if (o->growth != 0 || o->tightening != 0.0 || o->generations > 1) return bloomsimd_layered_create(o, out);

    bloomsimd_geometry_choice choice;
    double target_fpr;
    bloomsimd_status st = bloomsimd_choose_geometry(o, &choice, &target_fpr);
    if (st != BLOOMSIMD_OK) return st;

    const bloomsimd_kernel *kernel;
    st = bloomsimd_select_kernel(o->kernel, &kernel);
    if (st != BLOOMSIMD_OK) return st;

    bloomsimd_filter *f = malloc(sizeof *f);
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the filter object failed");
    bloomsimd_filter_init(f, &choice, o->seed, o->flags, kernel);
    f->capacity = o->capacity;
    f->fpr = target_fpr;
    st = bloomsimd_alloc_bits(f, choice.blocks, o->flags);
    if (st != BLOOMSIMD_OK) {
        free(f);
        return st;
    }
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_create(bloomsimd_filter **out, uint64_t capacity, double fpr)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "out is NULL");
    /* Unlike options.fpr, 0 is not "default" here: the caller asked for it. */
    if (isnan(fpr)) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr is NaN");
    if (!(fpr > 0.0) || fpr >= 1.0)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "fpr %g is outside [1e-10, 1) (bloomsimd_create has no default; options.fpr 0 means 0.01)",
                              fpr);
    if (capacity == 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "capacity 0: give the number of keys to size for");
    bloomsimd_options o = {.capacity = capacity, .fpr = fpr};
    return bloomsimd_create_with(out, &o);
}

void bloomsimd_destroy(bloomsimd_filter *f)
{
    if (!f) return;
    if (f->layers) bloomsimd_layered_destroy(f);
    bloomsimd_free_bits(f);
    if (f->fd >= 0) close(f->fd);
    free(f);
}

void bloomsimd_clear(bloomsimd_filter *f)
{
    if (!f || f->read_only) return;
    if (f->layers) {
        bloomsimd_layered_clear(f);
        return;
    }
    memset(f->geometry.words, 0, bloomsimd_filter_bytes(f));
    f->items = 0;
}

void bloomsimd_get_info(const bloomsimd_filter *f, bloomsimd_info *info)
{
    if (!f || !info) return;
    memset(info, 0, sizeof *info);
    info->layers = 1;
    info->items = bloomsimd_items_get(f);
    info->capacity = f->capacity;
    info->fpr = f->fpr;
    info->blocks = f->geometry.nblocks;
    info->bits = f->geometry.nblocks * bloomsimd_filter_block_bits(f);
    info->k = f->geometry.k;
    info->seed = f->seed;
    info->memory_bytes = f->geometry.nblocks * bloomsimd_layout_block_bytes(f->geometry.layout);
    info->layout = f->geometry.layout;
    info->kernel = f->kernel->name;
    info->flags = f->flags;
    if (f->layers) bloomsimd_layered_info(f, info);
    /* a window's load is its fullest generation's (bloomsimd_window_info) */
    if (!info->generations) info->load = bloomsimd_load_of((double)info->items, info->capacity);
}

double bloomsimd_predicted_fpr(const bloomsimd_filter *f, uint64_t items)
{
    if (!f) {
        bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "filter is NULL");
        return NAN;
    }
    if (f->layers) return bloomsimd_layered_predicted_fpr(f, items);
    return bloomsimd_layout_model_fpr(f->geometry.layout, (double)items, (double)f->geometry.nblocks, f->geometry.k);
}
