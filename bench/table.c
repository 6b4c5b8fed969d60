/*
 * table.c — the aligned stdout report: header, one table per filter size
 * (best kernel marked with '*'), threads, persistence and FPR (the verdict
 * is verdict.c). A trailing '~' marks a noisy cell: (max - min) > 25% of the
 * median.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bloomsimd.h>

#include "refs.h"
#include "run.h"

static const char *const size_ops[] = {"insert", "lookup0", "lookup50", "lookup100", "hash",
                                       "add16",  "lookup16", "add64",   "lookup64"};
#define NOPS (sizeof size_ops / sizeof size_ops[0])

static void fmt_ns(char *buf, size_t cap, const bench_result *r)
{
    if (!r || r->ns.reps == 0) {
        snprintf(buf, cap, "-");
        return;
    }
    double v = r->ns.median;
    bool noisy = r->ns.reps > 1 && (r->ns.max - r->ns.min) > 0.25 * v;
    snprintf(buf, cap, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, noisy ? "~" : "");
}

static void fmt_ratio(char *buf, size_t cap, const bench_result *r)
{
    if (!r || r->ratio <= 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2fx", r->ratio);
}

void bench_format_keys(char *buf, size_t cap, uint64_t n)
{
    double l = log10((double)n);
    if (n >= 1000 && fabs(l - round(l)) < 1e-9)
        snprintf(buf, cap, "10^%d", (int)round(l));
    else
        snprintf(buf, cap, "%llu", (unsigned long long)n);
}

void bench_print_header(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nk)
{
    printf("bloomsimd-bench %s\n", bloomsimd_version_string());
    printf("CPU     %s, %u CPUs; %s\n", m->cpu_model, m->ncpus, m->cpu_flags);
    printf("caches  L1D %llu KiB, L2 %llu KiB, L3 %llu MiB%s; THP %s; %s\n",
           (unsigned long long)(m->cache_bytes[1] >> 10), (unsigned long long)(m->cache_bytes[2] >> 10),
           (unsigned long long)(m->cache_bytes[3] >> 20),
           m->caches_from_cpuid ? " (from CPUID: /sys has no cache sizes here; a VM's L3 may be the package's)" : "",
           m->thp,
           m->pinned_cpu >= 0 ? "main thread pinned" : "not pinned");
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("load    %.2f %.2f %.2f (1/5/15 min) on %u CPUs%s\n", load[0], load[1], load[2], m->ncpus,
               load[0] > 0.5 * m->ncpus ? ": other work is running, expect noise; compare ratios within this run" : "");
    if (o->refs && o->libbloom && !bench_libbloom_compiled())
        printf("note    libbloom rows skipped: not found at configure time "
               "(apt-get install libbloom-dev, then re-run cmake)\n");
    printf("kernels");
    for (size_t i = 0; i < nk; i++)
        printf(" %s%s", kernels[i], bloomsimd_kernel_emulated(kernels[i]) ? "(emulated)" : "");
    const char *dk = bloomsimd_default_kernel();
    printf("; library default: %s\n", dk ? dk : "none");
    if (o->fpr > 0)
        printf("filters sized for FPR %g by the layout model", o->fpr);
    else
        printf("filters at %.2f bits/key", o->bits_per_key);
    printf("; batches of %zu keys; %llu keys per repetition; median of %u reps (after a warm-up);\n"
           "timed by %s\n",
           o->batch, (unsigned long long)o->queries, o->reps,
           o->wall_clock ? "wall clock" : "thread CPU time (multi-thread rows: wall time, CPU time beside it)");
    printf("cells: ns/key, median; '~' = noisy (max-min > 25%% of median). ceiling = hash + block index + one\n"
           "prefetched 64-byte read per key; 'x ceil' = ns/key / ceiling's batched negative lookup.\n");
}

/* kernel / peer, ratio of this size's medians, for insert and look0% */
static void print_vs_peer(uint64_t n, const char *const *kernels, size_t nk)
{
    bench_result *pl = bench_result_find("reference", "sbbf", "lookup0", n, 1);
    bench_result *pi = bench_result_find("reference", "sbbf", "insert", n, 1);
    bench_result *pf = bench_result_find("fpr", "sbbf", "measured", n, 1);
    bench_result *of = bench_result_find("fpr", "bloomsimd", "measured", n, 1);
    if (!pl || !pi) return;
    double our_bpk = 0;
    if (of) sscanf(of->note, "bits/key=%lf", &our_bpk);
    printf("vs sbbf peer (AVX2, sized for the same FPR: %.2f bits/key vs our %.2f), kernel time / peer time\n"
           "(medians above; below 1.00x the kernel is faster):\n",
           pf ? pf->x : 0, our_bpk);
    const char *ops[2] = {"insert", "lookup0"};
    const bench_result *peer[2] = {pi, pl};
    for (int o = 0; o < 2; o++) {
        printf("  %-8s", o ? "look0%" : "insert");
        for (size_t i = 0; i < nk; i++) {
            bench_result *r = bench_result_find("kernel", kernels[i], ops[o], n, 1);
            if (r) printf("  %s %.2fx", kernels[i], r->ns.median / peer[o]->ns.median);
        }
        printf("\n");
    }
}

