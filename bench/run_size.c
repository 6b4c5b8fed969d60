/*
 * run_size.c — one filter size: every kernel, the ceiling, the split-block
 * peer, the classic filter and libbloom, each operation measured interleaved
 * across them, and the checks that make the numbers trustworthy:
 *   - 100%-present lookups find every key (no false negatives), peer included;
 *   - every kernel gives the same counts, hash checksum and filter bytes;
 *   - every repetition returns the same count;
 *   - the peer's measured FPR agrees with its model within its noise.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "dispatch.h" /* the fastest kernel's hash, for the ceiling */
#include "internal.h" /* filter bytes, for the cross-kernel comparison */
#include "ops.h"
#include "run.h"

/* The ceiling's prefetch schedules: distance in keys x target cache. */
/* Used only when the fastest kernel has no touch_u64 (see choose_ceiling). */
#define CEILING_SWEEP_COUNT 11u
static const unsigned ceiling_sweep[CEILING_SWEEP_COUNT] = {16, 32, 64, 128, 16, 32, 64, 128, 32, 64, 128};
/* 0: L1, 1: L2, 2: L2 then L1 one group ahead (3, the kernel's own pipeline, is not swept) */
static const unsigned ceiling_sweep_l2[CEILING_SWEEP_COUNT] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
/* Byte-key phases use at most this many keys per repetition. */
#define BYTE_KEYS_MAX (UINT64_C(1) << 19)
/* libbloom is ~150-300 ns/key: fewer keys per repetition, and only up to
 * this filter size by default. */
#define LIBBLOOM_QUERIES (UINT64_C(1) << 18)
#define LIBBLOOM_MAX_KEYS UINT64_C(10000000)
/* The peer's FPR check: |measured - model| within this many standard
 * deviations (sampling and filter-to-filter, bench_sbbf_fpr_sigma). */
#define PEER_FPR_SIGMAS 5.0

static uint64_t filter_checksum(const bloomsimd_filter *f)
{
    return XXH3_64bits(f->geometry.words, bloomsimd_filter_bytes(f));
}

static bench_result *record(const char *section, const char *impl, const char *op, uint64_t n,
                            const bench_measurement *m, double ceiling)
{
    bench_result *r = bench_result_add(section, impl, op, n, 1, m->ns);
    if (!r) return NULL;
    r->perf = m->perf;
    if (ceiling > 0) r->ratio = m->ns.median / ceiling;
    if (!m->counts_agree) bench_check_failed("%s %s at %llu keys: repetitions returned different counts", impl, op,
                                             (unsigned long long)n);
    return r;
}

/* Per-implementation state at one size. */
typedef struct impl_state {
    const char *name;
    bloomsimd_filter *filter;
    bench_op_ctx ctx;
    /* Kernels of one layout build the same bytes and give the same answers;
     * kernels of different layouts (each kernel's default, unless --layout)
     * do not. `ref` is the first live kernel with this one's layout: every
     * cross-kernel check compares against it. */
    size_t ref;
    uint64_t checksum; /* of the filter after the first fill */
} impl_state;

/* The first live implementation whose filter has f's layout (live if none). */
static size_t same_layout_ref(const impl_state *impl, size_t live, const bloomsimd_filter *f)
{
    for (size_t j = 0; j < live; j++)
        if (impl[j].filter->geometry.layout == f->geometry.layout) return j;
    return live;
}

static void set_keys(bench_op_ctx *c, const uint64_t *keys, size_t nkeys, size_t total)
{
    c->keys = keys;
    c->nkeys = nkeys;
    c->total = total;
}

static int best_by(const char *op, uint64_t n, const char *const *kernels, size_t nk)
{
    int best = -1;
    double best_ns = INFINITY;
    for (size_t i = 0; i < nk; i++) {
        if (bloomsimd_kernel_emulated(kernels[i])) continue; /* never a candidate: never auto-selected */
        bench_result *r = bench_result_find("kernel", kernels[i], op, n, 1);
        if (r && r->ns.median < best_ns) best_ns = r->ns.median, best = (int)i;
    }
    return best;
}

