/*
 * chain.c — lookups through the layers of a scalable filter or a window.
 *
 * Hash once, then one batch pass per layer: a chunk of keys is hashed (the
 * kernel's vectorised hash for u64 keys), the first layer in probe order is
 * probed with all of them, and every later layer with the keys still
 * undecided, as one pipelined kernel call (compacted into a dense array when
 * enough were found to pay for the copy; see bloomsimd_layered_lookup). A
 * present key stops at the first layer holding it; an absent key costs one
 * probe (one cache line) per layer, which no layered filter can avoid
 * (docs/SCALABLE.md, "Lookups"). A chunk of at most BLOOMSIMD_CHAIN_FEW keys
 * goes one key at a time through the layers' single-key probes instead.
 *
 * Rejected, by measurement (docs/SCALABLE.md, "Lookups"): one loop over the
 * layers per key for whole batches, plain, with every layer's block
 * prefetched ahead, or as an AVX-512 loop computing a key's bits once for
 * all layers: 1.2x to 2x slower than a kernel pass per layer, which keeps
 * its own pipeline of prefetches full; prefetching the chunk's block in
 * every layer into L2 before the passes, or sub-batches of 128 to 512 keys
 * ahead of them: no gain, or up to 1.2x slower.
 *
 * Probe order: a scalable filter's newest layer first (it holds the most
 * keys: about (g-1)/g of them for growth g), a window's current generation
 * first. Order changes only the work, never the answer.
 */
#include <string.h>

#include "layers.h"

bloomsimd_probe_order bloomsimd_probe_order_of(const bloomsimd_filter *f)
{
    const bloomsimd_layers *ls = f->layers;
    bloomsimd_probe_order o = {.ls = ls, .count = bloomsimd_layer_count(ls), .current = 0};
    if (ls->kind == BLOOMSIMD_KIND_WINDOW) {
        /* current slot = rotations % G; during a rotate's drain it is still
         * the old one (window.c) */
        uint64_t rotations = __atomic_load_n(&ls->phase, __ATOMIC_ACQUIRE) >> 1;
        o.current = (uint32_t)(rotations % o.count);
    }
    return o;
}

/* A few keys: one key at a time through the layers' single-key probes,
 * stopping at the first layer that holds it. Short enough that out-of-order
 * execution overlaps the layers' misses; a kernel pass per layer costs a
 * pipeline set-up per layer and waits for each layer's line in turn (one key
 * through 7 layers of a 10^7-key chain: 120 ns against 600). */
static void few_keys(const bloomsimd_probe_order *order, const uint64_t *h, size_t count, uint8_t *found)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t hit = 0;
        for (uint32_t l = 0; l < order->count && !hit; l++) {
            const bloomsimd_filter *layer = bloomsimd_layer_in_order(order, l);
            hit = layer->kernel->contains_one(&layer->geometry, h[i]);
        }
        found[i] = hit;
    }
}

void bloomsimd_chain_drop_hits(const bloomsimd_filter *layer, uint64_t *cand, uint32_t *idx, size_t from, size_t *m,
                               uint8_t *found)
{
    uint8_t hit[BLOOMSIMD_CHAIN_CHUNK];
    size_t count = *m - from;
    if (count == 0) return;
    if (count <= BLOOMSIMD_CHAIN_FEW) /* as few_keys, for the same reason */
        for (size_t i = 0; i < count; i++) hit[i] = layer->kernel->contains_one(&layer->geometry, cand[from + i]);
    else
        layer->kernel->contains_hashes(&layer->geometry, cand + from, count, BLOOMSIMD_HITS_BYTES, hit);
    size_t kept = from;
    for (size_t i = 0; i < count; i++) {
        /* branch-free compaction: always copy, advance only past misses */
        uint64_t h = cand[from + i];
        uint32_t at = idx[from + i];
        if (found) found[at] |= hit[i];
        cand[kept] = h;
        idx[kept] = at;
        kept += !hit[i];
    }
    *m = kept;
}

