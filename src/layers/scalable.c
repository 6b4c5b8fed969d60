/*
 * scalable.c — inserts into a scalable filter, and growing it
 * (docs/SCALABLE.md).
 *
 * New keys go to the newest layer, which holds at most its capacity: keys
 * are counted into a layer BEFORE they are inserted (a reservation on its
 * `items`, by compare-and-swap when concurrent), so no layer ever holds more
 * keys than it was sized for, even with many writers, and the chain's FPR
 * bound holds. A reservation is taken for every key of a sub-batch and the
 * keys add_new found already present are given back afterwards, so a layer
 * ends full exactly when it received `capacity` new keys (RedisBloom's rule:
 * grow only when the newest layer is full and one more key must go in).
 * Concurrent writers may see the layer full while other reservations are
 * still in flight and grow a little early; that only leaves a layer
 * slightly under-filled (a lower FPR).
 *
 * Insert-and-report-new, in order: a key is new if no layer holds it. The
 * older layers (all but the newest) are probed first, one batch pass each
 * (chain.c); the keys they do not hold go through the newest layer's
 * one-pass add_new in key order, which decides "new" and handles repeats
 * within the batch. If the newest layer fills mid-batch and a layer is
 * added, the keys not yet inserted are first probed in the layer that just
 * stopped being the newest (it may hold an earlier copy from this batch).
 *
 * A grow that fails (no memory, or the next layer would exceed the layout's
 * limits or BLOOMSIMD_MIN_FPR) leaves the filter exactly as it was: keys
 * before the one that needed the layer are inserted and reported, later
 * ones are not (out 0), and later calls try the grow again.
 */
#include <string.h>

#include "layers.h"

