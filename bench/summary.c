/*
 * summary.c — the one-screen summary bloomsimd-bench prints on stdout (the
 * full tables go to report.txt in the output folder; --verbose shows them).
 *
 * What a user running the bench wants first, one row per filter size:
 * the fastest kernel and its batched lookup / insert and one-call-per-key
 * lookup in ns/key, how far that is from the memory floor (the ceiling:
 * hash + block index + one prefetched read per key), the ratio to each peer
 * (their time / ours: above 1.00x we are faster), and the FPR check
 * (measured against the layout model). Then the paired rounds against the
 * split-block peer, which carry the spread a single median hides, and the
 * folder. Every figure comes from bench_result records of this run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bloomsimd.h>

#include "dispatch.h" /* each kernel's default layout */
#include "run.h"

static double median_of(const char *section, const char *impl, const char *op, uint64_t n)
{
    bench_result *r = impl ? bench_result_find(section, impl, op, n, 1) : NULL;
    return r ? r->ns.median : NAN;
}

/* "  2.17" or "     -" */
static void cell(FILE *out, const char *fmt, double v, int width)
{
    if (isfinite(v) && v > 0)
        fprintf(out, fmt, v);
    else
        fprintf(out, "%*s", width, "-");
}

/* their time / ours */
static double speedup(const char *impl, const char *op, const char *ours, uint64_t n)
{
    double them = median_of("reference", impl, op, n), us = median_of("kernel", ours, op, n);
    return them / us;
}

static void size_rows(FILE *out, const bench_machine *m, const char *const *kernels, size_t nk,
                      const uint64_t *sizes, size_t nsizes, bool *fpr_ok)
{
    fprintf(out, "\n%-6s %-7s %-7s %7s %7s %7s %8s  %-16s %-19s  %s\n", "keys", "memory", "fastest", "lookup",
            "insert", "single", "lookup /", " vs split-block", "vs classic libbloom", "FPR measured");
    fprintf(out, "%-6s %-7s %-7s %7s %7s %7s %8s  %-16s %-19s  %s\n", "", "", "kernel", "ns/key", "ns/key", "ns/key",
            "floor", " lookup  insert", "  lookup    lookup", "(model)");
    for (size_t s = 0; s < nsizes; s++) {
        uint64_t n = sizes[s];
        const char *b = bench_fastest_kernel(kernels, nk, n);
        if (!b) continue;
        char keys[32];
        bench_format_keys(keys, sizeof keys, n);
        bench_result *fm = bench_result_find("fpr", "bloomsimd", "measured", n, 1);
        bench_result *model = bench_result_find("fpr", "bloomsimd", "model", n, 1);
        double bpk = 0;
        unsigned k = 0;
        if (fm) sscanf(fm->note, "bits/key=%lf k=%u", &bpk, &k);
        double bytes = bpk * (double)n / 8;
        const char *res = bench_residency(m, (uint64_t)bytes);
        char mem[16];
        snprintf(mem, sizeof mem, "%s", strncmp(res, "L1", 2) == 0 ? "L1" : strncmp(res, "L2", 2) == 0 ? "L2" : "past L2");
        bench_result *lk = bench_result_find("kernel", b, "lookup0", n, 1);
        fprintf(out, "%-6s %-7s %-7s ", keys, mem, b);
        cell(out, "%7.2f", median_of("kernel", b, "lookup0", n), 7);
        cell(out, " %7.2f", median_of("kernel", b, "insert", n), 8);
        /* single keys as a program built for this CPU's vector width calls them (inlined), where measured */
        double single = median_of("kernel", b, "single-inline0", n);
        cell(out, " %7.2f", isfinite(single) ? single : median_of("kernel", b, "single0", n), 8);
        cell(out, " %7.2fx", lk ? lk->ratio : NAN, 9);
        cell(out, "  %6.2fx", speedup("sbbf", "lookup0", b, n), 9);
        cell(out, " %6.2fx", speedup("sbbf", "insert", b, n), 8);
        cell(out, "  %7.1fx", speedup("classic", "lookup0", b, n), 10);
        cell(out, " %7.1fx", speedup("libbloom", "lookup0", b, n), 9); /* up to 10^7 keys */
        if (fm && model && model->value > 0) {
            /* the check the bench itself makes: measured within a few sigma of
             * the model (run_size.c fails the run otherwise); here, the ratio */
            fprintf(out, "  %.3f%% (%.3f%%)", 100 * fm->value, 100 * model->value);
            if (fm->value > 1.25 * model->value) *fpr_ok = false;
        }
        fprintf(out, "\n");
    }
}

