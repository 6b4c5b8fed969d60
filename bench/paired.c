/*
 * paired.c — `--paired N`: the lookup-to-ceiling ratio round by round.
 *
 * The main table compares medians of repetitions of ~1M keys each. On a
 * shared host the machine changes state within milliseconds: in some stretches
 * the core runs ~40% slower for everything, cache-resident code included (the
 * other tenants of the physical machine are busy), and then the probe's work
 * is no longer hidden behind DRAM latency. A median of five repetitions
 * mixes the states in unknown shares.
 *
 * Here, at the largest size and with the fastest kernel, each of N rounds
 * times the ceiling (the kernel's own pipeline reading one word per key,
 * touch_u64) and the batched lookup back to back, so both halves of a pair
 * see the same state. It reports the spread of the per-round ratio and
 * splits the rounds by the ceiling's speed: the fastest tenth of the rounds
 * is the quietest machine state seen.
 *
 * The two halves read the same filter, so they must not read the same
 * lines: until 2026-12-03 both used the same 65536 keys in every round, so
 * after the first round both found their 4 MiB of lines in L3 and a 10^8-key
 * "DRAM" comparison measured L3 (and the lookup also found the lines the
 * ceiling had just brought in). Now round r gives the ceiling chunk 2r and the
 * lookup chunk 2r+1 of the absent keys (16 chunks of 65536 in the default
 * 2^20: 64 MiB of lines between two visits of a chunk), and alternates which
 * half runs first. The keys of each half are flushed from the caches before
 * it (bench_evict): both stream them from DRAM, as a column scan does.
 * Where the kernel has touch_hashes, the ceiling is the faster of its two
 * forms (fused, and hash then touch; ceiling.c), the second timed on chunk
 * 2r + chunks/2, keys whose lines neither half of this round reads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h" /* the kernel's touch_u64 */
#include "internal.h" /* the filter's geometry */
#include "run.h"

#define PAIRED_KEYS 65536u

static volatile uint64_t paired_sink;


static struct {
    bool done;
    char kernel[32];
    uint64_t n;
    unsigned rounds;
    double ratio_p10, ratio_median, ratio_p90, share_115, share_120;
    double quiet_ceiling, quiet_lookup, quiet_ratio, busy_ceiling, busy_lookup, busy_ratio;
    const char *skipped; /* why it did not run, or NULL */
} paired;

/* Median of the rounds whose ceiling is (quiet) or is not (!quiet) within
 * the fastest tenth, using scratch; bench_summarize sorts what it is given. */
static double split_median(const double *v, const double *ceiling, double quiet_limit, bool quiet, unsigned rounds,
                           double *scratch)
{
    unsigned n = 0;
    for (unsigned r = 0; r < rounds; r++)
        if ((ceiling[r] <= quiet_limit) == quiet) scratch[n++] = v[r];
    return n ? bench_summarize(scratch, n).median : NAN;
}

