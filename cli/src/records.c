/*
 * records.c — block reads and memchr splitting (see records.h).
 */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads of 512 KiB: the system call costs nothing per record, and the bytes
 * the kernel just copied are still in the core's L2 cache when they are split
 * and hashed (with 4 MiB reads the split waited on memory: 1.5x its time).
 * The buffer holds two reads, and doubles for a longer record. */
#define READ_BYTES ((size_t)512 << 10)
#define READ_BUFFER_BYTES (2 * READ_BYTES)

bool rec_batch_init(rec_batch *b, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max;
    b->rec = malloc(max * sizeof *b->rec);
    b->len = malloc(max * sizeof *b->len);
    b->key_store = malloc(max * sizeof *b->key_store);
    b->key_len_store = malloc(max * sizeof *b->key_len_store);
    b->u64 = malloc(max * sizeof *b->u64);
    b->hash = malloc(max * sizeof *b->hash);
    b->hit = malloc(max);
    if (b->rec && b->len && b->key_store && b->key_len_store && b->u64 && b->hash && b->hit) return true;
    rec_batch_free(b);
    cli_error("out of memory");
    return false;
}

void rec_batch_free(rec_batch *b)
{
    free(b->rec);
    free(b->len);
    free(b->key_store);
    free(b->key_len_store);
    free(b->u64);
    free(b->hash);
    free(b->hit);
    memset(b, 0, sizeof *b);
}

static char stdin_name[] = "-";
static char *stdin_only[] = {stdin_name};

bool records_open(rec_reader *r, char **paths, size_t npaths, char terminator)
{
    memset(r, 0, sizeof *r);
    r->terminator = terminator;
    r->paths = npaths ? paths : stdin_only;
    r->npaths = npaths ? npaths : 1;
    r->fd = -1;
    r->cap = READ_BUFFER_BYTES;
    r->buf = malloc(r->cap);
    if (!r->buf) {
        cli_error("out of memory");
        return false;
    }
    /* The total size is known (for a percentage) only if every input is a regular file. */
    uint64_t total = 0;
    for (size_t i = 0; i < r->npaths; i++) {
        struct stat st;
        bool is_stdin = strcmp(r->paths[i], "-") == 0;
        if ((is_stdin ? fstat(0, &st) : stat(r->paths[i], &st)) != 0 || !S_ISREG(st.st_mode)) {
            total = 0;
            break;
        }
        total += (uint64_t)st.st_size;
    }
    r->total_bytes = total;
    return true;
}

void records_close(rec_reader *r)
{
    if (r->fd > 0) close(r->fd);
    free(r->buf);
    r->buf = NULL;
    r->fd = -1;
}

/* Opens the next input; false when there is none. Unreadable inputs are
 * reported and flagged in *failed. */
static bool open_next(rec_reader *r, bool *failed)
{
    while (r->next_path < r->npaths) {
        const char *path = r->paths[r->next_path++];
        r->name = path;
        r->eof = false;
        r->line = 0;
        if (strcmp(path, "-") == 0) {
            r->fd = 0;
            r->name = "(standard input)";
            return true;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(fd);
            fd = -1;
            errno = EISDIR;
        }
        if (fd < 0) {
            cli_error("%s: %s", path, strerror(errno));
            *failed = true;
            continue;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        r->fd = fd;
        return true;
    }
    return false;
}

static void close_current(rec_reader *r)
{
    if (r->fd > 0) close(r->fd);
    r->fd = -1;
}

/* Moves the partial record to the front and reads once. 1 = got bytes,
 * 0 = end of input, -1 = read error (printed), -2 = stop signal. */
static int refill(rec_reader *r)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end == r->cap) {
        /* One record longer than the buffer: grow it (doubling keeps copies linear). */
        char *bigger = realloc(r->buf, r->cap * 2);
        if (!bigger) {
            cli_error("%s: a record longer than %zu bytes does not fit in memory", r->name, r->cap);
            return -1;
        }
        r->buf = bigger;
        r->cap *= 2;
    }
    for (;;) {
        size_t want = r->cap - r->end < READ_BYTES ? r->cap - r->end : READ_BYTES;
        ssize_t n = read(r->fd, r->buf + r->end, want);
        if (n > 0) {
            r->end += (size_t)n;
            r->bytes += (uint64_t)n;
            r->short_read = (size_t)n < want;
            return 1;
        }
        if (n == 0) return 0;
        if (errno == EINTR) {
            if (cli_stop_signal) return -2;
            continue;
        }
        cli_error("%s: %s", r->name, strerror(errno));
        return -1;
    }
}