/* The kernels the peer comparisons show: the library's default, and avx2 for
 * the many AVX2-only CPUs; returns how many (at most 2). */
static size_t shown_kernels(const char *const *kernels, size_t nk, const char *shown[2])
{
    const char *dk = bloomsimd_default_kernel();
    size_t ns = 0;
    shown[0] = shown[1] = NULL;
    for (size_t i = 0; i < nk; i++)
        if (dk && strcmp(kernels[i], dk) == 0) shown[ns++] = kernels[i];
    for (size_t i = 0; i < nk && ns < 2; i++)
        if (strcmp(kernels[i], "avx2") == 0 && (!shown[0] || strcmp(shown[0], "avx2"))) shown[ns++] = kernels[i];
    return ns;
}

/* The rest of a header line: "<kernel> lookup", "<kernel> <second>" per kernel, each `width` wide. */
static void kernel_columns(FILE *out, const char *const *shown, size_t ns, const char *second, int width)
{
    for (size_t i = 0; i < ns; i++) {
        char h[2][40];
        snprintf(h[0], sizeof h[0], "%s lookup", shown[i]);
        snprintf(h[1], sizeof h[1], "%s %s", shown[i], second);
        fprintf(out, "  %-*s  %-*s", width, h[0], width, h[1]);
    }
    fprintf(out, "\n");
}

/* One call per key in a loop, inlined, against the peer's inlined probe
 * measured beside it: the peer's time / ours per shown kernel and size. */
static void single_rows(FILE *out, const char *const *kernels, size_t nk, const uint64_t *sizes, size_t nsizes)
{
    const char *flags = bench_result_inline_flags(), *shown[2];
    size_t ns = shown_kernels(kernels, nk, shown);
    if (!flags || ns == 0) return;
    bool any = false;
    for (size_t s = 0; s < nsizes; s++) any |= isfinite(median_of("reference", "sbbf", "single-inline0", sizes[s]));
    if (!any) return;
    fprintf(out, "\nsingle keys, one call per key in a loop (a program built with %s: the header inlines the\n"
                 "probe): the split-block peer's inlined probe time / ours, above 1.00x we are faster\n",
            flags);
    fprintf(out, "%-8s", "keys");
    kernel_columns(out, shown, ns, "add", 12);
    for (size_t s = 0; s < nsizes; s++) {
        char keys[32];
        bench_format_keys(keys, sizeof keys, sizes[s]);
        fprintf(out, "%-8s", keys);
        for (size_t i = 0; i < ns; i++) {
            double look = median_of("reference", "sbbf", "single-inline0", sizes[s]) /
                          median_of("kernel", shown[i], "single-inline0", sizes[s]);
            double add = median_of("reference", "sbbf", "single-inline-add", sizes[s]) /
                         median_of("kernel", shown[i], "single-inline-add", sizes[s]);
            char a[16] = "-", b[16] = "-";
            if (isfinite(look) && look > 0) snprintf(a, sizeof a, "%.2fx", look);
            if (isfinite(add) && add > 0) snprintf(b, sizeof b, "%.2fx", add);
            fprintf(out, "  %-12s  %-12s", a, b);
        }
        fprintf(out, "\n");
    }
}

/* The paired-round result of one kernel, operation, size and target FPR. */
static bench_result *paired(const char *kernel, const char *op, uint64_t n, double target)
{
    bench_result *r = NULL;
    for (size_t j = 0; j < bench_result_count(); j++) {
        bench_result *c = bench_result_get(j);
        if (strcmp(c->section, "vs-peer") == 0 && strcmp(c->impl, kernel) == 0 && strcmp(c->op, op) == 0 &&
            c->keys == n && c->x == target)
            r = c;
    }
    return r && r->value > 0 ? r : NULL;
}

