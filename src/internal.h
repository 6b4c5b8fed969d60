/*
 * internal.h — the filter object and the core's internal functions.
 */
#ifndef BLOOMSIMD_INTERNAL_H
#define BLOOMSIMD_INTERNAL_H

#include "baseline.h"

#include <stddef.h>
#include <stdint.h>

#include "../include/bloomsimd.h"
#include "../kernels/kernel.h"
#include "../kernels/layout.h"
#include "../kernels/xxh64_u64.h"
#include "../kernels/xxh3_bytes.h"

/* How the bit array is held; decides how destroy releases it. */
typedef enum bloomsimd_storage {
    BLOOMSIMD_STORAGE_HEAP,     /* posix_memalign */
    BLOOMSIMD_STORAGE_ANON_MAP, /* anonymous mmap (large filters, huge pages) */
    BLOOMSIMD_STORAGE_FILE_MAP, /* mapping of a saved filter file */
    BLOOMSIMD_STORAGE_BORROWED, /* a layer inside its parent's file mapping: nothing to release */
    BLOOMSIMD_STORAGE_CUSTOM    /* from a bloomsimd_set_allocator allocator (filter->allocator) */
} bloomsimd_storage;

/* What a handle is; the values are the file format's filter_kind (docs/FORMAT.md). */
typedef enum bloomsimd_kind {
    BLOOMSIMD_KIND_PLAIN = 0,
    BLOOMSIMD_KIND_SCALABLE = 1,
    BLOOMSIMD_KIND_WINDOW = 2
} bloomsimd_kind;

typedef struct bloomsimd_layers bloomsimd_layers; /* layers/layers.h */

/*
 * A plain filter, or the handle of a layered one. A layered handle has
 * `layers` set and no bit array of its own (geometry.words NULL, nblocks 0);
 * its layers are plain filter objects (layers == NULL) that share its seed,
 * kernel and flags. Every public entry point tests `layers` first.
 */
struct bloomsimd_filter {
    bloomsimd_inline inl;        /* first: the header's inline single-key calls read it (single_key.c fills it) */
    bloomsimd_geometry geometry; /* single_key.c finds the filter from it */
    bloomsimd_single_key single; /* what the single-key calls jump to (single_key.c) */
    const bloomsimd_kernel *kernel;
    uint64_t capacity;
    double fpr;
    uint64_t seed;
    uint32_t flags;
    bool read_only;
    bloomsimd_storage storage;
    void *mapping;        /* what to free / munmap */
    size_t mapping_bytes; /* length of the mapping (FILE_MAP, ANON_MAP) */
    int fd;               /* FILE_MAP: the open file, else -1 */
    bloomsimd_allocator allocator; /* CUSTOM: the allocator that made the array */
    uint64_t items;       /* keys counted in (bloomsimd_items_add); atomic when concurrent */
    int64_t started_ns;   /* a window generation: CLOCK_REALTIME when it became current */
    bloomsimd_layers *layers; /* NULL: a plain filter (or a layer) */
    bloomsimd_xxh3_params xxh3; /* the seed's XXH3 constants for byte keys */
};

/* ---- failure details (error.c) ---- */
/* Bytes of the per-thread detail buffer, with its terminating NUL. */
#define BLOOMSIMD_ERROR_DETAIL_BYTES 256u
/* Empties this thread's detail: the public calls that take a whole request
 * do this on entry, so a success leaves "" (error.c says which do not). */
void bloomsimd_error_clear(void);
/* Sets this thread's detail (printf format, truncated to the buffer; errno
 * kept) and returns `status`, so a failure site reads
 *     return bloomsimd_fail(BLOOMSIMD_ERR_..., "what was wrong", ...);   */
