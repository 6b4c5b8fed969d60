/*
 * plot.c — --plot DIR: PNG charts through gnuplot (Debian: gnuplot-nox).
 *   bench-ns-per-key.png  batched negative lookup ns/key vs filter size, one
 *                         line per kernel, plus the ceiling, the classic filter
 *                         and the split-block peer (log-log);
 *   bench-fpr.png         measured FPR vs bits/key for this layout, the
 *                         classic filter and the split-block peer, against the
 *                         layout model, the classic formula and the peer's
 *                         model (log y).
 * The data files stay next to the PNGs, so the charts can be re-drawn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run.h"

bool bench_plot_available(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

static bool write_size_data(const char *path, const char *const *kernels, size_t nk, const uint64_t *sizes,
                            size_t nsizes)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# keys ceiling");
    for (size_t i = 0; i < nk; i++) fprintf(f, " %s", kernels[i]);
    fprintf(f, " classic sbbf\n");
    for (size_t s = 0; s < nsizes; s++) {
        bench_result *c = bench_result_find("ceiling", "ceiling", "lookup0", sizes[s], 1);
        fprintf(f, "%llu %s", (unsigned long long)sizes[s], "");
        if (c)
            fprintf(f, "%.4f", c->ns.median);
        else
            fprintf(f, "NaN");
        for (size_t i = 0; i < nk; i++) {
            bench_result *r = bench_result_find("kernel", kernels[i], "lookup0", sizes[s], 1);
            fprintf(f, r ? " %.4f" : " NaN", r ? r->ns.median : 0);
        }
        bench_result *r = bench_result_find("reference", "classic", "lookup0", sizes[s], 1);
        fprintf(f, r ? " %.4f" : " NaN", r ? r->ns.median : 0);
        r = bench_result_find("reference", "sbbf", "lookup0", sizes[s], 1);
        fprintf(f, r ? " %.4f\n" : " NaN\n", r ? r->ns.median : 0);
    }
    return fclose(f) == 0;
}

static bool write_fpr_data(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# bits_per_key measured model | classic_bits_per_key classic_measured classic_formula"
               " | sbbf_bits_per_key sbbf_measured sbbf_model\n");
    for (size_t i = 0; i < bench_result_count(); i++) {
        bench_result *r = bench_result_get(i);
        if (strcmp(r->section, "fpr-sweep") != 0 || strcmp(r->impl, "bloomsimd") != 0 || strcmp(r->op, "measured") != 0)
            continue;
        bench_result *model = bench_result_get(i + 1);
        bench_result *cm = bench_result_get(i + 2), *cf = bench_result_get(i + 3);
        bench_result *pm = bench_result_get(i + 4), *pf = bench_result_get(i + 5);
        bool classic = cm && cf && strcmp(cm->impl, "classic") == 0 && strcmp(cf->impl, "classic") == 0;
        bool peer = pm && pf && strcmp(pm->section, "fpr-sweep") == 0 && strcmp(pm->impl, "sbbf") == 0 &&
                    strcmp(pf->impl, "sbbf") == 0;
        fprintf(f, "%.4f %.6g %.6g %.4f %.6g %.6g", r->x, r->value, model ? model->value : 0,
                classic ? cm->x : r->x, classic ? cm->value : 0, classic ? cf->value : 0);
        if (peer)
            fprintf(f, " %.4f %.6g %.6g\n", pm->x, pm->value, pf->value);
        else
            fprintf(f, " NaN NaN NaN\n");
    }
    return fclose(f) == 0;
}

bool bench_plot(const bench_options *o, const char *const *kernels, size_t nk, const uint64_t *sizes, size_t nsizes)
{
    if (!bench_plot_available()) {
        fprintf(stderr, "bloomsimd-bench: --plot needs gnuplot: apt-get install gnuplot-nox\n");
        return false;
    }
    mkdir(o->plot_dir, 0777);
    char data1[1024], data2[1024], script[1024], cmd[1200];
    snprintf(data1, sizeof data1, "%s/bench-ns-per-key.dat", o->plot_dir);
    snprintf(data2, sizeof data2, "%s/bench-fpr.dat", o->plot_dir);
    snprintf(script, sizeof script, "%s/bench-plots.gp", o->plot_dir);
    if (!write_size_data(data1, kernels, nk, sizes, nsizes) || (o->fpr_sweep && !write_fpr_data(data2))) {
        fprintf(stderr, "bloomsimd-bench: cannot write plot data into %s\n", o->plot_dir);
        return false;
    }
    FILE *g = fopen(script, "w");
    if (!g) return false;
    fprintf(g, "set terminal pngcairo size 960,560 noenhanced\n");
    fprintf(g, "set output '%s/bench-ns-per-key.png'\n", o->plot_dir);
    if (o->fpr > 0)
        fprintf(g, "set title 'batched negative lookup, filters sized for FPR %g: ns/key vs filter size'\n", o->fpr);
    else
        fprintf(g, "set title 'batched negative lookup, %.4g bits/key: ns/key vs filter size'\n", o->bits_per_key);
    fprintf(g, "set logscale x 10\nset logscale y 2\nset grid\nset key below\nset format x '10^%%L'\n");
    fprintf(g, "set xlabel 'keys in filter'\nset ylabel 'ns per key (median)'\n");
    fprintf(g, "plot '%s' using 1:2 with linespoints lw 3 dt 2 title 'ceiling (1 line/key)'", data1);
    for (size_t i = 0; i < nk; i++)
        fprintf(g, ", '' using 1:%zu with linespoints lw 2 title '%s'", i + 3, kernels[i]);
    fprintf(g, ", '' using 1:%zu with linespoints lw 2 dt 3 title 'classic Bloom'", nk + 3);
    fprintf(g, ", '' using 1:%zu with linespoints lw 3 dt 4 title 'split-block peer (AVX2)'\n", nk + 4);
    if (!o->fpr_sweep) goto draw; /* the FPR chart needs --fpr-sweep's points (--plot implies it) */
    fprintf(g, "set output '%s/bench-fpr.png'\n", o->plot_dir);
    fprintf(g, "set title 'false-positive rate vs bits/key'\n");
    fprintf(g, "unset logscale\nset logscale y 10\nset key inside top right\nset format y '%%g'\nset format x '%%g'\n");
    fprintf(g, "set xlabel 'bits per key'\nset ylabel 'FPR'\n");
    fprintf(g, "plot '%s' using 1:2 with points pt 7 ps 1.2 title 'bloomsimd measured', "
               "'' using 1:3 with lines lw 2 title 'bloomsimd layout model', "
               "'' using 4:5 with points pt 5 ps 1.0 title 'classic measured', "
               "'' using 4:6 with lines lw 2 dt 2 title 'classic formula (1-e^{-k/c})^k', "
               "'' using 7:8 with points pt 9 ps 1.0 title 'split-block peer measured', "
               "'' using 7:9 with lines lw 2 dt 4 title 'split-block peer model'\n",
            data2);
draw:
    fclose(g);
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>'%s/gnuplot.log'", script, o->plot_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "bloomsimd-bench: gnuplot failed on %s\n", script);
        return false;
    }
    if (!o->quiet)
        fprintf(stderr, "[bench] charts: %s/bench-ns-per-key.png%s%s%s\n", o->plot_dir, o->fpr_sweep ? " " : "",
                o->fpr_sweep ? o->plot_dir : "", o->fpr_sweep ? "/bench-fpr.png" : "");
    return true;
}
