/*
 * test_error_detail.c — bloomsimd_last_error: each refused input names what
 * was wrong (checked by substring: the wording around the values may
 * change, the values and the check may not), the detail is per thread, a
 * success does not leave an old failure's text behind, and kernel names are
 * matched without regard to case.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "persist/format.h"
#include "support.h"

/* The detail contains `want`; the message shows both on failure. */
#define cr_assert_detail(want, ...)                                                                                 \
    cr_assert(strstr(bloomsimd_last_error(), (want)) != NULL, "detail \"%s\" lacks \"%s\"", bloomsimd_last_error(), \
              (want))

static void expect_create(uint64_t capacity, double fpr, bloomsimd_status want, const char *detail)
{
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create(&f, capacity, fpr), want);
    cr_assert_null(f);
    cr_assert_detail(detail);
}

static void expect_options(const bloomsimd_options *o, bloomsimd_status want, const char *detail)
{
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, o);
    cr_assert_eq(st, want, "got %s (%s)", bloomsimd_status_string(st), bloomsimd_last_error());
    cr_assert_null(f);
    cr_assert_detail(detail);
}

Test(error_detail, create_options_name_the_value_and_the_limit)
{
    expect_create(0, 0.01, BLOOMSIMD_ERR_INVALID_ARGUMENT, "capacity 0");
    expect_create(1000, 1.0, BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr 1 is outside [1e-10, 1)");
    expect_create(1000, 1e-11, BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr 1e-11 is below the minimum 1e-10");
    expect_create(1000, 0.0, BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr 0 is outside [1e-10, 1) (bloomsimd_create has no default");
    expect_create(1000, -0.5, BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr -0.5");
    /* bloomsimd_create: this kernel's default layout, and its limit */
    expect_create(UINT64_C(1) << 62, 1e-9, BLOOMSIMD_ERR_TOO_LARGE,
                  test_default_layout() == BLOOMSIMD_LAYOUT_SPLIT256
                      ? "capacity 4611686018427387904 at fpr 1e-09 needs more than 2^32 split256 blocks (128 GiB)"
                      : "capacity 4611686018427387904 at fpr 1e-09 needs more than 2^32 blocks (256 GiB)");

    bloomsimd_options o = {.capacity = 1000, .fpr = 1e-11};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr 1e-11 is below the minimum 1e-10");
    o = (bloomsimd_options){.fpr = 0.01};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "capacity 0 and bits 0");
    o = (bloomsimd_options){.capacity = UINT64_C(1) << 62, .fpr = 1e-9, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE, "needs more than 2^32 blocks (256 GiB)");
    o.layout = BLOOMSIMD_LAYOUT_SPLIT256;
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE, "needs more than 2^32 split256 blocks (128 GiB)");
    o = (bloomsimd_options){.bits = (BLOOMSIMD_MAX_BLOCKS + 1) * BLOOMSIMD_BLOCK_BITS, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE, "need 4294967297 blocks, above the maximum 2^32 blocks (256 GiB)");
    o = (bloomsimd_options){.bits = (BLOOMSIMD_MAX_BLOCKS + 1) * BLOOMSIMD_SPLIT256_BLOCK_BITS,
                            .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    expect_options(&o, BLOOMSIMD_ERR_TOO_LARGE,
                   "need 4294967297 blocks, above the maximum 2^32 split256 blocks (128 GiB)");
    o = (bloomsimd_options){.capacity = 1000, .k = 17};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "k 17 is above the maximum 16");
    o = (bloomsimd_options){.capacity = 1000, .flags = 0x80};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "unknown flags 0x80");
    o = (bloomsimd_options){.capacity = 1000, .flags = BLOOMSIMD_U64_XXH3 | BLOOMSIMD_U64_MUM};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "flags 0x18 name two hashes: a filter has one hash");
    o = (bloomsimd_options){.capacity = 1000, .flags = BLOOMSIMD_PARQUET | BLOOMSIMD_U64_MUM};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "flags 0x14 name Parquet's hash and another");
    o = (bloomsimd_options){.capacity = 1000, .tightening = 0.5};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "tightening 0.5 without growth");
    o = (bloomsimd_options){.capacity = 1000, .generations = 65};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "generations 65 is above the maximum 64");
    o = (bloomsimd_options){.capacity = 1000, .growth = 2, .generations = 4};
    expect_options(&o, BLOOMSIMD_ERR_INVALID_ARGUMENT, "scalable or a window, not both");
    o = (bloomsimd_options){.capacity = 1000, .kernel = "avx9000"};
    expect_options(&o, BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "kernel \"avx9000\" names no compiled kernel (");
    cr_assert_detail("scalar)"); /* the list of names */
    expect_options(NULL, BLOOMSIMD_ERR_INVALID_ARGUMENT, "options is NULL");
}