/* Takes room for up to `want` keys in `layer`; returns how many it got (0: full). */
static size_t reserve(bloomsimd_filter *layer, size_t want)
{
    uint64_t capacity = layer->capacity;
    if (!layer->geometry.concurrent) {
        uint64_t room = capacity > layer->items ? capacity - layer->items : 0;
        size_t take = room < want ? (size_t)room : want;
        layer->items += take;
        return take;
    }
    uint64_t cur = __atomic_load_n(&layer->items, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t room = capacity > cur ? capacity - cur : 0;
        size_t take = room < want ? (size_t)room : want;
        if (take == 0) return 0;
        if (__atomic_compare_exchange_n(&layer->items, &cur, cur + take, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return take;
    }
}

static void give_back(bloomsimd_filter *layer, size_t unused)
{
    if (unused == 0) return;
    if (layer->geometry.concurrent)
        __atomic_fetch_sub(&layer->items, unused, __ATOMIC_RELAXED);
    else
        layer->items -= unused;
}

/* Adds layer `seen` if the filter still has `seen` layers and the newest is
 * still full; OK also when another thread grew it meanwhile. */
static bloomsimd_status grow(bloomsimd_filter *f, uint32_t seen)
{
    bloomsimd_layers *ls = f->layers;
    bloomsimd_status st = BLOOMSIMD_OK;
    pthread_mutex_lock(&ls->lock);
    uint32_t count = __atomic_load_n(&ls->count, __ATOMIC_RELAXED);
    const bloomsimd_filter *newest = bloomsimd_layer_get(ls, count - 1);
    if (count == seen && bloomsimd_items_get(newest) >= newest->capacity) {
        bloomsimd_filter *layer = NULL;
        double through = 0.0;
        /* a writable mapping cannot grow: its layers are the file's */
        st = f->storage == BLOOMSIMD_STORAGE_FILE_MAP
                 ? bloomsimd_fail(BLOOMSIMD_ERR_READ_ONLY, "a mapped scalable filter cannot grow (load it to grow)")
                 : bloomsimd_scalable_next_layer(f, count, &layer, &through);
        bloomsimd_filter **slot = st == BLOOMSIMD_OK ? bloomsimd_layer_slot(ls, count) : NULL;
        if (st == BLOOMSIMD_OK && !slot) {
            bloomsimd_destroy(layer);
            st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the layer table for layer %u failed", count);
        }
        if (st == BLOOMSIMD_OK) {
            *slot = layer;
            ls->through = through;
            /* the layer is complete before any thread can see it */
            __atomic_store_n(&ls->count, count + 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&ls->lock);
    return st;
}

/* One chunk of hashes. out (chunk-relative, may be NULL) is fully written:
 * keys not inserted because a grow failed get 0. */
static bloomsimd_status insert_chunk(bloomsimd_filter *f, const uint64_t *h, size_t count, uint8_t *out,
                                     size_t *fresh, bool report)
{
    bloomsimd_layers *ls = f->layers;
    uint64_t cand[BLOOMSIMD_CHAIN_CHUNK];
    uint32_t idx[BLOOMSIMD_CHAIN_CHUNK];
    uint8_t flags[BLOOMSIMD_CHAIN_CHUNK];
    memcpy(cand, h, count * sizeof *h);
    for (size_t i = 0; i < count; i++) idx[i] = (uint32_t)i;
    if (out) memset(out, 0, count);
    size_t m = count;
    uint32_t layers = bloomsimd_layer_count(ls);
    /* candidates: keys no older layer holds, probing the larger layers first */
    if (report)
        for (uint32_t l = layers - 1; l-- > 0 && m > 0;)
            bloomsimd_chain_drop_hits(bloomsimd_layer_get(ls, l), cand, idx, 0, &m, NULL);
    uint32_t checked = layers - 1; /* candidates are checked against the layers below `checked` */
    size_t pos = 0;
    while (pos < m) {
        layers = bloomsimd_layer_count(ls);
        if (report)
            for (; checked + 1 < layers && pos < m; checked++)
                bloomsimd_chain_drop_hits(bloomsimd_layer_get(ls, checked), cand, idx, pos, &m, NULL);
        if (pos == m) break;
        bloomsimd_filter *top = bloomsimd_layer_get(ls, layers - 1);
        size_t take = reserve(top, m - pos);
        if (take == 0) {
            /* Full. Keys the newest layer already holds need no room: drop
             * them before deciding to grow (a full filter fed only old keys
             * never grows). */
            if (report && checked < layers) {
                bloomsimd_chain_drop_hits(top, cand, idx, pos, &m, NULL);
                checked = layers;
                if (pos == m) break;
            }
            bloomsimd_status st = grow(f, layers);
            if (st != BLOOMSIMD_OK) return st;
            continue;
        }
        if (report) {
            size_t added = top->kernel->add_new_hashes(&top->geometry, cand + pos, take, flags);
            give_back(top, take - added);
            *fresh += added;
            if (out)
                for (size_t i = 0; i < take; i++) out[idx[pos + i]] = flags[i];
        } else {
            top->kernel->add_hashes(&top->geometry, cand + pos, take);
            *fresh += take;
        }
        pos += take;
    }
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_scalable_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                           uint8_t *out, size_t *fresh, bool report)
{
    uint64_t hashed[BLOOMSIMD_CHAIN_CHUNK];
    *fresh = 0;
    for (size_t base = 0; base < n; base += BLOOMSIMD_CHAIN_CHUNK) {
        size_t count = n - base < BLOOMSIMD_CHAIN_CHUNK ? n - base : BLOOMSIMD_CHAIN_CHUNK;
        const uint64_t *h = bloomsimd_chunk_hashes(f, src, src_keys, base, count, hashed);
        bloomsimd_status st = insert_chunk(f, h, count, out ? out + base : NULL, fresh, report);
        if (st != BLOOMSIMD_OK) {
            if (out && base + count < n) memset(out + base + count, 0, n - base - count);
            return st;
        }
    }
    return BLOOMSIMD_OK;
}