/* single-key calls per kernel, with x the batched call on the same keys; the
 * inline columns are the same calls in a program built with -mavx2 or
 * -mavx512f (the header's inline probe), each beside the peer's inlined probe
 * measured with it, whose row closes the table */
static void print_single(uint64_t n, const char *const *kernels, size_t nk)
{
    static const char *const ops[] = {"single0", "single-inline0", "single-add", "single-inline-add", "single16",
                                      "single-add16"};
    bool any = false;
    for (size_t i = 0; i < nk && !any; i++) any = bench_result_find("kernel", kernels[i], "single0", n, 1) != NULL;
    if (!any) return;
    const bench_result *inl = NULL;
    for (size_t i = 0; i < nk && !inl; i++) inl = bench_result_find("kernel", kernels[i], "single-inline0", n, 1);
    const char *flags = bench_result_inline_flags();
    printf("single-key calls, one per key in a loop (ns/key; x = / the same kernel's batched call on the same keys;\n"
           "  inline = a program built with %s, where the header inlines the probe):\n",
           flags ? flags : "-mavx2 (not run: this CPU has no AVX2)");
    printf("  %-14s %17s %17s %17s %17s %17s %17s\n", "", "contains_u64 0%", "inline", "add_u64", "inline", "contains 16B",
           "add 16B");
    for (size_t i = 0; i < nk + 1; i++) {
        const char *section = i < nk ? "kernel" : "reference";
        const char *impl = i < nk ? kernels[i] : "sbbf";
        if (!bench_result_find(section, impl, "single0", n, 1)) continue;
        printf("  %-14s", i < nk ? impl : "sbbf peer");
        for (size_t j = 0; j < sizeof ops / sizeof ops[0]; j++) {
            bench_result *r = bench_result_find(section, impl, ops[j], n, 1);
            char c[16], cell[40];
            fmt_ns(c, sizeof c, r);
            if (r && r->value > 0)
                snprintf(cell, sizeof cell, "%s (%.1fx)", c, r->value);
            else
                snprintf(cell, sizeof cell, "%s", r ? c : "-");
            printf(" %17s", cell);
        }
        printf("\n");
    }
    /* ours inlined against the peer's inlined probe, measured side by side */
    const bench_result *peer_one = bench_result_find("reference", "sbbf", "single-inline0", n, 1);
    const bench_result *peer_add = bench_result_find("reference", "sbbf", "single-inline-add", n, 1);
    if (!inl || !peer_one) return;
    printf("  inline / the peer's inlined probe, measured beside it (below 1.00x ours is faster):\n");
    for (size_t i = 0; i < nk; i++) {
        const bench_result *one = bench_result_find("kernel", kernels[i], "single-inline0", n, 1);
        const bench_result *add = bench_result_find("kernel", kernels[i], "single-inline-add", n, 1);
        if (!one) continue;
        printf("  %-14s lookup %.2fx", kernels[i], one->ns.median / peer_one->ns.median);
        if (add && peer_add) printf("  add %.2fx", add->ns.median / peer_add->ns.median);
        printf("\n");
    }
}