Test(error_detail, kernel_names_ignore_case)
{
    char upper[16];
    snprintf(upper, sizeof upper, "%s", test_kernel());
    for (char *c = upper; *c; c++) *c = (char)toupper((unsigned char)*c);
    cr_assert(bloomsimd_kernel_supported(upper), "%s", upper);
    bloomsimd_options o = {.capacity = 1000, .kernel = upper};
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_OK, "%s: %s", upper, bloomsimd_last_error());
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_str_eq(info.kernel, test_kernel()); /* reported by its own name */
    bloomsimd_destroy(f);
}

/* In a child (the default kernel is decided once per process, from the
 * environment of that moment): BLOOMSIMD_KERNEL=value, create, and compare
 * the status and the detail. Exit 0 when both are as expected. */
static int child_create(const char *value, bloomsimd_status want, const char *detail)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        setenv("BLOOMSIMD_KERNEL", value, 1);
        bloomsimd_filter *f = NULL;
        bloomsimd_status st = bloomsimd_create(&f, 1000, 0.01);
        bloomsimd_destroy(f);
        if (st != want) _exit(1);
        if (detail && !strstr(bloomsimd_last_error(), detail)) {
            fprintf(stderr, "detail \"%s\" lacks \"%s\"\n", bloomsimd_last_error(), detail);
            _exit(2);
        }
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

Test(error_detail, the_environment_variable_is_named_with_the_valid_kernels)
{
    cr_assert_eq(child_create("avx9000", BLOOMSIMD_ERR_KERNEL_UNAVAILABLE,
                              "BLOOMSIMD_KERNEL=\"avx9000\" names no compiled kernel ("),
                 0);
    cr_assert_eq(child_create("avx9000", BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "scalar"), 0);
    /* the name of this run's kernel in capitals selects it */
    char upper[16];
    snprintf(upper, sizeof upper, "%s", test_kernel());
    for (char *c = upper; *c; c++) *c = (char)toupper((unsigned char)*c);
    cr_assert_eq(child_create(upper, BLOOMSIMD_OK, NULL), 0, "BLOOMSIMD_KERNEL=%s", upper);
    /* a compiled kernel this CPU cannot run, when there is one */
    for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
        const char *name = bloomsimd_kernel_name(i);
        if (!bloomsimd_kernel_supported(name))
            cr_assert_eq(child_create(name, BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "this CPU cannot run it"), 0, "%s",
                         name);
    }
}

/* ---- serialized input ---- */

#define FILE_BYTES (4096u + 2u * 64u)

static uint8_t *valid_file(void)
{
    bloomsimd_options o = {.bits = 2 * 512, .k = 5, .capacity = 20};
    bloomsimd_filter *f = test_filter(&o);
    for (uint64_t key = 0; key < 20; key++) bloomsimd_add_u64(f, key);
    uint8_t *buf = calloc(1, FILE_BYTES + 64);
    cr_assert_not_null(buf);
    cr_assert_eq(bloomsimd_serialize(f, buf, FILE_BYTES, NULL), BLOOMSIMD_OK);
    bloomsimd_destroy(f);
    return buf;
}

static void expect_deserialize(const uint8_t *buf, size_t len, bloomsimd_status want, const char *detail)
{
    uint8_t *exact = malloc(len ? len : 1);
    if (len) memcpy(exact, buf, len);
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_deserialize(&f, exact, len);
    free(exact);
    cr_assert_eq(st, want, "got %s (%s), want %s", bloomsimd_status_string(st), bloomsimd_last_error(),
                 bloomsimd_status_string(want));
    cr_assert_null(f);
    cr_assert_detail(detail);
}

