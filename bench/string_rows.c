/*
 * string_rows.c — the byte-key rows for one kernel at one size: byte keys of
 * 8, 16, 32, 64 and 200 bytes and of mixed lengths 8..64, looked up through
 * a bloomsimd_keys view in the offsets form (Arrow's layout) and in the
 * pointer form, hashed alone (bloomsimd_hash_keys), and the path users had
 * before the views: XXH3_64bits_withSeed from libxxhash per key, then
 * bloomsimd_contains_hashes on the batch. Against the batched u64 lookup.
 * All in one interleaved group per kernel, so the ratios compare jobs timed
 * back to back.
 *
 * Keys: 2^17 absent keys per width (the first 8 bytes of a key are an absent
 * u64 key, the rest a mix of it, so keys are distinct and absent, as the
 * u64 path's are). Mixed lengths: 8 + (mix(key) mod 57), 8..64 bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "run.h"

#define STRING_KEYS (1u << 17)
#define NWIDTHS 6u
#define MIXED 0u /* width 0 = mixed 8..64 */

static const unsigned widths[NWIDTHS] = {8, 16, 32, 64, 200, MIXED};

typedef struct string_set {
    unsigned char *data;
    size_t data_len;
    uint32_t *offsets;    /* n+1 */
    const void **ptrs;
    size_t *lens;
    size_t n;
} string_set;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void set_free(string_set *s)
{
    free(s->data);
    free(s->offsets);
    free((void *)s->ptrs);
    free(s->lens);
    memset(s, 0, sizeof *s);
}

static bool set_make(string_set *s, const uint64_t *keys, size_t n, unsigned width)
{
    memset(s, 0, sizeof *s);
    size_t total = 0;
    s->lens = malloc(n * sizeof *s->lens);
    s->offsets = malloc((n + 1) * sizeof *s->offsets);
    s->ptrs = malloc(n * sizeof *s->ptrs);
    if (!s->lens || !s->offsets || !s->ptrs) return set_free(s), false;
    for (size_t i = 0; i < n; i++) {
        s->lens[i] = width ? width : 8 + (size_t)(mix64(keys[i]) % 57u);
        total += s->lens[i];
    }
    if (total > UINT32_MAX || !(s->data = malloc(total + 8))) return set_free(s), false;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t word = keys[i];
        s->offsets[i] = (uint32_t)at;
        for (size_t j = 0; j < s->lens[i]; j += 8) {
            size_t c = s->lens[i] - j < 8 ? s->lens[i] - j : 8;
            memcpy(s->data + at + j, &word, c);
            word = mix64(word);
        }
        s->ptrs[i] = s->data + at;
        at += s->lens[i];
    }
    s->offsets[n] = (uint32_t)at;
    s->data_len = at;
    s->n = n;
    return true;
}

typedef enum { J_OFFSETS, J_POINTERS, J_HASH, J_XXH, J_XXH_PROBE, J_U64 } job_kind;

typedef struct string_ctx {
    const bench_options *o;
    bloomsimd_filter *f;
    const string_set *s;
    const uint64_t *u64;
    job_kind kind;
    uint8_t *out;
    uint64_t *hashes;
} string_ctx;

