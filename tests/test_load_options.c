/*
 * test_load_options.c — bloomsimd_deserialize_with / _load_with / _map_with:
 * the kernel a restored filter runs and the flags it gets, for plain,
 * scalable and window filters.
 *
 *   - every kernel this CPU runs can be asked for; the restored filter
 *     reports it and answers exactly as the filter that was saved (written
 *     on another kernel), with the same bytes;
 *   - the calls without options, and options with kernel NULL, pick
 *     bloomsimd_default_kernel() (this run's BLOOMSIMD_KERNEL), not the
 *     writer's kernel;
 *   - an unknown or unrunnable kernel gives create_with's status, checked
 *     before the input is read; unknown flags, or map flags outside a map,
 *     are INVALID_ARGUMENT; *out is NULL after every failure;
 *   - added CONCURRENT lets two threads insert into a loaded filter and a
 *     writable mapping; map flags still work through map_with.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support_samples.h"

static char *saved_file(const bloomsimd_filter *f)
{
    char *path = strdup("/tmp/bloomsimd-loadopt-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    return path;
}

/* The kernel the sample is written on: another than this run's when there is one. */
static const char *writer_kernel(void)
{
    for (size_t i = 0; bloomsimd_kernel_name(i); i++)
        if (bloomsimd_kernel_supported(bloomsimd_kernel_name(i)) && strcmp(bloomsimd_kernel_name(i), test_kernel()))
            return bloomsimd_kernel_name(i);
    return test_kernel();
}

enum { VIA_DESERIALIZE, VIA_LOAD, VIA_MAP, VIA_MAP_WRITABLE, VIAS };
static const char *const via_names[VIAS] = {"deserialize_with", "load_with", "map_with", "map_with writable"};

static bloomsimd_status restore(int via, const uint8_t *buf, size_t len, const char *path,
                                const bloomsimd_load_options *o, bloomsimd_filter **out)
{
    bloomsimd_load_options copy = o ? *o : (bloomsimd_load_options){0};
    switch (via) {
    case VIA_DESERIALIZE: return bloomsimd_deserialize_with(out, buf, len, o);
    case VIA_LOAD: return bloomsimd_load_with(out, path, o);
    case VIA_MAP: return bloomsimd_map_with(out, path, o);
    default: copy.map_flags |= BLOOMSIMD_MAP_WRITABLE; return bloomsimd_map_with(out, path, &copy);
    }
}

Test(load_options, every_runnable_kernel_on_every_kind_and_path)
{
    size_t checked = 0;
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *src = test_sample(kind, writer_kernel(), 0);
        size_t len;
        uint8_t *buf = test_serialize(src, &len);
        char *path = saved_file(src);
        for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
            const char *name = bloomsimd_kernel_name(i);
            if (!bloomsimd_kernel_supported(name)) continue;
            for (int via = 0; via < VIAS; via++) {
                char what[128];
                snprintf(what, sizeof what, "%s %s on %s", test_kind_names[kind], via_names[via], name);
                bloomsimd_load_options o = {.kernel = name};
                bloomsimd_filter *f = NULL;
                bloomsimd_status st = restore(via, buf, len, path, &o, &f);
                cr_assert_eq(st, BLOOMSIMD_OK, "%s: %s", what, bloomsimd_status_string(st));
                bloomsimd_info info;
                bloomsimd_get_info(f, &info);
                cr_assert_str_eq(info.kernel, name, "%s: runs %s", what, info.kernel);
                test_assert_same_filter(src, f, what);
                bloomsimd_destroy(f);
                checked++;
            }
        }
        unlink(path);
        free(path);
        free(buf);
        bloomsimd_destroy(src);
    }
    cr_assert_geq(checked, 3 * VIAS);
}

