/*
 * keys.h — from records to keys: strip the terminator (and '\r' with
 * --crlf), pick a field, parse integers; then the batch calls.
 */
#ifndef BLOOMSIMD_CLI_KEYS_H
#define BLOOMSIMD_CLI_KEYS_H

#include "records.h"

/* Fills b->key/key_len (or b->u64 with --u64) for the batch's records.
 * A record that is not an integer under --u64 is an error: printed with its
 * input and record number, false returned. */
bool keys_extract(const cli_record_options *o, rec_batch *b);
/* Inserts the batch's keys with the library's batch calls. */
bloomsimd_status keys_add(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b);
/* b->hit[i] = 1 if key i may be present; returns the count. */
size_t keys_contains(const bloomsimd_filter *f, const cli_record_options *o, rec_batch *b);
/* Insert and report new, in order (the library's add_new calls): b->hit[i] =
 * 1 if key i was absent before, so a key repeated within the batch is new
 * only the first time. *new_count gets their number. */
bloomsimd_status keys_add_new(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b, size_t *new_count);

#endif
