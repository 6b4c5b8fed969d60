/*
 * test_clone.c — bloomsimd_clone on plain, scalable and window filters, on
 * every kernel this CPU runs, with and without BLOOMSIMD_CONCURRENT:
 *
 *   - the copy is the same filter (answers, info, serialized bytes, kernel,
 *     flags), then the two diverge independently: inserts into either do not
 *     reach the other, a copied scalable filter grows alone, a copied window
 *     rotates alone;
 *   - a mapped source (read-only or writable) gives a writable heap copy that
 *     outlives the mapping and leaves the file unchanged;
 *   - the copy's bit arrays come from the installed allocator; an allocator
 *     that fails at any layer gives NO_MEMORY, *out NULL, nothing leaked;
 *   - a CONCURRENT source inserted into during the clone: every key inserted
 *     before the clone started is in the copy;
 *   - NULL arguments are INVALID_ARGUMENT.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support_samples.h"

static bloomsimd_info info_of(const bloomsimd_filter *f)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    return info;
}

/* Bitmap of which of n keys of `stream` f reports present. */
static uint8_t *answers(const bloomsimd_filter *f, uint64_t stream, size_t n)
{
    uint64_t *keys = test_keys(n, stream);
    uint8_t *out = malloc(n);
    bloomsimd_contains_batch_u64(f, keys, n, out);
    free(keys);
    return out;
}

static void check_clone_and_divergence(int kind, const char *kernel, uint32_t flags)
{
    char what[96];
    snprintf(what, sizeof what, "%s on %s, flags %u", test_kind_names[kind], kernel, flags);
    bloomsimd_filter *src = test_sample(kind, kernel, flags);
    bloomsimd_filter *copy = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_clone(&copy, src), BLOOMSIMD_OK, "%s", what);
    cr_assert_neq(copy, src);
    test_assert_same_filter(src, copy, what);
    cr_assert_str_eq(info_of(copy).kernel, kernel, "%s", what);
    cr_assert_eq(info_of(copy).flags, info_of(src).flags, "%s", what);
    cr_assert_eq(info_of(copy).flags & flags, flags, "%s", what);

    /* keys into the copy do not reach the source, and back */
    size_t src_len, copy_len;
    uint8_t *src_bytes = test_serialize(src, &src_len);
    uint8_t *before_src = answers(src, 81, 3000);
    uint64_t *to_copy = test_keys(3000, 81), *to_src = test_keys(3000, 82);
    cr_assert_eq(bloomsimd_add_new_batch_u64(copy, to_copy, 3000, NULL, NULL), BLOOMSIMD_OK);
    uint8_t *copy_bytes = test_serialize(copy, &copy_len);
    cr_assert_eq(bloomsimd_contains_batch_u64(copy, to_copy, 3000, NULL), 3000, "%s", what);
    uint8_t *after_src = answers(src, 81, 3000);
    cr_assert(memcmp(before_src, after_src, 3000) == 0, "%s: the copy's inserts reached the source", what);
    size_t len;
    uint8_t *bytes = test_serialize(src, &len);
    cr_assert(len == src_len && memcmp(bytes, src_bytes, len) == 0, "%s: source changed", what);
    free(bytes);
    uint8_t *before_copy = answers(copy, 82, 3000);
    cr_assert_eq(bloomsimd_add_new_batch_u64(src, to_src, 3000, NULL, NULL), BLOOMSIMD_OK);
    uint8_t *after_copy = answers(copy, 82, 3000);
    cr_assert(memcmp(before_copy, after_copy, 3000) == 0, "%s: the source's inserts reached the copy", what);
    bytes = test_serialize(copy, &len);
    cr_assert(len == copy_len && memcmp(bytes, copy_bytes, len) == 0, "%s: copy changed", what);
    free(bytes);
    if (kind == 1) /* both grew past the sample's 4 layers, each on its own */
        cr_assert(info_of(copy).layers > 4 && info_of(src).layers > 4, "%s", what);
    if (kind == 2) {
        uint64_t rotations = info_of(src).rotations;
        cr_assert_eq(bloomsimd_rotate(copy), BLOOMSIMD_OK);
        cr_assert_eq(info_of(src).rotations, rotations);
        cr_assert_eq(info_of(copy).rotations, rotations + 1);
    }
    free(src_bytes);
    free(copy_bytes);
    free(before_src);
    free(before_copy);
    free(after_src);
    free(after_copy);
    free(to_copy);
    free(to_src);
    bloomsimd_destroy(src);
    /* the copy owns its memory: usable after the source is gone */
    uint64_t *keys = test_keys(TEST_SAMPLE_KEYS, TEST_SAMPLE_STREAM);
    if (kind != 2) /* a window's oldest samples have rotated out */
        cr_assert_eq(bloomsimd_contains_batch_u64(copy, keys, TEST_SAMPLE_KEYS, NULL), TEST_SAMPLE_KEYS, "%s", what);
    free(keys);
    bloomsimd_destroy(copy);
}

