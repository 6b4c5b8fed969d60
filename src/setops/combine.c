/*
 * combine.c — union and intersection of two filters of the same geometry.
 *
 * Two filters built with the same blocks, k and seed put every key on the
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

static bloomsimd_status check_pair(const bloomsimd_filter *dst, const bloomsimd_filter *src)
{
    if (!dst || !src) return BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (dst->read_only) return BLOOMSIMD_ERR_READ_ONLY;
    if (dst->geometry.nblocks != src->geometry.nblocks || dst->geometry.k != src->geometry.k ||
        dst->seed != src->seed)
        return BLOOMSIMD_ERR_INCOMPATIBLE;
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

bloomsimd_status bloomsimd_union(bloomsimd_filter *dst, const bloomsimd_filter *src)
{
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