/* "  1.16x [0.68-1.77]": peer time / ours (the record holds ours / the peer's) */
static void paired_cell(FILE *out, bench_result *r)
{
    double p10 = NAN, p90 = NAN;
    if (!r) {
        fprintf(out, "  %-18s", "-");
        return;
    }
    sscanf(r->note, "p10=%lf p90=%lf", &p10, &p90);
    char text[40];
    snprintf(text, sizeof text, "%.2fx [%.2f-%.2f]", 1 / r->value, 1 / p90, 1 / p10);
    fprintf(out, "  %-18s", text);
}

static void peer_rows(FILE *out, const bench_options *o, const char *const *kernels, size_t nk,
                      const uint64_t *sizes, size_t nsizes)
{
    const char *shown[2];
    size_t ns = shown_kernels(kernels, nk, shown);
    bool any = false;
    for (size_t i = 0; i < ns; i++)
        for (size_t s = 0; s < nsizes; s++) any |= paired(shown[i], "lookup0", sizes[s], o->peer_fprs[0]) != NULL;
    if (!any) return;
    fprintf(out, "\npaired rounds against the split-block peer (same keys and target FPR): peer time / ours,\n"
                 "above 1.00x we are faster; quietest tenth of the rounds [p10-p90 of all rounds]\n");
    fprintf(out, "%-12s", "FPR   keys");
    kernel_columns(out, shown, ns, "insert", 18);
    for (size_t t = 0; t < o->npeer_fprs; t++)
        for (size_t s = 0; s < nsizes; s++) {
            char keys[32], label[40];
            bench_format_keys(keys, sizeof keys, sizes[s]);
            snprintf(label, sizeof label, "%g%%", 100 * o->peer_fprs[t]);
            fprintf(out, "%-5s %-6s", label, keys);
            for (size_t i = 0; i < ns; i++) {
                paired_cell(out, paired(shown[i], "lookup0", sizes[s], o->peer_fprs[t]));
                paired_cell(out, paired(shown[i], "insert", sizes[s], o->peer_fprs[t]));
            }
            fprintf(out, "\n");
        }
}

static void layered_row(FILE *out)
{
    bench_result *fixed = NULL, *grown = NULL;
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "layered") || strcmp(r->op, "lookup0")) continue;
        if (strcmp(r->impl, "fixed") == 0) fixed = r;
        if (strcmp(r->impl, "scalable") == 0) grown = r;
    }
    if (!fixed || !grown || !(fixed->ns.median > 0)) return;
    char keys[32];
    bench_format_keys(keys, sizeof keys, fixed->keys);
    fprintf(out, "\ngrown filter (scalable from n/1000, growth 2) at %s keys: lookups take %.2fx the time of\n"
                 "a filter sized for all keys (report.txt: bits/key and FPR of each layered filter)\n",
            keys, grown->ns.median / fixed->ns.median);
}

static void parquet_row(FILE *out)
{
    static const uint64_t sizes[2] = {100000, 10000000};
    bool any = false;
    for (int i = 0; i < 2; i++) {
        bench_result *p = bench_result_find("parquet", "u64", "probe0", sizes[i], 1);
        bench_result *po = bench_result_find("parquet", "u64", "probe0-one-at-a-time", sizes[i], 1);
        bench_result *b = bench_result_find("parquet", "u64", "build", sizes[i], 1);
        bench_result *bo = bench_result_find("parquet", "u64", "build-one-at-a-time", sizes[i], 1);
        if (!p || !po || !b || !bo) continue;
        char keys[32];
        bench_format_keys(keys, sizeof keys, sizes[i]);
        if (!any) fprintf(out, "\nParquet filters, u64 values: one value at a time with XXH64 (as engines do) / batched:\n");
        any = true;
        fprintf(out, "  %s: probe %.2fx (%.2f vs %.2f ns), build %.2fx\n", keys, po->ns.median / p->ns.median,
                po->ns.median, p->ns.median, bo->ns.median / b->ns.median);
    }
}