/* The ceiling's prefetch schedule: the fastest of a short sweep. */
static bench_ceiling choose_ceiling(const bench_options *o, bench_op_ctx base)
{
    /* The fastest kernel's own pipeline with a one-word read is a floor for
     * that kernel by construction: use it as is. Picking the fastest of a
     * short, noisy sweep instead could pick a generic variant that then
     * measures slower in the main run and flatters the "x ceil" column. */
    if (base.ceiling.touch) {
        base.ceiling.to_l2 = 3;
        return base.ceiling;
    }
    bench_op_ctx ctx[CEILING_SWEEP_COUNT];
    bench_job jobs[CEILING_SWEEP_COUNT];
    bench_measurement m[CEILING_SWEEP_COUNT];
    for (unsigned i = 0; i < CEILING_SWEEP_COUNT; i++) {
        ctx[i] = base;
        ctx[i].ceiling.ahead = ceiling_sweep[i];
        ctx[i].ceiling.to_l2 = ceiling_sweep_l2[i];
        jobs[i] = (bench_job){.fn = bench_op_ceiling, .ctx = &ctx[i], .keys = (double)base.total, .wall_clock = false};
    }
    bench_options quick = *o;
    quick.reps = 3;
    quick.perf = false;
    bench_measure_interleaved(&quick, jobs, CEILING_SWEEP_COUNT, m);
    unsigned best = 0;
    for (unsigned i = 1; i < CEILING_SWEEP_COUNT; i++)
        if (m[i].ns.median < m[best].ns.median) best = i;
    return ctx[best].ceiling;
}