/*
 * Compaction (copying the undecided keys' hashes into a dense array) costs
 * about a nanosecond per key; probing a key that an earlier layer already
 * found costs one probe per remaining layer. So the keys found so far are
 * only squeezed out when that saves more than it costs: when
 * 8 x (hits since the last compaction) x (layers left) >= keys in play.
 * Absent keys (the common case of a join filter) are then never copied:
 * every layer is probed with the same hash array and its answers ORed in,
 * which measured 1.33x faster than compacting after every layer on a
 * 10-layer cache-resident chain (0% present); present keys (a layer finds
 * half of them) are compacted, 3x faster than probing every layer.
 */
size_t bloomsimd_layered_lookup(const bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                bloomsimd_hit_form form, void *out)
{
    bloomsimd_probe_order order = bloomsimd_probe_order_of(f);
    size_t layers = order.count;
    uint64_t hashed[BLOOMSIMD_CHAIN_CHUNK], dense[BLOOMSIMD_CHAIN_CHUNK];
    uint32_t idx[BLOOMSIMD_CHAIN_CHUNK];
    uint8_t found_local[BLOOMSIMD_CHAIN_CHUNK], hit[BLOOMSIMD_CHAIN_CHUNK];
    size_t total = 0;
    for (size_t base = 0; base < n; base += BLOOMSIMD_CHAIN_CHUNK) {
        size_t count = n - base < BLOOMSIMD_CHAIN_CHUNK ? n - base : BLOOMSIMD_CHAIN_CHUNK;
        const uint64_t *h = bloomsimd_chunk_hashes(f, src, src_keys, base, count, hashed);
        uint8_t *found = (form == BLOOMSIMD_HITS_BYTES && out) ? (uint8_t *)out + base : found_local;
        if (count <= BLOOMSIMD_CHAIN_FEW) {
            few_keys(&order, h, count, found);
            goto answers;
        }
        const bloomsimd_filter *first = bloomsimd_layer_in_order(&order, 0);
        size_t pending = first->kernel->contains_hashes(&first->geometry, h, count, BLOOMSIMD_HITS_BYTES, found);
        const uint64_t *cand = h; /* the hashes in play; until the first compaction, all of them */
        bool dense_idx = false;   /* cand[i] is key idx[i] (else key i) */
        size_t m = count;
        for (size_t l = 1; l < layers; l++) {
            if (pending * 8 * (layers - l) >= m) {
                size_t kept = 0;
                for (size_t i = 0; i < m; i++) {
                    uint32_t at = dense_idx ? idx[i] : (uint32_t)i;
                    dense[kept] = cand[i];
                    idx[kept] = at;
                    kept += !found[at];
                }
                cand = dense, dense_idx = true, m = kept;
                if (m == 0) break;
            }
            const bloomsimd_filter *layer = bloomsimd_layer_in_order(&order, (uint32_t)l);
            pending = layer->kernel->contains_hashes(&layer->geometry, cand, m, BLOOMSIMD_HITS_BYTES, hit);
            if (dense_idx)
                for (size_t i = 0; i < m; i++) found[idx[i]] |= hit[i];
            else
                for (size_t i = 0; i < m; i++) found[i] |= hit[i];
        }
    answers:;
        size_t hits = 0;
        for (size_t i = 0; i < count; i++) hits += found[i];
        if (form == BLOOMSIMD_HITS_BITMAP) {
            /* chunks are multiples of 8 keys: each starts on a byte boundary */
            uint8_t *bits = (uint8_t *)out + base / 8;
            memset(bits, 0, (count + 7) / 8);
            for (size_t i = 0; i < count; i++) bits[i >> 3] |= (uint8_t)(found[i] << (i & 7u));
        } else if (form == BLOOMSIMD_HITS_INDICES) {
            uint32_t *indices = (uint32_t *)out + total;
            size_t j = 0;
            for (size_t i = 0; i < count; i++) {
                indices[j] = (uint32_t)(base + i);
                j += found[i];
            }
        }
        total += hits;
    }
    return total;
}

bool bloomsimd_layered_contains_one(const bloomsimd_filter *f, uint64_t hash)
{
    bloomsimd_probe_order order = bloomsimd_probe_order_of(f);
    for (uint32_t l = 0; l < order.count; l++) {
        const bloomsimd_filter *layer = bloomsimd_layer_in_order(&order, l);
        if (layer->kernel->contains_one(&layer->geometry, hash)) return true;
    }
    return false;
}