void bench_print_screen(FILE *out, const bench_options *o, const bench_machine *m, const char *const *kernels,
                        size_t nk, const uint64_t *sizes, size_t nsizes, const char *folder, bool wrote_plot)
{
    fprintf(out, "bloomsimd-bench %s on %s, %u CPUs\n", bloomsimd_version_string(), m->cpu_model, m->ncpus);
    double load[3];
    if (getloadavg(load, 3) == 3 && load[0] > 0.5 * m->ncpus)
        fprintf(out, "load %.2f on %u CPUs: other work is running; read the ratios, not the times\n", load[0],
                m->ncpus);
    const char *dk = bloomsimd_default_kernel();
    /* each kernel builds its own default layout unless --layout names one,
     * so a run shows both layouts where the kernels differ */
    fprintf(out, "kernels (layout):");
    for (size_t i = 0; i < nk; i++) {
        const bloomsimd_kernel *k = bloomsimd_kernel_by_name(kernels[i]);
        uint32_t layout = o->layout ? o->layout : k ? k->default_layout : 0;
        fprintf(out, " %s (%s)", kernels[i], bloomsimd_layout_name(layout));
    }
    fprintf(out, "; the library's default here: %s (BLOOMSIMD_KERNEL forces one)\n", dk ? dk : "none");
    if (o->fpr > 0)
        fprintf(out, "filters sized for FPR %g; ", o->fpr);
    else
        fprintf(out, "filters at %.3g bits/key; ", o->bits_per_key);
    fprintf(out, "random 64-bit keys, batches of %zu, absent keys looked up; %s%u rep%s\n",
            o->batch, o->reps == 1 ? "" : "medians of ", o->reps, o->reps == 1 ? "" : "s");
    bool fpr_ok = true;
    size_rows(out, m, kernels, nk, sizes, nsizes, &fpr_ok);
    /* The per-core L1D and L2 label the sizes; the L3 a VM reports is often a whole
     * host package's (480-508 MiB on 2-vCPU guests), of which the guest gets an
     * unknown share, so nothing is labelled by it. */
    char l3[80] = "the L3 size is unknown";
    if (m->cache_bytes[3])
        snprintf(l3, sizeof l3, "the L3 reported (%llu MiB) may be the whole host's",
                 (unsigned long long)(m->cache_bytes[3] >> 20));
    const char *flags = bench_result_inline_flags();
    char legend[320];
    if (flags)
        snprintf(legend, sizeof legend,
                 " single = one bloomsimd_contains_u64 call per key in a program built with %s, which inlines\n"
                 " it (report.txt: also the exported call of a portable build); floor = hash + block index + one\n"
                 " read per key; vs a peer: its time / ours, above 1.00x we are faster; libbloom: one call a key)\n",
                 flags);
    else
        snprintf(legend, sizeof legend,
                 " single = one bloomsimd_contains_u64 call per key; floor = hash + block index + one read\n"
                 " per key; vs a peer: its time / ours, above 1.00x we are faster; libbloom: one call a key)\n");
    fprintf(out, "(memory: the filter against the per-core L1D %llu KiB and L2 %llu KiB (%s);\n"
                 " %s, so no size is called L3-resident;\n%s",
            (unsigned long long)(m->cache_bytes[1] >> 10), (unsigned long long)(m->cache_bytes[2] >> 10),
            m->caches_from_cpuid ? "from CPUID" : "from /sys", l3, legend);
    peer_rows(out, o, kernels, nk, sizes, nsizes);
    single_rows(out, kernels, nk, sizes, nsizes);
    layered_row(out);
    parquet_row(out);
    unsigned failed = bench_check_failures();
    fprintf(out, "\nchecks: %s; FPR %s\n",
            failed ? "FAILED (report.txt says which)" : "no false negatives, every count as expected",
            fpr_ok ? "at or near the layout model at every size" : "above the model at some size (report.txt)");
    fprintf(out, "full tables: %s/report.txt; data: results.csv, results.json%s\n", folder,
            wrote_plot ? ", bench-ns-per-key.png" : " (charts: apt-get install gnuplot-nox)");
}
