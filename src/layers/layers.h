/*
 * layers.h — layered filters: scalable (docs/SCALABLE.md) and sliding windows
 * (docs/WINDOWS.md). Both are a handle (a bloomsimd_filter with `layers`
 * set) over up to BLOOMSIMD_MAX_LAYERS plain filter objects that share the
 * handle's seed, kernel and flags, so a key is hashed once and the same hash
 * probes every layer.
 *
 *   scalable  layer i is sized for capacity * growth^i keys at the FPR its
 *             schedule gives (schedule.c: the default budget schedule, or
 *             the geometric fpr (1 - r) r^i); `count` layers are in use. A layer is only
 *             ever appended (under `lock`, then published by a release store
 *             of `count`) and never moved or freed before destroy, so readers
 *             take no lock: they acquire `count` and probe that many.
 *   window    `count` = G generations in fixed slots; `phase` (below) says
 *             which slot is current. Readers probe all G slots.
 */
#ifndef BLOOMSIMD_LAYERS_H
#define BLOOMSIMD_LAYERS_H

#include "../baseline.h"

#include <pthread.h>

#include "../internal.h"

/* The layer table (struct bloomsimd_layers): the first layers inline, the
 * rest in segments of doubling size. */
#define BLOOMSIMD_LAYERS_INLINE 64u
#define BLOOMSIMD_LAYER_SEGMENTS 19u /* [1..18]: 64 + 64 (2^18 - 1) = 2^24 layers */

/* Keys per pass of a layered lookup or insert: each pass probes one layer
 * with every key of the chunk still undecided (one pipelined kernel call
 * per layer), so the chunk must be long enough for the kernel's prefetch
 * distance to pay off and short enough for the stack. */
#define BLOOMSIMD_CHAIN_CHUNK 1024u

/* The hashes of chunk [base, base + count) of a batch: src itself when it
 * already holds hashes, else the keys hashed into `scratch` with the
 * handle's hash, kernel and seed. */
static inline const uint64_t *bloomsimd_chunk_hashes(const bloomsimd_filter *f, const uint64_t *src, bool src_keys,
                                                     size_t base, size_t count, uint64_t *scratch)
{
    if (!src_keys) return src + base;
    bloomsimd_u64_hash(f, src + base, count, scratch);
    return scratch;
}

/* How a scalable filter splits its FPR budget between layers (schedule.c,
 * docs/SCALABLE.md); the file records it (docs/FORMAT.md, version 3). */
typedef enum {
    BLOOMSIMD_SCHEDULE_GEOMETRIC = 0, /* layer i: fpr (1 - r) r^i (options.tightening r in (0, 1)) */
    BLOOMSIMD_SCHEDULE_BUDGET = 1     /* the default (options.tightening 0) */
} bloomsimd_schedule;

/* One layer of a scalable filter's plan: its capacity, its FPR, and the
 * capacity of the chain through it (C_i = c_0 + ... + c_i, summed in double
 * one layer at a time, so every host derives the same value). */
typedef struct bloomsimd_chain_step {
    uint64_t capacity;
    double fpr;
    double through;
} bloomsimd_chain_step;

/* The parameters that decide a scalable filter's layers. */
typedef struct bloomsimd_chain_plan {
    bloomsimd_schedule schedule;
    uint32_t growth;   /* options.growth */
    double tightening; /* r of the geometric schedule; 0 for the budget schedule */
    uint64_t capacity; /* c_0 */
    double fpr;        /* the whole chain's target */
} bloomsimd_chain_plan;

