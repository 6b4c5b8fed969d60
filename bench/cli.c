/*
 * cli.c — command-line options of bloomsimd-bench and their defaults.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *f)
{
    fputs("usage: bloomsimd-bench [options]\n"
          "\n"
          "With no options: every kernel this CPU runs, on filters of 1e4..1e8 keys (L1- to\n"
          "DRAM-resident; 1e8 only when memory allows) at 10 bits/key, against the memory\n"
          "ceiling, a classic Bloom filter and libbloom; then multi-thread rows. ~1 minute.\n"
          "\n"
          "  --kernels LIST     comma-separated kernels (default: all this CPU supports)\n"
          "  --kernel NAME      same, one kernel\n"
          "  --emulated         also run emulated kernels (neon through SIMDe on x86)\n"
          "  --keys LIST        filter sizes in keys, e.g. 1e5,1e8 or 100000 (k/M/G suffixes ok)\n"
          "  --bits-per-key B   filter size per key (default 10)\n"
          "  --fpr P            size filters for target FPR P with the layout model instead\n"
          "  --k K              bits set per key (default: the library's choice)\n"
          "  --batch N          keys per batch call (default 4096)\n"
          "  --reps N           measured repetitions per phase, after one warm-up (default 5)\n"
          "  --queries N        keys per repetition (default 1M; inserts re-insert cyclically)\n"
          "  --threads N        multi-thread rows with 1..N threads (default: CPU count)\n"
          "  --no-threads       skip the multi-thread rows\n"
          "  --no-refs          skip the ceiling, classic and libbloom rows\n"
          "  --no-libbloom      skip libbloom (slow: ~150-300 ns/key)\n"
          "  --fpr-sweep        measure FPR vs bits/key (implied by --plot)\n"
          "  --paired N         at the largest size: N rounds (default 1000, 0 = off) of ceiling then\n"
          "                     lookup on the same 65536 keys: the ratio's spread (docs/BENCH.md)\n"
          "  --peer-fpr LIST    target FPRs of the paired comparison with the split-block peer\n"
          "                     (default 0.01,0.001; docs/BENCH.md)\n"
          "  --peer-rounds N    paired rounds per operation and target (default 100, 0 = off)\n"
          "  --perf             hardware counters per key (perf_event_open)\n"
          "  --long             after each size, list every cell: median [min..max], Mkeys/s\n"
          "  --csv FILE         all results as CSV\n"
          "  --json FILE        all results as JSON\n"
          "  --plot DIR         PNG charts (gnuplot) into DIR\n"
          "  --no-pin           do not pin threads to CPUs\n"
          "  --clock cpu|wall   single-thread timings in thread CPU time (default) or wall time\n"
          "  --seed N           key-generation seed (default 1)\n"
          "  --quiet            no progress on stderr\n"
          "  --phase PHASE      run one phase only and print its count (for bench/cachegrind.sh):\n"
          "                     'lookup' or 'insert', with --kernel NAME|classic, --keys N,\n"
          "                     --queries Q, --present PCT (default 0)\n"
          "  --help\n",
          f);
}

/* 100000, 1e5, 10^5, 100k, 2M, 1G */
static bool parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v;
    if (strncmp(s, "10^", 3) == 0) {
        long e = strtol(s + 3, &end, 10);
        v = pow(10.0, (double)e);
    } else {
        v = strtod(s, &end);
    }
    if (end == s || errno) return false;
    if (*end == 'k' || *end == 'K') v *= 1e3, end++;
    else if (*end == 'M') v *= 1e6, end++;
    else if (*end == 'G') v *= 1e9, end++;
    if (*end || !(v >= 0) || v > 1e15) return false;
    *out = (uint64_t)llround(v);
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && !*end && !errno;
}

