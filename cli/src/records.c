/*
 * records.c — chunked reads, splitting (split.c) and the reader thread
 * (see records.h).
 */
#include "records.h"
#include "split.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads of 256 KiB: the system call costs nothing per record, the bytes the
 * kernel just copied are still in L2 when they are split and hashed (with
 * 4 MiB reads the split waited on memory), and a chunk of 16-byte records
 * (~15k) fits in RECORDS_PER_CHUNK. */
#define READ_BYTES ((size_t)256 << 10)

/* ---- batches -------------------------------------------------------------- */

bool rec_batch_init(rec_batch *b)
{
    memset(b, 0, sizeof *b);
    b->max = RECORDS_PER_CHUNK;
    b->key_store = malloc(b->max * sizeof *b->key_store);
    b->key_len_store = malloc(b->max * sizeof *b->key_len_store);
    b->u64 = malloc(b->max * sizeof *b->u64);
    b->hit = malloc(b->max);
    if (b->key_store && b->key_len_store && b->u64 && b->hit) return true;
    rec_batch_free(b);
    cli_error("out of memory");
    return false;
}

void rec_batch_free(rec_batch *b)
{
    free(b->key_store);
    free(b->key_len_store);
    free(b->u64);
    free(b->hit);
    memset(b, 0, sizeof *b);
}

/* ---- splitting (split.c) ----------------------------------------------------
 * Records longer than this on average are split with memchr, shorter ones
 * 64 bytes at a time (split.h). */
#define LONG_RECORD_BYTES 128

/* ---- the source: inputs, one after the other --------------------------------- */

/* True in the reader thread, the only one that is ever cancelled. */
static _Thread_local bool in_reader_thread;

/* open(2) of a FIFO waits for a writer: the reader thread may be cancelled
 * there, as in read(2) (records_close). */
static int open_input(const char *path)
{
    int old;
    if (in_reader_thread) pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int err = errno;
    if (in_reader_thread) pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    errno = err;
    return fd;
}

static bool open_next(rec_reader *r, bool *failed)
{
    while (r->next_path < r->npaths) {
        const char *path = r->paths[r->next_path++];
        r->name = path;
        r->eof = false;
        r->line = 0;
        struct stat st;
        if (strcmp(path, "-") == 0) {
            r->fd = 0;
            r->name = "(standard input)";
            r->may_block = fstat(0, &st) != 0 || !S_ISREG(st.st_mode);
            return true;
        }
        int fd = open_input(path);
        if (fd < 0 && errno == EINTR && cli_stop_signal) return false; /* one thread: a FIFO's open, stopped */
        bool have_st = fd >= 0 && fstat(fd, &st) == 0;
        if (have_st && S_ISDIR(st.st_mode)) {
            close(fd);
            fd = -1;
            errno = EISDIR;
        }
        if (fd < 0) {
            cli_error("%s: %s", path, strerror(errno));
            *failed = true;
            continue;
        }
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        r->fd = fd;
        r->may_block = !have_st || !S_ISREG(st.st_mode);
        return true;
    }
    return false;
}

static void close_current(rec_reader *r)
{
    if (r->fd > 0) close(r->fd);
    r->fd = -1;
}

static bool ensure_room(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return true;
    size_t bigger = *cap ? *cap : READ_BYTES;
    while (bigger < need) bigger *= 2;
    char *p = realloc(*buf, bigger);
    if (!p) return false;
    *buf = p;
    *cap = bigger;
    return true;
}

/* One read into c->buf. >0 bytes, 0 end of input, -1 error (printed),
 * -2 stop signal (a read of the caller's thread was interrupted). The reader
 * thread runs with the stop signals blocked and is cancelled only here. */
