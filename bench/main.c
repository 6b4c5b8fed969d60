/*
 * main.c — bloomsimd-bench: choose kernels and sizes, run each size, then the
 * multi-thread, persistence and FPR phases, and print / write the results.
 * Exit status: 0, 1 on a usage or setup error, 2 if a correctness check failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

/* Default sizes: L1-, L2-, L3- and DRAM-resident at 10 bits/key on typical
 * caches; 10^8 keys needs ~1.5 GB (keys, five filters, queries). */
static const uint64_t default_sizes[] = {10000, 100000, 1000000, 10000000, 100000000};
#define BIG_RUN_BYTES_PER_KEY 16u

static size_t choose_kernels(const bench_options *o, const char **out)
{
    size_t n = 0;
    if (o->kernels_given) {
        /* names are the library's own (cli.c matched them case-insensitively) */
        for (size_t i = 0; i < o->nkernels && n < BENCH_MAX_KERNELS; i++) {
            const char *name = o->kernels[i];
            bool dup = false;
            for (size_t j = 0; j < n; j++) dup |= strcmp(out[j], name) == 0;
            if (dup) continue;
            if (!bloomsimd_kernel_supported(name))
                fprintf(stderr, "note: kernel '%s' is not supported by this CPU; skipped\n", name);
            else
                out[n++] = name;
        }
        return n;
    }
    for (size_t j = 0; bloomsimd_kernel_name(j) && n < BENCH_MAX_KERNELS; j++) {
        const char *name = bloomsimd_kernel_name(j);
        if (!bloomsimd_kernel_supported(name)) continue;
        if (bloomsimd_kernel_emulated(name) && !o->emulated) continue;
        out[n++] = name;
    }
    return n;
}

/* mkdir -p for the output folder; false (errno set) on failure. */
static bool make_folder(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return errno = ENAMETOOLONG, false;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
            *p = '/';
        }
    return mkdir(buf, 0777) == 0 || errno == EEXIST;
}

/* Copies the report file to the screen (--verbose). */
static void show_file(const char *path, FILE *screen)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, screen);
    fclose(f);
    fputc('\n', screen);
}

static void after_largest(const bench_options *o, const bench_machine *m, const char *kernel, bloomsimd_filter *f,
                          const bench_workload *w)
{
    bench_paired_rounds(o, kernel, f, w);
    if (o->threads) bench_thread_rows(o, m, kernel, f, w);
    bench_persist_rows(o, m, kernel, f, w);
}