static char *write_temp(const uint8_t *buf, size_t len)
{
    char *path = strdup("/tmp/bloomsimd-detail-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
    close(fd);
    return path;
}

/* load and both kinds of map give the same status and detail. */
static void expect_file(const uint8_t *buf, size_t len, bloomsimd_status want, const char *detail)
{
    char *path = write_temp(buf, len);
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_load(&f, path), want, "load: %s", bloomsimd_last_error());
    cr_assert_detail(detail);
    cr_assert_eq(bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY), want, "map: %s", bloomsimd_last_error());
    cr_assert_detail(detail);
    cr_assert_eq(bloomsimd_map(&f, path, BLOOMSIMD_MAP_WRITABLE), want, "writable map: %s", bloomsimd_last_error());
    cr_assert_detail(detail);
    cr_assert_null(f);
    unlink(path);
    free(path);
}

static void expect_input(const uint8_t *buf, size_t len, bloomsimd_status want, const char *detail)
{
    expect_deserialize(buf, len, want, detail);
    expect_file(buf, len, want, detail);
}

Test(error_detail, serialized_inputs_say_what_is_wrong)
{
    uint8_t *buf = valid_file();
    expect_input(buf, 0, BLOOMSIMD_ERR_CORRUPT, "empty input (0 bytes)");
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_deserialize(&f, NULL, 0), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_detail("empty input (0 bytes)");

    const char *text = "key1\nkey2\nkey3\nthis is a text file, not a filter\n";
    expect_input((const uint8_t *)text, strlen(text), BLOOMSIMD_ERR_CORRUPT, "not a bloomsimd filter: no magic");
    expect_input(buf, 100, BLOOMSIMD_ERR_CORRUPT, "truncated: length 100 bytes, shorter than the 128-byte");
    expect_input(buf, FILE_BYTES - 1, BLOOMSIMD_ERR_CORRUPT,
                 "truncated: length 4223 bytes != 4096 header + 128 payload (2 blocks of 64 bytes)");
    expect_input(buf, FILE_BYTES + 1, BLOOMSIMD_ERR_CORRUPT,
                 "trailing bytes after the filter: length 4225 bytes != 4096 header + 128 payload");

    buf[4096 + 70] ^= 0x10;
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "payload checksum mismatch (stored ");
    buf[4096 + 70] ^= 0x10;

    buf[24] ^= 1; /* the seed, under the header checksum */
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "header checksum mismatch");
    buf[24] ^= 1;

    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_VERSION, 1);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_VERSION, "format version 1; this library reads version 2");
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_VERSION, 2);

    /* fields under a valid header checksum: the field check itself speaks */
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 17);
    bloomsimd_header_reseal(buf);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "k 17 is outside 1..16");
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_K, 5);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_LAYOUT_ID, 4);
    bloomsimd_header_reseal(buf);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_VERSION,
                 "layout 4 is unknown to this library (it reads layout 2, block512, and 3, split256)");
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_LAYOUT_ID, 3);
    bloomsimd_header_reseal(buf);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT,
                 "the filter: k 5 in layout 3 (split256), which sets exactly 8 bits per key");
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_LAYOUT_ID, 2);
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_HASH_ID, 4);
    bloomsimd_header_reseal(buf);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_VERSION,
                 "hash 4 is unknown to this library (it reads hash 1, XXH3_64bits_withSeed, 2, Parquet's XXH64, and "
                 "3, mum for 64-bit keys)");
    /* Parquet's hash is only ever written with its layout */
    bloomsimd_le32_put(buf + BLOOMSIMD_HDR_HASH_ID, 2);
    bloomsimd_header_reseal(buf);
    expect_input(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT,
                 "hash 2 (Parquet's XXH64) with layout 2, kind 0, seed 0: it is only ever written with layout 3, "
                 "a plain filter, seed 0");
    free(buf);
}

/* A window's directory entry edited, both checksums recomputed. */
static uint8_t *window_image_with_k_plus_one_in_generation_1(uint32_t layout, size_t *len)
{
    bloomsimd_options o = {.capacity = 100, .fpr = 0.01, .generations = 3, .layout = layout};
    bloomsimd_filter *w = test_filter(&o);
    *len = bloomsimd_serialized_size(w);
    uint8_t *buf = malloc(*len);
    cr_assert_eq(bloomsimd_serialize(w, buf, *len, NULL), BLOOMSIMD_OK);
    bloomsimd_destroy(w);
    uint8_t *entry1 = buf + BLOOMSIMD_HDR_DIRECTORY + BLOOMSIMD_FORMAT_ENTRY_BYTES;
    bloomsimd_le32_put(entry1 + BLOOMSIMD_ENT_K, bloomsimd_le32_get(entry1 + BLOOMSIMD_ENT_K) + 1);
    uint64_t directory = XXH3_64bits(buf + BLOOMSIMD_HDR_DIRECTORY, 3 * BLOOMSIMD_FORMAT_ENTRY_BYTES);
    bloomsimd_le64_put(buf + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM, directory);
    bloomsimd_header_reseal(buf);
    return buf;
}

