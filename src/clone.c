/*
 * clone.c — bloomsimd_clone: an independent heap copy of any filter.
 *
 * The copy keeps everything that makes answers and files identical: kernel,
 * flags, seed, geometry, counters, and for layered filters every layer, a
 * scalable filter's growth parameters and a window's phase and generation
 * ages (so slot i of the copy is slot i of the source). Bits are copied with
 * bloomsimd_payload_copy, i.e. with relaxed atomic loads on a CONCURRENT
 * source: inserts racing with the clone are defined behaviour, and each
 * 64-bit word of the copy is some value it had during the clone. A layered
 * source is held still meanwhile (its grows and rotates wait), so the layer
 * table cannot change under the copy.
 *
 * A mapped source (file or borrowed layers) gives a heap copy: writable, not
 * tied to the file, released by destroy like any heap filter.
 * Rejected: copying the struct and the array with memcpy, because a mapped
 * or custom-allocated source would hand its ownership fields to the copy.
 */
#include <stdlib.h>

#include "internal.h"
#include "layers/layers.h"
#include "persist/format.h"

/* A plain filter (or one layer) of the same geometry as src, holding a copy
 * of its bits; kernel, flags and seed from `like` (the handle). */
static bloomsimd_status clone_plain(const bloomsimd_filter *src, const bloomsimd_filter *like,
                                    bloomsimd_filter **out)
{
    bloomsimd_filter *f = malloc(sizeof *f);
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a filter object failed");
    bloomsimd_geometry_choice shape = bloomsimd_shape_of(src, src->geometry.nblocks, src->geometry.k);
    bloomsimd_filter_init(f, &shape, like->seed, like->flags, like->kernel);
    bloomsimd_status st = bloomsimd_alloc_bits(f, src->geometry.nblocks, like->flags);
    if (st != BLOOMSIMD_OK) {
        free(f);
        return st;
    }
    f->capacity = src->capacity;
    f->fpr = src->fpr;
    f->items = bloomsimd_items_get(src);
    f->started_ns = __atomic_load_n(&src->started_ns, __ATOMIC_RELAXED);
    bloomsimd_payload_copy(src, f->geometry.words, 0, bloomsimd_filter_bytes(src));
    *out = f;
    return BLOOMSIMD_OK;
}

static bloomsimd_status clone_layered(const bloomsimd_filter *src, bloomsimd_filter **out)
{
    const bloomsimd_layers *from = src->layers;
    bloomsimd_filter *f;
    bloomsimd_geometry_choice shape = bloomsimd_shape_of(src, 0, src->geometry.k);
    bloomsimd_status st = bloomsimd_layered_handle(from->kind, &shape, src->seed, src->flags, src->kernel->name, &f);
    if (st != BLOOMSIMD_OK) return st;
    f->capacity = src->capacity;
    f->fpr = src->fpr;
    bloomsimd_layers *ls = f->layers;
    ls->growth = from->growth;
    ls->tightening = from->tightening;
    ls->schedule = from->schedule;
    ls->through = from->through; /* as of count: both change only under the lock held here */
    ls->k_option = from->k_option;
    ls->phase = __atomic_load_n(&from->phase, __ATOMIC_ACQUIRE); /* even: rotates wait for the lock */
    uint32_t count = bloomsimd_layer_count(from);
    for (uint32_t i = 0; i < count && st == BLOOMSIMD_OK; i++) {
        bloomsimd_filter **slot = bloomsimd_layer_slot(ls, i);
        st = slot ? clone_plain(bloomsimd_layer_get(from, i), src, slot)
                  : bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the layer table failed");
    }
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        return st;
    }
    ls->count = count;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_clone(bloomsimd_filter **out, const bloomsimd_filter *src)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !src) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "src" : "out");
    if (!src->layers) return clone_plain(src, src, out);
    bloomsimd_layers_hold(src);
    bloomsimd_status st = clone_layered(src, out);
    bloomsimd_layers_release(src);
    return st;
}
