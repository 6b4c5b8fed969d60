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
 * Since 2026-12-07 the keys are instead flushed from the caches before each
 * filter's turn (bench_evict), so every filter streams them from DRAM, as a
 * column scan does, and none inherits another's: an Intel Xeon had shown a
 * fused pipeline stalling on keys from memory that pre-read keys hid.
 * A filter larger than the core's L2 (bench_machine) is flushed too before
 * each of its turns (since 2026-12-07): on AMD Zen 5, whose L3 (32 MiB a core complex) holds
 * most of a 12 MiB filter between two turns, the filter that ran last in one
 * round and first in the next found its lines in L3 and the others did not;
 * with forward and reverse orders that favoured the two ends in alternate
 * rounds, and the quietest-tenth rounds of a pair were those where the peer
 * held that place (10^7 keys: kernel / peer 1.15 in the quietest tenth, 0.72
 * over all 400 rounds). Flushed, every turn starts from DRAM.
 *
 * The ceiling (refs.h: the library's hash, block index and one read per key,
 * through the default kernel's own pipeline when it has touch_u64) runs in
 * the same rounds on its own copy of the default kernel's filter, so every
 * kernel also gets a paired kernel / ceiling ratio at every size. Where the
 * kernel also has touch_hashes, each round times both forms of the floor
 * (fused, and two passes; ceiling.c), the second on keys half the stream
 * away, and keeps the faster.
 *
 * Per kernel and round: ratio = kernel time / peer time of that round. The
 * report gives the ratio's p10, median and p90 over all rounds (the whole
 * spread) and its median over the quietest tenth of the rounds for that pair
 * (record_ratio says how they are chosen).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h" /* the default kernel's touch_u64, for the ceiling */
#include "internal.h" /* the filter bytes: later kernels start from a copy */
#include "refs.h"
#include "run.h"
#include "sbbf.h"

#define ROUND_KEYS 65536u

static volatile uint64_t touch_sink;

/* one filter: a kernel's, the ceiling's (ceiling != NULL) or the peer's (neither) */
typedef struct peer_impl {
    const char *name;
    bloomsimd_filter *filter;
    const bench_ceiling *ceiling;
    double *ns; /* per round, ns/key */
    /* the ceiling's second form (two passes, ceiling.c): timed on the next
     * stretch of keys, and the round's ceiling is the faster of the two */
    const bench_ceiling *ceiling2;
} peer_impl;