Test(error_detail, layer_directory_fields_are_named)
{
    /* block512: a generation whose k differs from the others' */
    size_t len;
    uint8_t *buf = window_image_with_k_plus_one_in_generation_1(BLOOMSIMD_LAYOUT_BLOCK512, &len);
    expect_deserialize(buf, len, BLOOMSIMD_ERR_CORRUPT, "generation 1 (blocks ");
    cr_assert_detail("differs from the window's");

    /* the directory checksum itself */
    buf[BLOOMSIMD_HDR_PAYLOAD_CHECKSUM] ^= 1;
    bloomsimd_header_reseal(buf);
    expect_deserialize(buf, len, BLOOMSIMD_ERR_CORRUPT, "layer directory checksum mismatch");
    free(buf);

    /* split256: k 9 is refused by the layer's own layout before any comparison */
    buf = window_image_with_k_plus_one_in_generation_1(BLOOMSIMD_LAYOUT_SPLIT256, &len);
    expect_deserialize(buf, len, BLOOMSIMD_ERR_CORRUPT, "layer 1: k 9 in layout 3 (split256), which sets exactly 8 bits per key");
    free(buf);
}

Test(error_detail, io_failures_name_the_path_and_keep_errno)
{
    bloomsimd_filter *f = NULL;
    errno = 0;
    cr_assert_eq(bloomsimd_load(&f, "/nonexistent-dir/none.bsf"), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, ENOENT, "errno %d", errno);
    cr_assert_detail("open /nonexistent-dir/none.bsf: ");
    cr_assert_detail(strerror(ENOENT));
    cr_assert_eq(bloomsimd_map(&f, "/tmp", 0), BLOOMSIMD_ERR_IO);
    cr_assert_detail("/tmp is not a regular file");
}

