/*
 * growing.c — a scalable filter: created for 10^4 keys, fed 10^7, it adds
 * layers (growth 2, each with a tighter FPR) and keeps its false-positive
 * rate below the target throughout. Prints the layers, memory and the FPR
 * measured over 2^20 absent keys each time a layer has filled (just before
 * the next grow) and at the end.
 *
 *   build/bloomsimd-example-growing [final keys] [fpr] [tightening]
 */
#include <bloomsimd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h" /* 1e6, 10^6, 1%: numbers read as bloomsimd-bench reads them */

#define BATCH 65536

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
    uint64_t total = 10000000;
    double fpr = 0.01;
    double tightening = 0.0; /* 0: the default, the budget schedule */
    const char *usage = "bloomsimd-example-growing [keys, e.g. 1e7] [fpr, e.g. 1%] [tightening, 0 or in (0, 1)]";
    if (argc > 4) return example_refuse("growing", "arguments", argv[4], "at most 3", usage);
    if (argc > 1 && !example_count(argv[1], 1, 10000000000u, &total))
        return example_refuse("growing", "keys", argv[1], "1 .. 1e10 (10000000, 1e7 or 10^7)", usage);
    if (argc > 2 && !example_rate(argv[2], 1e-10, 1.0, &fpr))
        return example_refuse("growing", "fpr", argv[2], "1e-10 <= fpr < 1 (0.01, 1e-2 or 1%)", usage);
    if (argc > 3 && !example_rate(argv[3], 0.0, 1.0, &tightening))
        return example_refuse("growing", "tightening", argv[3], "0 (the default, the budget schedule) or 0 < r < 1", usage);
    bloomsimd_options o = {.capacity = 10000, .fpr = fpr, .growth = 2, .tightening = tightening};
    bloomsimd_filter *f;
    bloomsimd_status st = bloomsimd_create_with(&f, &o);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "growing: %s\n", bloomsimd_status_string(st));
        return 1;
    }
    uint64_t *keys = malloc(BATCH * sizeof *keys);
    if (!keys) return 1;
    printf("%12s %7s %10s %9s %9s %9s\n", "keys", "layers", "MiB", "bits/key", "FPR", "model");
    /* every layer full: 10^4 (2^L - 1) keys (a few more new keys are needed
     * in fact: add_new does not count a key a false positive hid) */
    uint64_t inserted = 0, report = 10000, layer = 10000;
    while (inserted < total) {
        size_t n = total - inserted < BATCH ? (size_t)(total - inserted) : BATCH;
        if (inserted + n > report) n = (size_t)(report - inserted);
        for (size_t i = 0; i < n; i++) keys[i] = mix(inserted + i);
        st = bloomsimd_add_new_batch_u64(f, keys, n, NULL, NULL); /* counts the new keys; grows as needed */
        if (st != BLOOMSIMD_OK) {
            fprintf(stderr, "growing: %s after %" PRIu64 " keys\n", bloomsimd_status_string(st), inserted);
            return 1;
        }
        inserted += n;
        if (inserted == report || inserted == total) {
            size_t false_pos = 0, asked = 0;
            for (int round = 0; round < 16; round++) {
                for (size_t i = 0; i < BATCH; i++) keys[i] = mix((UINT64_C(1) << 60) + asked + i); /* never inserted */
                false_pos += bloomsimd_contains_batch_u64(f, keys, BATCH, NULL);
                asked += BATCH;
            }
            bloomsimd_info info;
            bloomsimd_get_info(f, &info);
            printf("%12" PRIu64 " %7u %10.2f %9.2f %8.4f%% %8.4f%%\n", inserted, info.layers,
                   (double)info.memory_bytes / (1 << 20), (double)info.bits / (double)inserted,
                   100.0 * (double)false_pos / (double)asked, 100.0 * bloomsimd_predicted_fpr(f, info.items));
            layer *= 2;
            report += layer;
        }
    }
    free(keys);
    bloomsimd_destroy(f);
    return 0;
}
