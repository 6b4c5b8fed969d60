/*
 * persist_rows.c — rows for persistence and set operations, at one size:
 *   - batched negative lookups on a read-only mapped file (bloomsimd_save +
 *     bloomsimd_map) against the same file loaded onto the heap
 *     (bloomsimd_load), interleaved. Both get the kernel of the filter that
 *     was saved, the run's fastest (bloomsimd_load_options.kernel; without
 *     it they would get the library's default, which a run with --kernels
 *     avx2 compared against an avx512 mapping), so the two rows differ only
 *     by where the bits live: the mapping is MAP_SHARED page cache (4 KiB
 *     pages), the loaded filter gets transparent huge pages when the kernel
 *     allows; the difference is mostly TLB misses on large filters;
 *   - bloomsimd_union throughput in GB/s (of dst) against memcpy of the same
 *     number of bytes between two bit arrays allocated by the library (same
 *     pages, same huge-page advice). Union reads two arrays and writes one;
 *     memcpy reads one and writes one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "ops.h"
#include "run.h"

typedef struct union_ctx {
    bloomsimd_filter *dst;
    const bloomsimd_filter *src;
    void *a;
    const void *b;
    size_t bytes;
} union_ctx;

static uint64_t op_union(void *p)
{
    union_ctx *c = p;
    return bloomsimd_union(c->dst, c->src) != BLOOMSIMD_OK;
}

static uint64_t op_memcpy(void *p)
{
    union_ctx *c = p;
    memcpy(c->a, c->b, c->bytes);
    return ((const unsigned char *)c->a)[c->bytes / 2];
}

static void mapped_rows(const bench_options *o, bloomsimd_filter *filled, const char *kernel, const bench_workload *w)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/bloomsimd-bench-%ld.bsf", dir && *dir ? dir : "/tmp", (long)getpid());
    double t0 = bench_now_ns(); /* wall: saving waits for the disk */
    bloomsimd_status st = bloomsimd_save(filled, path);
    double t1 = bench_now_ns();
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "note: mapped-file rows skipped: bloomsimd_save(%s): %s\n", path, bloomsimd_last_error());
        return;
    }
    size_t bytes = bloomsimd_filter_bytes(filled);
    double ns = (t1 - t0) / (double)bytes; /* one sample: it is the min and the max too */
    bench_result *r = bench_result_add("persist", kernel, "save", w->n, 1, (bench_stats){ns, ns, ns, 1});
    if (r) r->value = (double)bytes / (t1 - t0), snprintf(r->note, sizeof r->note, "GB/s, fsync included");

    bloomsimd_filter *mapped = NULL;
    bloomsimd_load_options same_kernel = {.kernel = kernel, .map_flags = BLOOMSIMD_MAP_READ_ONLY};
    st = bloomsimd_map_with(&mapped, path, &same_kernel);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "note: mapped-file rows skipped: bloomsimd_map: %s\n", bloomsimd_last_error());
        unlink(path);
        return;
    }
    bloomsimd_filter *loaded = NULL;
    same_kernel.map_flags = 0;
    st = bloomsimd_load_with(&loaded, path, &same_kernel);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "note: mapped-file rows skipped: bloomsimd_load: %s\n", bloomsimd_last_error());
        bloomsimd_destroy(mapped);
        unlink(path);
        return;
    }
    bloomsimd_info mi, li;
    bloomsimd_get_info(mapped, &mi);
    bloomsimd_get_info(loaded, &li);
    uint8_t *out = malloc(2 * o->batch);
    if (out) {
        bench_op_ctx heap = {.filter = loaded, .keys = w->absent, .nkeys = w->q, .total = w->q, .batch = o->batch,
                             .out = out};
        bench_op_ctx file = heap;
        file.filter = mapped;
        file.out = out + o->batch;
        bench_job jobs[2] = {{.fn = bench_op_lookup, .ctx = &heap, .keys = (double)w->q, .wall_clock = false},
                               {.fn = bench_op_lookup, .ctx = &file, .keys = (double)w->q, .wall_clock = false}};
        bench_measurement m[2];
        bench_progress(o, "persist: lookups on a mapped file vs heap (%llu keys)", (unsigned long long)w->n);
        bench_measure_interleaved(o, jobs, 2, m);
        r = bench_result_add("persist", li.kernel, "lookup0-heap", w->n, 1, m[0].ns);
        r = bench_result_add("persist", mi.kernel, "lookup0-mapped", w->n, 1, m[1].ns);
        if (r) r->value = m[1].ns.median / m[0].ns.median, snprintf(r->note, sizeof r->note, "time vs heap");
        if (m[0].count != m[1].count)
            bench_check_failed("mapped file answers %llu hits, heap filter %llu", (unsigned long long)m[1].count,
                               (unsigned long long)m[0].count);
        free(out);
    }
    bloomsimd_destroy(mapped);
    bloomsimd_destroy(loaded);
    unlink(path);
}

static void union_rows(const bench_options *o, bloomsimd_filter *filled, const char *kernel, const bench_workload *w)
{
    bloomsimd_options opt = bench_filter_options(o, w->n, kernel, 0);
    bloomsimd_filter *dst = NULL, *copy = NULL;
    if (bloomsimd_create_with(&dst, &opt) != BLOOMSIMD_OK) return;
    if (bloomsimd_create_with(&copy, &opt) != BLOOMSIMD_OK) {
        bloomsimd_destroy(dst);
        return;
    }
    size_t bytes = bloomsimd_filter_bytes(filled);
    {
        union_ctx u = {dst, filled, copy->geometry.words, filled->geometry.words, bytes};
        bench_job jobs[2] = {{.fn = op_union, .ctx = &u, .keys = (double)bytes, .wall_clock = false}, {.fn = op_memcpy, .ctx = &u, .keys = (double)bytes, .wall_clock = false}};
        bench_measurement m[2];
        bench_progress(o, "persist: union vs memcpy (%zu MiB)", bytes >> 20);
        bench_measure_interleaved(o, jobs, 2, m);
        bench_result *r = bench_result_add("persist", kernel, "union", w->n, 1, m[0].ns);
        if (r) r->value = 1.0 / m[0].ns.median, snprintf(r->note, sizeof r->note, "GB/s; ns per byte");
        r = bench_result_add("persist", "memcpy", "memcpy", w->n, 1, m[1].ns);
        if (r) r->value = 1.0 / m[1].ns.median, snprintf(r->note, sizeof r->note, "GB/s; ns per byte");
        if (m[0].count != 0) bench_check_failed("bloomsimd_union failed");
        bench_op_ctx c = {.filter = dst, .keys = w->present, .nkeys = w->q, .total = w->q, .batch = o->batch};
        if (bench_op_lookup(&c) != w->q) bench_check_failed("union: present keys missing from the union");
    }
    bloomsimd_destroy(copy);
    bloomsimd_destroy(dst);
}

void bench_persist_rows(const bench_options *o, const bench_machine *m, const char *kernel, bloomsimd_filter *filled,
                        const bench_workload *w)
{
    (void)m;
    mapped_rows(o, filled, kernel, w);
    union_rows(o, filled, kernel, w);
}