int bench_run_size(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nk,
                   const bench_workload *w, bench_after_fn after, uint64_t largest)
{
    const uint64_t n = w->n;
    const size_t q = w->q;
    impl_state impl[BENCH_MAX_KERNELS];
    memset(impl, 0, sizeof impl);
    uint8_t *out = malloc(o->batch);
    uint64_t *hashes = malloc(o->batch * sizeof *hashes);
    uint32_t *indices = malloc(o->batch * sizeof *indices);
    bench_byte_keys b16 = {0}, b64 = {0};
    size_t qb = q < BYTE_KEYS_MAX ? q : (size_t)BYTE_KEYS_MAX;
    bool bytes_ok = bench_byte_keys_make(&b16, w->absent, qb, 16) && bench_byte_keys_make(&b64, w->absent, qb, 64);
    if (!out || !hashes || !indices || !bytes_ok) {
        fprintf(stderr, "bloomsimd-bench: out of memory at %llu keys\n", (unsigned long long)n);
        free(out);
        free(hashes);
        free(indices);
        bench_byte_keys_free(&b16);
        bench_byte_keys_free(&b64);
        return -1;
    }

    /* ---- create and fill one filter per kernel ---- */
    size_t live = 0;
    for (size_t i = 0; i < nk; i++) {
        bloomsimd_options opt = bench_filter_options(o, n, kernels[i], 0);
        bloomsimd_filter *f = NULL;
        bloomsimd_status st = bloomsimd_create_with(&f, &opt);
        if (st != BLOOMSIMD_OK) {
            bench_check_failed("create %s filter for %llu keys: %s", kernels[i], (unsigned long long)n,
                               bloomsimd_status_string(st));
            continue;
        }
        const size_t ref = same_layout_ref(impl, live, f);
        uint64_t sum;
        if (ref < live && (uint64_t)bloomsimd_filter_bytes(f) > m->cache_bytes[3] && m->cache_bytes[3]) {
            /* DRAM-sized: start from a copy of the same layout's first filter
             * (a fill costs seconds per kernel); the re-insert phase below
             * then checks that this kernel sets no bit that one did not. */
            memcpy(f->geometry.words, impl[ref].filter->geometry.words, bloomsimd_filter_bytes(f));
            sum = impl[ref].checksum;
        } else {
            bench_progress(o, "%llu keys: filling %s filter", (unsigned long long)n, kernels[i]);
            bench_op_ctx fill = {.filter = f, .batch = o->batch};
            set_keys(&fill, w->inserted, (size_t)n, (size_t)n);
            double t0 = bench_clock_ns(o);
            bench_op_insert(&fill);
            double t1 = bench_clock_ns(o);
            bench_stats s = {(t1 - t0) / (double)n, (t1 - t0) / (double)n, (t1 - t0) / (double)n, 1};
            bench_result *r = bench_result_add("kernel", kernels[i], "fill", n, 1, s);
            if (r) snprintf(r->note, sizeof r->note, "first insert of all keys, page faults included");
            sum = filter_checksum(f);
        }
        if (ref < live && sum != impl[ref].checksum)
            bench_check_failed("%s filter bytes differ from %s's at %llu keys (layout %s)", kernels[i],
                               impl[ref].name, (unsigned long long)n, bloomsimd_layout_name(f->geometry.layout));
        impl[live].name = kernels[i];
        impl[live].filter = f;
        impl[live].ctx = (bench_op_ctx){.filter = f, .batch = o->batch, .out = out, .hashes = hashes};
        impl[live].ref = ref < live ? ref : live;
        impl[live].checksum = sum;
        live++;
    }
    if (live == 0) {
        free(out);
        free(hashes);
        free(indices);
        bench_byte_keys_free(&b16);
        bench_byte_keys_free(&b64);
        return -1;
    }
    bloomsimd_info info;
    bloomsimd_get_info(impl[0].filter, &info);
    const double bpk = (double)info.bits / (double)n;
    {
        /* how much of the first filter the kernel gave huge pages: with 4 KiB
         * pages a random probe into a large filter also misses the TLB */
        double huge = bench_huge_page_fraction(impl[0].filter->geometry.words);
        bench_stats none = {0, 0, 0, 0};
        bench_result *r = bench_result_add("memory", impl[0].name, "huge-pages", n, 1, none);
        if (r) r->value = huge;
    }

    /* ---- references: ceiling on the first filter's memory, classic ---- */
    bench_op_ctx ceiling_ctx = {.batch = o->batch};
    ceiling_ctx.ceiling = (bench_ceiling){.words = (const uint64_t *)(const void *)impl[0].filter->geometry.words,
                                          .nblocks = bloomsimd_filter_bytes(impl[0].filter) / 64, /* lines */
                                          .hash_bitflip = impl[0].filter->geometry.hash_bitflip,
                                          .ahead = 64};
    const bloomsimd_kernel *fastest = bloomsimd_kernel_by_name(bloomsimd_default_kernel());
    if (fastest) ceiling_ctx.ceiling.hash_u64 = fastest->hash_u64;
    if (fastest) ceiling_ctx.ceiling.touch = fastest->touch_u64;
    ceiling_ctx.ceiling.geometry = &impl[0].filter->geometry;
    set_keys(&ceiling_ctx, w->absent, q, q);
    /* the two-pass form of the floor, timed beside the fused one (ceiling.c) */
    bench_op_ctx two_pass_ctx = ceiling_ctx;
    uint64_t *two_pass_hashes = NULL;
    if (o->refs && fastest && fastest->touch_u64 && fastest->touch_hashes &&
        (two_pass_hashes = malloc(o->batch * sizeof *two_pass_hashes)) != NULL) {
        two_pass_ctx.ceiling.to_l2 = 4;
        two_pass_ctx.ceiling.touch_hashes = fastest->touch_hashes;
        two_pass_ctx.ceiling.scratch = two_pass_hashes;
    }
    bench_classic classic;
    bool have_classic = false;
    bench_op_ctx classic_ctx = {.batch = o->batch, .classic = &classic};
    if (o->refs) {
        ceiling_ctx.ceiling = choose_ceiling(o, ceiling_ctx);
        have_classic = bench_classic_init(&classic, n, bpk, 0, 0);
        if (have_classic) {
            bench_progress(o, "%llu keys: filling classic filter (k=%u)", (unsigned long long)n, classic.k);
            set_keys(&classic_ctx, w->inserted, (size_t)n, (size_t)n);
            double t0 = bench_clock_ns(o);
            bench_op_classic_insert(&classic_ctx);
            double t1 = bench_clock_ns(o);
            bench_stats s = {(t1 - t0) / (double)n, (t1 - t0) / (double)n, (t1 - t0) / (double)n, 1};
            bench_result_add("reference", "classic", "fill", n, 1, s);
        }
    }
    /* libbloom: one key per call and ~100-300 ns/key, so it joins the
     * interleaved measurements with fewer keys per repetition */
    void *lb = NULL;
    size_t ql = q < LIBBLOOM_QUERIES ? q : (size_t)LIBBLOOM_QUERIES;
    char lb_note[64] = "";
    bench_op_ctx lb_ctx = {.batch = o->batch};
    if (o->refs && o->libbloom && bench_libbloom_compiled() && n <= LIBBLOOM_MAX_KEYS) {
        lb = bench_libbloom_create(n, bpk);
        if (lb) {
            bench_progress(o, "%llu keys: filling libbloom", (unsigned long long)n);
            lb_ctx.libbloom = lb;
            set_keys(&lb_ctx, w->inserted, (size_t)n, (size_t)n);
            double t0 = bench_clock_ns(o);
            bench_op_libbloom_insert(&lb_ctx);
            double t1 = bench_clock_ns(o);
            bench_stats s = {(t1 - t0) / (double)n, (t1 - t0) / (double)n, (t1 - t0) / (double)n, 1};
            bench_result_add("reference", "libbloom", "fill", n, 1, s);
            snprintf(lb_note, sizeof lb_note, "k=%u, %.2f bits/key, one key per call", bench_libbloom_k(lb),
                     bench_libbloom_bits_per_key(lb, n));
        }
    }

    /* the split-block peer, sized by its own model for the FPR our filter has
     * at n keys (the model's, so the two are compared at the same FPR) */
    bench_sbbf peer;
    bool have_peer = false;
    const double our_model = bloomsimd_predicted_fpr(impl[0].filter, n);
    bench_op_ctx peer_ctx = {.batch = o->batch, .out = out, .sbbf = &peer};
    char peer_note[64] = "";
    if (o->refs && bench_sbbf_available(NULL)) {
        uint64_t nb = bench_sbbf_blocks_for(n, our_model);
        have_peer = nb && bench_sbbf_init(&peer, nb);
        if (have_peer) {
            bench_progress(o, "%llu keys: filling the split-block peer (%.2f bits/key)", (unsigned long long)n,
                           bench_sbbf_bits_per_key(&peer, n));
            set_keys(&peer_ctx, w->inserted, (size_t)n, (size_t)n);
            double t0 = bench_clock_ns(o);
            bench_op_sbbf_insert(&peer_ctx);
            double t1 = bench_clock_ns(o);
            bench_stats s = {(t1 - t0) / (double)n, (t1 - t0) / (double)n, (t1 - t0) / (double)n, 1};
            bench_result_add("reference", "sbbf", "fill", n, 1, s);
            snprintf(peer_note, sizeof peer_note, "k=8, %.2f bits/key, AVX2, model FPR %.4f%%",
                     bench_sbbf_bits_per_key(&peer, n), 100 * bench_sbbf_fpr(n, peer.nblocks));
        }
    }

    /* ---- the operations, interleaved across implementations ---- */
    /* single-key loops run on a quarter of the queries (they wait for every
     * miss); byte-key single calls on the 16-byte keys add16 inserted */
    const size_t qs = q / 4 ? q / 4 : 1, qbs = qb < qs ? qb : qs;
    /* single keys also as a program built with -mavx2 / -mavx512f calls them
     * (the header's inline probe; skipped where the CPU has neither) */
    bench_inline_ops inline_ops;
    bench_inline_ops_for_cpu(&inline_ops);
    struct {
        const char *op;
        bench_fn fn;
        const uint64_t *keys;
        size_t nkeys;
        size_t total;
        bench_fn classic_fn, libbloom_fn, sbbf_fn;
        bool ceiling;
        const bench_byte_keys *bk;
        /* batches read their keys from DRAM (bench_job.cold): a column scan
         * or a consumer's buffers stream them; single-key calls take keys a
         * request handler has just touched, and hashing alone would only
         * measure the memory's bandwidth, so those keep them cached */
        bool cold;
    } ops[] = {
        {.op = "lookup0", .fn = bench_op_lookup, .keys = w->absent, .nkeys = q, .total = q,
         .classic_fn = bench_op_classic_lookup, .libbloom_fn = bench_op_libbloom_lookup,
         .sbbf_fn = bench_op_sbbf_lookup, .ceiling = true, .cold = true},
        {.op = "insert", .fn = bench_op_insert, .keys = w->inserted, .nkeys = (size_t)n, .total = q,
         .classic_fn = bench_op_classic_insert, .libbloom_fn = bench_op_libbloom_insert,
         .sbbf_fn = bench_op_sbbf_insert, .cold = true},
        {.op = "lookup50", .fn = bench_op_lookup, .keys = w->half, .nkeys = q, .total = q,
         .classic_fn = bench_op_classic_lookup, .libbloom_fn = bench_op_libbloom_lookup,
         .sbbf_fn = bench_op_sbbf_lookup, .cold = true},
        {.op = "lookup100", .fn = bench_op_lookup, .keys = w->present, .nkeys = q, .total = q,
         .classic_fn = bench_op_classic_lookup, .libbloom_fn = bench_op_libbloom_lookup,
         .sbbf_fn = bench_op_sbbf_lookup, .cold = true},
        /* hashing reads the size's n inserted keys (cycled), so its input is as
         * cache-resident as the filter: on the 8 MiB query stream the AVX-512
         * hash ran at the memory's speed (0.7-1.0 ns/key, 0.28 on resident keys) */
        {.op = "hash", .fn = bench_op_hash, .keys = w->inserted, .nkeys = (size_t)n, .total = q},
        /* single-key calls as users make them, each compared below
         * with the batched call on the same kind of keys */
        {.op = "single0", .fn = bench_op_single, .keys = w->absent, .nkeys = qs, .total = qs,
         .sbbf_fn = bench_op_sbbf_single},
        {.op = "single-add", .fn = bench_op_single_add, .keys = w->inserted, .nkeys = (size_t)n, .total = qs,
         .sbbf_fn = bench_op_sbbf_single_add},
        /* the same calls, inlined: measured beside the peer's inlined probe again */
        {.op = "single-inline0", .fn = inline_ops.contains, .keys = w->absent, .nkeys = qs, .total = qs,
         .sbbf_fn = bench_op_sbbf_single},
        {.op = "single-inline-add", .fn = inline_ops.add, .keys = w->inserted, .nkeys = (size_t)n, .total = qs,
         .sbbf_fn = bench_op_sbbf_single_add},
        {.op = "add16", .fn = bench_op_add_bytes, .nkeys = qb, .total = qb, .bk = &b16},
        {.op = "lookup16", .fn = bench_op_lookup_bytes, .nkeys = qb, .total = qb, .bk = &b16},
        {.op = "add64", .fn = bench_op_add_bytes, .nkeys = qb, .total = qb, .bk = &b64},
        {.op = "lookup64", .fn = bench_op_lookup_bytes, .nkeys = qb, .total = qb, .bk = &b64},
        {.op = "single16", .fn = bench_op_single_bytes, .nkeys = qbs, .total = qbs, .bk = &b16},
        {.op = "single-add16", .fn = bench_op_single_add_bytes, .nkeys = qbs, .total = qbs, .bk = &b16},
    };
    double ceiling_ns = 0;
    bool forms_done = false;
    uint64_t single_hits[BENCH_MAX_KERNELS] = {0}; /* the exported call's, for the inline loop's check */
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        if (!ops[oi].fn) continue; /* no inline rows on this CPU */
        /* before the first byte-key insert fills the filter further (2^19
         * byte keys into a 10^4-key filter saturate it): the
         * insert-and-report-new and hit forms, each kernel in its own group */
        if (ops[oi].bk && !forms_done) {
            for (size_t i = 0; i < live; i++) bench_forms_rows(o, impl[i].name, impl[i].filter, w, out, indices);
            if (bench_string_rows_wanted(o, n, largest))
                for (size_t i = 0; i < live; i++) bench_string_rows(o, impl[i].name, impl[i].filter, w, out, hashes);
            forms_done = true;
        }
        bench_job jobs[BENCH_MAX_KERNELS + 4];
        bench_op_ctx ctx[BENCH_MAX_KERNELS + 4];
        bench_measurement res[BENCH_MAX_KERNELS + 4];
        size_t nj = 0;
        const size_t total = ops[oi].total;
        for (size_t i = 0; i < live; i++) {
            ctx[nj] = impl[i].ctx;
            set_keys(&ctx[nj], ops[oi].keys, ops[oi].nkeys, total);
            ctx[nj].bytes = ops[oi].bk;
            jobs[nj] = (bench_job){.fn = ops[oi].fn, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
            nj++;
        }
        int classic_job = -1, ceiling_job = -1, two_pass_job = -1, libbloom_job = -1, xxh3_job = -1, peer_job = -1;
        if (have_peer && ops[oi].sbbf_fn) {
            ctx[nj] = peer_ctx;
            set_keys(&ctx[nj], ops[oi].keys, ops[oi].nkeys, total);
            jobs[nj] = (bench_job){.fn = ops[oi].sbbf_fn, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
            peer_job = (int)nj++;
        }
        if (o->refs && strcmp(ops[oi].op, "hash") == 0) {
            ctx[nj] = impl[0].ctx; /* its hashes buffer */
            set_keys(&ctx[nj], ops[oi].keys, ops[oi].nkeys, total);
            jobs[nj] = (bench_job){.fn = bench_op_xxh3_lib, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
            xxh3_job = (int)nj++;
        }
        if (lb && ops[oi].libbloom_fn) {
            ctx[nj] = lb_ctx;
            /* inserts cycle over all inserted keys, lookups over the first ql queries */
            set_keys(&ctx[nj], ops[oi].keys, ops[oi].nkeys < ql ? ops[oi].nkeys : ql, ql);
            jobs[nj] = (bench_job){.fn = ops[oi].libbloom_fn, .ctx = &ctx[nj], .keys = (double)ql, .wall_clock = false};
            libbloom_job = (int)nj++;
        }
        if (have_classic && ops[oi].classic_fn) {
            ctx[nj] = classic_ctx;
            set_keys(&ctx[nj], ops[oi].keys, ops[oi].nkeys, total);
            jobs[nj] = (bench_job){.fn = ops[oi].classic_fn, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
            classic_job = (int)nj++;
        }
        if (o->refs && ops[oi].ceiling) {
            ctx[nj] = ceiling_ctx;
            jobs[nj] = (bench_job){.fn = bench_op_ceiling, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
            ceiling_job = (int)nj++;
            if (two_pass_hashes) {
                ctx[nj] = two_pass_ctx;
                jobs[nj] = (bench_job){.fn = bench_op_ceiling, .ctx = &ctx[nj], .keys = (double)total, .wall_clock = false};
                two_pass_job = (int)nj++;
            }
        }
        if (ops[oi].cold)
            for (size_t j = 0; j < nj; j++) {
                jobs[j].cold = ops[oi].keys;
                jobs[j].cold_bytes = (ops[oi].nkeys < total ? ops[oi].nkeys : total) * sizeof *ops[oi].keys;
            }
        bench_progress(o, "%llu keys: %s (%zu implementations, %u reps)", (unsigned long long)n, ops[oi].op, nj,
                       o->reps);
        bench_measure_interleaved(o, jobs, nj, res);
        if (ceiling_job >= 0) {
            /* the floor is the faster of the fused and the two-pass forms */
            if (two_pass_job >= 0 && res[two_pass_job].ns.median < res[ceiling_job].ns.median)
                ceiling_job = two_pass_job;
            ceiling_ns = res[ceiling_job].ns.median;
            bench_result *r = record("ceiling", "ceiling", "lookup0", n, &res[ceiling_job], 0);
            if (r)
            {
                const bench_ceiling *cl = &ctx[ceiling_job].ceiling;
                if (cl->to_l2 == 4)
                    snprintf(r->note, sizeof r->note, "%s", "best kernel's pipeline, two passes, 1 read/key");
                else if (cl->to_l2 == 3)
                    snprintf(r->note, sizeof r->note, "%s", two_pass_job >= 0 ? "best kernel's pipeline, fused, 1 read/key"
                                                                              : "best kernel's pipeline, 1 read/key");
                else
                    snprintf(r->note, sizeof r->note, "prefetch %u keys ahead into %s", cl->ahead,
                             cl->to_l2 == 2 ? "L2+L1" : cl->to_l2 == 1 ? "L2" : "L1");
            }
        }
        bool vs_ceiling =
            !ops[oi].bk && (strncmp(ops[oi].op, "lookup", 6) == 0 || strcmp(ops[oi].op, "insert") == 0);
        for (size_t i = 0; i < live; i++) {
            bench_result *r = record("kernel", impl[i].name, ops[oi].op, n, &res[i], vs_ceiling ? ceiling_ns : 0);
            /* identical answers across the kernels of one layout */
            const size_t ref = impl[i].ref;
            if (res[i].count != res[ref].count)
                bench_check_failed("%s %s at %llu keys: count %llu, %s gave %llu", impl[i].name, ops[oi].op,
                                   (unsigned long long)n, (unsigned long long)res[i].count, impl[ref].name,
                                   (unsigned long long)res[ref].count);
            if (r && strcmp(ops[oi].op, "lookup0") == 0) r->value = (double)res[i].count / (double)q;
            /* the inline loop finds as many hits as the library's calls on the same keys */
            if (strcmp(ops[oi].op, "single0") == 0) single_hits[i] = res[i].count;
            if (strcmp(ops[oi].op, "single-inline0") == 0 && res[i].count != single_hits[i])
                bench_check_failed("%s at %llu keys (%s): %llu hits inlined, %llu through the library", ops[oi].op,
                                   (unsigned long long)n, impl[i].name, (unsigned long long)res[i].count,
                                   (unsigned long long)single_hits[i]);
        }
        if (classic_job >= 0) {
            bench_result *r = record("reference", "classic", ops[oi].op, n, &res[classic_job], ceiling_ns);
            if (r) snprintf(r->note, sizeof r->note, "k=%u, %.2f bits/key, pipelined", classic.k,
                            (double)classic.nbits / (double)n);
            if (r && strcmp(ops[oi].op, "lookup0") == 0) r->value = (double)res[classic_job].count / (double)q;
            if (strcmp(ops[oi].op, "lookup100") == 0 && res[classic_job].count != q)
                bench_check_failed("classic: %llu of %zu present keys found", (unsigned long long)res[classic_job].count,
                                   q);
        }
        if (peer_job >= 0) {
            bench_result *r = record("reference", "sbbf", ops[oi].op, n, &res[peer_job], vs_ceiling ? ceiling_ns : 0);
            if (r) snprintf(r->note, sizeof r->note, "%s", peer_note);
            if (r && strcmp(ops[oi].op, "lookup0") == 0) r->value = (double)res[peer_job].count / (double)q;
            if (strcmp(ops[oi].op, "lookup100") == 0 && res[peer_job].count != q)
                bench_check_failed("split-block peer: %llu of %zu present keys found",
                                   (unsigned long long)res[peer_job].count, q);
        }
        if (xxh3_job >= 0) {
            bench_result *r = record("reference", "libxxhash", "hash", n, &res[xxh3_job], 0);
            if (r) snprintf(r->note, sizeof r->note, "XXH3_64bits_withSeed, one key per call");
            /* seed 0 on both sides: bit-exact, so the sampled xor must agree */
            if (res[xxh3_job].count != res[0].count) bench_check_failed("libxxhash and %s hashes differ", impl[0].name);
        }
        if (libbloom_job >= 0) {
            bench_result *r = record("reference", "libbloom", ops[oi].op, n, &res[libbloom_job], ceiling_ns);
            if (r) snprintf(r->note, sizeof r->note, "%s", lb_note);
            if (r && strcmp(ops[oi].op, "lookup0") == 0) r->value = (double)res[libbloom_job].count / (double)ql;
            if (strcmp(ops[oi].op, "lookup100") == 0 && res[libbloom_job].count != ql)
                bench_check_failed("libbloom: %llu of %zu present keys found",
                                   (unsigned long long)res[libbloom_job].count, ql);
        }
        /* no false negatives, no failed call: on each layout's first kernel
         * (the others were just checked to give the same counts) */
        for (size_t i = 0; i < live; i++) {
            if (impl[i].ref != i) continue;
            if (strcmp(ops[oi].op, "lookup100") == 0 && res[i].count != q)
                bench_check_failed("false negatives at %llu keys (%s): %llu of %zu present keys found",
                                   (unsigned long long)n, impl[i].name, (unsigned long long)res[i].count, q);
            if ((strcmp(ops[oi].op, "lookup16") == 0 || strcmp(ops[oi].op, "lookup64") == 0 ||
                 strcmp(ops[oi].op, "single16") == 0) &&
                res[i].count != total)
                bench_check_failed("byte keys (%s) at %llu keys (%s): %llu of %zu inserted keys found", ops[oi].op,
                                   (unsigned long long)n, impl[i].name, (unsigned long long)res[i].count, total);
            if ((strcmp(ops[oi].op, "insert") == 0 || strncmp(ops[oi].op, "add", 3) == 0 ||
                 strncmp(ops[oi].op, "single-add", 10) == 0 || strcmp(ops[oi].op, "single-inline-add") == 0) &&
                res[i].count != 0)
                bench_check_failed("%s at %llu keys (%s): %llu calls failed", ops[oi].op, (unsigned long long)n,
                                   impl[i].name, (unsigned long long)res[i].count);
        }
        /* re-inserting present keys must not change a bit, with any kernel */
        if (strcmp(ops[oi].op, "insert") == 0 || strcmp(ops[oi].op, "single-inline-add") == 0)
            for (size_t i = 0; i < live; i++)
                if (filter_checksum(impl[i].filter) != impl[impl[i].ref].checksum)
                    bench_check_failed("%s: re-inserting present keys (%s) changed the filter at %llu keys",
                                       impl[i].name, ops[oi].op, (unsigned long long)n);
        /* the u64 lookups are done before any byte key is added: FPR is measured on the pure filter */
    }
    /* hashes: bit-exact across kernels (full checksum, outside the timing) */
    {
        uint64_t *all = malloc(q * sizeof *all);
        uint64_t first = 0;
        for (size_t i = 0; all && i < live; i++) {
            bloomsimd_hash_batch_u64(impl[i].filter, w->absent, q, all);
            uint64_t sum = XXH3_64bits(all, q * sizeof *all);
            if (i == 0) first = sum;
            else if (sum != first) bench_check_failed("%s hashes differ from %s's", impl[i].name, impl[0].name);
        }
        free(all);
    }

    /* single-key calls: x the same kernel's batched time on the same kind of keys */
    {
        static const char *const pairs[][2] = {
            {"single0", "lookup0"},   {"single-add", "insert"}, {"single-inline0", "lookup0"},
            {"single-inline-add", "insert"}, {"single16", "lookup16"}, {"single-add16", "add16"}};
        /* every kernel, then the peer (it has no byte-key rows: those pairs find nothing) */
        for (size_t i = 0; i <= live; i++)
            for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                const char *section = i < live ? "kernel" : "reference", *name = i < live ? impl[i].name : "sbbf";
                bench_result *one = bench_result_find(section, name, pairs[p][0], n, 1);
                bench_result *batch = bench_result_find(section, name, pairs[p][1], n, 1);
                if (!one || !batch || !(batch->ns.median > 0)) continue;
                one->value = one->ns.median / batch->ns.median;
                bool inlined = strncmp(pairs[p][0], "single-inline", 13) == 0;
                if (i == live)
                    snprintf(one->note, sizeof one->note, "probe inlined per key, no prefetch; value = x batched");
                else
                    snprintf(one->note, sizeof one->note, "one call per key%s%s; value = x batched %s",
                             inlined ? ", inlined, built with " : "", inlined ? inline_ops.flags : "", pairs[p][1]);
            }
    }

    /* ---- FPR of this size ---- */
    {
        bench_result *lk = bench_result_find("kernel", impl[0].name, "lookup0", n, 1);
        bench_stats none = {0, 0, 0, 0};
        bench_result *r = bench_result_add("fpr", "bloomsimd", "measured", n, 1, none);
        if (r && lk) {
            r->value = lk->value;
            snprintf(r->note, sizeof r->note, "bits/key=%.3f k=%u target=%.6g model=%.6g q=%zu", bpk, info.k,
                     info.fpr, bloomsimd_predicted_fpr(impl[0].filter, n), q);
        }
        r = bench_result_add("fpr", "bloomsimd", "model", n, 1, none);
        if (r) r->value = bloomsimd_predicted_fpr(impl[0].filter, n), snprintf(r->note, sizeof r->note, "k=%u", info.k);
        r = bench_result_add("fpr", "bloomsimd", "target", n, 1, none);
        if (r) r->value = info.fpr;
        if (have_classic) {
            bench_result *cl = bench_result_find("reference", "classic", "lookup0", n, 1);
            r = bench_result_add("fpr", "classic", "measured", n, 1, none);
            if (r && cl) r->value = cl->value, snprintf(r->note, sizeof r->note, "k=%u", classic.k);
            r = bench_result_add("fpr", "classic", "formula", n, 1, none);
            if (r) r->value = bench_classic_formula((double)classic.nbits / (double)n, classic.k);
        }
    }

    if (have_peer) {
        bench_stats none = {0, 0, 0, 0};
        bench_result *lk = bench_result_find("reference", "sbbf", "lookup0", n, 1);
        double model = bench_sbbf_fpr(n, peer.nblocks), sigma = bench_sbbf_fpr_sigma(n, peer.nblocks, q);
        bench_result *r = bench_result_add("fpr", "sbbf", "measured", n, 1, none);
        if (r && lk) {
            r->value = lk->value;
            r->x = bench_sbbf_bits_per_key(&peer, n);
            snprintf(r->note, sizeof r->note, "bits/key=%.3f target=%.6g model=%.6g sigma=%.3g", r->x, our_model,
                     model, sigma);
            if (fabs(lk->value - model) > PEER_FPR_SIGMAS * sigma)
                bench_check_failed("split-block peer at %llu keys: measured FPR %.5f%%, model %.5f%% "
                                   "(more than %.0f sigma = %.5f%% apart)",
                                   (unsigned long long)n, 100 * lk->value, 100 * model, PEER_FPR_SIGMAS, 100 * sigma);
        }
        bench_sbbf_free(&peer);
        have_peer = false;
    }

    if (lb) {
        bench_stats none = {0, 0, 0, 0};
        bench_result *lk = bench_result_find("reference", "libbloom", "lookup0", n, 1);
        bench_result *r = bench_result_add("fpr", "libbloom", "measured", n, 1, none);
        if (r && lk) r->value = lk->value, snprintf(r->note, sizeof r->note, "%s", lb_note);
        bench_libbloom_destroy(lb);
    }

    int best = best_by("lookup0", n, kernels, nk);
    if (after && best >= 0) {
        bloomsimd_filter *bf = NULL;
        for (size_t i = 0; i < live; i++)
            if (strcmp(impl[i].name, kernels[best]) == 0) bf = impl[i].filter;
        /* free the others first: the after-phases allocate more filters */
        for (size_t i = 0; i < live; i++)
            if (impl[i].filter != bf) bloomsimd_destroy(impl[i].filter), impl[i].filter = NULL;
        if (have_classic) bench_classic_free(&classic), have_classic = false;
        after(o, m, kernels[best], bf, w);
    }
    for (size_t i = 0; i < live; i++) bloomsimd_destroy(impl[i].filter);
    if (have_classic) bench_classic_free(&classic);
    free(two_pass_hashes);
    free(out);
    free(hashes);
    free(indices);
    bench_byte_keys_free(&b16);
    bench_byte_keys_free(&b64);
    return best;
}