struct bloomsimd_layers {
    bloomsimd_kind kind;
    uint32_t growth;       /* scalable: options.growth */
    double tightening;     /* scalable: r of the geometric schedule, 0 for the budget schedule */
    bloomsimd_schedule schedule; /* scalable */
    double through;        /* scalable: C of the newest layer (bloomsimd_chain_step); changes under `lock` */
    uint32_t k_option;     /* options.k: 0 = each layer's sizing picks its k */
    uint32_t count;        /* layers in use (scalable: atomic, release on grow); a window: G */
    uint64_t phase;        /* window: 2 * rotations, + 1 while a rotate drains (window.c); atomic */
    pthread_mutex_t lock;  /* serialises grows and rotates */
    /* The layer table: layers 0..63 here, layer i >= 64 in segment s =
     * floor(log2(i / 64)) + 1, which holds layers 64 * 2^(s-1) .. 64 * 2^s - 1.
     * A segment is allocated (under `lock`) before the first of its layers is
     * published and is never moved or freed before destroy, so a reader that
     * acquired `count` reads any slot below it without a lock; segments 1..18
     * reach BLOOMSIMD_MAX_LAYERS = 2^24 (bloomsimd_layer_get). */
    bloomsimd_filter *layer[BLOOMSIMD_LAYERS_INLINE];
    bloomsimd_filter **segment[BLOOMSIMD_LAYER_SEGMENTS];
    /* window: writers registered under phase p, at [p % 4]; on its own cache
     * line so that registration does not invalidate the line readers load
     * `phase` from. */
    _Alignas(64) uint32_t writers[4];
};

/* ---- schedule.c ---- */
/* Layer 0 of a plan: capacity c_0 and its share of the FPR budget. */
bloomsimd_chain_step bloomsimd_chain_first(const bloomsimd_chain_plan *plan);
/* Layer i + 1 from layer i. TOO_LARGE (with the detail) when its capacity
 * would overflow 64 bits or its FPR fall below BLOOMSIMD_MIN_FPR. */
bloomsimd_status bloomsimd_chain_next(const bloomsimd_chain_plan *plan, const bloomsimd_chain_step *prev,
                                      bloomsimd_chain_step *next);
/* The plan of a scalable handle. */
bloomsimd_chain_plan bloomsimd_chain_plan_of(const bloomsimd_filter *f);

/* ---- create.c ---- */
/* The options checks of a layered create (sizing checks the rest): the
 * whole filter's FPR (0 -> default) and, for a scalable filter, its plan
 * (capacity, growth, schedule, r). */
bloomsimd_status bloomsimd_layered_validate(const bloomsimd_options *o, double *fpr, bloomsimd_chain_plan *plan);
/* Creates a scalable filter or a window from validated-here options. */
bloomsimd_status bloomsimd_layered_create(const bloomsimd_options *o, bloomsimd_filter **out);
/* A handle with an empty layer table, for create and for the persistence
 * readers: kernel chosen, flags and seed set, geometry of shape (its k,
 * layout and hash; no bit array: shape->blocks is ignored). */
bloomsimd_status bloomsimd_layered_handle(bloomsimd_kind kind, const bloomsimd_geometry_choice *shape, uint64_t seed,
                                          uint32_t flags, const char *kernel_name, bloomsimd_filter **out);
/* A plain layer object with a zeroed bit array of `blocks` blocks, of the
 * handle's layout and hash. */
bloomsimd_status bloomsimd_layer_alloc(const bloomsimd_filter *handle, uint64_t blocks, uint32_t k,
                                       uint64_t capacity, double fpr, bloomsimd_filter **out);
/* Sizes and allocates layer i >= 1 of a scalable filter (capacity of layer
 * i - 1 times growth, FPR by its schedule). TOO_LARGE past BLOOMSIMD_MAX_LAYERS, a
 * capacity overflow, an FPR below BLOOMSIMD_MIN_FPR or more blocks than the
 * layout allows; NO_MEMORY. The caller publishes it, and *through (C_i). */
bloomsimd_status bloomsimd_scalable_next_layer(const bloomsimd_filter *f, uint32_t i, bloomsimd_filter **out,
                                               double *through);
void bloomsimd_layered_destroy(bloomsimd_filter *f);
void bloomsimd_layered_clear(bloomsimd_filter *f);
void bloomsimd_layered_info(const bloomsimd_filter *f, bloomsimd_info *info);
double bloomsimd_layered_predicted_fpr(const bloomsimd_filter *f, uint64_t items);
/* CLOCK_REALTIME in ns. */
int64_t bloomsimd_now_ns(void);

/* ---- chain.c ---- */
/* The layers in probe order (scalable: newest first; window: current
 * first), as of one acquire load of the count (and a window's phase). */
