/*
 * reference.c — the C answers the Java tests compare against, computed with
 * the library's own calls (public header only):
 *
 *   reference build FILE CAPACITY FPR SEED K LAYOUT KERNEL N MODE
 *       a filter (bloomsimd_create_with) holding keys 0..N-1, saved to FILE.
 *       MODE batch: u64 key i = (i + 1) * 0x9E3779B97F4A7C15, bloomsimd_add_batch_u64
 *            new:   the same keys, bloomsimd_add_new_u64 one by one
 *            bytes: UTF-8 key i = "key-<i>", bloomsimd_add_new one by one
 *       KERNEL "-" is the default; LAYOUT 0, 2 or 3.
 *   reference query FILE N
 *       loads FILE and prints N characters, '1' where u64 probe key
 *       i = (i + 1) * 0xC2B2AE3D27D4EB4F may be present, else '0'.
 *
 * Exit status 0, or 1 with the status and detail on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomsimd.h"

static int fail(const char *what, bloomsimd_status s)
{
    fprintf(stderr, "reference: %s: %s: %s\n", what, bloomsimd_status_string(s), bloomsimd_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 11 && strcmp(argv[1], "build") == 0) {
        bloomsimd_options o;
        memset(&o, 0, sizeof o);
        o.capacity = strtoull(argv[3], NULL, 10);
        o.fpr = strtod(argv[4], NULL);
        o.seed = strtoull(argv[5], NULL, 10);
        o.k = (uint32_t)strtoul(argv[6], NULL, 10);
        o.layout = (uint32_t)strtoul(argv[7], NULL, 10);
        o.kernel = strcmp(argv[8], "-") == 0 ? NULL : argv[8];
        uint64_t n = strtoull(argv[9], NULL, 10);
        const char *mode = argv[10];
        bloomsimd_filter *f;
        bloomsimd_status s = bloomsimd_create_with(&f, &o);
        if (s) return fail("create", s);
        for (uint64_t i = 0; i < n && s == BLOOMSIMD_OK; i++) {
            uint64_t key = (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
            if (strcmp(mode, "batch") == 0) {
                s = bloomsimd_add_batch_u64(f, &key, 1);
            } else if (strcmp(mode, "new") == 0) {
                s = bloomsimd_add_new_u64(f, key, NULL);
            } else {
                char buf[32];
                int len = snprintf(buf, sizeof buf, "key-%" PRIu64, i);
                s = bloomsimd_add_new(f, buf, (size_t)len, NULL);
            }
        }
        if (s) return fail("insert", s);
        s = bloomsimd_save(f, argv[2]);
        bloomsimd_destroy(f);
        return s ? fail("save", s) : 0;
    }
    if (argc == 4 && strcmp(argv[1], "query") == 0) {
        bloomsimd_filter *f;
        bloomsimd_status s = bloomsimd_load(&f, argv[2]);
        if (s) return fail("load", s);
        uint64_t n = strtoull(argv[3], NULL, 10);
        for (uint64_t i = 0; i < n; i++)
            putchar(bloomsimd_contains_u64(f, (i + 1) * UINT64_C(0xC2B2AE3D27D4EB4F)) ? '1' : '0');
        putchar('\n');
        bloomsimd_destroy(f);
        return 0;
    }
    fprintf(stderr, "usage: reference build FILE CAPACITY FPR SEED K LAYOUT KERNEL N MODE | query FILE N\n");
    return 2;
}