Test(load_options, without_options_the_process_default_kernel)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *src = test_sample(kind, writer_kernel(), 0);
        size_t len;
        uint8_t *buf = test_serialize(src, &len);
        char *path = saved_file(src);
        bloomsimd_filter *f[5] = {NULL};
        cr_assert_eq(bloomsimd_deserialize(&f[0], buf, len), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_load(&f[1], path), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_map(&f[2], path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
        cr_assert_eq(bloomsimd_deserialize_with(&f[3], buf, len, NULL), BLOOMSIMD_OK);
        bloomsimd_load_options zero = {0};
        cr_assert_eq(bloomsimd_load_with(&f[4], path, &zero), BLOOMSIMD_OK);
        for (int i = 0; i < 5; i++) {
            bloomsimd_info info;
            bloomsimd_get_info(f[i], &info);
            cr_assert_str_eq(info.kernel, bloomsimd_default_kernel(), "%s #%d", test_kind_names[kind], i);
            cr_assert_str_eq(info.kernel, test_kernel());
            test_assert_same_answers(src, f[i], test_kind_names[kind]);
            bloomsimd_destroy(f[i]);
        }
        unlink(path);
        free(path);
        free(buf);
        bloomsimd_destroy(src);
    }
}

Test(load_options, bad_kernel_gives_create_with_status_before_reading)
{
    bloomsimd_filter *src = test_sample(0, NULL, 0);
    size_t len;
    uint8_t *buf = test_serialize(src, &len);
    char *path = saved_file(src);
    const char *names[] = {"avx9000", "", "AVX2 ", "scalar\n"};
    for (size_t i = 0; i < sizeof names / sizeof *names + bloomsimd_kernel_count(); i++) {
        const char *name = i < sizeof names / sizeof *names ? names[i] : bloomsimd_kernel_name(i - 4);
        bloomsimd_options co = {.capacity = 100, .kernel = name};
        bloomsimd_filter *created = NULL;
        bloomsimd_status want = bloomsimd_create_with(&created, &co);
        bloomsimd_destroy(created);
        if (want == BLOOMSIMD_OK) continue; /* runnable: covered above */
        cr_assert_eq(want, BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
        bloomsimd_load_options o = {.kernel = name};
        for (int via = 0; via < VIAS; via++) {
            bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
            cr_assert_eq(restore(via, buf, len, path, &o, &f), want, "%s '%s'", via_names[via], name);
            cr_assert_null(f);
        }
        /* checked before the input: a missing file or an empty buffer does not change the answer */
        bloomsimd_filter *f = NULL;
        cr_assert_eq(bloomsimd_load_with(&f, "/nonexistent/x.bsf", &o), want);
        cr_assert_eq(bloomsimd_map_with(&f, "/nonexistent/x.bsf", &o), want);
        cr_assert_eq(bloomsimd_deserialize_with(&f, NULL, 0, &o), want);
    }
    unlink(path);
    free(path);
    free(buf);
    bloomsimd_destroy(src);
}

Test(load_options, bad_flags_are_invalid_arguments)
{
    bloomsimd_filter *src = test_sample(0, NULL, 0);
    size_t len;
    uint8_t *buf = test_serialize(src, &len);
    char *path = saved_file(src);
    const bloomsimd_load_options bad[] = {
        {.flags = 0x80},
        {.flags = BLOOMSIMD_CONCURRENT | 0x100},
        {.map_flags = 0x80},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int via = 0; via < VIAS; via++) {
            bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
            cr_assert_eq(restore(via, buf, len, path, &bad[i], &f), BLOOMSIMD_ERR_INVALID_ARGUMENT, "%zu %s", i,
                         via_names[via]);
            cr_assert_null(f);
        }
    /* map flags mean nothing to load and deserialize */
    bloomsimd_load_options map_only = {.map_flags = BLOOMSIMD_MAP_WRITABLE};
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_load_with(&f, path, &map_only), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(f);
    cr_assert_eq(bloomsimd_deserialize_with(&f, buf, len, &map_only), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_load_with(NULL, path, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_map_with(&f, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_deserialize_with(&f, NULL, 5, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    /* and the file is unchanged: it still loads as it was */
    cr_assert_eq(bloomsimd_load_with(&f, path, NULL), BLOOMSIMD_OK);
    test_assert_same_filter(src, f, "after the failures");
    bloomsimd_destroy(f);
    unlink(path);
    free(path);
    free(buf);
    bloomsimd_destroy(src);
}

typedef struct {
    bloomsimd_filter *f;
    uint64_t stream;
} inserter;

static void *insert_keys(void *arg)
{
    inserter *in = arg;
    uint64_t *keys = test_keys(20000, in->stream);
    for (size_t i = 0; i < 20000; i += 500) bloomsimd_add_batch_u64(in->f, keys + i, 500);
    free(keys);
    return NULL;
}

Test(load_options, added_concurrent_flag_allows_threaded_inserts)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *src = test_sample(kind, NULL, 0);
        char *path = saved_file(src);
        for (int via = VIA_LOAD; via < VIAS; via++) {
            if (via == VIA_MAP) continue; /* read-only */
            bloomsimd_load_options o = {.flags = BLOOMSIMD_CONCURRENT};
            bloomsimd_filter *f = NULL;
            cr_assert_eq(restore(via, NULL, 0, path, &o, &f), BLOOMSIMD_OK);
            bloomsimd_info info;
            bloomsimd_get_info(f, &info);
            cr_assert_eq(info.flags, BLOOMSIMD_CONCURRENT | BLOOMSIMD_U64_XXH3, "%s %s", test_kind_names[kind], via_names[via]);
            test_assert_same_answers(src, f, via_names[via]);
            pthread_t t[2];
            inserter in[2] = {{f, 71}, {f, 72}};
            for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, insert_keys, &in[i]);
            for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
            for (int i = 0; i < 2; i++) {
                uint64_t *keys = test_keys(20000, in[i].stream);
                /* a scalable writable mapping cannot grow: its inserts stop at READ_ONLY */
                if (!(kind == 1 && via == VIA_MAP_WRITABLE))
                    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 20000, NULL), 20000, "%s %s",
                                 test_kind_names[kind], via_names[via]);
                free(keys);
            }
            bloomsimd_destroy(f);
            if (via == VIA_MAP_WRITABLE) { /* put the file back for the next round */
                cr_assert_eq(bloomsimd_save(src, path), BLOOMSIMD_OK);
            }
        }
        unlink(path);
        free(path);
        bloomsimd_destroy(src);
    }
}

