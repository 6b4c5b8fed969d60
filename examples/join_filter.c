/*
 * join_filter.c — the probe side of a hash join, pre-filtered: a filter built
 * from the build side's join keys returns the positions of the probe rows
 * that may have a match (a selection vector), and only those rows go on to
 * the hash table. Rows the filter drops certainly have no match.
 *
 *   build/bloomsimd-example-join [build rows] [probe rows] [match %]
 */
#include <bloomsimd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h" /* 1e6, 10^6, 1%: numbers read as bloomsimd-bench reads them */

#define VECTOR 2048 /* rows per probe vector, as a vectorised engine would pass them */

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
    uint64_t build_rows = 1000000, probe_rows = 10000000, match_pct = 5;
    const char *usage = "bloomsimd-example-join [build rows, e.g. 1e6] [probe rows, e.g. 1e7] [match %, e.g. 5]";
    if (argc > 4) return example_refuse("join", "arguments", argv[4], "at most 3", usage);
    if (argc > 1 && !example_count(argv[1], 1, 1000000000u, &build_rows))
        return example_refuse("join", "build rows", argv[1], "1 .. 1e9 (1000000, 1e6 or 10^6)", usage);
    if (argc > 2 && !example_count(argv[2], 1, 10000000000u, &probe_rows))
        return example_refuse("join", "probe rows", argv[2], "1 .. 1e10 (10000000, 1e7 or 10^7)", usage);
    if (argc > 3 && !example_count(argv[3], 0, 100, &match_pct))
        return example_refuse("join", "match %", argv[3], "a whole percentage, 0 .. 100", usage);

    bloomsimd_filter *keys;
    bloomsimd_status st = bloomsimd_create(&keys, build_rows, 0.01);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "join: %s\n", bloomsimd_status_string(st));
        return 1;
    }
    uint64_t *build = malloc(build_rows * sizeof *build);
    uint64_t *probe = malloc(VECTOR * sizeof *probe);
    uint32_t *selection = malloc(VECTOR * sizeof *selection);
    if (!build || !probe || !selection) return 1;
    for (uint64_t i = 0; i < build_rows; i++) build[i] = mix(i);
    bloomsimd_add_batch_u64(keys, build, build_rows);

    uint64_t passed = 0, true_matches = 0;
    for (uint64_t base = 0; base < probe_rows; base += VECTOR) {
        size_t n = probe_rows - base < VECTOR ? (size_t)(probe_rows - base) : VECTOR;
        for (size_t i = 0; i < n; i++) {
            uint64_t row = base + i;
            bool match = mix(row + 77) % 100 < match_pct;
            probe[i] = match ? mix(mix(row) % build_rows) : mix(build_rows + row); /* a build key, or not */
            true_matches += match;
        }
        size_t selected = bloomsimd_select_batch_u64(keys, probe, n, selection);
        /* A real engine now probes its hash table with probe[selection[0..selected)]. */
        passed += selected;
    }
    printf("probe rows %" PRIu64 ", passed the filter %" PRIu64 " (true matches %" PRIu64 ", %.2f%% of the others "
           "were false positives)\n",
           probe_rows, passed, true_matches,
           probe_rows > true_matches ? 100.0 * (double)(passed - true_matches) / (double)(probe_rows - true_matches)
                                     : 0.0);
    free(build);
    free(probe);
    free(selection);
    bloomsimd_destroy(keys);
    return 0;
}