Test(error_detail, key_views_and_read_only_filters)
{
    bloomsimd_options o = {.capacity = 1000};
    bloomsimd_filter *f = test_filter(&o);
    const char data[] = "aaaabbbbcccc";
    uint32_t offsets[] = {0, 5, 1, 8};
    bloomsimd_keys v = bloomsimd_keys_offsets32(data, sizeof data - 1, offsets, 3);
    cr_assert_eq(bloomsimd_add_keys(f, &v), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("offsets32[2] = 1 is below offsets32[1] = 5");
    uint32_t past[] = {0, 4, 40};
    v = bloomsimd_keys_offsets32(data, sizeof data - 1, past, 2);
    size_t hits;
    cr_assert_eq(bloomsimd_contains_keys(f, &v, NULL, &hits), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("offsets32[2] = 40 is past data_len 12");
    v = bloomsimd_keys_fixed(data, sizeof data - 1, 5, 3);
    cr_assert_eq(bloomsimd_add_new_keys(f, &v, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("3 keys of width 5 do not fit in data_len 12");
    const void *pointers[] = {data, data, NULL, data};
    size_t lengths[] = {1, 2, 3, 4};
    cr_assert_eq(bloomsimd_add_batch(f, pointers, lengths, 4), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("key 2 is NULL with length 3");
    cr_assert_eq(bloomsimd_add_new_batch(f, pointers, lengths, 4, NULL, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("key 2 is NULL with length 3");

    char *path = strdup("/tmp/bloomsimd-detail-ro-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *m = NULL;
    cr_assert_eq(bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_u64(m, 1), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_detail("read-only mapping");
    bloomsimd_destroy(m);
    unlink(path);
    free(path);
    bloomsimd_destroy(f);
}

/* ---- lifetime ---- */

Test(error_detail, success_clears_it_except_single_key_inserts)
{
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_create(&f, 0, 0.01), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_neq(bloomsimd_last_error()[0], '\0');
    bloomsimd_options o = {.capacity = 1000};
    f = test_filter(&o);
    cr_assert_str_eq(bloomsimd_last_error(), "", "a successful create left \"%s\"", bloomsimd_last_error());

    /* each failure replaces the text whole: no trace of the previous one */
    uint8_t junk[200] = {0};
    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_deserialize(&g, junk, sizeof junk), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_detail("not a bloomsimd filter");
    cr_assert_eq(bloomsimd_create(&g, 1000, 2.0), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(strstr(bloomsimd_last_error(), "bloomsimd filter"), "%s", bloomsimd_last_error());
    cr_assert_detail("fpr 2");

    /* documented: single-key inserts leave it as it was when they succeed */
    cr_assert_eq(bloomsimd_add_u64(f, 42), BLOOMSIMD_OK);
    cr_assert_detail("fpr 2");
    /* every call that takes a whole request clears it */
    uint64_t keys[] = {1, 2, 3};
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 3), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    cr_assert_eq(bloomsimd_add_batch_u64(NULL, keys, 3), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    size_t bytes = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(bytes);
    cr_assert_eq(bloomsimd_serialize(f, buf, bytes, NULL), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    cr_assert_eq(bloomsimd_deserialize(&g, buf, bytes - 1), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_eq(bloomsimd_deserialize(&g, buf, bytes), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    bloomsimd_destroy(g);
    free(buf);
    bloomsimd_destroy(f);
}

typedef struct {
    pthread_barrier_t *barrier;
    double fpr;
    const char *want;
    bool ok;
    char seen[256];
} thread_case;

/* Fails a create, waits until the other thread has failed its own, then
 * reads this thread's detail. */
static void *fail_then_read(void *arg)
{
    thread_case *c = arg;
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create(&f, 1000, c->fpr);
    pthread_barrier_wait(c->barrier);
    snprintf(c->seen, sizeof c->seen, "%s", bloomsimd_last_error());
    c->ok = st == BLOOMSIMD_ERR_INVALID_ARGUMENT && strstr(c->seen, c->want) != NULL;
    pthread_barrier_wait(c->barrier);
    return NULL;
}

Test(error_detail, each_thread_has_its_own)
{
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    thread_case a = {.barrier = &barrier, .fpr = 1e-11, .want = "fpr 1e-11 is below the minimum 1e-10"};
    thread_case b = {.barrier = &barrier, .fpr = 1.5, .want = "fpr 1.5 is outside"};
    pthread_t ta, tb;
    cr_assert_eq(pthread_create(&ta, NULL, fail_then_read, &a), 0);
    cr_assert_eq(pthread_create(&tb, NULL, fail_then_read, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&barrier);
    cr_assert(a.ok, "thread a saw \"%s\"", a.seen);
    cr_assert(b.ok, "thread b saw \"%s\"", b.seen);
    /* this thread failed nothing */
    cr_assert_str_eq(bloomsimd_last_error(), "");
}

Test(error_detail, load_options_clone_and_sizing)
{
    uint8_t *buf = valid_file();
    bloomsimd_filter *f = NULL;
    bloomsimd_load_options lo = {.kernel = "avx3"};
    cr_assert_eq(bloomsimd_deserialize_with(&f, buf, FILE_BYTES, &lo), BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
    cr_assert_detail("kernel \"avx3\" names no compiled kernel");
    lo = (bloomsimd_load_options){.flags = 0x40};
    cr_assert_eq(bloomsimd_deserialize_with(&f, buf, FILE_BYTES, &lo), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("unknown flags 0x40");
    lo = (bloomsimd_load_options){.map_flags = BLOOMSIMD_MAP_WRITABLE};
    cr_assert_eq(bloomsimd_deserialize_with(&f, buf, FILE_BYTES, &lo), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("only bloomsimd_map_with maps");
    cr_assert_eq(bloomsimd_deserialize_with(&f, buf, FILE_BYTES, NULL), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    bloomsimd_filter *copy = NULL;
    cr_assert_eq(bloomsimd_clone(&copy, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("src is NULL");
    cr_assert_eq(bloomsimd_clone(&copy, f), BLOOMSIMD_OK);
    cr_assert_str_eq(bloomsimd_last_error(), "");
    bloomsimd_sizing s;
    cr_assert_eq(bloomsimd_size_for(NULL, &s), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("options is NULL");
    bloomsimd_options o = {.capacity = 1000, .fpr = 1e-11};
    cr_assert_eq(bloomsimd_size_for(&o, &s), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_detail("fpr 1e-11 is below the minimum 1e-10");
    bloomsimd_destroy(copy);
    bloomsimd_destroy(f);
    free(buf);
}
