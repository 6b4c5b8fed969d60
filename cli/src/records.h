/*
 * records.h — reading records from files and pipes in large blocks.
 *
 * Input is read in chunks of 256 KiB (one read(2) each from a file) and
 * split 64 bytes at a time (SSE2 compares on x86-64), or with memchr (the C
 * library's vector search) for long records (split.h): no per-byte loop and
 * no per-record system call. A record is the bytes up to its terminator
 * ('\n', or '\0' with --null); the last record of an input counts even
 * without a terminator. Records never span two inputs.
 *
 * With two threads (the default on a machine with two or more CPUs) a reader
 * thread reads and splits the next chunks while the caller hashes, probes
 * and writes the current one: a two-stage pipeline whose stages cost about
 * the same for 16-byte records at 10^7 keys (reading and splitting ~4.5 ns a
 * record, hashing and probing ~5.5 on Zen 5), so with a free CPU a run takes
 * about half the time of one thread doing both. When the caller finds no
 * chunk ready and the reader is not filling one (asleep, or waiting for a
 * CPU on a busy machine), the caller fills it from the input open now (the
 * reader opens the next: open(2) of a FIFO may wait for a writer, and only
 * the reader can be cancelled there): two threads are never slower than one
 * by more than the hand-offs. A read of the caller's on a pipe waits in
 * pselect first, so a stop signal arriving just before it is not missed.
 */
#ifndef BLOOMSIMD_CLI_RECORDS_H
#define BLOOMSIMD_CLI_RECORDS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* Records per chunk, so per batch. */
#define RECORDS_PER_CHUNK 32768

/* A batch of records: record i is the len[i] bytes at rec[i], followed by
 * its terminator, except the last record of an input that lacks one
 * (`unterminated` is then its index, else SIZE_MAX). key/key_len are the
 * keys: the records themselves (aliasing rec/len) or, with --crlf or
 * --field, parts of them kept in key_store/key_len_store (keys.c).
 * Everything points into the reader's chunk and stays valid until the
 * next records_next. The records of a batch are adjacent in that chunk:
 * rec[i + 1] == rec[i] + len[i] + 1 (out_records writes runs of them as one
 * span). */
typedef struct rec_batch {
    size_t n, max;
    const char *const *rec;
    const size_t *len;
    size_t unterminated;
    const char *name;      /* the input these records come from, for messages */
    uint64_t first_line;   /* record number of rec[0] in that input (1-based) */
    const void *const *key;
    const size_t *key_len;
    const void **key_store;
    size_t *key_len_store;
    uint64_t *u64;
    uint8_t *hit;
} rec_batch;

bool rec_batch_init(rec_batch *b);
void rec_batch_free(rec_batch *b);

/* One unit of work: a buffer of whole records and where they are. */
typedef struct rec_chunk {
    char *buf;
    size_t cap, bytes;
    const char **rec;
    size_t *len;
    size_t n, unterminated;
    const char *name;
    uint64_t first_line;
    uint64_t read_total;   /* bytes read from all inputs when this chunk was made */
    bool short_read;       /* a read returned less than asked (a pipe): flush output */
    bool failed;           /* an input could not be read (reported) */
    bool end;              /* no more input */
} rec_chunk;

/* Chunks in the ring between the reader thread and the caller: the caller
 * holds one, the reader fills up to READER_CHUNKS - 1 ahead (records.c says
 * when each side sleeps and is woken). */
#define READER_CHUNKS 8

typedef struct rec_reader {
    /* the source: touched only by whoever fills chunks */
    char terminator;
    char **paths;
    size_t npaths, next_path;
    int fd;
    const char *name;
    bool eof, long_records;
    bool may_block;        /* the input is not a regular file: a read may wait */
    uint64_t line;         /* records taken from the current input */
    uint64_t read_total;
    char *carry;           /* a partial record carried to the next chunk */
    size_t carry_len, carry_cap;
    bool carry_records;    /* the carry may hold whole records (the chunk filled up) */
    /* the chunks: a ring filled by the reader thread (or in records_next) */
    rec_chunk chunk[READER_CHUNKS];
    size_t filled, taken;  /* chunks made / handed to the caller */
    bool threaded, stop, thread_started;
    bool reader_waiting, caller_waiting; /* asleep on `changed` */
    bool source_done;      /* the chunk with `end` is filled */
    pthread_mutex_t source; /* held by whoever fills (records.c) */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* for the caller */
    uint64_t bytes;        /* bytes read so far */
    uint64_t records;      /* records returned so far */
    uint64_t total_bytes;  /* sum of the inputs' sizes if all are regular files, else 0 */
    bool short_read;       /* the current batch ended a short read: flush output */
    bool failed;           /* an input could not be read (printed): exit status 2 at the end */
} rec_reader;

/* paths may be empty: stdin. threads: 1 or 2. Fails (prints) only on
 * allocation or thread creation. */
bool records_open(rec_reader *r, char **paths, size_t npaths, char terminator, int threads);
/* Fills b with the next chunk's records. Returns the count, 0 at the end of
 * all input, or -2 when a stop signal arrived while waiting for input. An
 * unreadable input is reported and skipped, and sets r->failed (exit status
 * 2 at the end, as grep does). */
long records_next(rec_reader *r, rec_batch *b);
/* Stops the reader thread (even one blocked on a quiet pipe) and frees. */
void records_close(rec_reader *r);

#endif
