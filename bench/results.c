/*
 * results.c — every measurement as one record, and the machine-readable
 * outputs (--csv, --json). The stdout table (table.c) and the charts
 * (plot.c) read the same records. Failed correctness checks are counted
 * here too: main exits 2 if there was any.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bloomsimd.h>

#include "run.h"

/* Records live in fixed chunks that never move, so a pointer returned by
 * bench_result_add or bench_result_find stays valid while more records are
 * added (a realloc'd array once invalidated one held across an add). */
#define CHUNK 256u
static bench_result **chunks;
static size_t nresults, nchunks;

static bench_result *at(size_t i) { return &chunks[i / CHUNK][i % CHUNK]; }

bench_result *bench_result_add(const char *section, const char *impl, const char *op, uint64_t keys,
                               unsigned threads, bench_stats ns)
{
    if (nresults == nchunks * CHUNK) {
        bench_result **grown = realloc(chunks, (nchunks + 1) * sizeof *grown);
        if (!grown) return NULL;
        chunks = grown;
        if (!(chunks[nchunks] = malloc(CHUNK * sizeof **chunks))) return NULL;
        nchunks++;
    }
    bench_result *r = at(nresults++);
    memset(r, 0, sizeof *r);
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->op, sizeof r->op, "%s", op);
    r->keys = keys;
    r->threads = threads;
    r->ns = ns;
    r->perf = (bench_counters){-1, -1, -1, -1, -1};
    return r;
}

size_t bench_result_count(void) { return nresults; }
bench_result *bench_result_get(size_t i) { return i < nresults ? at(i) : NULL; }

bench_result *bench_result_find(const char *section, const char *impl, const char *op, uint64_t keys,
                                unsigned threads)
{
    for (size_t i = 0; i < nresults; i++) {
        bench_result *r = at(i);
        if (strcmp(r->section, section) == 0 && strcmp(r->impl, impl) == 0 && strcmp(r->op, op) == 0 &&
            r->keys == keys && r->threads == threads)
            return r;
    }
    return NULL;
}

const char *bench_result_inline_flags(void)
{
    static char flags[32];
    for (size_t i = 0; i < nresults; i++) {
        const bench_result *r = at(i);
        const char *with = strcmp(r->section, "kernel") == 0 && strcmp(r->op, "single-inline0") == 0
                               ? strstr(r->note, "built with ")
                               : NULL;
        if (with && sscanf(with + strlen("built with "), "%31[^;, ]", flags) == 1) return flags;
    }
    return NULL;
}

static double mkeys_per_s(double ns_per_key) { return ns_per_key > 0 ? 1e3 / ns_per_key : 0; }

/* A missing value is an empty CSV field and a JSON null, never a sentinel:
 * no timing (reps 0: FPR rows), no ratio (0), no counter (negative), or a
 * value that is not finite. */
static bool have_timing(const bench_result *r) { return r->ns.reps > 0; }

static void csv_number(FILE *f, double v, bool present, const char *fmt)
{
    fputc(',', f);
    if (present && isfinite(v)) fprintf(f, fmt, v);
}

bool bench_write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "section,impl,op,keys,threads,ns_per_key_median,ns_per_key_min,ns_per_key_max,mkeys_per_s,reps,"
               "ratio_to_ceiling,value,x,cycles_per_key,instructions_per_key,l1d_misses_per_key,"
               "llc_misses_per_key,dtlb_misses_per_key,note\n");
    for (size_t i = 0; i < nresults; i++) {
        const bench_result *r = at(i);
        bool t = have_timing(r);
        fprintf(f, "%s,%s,%s,%llu,%u", r->section, r->impl, r->op, (unsigned long long)r->keys, r->threads);
        csv_number(f, r->ns.median, t, "%.4f");
        csv_number(f, r->ns.min, t, "%.4f");
        csv_number(f, r->ns.max, t, "%.4f");
        csv_number(f, mkeys_per_s(r->ns.median), t && r->ns.median > 0, "%.3f");
        fprintf(f, ",%u", r->ns.reps);
        csv_number(f, r->ratio, r->ratio > 0, "%.4f");
        csv_number(f, r->value, true, "%.6g");
        csv_number(f, r->x, true, "%.6g");
        csv_number(f, r->perf.cycles, r->perf.cycles >= 0, "%.3f");
        csv_number(f, r->perf.instructions, r->perf.instructions >= 0, "%.3f");
        csv_number(f, r->perf.l1d_misses, r->perf.l1d_misses >= 0, "%.4f");
        csv_number(f, r->perf.llc_misses, r->perf.llc_misses >= 0, "%.4f");
        csv_number(f, r->perf.dtlb_misses, r->perf.dtlb_misses >= 0, "%.4f");
        fprintf(f, ",\"%s\"\n", r->note);
    }
    return fclose(f) == 0;
}

