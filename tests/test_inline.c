/*
 * test_inline.c — the header's inline single-key calls (include/bloomsimd.h,
 * "Single keys, inlined") against the library's exported ones, bit for bit:
 * every layout, both 64-bit-key hashes, every k of block512, plain and
 * concurrent, heap and mapped; and the fallbacks: layered, Parquet and
 * read-only filters, NULL, and a filter whose view names a version or a
 * probe this header does not know (what a program built against an older
 * header sees from a newer library).
 *
 * Built three times (tests/CMakeLists.txt): with the suites' baseline flags
 * (no inline probe: the exported calls, which the same assertions hold for),
 * with -mavx2 and with -mavx512f (the inline probes); the last two skip on
 * CPUs without them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h" /* public API only: the -m builds may not include the library's internals */

/* The view every filter starts with (include/bloomsimd.h), writable for the fallback test. */
static bloomsimd_inline *view_of(bloomsimd_filter *f) { return (bloomsimd_inline *)(void *)f; }

/* The filter's bytes as saved: equal files mean equal bit arrays. */
static uint8_t *saved(const bloomsimd_filter *f, size_t *len)
{
    *len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(*len);
    size_t written;
    cr_assert_eq(bloomsimd_serialize(f, buf, *len, &written), BLOOMSIMD_OK);
    return buf;
}

#if defined(BLOOMSIMD_TEST_INLINE_ISA)
/* The -mavx2 / -mavx512f builds: skipped (exit 77, as the suites skip a kernel)
 * where the CPU lacks the instructions they were compiled for. */
__attribute__((constructor)) static void skip_without_the_isa(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports(BLOOMSIMD_TEST_INLINE_ISA)) {
        printf("SKIP: this CPU has no %s\n", BLOOMSIMD_TEST_INLINE_ISA);
        exit(77);
    }
}
#endif

/* A copy of f's options and hash, made empty on the same kernel. */
static bloomsimd_filter *twin(uint32_t layout, uint32_t k, uint32_t flags, uint64_t n)
{
    bloomsimd_options o = {.capacity = n, .fpr = 0.01, .k = k, .layout = layout, .flags = flags, .seed = 77 + k};
    return test_filter(&o);
}

static void agree(uint32_t layout, uint32_t k, uint32_t flags)
{
    const size_t n = 3000, q = 20000;
    uint64_t *keys = test_keys(n, 401 + k), *absent = test_keys(q, 499);
    bloomsimd_filter *in = twin(layout, k, flags, n), *out = twin(layout, k, flags, n);
    cr_assert_eq(view_of(in)->probe == BLOOMSIMD_INLINE_LIBRARY, (flags & BLOOMSIMD_CONCURRENT) != 0,
                 "inline probes exactly on plain, not concurrent, filters");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(bloomsimd_add_u64(in, keys[i]), BLOOMSIMD_OK);       /* the header's inline add */
        cr_assert_eq((bloomsimd_add_u64)(out, keys[i]), BLOOMSIMD_OK);    /* the library's */
    }
    size_t len_in, len_out;
    uint8_t *a = saved(in, &len_in), *b = saved(out, &len_out);
    cr_assert(len_in == len_out && memcmp(a, b, len_in) == 0,
              "inline adds set other bytes than the library (layout %u k %u flags %x)", layout, k, flags);
    free(a), free(b);
    for (size_t i = 0; i < n; i++) cr_assert(bloomsimd_contains_u64(in, keys[i]), "false negative at %zu", i);
    size_t hits = 0;
    for (size_t i = 0; i < q; i++) {
        bool inline_hit = bloomsimd_contains_u64(in, absent[i]);
        cr_assert_eq(inline_hit, (bloomsimd_contains_u64)(in, absent[i]), "answer %zu differs (layout %u k %u flags %x)",
                     i, layout, k, flags);
        hits += inline_hit;
    }
    cr_assert_lt(hits, q / 20, "FPR %zu of %zu at 1%% (layout %u k %u flags %x)", hits, q, layout, k, flags);
    free(keys), free(absent);
    bloomsimd_destroy(in), bloomsimd_destroy(out);
}