static ssize_t read_once(rec_reader *r, rec_chunk *c)
{
    for (;;) {
        /* the caller's thread takes the stop signals: no window to miss one in */
        if (!in_reader_thread && r->may_block && !cli_wait_readable(r->fd)) return -2;
        int old;
        if (in_reader_thread) pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        ssize_t n = read(r->fd, c->buf + c->bytes, READ_BYTES);
        int err = errno;
        if (in_reader_thread) pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        if (n >= 0) return n;
        if (err == EINTR) {
            if (cli_stop_signal) return -2;
            continue;
        }
        cli_error("%s: %s", r->name, strerror(err));
        return -1;
    }
}

/* Reads from the current input until at least one record is complete (or
 * the input ends) and splits what was read into c. Returns 1 with records
 * in c, 0 if the input is exhausted (closed), -1 on a stop signal.
 *
 * What a chunk leaves over is carried to the next: a partial record, or,
 * when the chunk filled up (RECORDS_PER_CHUNK), whole records too. Those are
 * split before anything more is read: reading first made a carry of tiny
 * records grow by a read per chunk (200 MB of empty lines took 340 s and
 * 350 MB; now memory stays within a few reads). A record longer than a read
 * is searched for its terminator only in the bytes each read adds, not
 * from its start again (a 100 MB record was scanned ~400 times). */
static int fill_from_current(rec_reader *r, rec_chunk *c)
{
    if (!ensure_room(&c->buf, &c->cap, r->carry_len + READ_BYTES)) goto no_memory;
    if (r->carry_len) memcpy(c->buf, r->carry, r->carry_len);
    c->bytes = r->carry_len;
    bool read_now = !r->carry_records;          /* else split the carried records first */
    size_t scanned = read_now ? r->carry_len : 0; /* bytes from the start known to hold no terminator */
    r->carry_len = 0;
    r->carry_records = false;
    size_t n = 0;
    const char *p = c->buf;
    for (;;) {
        if (!r->eof && read_now) {
            if (!ensure_room(&c->buf, &c->cap, c->bytes + READ_BYTES)) goto no_memory;
            ssize_t got = read_once(r, c);
            if (got == -2) return -1;
            if (got > 0) {
                c->bytes += (size_t)got;
                r->read_total += (uint64_t)got;
                c->short_read = (size_t)got < READ_BYTES;
            } else {
                r->eof = true;
                if (got < 0) c->failed = true; /* keep what was read, drop the rest */
            }
        }
        read_now = true;
        if (!r->eof && !memchr(c->buf + scanned, r->terminator, c->bytes - scanned)) {
            scanned = c->bytes; /* no record complete yet: one longer than what was read so far */
            continue;
        }
        p = c->buf;
        const char *end = c->buf + c->bytes;
        n = r->long_records ? split_long(&p, end, r->terminator, c->rec, c->len, 0, RECORDS_PER_CHUNK)
                            : split_short(&p, end, r->terminator, c->rec, c->len, 0, RECORDS_PER_CHUNK);
        if (n) r->long_records = (size_t)(p - c->buf) / n > LONG_RECORD_BYTES;
        if (r->eof && n < RECORDS_PER_CHUNK && p < end) { /* the last record, without terminator */
            c->rec[n] = p;
            c->len[n] = (size_t)(end - p);
            c->unterminated = n++;
            p = end;
        }
        if (n || r->eof) break;
    }
    c->n = n;
    c->name = r->name;
    c->first_line = r->line + 1;
    r->line += n;
    size_t rest = c->bytes - (size_t)(p - c->buf);
    if (rest) { /* a partial record, or records past a full chunk */
        if (!ensure_room(&r->carry, &r->carry_cap, rest)) goto no_memory;
        memcpy(r->carry, p, rest);
        r->carry_len = rest;
        r->carry_records = n == RECORDS_PER_CHUNK;
    }
    if (r->eof && !r->carry_len) close_current(r);
    return n ? 1 : 0;
no_memory:
    cli_error("%s: a record does not fit in memory", r->name);
    c->failed = true;
    c->n = 0;
    r->carry_len = 0;
    r->carry_records = false;
    close_current(r);
    return 0;
}

