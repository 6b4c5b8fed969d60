/*
 * test_stream.c — bloomsimd_serialize_stream / _deserialize_stream and the
 * file-descriptor calls, on plain, scalable and window filters:
 *
 *   - the stream carries exactly bloomsimd_serialize's bytes (callback,
 *     regular file, pipe), in pieces of at most 1 MiB, also for a CONCURRENT
 *     filter being inserted into meanwhile;
 *   - reading gives back the same filter whatever the piece sizes, on the
 *     kernel the options ask for; two filters and a trailer in one stream
 *     are read one after the other and the trailer is left unread;
 *   - a failing write or read callback at any call stops the transfer with
 *     the callback's own status (errno kept), *out NULL, nothing leaked
 *     (ASan), and bloomsimd_last_error names the callback (a success
 *     clears it); a reader claiming more than asked is INVALID_ARGUMENT; a
 *     stream cut at any layer boundary is CORRUPT; bad descriptors are IO or
 *     INVALID_ARGUMENT. (Every corrupt input of test_persist_corrupt.c and
 *     test_persist_layered.c also goes through the stream readers there.)
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support_samples.h"
#include "support_stream.h"

static uint8_t *stream_bytes(const bloomsimd_filter *f, size_t *len, size_t *largest)
{
    test_mem_writer w = {0};
    (void)bloomsimd_serialize_stream(NULL, test_mem_write, &w); /* leaves a detail behind */
    bloomsimd_status st = bloomsimd_serialize_stream(f, test_mem_write, &w);
    cr_assert_eq(st, BLOOMSIMD_OK, "%s", bloomsimd_status_string(st));
    cr_assert_str_eq(bloomsimd_last_error(), "", "a success clears the detail");
    *len = w.len;
    if (largest) *largest = w.largest_piece;
    return w.buf;
}

static bloomsimd_filter *big_sample(uint32_t flags)
{
    /* a payload of several MiB, so that the 1 MiB pieces show */
    bloomsimd_options o = {.capacity = 3000000, .fpr = 0.01, .seed = 5, .flags = flags};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(100000, TEST_SAMPLE_STREAM);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 100000), BLOOMSIMD_OK);
    free(keys);
    return f;
}

Test(stream, same_bytes_as_serialize)
{
    for (int kind = 0; kind <= TEST_KINDS; kind++)
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            uint32_t flags = concurrent ? BLOOMSIMD_CONCURRENT : 0;
            bloomsimd_filter *f = kind < TEST_KINDS ? test_sample(kind, NULL, flags) : big_sample(flags);
            const char *what = kind < TEST_KINDS ? test_kind_names[kind] : "3M keys";
            size_t want_len, len, largest;
            uint8_t *want = test_serialize(f, &want_len);
            uint8_t *got = stream_bytes(f, &len, &largest);
            cr_assert_eq(len, want_len, "%s", what);
            cr_assert(memcmp(got, want, len) == 0, "%s: stream bytes differ from serialize", what);
            cr_assert_leq(largest, (size_t)1 << 20, "%s", what);
            free(got);

            char path[] = "/tmp/bloomsimd-stream-XXXXXX";
            int fd = mkstemp(path);
            cr_assert_geq(fd, 0);
            cr_assert_eq(write(fd, "PREFIX", 6), 6); /* the filter goes at the current offset */
            cr_assert_eq(bloomsimd_serialize_fd(f, fd), BLOOMSIMD_OK);
            close(fd);
            size_t file_len;
            uint8_t *file = test_read_file(path, &file_len);
            cr_assert_eq(file_len, want_len + 6);
            cr_assert(memcmp(file + 6, want, want_len) == 0, "%s: serialize_fd bytes differ", what);
            fd = open(path, O_RDONLY);
            cr_assert_eq(lseek(fd, 6, SEEK_SET), 6);
            bloomsimd_filter *back = NULL;
            cr_assert_eq(bloomsimd_deserialize_fd(&back, fd, NULL), BLOOMSIMD_OK);
            test_assert_same_answers(f, back, what);
            close(fd);
            bloomsimd_destroy(back);
            unlink(path);
            free(file);
            free(want);
            bloomsimd_destroy(f);
        }
}