int main(int argc, char **argv)
{
    bench_options o;
    int pr = bench_parse_options(&o, argc, argv);
    if (pr != 0) return pr > 0 ? 0 : 1;

    bench_machine m;
    bench_machine_probe(&m);
    if (o.pin) {
        /* pin to the last allowed CPU: thread rows use 0..T-1 for the others */
        int cpu = (int)m.ncpus - 1;
        if (bench_pin_thread(cpu)) m.pinned_cpu = cpu;
    }
    if (o.phase) return bench_run_phase(&o);

    const char *kernels[BENCH_MAX_KERNELS];
    size_t nk = choose_kernels(&o, kernels);
    if (nk == 0) {
        char list[160] = "";
        for (size_t j = 0, used = 0; bloomsimd_kernel_name(j) && used < sizeof list; j++)
            if (bloomsimd_kernel_supported(bloomsimd_kernel_name(j)))
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                         bloomsimd_kernel_name(j));
        fprintf(stderr, "bloomsimd-bench: no kernel to run (this CPU runs: %s)\n", list);
        return 1;
    }
    if (!o.sizes_given) {
        for (size_t i = 0; i < sizeof default_sizes / sizeof default_sizes[0]; i++) {
            uint64_t n = default_sizes[i];
            if (n >= 100000000 && m.mem_available && m.mem_available < n * BIG_RUN_BYTES_PER_KEY + (UINT64_C(1) << 30)) {
                fprintf(stderr, "note: skipping %llu keys: %llu MiB available, ~%llu MiB needed\n",
                        (unsigned long long)n, (unsigned long long)(m.mem_available >> 20),
                        (unsigned long long)((n * BIG_RUN_BYTES_PER_KEY + (UINT64_C(1) << 30)) >> 20));
                continue;
            }
            o.sizes[o.nsizes++] = n;
        }
    }
    if (o.perf) bench_perf_open();
    if (o.plot_dir && !bench_plot_available())
        fprintf(stderr, "note: --plot needs gnuplot (apt-get install gnuplot-nox); measuring anyway, no charts\n");

    /* The output folder: every table (report.txt), the data, the charts. */
    char folder[512], report[600], csv[600], json[600];
    if (o.out_dir) {
        snprintf(folder, sizeof folder, "%s", o.out_dir);
    } else {
        time_t now = time(NULL);
        struct tm utc;
        gmtime_r(&now, &utc);
        strftime(folder, sizeof folder, "bench-results/%Y%m%dT%H%M%SZ", &utc);
    }
    if (!make_folder(folder)) {
        fprintf(stderr, "bloomsimd-bench: cannot create the output folder %s: %s\n", folder, strerror(errno));
        return 1;
    }
    snprintf(report, sizeof report, "%s/report.txt", folder);
    snprintf(csv, sizeof csv, "%s/results.csv", folder);
    snprintf(json, sizeof json, "%s/results.json", folder);
    if (!o.csv_path) o.csv_path = csv;
    if (!o.json_path) o.json_path = json;
    if (!o.plot_dir && bench_plot_available()) o.plot_dir = folder, o.plot_default = true;
    /* stdout becomes report.txt; the summary goes to the original stdout */
    fflush(stdout);
    int screen_fd = dup(STDOUT_FILENO);
    FILE *screen = screen_fd >= 0 ? fdopen(screen_fd, "w") : NULL;
    if (!screen || !freopen(report, "w", stdout)) {
        fprintf(stderr, "bloomsimd-bench: cannot write %s: %s\n", report, strerror(errno));
        return 1;
    }
    if (!o.quiet) fprintf(stderr, "[bench] full tables go to %s\n", report);

    bench_print_header(&o, &m, kernels, nk);
    fflush(stdout);
    uint64_t largest = 0;
    for (size_t s = 0; s < o.nsizes; s++)
        if (o.sizes[s] > largest) largest = o.sizes[s];
    for (size_t s = 0; s < o.nsizes; s++) {
        bench_workload w;
        bench_progress(&o, "%llu keys: generating keys", (unsigned long long)o.sizes[s]);
        if (!bench_workload_make(&w, &o, o.sizes[s])) {
            fprintf(stderr, "bloomsimd-bench: out of memory for %llu keys; skipped\n", (unsigned long long)o.sizes[s]);
            continue;
        }
        bool last = o.sizes[s] == largest;
        int best = bench_run_size(&o, &m, kernels, nk, &w, last ? after_largest : NULL, largest);
        bench_print_size(&o, &m, o.sizes[s], kernels, nk, best);
        fflush(stdout);
        bench_peer_rounds(&o, &m, kernels, nk, &w);
        bench_layout_rows(&o, kernels, nk, &w);
        if (last) bench_layered_rows(&o, &w);
        bench_parquet_rows(&o, &w);
        bench_workload_free(&w);
        fflush(stdout);
        if (last) largest = 0; /* once, even if listed twice */
    }
    bench_print_peer_rounds(&o, kernels, nk);
    bench_print_layouts(&o, kernels, nk);
    bench_print_layered(&o);
    bench_print_parquet(&o);
    bench_print_paired(&o);
    bench_print_threads(&o);
    if (o.fpr_sweep) bench_fpr_sweep(&o, kernels[0]);
    bench_print_fpr(&o);
    bench_print_summary(&o, kernels, nk, o.sizes, o.nsizes);

    int status = 0;
    if (o.csv_path && !bench_write_csv(o.csv_path)) {
        fprintf(stderr, "bloomsimd-bench: cannot write %s\n", o.csv_path);
        status = 1;
    }
    if (o.json_path && !bench_write_json(o.json_path, &m, &o)) {
        fprintf(stderr, "bloomsimd-bench: cannot write %s\n", o.json_path);
        status = 1;
    }
    bool plotted = o.plot_dir && bench_plot(&o, kernels, nk, o.sizes, o.nsizes);
    if (o.plot_dir && !plotted) status = 1;
    bench_perf_close();
    bench_progress_done(&o);
    bench_print_screen(stdout, &o, &m, kernels, nk, o.sizes, o.nsizes, folder, plotted && o.plot_dir == folder);
    fflush(stdout);
    if (o.verbose) show_file(report, screen);
    bench_print_screen(screen, &o, &m, kernels, nk, o.sizes, o.nsizes, folder, plotted && o.plot_dir == folder);
    fclose(screen);
    if (bench_check_failures()) {
        fprintf(stderr, "bloomsimd-bench: %u correctness check(s) FAILED (see above)\n", bench_check_failures());
        return 2;
    }
    return status;
}