/* JSON numbers cannot be NaN/inf: write null instead. */
static void json_number(FILE *f, const char *name, double v, bool last)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.6g%s", name, v, last ? "" : ", ");
    else
        fprintf(f, "\"%s\": null%s", name, last ? "" : ", ");
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

bool bench_write_json(const char *path, const bench_machine *m, const bench_options *o)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "{\n  \"bloomsimd_version\": ");
    json_string(f, bloomsimd_version_string());
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_string(f, m->cpu_model);
    fprintf(f, ", \"flags\": ");
    json_string(f, m->cpu_flags);
    fprintf(f, ", \"cpus\": %u, \"l1d\": %llu, \"l2\": %llu, \"l3\": %llu, \"thp\": ", m->ncpus,
            (unsigned long long)m->cache_bytes[1], (unsigned long long)m->cache_bytes[2],
            (unsigned long long)m->cache_bytes[3]);
    json_string(f, m->thp);
    fprintf(f, ", \"pinned_cpu\": %d},\n", m->pinned_cpu);
    fprintf(f, "  \"config\": {");
    json_number(f, "bits_per_key", o->fpr > 0 ? NAN : o->bits_per_key, false);
    json_number(f, "fpr_target", o->fpr > 0 ? o->fpr : NAN, false);
    fprintf(f, "\"batch\": %zu, \"reps\": %u, \"queries\": %llu, \"default_kernel\": ", o->batch, o->reps,
            (unsigned long long)o->queries);
    const char *dk = bloomsimd_default_kernel();
    json_string(f, dk ? dk : "none");
    fprintf(f, "},\n  \"results\": [\n");
    for (size_t i = 0; i < nresults; i++) {
        const bench_result *r = at(i);
        fprintf(f, "    {\"section\": ");
        json_string(f, r->section);
        fprintf(f, ", \"impl\": ");
        json_string(f, r->impl);
        fprintf(f, ", \"op\": ");
        json_string(f, r->op);
        fprintf(f, ", \"keys\": %llu, \"threads\": %u, \"reps\": %u, ", (unsigned long long)r->keys, r->threads,
                r->ns.reps);
        bool t = have_timing(r);
        json_number(f, "ns_per_key_median", t ? r->ns.median : NAN, false);
        json_number(f, "ns_per_key_min", t ? r->ns.min : NAN, false);
        json_number(f, "ns_per_key_max", t ? r->ns.max : NAN, false);
        json_number(f, "mkeys_per_s", t && r->ns.median > 0 ? mkeys_per_s(r->ns.median) : NAN, false);
        json_number(f, "ratio_to_ceiling", r->ratio > 0 ? r->ratio : NAN, false);
        json_number(f, "value", r->value, false);
        json_number(f, "x", r->x, false);
        fprintf(f, "\"perf\": {");
        json_number(f, "cycles", r->perf.cycles >= 0 ? r->perf.cycles : NAN, false);
        json_number(f, "instructions", r->perf.instructions >= 0 ? r->perf.instructions : NAN, false);
        json_number(f, "l1d_misses", r->perf.l1d_misses >= 0 ? r->perf.l1d_misses : NAN, false);
        json_number(f, "llc_misses", r->perf.llc_misses >= 0 ? r->perf.llc_misses : NAN, false);
        json_number(f, "dtlb_misses", r->perf.dtlb_misses >= 0 ? r->perf.dtlb_misses : NAN, true);
        fprintf(f, "}, \"note\": ");
        json_string(f, r->note);
        fprintf(f, "}%s\n", i + 1 < nresults ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0;
}

static unsigned check_failures;

void bench_check_failed(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("CHECK FAILED: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    check_failures++;
}

unsigned bench_check_failures(void) { return check_failures; }