/* Fills c with the next whole records (never more than one input's); an
 * empty chunk with c->end set means no input is left (or a stop signal).
 * Without may_open it stops, empty, where the next input would be opened
 * (the caller's thread: open(2) of a FIFO may wait for a writer). */
static void fill_chunk(rec_reader *r, rec_chunk *c, bool may_open)
{
    c->n = 0;
    c->unterminated = SIZE_MAX;
    c->bytes = 0;
    c->short_read = c->failed = c->end = false;
    for (;;) {
        if (r->fd < 0 && !may_open) break;
        if (r->fd < 0 && !open_next(r, &c->failed)) {
            c->end = true;
            break;
        }
        int got = fill_from_current(r, c);
        if (got > 0) break;
        if (got < 0) {
            c->end = true; /* records_next reports the signal */
            break;
        }
    }
    c->read_total = r->read_total;
}

/* ---- the reader thread -------------------------------------------------------- */

/* Hand-offs. The source (the inputs, the carried partial record, the
 * counters) is used by whoever holds r->source and fills chunk `filled`:
 * the reader thread, or the caller when it finds the ring empty and the
 * reader is not filling. Without that help, a reader woken on a loaded
 * machine waits for a CPU (often its waker's) longer than the caller takes
 * to empty the ring, and two threads ran slower than one; with it, the
 * caller waits only for a reader that is filling. Each side sleeps only when
 * it must and is woken only when asleep, the reader not before half the
 * ring is free again (fewer wakes). */
#define READER_RESUME (READER_CHUNKS / 2) /* chunks ahead at most when a sleeping reader is woken */

static void unlock_source(void *arg)
{
    pthread_mutex_unlock(&((rec_reader *)arg)->source);
}

/* Fills chunk `filled` and publishes it; the caller holds r->source.
 * Returns the chunk. */
static rec_chunk *fill_next(rec_reader *r, bool may_open)
{
    rec_chunk *c = &r->chunk[r->filled % READER_CHUNKS]; /* `filled` changes only under r->source */
    fill_chunk(r, c, may_open);
    pthread_mutex_lock(&r->lock);
    r->filled++;
    if (c->end) r->source_done = true;
    if (r->caller_waiting) pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    return c;
}

static void *reader_main(void *arg)
{
    rec_reader *r = arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    in_reader_thread = true;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        /* the caller holds chunk taken-1; the others may be filled ahead */
        if (!r->stop && r->filled - r->taken >= READER_CHUNKS - 1) {
            r->reader_waiting = true;
            while (!r->stop && r->filled - r->taken > READER_RESUME) pthread_cond_wait(&r->changed, &r->lock);
            r->reader_waiting = false;
        }
        bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;
        pthread_mutex_lock(&r->source);
        /* cancelled only inside read(2) (read_once): let go of the source then too */
        pthread_cleanup_push(unlock_source, r);
        pthread_mutex_lock(&r->lock);
        stop = r->stop || r->source_done || r->filled - r->taken >= READER_CHUNKS - 1; /* the caller may have helped */
        pthread_mutex_unlock(&r->lock);
        if (!stop) fill_next(r, true);
        pthread_cleanup_pop(1);
        pthread_mutex_lock(&r->lock);
        stop = r->source_done;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;
    }
    return NULL;
}

static char stdin_name[] = "-";
static char *stdin_only[] = {stdin_name};

bool records_open(rec_reader *r, char **paths, size_t npaths, char terminator, int threads)
{
    memset(r, 0, sizeof *r);
    r->terminator = terminator;
    r->paths = npaths ? paths : stdin_only;
    r->npaths = npaths ? npaths : 1;
    r->fd = -1;
    for (size_t i = 0; i < READER_CHUNKS; i++) {
        rec_chunk *c = &r->chunk[i];
        c->rec = malloc(RECORDS_PER_CHUNK * sizeof *c->rec);
        c->len = malloc(RECORDS_PER_CHUNK * sizeof *c->len);
        if (!c->rec || !c->len || !ensure_room(&c->buf, &c->cap, 2 * READ_BYTES)) {
            records_close(r);
            cli_error("out of memory");
            return false;
        }
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
    if (threads < 2) return true;

    r->threaded = true;
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->source, NULL);
    pthread_cond_init(&r->changed, NULL);
    /* Stop signals go to the caller's thread, which syncs and exits; the
     * reader is cancelled in its read instead. */
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    /* set before the thread runs: it shares a word with fields the reader
     * reads (a compiler may load them together; TSan saw that as a race) */
    r->thread_started = true;
    int err = pthread_create(&r->thread, NULL, reader_main, r);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (err) {
        r->thread_started = false;
        cli_error("cannot start the reader thread: %s", strerror(err));
        records_close(r);
        return false;
    }
    return true;
}