void bench_paired_rounds(const bench_options *o, const char *kernel, bloomsimd_filter *filled,
                         const bench_workload *w)
{
    if (!o->paired_rounds || !o->refs) return; /* the ceiling is a reference row */
    snprintf(paired.kernel, sizeof paired.kernel, "%s", kernel);
    paired.n = w->n;
    paired.rounds = o->paired_rounds;
    const bloomsimd_kernel *k = bloomsimd_kernel_by_name(kernel);
    if (!k || !k->touch_u64) {
        paired.skipped = "the fastest kernel has no touch_u64 (the ceiling pipeline)";
        return;
    }
    size_t keys = w->q < PAIRED_KEYS ? w->q : PAIRED_KEYS;
    unsigned rounds = o->paired_rounds;
    /* per round: ceiling, lookup, ratio; then scratch for the sorted copies */
    double *buf = malloc(4 * (size_t)rounds * sizeof *buf);
    uint8_t *out = malloc(o->batch);
    if (!buf || !out || keys == 0) {
        paired.skipped = "out of memory";
        free(buf), free(out);
        return;
    }
    double *ceiling = buf, *lookup = buf + rounds, *ratio = buf + 2 * rounds, *scratch = buf + 3 * rounds;
    uint64_t *two_pass = k->touch_hashes ? malloc(o->batch * sizeof *two_pass) : NULL;
    bench_progress(o, "%llu keys: %u paired rounds (ceiling, lookup)", (unsigned long long)w->n, rounds);
    uint64_t sink = 0;
    const size_t chunks = w->q / keys >= 2 ? w->q / keys : 1;
    for (unsigned r = 0; r <= rounds; r++) { /* round 0 is a warm-up */
        const uint64_t *ck = w->absent + ((2 * (size_t)r) % chunks) * keys;
        const uint64_t *lk = w->absent + ((2 * (size_t)r + 1) % chunks) * keys;
        const uint64_t *tk = w->absent + ((2 * (size_t)r + chunks / 2) % chunks) * keys;
        double tc = 0, tl = 0;
        for (int half = 0; half < 2; half++) {
            bool ceiling_now = (half == 0) == ((r & 1u) == 0);
            bench_evict(ceiling_now ? ck : lk, keys * sizeof *ck);
            double t0 = bench_clock_ns(o);
            if (ceiling_now)
                for (size_t i = 0; i < keys; i += o->batch) {
                    size_t c = keys - i < o->batch ? keys - i : o->batch;
                    sink += k->touch_u64(&filled->geometry, ck + i, c);
                }
            else
                for (size_t i = 0; i < keys; i += o->batch) {
                    size_t c = keys - i < o->batch ? keys - i : o->batch;
                    sink += bloomsimd_contains_batch_u64(filled, lk + i, c, out);
                }
            double t1 = bench_clock_ns(o);
            *(ceiling_now ? &tc : &tl) = t1 - t0;
        }
        if (two_pass && chunks >= 4) {
            bench_evict(tk, keys * sizeof *tk);
            double t0 = bench_clock_ns(o);
            for (size_t i = 0; i < keys; i += o->batch) {
                size_t c = keys - i < o->batch ? keys - i : o->batch;
                k->hash_u64(filled->geometry.hash_bitflip, tk + i, c, two_pass);
                sink += k->touch_hashes(&filled->geometry, two_pass, c);
            }
            double t2 = bench_clock_ns(o) - t0;
            if (t2 < tc) tc = t2;
        }
        if (r == 0) continue;
        ceiling[r - 1] = tc / (double)keys;
        lookup[r - 1] = tl / (double)keys;
        ratio[r - 1] = lookup[r - 1] / ceiling[r - 1];
    }
    paired_sink = sink; /* keeps the ceiling's reads */

    unsigned met115 = 0, met120 = 0;
    for (unsigned r = 0; r < rounds; r++) met115 += ratio[r] <= 1.15, met120 += ratio[r] <= 1.20;
    paired.share_115 = (double)met115 / rounds;
    paired.share_120 = (double)met120 / rounds;
    /* Split by the ceiling's speed: the fastest tenth vs the rest. */
    memcpy(scratch, ceiling, rounds * sizeof *scratch);
    bench_stats cs = bench_summarize(scratch, rounds);
    double quiet_limit = scratch[rounds / 10];
    paired.quiet_ceiling = split_median(ceiling, ceiling, quiet_limit, true, rounds, scratch);
    paired.quiet_lookup = split_median(lookup, ceiling, quiet_limit, true, rounds, scratch);
    paired.quiet_ratio = split_median(ratio, ceiling, quiet_limit, true, rounds, scratch);
    paired.busy_ceiling = split_median(ceiling, ceiling, quiet_limit, false, rounds, scratch);
    paired.busy_lookup = split_median(lookup, ceiling, quiet_limit, false, rounds, scratch);
    paired.busy_ratio = split_median(ratio, ceiling, quiet_limit, false, rounds, scratch);
    bench_stats ls = bench_summarize(lookup, rounds);
    bench_stats rs = bench_summarize(ratio, rounds); /* sorted from here on */
    paired.ratio_p10 = ratio[rounds / 10];
    paired.ratio_median = rs.median;
    paired.ratio_p90 = ratio[rounds * 9 / 10];
    bench_result *rc = bench_result_add("paired", "ceiling", "lookup0", w->n, 1, cs);
    bench_result *rl = bench_result_add("paired", kernel, "lookup0", w->n, 1, ls);
    if (rl) rl->ratio = paired.ratio_median;
    if (rc) snprintf(rc->note, sizeof rc->note, "%u rounds of %zu keys", rounds, keys);
    paired.done = true;
    free(buf), free(out), free(two_pass);
}

void bench_print_paired(const bench_options *o)
{
    if (!o->paired_rounds || !o->refs) return;
    char keys[32];
    bench_format_keys(keys, sizeof keys, paired.n);
    printf("\n== paired rounds: %s, %s keys, %u rounds of ceiling and lookup on %u absent keys each ==\n",
           paired.kernel, keys, paired.rounds, PAIRED_KEYS);
    if (paired.skipped) {
        printf("skipped: %s\n", paired.skipped);
        return;
    }
    if (!paired.done) return;
    printf("lookup / ceiling per round: p10 %.2fx, median %.2fx, p90 %.2fx; "
           "%.0f%% of rounds <= 1.15x, %.0f%% <= 1.20x\n",
           paired.ratio_p10, paired.ratio_median, paired.ratio_p90, 100 * paired.share_115, 100 * paired.share_120);
    printf("fastest tenth of rounds by ceiling: ceiling %.2f, lookup %.2f ns/key (%.2fx)\n", paired.quiet_ceiling,
           paired.quiet_lookup, paired.quiet_ratio);
    printf("other rounds:                       ceiling %.2f, lookup %.2f ns/key (%.2fx)\n", paired.busy_ceiling,
           paired.busy_lookup, paired.busy_ratio);
}

bool bench_paired_figures(uint64_t *n, double *quiet, double *p10, double *median, double *p90)
{
    if (!paired.done) return false;
    *n = paired.n, *quiet = paired.quiet_ratio, *p10 = paired.ratio_p10, *median = paired.ratio_median,
    *p90 = paired.ratio_p90;
    return true;
}