typedef struct bloomsimd_probe_order {
    const bloomsimd_layers *ls;
    uint32_t count;   /* layers to probe */
    uint32_t current; /* a window's current slot */
} bloomsimd_probe_order;
bloomsimd_probe_order bloomsimd_probe_order_of(const bloomsimd_filter *f);
/* Layer l (0 <= l < o->count) in probe order. */
static inline const bloomsimd_filter *bloomsimd_layer_in_order(const bloomsimd_probe_order *o, uint32_t l);
/* Lookup of n keys (src_keys: 64-bit keys, else hashes) through every layer,
 * one pass per layer over the keys still undecided; writes `out` in `form`. */
size_t bloomsimd_layered_lookup(const bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                bloomsimd_hit_form form, void *out);
/* One hash through every layer (single-key lookups). */
bool bloomsimd_layered_contains_one(const bloomsimd_filter *f, uint64_t hash);
/* Chunks of at most this many keys go one key at a time through the
 * layers' single-key probes (chain.c: few_keys). */
#define BLOOMSIMD_CHAIN_FEW 8u
/* Removes from cand[from..*m) (with their idx) the hashes `layer` holds, in
 * place and in order; hits' positions get found[idx] = 1 when found is not
 * NULL. One kernel pass. */
void bloomsimd_chain_drop_hits(const bloomsimd_filter *layer, uint64_t *cand, uint32_t *idx, size_t from, size_t *m,
                               uint8_t *found);

/* ---- scalable.c / window.c ---- */
/* Inserts n keys or hashes. report: insert-and-report-new (out may be NULL,
 * *fresh gets the new count); else a plain insert (every key counted). */
bloomsimd_status bloomsimd_scalable_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                           uint8_t *out, size_t *fresh, bool report);
bloomsimd_status bloomsimd_window_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                         uint8_t *out, size_t *fresh, bool report);

/* Window fields of get_info (generations, rotations, current items, ages). */
void bloomsimd_window_info(const bloomsimd_filter *f, bloomsimd_info *info);

static inline bloomsimd_status bloomsimd_layered_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys,
                                                        size_t n, uint8_t *out, size_t *fresh, bool report)
{
    if (f->layers->kind == BLOOMSIMD_KIND_SCALABLE)
        return bloomsimd_scalable_insert(f, src, src_keys, n, out, fresh, report);
    return bloomsimd_window_insert(f, src, src_keys, n, out, fresh, report);
}

/* Segment and offset of layer i >= BLOOMSIMD_LAYERS_INLINE. */
static inline uint32_t bloomsimd_layer_segment(uint32_t i) { return 32u - (uint32_t)__builtin_clz(i >> 6); }
static inline uint32_t bloomsimd_segment_first(uint32_t s) { return BLOOMSIMD_LAYERS_INLINE << (s - 1); }

/* Layer i (i below the count the caller acquired, or under the lock). */
static inline bloomsimd_filter *bloomsimd_layer_get(const bloomsimd_layers *ls, uint32_t i)
{
    if (i < BLOOMSIMD_LAYERS_INLINE) return ls->layer[i];
    uint32_t s = bloomsimd_layer_segment(i);
    return ls->segment[s][i - bloomsimd_segment_first(s)];
}

static inline const bloomsimd_filter *bloomsimd_layer_in_order(const bloomsimd_probe_order *o, uint32_t l)
{
    if (o->ls->kind == BLOOMSIMD_KIND_SCALABLE) return bloomsimd_layer_get(o->ls, o->count - 1 - l);
    return o->ls->layer[(o->current + o->count - l) % o->count];
}

/* The slot of layer i < BLOOMSIMD_MAX_LAYERS, allocating its segment (zeroed)
 * if this is its first layer; NULL if that allocation failed. Writers only:
 * under the lock, or before the handle is shared. */
bloomsimd_filter **bloomsimd_layer_slot(bloomsimd_layers *ls, uint32_t i);

/* Layers in use: an acquire load (pairs with the release store of a grow). */
static inline uint32_t bloomsimd_layer_count(const bloomsimd_layers *ls)
{
    return __atomic_load_n(&ls->count, __ATOMIC_ACQUIRE);
}

#endif