Test(clone, same_filter_then_independent_on_every_kernel_and_kind)
{
    size_t runs = 0;
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *kernel = bloomsimd_kernel_name(i);
        if (!bloomsimd_kernel_supported(kernel)) continue;
        for (int kind = 0; kind < TEST_KINDS; kind++) {
            check_clone_and_divergence(kind, kernel, 0);
            check_clone_and_divergence(kind, kernel, BLOOMSIMD_CONCURRENT);
            check_clone_and_divergence(kind, kernel, BLOOMSIMD_NO_HUGEPAGES);
            runs++;
        }
    }
    cr_assert_geq(runs, TEST_KINDS);
}

Test(clone, mapped_source_gives_a_writable_heap_copy)
{
    for (int kind = 0; kind < TEST_KINDS; kind++)
        for (int writable = 0; writable < 2; writable++) {
            bloomsimd_filter *sample = test_sample(kind, NULL, 0);
            char *path = strdup("/tmp/bloomsimd-clone-XXXXXX");
            int fd = mkstemp(path);
            cr_assert_geq(fd, 0);
            close(fd);
            cr_assert_eq(bloomsimd_save(sample, path), BLOOMSIMD_OK);
            size_t file_len;
            uint8_t *file = test_read_file(path, &file_len);
            bloomsimd_filter *mapped = NULL, *copy = NULL;
            cr_assert_eq(bloomsimd_map(&mapped, path, writable ? BLOOMSIMD_MAP_WRITABLE : BLOOMSIMD_MAP_READ_ONLY),
                         BLOOMSIMD_OK);
            cr_assert_eq(bloomsimd_clone(&copy, mapped), BLOOMSIMD_OK);
            test_assert_same_answers(mapped, copy, test_kind_names[kind]);
            bloomsimd_destroy(mapped);
            /* writable, not tied to the file, and it grows (scalable) */
            uint64_t *keys = test_keys(5000, 83);
            cr_assert_eq(bloomsimd_add_new_batch_u64(copy, keys, 5000, NULL, NULL), BLOOMSIMD_OK);
            cr_assert_eq(bloomsimd_contains_batch_u64(copy, keys, 5000, NULL), 5000);
            if (kind == 1) cr_assert_gt(info_of(copy).layers, 4);
            if (kind == 2) cr_assert_eq(bloomsimd_rotate(copy), BLOOMSIMD_OK);
            test_assert_same_answers(sample, sample, "control");
            size_t now_len;
            uint8_t *now = test_read_file(path, &now_len);
            cr_assert(now_len == file_len && memcmp(now + 4096, file + 4096, file_len - 4096) == 0,
                      "%s: the file's payload changed", test_kind_names[kind]);
            free(now);
            free(file);
            free(keys);
            bloomsimd_destroy(copy);
            bloomsimd_destroy(sample);
            unlink(path);
            free(path);
        }
}

typedef struct ledger {
    size_t allocs, frees, live_bytes, fail_at; /* fail_at: the allocation number to fail (1-based), 0: never */
} ledger;