Test(stream, round_trip_in_any_piece_size_on_the_asked_kernel)
{
    const size_t pieces[] = {1, 7, 4095, 100000, 0};
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *f = test_sample(kind, NULL, 0);
        size_t len;
        uint8_t *buf = stream_bytes(f, &len, NULL);
        for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
            test_mem_reader r = {buf, len, 0, pieces[p], p};
            bloomsimd_filter *g = NULL;
            cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL), BLOOMSIMD_OK);
            cr_assert_str_eq(bloomsimd_last_error(), "");
            cr_assert_eq(r.pos, len);
            test_assert_same_filter(f, g, test_kind_names[kind]);
            bloomsimd_destroy(g);
        }
        for (size_t i = 0; bloomsimd_kernel_name(i); i++) {
            const char *name = bloomsimd_kernel_name(i);
            if (!bloomsimd_kernel_supported(name)) continue;
            bloomsimd_load_options o = {.kernel = name, .flags = BLOOMSIMD_CONCURRENT};
            test_mem_reader r = {buf, len, 0, 5000, i};
            bloomsimd_filter *g = NULL;
            cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, &o), BLOOMSIMD_OK);
            bloomsimd_info info;
            bloomsimd_get_info(g, &info);
            cr_assert_str_eq(info.kernel, name);
            cr_assert_eq(info.flags, BLOOMSIMD_CONCURRENT | BLOOMSIMD_U64_XXH3);
            test_assert_same_answers(f, g, name);
            bloomsimd_destroy(g);
        }
        bloomsimd_load_options bad = {.kernel = "avx9000"};
        test_mem_reader r = {buf, len, 0, 0, 0};
        bloomsimd_filter *g = (bloomsimd_filter *)(uintptr_t)1;
        cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, &bad), BLOOMSIMD_ERR_KERNEL_UNAVAILABLE);
        cr_assert_null(g);
        cr_assert_eq(r.pos, 0, "options are checked before the stream is read");
        free(buf);
        bloomsimd_destroy(f);
    }
}

Test(stream, filters_back_to_back_and_a_trailer_left_unread)
{
    test_mem_writer w = {0};
    bloomsimd_filter *f[TEST_KINDS];
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        f[kind] = test_sample(kind, NULL, 0);
        cr_assert_eq(bloomsimd_serialize_stream(f[kind], test_mem_write, &w), BLOOMSIMD_OK);
    }
    cr_assert_eq(test_mem_write(&w, "END", 3), BLOOMSIMD_OK);
    test_mem_reader r = {w.buf, w.len, 0, 3000, 1};
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL), BLOOMSIMD_OK);
        test_assert_same_filter(f[kind], g, test_kind_names[kind]);
        bloomsimd_destroy(g);
        bloomsimd_destroy(f[kind]);
    }
    cr_assert_eq(w.len - r.pos, 3);
    cr_assert(memcmp(w.buf + r.pos, "END", 3) == 0);
    free(w.buf);
}

typedef struct {
    const bloomsimd_filter *f;
    int fd;
    bloomsimd_status st;
} pipe_writer;

static void *write_to_pipe(void *arg)
{
    pipe_writer *p = arg;
    p->st = bloomsimd_serialize_fd(p->f, p->fd);
    close(p->fd);
    return NULL;
}

Test(stream, through_a_pipe)
{
    for (int kind = 0; kind <= TEST_KINDS; kind++) {
        bloomsimd_filter *f = kind < TEST_KINDS ? test_sample(kind, NULL, 0) : big_sample(0);
        int fds[2];
        cr_assert_eq(pipe(fds), 0);
        pipe_writer p = {f, fds[1], BLOOMSIMD_ERR_IO};
        pthread_t t;
        pthread_create(&t, NULL, write_to_pipe, &p);
        bloomsimd_filter *g = NULL;
        bloomsimd_status st = bloomsimd_deserialize_fd(&g, fds[0], NULL);
        pthread_join(t, NULL);
        cr_assert_eq(p.st, BLOOMSIMD_OK);
        cr_assert_eq(st, BLOOMSIMD_OK, "%s", bloomsimd_status_string(st));
        char extra;
        cr_assert_eq(read(fds[0], &extra, 1), 0, "the whole stream was the filter");
        close(fds[0]);
        test_assert_same_answers(f, g, "pipe");
        bloomsimd_destroy(g);
        bloomsimd_destroy(f);
    }
}

/* A writer that fails at call number fail_at with `status` and errno ENOSPC. */
typedef struct {
    test_mem_writer inner;
    size_t calls, fail_at;
    bloomsimd_status status;
} failing_writer;