Test(load_options, map_flags_through_map_with)
{
    bloomsimd_filter *src = test_sample(0, NULL, 0);
    char *path = saved_file(src);
    bloomsimd_filter *f = NULL;
    bloomsimd_load_options o = {.map_flags = BLOOMSIMD_MAP_READ_ONLY};
    cr_assert_eq(bloomsimd_map_with(&f, path, &o), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_u64(f, 1), BLOOMSIMD_ERR_READ_ONLY);
    bloomsimd_destroy(f);
    o.map_flags = BLOOMSIMD_MAP_WRITABLE;
    cr_assert_eq(bloomsimd_map_with(&f, path, &o), BLOOMSIMD_OK);
    uint64_t absent = test_key(99, 1);
    bool before = bloomsimd_contains_u64(f, absent);
    cr_assert_eq(bloomsimd_add_u64(f, absent), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_sync(f), BLOOMSIMD_OK);
    bloomsimd_destroy(f);
    cr_assert_eq(bloomsimd_load_with(&f, path, NULL), BLOOMSIMD_OK);
    cr_assert(bloomsimd_contains_u64(f, absent));
    cr_assert_not(before && !bloomsimd_contains_u64(src, absent));
    bloomsimd_destroy(f);
    unlink(path);
    free(path);
    bloomsimd_destroy(src);
}