static void *ledger_alloc(size_t bytes, void *user)
{
    ledger *l = user;
    if (l->fail_at && l->allocs + 1 == l->fail_at) return NULL;
    void *p = calloc(1, bytes);
    if (p) l->allocs++, l->live_bytes += bytes;
    return p;
}

static void ledger_free(void *p, size_t bytes, void *user)
{
    ledger *l = user;
    l->frees++, l->live_bytes -= bytes;
    free(p);
}

Test(clone, arrays_from_the_allocator_and_no_leak_on_failure)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *src = test_sample(kind, NULL, 0);
        uint32_t layers = info_of(src).layers;
        ledger l = {0};
        bloomsimd_allocator a = {ledger_alloc, ledger_free, &l};
        bloomsimd_set_allocator(&a);
        bloomsimd_filter *copy = NULL;
        cr_assert_eq(bloomsimd_clone(&copy, src), BLOOMSIMD_OK);
        cr_assert_eq(l.allocs, layers, "%s: one array per layer", test_kind_names[kind]);
        cr_assert_eq(l.live_bytes, info_of(src).memory_bytes + 63u * layers);
        test_assert_same_filter(src, copy, test_kind_names[kind]);
        bloomsimd_destroy(copy);
        cr_assert_eq(l.live_bytes, 0);
        for (size_t fail = 1; fail <= layers; fail++) {
            l = (ledger){.fail_at = fail};
            copy = (bloomsimd_filter *)(uintptr_t)1;
            cr_assert_eq(bloomsimd_clone(&copy, src), BLOOMSIMD_ERR_NO_MEMORY, "%s, layer %zu", test_kind_names[kind],
                         fail);
            cr_assert_null(copy);
            cr_assert_eq(l.live_bytes, 0, "%s: leaked", test_kind_names[kind]);
            cr_assert_eq(l.allocs, l.frees);
        }
        bloomsimd_set_allocator(NULL);
        bloomsimd_destroy(src);
    }
}

typedef struct {
    bloomsimd_filter *f;
    volatile int stop;
} writer_arg;

static void *keep_inserting(void *arg)
{
    writer_arg *w = arg;
    uint64_t *keys = test_keys(200000, 84);
    for (size_t i = 0; !w->stop; i = (i + 1000) % 200000) bloomsimd_add_new_batch_u64(w->f, keys + i, 1000, NULL, NULL);
    free(keys);
    return NULL;
}

Test(clone, concurrent_source_written_during_the_clone)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *src = test_sample(kind, NULL, BLOOMSIMD_CONCURRENT);
        uint64_t *before = test_keys(2000, 85);
        cr_assert_eq(bloomsimd_add_batch_u64(src, before, 2000), BLOOMSIMD_OK);
        writer_arg w = {src, 0};
        pthread_t t;
        pthread_create(&t, NULL, keep_inserting, &w);
        for (int round = 0; round < 20; round++) {
            bloomsimd_filter *copy = NULL;
            cr_assert_eq(bloomsimd_clone(&copy, src), BLOOMSIMD_OK);
            cr_assert_eq(bloomsimd_contains_batch_u64(copy, before, 2000, NULL), 2000, "%s round %d",
                         test_kind_names[kind], round);
            /* a self-consistent filter: it serializes and reads back */
            size_t len;
            uint8_t *buf = test_serialize(copy, &len);
            bloomsimd_filter *back = NULL;
            cr_assert_eq(bloomsimd_deserialize(&back, buf, len), BLOOMSIMD_OK);
            bloomsimd_destroy(back);
            free(buf);
            bloomsimd_destroy(copy);
        }
        w.stop = 1;
        pthread_join(t, NULL);
        free(before);
        bloomsimd_destroy(src);
    }
}

Test(clone, null_arguments)
{
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_clone(&f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(f);
    bloomsimd_options o = {.capacity = 10};
    bloomsimd_filter *src = test_filter(&o);
    cr_assert_eq(bloomsimd_clone(NULL, src), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_destroy(src);
}
