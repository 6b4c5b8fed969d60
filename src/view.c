/*
 * view.c — direct access to a plain filter's bit array for language bindings
 * (bloomsimd_get_view, bloomsimd_get_probe): the Go and Java packages probe
 * single keys over it without a foreign call per key, with the hash and
 * salt constants the library itself uses, so that no binding keeps a copy
 * that could drift from kernels/layout.h.
 */
#include "internal.h"
#include "persist/format.h"

/* The checks both calls share: a single bit array whose 64-bit keys a
 * binding can hash (XXH3 or mum); Parquet's XXH64 of a key's PLAIN encoding
 * stays in the library. */
static bloomsimd_status check_viewable(const bloomsimd_filter *f, const void *out, const char *out_name)
{
    if (!f || !out)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? out_name : "filter");
    if (f->layers)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "a layered filter has no single bit array to view");
    if (bloomsimd_is_parquet(f))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "a Parquet filter (XXH64) has no view: bindings use the C calls for it");
    return BLOOMSIMD_OK;
}

static bloomsimd_view view_of(const bloomsimd_filter *f)
{
    return (bloomsimd_view){
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
}

bloomsimd_status bloomsimd_get_view(const bloomsimd_filter *f, bloomsimd_view *view)
{
    bloomsimd_error_clear();
    bloomsimd_status s = check_viewable(f, view, "view");
    if (s != BLOOMSIMD_OK) return s;
    /* The view promises the XXH3 hash of its seed, and programs written
     * against it probe with it: a mum filter is refused here, so they call
     * the library for it rather than misprobe; bloomsimd_get_probe says which
     * hash a filter uses. */
    if (f->geometry.hash_id != BLOOMSIMD_HASH_XXH3)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "a filter of hash %u has no view (it promises XXH3): use bloomsimd_get_probe",
                              (unsigned)f->geometry.hash_id);
    *view = view_of(f);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_get_probe(const bloomsimd_filter *f, bloomsimd_view *view,
                                     bloomsimd_probe_constants *constants)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    bloomsimd_error_clear();
    bloomsimd_status s = check_viewable(f, view, "view");
    if (s == BLOOMSIMD_OK && !constants) s = bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "constants is NULL");
    if (s != BLOOMSIMD_OK) return s;
    const bool mum = f->geometry.hash_id == BLOOMSIMD_HASH_MUM;
    /* Only the two hashes this call can describe reach here (Parquet's is
     * refused above); a hash added later must get its own value of `hash`
     * before it is described, or bindings would probe it as XXH3. */
    if (!mum && f->geometry.hash_id != BLOOMSIMD_HASH_XXH3)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "a filter of hash %u has no probe constants",
                              (unsigned)f->geometry.hash_id);
    bloomsimd_probe_constants c = {
        .hash = mum ? BLOOMSIMD_U64_MUM : BLOOMSIMD_U64_XXH3,
        .xxh3_bitflip = f->geometry.hash_bitflip,
        .mum_a = mum ? f->geometry.mum_a : 0,
        .mum_b = mum ? f->geometry.mum_b : 0,
    };
    memcpy(c.salts, salts, sizeof salts);
    *view = view_of(f);
    *constants = c;
    return BLOOMSIMD_OK;
}
