/*
 * peer_rounds.c — every kernel against the split-block peer (sbbf.h) at the
 * target FPRs of --peer-fpr (default 1% and 0.1%), in paired rounds.
 *
 * At each size and target: one filter per kernel sized by the library for
 * the target, and the peer sized by its own model for the same target (so
 * each side pays its own bits/key, printed with both measured FPRs). Then
 * --peer-rounds rounds per operation (batched negative lookup, batched
 * re-insert): each round times every filter on the same 65536 keys, in
 * forward order on even rounds and reverse order on odd ones, so no filter
 * always runs first or last after another's cache traffic. Rounds walk
 * through the query stream chunk by chunk (16 chunks of the default 2^20
 * keys, 64 MiB of lines between two visits of a chunk), so a DRAM-sized
 * filter stays DRAM-bound instead of being re-read from L3. A round's keys
 * (512 KiB) are read once before it is timed: otherwise whichever filter
 * runs first pays for streaming them into L2 and the others do not, which
 * split the rounds into two modes (ratios 0.6x and 2.7x at 10^4 keys).
 *
 * Per kernel and round: ratio = kernel time / peer time of that round. The
 * report gives the ratio's p10, median and p90 over all rounds (the whole
 * spread) and its median over the quietest tenth: the rounds whose total
 * time over all filters is smallest. Selecting on the total, not on the peer
 * alone, keeps the selection from favouring rounds where only the peer was
 * lucky (which would bias the ratio upward) or only the kernel was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the filter bytes: later kernels start from a copy */
#include "run.h"
#include "sbbf.h"

#define ROUND_KEYS 65536u

static volatile uint64_t touch_sink;

/* one filter: a kernel's (filter != NULL) or the peer */
typedef struct peer_impl {
    const char *name;
    bloomsimd_filter *filter;
    double *ns; /* per round, ns/key */
} peer_impl;

typedef struct round_ctx {
    const bench_options *o;
    const bench_sbbf *peer;
    uint8_t *out;
} round_ctx;

/* One round of one filter: `count` keys from keys[0..nkeys) starting at
 * `start`, cyclically, in calls of --batch keys. Returns hits (lookups) or
 * failed calls (inserts). */
static uint64_t run_round(const round_ctx *c, const peer_impl *p, bool insert, const uint64_t *keys, size_t nkeys,
                          size_t start, size_t count)
{
    uint64_t r = 0;
    size_t pos = start % nkeys, done = 0;
    while (done < count) {
        size_t k = count - done;
        if (k > c->o->batch) k = c->o->batch;
        if (k > nkeys - pos) k = nkeys - pos;
        if (p->filter && insert)
            r += bloomsimd_add_batch_u64(p->filter, keys + pos, k) != BLOOMSIMD_OK;
        else if (p->filter)
            r += bloomsimd_contains_batch_u64(p->filter, keys + pos, k, c->out);
        else if (insert)
            bench_sbbf_add(c->peer, keys + pos, k);
        else
            r += bench_sbbf_contains(c->peer, keys + pos, k, c->out);
        done += k;
        pos += k;
        if (pos == nkeys) pos = 0;
    }
    return r;
}