static bloomsimd_status failing_write(void *ctx, const void *buf, size_t len)
{
    failing_writer *w = ctx;
    if (++w->calls == w->fail_at) {
        errno = ENOSPC;
        return w->status;
    }
    return test_mem_write(&w->inner, buf, len);
}

Test(stream, a_failing_write_callback_stops_with_its_status)
{
    for (int kind = 0; kind < TEST_KINDS; kind++)
        for (int concurrent = 0; concurrent < 2; concurrent++) {
            bloomsimd_filter *f = test_sample(kind, NULL, concurrent ? BLOOMSIMD_CONCURRENT : 0);
            test_mem_writer count = {0};
            cr_assert_eq(bloomsimd_serialize_stream(f, test_mem_write, &count), BLOOMSIMD_OK);
            cr_assert_geq(count.calls, 2);
            for (size_t n = 1; n <= count.calls; n++) {
                failing_writer w = {.fail_at = n, .status = n % 2 ? BLOOMSIMD_ERR_IO : BLOOMSIMD_ERR_NO_MEMORY};
                errno = 0;
                bloomsimd_status st = bloomsimd_serialize_stream(f, failing_write, &w);
                cr_assert_eq(st, w.status, "%s: call %zu", test_kind_names[kind], n);
                cr_assert_eq(errno, ENOSPC, "errno kept");
                cr_assert(strstr(bloomsimd_last_error(), "write callback"), "detail: \"%s\"", bloomsimd_last_error());
                cr_assert_eq(w.calls, n, "no call after the failure");
                /* what did go out is a prefix, which no reader accepts */
                test_mem_reader r = {w.inner.buf, w.inner.len, 0, 0, 0};
                bloomsimd_filter *g = (bloomsimd_filter *)(uintptr_t)1;
                cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL), BLOOMSIMD_ERR_CORRUPT);
                cr_assert_null(g);
                free(w.inner.buf);
            }
            free(count.buf);
            /* the filter is unchanged and still writes */
            test_mem_writer again = {0};
            cr_assert_eq(bloomsimd_serialize_stream(f, test_mem_write, &again), BLOOMSIMD_OK);
            cr_assert_eq(again.len, count.len);
            free(again.buf);
            bloomsimd_destroy(f);
        }
}

/* A reader that fails at call fail_at, or (lie) claims one byte more than asked. */
typedef struct {
    test_mem_reader inner;
    size_t calls, fail_at;
    bool lie;
} failing_reader;

static bloomsimd_status failing_read(void *ctx, void *buf, size_t len, size_t *got)
{
    failing_reader *r = ctx;
    if (++r->calls == r->fail_at) {
        if (r->lie) {
            *got = len + 1;
            return BLOOMSIMD_OK;
        }
        errno = ECONNRESET;
        return BLOOMSIMD_ERR_IO;
    }
    return test_mem_read(&r->inner, buf, len, got);
}

Test(stream, a_failing_read_callback_stops_with_its_status)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *f = test_sample(kind, NULL, 0);
        size_t len;
        uint8_t *buf = stream_bytes(f, &len, NULL);
        failing_reader count = {{buf, len, 0, 3000, 9}, 0, 0, false};
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize_stream(&g, failing_read, &count, NULL), BLOOMSIMD_OK);
        bloomsimd_destroy(g);
        for (size_t n = 1; n <= count.calls; n++)
            for (int lie = 0; lie < 2; lie++) {
                failing_reader r = {{buf, len, 0, 3000, 9}, 0, n, lie};
                g = (bloomsimd_filter *)(uintptr_t)1;
                errno = 0;
                bloomsimd_status st = bloomsimd_deserialize_stream(&g, failing_read, &r, NULL);
                cr_assert_eq(st, lie ? BLOOMSIMD_ERR_INVALID_ARGUMENT : BLOOMSIMD_ERR_IO, "%s call %zu",
                             test_kind_names[kind], n);
                if (!lie) cr_assert_eq(errno, ECONNRESET);
                cr_assert(strstr(bloomsimd_last_error(), "read callback"), "detail: \"%s\"", bloomsimd_last_error());
                cr_assert_eq(r.calls, n, "no call after the failure");
                cr_assert_null(g);
            }
        /* cut at every layer boundary and one byte either side: truncated */
        bloomsimd_info info;
        bloomsimd_get_info(f, &info);
        for (size_t cut = 4096; cut < len; cut += 4096)
            for (size_t d = 0; d < 3; d++) {
                test_mem_reader r = {buf, cut - 1 + d, 0, 0, 0};
                g = (bloomsimd_filter *)(uintptr_t)1;
                cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL), BLOOMSIMD_ERR_CORRUPT,
                             "%s cut at %zu", test_kind_names[kind], cut - 1 + d);
                cr_assert_null(g);
                cr_assert_neq(bloomsimd_last_error()[0], '\0');
            }
        free(buf);
        bloomsimd_destroy(f);
    }
}