/* Splits a comma list in place into out[]. */
static size_t split_list(char *s, const char **out, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

int bench_parse_options(bench_options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->bits_per_key = 10.0;
    o->batch = 4096;
    o->reps = 5;
    o->queries = UINT64_C(1) << 20;
    o->threads = true;
    o->refs = true;
    o->libbloom = true;
    o->pin = true;
    o->seed = 1;
    o->paired_rounds = 1000;
    o->peer_fprs[0] = 0.01;
    o->peer_fprs[1] = 0.001;
    o->npeer_fprs = 2;
    o->peer_rounds = 100;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true, used_value = false;
        uint64_t n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--emulated") == 0) {
            o->emulated = true;
        } else if (strcmp(a, "--no-threads") == 0) {
            o->threads = false;
        } else if (strcmp(a, "--no-refs") == 0) {
            o->refs = false;
        } else if (strcmp(a, "--no-libbloom") == 0) {
            o->libbloom = false;
        } else if (strcmp(a, "--fpr-sweep") == 0) {
            o->fpr_sweep = true;
        } else if (strcmp(a, "--perf") == 0) {
            o->perf = true;
        } else if (strcmp(a, "--no-pin") == 0) {
            o->pin = false;
        } else if (strcmp(a, "--long") == 0) {
            o->long_output = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else if (!v) {
            fprintf(stderr, "bloomsimd-bench: unknown option or missing value: %s (see --help)\n", a);
            return -1;
        } else if (strcmp(a, "--kernels") == 0 || strcmp(a, "--kernel") == 0) {
            o->nkernels = split_list(argv[i + 1], o->kernels, BENCH_MAX_KERNELS);
            o->kernels_given = true;
            used_value = true;
        } else if (strcmp(a, "--keys") == 0) {
            const char *items[BENCH_MAX_SIZES];
            size_t count = split_list(argv[i + 1], items, BENCH_MAX_SIZES);
            o->nsizes = 0;
            for (size_t j = 0; j < count && ok; j++) {
                ok = parse_count(items[j], &n) && n > 0;
                if (ok) o->sizes[o->nsizes++] = n;
            }
            o->sizes_given = true;
            used_value = true;
        } else if (strcmp(a, "--bits-per-key") == 0) {
            ok = parse_double(v, &o->bits_per_key) && o->bits_per_key >= 1 && o->bits_per_key <= 64;
            used_value = true;
        } else if (strcmp(a, "--fpr") == 0) {
            ok = parse_double(v, &o->fpr) && o->fpr > 0 && o->fpr < 1;
            used_value = true;
        } else if (strcmp(a, "--k") == 0) {
            ok = parse_count(v, &n) && n >= 1 && n <= 16;
            o->k = (uint32_t)n;
            used_value = true;
        } else if (strcmp(a, "--batch") == 0) {
            ok = parse_count(v, &n) && n >= 1 && n <= (UINT64_C(1) << 30);
            o->batch = (size_t)n;
            used_value = true;
        } else if (strcmp(a, "--reps") == 0) {
            ok = parse_count(v, &n) && n <= 1000; /* 0 only makes sense with --phase */
            o->reps = (unsigned)n;
            used_value = true;
        } else if (strcmp(a, "--queries") == 0) {
            ok = parse_count(v, &n) && n <= (UINT64_C(1) << 32);
            o->queries = n;
            used_value = true;
        } else if (strcmp(a, "--threads") == 0) {
            ok = parse_count(v, &n) && n >= 1 && n <= 256;
            o->max_threads = (unsigned)n;
            used_value = true;
        } else if (strcmp(a, "--paired") == 0) {
            ok = parse_count(v, &n) && (n == 0 || (n >= 10 && n <= 100000));
            o->paired_rounds = (unsigned)n;
            used_value = true;
        } else if (strcmp(a, "--peer-rounds") == 0) {
            ok = parse_count(v, &n) && (n == 0 || (n >= 10 && n <= 100000));
            o->peer_rounds = (unsigned)n;
            used_value = true;
        } else if (strcmp(a, "--peer-fpr") == 0) {
            const char *items[4];
            size_t count = split_list(argv[i + 1], items, 4);
            o->npeer_fprs = 0;
            for (size_t j = 0; j < count && ok; j++) {
                double p;
                ok = parse_double(items[j], &p) && p >= 1e-10 && p < 1;
                if (ok) o->peer_fprs[o->npeer_fprs++] = p;
            }
            used_value = true;
        } else if (strcmp(a, "--clock") == 0) {
            ok = strcmp(v, "cpu") == 0 || strcmp(v, "wall") == 0;
            o->wall_clock = strcmp(v, "wall") == 0;
            used_value = true;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv_path = v;
            used_value = true;
        } else if (strcmp(a, "--json") == 0) {
            o->json_path = v;
            used_value = true;
        } else if (strcmp(a, "--plot") == 0) {
            o->plot_dir = v;
            o->fpr_sweep = true;
            used_value = true;
        } else if (strcmp(a, "--seed") == 0) {
            ok = parse_count(v, &o->seed);
            used_value = true;
        } else if (strcmp(a, "--phase") == 0) {
            o->phase = v;
            ok = strcmp(v, "lookup") == 0 || strcmp(v, "insert") == 0;
            used_value = true;
        } else if (strcmp(a, "--present") == 0) {
            ok = parse_count(v, &n) && n <= 100;
            o->present_pct = (unsigned)n;
            used_value = true;
        } else {
            fprintf(stderr, "bloomsimd-bench: unknown option: %s (see --help)\n", a);
            return -1;
        }
        if (!ok) {
            fprintf(stderr, "bloomsimd-bench: bad value for %s: %s\n", a, v);
            return -1;
        }
        if (used_value) i++;
    }
        if (!o->phase && o->reps == 0) {
        fprintf(stderr, "bloomsimd-bench: --reps 0 is only meaningful with --phase\n");
        return -1;
    }
    return 0;
}
