/*
 * fpr_sweep.c — measured FPR against bits/key, for this layout, the classic
 * filter and the split-block peer (when this CPU runs it), next to the
 * layout's exact model (bloomsimd_predicted_fpr), the textbook classic
 * formula (1 - e^{-k/c})^k at c bits/key and the peer's exact model.
 *
 * 2^20 keys per filter and 2^22 absent queries per point: at 20 bits/key
 * (FPR ~1e-4) that is still ~400 false positives, a +-5% measurement.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ops.h"
#include "run.h"
#include "sbbf.h"

#define SWEEP_KEYS (UINT64_C(1) << 20)
#define SWEEP_QUERIES (UINT64_C(1) << 22)

void bench_fpr_sweep(const bench_options *o, const char *kernel)
{
    uint64_t *keys = bench_keys(SWEEP_KEYS, o->seed, 3);
    uint64_t *absent = bench_keys(SWEEP_QUERIES, o->seed, 4);
    if (!keys || !absent) {
        free(keys);
        free(absent);
        return;
    }
    bench_progress(o, "FPR sweep: 4..20 bits/key, %llu keys, %llu absent queries per point",
                   (unsigned long long)SWEEP_KEYS, (unsigned long long)SWEEP_QUERIES);
    bench_stats none = {0, 0, 0, 0};
    for (double bpk = 4; bpk <= 20.01; bpk += 1) {
        bloomsimd_options opt = {.capacity = SWEEP_KEYS, .bits = (uint64_t)(bpk * (double)SWEEP_KEYS),
                                 .kernel = kernel};
        bloomsimd_filter *f = NULL;
        if (bloomsimd_create_with(&f, &opt) != BLOOMSIMD_OK) continue;
        bloomsimd_add_batch_u64(f, keys, SWEEP_KEYS);
        size_t fp = bloomsimd_contains_batch_u64(f, absent, SWEEP_QUERIES, NULL);
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        double real_bpk = (double)info.bits / (double)SWEEP_KEYS;
        bench_result *r = bench_result_add("fpr-sweep", "bloomsimd", "measured", SWEEP_KEYS, 1, none);
        if (r) r->x = real_bpk, r->value = (double)fp / (double)SWEEP_QUERIES, snprintf(r->note, sizeof r->note, "k=%u", info.k);
        r = bench_result_add("fpr-sweep", "bloomsimd", "model", SWEEP_KEYS, 1, none);
        if (r) r->x = real_bpk, r->value = bloomsimd_predicted_fpr(f, SWEEP_KEYS), snprintf(r->note, sizeof r->note, "k=%u", info.k);
        if (bloomsimd_contains_batch_u64(f, keys, SWEEP_KEYS, NULL) != SWEEP_KEYS)
            bench_check_failed("FPR sweep: false negatives at %.1f bits/key", bpk);
        bloomsimd_destroy(f);

        bench_classic c;
        if (bench_classic_init(&c, SWEEP_KEYS, bpk, 0, 0)) {
            bench_classic_add(&c, keys, SWEEP_KEYS);
            uint64_t cfp = bench_classic_contains(&c, absent, SWEEP_QUERIES);
            double cbpk = (double)c.nbits / (double)SWEEP_KEYS;
            r = bench_result_add("fpr-sweep", "classic", "measured", SWEEP_KEYS, 1, none);
            if (r) r->x = cbpk, r->value = (double)cfp / (double)SWEEP_QUERIES, snprintf(r->note, sizeof r->note, "k=%u", c.k);
            r = bench_result_add("fpr-sweep", "classic", "formula", SWEEP_KEYS, 1, none);
            if (r) r->x = cbpk, r->value = bench_classic_formula(cbpk, c.k), snprintf(r->note, sizeof r->note, "k=%u", c.k);
            bench_classic_free(&c);
        }

        bench_sbbf p;
        uint64_t pblocks = (uint64_t)(bpk * (double)SWEEP_KEYS / (8.0 * BENCH_SBBF_BLOCK_BYTES) + 0.5);
        if (bench_sbbf_available(NULL) && bench_sbbf_init(&p, pblocks)) {
            bench_sbbf_add(&p, keys, SWEEP_KEYS);
            uint8_t *out = malloc(o->batch);
            size_t pfp = 0;
            for (size_t i = 0; out && i < SWEEP_QUERIES; i += o->batch) {
                size_t cnt = SWEEP_QUERIES - i < o->batch ? SWEEP_QUERIES - i : o->batch;
                pfp += bench_sbbf_contains(&p, absent + i, cnt, out);
            }
            free(out);
            double pbpk = bench_sbbf_bits_per_key(&p, SWEEP_KEYS), model = bench_sbbf_fpr(SWEEP_KEYS, p.nblocks);
            double sigma = bench_sbbf_fpr_sigma(SWEEP_KEYS, p.nblocks, SWEEP_QUERIES);
            r = bench_result_add("fpr-sweep", "sbbf", "measured", SWEEP_KEYS, 1, none);
            if (r) r->x = pbpk, r->value = (double)pfp / (double)SWEEP_QUERIES, snprintf(r->note, sizeof r->note, "k=8");
            r = bench_result_add("fpr-sweep", "sbbf", "model", SWEEP_KEYS, 1, none);
            if (r) r->x = pbpk, r->value = model, snprintf(r->note, sizeof r->note, "k=8");
            if (fabs((double)pfp / (double)SWEEP_QUERIES - model) > 5 * sigma)
                bench_check_failed("FPR sweep: split-block peer at %.2f bits/key measured %.5f%%, model %.5f%%", pbpk,
                                   100.0 * (double)pfp / (double)SWEEP_QUERIES, 100 * model);
            bench_sbbf_free(&p);
        }
    }
    free(keys);
    free(absent);
}
