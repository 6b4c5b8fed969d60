/*
 * view.c — direct access to a plain filter's bit array for language bindings
 * (bloomsimd_get_view): the Go package probes single keys over it without a
 * foreign call per key.
 */
#include "internal.h"
#include "persist/format.h"

bloomsimd_status bloomsimd_get_view(const bloomsimd_filter *f, bloomsimd_view *view)
{
    /* a layered filter has no single bit array: bindings use the C calls */
    bloomsimd_error_clear();
    if (!f || !view)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "view" : "filter");
    if (f->layers)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "a layered filter has no single bit array to view");
    /* the view promises the XXH3 hash of its seed; bindings probe with it */
    if (bloomsimd_is_parquet(f))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "a Parquet filter (XXH64) has no view: bindings use the C calls for it");
    if (f->geometry.hash_id != BLOOMSIMD_HASH_XXH3)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "a filter of hash %u has no view (it promises XXH3): bindings use the C calls for it",
                              (unsigned)f->geometry.hash_id);
    *view = (bloomsimd_view){
        .blocks = f->geometry.words,
        .nblocks = f->geometry.nblocks,
        .k = f->geometry.k,
        .seed = f->seed,
        .select = f->geometry.select,
        .layout = f->geometry.layout,
        .concurrent = f->geometry.concurrent,
        .read_only = f->read_only,
        .items = (uint64_t *)(uintptr_t)&f->items, /* writable by contract, like blocks */
    };
    return BLOOMSIMD_OK;
}
