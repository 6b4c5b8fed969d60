/*
 * dedup_batch.h — "was this key new?" for a batch, in order.
 *
 * Until the library has an insert-and-report-new call, a batch is hashed
 * once, probed with one batch lookup, and its absent keys are inserted with
 * one batch insert. A key repeated inside the batch is new only the first
 * time: absent keys are checked against a small table of the batch's new
 * hashes (two keys with equal hashes set the same bits, so this is exactly
 * the filter's notion of "the same key").
 */
#ifndef BLOOMSIMD_CLI_DEDUP_BATCH_H
#define BLOOMSIMD_CLI_DEDUP_BATCH_H

#include "records.h"

typedef struct dedup_table {
    uint64_t *hash;
    uint32_t *stamp; /* slot used in this batch iff stamp == current */
    uint64_t *fresh; /* the batch's new hashes, in order, for the insert */
    uint32_t current;
    size_t mask;
} dedup_table;

bool dedup_table_init(dedup_table *t, size_t batch_max);
void dedup_table_free(dedup_table *t);
/* b->hit[i] = 1 if key i is new (absent before, and first in the batch);
 * the new keys are inserted. *new_count gets their number. */
bloomsimd_status dedup_batch(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b, dedup_table *t,
                             size_t *new_count);

#endif
