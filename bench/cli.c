/*
 * cli.c — command-line options of bloomsimd-bench and their defaults.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include <bloomsimd.h>

#include "bench.h"

static void usage(FILE *f)
{
    fputs("usage: bloomsimd-bench [options]\n"
          "\n"
          "With no options: every kernel this CPU runs, on filters of 1e4..1e8 keys (L1- to\n"
          "DRAM-resident; 1e8 only when memory allows) at 10 bits/key, against the memory\n"
          "ceiling, the split-block peer (AVX2), a classic Bloom filter and libbloom; paired\n"
          "rounds against the peer at 1% and 0.1% FPR; single keys, string keys, insert-\n"
          "and-report-new, hit forms; then threads, persistence and layered filters at the\n"
          "largest size. A few minutes (docs/BENCH.md).\n"
          "\n"
          "Output: a one-screen summary on stdout (the fastest kernel per size, its ratio to\n"
          "each peer and to the memory floor, the FPR check). Every table, CSV, JSON and, when\n"
          "gnuplot is installed, charts go to a folder that the last line names.\n"
          "\n"
          "  --quick            a first taste: 10^4 and 10^6 keys, fewer rounds (under 30 s)\n"
          "  --verbose          every table on stdout too (as they are written to report.txt)\n"
          "  --out DIR          the folder (default bench-results/<UTC date and time>)\n"
          "  --kernels LIST     comma-separated kernels (default: all this CPU supports)\n"
          "  --kernel NAME      same, one kernel\n"
          "  --emulated         also run emulated kernels (neon through SIMDe on x86)\n"
          "  --keys LIST        filter sizes in keys, e.g. 1e5,1e8 or 100000 (k/M/G suffixes ok)\n"
          "  --bits-per-key B   filter size per key (default 10)\n"
          "  --fpr P            size filters for target FPR P with the layout model instead\n"
          "  --k K              bits set per key (default: the library's choice)\n"
          "  --layout L         block512 or split256 for every filter (default: each kernel's own)\n"
          "  --batch N          keys per batch call (default 4096)\n"
          "  --reps N           measured repetitions per phase, after one warm-up (default 5)\n"
          "  --queries N        keys per repetition (default 1M; inserts re-insert cyclically)\n"
          "  --threads N        multi-thread rows with 1..N threads (default: CPU count)\n"
          "  --no-threads       skip the multi-thread rows\n"
          "  --no-refs          skip the ceiling, classic and libbloom rows\n"
          "  --no-libbloom      skip libbloom (slow: ~150-300 ns/key)\n"
          "  --no-layouts       skip the rows of every kernel on both layouts (report.txt)\n"
          "  --fpr-sweep        measure FPR vs bits/key (implied by --plot)\n"
          "  --paired N         at the largest size: N rounds (default 1000, 0 = off) of ceiling then\n"
          "                     lookup on the same 65536 keys: the ratio's spread (docs/BENCH.md)\n"
          "  --peer-fpr LIST    target FPRs of the paired comparison with the split-block peer\n"
          "                     (default 0.01,0.001; docs/BENCH.md)\n"
          "  --peer-rounds N    paired rounds per operation and target (default 100, 0 = off)\n"
          "  --perf             hardware counters per key (perf_event_open)\n"
          "  --long             after each size, list every cell: median [min..max], Mkeys/s\n"
          "  --csv FILE         all results as CSV (default: results.csv in the folder)\n"
          "  --json FILE        all results as JSON (default: results.json in the folder)\n"
          "  --plot DIR         PNG charts (gnuplot) into DIR, with an FPR sweep (default: the\n"
          "                     size chart into the folder when gnuplot is installed)\n"
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

/*
 * Every number is parsed the same way here, in the examples (examples/args.h)
 * and in the bloomsimd command (cli/src/args.c): a count may be written
 * 100000, 1e5, 10^5, 100k, 1.5M, 2G, 1T or 0x186a0 and must come out a whole
 * number; plain digits and hex are read exactly (seeds above 2^53). A
 * probability may be written 0.01, 1e-2 or 1%. A bad value is one line on
 * stderr naming the option, the value and the allowed range.
 */