bloomsimd_status bloomsimd_fail(bloomsimd_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, with ": " and strerror(errno) appended (errno kept). */
bloomsimd_status bloomsimd_fail_errno(bloomsimd_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* For a status passed up from code that may not have explained it: sets the
 * status string as the detail when the detail is still empty. */
bloomsimd_status bloomsimd_fail_default(bloomsimd_status status);

/* ---- layout tables (tables/select_tables.c, generated) ---- */
/* bloomsimd_select_tables[k - 1]: the 64 word-selection masks of k (layout.h section 3). */
extern const uint16_t bloomsimd_select_tables[BLOOMSIMD_MAX_K][BLOOMSIMD_SELECT_ENTRIES];

/* ---- FPR model and sizing (fpr_model.c, sizing.c) ---- */
/* FPR(n, m, k) of kernels/layout.h section 5: exact for layout 2. NaN for k
 * outside 1..16 or when the model's terms cannot be allocated. */
double bloomsimd_model_fpr(double items, double blocks, uint32_t k);
/* Layout 1's formula (uniformly random k-subset): the bracket for sizing. */
double bloomsimd_model_fpr_hypergeometric(double items, double blocks, uint32_t k);
/* Terms of the exact model for k (0 if k is out of range or out of memory). */
uint32_t bloomsimd_model_term_count(uint32_t k);
/* FPR(n, m) of kernels/layout_split256.h section 4 (exact for layout 3); k
 * must be 8 (NaN otherwise). */
double bloomsimd_model_fpr_split256(double items, double blocks, uint32_t k);
/* The exact model of `layout` (BLOOMSIMD_LAYOUT_BLOCK512 or _SPLIT256). */
double bloomsimd_layout_model_fpr(uint32_t layout, double items, double blocks, uint32_t k);

/* The shape of one bit array: what sizing chooses (blocks, k, layout) and
 * how its keys are hashed; bloomsimd_filter_init builds the geometry from it. */
typedef struct bloomsimd_geometry_choice {
    uint64_t blocks;
    uint32_t k;
    uint32_t layout;  /* BLOOMSIMD_LAYOUT_BLOCK512 or _SPLIT256, never 0 */
    uint32_t hash_id; /* BLOOMSIMD_HASH_XXH3, _PARQUET_XXH64 or _MUM */
} bloomsimd_geometry_choice;

/* The hash of new filters whose flags name none (BLOOMSIMD_U64_XXH3 or _MUM). */
#define BLOOMSIMD_DEFAULT_HASH BLOOMSIMD_HASH_XXH3

/* The hash a new filter's flags ask for (validated by sizing: at most one). */
static inline uint32_t bloomsimd_hash_of_flags(uint32_t flags)
{
    if (flags & BLOOMSIMD_PARQUET) return BLOOMSIMD_HASH_PARQUET_XXH64;
    if (flags & BLOOMSIMD_U64_MUM) return BLOOMSIMD_HASH_MUM;
    if (flags & BLOOMSIMD_U64_XXH3) return BLOOMSIMD_HASH_XXH3;
    return BLOOMSIMD_DEFAULT_HASH;
}

/* Sizing of kernels/layout.h section 6 (and layout_split256.h section 5),
 * with the overrides of bloomsimd_options: options.layout 0 resolves to the
 * default of the kernel options.kernel selects (bloomsimd_resolve_layout).
 * Validates the options (except kernel name). */
bloomsimd_status bloomsimd_choose_geometry(const bloomsimd_options *options, bloomsimd_geometry_choice *choice,
                                           double *target_fpr);
/* The layout options ask for: options->layout if not 0, else `kernel`'s
 * default (block512 when kernel is NULL), except that an explicit k other
 * than 0 and 8 always means block512 (the only layout with that k). Does not
 * validate. */
uint32_t bloomsimd_resolve_layout(const bloomsimd_options *options, const bloomsimd_kernel *kernel);

/* ---- memory (memory.c) ---- */
/* Zeroed, 64-byte-aligned bit array for `blocks` blocks; huge pages for
 * >= 2 MiB unless BLOOMSIMD_NO_HUGEPAGES. Fills filter->geometry.words,
 * mapping, mapping_bytes, storage. */
bloomsimd_status bloomsimd_alloc_bits(bloomsimd_filter *filter, uint64_t blocks, uint32_t flags);
void bloomsimd_free_bits(bloomsimd_filter *filter);

/* ---- byte-key views (keys.c) ---- */
/* BLOOMSIMD_OK if every key of the view lies inside the memory it describes. */
bloomsimd_status bloomsimd_keys_validate(const bloomsimd_keys *v);
/* Hashes keys first .. first+count-1 of a validated view with f's seed,
 * through the kernel's multi-key XXH3. */
void bloomsimd_keys_hash_range(const bloomsimd_filter *f, const bloomsimd_keys *v, size_t first, size_t count,
                               uint64_t *hashes);

/* ---- filter object (filter.c) ---- */
/* Fills a filter struct around an already-chosen shape and kernel, without
 * the bit array (shape->blocks may be 0: a layered handle). */
bloomsimd_status bloomsimd_filter_init(bloomsimd_filter *filter, const bloomsimd_geometry_choice *shape,
                                       uint64_t seed, uint32_t flags, const bloomsimd_kernel *kernel);

/* ---- single-key calls (single_key.c) ---- */
/* Binds f->single from f's kernel, layout, hash, layers and read_only: call
 * after any of them is set (bloomsimd_filter_init does, for a new filter). */
void bloomsimd_bind_single_key(bloomsimd_filter *filter);
/* Points the filter at its bit array (NULL when freed) and rebinds its
 * single-key calls, whose inline view (bloomsimd_inline) holds the pointer. */
static inline void bloomsimd_set_words(bloomsimd_filter *f, void *words)
{
    f->geometry.words = (uint32_t *)words;
    bloomsimd_bind_single_key(f);
}
/* Sets read_only and rebinds (writes through the single-key calls refused). */
void bloomsimd_filter_set_read_only(bloomsimd_filter *filter, bool read_only);

/* The shape of an existing filter's geometry, with `blocks` blocks. */
static inline bloomsimd_geometry_choice bloomsimd_shape_of(const bloomsimd_filter *f, uint64_t blocks, uint32_t k)
{
    bloomsimd_geometry_choice shape = {blocks, k, f->geometry.layout, f->geometry.hash_id};
    return shape;
}

/* Bits of one block of f's layout. */
static inline uint32_t bloomsimd_filter_block_bits(const bloomsimd_filter *f)
{
    return bloomsimd_layout_block_bytes(f->geometry.layout) * 8u;
}

static inline size_t bloomsimd_filter_bytes(const bloomsimd_filter *f)
{
    return (size_t)f->geometry.nblocks * bloomsimd_layout_block_bytes(f->geometry.layout);
}

/* The items counter: relaxed atomics on concurrent filters (several writers
 * add to it), plain arithmetic otherwise (one writer, no readers meanwhile). */
static inline void bloomsimd_items_add(bloomsimd_filter *f, uint64_t n)
{
    if (f->geometry.concurrent)
        __atomic_fetch_add(&f->items, n, __ATOMIC_RELAXED);
    else
        f->items += n;
}

static inline uint64_t bloomsimd_items_get(const bloomsimd_filter *f)
{
    return f->geometry.concurrent ? __atomic_load_n(&f->items, __ATOMIC_RELAXED) : f->items;
}

/* bloomsimd_info.load and bloomsimd_fill_info.load: items over capacity, 0
 * without a capacity (a filter sized by bits has nothing to be a share of). */
static inline double bloomsimd_load_of(double items, uint64_t capacity)
{
    return capacity ? items / (double)capacity : 0.0;
}

/* ---- any kind of filter (ops.c, add_new.c, select.c) ---- */
/* Byte keys are hashed this many at a time: enough for the kernel to keep
 * many cache lines in flight, small enough for the stack. A multiple of 8,
 * so chunks of a bitmap start on byte boundaries. */
#define BLOOMSIMD_BYTE_KEY_CHUNK 256u

/* NULL filter: INVALID_ARGUMENT; read-only: READ_ONLY; else OK. */
bloomsimd_status bloomsimd_check_writable(const bloomsimd_filter *f);
/* True if some keys[i] is NULL with lens[i] > 0 (a byte-key batch's bad key). */
bool bloomsimd_any_bad_key(const void *const *keys, const size_t *lens, size_t n);
/* INVALID_ARGUMENT, with the first bad key of a batch that has one as the detail. */
bloomsimd_status bloomsimd_fail_bad_key(const void *const *keys, const size_t *lens, size_t n);

/* Lookup of n pre-computed hashes in `form` (kernel.h), on a plain or a
 * layered filter. Returns the hit count. */
size_t bloomsimd_lookup_hashes(const bloomsimd_filter *f, const uint64_t *hashes, size_t n, bloomsimd_hit_form form,
                               void *out);
/* The same for 64-bit keys (plain filters: the kernel's fused path). */
size_t bloomsimd_lookup_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                            void *out);
/* The same for byte keys; a NULL keys[i] with lens[i] > 0 is absent. */
size_t bloomsimd_lookup_bytes(const bloomsimd_filter *f, const void *const *keys, const size_t *lens, size_t n,
                              bloomsimd_hit_form form, void *out);

/* ---- Parquet split-block filters (parquet/mode.c) ---- */
static inline bool bloomsimd_is_parquet(const bloomsimd_filter *f)
{
    return f->geometry.hash_id == BLOOMSIMD_HASH_PARQUET_XXH64;
}

/* A 64-bit key's hash under the filter's hash (what single-key calls probe). */
static inline uint64_t bloomsimd_key_hash_u64(const bloomsimd_filter *f, uint64_t key)
{
    switch (f->geometry.hash_id) {
    case BLOOMSIMD_HASH_PARQUET_XXH64: return bloomsimd_xxh64_u64(key);
    case BLOOMSIMD_HASH_MUM: return bloomsimd_mum_u64(key, f->geometry.mum_a, f->geometry.mum_b);
    default: return bloomsimd_xxh3_u64(key, f->geometry.hash_bitflip);
    }
}

/* ---- 64-bit keys under every hash (u64_keys.c) ---- */
/* The kernels fuse hash 1 (XXH3) into their pipelines; the other hashes are
 * hashed a chunk at a time and probed through the *_hashes entries. */
static inline bool bloomsimd_u64_fused(const bloomsimd_filter *f)
{
    return f->geometry.hash_id == BLOOMSIMD_HASH_XXH3;
}
/* hashes[i] = the filter's hash of keys[i]. */
void bloomsimd_u64_hash(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint64_t *hashes);
/* The batched u64 calls of one plain bit array (a filter or one layer). */
void bloomsimd_u64_add(const bloomsimd_filter *f, const uint64_t *keys, size_t n);
size_t bloomsimd_u64_lookup(const bloomsimd_filter *f, const uint64_t *keys, size_t n, bloomsimd_hit_form form,
                            void *out);
size_t bloomsimd_u64_add_new(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint8_t *out);

/* XXH64 seed 0 of a byte key (libxxhash). */
uint64_t bloomsimd_parquet_hash_bytes(const void *key, size_t len);
/* hashes[i] = bloomsimd_xxh64_u64(keys[i]), by the filter's kernel when it has a vector XXH64. */
void bloomsimd_parquet_hash_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint64_t *hashes);
/* Byte keys first .. first+count-1 of a validated view, hashed with XXH64. */
void bloomsimd_parquet_hash_keys(const bloomsimd_keys *v, size_t first, size_t count, uint64_t *hashes);

#endif
