/*
 * combine.c — union and intersection of two filters of the same geometry.
 *
 * Two filters built with the same layout, hash, blocks, k and seed put every key on the
 * same bits, so OR-ing their bit arrays gives exactly the filter of the union
 * of their key sets (byte for byte), and AND-ing gives a filter that still
 * contains every key of the intersection (plus the bits that the two sets
 * happen to share, so its FPR is at least that of the filter built from the
 * intersection alone).
 *
 * The plain path is the kernel's union_words / intersect_words (SIMD over
 * the arrays). When either filter is BLOOMSIMD_CONCURRENT, other threads may
 * be inserting into dst or src while we combine, so the words are read with
 * relaxed atomic loads and dst is changed with atomic OR / AND: a concurrent
 * insert into dst is never lost by a union (an intersect may of course clear
 * it, exactly as if the insert had come just before). Only words that would
 * change are written, so a union of mostly-equal filters costs no atomic
 * read-modify-writes.
 */
#include "../baseline.h"

#include "../internal.h"
#include "../layers/layers.h"

static bloomsimd_status check_pair(const bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    if (!dst || !src) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", dst ? "src" : "dst");
    if (dst->read_only) return bloomsimd_check_writable(dst);
    if (dst->layers || src->layers) /* layered: see layered_union */
        return bloomsimd_fail(BLOOMSIMD_ERR_INCOMPATIBLE, "intersect of a layered filter, or union of a layered "
                                                          "filter with a plain one");
    if (dst->geometry.layout != src->geometry.layout || dst->geometry.hash_id != src->geometry.hash_id)
        return bloomsimd_fail(BLOOMSIMD_ERR_INCOMPATIBLE, "dst has layout %s, hash %u; src has layout %s, hash %u",
                              bloomsimd_layout_name(dst->geometry.layout), (unsigned)dst->geometry.hash_id,
                              bloomsimd_layout_name(src->geometry.layout), (unsigned)src->geometry.hash_id);
    if (dst->geometry.nblocks != src->geometry.nblocks || dst->geometry.k != src->geometry.k ||
        dst->seed != src->seed)
        return bloomsimd_fail(BLOOMSIMD_ERR_INCOMPATIBLE,
                              "dst has %llu blocks, k %u, seed %llu; src has %llu blocks, k %u, seed %llu",
                              (unsigned long long)dst->geometry.nblocks, (unsigned)dst->geometry.k,
                              (unsigned long long)dst->seed, (unsigned long long)src->geometry.nblocks,
                              (unsigned)src->geometry.k, (unsigned long long)src->seed);
    return BLOOMSIMD_OK;
}

static bool needs_atomics(const bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    return dst->geometry.concurrent || src->geometry.concurrent;
}

static void atomic_union_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++) {
        uint64_t add = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
        uint64_t have = __atomic_load_n(&dst[i], __ATOMIC_RELAXED);
        if (add & ~have) __atomic_fetch_or(&dst[i], add, __ATOMIC_RELAXED);
    }
}

static void atomic_intersect_words(uint64_t *dst, const uint64_t *src, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++) {
        uint64_t keep = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
        uint64_t have = __atomic_load_n(&dst[i], __ATOMIC_RELAXED);
        if (have & ~keep) __atomic_fetch_and(&dst[i], keep, __ATOMIC_RELAXED);
    }
}

static size_t array_words64(const bloomsimd_filter *f)
{
    return bloomsimd_filter_bytes(f) / sizeof(uint64_t);
}

/* items of a layer after a union: the sum, at most the layer's capacity for
 * a scalable layer (it is full then, and the filter grows on the next new
 * key); atomically when concurrent. */