static uint64_t string_job(void *p)
{
    string_ctx *c = p;
    uint64_t r = 0;
    const size_t n = c->s ? c->s->n : STRING_KEYS, batch = c->o->batch;
    for (size_t i = 0; i < n; i += batch) {
        size_t k = n - i < batch ? n - i : batch;
        size_t hits = 0;
        bloomsimd_keys view;
        switch (c->kind) {
        case J_OFFSETS:
        case J_HASH:
            view = bloomsimd_keys_offsets32(c->s->data, c->s->data_len, c->s->offsets + i, k);
            if (c->kind == J_OFFSETS) {
                if (bloomsimd_contains_keys(c->f, &view, c->out, &hits) != BLOOMSIMD_OK) return UINT64_MAX;
                r += hits;
            } else {
                if (bloomsimd_hash_keys(c->f, &view, c->hashes) != BLOOMSIMD_OK) return UINT64_MAX;
                for (size_t j = 0; j < k; j++) r ^= c->hashes[j];
            }
            break;
        case J_POINTERS:
            view = bloomsimd_keys_pointers(c->s->ptrs + i, c->s->lens + i, k);
            if (bloomsimd_contains_keys(c->f, &view, c->out, &hits) != BLOOMSIMD_OK) return UINT64_MAX;
            r += hits;
            break;
        case J_XXH:
        case J_XXH_PROBE:
            /* the filters use seed 0, so these are the filter's own hashes */
            for (size_t j = 0; j < k; j++) c->hashes[j] = XXH3_64bits_withSeed(c->s->ptrs[i + j], c->s->lens[i + j], 0);
            if (c->kind == J_XXH)
                for (size_t j = 0; j < k; j++) r ^= c->hashes[j];
            else
                r += bloomsimd_contains_hashes(c->f, c->hashes, k, c->out);
            break;
        case J_U64:
            r += bloomsimd_contains_batch_u64(c->f, c->u64 + i, k, c->out);
            break;
        }
    }
    return r;
}

static const char *const kind_op[5] = {"offsets", "pointers", "hash", "xxh", "xxh+probe"};

static void op_name(char *buf, size_t cap, unsigned width, job_kind kind)
{
    if (width)
        snprintf(buf, cap, "str%u-%s", width, kind_op[kind]);
    else
        snprintf(buf, cap, "strmix-%s", kind_op[kind]);
}

bool bench_string_rows_wanted(const bench_options *o, uint64_t n, uint64_t largest)
{
    (void)o;
    return n == 100000 || n == 100000000 || (n == largest && largest < 100000000);
}

void bench_string_rows(const bench_options *o, const char *kernel, bloomsimd_filter *f, const bench_workload *w,
                       uint8_t *out, uint64_t *hashes)
{
    if (w->q < STRING_KEYS) return;
    string_set sets[NWIDTHS];
    size_t made = 0;
    for (; made < NWIDTHS; made++)
        if (!set_make(&sets[made], w->absent, STRING_KEYS, widths[made])) break;
    if (made < NWIDTHS) {
        fprintf(stderr, "bloomsimd-bench: string-key rows skipped: out of memory\n");
        for (size_t i = 0; i < made; i++) set_free(&sets[i]);
        return;
    }
    string_ctx ctx[NWIDTHS * 5 + 1];
    bench_job jobs[NWIDTHS * 5 + 1];
    bench_measurement res[NWIDTHS * 5 + 1];
    size_t nj = 0;
    for (size_t s = 0; s < NWIDTHS; s++)
        for (int kind = J_OFFSETS; kind <= J_XXH_PROBE; kind++) {
            ctx[nj] = (string_ctx){o, f, &sets[s], NULL, (job_kind)kind, out, hashes};
            jobs[nj] = (bench_job){.fn = string_job, .ctx = &ctx[nj], .keys = (double)STRING_KEYS, .wall_clock = false};
            nj++;
        }
    ctx[nj] = (string_ctx){o, f, NULL, w->absent, J_U64, out, hashes};
    jobs[nj] = (bench_job){.fn = string_job, .ctx = &ctx[nj], .keys = (double)STRING_KEYS, .wall_clock = false};
    nj++;
    bench_progress(o, "%llu keys: %s string keys (%zu jobs)", (unsigned long long)w->n, kernel, nj);
    bench_measure_interleaved(o, jobs, nj, res);
    for (size_t j = 0; j < nj; j++) {
        char op[32];
        if (j + 1 == nj)
            snprintf(op, sizeof op, "str-u64");
        else
            op_name(op, sizeof op, widths[j / 5], (job_kind)(j % 5));
        bench_result *r = bench_result_add("strings", kernel, op, w->n, 1, res[j].ns);
        if (r) r->perf = res[j].perf;
        if (!res[j].counts_agree || res[j].count == UINT64_MAX)
            bench_check_failed("%s %s at %llu keys: a call failed or repetitions disagreed", kernel, op,
                               (unsigned long long)w->n);
    }
    /* per width: both views and today's path find the same keys; the views'
     * hashes are libxxhash's (xor of all of them) */
    for (size_t s = 0; s < NWIDTHS; s++) {
        const bench_measurement *m = &res[s * 5];
        if (m[J_OFFSETS].count != m[J_POINTERS].count || m[J_OFFSETS].count != m[J_XXH_PROBE].count ||
            m[J_HASH].count != m[J_XXH].count)
            bench_check_failed("%s string keys of width %u at %llu keys: offsets %llu, pointers %llu, libxxhash+probe "
                               "%llu hits; hash xor %llx vs libxxhash %llx",
                               kernel, widths[s], (unsigned long long)w->n, (unsigned long long)m[J_OFFSETS].count,
                               (unsigned long long)m[J_POINTERS].count, (unsigned long long)m[J_XXH_PROBE].count,
                               (unsigned long long)m[J_HASH].count, (unsigned long long)m[J_XXH].count);
    }
    for (size_t s = 0; s < NWIDTHS; s++) set_free(&sets[s]);
}

