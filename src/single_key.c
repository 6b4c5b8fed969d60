/*
 * single_key.c — which single-key functions a filter's calls jump to.
 *
 * bloomsimd_contains_u64(f, key) is `f->single.contains_u64(&f->geometry,
 * key)` after a NULL check (ops.c). The set is bound here whenever what it
 * depends on is set: the kernel and layout (bloomsimd_filter_init), the
 * layers of a scalable filter or a window (layers/create.c), and read-only
 * access (persist/map.c, parquet/mode.c; bloomsimd_filter_set_read_only).
 * A plain writable XXH3 or mum filter gets its kernel's fused hash-and-probe
 * (kernels/single_key.h); the other cases get the functions below, which find
 * their filter from the geometry (the filter's first member).
 */
#include <stddef.h>

#include "internal.h"
#include "layers/layers.h"

_Static_assert(offsetof(bloomsimd_filter, inl) == 0, "the header's inline calls read a filter's first bytes");

static bloomsimd_filter *filter_of(const bloomsimd_geometry *g)
{
    /* the write entries are only ever bound to filters the caller may write */
    return (bloomsimd_filter *)(uintptr_t)((const char *)g - offsetof(bloomsimd_filter, geometry));
}

/* What the header's inline single-key calls may do with f (include/bloomsimd.h,
 * "Single keys, inlined"): probe a plain XXH3 or mum filter in place, and
 * call the library for everything else. */
static bloomsimd_inline inline_view(const bloomsimd_filter *f)
{
    bloomsimd_inline v = {.probe = BLOOMSIMD_INLINE_LIBRARY, .write = BLOOMSIMD_INLINE_LIBRARY};
    /* concurrent filters: the library's racy-read and atomic-OR paths */
    if (f->layers || !f->geometry.words || f->geometry.concurrent) return v;
    const bool split = f->geometry.layout == BLOOMSIMD_LAYOUT_SPLIT256;
    if (f->geometry.hash_id == BLOOMSIMD_HASH_XXH3) {
        v.probe = split ? BLOOMSIMD_INLINE_SPLIT256_XXH3 : BLOOMSIMD_INLINE_BLOCK512_XXH3;
        v.hash_a = f->geometry.hash_bitflip;
    } else if (f->geometry.hash_id == BLOOMSIMD_HASH_MUM) {
        v.probe = split ? BLOOMSIMD_INLINE_SPLIT256_MUM : BLOOMSIMD_INLINE_BLOCK512_MUM;
        v.hash_a = f->geometry.mum_a;
        v.hash_b = f->geometry.mum_b;
    } else {
        return v; /* Parquet's XXH64: the library's calls */
    }
    v.write = f->read_only ? BLOOMSIMD_INLINE_LIBRARY : v.probe; /* the library refuses those adds */
    v.words = (uint64_t *)(void *)f->geometry.words;
    v.nblocks = f->geometry.nblocks;
    v.select = f->geometry.select;
    return v;
}

static const bloomsimd_single_key *kernel_entries(const bloomsimd_filter *f)
{
    return &f->kernel->single[bloomsimd_layout_slot(f->geometry.layout)];
}

/* ---- read-only filters (a read-only mapping, a Parquet view): writes refused ---- */
static bloomsimd_status refuse_write(const bloomsimd_geometry *g, uint64_t key_or_hash)
{
    (void)key_or_hash;
    return bloomsimd_check_writable(filter_of(g));
}

static bloomsimd_status refuse_add_new(const bloomsimd_geometry *g, uint64_t key_or_hash, bool *was_new)
{
    if (was_new) *was_new = false;
    return refuse_write(g, key_or_hash);
}

/* ---- Parquet filters: XXH64 of the key, then the kernel's probe ---- */
static bloomsimd_status parquet_add_u64(const bloomsimd_geometry *g, uint64_t key)
{
    return kernel_entries(filter_of(g))->add_hash(g, bloomsimd_xxh64_u64(key));
}

static bool parquet_contains_u64(const bloomsimd_geometry *g, uint64_t key)
{
    return kernel_entries(filter_of(g))->contains_hash(g, bloomsimd_xxh64_u64(key));
}

static bloomsimd_status parquet_add_new_u64(const bloomsimd_geometry *g, uint64_t key, bool *was_new)
{
    return kernel_entries(filter_of(g))->add_new_hash(g, bloomsimd_xxh64_u64(key), was_new);
}

/* ---- scalable filters and windows: the layers' own paths ---- */
static bloomsimd_status layered_add_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    size_t counted;
    return bloomsimd_layered_insert(filter_of(g), &hash, false, 1, NULL, &counted, false);
}

static bool layered_contains_hash(const bloomsimd_geometry *g, uint64_t hash)
{
    return bloomsimd_layered_contains_one(filter_of(g), hash);
}

static bloomsimd_status layered_add_u64(const bloomsimd_geometry *g, uint64_t key)
{
    return layered_add_hash(g, bloomsimd_key_hash_u64(filter_of(g), key));
}

static bool layered_contains_u64(const bloomsimd_geometry *g, uint64_t key)
{
    return layered_contains_hash(g, bloomsimd_key_hash_u64(filter_of(g), key));
}

/* the layers count a new key in the layer it lands in */
static bloomsimd_status layered_add_new_hash(const bloomsimd_geometry *g, uint64_t hash, bool *was_new)
{
    uint8_t fresh = 0;
    size_t counted;
    bloomsimd_status st = bloomsimd_layered_insert(filter_of(g), &hash, false, 1, &fresh, &counted, true);
    if (was_new) *was_new = fresh != 0;
    return st;
}

static bloomsimd_status layered_add_new_u64(const bloomsimd_geometry *g, uint64_t key, bool *was_new)
{
    return layered_add_new_hash(g, bloomsimd_key_hash_u64(filter_of(g), key), was_new);
}

void bloomsimd_bind_single_key(bloomsimd_filter *f)
{
    bloomsimd_single_key s = *kernel_entries(f);
    if (f->geometry.hash_id == BLOOMSIMD_HASH_MUM) {
        s.add_u64 = s.add_u64_mum;
        s.contains_u64 = s.contains_u64_mum;
        s.add_new_u64 = s.add_new_u64_mum;
    }
    if (bloomsimd_is_parquet(f)) {
        s.add_u64 = parquet_add_u64;
        s.contains_u64 = parquet_contains_u64;
        s.add_new_u64 = parquet_add_new_u64;
    }
    if (f->layers) {
        s = (bloomsimd_single_key){.add_u64 = layered_add_u64,
                                   .contains_u64 = layered_contains_u64,
                                   .add_hash = layered_add_hash,
                                   .contains_hash = layered_contains_hash,
                                   .add_new_u64 = layered_add_new_u64,
                                   .add_new_hash = layered_add_new_hash};
    }
    if (f->read_only) {
        s.add_u64 = s.add_hash = refuse_write;
        s.add_new_u64 = s.add_new_hash = refuse_add_new;
    }
    f->single = s;
    f->geometry.items = &f->items;
    f->inl = inline_view(f);
}

void bloomsimd_filter_set_read_only(bloomsimd_filter *f, bool read_only)
{
    f->read_only = read_only;
    bloomsimd_bind_single_key(f);
}
