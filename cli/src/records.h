/*
 * records.h — reading records from files and pipes in large blocks.
 *
 * Input is read with one read(2) per refill into a buffer of a few MiB and
 * split 8 bytes at a time (or with memchr, the C library's vector search,
 * for long records), so there is no per-byte loop and no per-record system
 * call. A record is the bytes up to
 * its terminator ('\n', or '\0' with --null); the last record of an input
 * counts even without a terminator. Records never span two inputs.
 */
#ifndef BLOOMSIMD_CLI_RECORDS_H
#define BLOOMSIMD_CLI_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* A batch of records: record i is the len[i] bytes at rec[i], followed by
 * its terminator, except the last record of an input that lacks one
 * (`unterminated` is then its index, else SIZE_MAX). key/key_len are the
 * keys: the records themselves (aliasing rec/len) or, with --crlf or
 * --field, parts of them kept in key_store/key_len_store (keys.c).
 * Pointers stay valid until the next records_next. */
typedef struct rec_batch {
    size_t n, max;
    const char **rec;
    size_t *len;
    size_t unterminated;
    const void *const *key;
    const size_t *key_len;
    const void **key_store;
    size_t *key_len_store;
    uint64_t *u64;
    uint64_t *hash;
    uint8_t *hit;
} rec_batch;

bool rec_batch_init(rec_batch *b, size_t max);
void rec_batch_free(rec_batch *b);

typedef struct rec_reader {
    char terminator;
    char **paths;           /* inputs; "-" is stdin */
    size_t npaths, next_path;
    int fd;                 /* -1 between inputs */
    const char *name;       /* current input, for messages */
    char *buf;
    size_t cap, start, end; /* unconsumed bytes are buf[start, end) */
    bool eof;               /* current input exhausted */
    bool long_records;      /* the last batch averaged > 128 bytes a record: split with memchr */
    bool short_read;        /* the last read returned less than asked (a pipe): flush output */
    uint64_t bytes;         /* bytes read so far */
    uint64_t records;       /* records returned so far */
    uint64_t line;          /* records returned from the current input (for messages) */
    uint64_t total_bytes;   /* sum of the inputs' sizes if all are regular files, else 0 */
    bool failed;            /* an input could not be read (printed): exit status 2 at the end */
} rec_reader;

/* paths may be empty: stdin. Fails (prints) only on allocation. */
bool records_open(rec_reader *r, char **paths, size_t npaths, char terminator);
/* Fills b with up to b->max records. Returns the count, 0 at the end of all
 * input, or -2 when a stop signal interrupted a read. An unreadable input is
 * reported and skipped, and sets r->failed (exit status 2 at the end, as
 * grep does). */
long records_next(rec_reader *r, rec_batch *b);
void records_close(rec_reader *r);

#endif
