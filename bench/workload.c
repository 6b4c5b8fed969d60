/*
 * workload.c — pre-generated keys, so that timed loops only run the filter.
 *
 * key(stream, i) = mix(((stream << 48) | i) ^ seed'): mix (the splitmix64
 * finaliser times an odd constant) is a bijection of 64-bit words, and the
 * counters are distinct for i < 2^48, so keys are distinct within and across
 * streams: "absent" keys really are absent, and every false positive counted
 * is a real one. A size's workload: n inserted keys, and q queries each of
 * absent keys, 50% present and 100% present keys.
 */
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "run.h"

static uint64_t bench_mix(uint64_t z)
{
    z *= UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A fixed, seed-dependent bijection input offset. */
static uint64_t seed_offset(uint64_t seed) { return bench_mix(seed ^ UINT64_C(0x5bd1e9955bd1e995)); }

uint64_t *bench_keys(size_t n, uint64_t seed, uint64_t stream)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return NULL;
    uint64_t off = seed_offset(seed);
    for (size_t i = 0; i < n; i++) keys[i] = bench_mix(((stream << 48) | (uint64_t)i) ^ off);
    return keys;
}

/* (x * n) >> 64 without 128-bit types: uniform in [0, n) for uniform x. */
static uint64_t reduce(uint64_t x, uint64_t n)
{
    uint64_t xh = x >> 32, xl = (uint32_t)x, nh = n >> 32, nl = (uint32_t)n;
    uint64_t mid = xh * nl + ((xl * nl) >> 32);
    uint64_t mid2 = xl * nh + (uint32_t)mid;
    return xh * nh + (mid >> 32) + (mid2 >> 32);
}

uint64_t *bench_mixed_queries(const uint64_t *inserted, size_t n, const uint64_t *absent, size_t q, unsigned pct,
                              uint64_t seed)
{
    uint64_t *out = malloc((q ? q : 1) * sizeof *out);
    if (!out) return NULL;
    uint64_t off = seed_offset(seed ^ pct);
    for (size_t i = 0; i < q; i++) {
        uint64_t r = bench_mix((UINT64_C(0xffff) << 48 | (uint64_t)i) ^ off);
        bool present = n > 0 && (r % 100u) < pct;
        out[i] = present ? inserted[reduce(r, n)] : absent[i];
    }
    return out;
}

bool bench_byte_keys_make(bench_byte_keys *b, const uint64_t *keys, size_t n, size_t len)
{
    memset(b, 0, sizeof *b);
    size_t stride = (len + 7u) & ~(size_t)7u;
    b->data = malloc(n * stride + 8);
    b->ptrs = malloc((n ? n : 1) * sizeof *b->ptrs);
    b->lens = malloc((n ? n : 1) * sizeof *b->lens);
    if (!b->data || !b->ptrs || !b->lens) {
        bench_byte_keys_free(b);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = b->data + i * stride;
        uint64_t word = keys[i];
        /* the first 8 bytes are the key itself, so distinct keys stay distinct */
        for (size_t j = 0; j < stride; j += 8) {
            memcpy(p + j, &word, 8);
            word = bench_mix(word);
        }
        b->ptrs[i] = p;
        b->lens[i] = len;
    }
    b->n = n;
    return true;
}

void bench_byte_keys_free(bench_byte_keys *b)
{
    free(b->data);
    free((void *)b->ptrs);
    free(b->lens);
    memset(b, 0, sizeof *b);
}

bloomsimd_options bench_filter_options(const bench_options *o, uint64_t n, const char *kernel, uint32_t flags)
{
    bloomsimd_options opt = {.capacity = n, .k = o->k, .kernel = kernel, .flags = flags, .layout = o->layout};
    if (o->fpr > 0)
        opt.fpr = o->fpr;
    else
        opt.bits = (uint64_t)ceil((double)n * o->bits_per_key);
    return opt;
}

bool bench_workload_make(bench_workload *w, const bench_options *o, uint64_t n)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->q = (size_t)(o->queries ? o->queries : 1);
    w->inserted = bench_keys((size_t)n, o->seed, 1);
    w->absent = bench_keys(w->q, o->seed, 2);
    if (w->inserted && w->absent) {
        w->half = bench_mixed_queries(w->inserted, (size_t)n, w->absent, w->q, 50, o->seed);
        w->present = bench_mixed_queries(w->inserted, (size_t)n, w->absent, w->q, 100, o->seed);
        w->one = bench_mixed_queries(w->inserted, (size_t)n, w->absent, w->q, 1, o->seed);
    }
    if (!w->inserted || !w->absent || !w->half || !w->present || !w->one) {
        bench_workload_free(w);
        return false;
    }
    return true;
}

void bench_workload_free(bench_workload *w)
{
    free(w->inserted);
    free(w->absent);
    free(w->half);
    free(w->present);
    free(w->one);
    memset(w, 0, sizeof *w);
}
