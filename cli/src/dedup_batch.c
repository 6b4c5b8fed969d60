/*
 * dedup_batch.c — see dedup_batch.h.
 */
#include "dedup_batch.h"

#include <stdlib.h>
#include <string.h>

bool dedup_table_init(dedup_table *t, size_t batch_max)
{
    memset(t, 0, sizeof *t);
    size_t slots = 1;
    while (slots < 2 * batch_max) slots <<= 1; /* load factor <= 1/2: short probe runs */
    t->hash = malloc(slots * sizeof *t->hash);
    t->stamp = calloc(slots, sizeof *t->stamp);
    t->fresh = malloc(batch_max * sizeof *t->fresh);
    t->mask = slots - 1;
    if (t->hash && t->stamp && t->fresh) return true;
    dedup_table_free(t);
    cli_error("out of memory");
    return false;
}

void dedup_table_free(dedup_table *t)
{
    free(t->hash);
    free(t->stamp);
    free(t->fresh);
    memset(t, 0, sizeof *t);
}

/* True if h was not yet in the table (and adds it). */
static bool table_add(dedup_table *t, uint64_t h)
{
    /* The filter's hashes are uniform: their low bits index the table directly. */
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        if (t->stamp[i] != t->current) {
            t->stamp[i] = t->current;
            t->hash[i] = h;
            return true;
        }
        if (t->hash[i] == h) return false;
    }
}

bloomsimd_status dedup_batch(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b, dedup_table *t,
                             size_t *new_count)
{
    size_t n = b->n;
    if (o->u64) {
        bloomsimd_hash_batch_u64(f, b->u64, n, b->hash);
    } else {
        for (size_t i = 0; i < n; i++) b->hash[i] = bloomsimd_hash(f, b->key[i], b->key_len[i]);
    }
    bloomsimd_contains_hashes(f, b->hash, n, b->hit);
    if (++t->current == 0) { /* stamps wrapped: forget them all once every 2^32 batches */
        memset(t->stamp, 0, (t->mask + 1) * sizeof *t->stamp);
        t->current = 1;
    }
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t is_new = !b->hit[i] && table_add(t, b->hash[i]);
        if (is_new) t->fresh[fresh++] = b->hash[i];
        b->hit[i] = is_new;
    }
    *new_count = fresh;
    return bloomsimd_add_hashes(f, t->fresh, fresh);
}