/*
 * Splitting. Short records (the common case: keys, IDs, URLs) are split a
 * word at a time: for x = 8 input bytes and t = x ^ (terminator * 0x01..01),
 *     m = ~(((t & 0x7f..7f) + 0x7f..7f) | t) & 0x80..80
 * has the high bit set in exactly the bytes equal to the terminator (the
 * addition cannot carry across bytes, so unlike the shorter "haszero" trick
 * there are no false matches), and ctz(m) / 8 is the first one's index on a
 * little-endian host (the only kind the library builds for). That costs a
 * handful of operations per 8 bytes plus one per record, where a memchr call
 * per record costs its call and setup: 16-byte records split 3x faster.
 * Long records are left to memchr, whose vector loop wins beyond ~100 bytes.
 */
#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_LOW7 UINT64_C(0x7f7f7f7f7f7f7f7f)
#define SWAR_HIGH UINT64_C(0x8080808080808080)
#define LONG_RECORD_BYTES 128

static size_t split_memchr(char **pp, const char *end, char term, rec_batch *b, size_t n)
{
    char *p = *pp;
    while (n < b->max) {
        char *t = memchr(p, term, (size_t)(end - p));
        if (!t) break;
        b->rec[n] = p;
        b->len[n] = (size_t)(t - p);
        n++;
        p = t + 1;
    }
    *pp = p;
    return n;
}

static size_t split_words(char **pp, const char *end, char term, rec_batch *b, size_t n)
{
    const uint64_t pattern = SWAR_ONES * (unsigned char)term;
    const char **rec_out = b->rec; /* locals: the stores below cannot alias them */
    size_t *len_out = b->len;
    const size_t max = b->max;
    char *rec = *pp, *w = *pp;
    while (n < max && end - w >= 8) {
        uint64_t x;
        memcpy(&x, w, 8);
        uint64_t t = x ^ pattern;
        uint64_t m = ~(((t & SWAR_LOW7) + SWAR_LOW7) | t) & SWAR_HIGH;
        while (m) {
            char *q = w + (__builtin_ctzll(m) >> 3);
            rec_out[n] = rec;
            len_out[n] = (size_t)(q - rec);
            rec = q + 1;
            m &= m - 1;
            if (++n == max) break;
        }
        w += 8;
    }
    *pp = rec;
    /* The last < 8 bytes (or a full batch: split_memchr returns at once). */
    return split_memchr(pp, end, term, b, n);
}

/* Splits buf[start, end) into b (after its b->n records); advances start. */
static size_t split(rec_reader *r, rec_batch *b)
{
    char *p = r->buf + r->start;
    const char *end = r->buf + r->end;
    size_t n = r->long_records ? split_memchr(&p, end, r->terminator, b, b->n)
                               : split_words(&p, end, r->terminator, b, b->n);
    size_t got = n - b->n;
    if (got) r->long_records = (size_t)(p - (r->buf + r->start)) / got > LONG_RECORD_BYTES;
    r->start = (size_t)(p - r->buf);
    return n;
}

long records_next(rec_reader *r, rec_batch *b)
{
    b->n = 0;
    b->unterminated = SIZE_MAX;
    bool failed = false; /* printed already; the reader goes on with the next input */
    for (;;) {
        size_t n = split(r, b);
        r->line += n - b->n;
        b->n = n;
        if (n == b->max) break;
        if (n > 0) break; /* hand these over before moving the buffer */
        if (r->fd < 0) {
            if (!open_next(r, &failed)) break;
            continue;
        }
        if (r->eof) {
            if (r->start < r->end) { /* the last record, without terminator */
                b->rec[0] = r->buf + r->start;
                b->len[0] = r->end - r->start;
                b->unterminated = 0;
                b->n = 1;
                r->line++;
                r->start = r->end;
                break;
            }
            close_current(r);
            r->start = r->end = 0;
            continue;
        }
        int got = refill(r);
        if (got == 0) r->eof = true;
        if (got == -2) return -2;
        if (got == -1) {
            failed = true;
            close_current(r); /* give up on this input, keep going with the next */
            r->start = r->end = 0;
        }
    }
    r->records += b->n;
    if (failed) r->failed = true;
    return (long)b->n;
}