static double ns_of(const char *kernel, const char *op, uint64_t n)
{
    bench_result *r = bench_result_find("strings", kernel, op, n, 1);
    return r ? r->ns.median : 0;
}

double bench_string_ratio(const char *kernel, unsigned width, const char *a, const char *b, uint64_t n)
{
    char oa[32], ob[32];
    job_kind ka = J_OFFSETS, kb = J_OFFSETS;
    for (int k = 0; k < 5; k++) {
        if (strcmp(a, kind_op[k]) == 0) ka = (job_kind)k;
        if (strcmp(b, kind_op[k]) == 0) kb = (job_kind)k;
    }
    op_name(oa, sizeof oa, width, ka);
    if (strcmp(b, "u64") == 0)
        snprintf(ob, sizeof ob, "str-u64");
    else
        op_name(ob, sizeof ob, width, kb);
    double x = ns_of(kernel, oa, n), y = ns_of(kernel, ob, n);
    return x > 0 && y > 0 ? x / y : 0;
}

void bench_print_strings(uint64_t n, const char *const *kernels, size_t nk)
{
    for (size_t i = 0; i < nk; i++) {
        double u64 = ns_of(kernels[i], "str-u64", n);
        if (u64 <= 0) continue;
        printf("string keys, %s (ns/key; absent keys; the batched u64 lookup in the same group: %.2f):\n", kernels[i],
               u64);
        printf("  %-8s %8s %8s %8s %10s %10s %8s %11s\n", "width", "offsets", "x u64", "pointers", "hash_keys",
               "libxxhash", "x faster", "xxh+probe");
        for (size_t s = 0; s < NWIDTHS; s++) {
            char label[16];
            if (widths[s])
                snprintf(label, sizeof label, "%u B", widths[s]);
            else
                snprintf(label, sizeof label, "8-64 B");
            char op[32];
            double v[5];
            for (int k = 0; k < 5; k++) op_name(op, sizeof op, widths[s], (job_kind)k), v[k] = ns_of(kernels[i], op, n);
            printf("  %-8s %8.2f %7.2fx %8.2f %10.2f %10.2f %7.1fx %11.2f\n", label, v[J_OFFSETS], v[J_OFFSETS] / u64,
                   v[J_POINTERS], v[J_HASH], v[J_XXH], v[J_HASH] > 0 ? v[J_XXH] / v[J_HASH] : 0, v[J_XXH_PROBE]);
        }
    }
}