static void merge_items(bloomsimd_filter *dst, const bloomsimd_filter *src, bool cap)
{
    uint64_t add = bloomsimd_items_get(src);
    uint64_t cur = bloomsimd_items_get(dst), next;
    do {
        next = cur + add < cur ? UINT64_MAX : cur + add;
        if (cap && next > dst->capacity) next = dst->capacity;
        if (!dst->geometry.concurrent) {
            dst->items = next;
            return;
        }
    } while (!__atomic_compare_exchange_n(&dst->items, &cur, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/*
 * Layered filters combine layer by layer, and only when they are built alike:
 * the same kind and seed; a scalable filter the same growth, tightening and
 * number of layers with the same blocks and k in each (two filters created
 * with the same options grow through the same layers); a window the same
 * generations and geometry, matched by age (current with current, ...).
 * Anything else is INCOMPATIBLE and dst is untouched. Grows and rotates of
 * dst (and of src, for a window) are held off meanwhile by their locks,
 * taken in address order so that two opposite unions cannot deadlock.
 */
static bloomsimd_status layered_union(bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    if (!dst->layers || !src->layers)
        return bloomsimd_fail(BLOOMSIMD_ERR_INCOMPATIBLE, "union of a layered filter with a plain one");
    bloomsimd_layers *dl = dst->layers, *sl = src->layers;
    if (dl->kind != sl->kind || dst->seed != src->seed || dst->geometry.layout != src->geometry.layout ||
        dst->geometry.hash_id != src->geometry.hash_id)
        return bloomsimd_fail(BLOOMSIMD_ERR_INCOMPATIBLE, "the filters differ in kind, seed, layout or hash");
    if (dst == src) return BLOOMSIMD_OK;
    pthread_mutex_t *first = &dl->lock, *second = &sl->lock;
    if ((uintptr_t)first > (uintptr_t)second) first = &sl->lock, second = &dl->lock;
    pthread_mutex_lock(first);
    pthread_mutex_lock(second);
    bloomsimd_status st = BLOOMSIMD_OK;
    uint32_t count = __atomic_load_n(&dl->count, __ATOMIC_ACQUIRE);
    if (count != __atomic_load_n(&sl->count, __ATOMIC_ACQUIRE)) st = BLOOMSIMD_ERR_INCOMPATIBLE;
    if (dl->kind == BLOOMSIMD_KIND_SCALABLE && (dl->growth != sl->growth || dl->tightening != sl->tightening))
        st = BLOOMSIMD_ERR_INCOMPATIBLE;
    /* a window's generation of age i (slot (rotations - i) mod G); a scalable filter's layer i */
    bool window = dl->kind == BLOOMSIMD_KIND_WINDOW;
    uint64_t d_rot = __atomic_load_n(&dl->phase, __ATOMIC_ACQUIRE) >> 1;
    uint64_t s_rot = __atomic_load_n(&sl->phase, __ATOMIC_ACQUIRE) >> 1;
#define D_LAYER(i) bloomsimd_layer_get(dl, window ? (uint32_t)((d_rot + count - (i) % count) % count) : (i))
#define S_LAYER(i) bloomsimd_layer_get(sl, window ? (uint32_t)((s_rot + count - (i) % count) % count) : (i))
    for (uint32_t i = 0; st == BLOOMSIMD_OK && i < count; i++) {
        const bloomsimd_filter *a = D_LAYER(i), *b = S_LAYER(i);
        if (a->geometry.nblocks != b->geometry.nblocks || a->geometry.k != b->geometry.k)
            st = BLOOMSIMD_ERR_INCOMPATIBLE;
    }
    if (st != BLOOMSIMD_OK)
        bloomsimd_fail(st, "the layered filters did not grow alike (layer count, growth, tightening, or "
                           "blocks and k of some layer differ)");
    for (uint32_t i = 0; st == BLOOMSIMD_OK && i < count; i++) {
        bloomsimd_filter *a = D_LAYER(i);
        const bloomsimd_filter *b = S_LAYER(i);
        bloomsimd_union(a, b);
        merge_items(a, b, dl->kind == BLOOMSIMD_KIND_SCALABLE);
    }
#undef D_LAYER
#undef S_LAYER
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
    return st;
}

bloomsimd_status bloomsimd_union(bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    bloomsimd_error_clear();
    if (dst && src && !dst->read_only && (dst->layers || src->layers)) return layered_union(dst, src);
    bloomsimd_status st = check_pair(dst, src);
    if (st != BLOOMSIMD_OK || dst == src) return st;
    uint64_t *d = (uint64_t *)(void *)dst->geometry.words;
    const uint64_t *s = (const uint64_t *)(const void *)src->geometry.words;
    if (needs_atomics(dst, src))
        atomic_union_words(d, s, array_words64(dst));
    else
        dst->kernel->union_words(d, s, array_words64(dst));
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_intersect(bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    bloomsimd_error_clear();
    bloomsimd_status st = check_pair(dst, src);
    if (st != BLOOMSIMD_OK || dst == src) return st;
    uint64_t *d = (uint64_t *)(void *)dst->geometry.words;
    const uint64_t *s = (const uint64_t *)(const void *)src->geometry.words;
    if (needs_atomics(dst, src))
        atomic_intersect_words(d, s, array_words64(dst));
    else
        dst->kernel->intersect_words(d, s, array_words64(dst));
    return BLOOMSIMD_OK;
}