void bench_print_size(const bench_options *o, const bench_machine *m, uint64_t n, const char *const *kernels,
                      size_t nk, int best)
{
    char keys[32];
    bench_format_keys(keys, sizeof keys, n);
    bench_result *fm = bench_result_find("fpr", "bloomsimd", "measured", n, 1);
    bench_result *model = bench_result_find("fpr", "bloomsimd", "model", n, 1);
    bench_result *fill = NULL;
    for (size_t i = 0; i < nk && !fill; i++) fill = bench_result_find("kernel", kernels[i], "fill", n, 1);
    (void)fill;
    double bytes = 0;
    unsigned k = 0;
    double bpk = 0;
    if (fm) sscanf(fm->note, "bits/key=%lf k=%u", &bpk, &k);
    bytes = bpk * (double)n / 8.0;
    char huge[48] = "";
    for (size_t i = 0; i < nk; i++) {
        bench_result *h = bench_result_find("memory", kernels[i], "huge-pages", n, 1);
        if (h && h->value >= 0 && bytes >= 2097152) snprintf(huge, sizeof huge, ", %.0f%% on huge pages", 100 * h->value);
    }
    printf("\n== %s keys: %.1f %s, %s%s, k=%u, %.2f bits/key, FPR %.3f%% (model %.3f%%) ==\n", keys,
           bytes >= 1048576 ? bytes / 1048576.0 : bytes / 1024.0, bytes >= 1048576 ? "MiB" : "KiB",
           bench_residency(m, (uint64_t)bytes), huge, k, bpk, fm ? 100 * fm->value : 0, model ? 100 * model->value : 0);
    printf("%-14s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s\n", "", "insert", "look0%", "look50", "look100",
           "hash", "add16B", "look16B", "add64B", "look64B", "Mlook/s", "x ceil", "x ceil");
    printf("%-14s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s\n", "impl", "", "", "", "", "u64", "", "", "", "",
           "(0%)", "insert", "look0%");
    bench_result *ceil = bench_result_find("ceiling", "ceiling", "lookup0", n, 1);
    if (ceil) {
        char c[16];
        fmt_ns(c, sizeof c, ceil);
        char label[40];
        snprintf(label, sizeof label, "ceiling");
        printf("%-14s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8.0f %7s %7s   %s\n", label, "-", c, "-", "-", "-", "-",
               "-", "-", "-", 1e3 / ceil->ns.median, "-", "1.00x", ceil->note);
    }
    static const char *const refs[] = {"sbbf", "classic", "libbloom"};
    for (size_t i = 0; i < nk + 3; i++) {
        const char *section = i < nk ? "kernel" : "reference";
        const char *impl = i < nk ? kernels[i] : refs[i - nk];
        bench_result *look = bench_result_find(section, impl, "lookup0", n, 1);
        if (!look) continue;
        char cells[NOPS][16], label[40], ri[16], rl[16];
        for (size_t j = 0; j < NOPS; j++) fmt_ns(cells[j], sizeof cells[j], bench_result_find(section, impl, size_ops[j], n, 1));
        fmt_ratio(ri, sizeof ri, bench_result_find(section, impl, "insert", n, 1));
        fmt_ratio(rl, sizeof rl, look);
        if (i < nk)
            snprintf(label, sizeof label, "%s%s%s", impl, bloomsimd_kernel_emulated(impl) ? " (emu)" : "",
                     (int)i == best ? " *" : "");
        else if (strcmp(impl, "sbbf") == 0)
            snprintf(label, sizeof label, "sbbf peer k=8");
        else {
            unsigned rk = 0;
            sscanf(look->note, "k=%u", &rk);
            snprintf(label, sizeof label, "%s k=%u", impl, rk);
        }
        printf("%-14s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8.1f %7s %7s\n", label, cells[0], cells[1], cells[2],
               cells[3], cells[4], cells[5], cells[6], cells[7], cells[8], 1e3 / look->ns.median, ri, rl);
    }
    bench_result *xxh = bench_result_find("reference", "libxxhash", "hash", n, 1);
    if (xxh) {
        char c[16];
        fmt_ns(c, sizeof c, xxh);
        printf("%-14s %7s %7s %7s %7s %7s\n", "libxxhash", "-", "-", "-", "-", c);
    }
    print_vs_peer(n, kernels, nk);
    print_single(n, kernels, nk);
    bench_print_forms(n, kernels, nk);
    bench_print_strings(n, kernels, nk);
    if (best >= 0) printf("* fastest batched negative lookup at this size: %s\n", kernels[best]);
    if (!o->long_output) return;
    printf("%-10s %-10s %-10s %9s %9s %9s %9s %6s\n", "section", "impl", "op", "median", "min", "max", "Mkeys/s",
           "reps");
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (r->keys != n || r->ns.reps == 0 || strcmp(r->section, "fpr") == 0) continue;
        if (strcmp(r->section, "kernel") && strcmp(r->section, "reference") && strcmp(r->section, "ceiling")) continue;
        printf("%-10s %-10s %-10s %9.3f %9.3f %9.3f %9.1f %6u\n", r->section, r->impl, r->op, r->ns.median, r->ns.min,
               r->ns.max, 1e3 / r->ns.median, r->ns.reps);
    }
}