Test(stream, bad_arguments_and_descriptors)
{
    bloomsimd_filter *f = test_sample(0, NULL, 0);
    test_mem_writer w = {0};
    cr_assert_eq(bloomsimd_serialize_stream(NULL, test_mem_write, &w), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize_stream(f, NULL, &w), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(w.calls, 0);
    bloomsimd_filter *g = (bloomsimd_filter *)(uintptr_t)1;
    test_mem_reader r = {NULL, 0, 0, 0, 0};
    cr_assert_eq(bloomsimd_deserialize_stream(&g, NULL, &r, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(g);
    cr_assert_eq(bloomsimd_deserialize_stream(NULL, test_mem_read, &r, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL), BLOOMSIMD_ERR_CORRUPT, "empty stream");
    cr_assert_eq(bloomsimd_serialize_fd(f, -1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_deserialize_fd(&g, -1, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_serialize_fd(NULL, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);

    int ro = open("/dev/null", O_RDONLY), wo = open("/dev/null", O_WRONLY);
    errno = 0;
    cr_assert_eq(bloomsimd_serialize_fd(f, ro), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EBADF);
    cr_assert(strstr(bloomsimd_last_error(), "writing to file descriptor"), "\"%s\"", bloomsimd_last_error());
    errno = 0;
    g = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_deserialize_fd(&g, wo, NULL), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EBADF);
    cr_assert(strstr(bloomsimd_last_error(), "reading from file descriptor"), "\"%s\"", bloomsimd_last_error());
    cr_assert_null(g);
    cr_assert_eq(bloomsimd_deserialize_fd(&g, ro, NULL), BLOOMSIMD_ERR_CORRUPT, "/dev/null is an empty stream");
    int full = open("/dev/full", O_WRONLY);
    if (full >= 0) {
        errno = 0;
        cr_assert_eq(bloomsimd_serialize_fd(f, full), BLOOMSIMD_ERR_IO);
        cr_assert_eq(errno, ENOSPC);
        close(full);
    }
    close(ro);
    close(wo);
    bloomsimd_destroy(f);
}

typedef struct {
    bloomsimd_filter *f;
    volatile int stop;
} inserter;

static void *keep_inserting(void *arg)
{
    inserter *in = arg;
    uint64_t *keys = test_keys(100000, 91);
    for (size_t i = 0; !in->stop; i = (i + 1000) % 100000) bloomsimd_add_new_batch_u64(in->f, keys + i, 1000, NULL, NULL);
    free(keys);
    return NULL;
}

Test(stream, concurrent_filter_written_while_inserted_into)
{
    for (int kind = 0; kind < TEST_KINDS; kind++) {
        bloomsimd_filter *f = test_sample(kind, NULL, BLOOMSIMD_CONCURRENT);
        inserter in = {f, 0};
        pthread_t t;
        pthread_create(&t, NULL, keep_inserting, &in);
        uint64_t *keys = test_keys(TEST_SAMPLE_KEYS, TEST_SAMPLE_STREAM);
        for (int round = 0; round < 10; round++) {
            size_t len;
            uint8_t *buf = stream_bytes(f, &len, NULL);
            test_mem_reader r = {buf, len, 0, 0, 0};
            bloomsimd_filter *g = NULL;
            bloomsimd_status st = bloomsimd_deserialize_stream(&g, test_mem_read, &r, NULL);
            cr_assert_eq(st, BLOOMSIMD_OK, "%s round %d: %s", test_kind_names[kind], round, bloomsimd_status_string(st));
            if (kind != 2) /* a window's oldest sample keys have rotated out */
                cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, TEST_SAMPLE_KEYS, NULL), TEST_SAMPLE_KEYS);
            bloomsimd_destroy(g);
            free(buf);
        }
        in.stop = 1;
        pthread_join(t, NULL);
        free(keys);
        bloomsimd_destroy(f);
    }
}
