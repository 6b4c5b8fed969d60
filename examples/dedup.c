/*
 * dedup.c — print each line of stdin the first time it appears, like
 * `awk '!seen[$0]++'` but in bounded memory: a Bloom filter answers "was it
 * new?" for a whole batch of lines in one pass (bloomsimd_add_new_batch).
 * A line that is a false positive is dropped; the rate is at most the FPR
 * while the input has at most `capacity` distinct lines.
 *
 *   build/bloomsimd-example-dedup [capacity] [fpr] < input > output
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h" /* 1e6, 10^6, 1%: numbers read as bloomsimd-bench reads them */

#define BATCH 4096

int main(int argc, char **argv)
{
    uint64_t capacity = 10000000;
    double fpr = 0.001;
    const char *usage = "bloomsimd-example-dedup [capacity, e.g. 1e7] [fpr, e.g. 0.001 or 0.1%] < in > out";
    if (argc > 3) return example_refuse("dedup", "arguments", argv[3], "at most 2", usage);
    if (argc > 1 && !example_count(argv[1], 1, 10000000000u, &capacity))
        return example_refuse("dedup", "capacity", argv[1], "1 .. 1e10 keys (10000000, 1e7 or 10^7)", usage);
    if (argc > 2 && !example_rate(argv[2], 1e-10, 1.0, &fpr))
        return example_refuse("dedup", "fpr", argv[2], "1e-10 <= fpr < 1 (0.001, 1e-3 or 0.1%)", usage);
    bloomsimd_filter *seen;
    bloomsimd_status st = bloomsimd_create(&seen, capacity, fpr);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "dedup: %s\n", bloomsimd_status_string(st));
        return 2;
    }
    char *lines[BATCH] = {0};
    size_t caps[BATCH] = {0}, lens[BATCH];
    uint8_t fresh[BATCH];
    size_t total = 0, unique = 0;
    for (;;) {
        size_t n = 0;
        ssize_t len;
        while (n < BATCH && (len = getline(&lines[n], &caps[n], stdin)) >= 0) {
            lens[n] = (size_t)len;
            if (len > 0 && lines[n][len - 1] == '\n') lens[n]--; /* the key is the line without its newline */
            n++;
        }
        if (n == 0) break;
        size_t new_count;
        st = bloomsimd_add_new_batch(seen, (const void *const *)lines, lens, n, fresh, &new_count);
        if (st != BLOOMSIMD_OK) {
            fprintf(stderr, "dedup: %s\n", bloomsimd_status_string(st));
            return 2;
        }
        for (size_t i = 0; i < n; i++)
            if (fresh[i]) fwrite(lines[i], 1, lens[i], stdout), fputc('\n', stdout);
        total += n;
        unique += new_count;
        if (n < BATCH) break;
    }
    fprintf(stderr, "dedup: %zu lines, %zu printed\n", total, unique);
    for (size_t i = 0; i < BATCH; i++) free(lines[i]);
    bloomsimd_destroy(seen);
    return 0;
}