void bench_print_threads(const bench_options *o)
{
    (void)o;
    bool any = false;
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "threads") != 0 || strcmp(r->op, "fill-concurrent") == 0) continue;
        if (!any) {
            char keys[32];
            bench_format_keys(keys, sizeof keys, r->keys);
            printf("\n== threads: %s, %s keys (ns/key = wall time / all keys: aggregate; speed-ups by wall time;\n"
                   "   cpu = the slowest thread's CPU time / all keys, what free cores would give) ==\n",
                   r->impl, keys);
            any = true;
        }
        char c[16];
        fmt_ns(c, sizeof c, r);
        const char *what = strcmp(r->op, "lookup0") == 0              ? "batched lookup 0%, plain filter"
                           : strcmp(r->op, "insert") == 0             ? "batched insert, plain filter"
                           : strcmp(r->op, "insert-concurrent") == 0  ? "batched insert, CONCURRENT"
                           : strcmp(r->op, "lookup0-concurrent") == 0 ? "batched lookup 0%, CONCURRENT"
                                                                      : r->op;
        printf("%-32s %2u thread%s %7s ns/key %8.1f Mkeys/s (cpu %6.2f)", what, r->threads,
               r->threads == 1 ? " " : "s", c, 1e3 / r->ns.median, r->x);
        if (strcmp(r->op, "lookup0") == 0 || strcmp(r->op, "insert-concurrent") == 0)
            printf("  %.2fx vs 1 thread", r->value);
        if (strcmp(r->op, "insert-concurrent") == 0) {
            bench_result *plain = bench_result_find("threads", r->impl, "insert", r->keys, 1);
            if (plain) printf(", %.2fx the plain 1-thread time", r->ns.median / plain->ns.median);
        }
        if (strcmp(r->op, "lookup0-concurrent") == 0) printf("  %.2fx the plain filter's time", r->value);
        printf("\n");
    }
    any = false;
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "persist") != 0) continue;
        if (!any) {
            char keys[32];
            bench_format_keys(keys, sizeof keys, r->keys);
            printf("\n== persistence and set operations, %s keys (load and map on the saved filter's kernel) ==\n",
                   keys);
            any = true;
        }
        char c[16];
        fmt_ns(c, sizeof c, r);
        if (strcmp(r->op, "lookup0-heap") == 0)
            printf("%-32s %7s ns/key (%s)\n", "batched lookup 0%, loaded file", c, r->impl);
        else if (strcmp(r->op, "lookup0-mapped") == 0)
            printf("%-32s %7s ns/key (%s)  %.2fx the heap time\n", "batched lookup 0%, mapped file", c, r->impl,
                   r->value);
        else if (strcmp(r->op, "union") == 0)
            printf("%-32s %7.2f GB/s\n", "bloomsimd_union", r->value);
        else if (strcmp(r->op, "memcpy") == 0)
            printf("%-32s %7.2f GB/s\n", "memcpy, same bytes", r->value);
        else if (strcmp(r->op, "save") == 0)
            printf("%-32s %7.2f GB/s (one run, fsync included)\n", "bloomsimd_save", r->value);
    }
}

