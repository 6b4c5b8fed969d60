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

/* Spans this long are written from where they are (after what is buffered)
 * instead of copied: one write(2) of 64 KiB costs no more per byte than the
 * buffer's, and the copy is saved (a query printing every record copied all
 * of its input once more). */
#define OUT_DIRECT_BYTES ((size_t)64 << 10)

bool out_write(out_writer *o, const void *p, size_t n)
{
    if (o->err) return false;
    if (n >= OUT_DIRECT_BYTES) return out_flush(o) && write_all(o, p, n);
    if (n > o->cap - o->len && !out_flush(o)) return false;
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    return true;
}

bool out_records(out_writer *o, const rec_batch *b, const uint8_t *sel, uint8_t want, char terminator)
{
    /* The records of a batch are adjacent (records.h), so a run of selected
     * records is one span of bytes, terminators included: the runs are found
     * with memchr over sel (the C library's vector loop; sel[i] is 0 or 1)
     * and each is written with one copy, or none (out_write). */
    const uint8_t other = want ^ 1;
    size_t i = 0, n = b->n;
    while (i < n) {
        if (sel) {
            const uint8_t *s = memchr(sel + i, want, n - i);
            if (!s) break;
            i = (size_t)(s - sel);
        }
        const uint8_t *e = sel ? memchr(sel + i, other, n - i) : NULL;
        size_t j = e ? (size_t)(e - sel) : n; /* the run is records i .. j-1 */
        const char *start = b->rec[i];
        const char *last_end = b->rec[j - 1] + b->len[j - 1];
        if (j - 1 == b->unterminated) { /* only ever the batch's last record: add its terminator, as grep does */
            if (!out_write(o, start, (size_t)(last_end - start)) || !out_write(o, &terminator, 1)) return false;
        } else if (!out_write(o, start, (size_t)(last_end + 1 - start))) {
            return false;
        }
        i = j;
    }
    return true;
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
