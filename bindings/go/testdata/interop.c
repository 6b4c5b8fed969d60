/*
 * interop.c — the C side of interop_test.go: a separate process, linked
 * against libbloomsimd alone, that writes a filter file for Go to read and
 * checks a file Go wrote.
 *
 *   interop write PATH N SEED   N u64 keys (single-key C calls) and N byte keys "key-<i>"
 *   interop check PATH N SEED   load and map PATH; every key must be present; prints "ok"
 *
 * Keys: mix64(7 << 40 | i), as keyOf(7, i) in helpers_test.go. Exit 0 on success.
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int check(bloomsimd_filter *f, uint64_t n, uint64_t seed, const char *how)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    if (info.seed != seed) {
        fprintf(stderr, "%s: seed %llu, want %llu\n", how, (unsigned long long)info.seed, (unsigned long long)seed);
        return 1;
    }
    for (uint64_t i = 0; i < n; i++) {
        char key[32];
        int len = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
        if (!bloomsimd_contains_u64(f, mix64((UINT64_C(7) << 40) | i)) || !bloomsimd_contains(f, key, (size_t)len)) {
            fprintf(stderr, "%s: key %llu missing\n", how, (unsigned long long)i);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    const char *path = argv[2];
    uint64_t n = strtoull(argv[3], NULL, 10), seed = strtoull(argv[4], NULL, 10);
    bloomsimd_filter *f;
    bloomsimd_status st;
    if (!strcmp(argv[1], "write")) {
        bloomsimd_options o = {.capacity = 2 * n, .fpr = 0.01, .seed = seed};
        if ((st = bloomsimd_create_with(&f, &o)) != BLOOMSIMD_OK) goto fail;
        for (uint64_t i = 0; i < n; i++) {
            char key[32];
            int len = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
            bloomsimd_add_u64(f, mix64((UINT64_C(7) << 40) | i));
            bloomsimd_add(f, key, (size_t)len);
        }
        if ((st = bloomsimd_save(f, path)) != BLOOMSIMD_OK) goto fail;
        bloomsimd_destroy(f);
        return 0;
    }
    if (!strcmp(argv[1], "check")) {
        if ((st = bloomsimd_load(&f, path)) != BLOOMSIMD_OK) goto fail;
        int bad = check(f, n, seed, "load");
        bloomsimd_destroy(f);
        if ((st = bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY)) != BLOOMSIMD_OK) goto fail;
        bad |= check(f, n, seed, "map");
        bloomsimd_destroy(f);
        if (!bad) puts("ok");
        return bad;
    }
    return 2;
fail:
    fprintf(stderr, "interop %s: %s\n", argv[1], bloomsimd_status_string(st));
    return 1;
}