void bench_print_fpr(const bench_options *o)
{
    (void)o;
    printf("\n== false-positive rate (absent keys, after inserting all keys) ==\n");
    printf("%-10s %8s %3s %10s %10s %10s   %8s %10s %10s   %10s   %8s %10s %10s\n", "keys", "bits/key", "k", "target",
           "model", "measured", "classic k", "formula", "measured", "libbloom", "sbbf b/k", "sbbf model", "measured");
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "fpr") != 0 || strcmp(r->impl, "bloomsimd") != 0 || strcmp(r->op, "measured") != 0)
            continue;
        double bpk = 0, target = 0, model = 0;
        unsigned k = 0;
        sscanf(r->note, "bits/key=%lf k=%u target=%lf model=%lf", &bpk, &k, &target, &model);
        char keys[32], cf[16] = "-", cm[16] = "-", lb[16] = "-", ck[8] = "-";
        bench_format_keys(keys, sizeof keys, r->keys);
        bench_result *c = bench_result_find("fpr", "classic", "measured", r->keys, 1);
        bench_result *f = bench_result_find("fpr", "classic", "formula", r->keys, 1);
        bench_result *l = bench_result_find("fpr", "libbloom", "measured", r->keys, 1);
        if (c) snprintf(cm, sizeof cm, "%.4f%%", 100 * c->value), sscanf(c->note, "k=%7s", ck);
        if (f) snprintf(cf, sizeof cf, "%.4f%%", 100 * f->value);
        if (l) snprintf(lb, sizeof lb, "%.4f%%", 100 * l->value);
        char pb[16] = "-", pmod[16] = "-", pmeas[16] = "-";
        bench_result *p = bench_result_find("fpr", "sbbf", "measured", r->keys, 1);
        if (p) {
            double ptarget = 0, pmodel = 0;
            sscanf(p->note, "bits/key=%*f target=%lf model=%lf", &ptarget, &pmodel);
            snprintf(pb, sizeof pb, "%.2f", p->x);
            snprintf(pmod, sizeof pmod, "%.4f%%", 100 * pmodel);
            snprintf(pmeas, sizeof pmeas, "%.4f%%", 100 * p->value);
        }
        printf("%-10s %8.2f %3u %9.4f%% %9.4f%% %9.4f%%   %8s %10s %10s   %10s   %8s %10s %10s\n", keys, bpk, k,
               100 * target, 100 * model, 100 * r->value, ck, cf, cm, lb, pb, pmod, pmeas);
    }
    bool sweep = false;
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "fpr-sweep") != 0 || strcmp(r->impl, "bloomsimd") != 0 || strcmp(r->op, "measured") != 0)
            continue;
        if (!sweep) {
            printf("\nFPR vs bits/key (2^20 keys, 2^22 absent queries per point)\n");
            printf("%8s %3s %10s %10s   %9s %10s %10s   %9s %10s %10s\n", "bits/key", "k", "model", "measured",
                   "classic k", "formula", "measured", "sbbf b/k", "model", "measured");
            sweep = true;
        }
        bench_result *model = bench_result_get(i + 1);
        bench_result *cm = NULL, *cf = NULL, *pm = NULL, *pmodel = NULL;
        for (size_t j = i + 2; j < i + 6 && j < bench_result_count(); j++) {
            bench_result *c = bench_result_get(j);
            if (strcmp(c->section, "fpr-sweep") != 0) break;
            if (strcmp(c->impl, "classic") == 0 && strcmp(c->op, "measured") == 0) cm = c;
            if (strcmp(c->impl, "classic") == 0 && strcmp(c->op, "formula") == 0) cf = c;
            if (strcmp(c->impl, "sbbf") == 0 && strcmp(c->op, "measured") == 0) pm = c;
            if (strcmp(c->impl, "sbbf") == 0 && strcmp(c->op, "model") == 0) pmodel = c;
        }
        unsigned k = 0, ck = 0;
        sscanf(r->note, "k=%u", &k);
        if (cm) sscanf(cm->note, "k=%u", &ck);
        printf("%8.2f %3u %9.4f%% %9.4f%%   %9u %9.4f%% %9.4f%%   %9.2f %9.4f%% %9.4f%%\n", r->x, k,
               100 * model->value, 100 * r->value, ck, cf ? 100 * cf->value : NAN, cm ? 100 * cm->value : NAN,
               pm ? pm->x : NAN, pmodel ? 100 * pmodel->value : NAN, pm ? 100 * pm->value : NAN);
    }
}