static bool parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
        unsigned long long u = strtoull(s + 2, &end, 16);
        if (*end || errno) return false;
        *out = u;
        return true;
    }
    if (*s >= '0' && *s <= '9') { /* exact when it is only digits */
        unsigned long long u = strtoull(s, &end, 10);
        if (!*end && !errno) {
            *out = u;
            return true;
        }
    }
    double v;
    errno = 0;
    if (strncmp(s, "10^", 3) == 0) {
        long e = strtol(s + 3, &end, 10);
        if (end == s + 3 || e < 0 || e > 18) return false;
        v = pow(10.0, (double)e);
    } else {
        v = strtod(s, &end);
    }
    if (end == s || errno) return false;
    if (*end == 'k' || *end == 'K') v *= 1e3, end++;
    else if (*end == 'M') v *= 1e6, end++;
    else if (*end == 'G') v *= 1e9, end++;
    else if (*end == 'T') v *= 1e12, end++;
    if (*end || !(v >= 0) || v > 1.8e19 || v != floor(v)) return false;
    *out = (uint64_t)v;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || errno) return false;
    if (*end == '%') *out /= 100.0, end++;
    return !*end && isfinite(*out);
}

/* Splits a comma list in place into out[]; false if it has more than max items. */
static bool split_list(char *s, const char **out, size_t max, size_t *n)
{
    *n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*n == max) return false;
        out[(*n)++] = tok;
    }
    return *n > 0;
}

static bool takes_value(const char *a)
{
    static const char *const with_value[] = {
        "--kernels", "--kernel",      "--keys", "--bits-per-key", "--fpr",   "--k",    "--batch",
        "--reps",    "--queries",     "--threads", "--paired",    "--peer-rounds", "--peer-fpr", "--clock",
        "--csv",     "--json",        "--plot", "--seed",         "--phase", "--present", "--out", "--layout"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(a, with_value[i]) == 0) return true;
    return false;
}

static int bad(const char *opt, const char *value, const char *allowed)
{
    fprintf(stderr, "bloomsimd-bench: %s %s: %s (see --help)\n", opt, value, allowed);
    return -1;
}

/* The library's kernel name matching `name` case-insensitively, or NULL. */
static const char *kernel_named(const char *name)
{
    for (size_t j = 0; bloomsimd_kernel_name(j); j++)
        if (strcasecmp(bloomsimd_kernel_name(j), name) == 0) return bloomsimd_kernel_name(j);
    return NULL;
}

