/*
 * quickstart.c — build a filter, insert a batch, query a batch, print what happened.
 * The README's short example, runnable: build/bloomsimd-example [keys] [fpr]
 */
#include <bloomsimd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h" /* 1e6, 10^6, 1%: numbers read as bloomsimd-bench reads them */

#define USAGE "bloomsimd-example [keys: 1 .. 1e10, e.g. 1e6] [fpr: 1e-10 .. <1, e.g. 0.01 or 1%]"

int main(int argc, char **argv)
{
    uint64_t n = 1000000;
    double fpr = 0.01;
    if (argc > 3) {
        fprintf(stderr, "usage: %s\n", USAGE);
        return 2;
    }
    if (argc > 1 && !example_count(argv[1], 1, 10000000000u, &n))
        return example_refuse("bloomsimd-example", "keys", argv[1], "1 .. 1e10 (1000000, 1e6 or 10^6)", USAGE);
    if (argc > 2 && !example_rate(argv[2], 1e-10, 1.0, &fpr))
        return example_refuse("bloomsimd-example", "fpr", argv[2], "1e-10 <= fpr < 1 (0.01, 1e-2 or 1%)", USAGE);

    bloomsimd_filter *filter;
    bloomsimd_status st = bloomsimd_create(&filter, n, fpr);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "bloomsimd_create: %s\n", bloomsimd_status_string(st));
        return 1;
    }
    uint64_t *keys = malloc(2 * n * sizeof *keys);
    uint8_t *found = malloc(n);
    if (!keys || !found) return 1;
    for (uint64_t i = 0; i < 2 * n; i++) keys[i] = i * UINT64_C(0x9E3779B97F4A7C15) + 12345;

    st = bloomsimd_add_batch_u64(filter, keys, n); /* insert the first n keys */
    if (st != BLOOMSIMD_OK) return 1;
    size_t present = bloomsimd_contains_batch_u64(filter, keys, n, found);      /* all must be found */
    size_t false_pos = bloomsimd_contains_batch_u64(filter, keys + n, n, NULL); /* never inserted */

    bloomsimd_info info;
    bloomsimd_get_info(filter, &info);
    printf("libbloomsimd %s, kernel %s (default on this CPU: %s)\n", bloomsimd_version_string(), info.kernel,
           bloomsimd_default_kernel());
    printf("filter: %" PRIu64 " keys at target FPR %g -> %" PRIu64 " blocks, %.2f bits/key, k=%u, %.1f MiB\n", n,
           fpr, info.blocks, (double)info.bits / (double)n, info.k, (double)info.memory_bytes / 1048576.0);
    printf("inserted %" PRIu64 " keys; found %zu of them (false negatives: %" PRIu64 ")\n", n, present,
           n - (uint64_t)present);
    printf("queried %" PRIu64 " absent keys: %zu false positives, measured FPR %.4f%% (model %.4f%%)\n", n,
           false_pos, 100.0 * (double)false_pos / (double)n, 100.0 * bloomsimd_predicted_fpr(filter, n));
    bloomsimd_destroy(filter);
    free(keys);
    free(found);
    return present == n ? 0 : 1;
}