typedef struct round_ctx {
    const bench_options *o;
    const bench_sbbf *peer;
    uint8_t *out;
    uint64_t l2_bytes; /* the core's L2 (bench_machine; 1 MiB if unknown): larger filters are flushed */
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
        if (p->ceiling)
            r += bench_ceiling_run(p->ceiling, keys + pos, k) == 1; /* a read, whatever the op */
        else if (p->filter && insert)
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

/* Flushes keys [start, start + count) of keys[0..nkeys), cyclically. */
static void evict_stretch(const uint64_t *keys, size_t nkeys, size_t start, size_t count)
{
    size_t pos = start % nkeys;
    while (count > 0) {
        size_t k = count < nkeys - pos ? count : nkeys - pos;
        bench_evict(keys + pos, k * sizeof *keys);
        count -= k;
        pos = 0;
    }
}

/* The bit array of one filter of the rounds (a kernel's, the ceiling's copy,
 * or the peer's), flushed before its turn when it is larger than L2. */
static void evict_filter_past_l2(const round_ctx *c, const peer_impl *p)
{
    const void *words = p->filter ? (const void *)p->filter->geometry.words : (const void *)c->peer->words;
    size_t bytes = p->filter ? bloomsimd_filter_bytes(p->filter) : (size_t)c->peer->nblocks * BENCH_SBBF_BLOCK_BYTES;
    if (bytes > c->l2_bytes) bench_evict(words, bytes);
}

static double quantile(const double *sorted, unsigned n, double p)
{
    unsigned i = (unsigned)(p * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

/* Records impl / ref per round as one result in `section`: the median of
 * the quietest tenth as value, the median as ratio, p10 and p90 in the note.
 * The quietest rounds of this pair are those with the smallest
 * impl/median(impl) + ref/median(ref): both sides count equally whatever
 * their speed, so a slow third filter's noise does not choose the rounds,
 * and neither side's luck alone does. */
static void record_ratio(const char *section, const char *op, const peer_impl *impl, const peer_impl *ref,
                         unsigned rounds, size_t count, uint64_t n, double target, double *scratch)
{
    double *all = scratch + rounds, *score = scratch + 2 * rounds, quiet = NAN;
    memcpy(scratch, impl->ns, rounds * sizeof *scratch);
    bench_stats is = bench_summarize(scratch, rounds);
    memcpy(scratch, ref->ns, rounds * sizeof *scratch);
    double ref_median = bench_summarize(scratch, rounds).median;
    for (unsigned r = 0; r < rounds; r++) {
        all[r] = impl->ns[r] / ref->ns[r];
        score[r] = impl->ns[r] / is.median + ref->ns[r] / ref_median;
    }
    memcpy(scratch, score, rounds * sizeof *scratch);
    bench_summarize(scratch, rounds);
    double quiet_limit = scratch[rounds / 10];
    unsigned nq = 0;
    for (unsigned r = 0; r < rounds; r++)
        if (score[r] <= quiet_limit) scratch[nq++] = all[r];
    if (nq) quiet = bench_summarize(scratch, nq).median;
    bench_stats rs = bench_summarize(all, rounds);
    bench_result *res = bench_result_add(section, impl->name, op, n, 1, is);
    if (!res) return;
    res->x = target;
    res->ratio = rs.median;
    res->value = quiet;
    snprintf(res->note, sizeof res->note, "p10=%.4f p90=%.4f rounds=%u keys/round=%zu quiet=%u",
             quantile(all, rounds, 0.1), quantile(all, rounds, 0.9), rounds, count, nq);
}

/* The rounds of one operation; records one "vs-peer" result per filter and
 * one "vs-ceiling" result per kernel. */
static void measure(const bench_options *o, peer_impl *impl, size_t ni, const round_ctx *rc, const bench_workload *w,
                    bool insert, double target, double *scratch)
{
    const char *op = insert ? "insert" : "lookup0";
    const uint64_t *keys = insert ? w->inserted : w->absent;
    const size_t nkeys = insert ? (size_t)w->n : w->q;
    const size_t count = ROUND_KEYS < w->q ? ROUND_KEYS : w->q;
    const unsigned rounds = o->peer_rounds;
    for (unsigned r = 0; r <= rounds; r++) { /* round 0 is a warm-up */
        size_t start = (size_t)r * count;
        for (size_t s = 0; s < ni; s++) {
            size_t j = (r & 1u) ? ni - 1 - s : s;
            evict_stretch(keys, nkeys, start, count);
            evict_filter_past_l2(rc, &impl[j]);
            double t0 = bench_clock_ns(o);
            uint64_t got = run_round(rc, &impl[j], insert, keys, nkeys, start, count);
            double t = bench_clock_ns(o) - t0;
            if (insert && got != 0)
                bench_check_failed("vs peer: %s insert failed at %llu keys", impl[j].name, (unsigned long long)w->n);
            if (impl[j].ceiling2) {
                /* on keys half the stream away: the lines they touch are not this round's, and
                 * the rounds reach them only after half a stream of other lines */
                size_t other = start + nkeys / 2;
                peer_impl second = impl[j];
                second.ceiling = impl[j].ceiling2;
                evict_stretch(keys, nkeys, other, count);
                evict_filter_past_l2(rc, &impl[j]);
                t0 = bench_clock_ns(o);
                touch_sink += run_round(rc, &second, insert, keys, nkeys, other, count);
                double t2 = bench_clock_ns(o) - t0;
                if (t2 < t) t = t2;
            }
            if (r == 0) continue;
            impl[j].ns[r - 1] = t / (double)count;
        }
    }
    const peer_impl *peer = &impl[ni - 1], *ceiling = NULL;
    for (size_t j = 0; j < ni; j++)
        if (impl[j].ceiling) ceiling = &impl[j];
    for (size_t j = 0; j < ni; j++) {
        record_ratio("vs-peer", op, &impl[j], peer, rounds, count, w->n, target, scratch);
        if (ceiling && !impl[j].ceiling && impl[j].filter)
            record_ratio("vs-ceiling", op, &impl[j], ceiling, rounds, count, w->n, target, scratch);
    }
}

/* FPR of one filter over all absent keys (also the first touch of its lines) */
static double measure_fpr(const round_ctx *rc, const peer_impl *p, const bench_workload *w)
{
    return (double)run_round(rc, p, false, w->absent, w->q, 0, w->q) / (double)w->q;
}

static void one_target(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nk,
                       const bench_workload *w, double target)
{
    const uint64_t n = w->n;
    peer_impl impl[BENCH_MAX_KERNELS + 1];
    size_t ni = 0;
    const unsigned rounds = o->peer_rounds;
    double *buf = malloc((size_t)(nk + 2) * rounds * sizeof *buf);
    uint8_t *out = malloc(o->batch);
    bench_sbbf peer;
    bool have_peer = false;
    uint64_t *two_pass_hashes = NULL;
    if (!buf || !out) goto done;
    bench_progress(o, "%llu keys: vs peer at FPR %g: filling", (unsigned long long)n, target);
    for (size_t i = 0; i < nk; i++) {
        bloomsimd_options opt = {.capacity = n, .fpr = target, .kernel = kernels[i], .layout = o->layout};
        bloomsimd_filter *f = NULL;
        bloomsimd_status st = bloomsimd_create_with(&f, &opt);
        if (st != BLOOMSIMD_OK) {
            bench_check_failed("vs peer: create %s filter for %llu keys at FPR %g: %s", kernels[i],
                               (unsigned long long)n, target, bloomsimd_status_string(st));
            continue;
        }
        /* the main table proves every kernel of a layout sets the same
         * bytes: copy the first filter of this layout, fill only the first */
        size_t same = 0;
        while (same < ni && impl[same].filter->geometry.layout != f->geometry.layout) same++;
        if (same == ni)
            (void)bloomsimd_add_batch_u64(f, w->inserted, (size_t)n);
        else
            memcpy(f->geometry.words, impl[same].filter->geometry.words, bloomsimd_filter_bytes(f));
        impl[ni] = (peer_impl){kernels[i], f, NULL, buf + ni * rounds, NULL};
        ni++;
    }
    /* the ceiling, on its own copy of the default kernel's filter (sharing a
     * kernel's filter would hand that kernel lines the ceiling just read) */
    bench_ceiling ceiling, two_pass;
    const char *dk = bloomsimd_default_kernel();
    if (ni > 0 && dk) {
        bloomsimd_options opt = {.capacity = n, .fpr = target, .kernel = dk, .layout = o->layout};
        bloomsimd_filter *f = NULL;
        size_t same = 0;
        if (bloomsimd_create_with(&f, &opt) == BLOOMSIMD_OK)
            while (same < ni && impl[same].filter->geometry.layout != f->geometry.layout) same++;
        if (f && same < ni && bloomsimd_filter_bytes(f) == bloomsimd_filter_bytes(impl[same].filter)) {
            memcpy(f->geometry.words, impl[same].filter->geometry.words, bloomsimd_filter_bytes(f));
            const bloomsimd_kernel *k = bloomsimd_kernel_by_name(dk);
            ceiling = (bench_ceiling){.words = (const uint64_t *)(const void *)f->geometry.words,
                                      .nblocks = bloomsimd_filter_bytes(f) / 64, /* 64-byte lines, any layout */
                                      .hash_bitflip = f->geometry.hash_bitflip,
                                      .ahead = 64,
                                      .to_l2 = 1,
                                      .hash_u64 = k ? k->hash_u64 : NULL,
                                      .touch = k ? k->touch_u64 : NULL,
                                      .geometry = &f->geometry};
            if (ceiling.touch) ceiling.to_l2 = 3;
            impl[ni] = (peer_impl){"ceiling", f, &ceiling, buf + ni * rounds, NULL};
            if (ceiling.touch && k->touch_hashes && (two_pass_hashes = malloc(o->batch * sizeof *two_pass_hashes))) {
                two_pass = ceiling;
                two_pass.to_l2 = 4;
                two_pass.touch_hashes = k->touch_hashes;
                two_pass.scratch = two_pass_hashes;
                impl[ni].ceiling2 = &two_pass;
            }
            ni++;
        } else {
            bloomsimd_destroy(f);
        }
    }
    uint64_t nb = bench_sbbf_blocks_for(n, target);
    have_peer = ni > 0 && nb && bench_sbbf_init(&peer, nb);
    if (!have_peer) goto done;
    bench_sbbf_add(&peer, w->inserted, (size_t)n);
    impl[ni] = (peer_impl){"sbbf", NULL, NULL, buf + ni * rounds, NULL};
    ni++;
    round_ctx rc = {o, &peer, out, m->cache_bytes[2] ? m->cache_bytes[2] : (uint64_t)1 << 20};

    /* how much of each filter got transparent huge pages: a filter on 4 KiB
     * pages also misses the TLB, which would decide a DRAM-sized comparison */
    if (peer.bytes >= ((size_t)2 << 20))
        for (size_t j = 0; j < ni; j++) {
            const void *words = impl[j].filter ? (const void *)impl[j].filter->geometry.words : (const void *)peer.words;
            bench_stats none = {0, 0, 0, 0};
            bench_result *r = bench_result_add("vs-peer-huge", impl[j].name, "huge-pages", n, 1, none);
            if (r) r->x = target, r->value = bench_huge_page_fraction(words);
        }

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
            if (impl[j].ceiling) continue;
            uint64_t found = run_round(&rc, &impl[j], false, w->inserted, (size_t)n, 0, check);
            if (found != check)
                bench_check_failed("vs peer: %s found %llu of %zu inserted keys", impl[j].name,
                                   (unsigned long long)found, check);
        }
    }
    double *scratch = malloc(3 * (size_t)rounds * sizeof *scratch);
    if (scratch) {
        bench_progress(o, "%llu keys: vs peer at FPR %g: %u paired rounds of lookups, then of inserts",
                       (unsigned long long)n, target, rounds);
        measure(o, impl, ni, &rc, w, false, target, scratch);
        measure(o, impl, ni, &rc, w, true, target, scratch);
    }
    free(scratch);
done:
    free(two_pass_hashes);
    for (size_t j = 0; j < ni; j++) bloomsimd_destroy(impl[j].filter);
    if (have_peer) bench_sbbf_free(&peer);
    free(buf);
    free(out);
}

void bench_peer_rounds(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nk,
                       const bench_workload *w)
{
    if (!o->refs || !o->peer_rounds || !o->npeer_fprs || !bench_sbbf_available(NULL)) return;
    for (size_t i = 0; i < o->npeer_fprs; i++) one_target(o, m, kernels, nk, w, o->peer_fprs[i]);
}

/* The result of `section` for (impl, op, n) at this target, or NULL. */
static bench_result *find(const char *section, const char *impl, const char *op, uint64_t n, double target)
{
    for (size_t j = 0; j < bench_result_count(); j++) {
        bench_result *r = bench_result_get(j);
        if (!strcmp(r->section, section) && !strcmp(r->impl, impl) && !strcmp(r->op, op) && r->keys == n &&
            r->x == target)
            return r;
    }
    return NULL;
}

bool bench_peer_ratio(const char *section, const char *kernel, const char *op, uint64_t n, double target,
                      double *quiet, double *p10, double *median, double *p90)
{
    bench_result *r = find(section, kernel, op, n, target);
    if (!r) return false;
    *quiet = r->value;
    *median = r->ratio;
    *p10 = *p90 = NAN;
    sscanf(r->note, "p10=%lf p90=%lf", p10, p90);
    return true;
}

static void cell(char *buf, size_t cap, const char *section, const char *impl, const char *op, uint64_t n,
                 double target)
{
    double quiet, p10, median, p90;
    if (!bench_peer_ratio(section, impl, op, n, target, &quiet, &p10, &median, &p90))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.2fx [%.2f %.2f %.2f]", quiet, p10, median, p90);
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
        const double target = o->peer_fprs[t];
        bool header = false;
        for (size_t i = 0; i < bench_result_count(); i++) {
            bench_result *pf = bench_result_get(i);
            if (strcmp(pf->section, "vs-peer-fpr") || strcmp(pf->impl, "sbbf") || pf->x != target) continue;
            const uint64_t n = pf->keys;
            if (!header) {
                printf("\n== vs the split-block peer and the ceiling, target FPR %g%%: %u paired rounds of %u keys ==\n"
                       "cells: kernel time / peer time (or / ceiling time) in the same round, below 1.00x the kernel\n"
                       "is faster: median over the pair's quietest tenth of the rounds (smallest sum of the two\n"
                       "times, each over its median) [p10 median p90 of all rounds]\n",
                       100 * target, o->peer_rounds, ROUND_KEYS);
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
            bench_result *pl = find("vs-peer", "sbbf", "lookup0", n, target);
            bench_result *pi = find("vs-peer", "sbbf", "insert", n, target);
            bench_result *cl = find("vs-peer", "ceiling", "lookup0", n, target);
            printf("%s keys: ours %.2f bits/key, FPR %.3f%%; peer %.2f bits/key, FPR %.3f%% (model %.3f%%); "
                   "ns/key: peer %.2f look0%%, %.2f insert; ceiling %.2f\n",
                   keys, of ? of->ratio : NAN, of ? 100 * of->value : NAN, pf->ratio, 100 * pf->value, 100 * pmodel,
                   pl ? pl->ns.median : NAN, pi ? pi->ns.median : NAN, cl ? cl->ns.median : NAN);
            printf("  %-18s", "");
            for (size_t k = 0; k < nk; k++) printf("  %-24s", kernels[k]);
            printf("\n");
            bool huge_header = false;
            for (size_t j = 0; j < bench_result_count(); j++) {
                bench_result *h = bench_result_get(j);
                if (strcmp(h->section, "vs-peer-huge") || h->keys != n || h->x != target) continue;
                printf("%s %s %.0f%%", huge_header ? "," : "  on huge pages:", strcmp(h->impl, "sbbf") ? h->impl : "peer",
                       100 * h->value);
                huge_header = true;
            }
            if (huge_header) printf("\n");
            static const char *const ops[2] = {"lookup0", "insert"};
            static const char *const sections[2] = {"vs-peer", "vs-ceiling"};
            for (int op = 0; op < 2; op++)
                for (int sec = 0; sec < 2; sec++) {
                    if (sec == 1 && !cl) continue;
                    printf("  %-7s %-10s", sec ? "" : op ? "insert" : "look0%", sec ? "/ ceiling" : "/ peer");
                    for (size_t k = 0; k < nk; k++) {
                        char buf[48];
                        cell(buf, sizeof buf, sections[sec], kernels[k], ops[op], n, target);
                        printf("  %-24s", buf);
                    }
                    printf("\n");
                }
        }
    }
}