static double quantile(const double *sorted, unsigned n, double p)
{
    unsigned i = (unsigned)(p * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

/* The rounds of one operation; records one "vs-peer" result per filter. */
static void measure(const bench_options *o, peer_impl *impl, size_t ni, const round_ctx *rc, const bench_workload *w,
                    bool insert, double target, double *scratch, double *total)
{
    const char *op = insert ? "insert" : "lookup0";
    const uint64_t *keys = insert ? w->inserted : w->absent;
    const size_t nkeys = insert ? (size_t)w->n : w->q;
    const size_t count = ROUND_KEYS < w->q ? ROUND_KEYS : w->q;
    const unsigned rounds = o->peer_rounds;
    for (unsigned r = 0; r <= rounds; r++) { /* round 0 is a warm-up */
        size_t start = (size_t)r * count;
        total[r ? r - 1 : 0] = 0;
        uint64_t sum = 0;
        for (size_t i = 0, pos = start % nkeys; i < count; i++, pos = pos + 1 == nkeys ? 0 : pos + 1) sum += keys[pos];
        touch_sink = sum;
        for (size_t s = 0; s < ni; s++) {
            size_t j = (r & 1u) ? ni - 1 - s : s;
            double t0 = bench_clock_ns(o);
            uint64_t got = run_round(rc, &impl[j], insert, keys, nkeys, start, count);
            double t1 = bench_clock_ns(o);
            if (insert && got != 0)
                bench_check_failed("vs peer: %s insert failed at %llu keys", impl[j].name, (unsigned long long)w->n);
            if (r == 0) continue;
            impl[j].ns[r - 1] = (t1 - t0) / (double)count;
            total[r - 1] += impl[j].ns[r - 1];
        }
    }
    memcpy(scratch, total, rounds * sizeof *scratch);
    bench_summarize(scratch, rounds);
    double quiet_limit = scratch[rounds / 10];
    const peer_impl *peer = &impl[ni - 1];
    for (size_t j = 0; j < ni; j++) {
        double ratio[2], quiet = NAN;
        unsigned nq = 0;
        /* scratch: the quiet rounds' ratios first, then all ratios */
        double *all = scratch + rounds;
        for (unsigned r = 0; r < rounds; r++) {
            all[r] = impl[j].ns[r] / peer->ns[r];
            if (total[r] <= quiet_limit) scratch[nq++] = all[r];
        }
        if (nq) quiet = bench_summarize(scratch, nq).median;
        bench_stats rs = bench_summarize(all, rounds);
        ratio[0] = quantile(all, rounds, 0.1);
        ratio[1] = quantile(all, rounds, 0.9);
        bench_stats ns = bench_summarize(impl[j].ns, rounds); /* sorts ns: last use */
        bench_result *res = bench_result_add("vs-peer", impl[j].filter ? impl[j].name : "sbbf", op, w->n, 1, ns);
        if (!res) continue;
        res->x = target;
        res->ratio = rs.median;
        res->value = quiet;
        snprintf(res->note, sizeof res->note, "p10=%.4f p90=%.4f rounds=%u keys/round=%zu", ratio[0], ratio[1],
                 rounds, count);
    }
}

/* FPR of one filter over all absent keys (also the first touch of its lines) */
static double measure_fpr(const round_ctx *rc, const peer_impl *p, const bench_workload *w)
{
    return (double)run_round(rc, p, false, w->absent, w->q, 0, w->q) / (double)w->q;
}

static void one_target(const bench_options *o, const char *const *kernels, size_t nk, const bench_workload *w,
                       double target)
{
    const uint64_t n = w->n;
    peer_impl impl[BENCH_MAX_KERNELS + 1];
    size_t ni = 0;
    const unsigned rounds = o->peer_rounds;
    double *buf = malloc((size_t)(nk + 4) * rounds * sizeof *buf);
    uint8_t *out = malloc(o->batch);
    bench_sbbf peer;
    bool have_peer = false;
    if (!buf || !out) goto done;
    bench_progress(o, "%llu keys: vs peer at FPR %g: filling", (unsigned long long)n, target);
    for (size_t i = 0; i < nk; i++) {
        bloomsimd_options opt = {.capacity = n, .fpr = target, .kernel = kernels[i]};
        bloomsimd_filter *f = NULL;
        bloomsimd_status st = bloomsimd_create_with(&f, &opt);
        if (st != BLOOMSIMD_OK) {
            bench_check_failed("vs peer: create %s filter for %llu keys at FPR %g: %s", kernels[i],
                               (unsigned long long)n, target, bloomsimd_status_string(st));
            continue;
        }
        if (ni == 0)
            (void)bloomsimd_add_batch_u64(f, w->inserted, (size_t)n);
        else /* the main table proves every kernel sets the same bytes */
            memcpy(f->geometry.words, impl[0].filter->geometry.words, bloomsimd_filter_bytes(f));
        impl[ni] = (peer_impl){kernels[i], f, buf + ni * rounds};
        ni++;
    }
    uint64_t nb = bench_sbbf_blocks_for(n, target);
    have_peer = ni > 0 && nb && bench_sbbf_init(&peer, nb);
    if (!have_peer) goto done;
    bench_sbbf_add(&peer, w->inserted, (size_t)n);
    impl[ni] = (peer_impl){"sbbf", NULL, buf + ni * rounds};
    ni++;
    round_ctx rc = {o, &peer, out};

    /* FPR and bits/key of both sides, and no false negatives */
    {
        bloomsimd_info info;
        bloomsimd_get_info(impl[0].filter, &info);
        bench_stats none = {0, 0, 0, 0};
        double ours = measure_fpr(&rc, &impl[0], w), theirs = measure_fpr(&rc, &impl[ni - 1], w);
        bench_result *r = bench_result_add("vs-peer-fpr", impl[0].name, "measured", n, 1, none);
        if (r) {
            r->x = target;
            r->value = ours;
            r->ratio = (double)info.bits / (double)n;
            snprintf(r->note, sizeof r->note, "k=%u model=%.6g", info.k, bloomsimd_predicted_fpr(impl[0].filter, n));
        }
        double model = bench_sbbf_fpr(n, peer.nblocks), sigma = bench_sbbf_fpr_sigma(n, peer.nblocks, w->q);
        r = bench_result_add("vs-peer-fpr", "sbbf", "measured", n, 1, none);
        if (r) {
            r->x = target;
            r->value = theirs;
            r->ratio = bench_sbbf_bits_per_key(&peer, n);
            snprintf(r->note, sizeof r->note, "k=8 model=%.6g sigma=%.3g", model, sigma);
        }
        if (fabs(theirs - model) > 5 * sigma)
            bench_check_failed("split-block peer at %llu keys, FPR %g: measured %.5f%%, model %.5f%% (> 5 sigma)",
                               (unsigned long long)n, target, 100 * theirs, 100 * model);
        size_t check = (size_t)n < ROUND_KEYS ? (size_t)n : ROUND_KEYS;
        for (size_t j = 0; j < ni; j++) {
            uint64_t found = run_round(&rc, &impl[j], false, w->inserted, (size_t)n, 0, check);
            if (found != check)
                bench_check_failed("vs peer: %s found %llu of %zu inserted keys", impl[j].name,
                                   (unsigned long long)found, check);
        }
    }
    double *scratch = malloc(2 * (size_t)rounds * sizeof *scratch), *total = malloc((size_t)rounds * sizeof *total);
    if (scratch && total) {
        bench_progress(o, "%llu keys: vs peer at FPR %g: %u paired rounds of lookups, then of inserts",
                       (unsigned long long)n, target, rounds);
        measure(o, impl, ni, &rc, w, false, target, scratch, total);
        measure(o, impl, ni, &rc, w, true, target, scratch, total);
    }
    free(scratch);
    free(total);
done:
    for (size_t j = 0; j < ni; j++) bloomsimd_destroy(impl[j].filter);
    if (have_peer) bench_sbbf_free(&peer);
    free(buf);
    free(out);
}

void bench_peer_rounds(const bench_options *o, const char *const *kernels, size_t nk, const bench_workload *w)
{
    if (!o->refs || !o->peer_rounds || !o->npeer_fprs || !bench_sbbf_available(NULL)) return;
    for (size_t i = 0; i < o->npeer_fprs; i++) one_target(o, kernels, nk, w, o->peer_fprs[i]);
}

static void cell(char *buf, size_t cap, const bench_result *r)
{
    double p10 = NAN, p90 = NAN;
    if (!r) {
        snprintf(buf, cap, "-");
        return;
    }
    sscanf(r->note, "p10=%lf p90=%lf", &p10, &p90);
    snprintf(buf, cap, "%.2fx [%.2f %.2f %.2f]", r->value, p10, r->ratio, p90);
}

void bench_print_peer_rounds(const bench_options *o, const char *const *kernels, size_t nk)
{
    if (!o->refs || !o->peer_rounds || !o->npeer_fprs) return;
    const char *why = NULL;
    if (!bench_sbbf_available(&why)) {
        printf("\n== vs the split-block peer ==\nskipped: %s\n", why);
        return;
    }
    for (size_t t = 0; t < o->npeer_fprs; t++) {
        double target = o->peer_fprs[t];
        bool header = false;
        for (size_t i = 0; i < bench_result_count(); i++) {
            bench_result *pf = bench_result_get(i);
            if (strcmp(pf->section, "vs-peer-fpr") || strcmp(pf->impl, "sbbf") || pf->x != target) continue;
            const uint64_t n = pf->keys;
            if (!header) {
                printf("\n== vs the split-block peer at target FPR %g%%: %u paired rounds of %u keys per operation ==\n",
                       100 * target, o->peer_rounds, ROUND_KEYS);
                printf("cells: kernel time / peer time in the same round (below 1.00x the kernel is faster):\n"
                       "quietest tenth of the rounds (smallest total time) [p10 median p90 over all rounds]\n");
                header = true;
            }
            bench_result *of = NULL;
            for (size_t j = 0; j < bench_result_count() && !of; j++) {
                bench_result *r = bench_result_get(j);
                if (!strcmp(r->section, "vs-peer-fpr") && strcmp(r->impl, "sbbf") && r->keys == n && r->x == target)
                    of = r;
            }
            char keys[32];
            bench_format_keys(keys, sizeof keys, n);
            double pmodel = NAN;
            sscanf(pf->note, "k=8 model=%lf", &pmodel);
            printf("%s keys: ours %.2f bits/key, FPR %.3f%%; peer %.2f bits/key, FPR %.3f%% (model %.3f%%)\n", keys,
                   of ? of->ratio : NAN, of ? 100 * of->value : NAN, pf->ratio, 100 * pf->value, 100 * pmodel);
            printf("  %-8s %8s", "op", "peer ns");
            for (size_t k = 0; k < nk; k++) printf("   %-24s", kernels[k]);
            printf("\n");
            const char *ops[2] = {"lookup0", "insert"};
            for (int op = 0; op < 2; op++) {
                bench_result *p = NULL;
                for (size_t j = 0; j < bench_result_count() && !p; j++) {
                    bench_result *r = bench_result_get(j);
                    if (!strcmp(r->section, "vs-peer") && !strcmp(r->impl, "sbbf") && !strcmp(r->op, ops[op]) &&
                        r->keys == n && r->x == target)
                        p = r;
                }
                printf("  %-8s %8.2f", op ? "insert" : "look0%", p ? p->ns.median : NAN);
                for (size_t k = 0; k < nk; k++) {
                    bench_result *r = NULL;
                    for (size_t j = 0; j < bench_result_count() && !r; j++) {
                        bench_result *c = bench_result_get(j);
                        if (!strcmp(c->section, "vs-peer") && !strcmp(c->impl, kernels[k]) &&
                            !strcmp(c->op, ops[op]) && c->keys == n && c->x == target)
                            r = c;
                    }
                    char buf[48];
                    cell(buf, sizeof buf, r);
                    printf("   %-24s", buf);
                }
                printf("\n");
            }
        }
    }
}
