/*
 * parquet_rows.c — Parquet split-block filters (BLOOMSIMD_PARQUET) at 10^5
 * and 10^7 keys when the run has those sizes: building one (every key
 * inserted) and probing it (the run's absent keys), through the library's
 * batched calls, against the way engines do it: one value at a time, XXH64
 * of the PLAIN encoding with libxxhash, then the 8 words of its block in
 * scalar code. Both sides build the same bits (checked: a difference fails
 * the run). u64 (INT64) keys and 16-byte (FIXED_LEN_BYTE_ARRAY(16)) keys
 * made from them. Each cell: ns/key, median of the run's reps, the two sides
 * interleaved rep by rep, on the library's default kernel (BLOOMSIMD_KERNEL
 * picks another), which the table names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "run.h"

#define KEY16 16u

static const uint32_t SALT[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static inline uint32_t *block_of(uint32_t *words, uint64_t z, uint64_t h) { return words + (((h >> 32) * z) >> 32) * 8; }

static void ref_insert(uint32_t *words, uint64_t z, uint64_t h)
{
    uint32_t *b = block_of(words, z, h);
    for (int w = 0; w < 8; w++) b[w] |= 1u << (((uint32_t)h * SALT[w]) >> 27);
}

static int ref_check(uint32_t *words, uint64_t z, uint64_t h)
{
    const uint32_t *b = block_of(words, z, h);
    for (int w = 0; w < 8; w++)
        if (!(b[w] & (1u << (((uint32_t)h * SALT[w]) >> 27)))) return 0;
    return 1;
}

/* 16-byte keys: the u64 key, then a mix of it (distinct keys stay distinct) */
static uint8_t *widen(const uint64_t *keys, size_t n)
{
    uint8_t *out = malloc(n * KEY16);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t hi = keys[i] * UINT64_C(0x9E3779B97F4A7C15) ^ (keys[i] >> 29);
        memcpy(out + i * KEY16, &keys[i], 8);
        memcpy(out + i * KEY16 + 8, &hi, 8);
    }
    return out;
}

static bool wanted(uint64_t n) { return n == 100000 || n == 10000000; }

void bench_parquet_rows(const bench_options *o, const bench_workload *w)
{
    if (!wanted(w->n)) return;
    size_t n = (size_t)w->n, q = w->q;
    bloomsimd_options opt = {.capacity = w->n, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f;
    bloomsimd_status st = bloomsimd_create_with(&f, &opt);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "bloomsimd-bench: Parquet rows skipped: %s\n", bloomsimd_last_error());
        return;
    }
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    uint64_t z = info.blocks;
    uint32_t *ref = aligned_alloc(64, z * 32);
    uint8_t *ins16 = widen(w->inserted, n), *abs16 = widen(w->absent, q), *hits = malloc(q);
    size_t export_cap = z * 32 + BLOOMSIMD_PARQUET_HEADER_MAX_BYTES, wrote;
    uint8_t *exported = malloc(export_cap);
    double *s[4];
    for (int i = 0; i < 4; i++) s[i] = malloc(o->reps * sizeof(double));
    if (!ref || !ins16 || !abs16 || !hits || !exported || !s[0] || !s[1] || !s[2] || !s[3]) {
        fprintf(stderr, "bloomsimd-bench: Parquet rows skipped: out of memory\n");
        goto done;
    }
    bench_progress(o, "%llu keys: Parquet filters (%u reps)", (unsigned long long)w->n, o->reps);
    for (int wide = 0; wide < 2; wide++) {
        bloomsimd_keys ik = bloomsimd_keys_fixed(ins16, n * KEY16, KEY16, n);
        bloomsimd_keys ak = bloomsimd_keys_fixed(abs16, q * KEY16, KEY16, q);
        size_t ours_hits = 0, ref_hits = 0;
        for (unsigned r = 0; r < o->reps; r++) {
            bloomsimd_clear(f);
            double t0 = bench_clock_ns(o);
            if (wide)
                bloomsimd_add_keys(f, &ik);
            else
                bloomsimd_add_batch_u64(f, w->inserted, n);
            double t1 = bench_clock_ns(o);
            if (wide)
                bloomsimd_contains_keys(f, &ak, hits, &ours_hits);
            else
                ours_hits = bloomsimd_contains_batch_u64(f, w->absent, q, hits);
            double t2 = bench_clock_ns(o);
            memset(ref, 0, z * 32);
            double t3 = bench_clock_ns(o);
            for (size_t i = 0; i < n; i++)
                ref_insert(ref, z, wide ? XXH64(ins16 + i * KEY16, KEY16, 0) : XXH64(&w->inserted[i], 8, 0));
            double t4 = bench_clock_ns(o);
            ref_hits = 0;
            for (size_t i = 0; i < q; i++)
                ref_hits += (size_t)ref_check(ref, z, wide ? XXH64(abs16 + i * KEY16, KEY16, 0) : XXH64(&w->absent[i], 8, 0));
            double t5 = bench_clock_ns(o);
            s[0][r] = (t1 - t0) / (double)n, s[1][r] = (t2 - t1) / (double)q;
            s[2][r] = (t4 - t3) / (double)n, s[3][r] = (t5 - t4) / (double)q;
        }
        /* the same bits, the same answers */
        if (bloomsimd_parquet_write(f, exported, export_cap, &wrote) != BLOOMSIMD_OK ||
            memcmp(exported + wrote - z * 32, ref, z * 32) != 0 || ours_hits != ref_hits)
            bench_check_failed("Parquet filter at %llu keys (%s): the library's bits or answers differ from the "
                               "one-at-a-time reference's (%zu vs %zu hits)",
                               (unsigned long long)w->n, wide ? "16-byte keys" : "u64 keys", ours_hits, ref_hits);
        static const char *const ops[4] = {"build", "probe0", "build-one-at-a-time", "probe0-one-at-a-time"};
        for (int i = 0; i < 4; i++) {
            bench_result *res = bench_result_add("parquet", wide ? "16B" : "u64", ops[i], w->n, 1,
                                                 bench_summarize(s[i], o->reps));
            if (res) {
                res->value = (double)info.bits / (double)w->n;
                snprintf(res->note, sizeof res->note, "kernel=%s blocks=%llu fpr_measured=%.6g", info.kernel,
                         (unsigned long long)z, (double)ours_hits / (double)q);
            }
        }
    }