Test(inline_calls, answer_and_set_as_the_library)
{
    static const uint32_t hashes[2] = {BLOOMSIMD_U64_XXH3, BLOOMSIMD_U64_MUM};
    for (int h = 0; h < 2; h++)
        for (uint32_t c = 0; c < 2; c++) {
            uint32_t flags = hashes[h] | (c ? BLOOMSIMD_CONCURRENT : 0);
            agree(BLOOMSIMD_LAYOUT_SPLIT256, 0, flags);
            for (uint32_t k = 1; k <= 16; k++) agree(BLOOMSIMD_LAYOUT_BLOCK512, k, flags);
        }
}

Test(inline_calls, mapped_files_probe_inline_and_refuse_writes_read_only)
{
    char dir[] = "/tmp/bloomsimd-inline-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/f.bsf", dir);
    uint64_t *keys = test_keys(1000, 411);
    bloomsimd_filter *f = twin(0, 0, 0, 1000);
    for (size_t i = 0; i < 1000; i++) bloomsimd_add_u64(f, keys[i]);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *ro = NULL, *rw = NULL;
    cr_assert_eq(bloomsimd_map(&ro, path, 0), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    cr_assert_eq(view_of(ro)->write, BLOOMSIMD_INLINE_LIBRARY);
    cr_assert_neq(view_of(ro)->probe, BLOOMSIMD_INLINE_LIBRARY, "a read-only mapping is still probed in place");
    for (size_t i = 0; i < 1000; i++) cr_assert(bloomsimd_contains_u64(ro, keys[i]));
    cr_assert_eq(bloomsimd_add_u64(ro, 12345), BLOOMSIMD_ERR_READ_ONLY, "an inline add wrote a read-only mapping");
    cr_assert_eq(bloomsimd_map(&rw, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    cr_assert_eq(bloomsimd_add_u64(rw, 12345), BLOOMSIMD_OK);
    cr_assert(bloomsimd_contains_u64(rw, 12345));
    bloomsimd_destroy(ro), bloomsimd_destroy(rw), bloomsimd_destroy(f);
    unlink(path);
    rmdir(dir);
    free(keys);
}

Test(inline_calls, layered_and_parquet_filters_call_the_library)
{
    bloomsimd_options grow = {.capacity = 100, .fpr = 0.01, .growth = 2};
    bloomsimd_options win = {.capacity = 1000, .fpr = 0.01, .generations = 3};
    bloomsimd_options pq = {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_options *opts[3] = {&grow, &win, &pq};
    uint64_t *keys = test_keys(2000, 421);
    for (int i = 0; i < 3; i++) {
        bloomsimd_filter *f = test_filter(opts[i]);
        cr_assert_eq(view_of(f)->probe, BLOOMSIMD_INLINE_LIBRARY, "filter %d", i);
        for (size_t j = 0; j < 2000; j++) cr_assert_eq(bloomsimd_add_u64(f, keys[j]), BLOOMSIMD_OK);
        for (size_t j = 0; j < 2000; j++) cr_assert(bloomsimd_contains_u64(f, keys[j]), "filter %d key %zu", i, j);
        bloomsimd_destroy(f);
    }
    free(keys);
    cr_assert_not(bloomsimd_contains_u64(NULL, 1));
    cr_assert_eq(bloomsimd_add_u64(NULL, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(inline_calls, an_unknown_version_or_probe_falls_back_to_the_library)
{
    /* what this header's code sees from a newer or an older library: it must not probe */
    uint64_t *keys = test_keys(500, 431);
    for (int variant = 0; variant < 3; variant++) {
        bloomsimd_filter *f = twin(0, 0, 0, 500);
        bloomsimd_inline *v = view_of(f);
        if (variant == 0) { /* a newer version's tags: the same shape, version + 1 */
            v->probe = v->write = v->probe + (1u << 16);
        } else if (variant == 1) { /* this version, a shape it does not know */
            v->probe = v->write = BLOOMSIMD_INLINE_BLOCK512_MUM + 1;
        } else { /* version 1's view (version 1, then probe 1: split256 with XXH3), an older library's */
            v->probe = 1;
            v->write = 1;
        }
        /* poison what a misreading probe would use: a fallback never touches it */
        v->words = NULL;
        v->nblocks = 0;
        for (size_t i = 0; i < 500; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK);
        for (size_t i = 0; i < 500; i++) cr_assert(bloomsimd_contains_u64(f, keys[i]));
        cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 500, NULL), 500u);
        bloomsimd_destroy(f);
    }
    free(keys);
}