/* The next chunk from the ring (threaded); NULL on a stop signal. */
static rec_chunk *take_chunk(rec_reader *r)
{
    pthread_mutex_lock(&r->lock);
    for (;;) {
        if (r->filled == r->taken && r->taken && r->chunk[(r->taken - 1) % READER_CHUNKS].end) {
            pthread_mutex_unlock(&r->lock);
            return &r->chunk[(r->taken - 1) % READER_CHUNKS]; /* the end was handed over already */
        }
        if (cli_stop_signal) {
            pthread_mutex_unlock(&r->lock);
            return NULL;
        }
        if (r->filled != r->taken) break;
        if (!r->source_done && pthread_mutex_trylock(&r->source) == 0) {
            /* the reader is not filling: fill the next chunk here (its slot is
             * free: the ring is empty) unless it was filled meanwhile, from the
             * input open now (the reader opens the next: see fill_chunk) */
            bool help = r->filled == r->taken && r->fd >= 0;
            pthread_mutex_unlock(&r->lock);
            if (help) fill_next(r, false);
            pthread_mutex_unlock(&r->source);
            pthread_mutex_lock(&r->lock);
            if (help || r->filled != r->taken) continue;
        }
        /* a stop signal does not interrupt a wait: look every 50 ms */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        r->caller_waiting = true;
        pthread_cond_timedwait(&r->changed, &r->lock, &until);
        r->caller_waiting = false;
    }
    rec_chunk *c = &r->chunk[r->taken % READER_CHUNKS];
    r->taken++; /* and the chunk taken before is handed back: the reader may refill it */
    if (r->reader_waiting && r->filled - r->taken <= READER_RESUME) pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    return c;
}

long records_next(rec_reader *r, rec_batch *b)
{
    b->n = 0;
    rec_chunk *c;
    for (;;) {
        if (r->threaded) {
            c = take_chunk(r);
            if (!c) return -2;
        } else {
            c = &r->chunk[0];
            fill_chunk(r, c, true);
        }
        if (c->end && cli_stop_signal) return -2; /* a read of the caller's was interrupted */
        if (c->failed) r->failed = true;
        if (c->n || c->end) break;
        /* the caller stopped where the reader opens the next input */
    }
    b->n = c->n;
    b->rec = c->rec;
    b->len = c->len;
    b->unterminated = c->unterminated;
    b->name = c->name;
    b->first_line = c->first_line;
    r->bytes = c->read_total;
    r->records += c->n;
    r->short_read = c->short_read;
    return (long)c->n;
}

void records_close(rec_reader *r)
{
    if (r->thread_started) {
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        pthread_cancel(r->thread); /* takes effect only inside its read */
        pthread_join(r->thread, NULL);
        r->thread_started = false;
    }
    if (r->threaded) {
        pthread_mutex_destroy(&r->lock);
        pthread_mutex_destroy(&r->source);
        pthread_cond_destroy(&r->changed);
        r->threaded = false;
    }
    close_current(r);
    for (size_t i = 0; i < READER_CHUNKS; i++) {
        free(r->chunk[i].buf);
        free(r->chunk[i].rec);
        free(r->chunk[i].len);
        memset(&r->chunk[i], 0, sizeof r->chunk[i]);
    }
    free(r->carry);
    r->carry = NULL;
}
