/*
 * out.h — buffered output: records are copied into a 1 MiB buffer and
 * written with one write(2) per buffer, never one per record; runs of
 * records of 64 KiB or more are written straight from the input's buffer.
 */
#ifndef BLOOMSIMD_CLI_OUT_H
#define BLOOMSIMD_CLI_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

typedef struct out_writer {
    int fd;
    char *buf;
    size_t cap, len;
    int err; /* errno of the first failed write; nothing is written after it */
} out_writer;

bool out_init(out_writer *o, int fd);
void out_free(out_writer *o);
bool out_write(out_writer *o, const void *p, size_t n);
bool out_flush(out_writer *o);
/* Writes the records i with sel[i] == want (every record if sel is NULL;
 * sel[i] is 0 or 1), each ending in `terminator` (added to an unterminated
 * last record, as grep does). A run of selected records goes out as one
 * copy, or as one write(2) from the batch's buffer when it is long. */
bool out_records(out_writer *o, const rec_batch *b, const uint8_t *sel, uint8_t want, char terminator);
/* Reports a failed write ("write error: ...") and returns the exit status;
 * a closed pipe (EPIPE) is silent and ends the process the usual way, by
 * SIGPIPE, after `cleanup` (may be NULL) has run. */
int out_failed(out_writer *o, void (*cleanup)(void));

#endif
