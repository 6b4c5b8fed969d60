/*
 * support_stream.c — see support_stream.h.
 */
#include "support_stream.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bloomsimd_status test_mem_read(void *ctx, void *buf, size_t len, size_t *got)
{
    test_mem_reader *r = ctx;
    size_t left = r->len - r->pos, n = len < left ? len : left;
    if (r->max_piece && n > 1) {
        size_t piece = 1 + (size_t)(test_splitmix64(&r->rng) % r->max_piece);
        if (piece < n) n = piece;
    }
    if (n) memcpy(buf, r->buf + r->pos, n); /* r->buf may be NULL for an empty stream */
    r->pos += n;
    *got = n;
    return BLOOMSIMD_OK;
}

bloomsimd_status test_mem_write(void *ctx, const void *buf, size_t len)
{
    test_mem_writer *w = ctx;
    if (w->len + len > w->cap) {
        size_t cap = (w->len + len) * 2;
        uint8_t *grown = realloc(w->buf, cap);
        if (!grown) return BLOOMSIMD_ERR_NO_MEMORY;
        w->buf = grown, w->cap = cap;
    }
    memcpy(w->buf + w->len, buf, len);
    w->len += len;
    w->calls++;
    if (len > w->largest_piece) w->largest_piece = len;
    return BLOOMSIMD_OK;
}

/* The file length an intact header claims (0 if the header is too short). */
static uint64_t claimed_bytes(const uint8_t *buf, size_t len)
{
    if (len < 128) return 0;
    uint64_t offset = 0, payload = 0;
    for (int i = 3; i >= 0; i--) offset = offset << 8 | buf[12 + i];
    for (int i = 7; i >= 0; i--) payload = payload << 8 | buf[72 + i];
    return payload > UINT64_MAX - offset ? UINT64_MAX : offset + payload;
}

void test_expect_stream_status(const uint8_t *buf, size_t len, bloomsimd_status want, bool with_fd, const char *what)
{
    uint8_t *exact = malloc(len ? len : 1);
    cr_assert_not_null(exact);
    if (len) memcpy(exact, buf, len);
    test_mem_reader r = {exact, len, 0, 1 + len % 5000, len * 31 + 7};
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_deserialize_stream(&f, test_mem_read, &r, NULL);
    bool forged_size = want == BLOOMSIMD_ERR_CORRUPT && st == BLOOMSIMD_ERR_NO_MEMORY && claimed_bytes(buf, len) > len;
    /* a valid filter followed by more bytes: the stream stops after it */
    bool trailing = false;
    if (want == BLOOMSIMD_ERR_CORRUPT && st == BLOOMSIMD_OK && r.pos < len) {
        bloomsimd_filter *g = NULL;
        cr_assert_eq(bloomsimd_deserialize(&g, buf, r.pos), BLOOMSIMD_OK, "%s: the prefix read is not a filter", what);
        bloomsimd_destroy(g);
        trailing = true;
    }
    cr_assert(st == want || forged_size || trailing, "%s: stream gave %s, deserialize %s", what,
              bloomsimd_status_string(st), bloomsimd_status_string(want));
    size_t consumed = r.pos;
    if (st == BLOOMSIMD_OK) {
        if (!trailing) cr_assert_eq(r.pos, len, "%s: consumed %zu of %zu bytes", what, r.pos, len);
        bloomsimd_destroy(f);
    } else {
        cr_assert_null(f, "%s: *out not cleared", what);
        cr_assert_neq(bloomsimd_last_error()[0], '\0', "%s: no detail", what);
    }
    free(exact);
    if (!with_fd) return;

    char path[] = "/tmp/bloomsimd-stream-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    f = (bloomsimd_filter *)(uintptr_t)1;
    st = bloomsimd_deserialize_fd(&f, fd, NULL);
    cr_assert_eq(st, trailing ? BLOOMSIMD_OK : want, "%s: deserialize_fd gave %s, deserialize %s", what,
                 bloomsimd_status_string(st), bloomsimd_status_string(want));
    if (st == BLOOMSIMD_OK) {
        cr_assert_eq(lseek(fd, 0, SEEK_CUR), (off_t)consumed, "%s: fd offset", what);
        bloomsimd_destroy(f);
    } else {
        cr_assert_null(f);
    }
    close(fd);
    unlink(path);
}
