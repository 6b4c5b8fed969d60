/*
 * out.c — the buffered writer (see out.h).
 */
#include "out.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_BUFFER_BYTES ((size_t)1 << 20)

bool out_init(out_writer *o, int fd)
{
    memset(o, 0, sizeof *o);
    o->fd = fd;
    o->cap = OUT_BUFFER_BYTES;
    o->buf = malloc(o->cap);
    if (!o->buf) cli_error("out of memory");
    return o->buf != NULL;
}

void out_free(out_writer *o)
{
    free(o->buf);
    o->buf = NULL;
}

static bool write_all(out_writer *o, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue; /* a stop signal: finish the write, the loop checks the flag */
            o->err = errno;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool out_flush(out_writer *o)
{
    if (o->err) return false;
    bool ok = write_all(o, o->buf, o->len);
    o->len = 0;
    return ok;
}

bool out_write(out_writer *o, const void *p, size_t n)
{
    if (o->err) return false;
    if (n > o->cap - o->len) {
        if (!out_flush(o)) return false;
        if (n >= o->cap) return write_all(o, p, n);
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    return true;
}

bool out_records(out_writer *o, const rec_batch *b, const uint8_t *sel, uint8_t want, char terminator)
{
    const char *span = NULL; /* pending run of adjacent selected records, terminators included */
    size_t span_len = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (sel && sel[i] != want) continue;
        if (span && span + span_len == b->rec[i]) {
            span_len += b->len[i] + 1;
        } else {
            if (span && !out_write(o, span, span_len)) return false;
            span = b->rec[i];
            span_len = b->len[i] + 1;
        }
        if (i == b->unterminated) { /* only ever the batch's last record */
            if (!out_write(o, span, span_len - 1) || !out_write(o, &terminator, 1)) return false;
            span = NULL;
            span_len = 0;
        }
    }
    return !span || out_write(o, span, span_len);
}

int out_failed(out_writer *o, void (*cleanup)(void))
{
    if (o->err == EPIPE) {
        if (cleanup) cleanup();
        cli_die_of_signal(SIGPIPE);
    }
    cli_error("write error: %s", strerror(o->err));
    return CLI_ERROR;
}