static void compiled_kernels(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t j = 0; bloomsimd_kernel_name(j) && used < cap; j++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", j ? ", " : "", bloomsimd_kernel_name(j));
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
    o->layout_rows = true;
    o->pin = true;
    o->seed = 1;
    o->paired_rounds = 1000;
    o->peer_fprs[0] = 0.01;
    o->peer_fprs[1] = 0.001;
    o->npeer_fprs = 2;
    o->peer_rounds = 100;
    bool reps_given = false, queries_given = false, paired_given = false, peer_rounds_given = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* a value never starts with "--": `--json --quiet` is a missing value,
         * not a file named --quiet */
        const char *v = i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 ? argv[i + 1] : NULL;
        bool used_value = true;
        uint64_t n = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--emulated") == 0) {
            o->emulated = true, used_value = false;
        } else if (strcmp(a, "--no-threads") == 0) {
            o->threads = false, used_value = false;
        } else if (strcmp(a, "--no-refs") == 0) {
            o->refs = false, used_value = false;
        } else if (strcmp(a, "--no-libbloom") == 0) {
            o->libbloom = false, used_value = false;
        } else if (strcmp(a, "--no-layouts") == 0) {
            o->layout_rows = false, used_value = false;
        } else if (strcmp(a, "--fpr-sweep") == 0) {
            o->fpr_sweep = true, used_value = false;
        } else if (strcmp(a, "--perf") == 0) {
            o->perf = true, used_value = false;
        } else if (strcmp(a, "--no-pin") == 0) {
            o->pin = false, used_value = false;
        } else if (strcmp(a, "--long") == 0) {
            o->long_output = true, used_value = false;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = true, used_value = false;
        } else if (strcmp(a, "--verbose") == 0) {
            o->verbose = true, used_value = false;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = true, used_value = false;
        } else if (takes_value(a) && !v) {
            fprintf(stderr, "bloomsimd-bench: %s needs a value (see --help)\n", a);
            return -1;
        } else if (strcmp(a, "--kernels") == 0 || strcmp(a, "--kernel") == 0) {
            const char *items[BENCH_MAX_KERNELS];
            size_t count;
            if (!split_list(argv[i + 1], items, BENCH_MAX_KERNELS, &count)) return bad(a, v, "1 to 16 kernel names");
            o->nkernels = 0;
            for (size_t j = 0; j < count; j++) {
                const char *name = kernel_named(items[j]);
                if (!name && strcmp(items[j], "classic") == 0) name = "classic"; /* --phase only, checked below */
                if (!name) {
                    char list[160], msg[200];
                    compiled_kernels(list, sizeof list);
                    snprintf(msg, sizeof msg, "no such kernel (compiled in: %s; any case)", list);
                    return bad(a, items[j], msg);
                }
                o->kernels[o->nkernels++] = name;
            }
            o->kernels_given = true;
        } else if (strcmp(a, "--keys") == 0) {
            const char *items[BENCH_MAX_SIZES];
            size_t count;
            if (!split_list(argv[i + 1], items, BENCH_MAX_SIZES, &count)) return bad(a, v, "1 to 16 sizes");
            o->nsizes = 0;
            for (size_t j = 0; j < count; j++) {
                if (!parse_count(items[j], &n) || n < 1 || n > UINT64_C(10000000000))
                    return bad(a, items[j], "each size must be a whole number of keys, 1 <= N <= 1e10");
                o->sizes[o->nsizes++] = n;
            }
            o->sizes_given = true;
        } else if (strcmp(a, "--bits-per-key") == 0) {
            if (!parse_double(v, &o->bits_per_key) || o->bits_per_key < 1 || o->bits_per_key > 64)
                return bad(a, v, "allowed: 1 <= B <= 64");
        } else if (strcmp(a, "--fpr") == 0) {
            if (!parse_double(v, &o->fpr) || o->fpr < 1e-10 || o->fpr >= 1)
                return bad(a, v, "allowed: 1e-10 <= P < 1 (the library's range)");
        } else if (strcmp(a, "--k") == 0) {
            if (!parse_count(v, &n) || n < 1 || n > 16) return bad(a, v, "allowed: 1 <= K <= 16");
            o->k = (uint32_t)n;
        } else if (strcmp(a, "--batch") == 0) {
            if (!parse_count(v, &n) || n < 1 || n > (UINT64_C(1) << 30)) return bad(a, v, "allowed: 1 <= N <= 2^30");
            o->batch = (size_t)n;
        } else if (strcmp(a, "--reps") == 0) {
            if (!parse_count(v, &n) || n > 1000) return bad(a, v, "allowed: 1 <= N <= 1000 (0 only with --phase)");
            o->reps = (unsigned)n;
            reps_given = true;
        } else if (strcmp(a, "--queries") == 0) {
            if (!parse_count(v, &n) || n < 1 || n > (UINT64_C(1) << 32))
                return bad(a, v, "allowed: 1000 <= N <= 2^32 (1 <= N with --phase)");
            o->queries = n;
            queries_given = true;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_count(v, &n) || n < 1 || n > 64) return bad(a, v, "allowed: 1 <= N <= 64");
            o->max_threads = (unsigned)n;
        } else if (strcmp(a, "--paired") == 0) {
            if (!parse_count(v, &n) || (n != 0 && (n < 10 || n > 100000)))
                return bad(a, v, "allowed: 0 (off) or 10 <= N <= 100000");
            o->paired_rounds = (unsigned)n;
            paired_given = true;
        } else if (strcmp(a, "--peer-rounds") == 0) {
            if (!parse_count(v, &n) || (n != 0 && (n < 10 || n > 100000)))
                return bad(a, v, "allowed: 0 (off) or 10 <= N <= 100000");
            o->peer_rounds = (unsigned)n;
            peer_rounds_given = true;
        } else if (strcmp(a, "--peer-fpr") == 0) {
            const char *items[4];
            size_t count;
            if (!split_list(argv[i + 1], items, 4, &count)) return bad(a, v, "1 to 4 target FPRs");
            o->npeer_fprs = 0;
            for (size_t j = 0; j < count; j++) {
                double p;
                if (!parse_double(items[j], &p) || p < 1e-10 || p >= 1)
                    return bad(a, items[j], "each target must be 1e-10 <= P < 1");
                o->peer_fprs[o->npeer_fprs++] = p;
            }
        } else if (strcmp(a, "--clock") == 0) {
            if (strcmp(v, "cpu") != 0 && strcmp(v, "wall") != 0) return bad(a, v, "allowed: cpu or wall");
            o->wall_clock = strcmp(v, "wall") == 0;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv_path = v;
        } else if (strcmp(a, "--json") == 0) {
            o->json_path = v;
        } else if (strcmp(a, "--out") == 0) {
            o->out_dir = v;
        } else if (strcmp(a, "--layout") == 0) {
            if (strcasecmp(v, "block512") == 0 || strcmp(v, "2") == 0)
                o->layout = BLOOMSIMD_LAYOUT_BLOCK512;
            else if (strcasecmp(v, "split256") == 0 || strcmp(v, "3") == 0)
                o->layout = BLOOMSIMD_LAYOUT_SPLIT256;
            else
                return bad(a, v, "allowed: block512 (2) or split256 (3)");
        } else if (strcmp(a, "--plot") == 0) {
            o->plot_dir = v;
            o->fpr_sweep = true;
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_count(v, &o->seed)) return bad(a, v, "allowed: a whole number, 0 <= N < 2^64");
        } else if (strcmp(a, "--phase") == 0) {
            if (strcmp(v, "lookup") != 0 && strcmp(v, "insert") != 0) return bad(a, v, "allowed: lookup or insert");
            o->phase = v;
        } else if (strcmp(a, "--present") == 0) {
            if (!parse_count(v, &n) || n > 100) return bad(a, v, "allowed: 0 <= PCT <= 100");
            o->present_pct = (unsigned)n;
        } else {
            fprintf(stderr, "bloomsimd-bench: unknown option: %s (see --help)\n", a);
            return -1;
        }
        if (used_value) i++;
    }
    if (o->quick) {
        /* two sizes (cache- and L2/L3-resident), fewer and shorter repetitions,
         * no libbloom (150-300 ns/key) and no thread rows: ~10-25 s */
        if (!o->sizes_given) o->sizes[0] = 10000, o->sizes[1] = 1000000, o->nsizes = 2, o->sizes_given = true;
        if (!reps_given) o->reps = 3;
        if (!queries_given) o->queries = UINT64_C(1) << 18;
        if (!paired_given) o->paired_rounds = 50;
        if (!peer_rounds_given) o->peer_rounds = 20;
        o->libbloom = false;
        o->threads = false;
    }
    if (!o->phase && o->reps == 0) {
        fprintf(stderr, "bloomsimd-bench: --reps 0: allowed only with --phase (see --help)\n");
        return -1;
    }
    if (!o->phase && o->queries < 1000) {
        fprintf(stderr, "bloomsimd-bench: --queries %llu: allowed: 1000 <= N <= 2^32 (1 <= N with --phase)\n",
                (unsigned long long)o->queries);
        return -1;
    }
    for (size_t j = 0; !o->phase && j < o->nkernels; j++)
        if (strcmp(o->kernels[j], "classic") == 0) {
            char list[160], msg[220];
            compiled_kernels(list, sizeof list);
            snprintf(msg, sizeof msg, "'classic' is a kernel only with --phase (compiled in: %s)", list);
            return bad("--kernels", "classic", msg);
        }
    return 0;
}