done:
    for (int i = 0; i < 4; i++) free(s[i]);
    free(exported), free(hits), free(abs16), free(ins16), free(ref);
    bloomsimd_destroy(f);
}

void bench_print_parquet(const bench_options *o)
{
    (void)o;
    bool any = false;
    for (size_t i = 0; i < bench_result_count() && !any; i++) any = strcmp(bench_result_get(i)->section, "parquet") == 0;
    if (!any) return;
    printf("\n== Parquet split-block filters (BLOOMSIMD_PARQUET, target FPR 1%%): the library's batched calls vs "
           "one value at a time with libxxhash's XXH64, as engines probe ==\n");
    printf("%-8s %-5s %-7s %10s %12s %8s %10s %12s %8s %9s %9s\n", "keys", "key", "kernel", "build", "one-at-a",
           "x", "probe", "one-at-a", "x", "bits/key", "FPR");
    static const uint64_t sizes[2] = {100000, 10000000};
    for (int si = 0; si < 2; si++)
        for (int wide = 0; wide < 2; wide++) {
            const char *impl = wide ? "16B" : "u64";
            bench_result *b = bench_result_find("parquet", impl, "build", sizes[si], 1);
            bench_result *p = bench_result_find("parquet", impl, "probe0", sizes[si], 1);
            bench_result *bo = bench_result_find("parquet", impl, "build-one-at-a-time", sizes[si], 1);
            bench_result *po = bench_result_find("parquet", impl, "probe0-one-at-a-time", sizes[si], 1);
            if (!b || !p || !bo || !po) continue;
            char keys[32];
            bench_format_keys(keys, sizeof keys, sizes[si]);
            double fpr = 0;
            const char *at = strstr(p->note, "fpr_measured=");
            if (at) fpr = atof(at + strlen("fpr_measured="));
            char kernel[16] = "?";
            const char *k = strstr(b->note, "kernel=");
            if (k) sscanf(k + strlen("kernel="), "%15s", kernel);
            printf("%-8s %-5s %-7s %10.2f %12.2f %7.2fx %10.2f %12.2f %7.2fx %9.2f %8.3f%%\n", keys, impl, kernel,
                   b->ns.median, bo->ns.median, bo->ns.median / b->ns.median, p->ns.median, po->ns.median,
                   po->ns.median / p->ns.median, b->value, 100 * fpr);
        }
    printf("(ns/key, medians; x = one-at-a-time / batched, above 1.00x the library is faster)\n");
}
