/*
 * bloomsimd.h — the only public header of libbloomsimd.
 *
 * A cache-line-blocked Bloom filter with SIMD batch kernels (scalar, SSE4.2,
 * AVX2, AVX-512, NEON) chosen at run time. Every key touches exactly one
 * block (64 bytes in layout block512, 32 bytes in layout split256), so a
 * lookup costs at most one cache miss.
 *
 * Conventions
 *   - Every fallible function returns a bloomsimd_status; BLOOMSIMD_OK is 0.
 *   - The library never aborts, prints or exits. Misuse that cannot be
 *     reported (a NULL filter passed to a void function) is a documented no-op.
 *   - Thread safety: a filter is safe for many concurrent readers, or for one
 *     writer with no readers ("one writer or many readers"). Filters created
 *     with BLOOMSIMD_CONCURRENT allow any mix of concurrent inserts and
 *     queries (docs/CONCURRENCY.md). Functions that take no filter are always
 *     thread-safe.
 *   - Hashing: a byte key hashes as XXH3_64bits_withSeed(key, len, seed); a
 *     64-bit key hashes as its 8 little-endian bytes, except in a filter
 *     created with BLOOMSIMD_U64_MUM (its own hash of 64-bit keys). The same
 *     seed and geometry give the same filter bytes on every CPU and with
 *     every kernel.
 */
#ifndef BLOOMSIMD_H
#define BLOOMSIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(BLOOMSIMD_STATIC_DEFINE)
#  define BLOOMSIMD_API
#elif defined(_WIN32)
#  define BLOOMSIMD_API __declspec(dllimport)
#else
#  define BLOOMSIMD_API __attribute__((visibility("default")))
#endif

/* ======================================================================== */
/* Version                                                                  */
/* ======================================================================== */

#define BLOOMSIMD_VERSION_MAJOR 0
#define BLOOMSIMD_VERSION_MINOR 1
#define BLOOMSIMD_VERSION_PATCH 0
#define BLOOMSIMD_VERSION_NUMBER \
    (BLOOMSIMD_VERSION_MAJOR * 10000 + BLOOMSIMD_VERSION_MINOR * 100 + BLOOMSIMD_VERSION_PATCH)

/* The version of the library actually loaded, as MAJOR*10000+MINOR*100+PATCH. */
BLOOMSIMD_API unsigned bloomsimd_version_number(void);
/* The same as "MAJOR.MINOR.PATCH"; a static string. */
BLOOMSIMD_API const char *bloomsimd_version_string(void);

/* ======================================================================== */
/* Status codes                                                             */
/* ======================================================================== */

typedef enum bloomsimd_status {
    BLOOMSIMD_OK = 0,
    BLOOMSIMD_ERR_INVALID_ARGUMENT = 1,  /* NULL pointer, NaN, out-of-range value, unknown flag */
    BLOOMSIMD_ERR_TOO_LARGE = 2,         /* size overflows or exceeds the layout's limits */
    BLOOMSIMD_ERR_NO_MEMORY = 3,         /* allocation failed */
    BLOOMSIMD_ERR_KERNEL_UNAVAILABLE = 4,/* unknown kernel name, or this CPU cannot run it */
    BLOOMSIMD_ERR_IO = 5,                /* a system call failed; errno is kept */
    BLOOMSIMD_ERR_CORRUPT = 6,           /* serialized data fails validation */
    BLOOMSIMD_ERR_VERSION = 7,           /* serialized data has an unsupported format version */
    BLOOMSIMD_ERR_INCOMPATIBLE = 8,      /* two filters differ in geometry, seed or hash */
    BLOOMSIMD_ERR_READ_ONLY = 9          /* write to a read-only (mapped) filter */
} bloomsimd_status;

/* A static, human-readable description; "unknown status" for values outside the enum. */
BLOOMSIMD_API const char *bloomsimd_status_string(bloomsimd_status status);

/*
 * Why the last failed call on this thread failed, in one line: the value and
 * the check, e.g. "fpr 1e-11 is below the minimum 1e-10 (BLOOMSIMD_MIN_FPR)",
 * "payload checksum mismatch (stored ..., computed ...)", "length 4097 bytes
 * != 4096 header + 64 payload". Never NULL; "" when there is nothing to say.
 * The status codes stay the contract; this text is for people and logs and
 * may change between versions.
 *
 * Per thread (thread-local storage): a failure on one thread never changes
 * another thread's text. Never allocates. The pointer stays valid for the
 * life of the thread; the text it points at is rewritten by this thread's
 * next failing call, so copy it to keep it. At most 255 bytes.
 *
 * A failing call always sets it. A successful call clears it (to ""), except
 * the single-key inserts (bloomsimd_add_u64, bloomsimd_add,
 * bloomsimd_add_new_u64, bloomsimd_add_new), which leave it as it was when
 * they succeed, so that they do not pay for a thread-local access per key;
 * and calls that return no status (lookups, get_info) leave it alone, except
 * bloomsimd_predicted_fpr, which explains a NaN. Read it right after a call
 * returned something other than BLOOMSIMD_OK.
 */
BLOOMSIMD_API const char *bloomsimd_last_error(void);

/* ======================================================================== */
/* Block layouts and their limits (README "Layout", kernels/layout.h,       */
/* kernels/layout_split256.h)                                               */
/* ======================================================================== */

/*
 * Two block layouts; each filter has one (bloomsimd_options.layout,
 * bloomsimd_info.layout), recorded in its file, and every kernel reads and
 * writes both, so files are portable whatever the kernel.
 *
 *   BLOCK512  64-byte blocks of 16 32-bit words; a key sets one bit in each
 *             of k of the words (1 <= k <= 16, chosen by sizing): the fewest
 *             bits per key at a given FPR.
 *   SPLIT256  32-byte blocks of 8 32-bit words; a key sets one bit in every
 *             word (k = 8): the block and bit rules of Parquet's split-block
 *             Bloom filter. 6% (at 1%), 9% (at 0.1%) and 19% (at 0.01%)
 *             more bits per key, and one 256-bit register per probe.
 *
 * BLOOMSIMD_LAYOUT_DEFAULT (0) means the default layout of the kernel the
 * filter runs (after options.kernel, BLOOMSIMD_KERNEL or CPUID), chosen by
 * measurement per kernel (docs/kernels/default-layout.md): SPLIT256 on
 * sse42, avx2, avx512 and neon, BLOCK512 on the scalar reference. So the
 * same options give a split256 filter on any SIMD CPU and a block512 one
 * where only the scalar kernel runs: name the layout to get the same filter
 * everywhere (BLOCK512 for the fewest bits per key). An explicit k other
 * than 0 and 8 always gets BLOCK512, the only layout with that k.
 */
#define BLOOMSIMD_LAYOUT_DEFAULT 0u
#define BLOOMSIMD_LAYOUT_BLOCK512 2u
#define BLOOMSIMD_LAYOUT_SPLIT256 3u

/* "block512" for 2, "split256" for 3; NULL for any other value (including 0). */
BLOOMSIMD_API const char *bloomsimd_layout_name(uint32_t layout);

#define BLOOMSIMD_BLOCK_BYTES 64u              /* block512: one cache line per key */
#define BLOOMSIMD_BLOCK_BITS 512u
#define BLOOMSIMD_SPLIT256_BLOCK_BYTES 32u     /* split256: half a cache line per key */
#define BLOOMSIMD_SPLIT256_BLOCK_BITS 256u
#define BLOOMSIMD_SPLIT256_K 8u                /* split256: one bit in each of the 8 words */
#define BLOOMSIMD_MAX_K 16u                    /* at most one bit in each 32-bit word */
/* Either layout: the block index is 32 bits (256 GiB of block512, 128 GiB of split256). */
#define BLOOMSIMD_MAX_BLOCKS (UINT64_C(1) << 32)
#define BLOOMSIMD_MIN_FPR 1e-10                /* below this the FPR model loses precision */
#define BLOOMSIMD_DEFAULT_FPR 0.01             /* used when options.fpr is 0 */
#define BLOOMSIMD_DEFAULT_K 7                  /* used when only options.bits is given */

/* ======================================================================== */
/* Creating and destroying filters                                          */
/* ======================================================================== */

typedef struct bloomsimd_filter bloomsimd_filter;

/* Flags for bloomsimd_options.flags. */
/* Every insert path uses lock-free atomic ORs: any number of threads may
 * insert and query the filter at once. Costs some insert speed. */
#define BLOOMSIMD_CONCURRENT 0x1u
/* Never ask the kernel for transparent huge pages, even for large filters. */
#define BLOOMSIMD_NO_HUGEPAGES 0x2u
/* The flags a filter keeps (its file records them). */
#define BLOOMSIMD_KNOWN_FLAGS (BLOOMSIMD_CONCURRENT | BLOOMSIMD_NO_HUGEPAGES)
/* A Parquet split-block Bloom filter, bit for bit ("Parquet split-block
 * filters" below): layout split256 (options.layout 0 or SPLIT256), keys hashed
 * with XXH64 seed 0 of their Parquet PLAIN encoding instead of XXH3. Seed 0
 * only, never layered. A create-time option: files record it as their hash
 * (hash 2), and bloomsimd_info.flags reports it. */
#define BLOOMSIMD_PARQUET 0x4u
/*
 * How 64-bit keys are hashed (the *_u64 calls; byte keys are XXH3 either
 * way). A create-time option; files record it as their hash (docs/FORMAT.md),
 * and bloomsimd_info.flags reports the one a filter uses.
 *   BLOOMSIMD_U64_XXH3  XXH3_64bits_withSeed of the key's 8 little-endian
 *                       bytes (hash 1): a 64-bit key and the same 8 bytes as
 *                       a byte key are the same key. The default.
 *   BLOOMSIMD_U64_MUM   one 64x64 -> 128-bit multiply of two seeded words of
 *                       the key and one 64-bit multiply (hash 3,
 *                       kernels/layout.h section 1): fewer instructions and a
 *                       shorter latency than XXH3, and the same FPR as XXH3
 *                       on sequential, strided, Snowflake-style and IPv4 ids
 *                       (tests/test_hash_quality.c). A 64-bit key is then not
 *                       the same key as its 8 bytes given as a byte key.
 * At most one of the two; neither with BLOOMSIMD_PARQUET (its own hash).
 */
#define BLOOMSIMD_U64_XXH3 0x8u
#define BLOOMSIMD_U64_MUM 0x10u

/*
 * Options for bloomsimd_create_with. Zero-initialise, then set what you need:
 * a zeroed field means "derive it" or "use the default".
 *
 *   capacity  expected number of distinct keys. Required unless bits is set.
 *   fpr       target false-positive rate at capacity, in [BLOOMSIMD_MIN_FPR, 1).
 *             0 means BLOOMSIMD_DEFAULT_FPR (bloomsimd_create refuses 0).
 *   bits      explicit filter size in bits; rounded up to whole blocks (512
 *             bits in block512, 256 in split256).
 *             0 means: the fewest blocks whose modelled FPR at capacity <= fpr.
 *   k         bits set per key, 1..BLOOMSIMD_MAX_K. 0 means: the k that needs
 *             the fewest blocks (or, with explicit bits, the lowest modelled FPR
 *             at capacity; BLOOMSIMD_DEFAULT_K when capacity is 0 too).
 *             split256 sets 8 bits per key: k must be 0 or 8 there.
 *   seed      hash seed; 0 is a valid seed and the default.
 *   kernel    "scalar", "sse42", "avx2", "avx512", "neon" (in any case), or
 *             NULL for the best this CPU runs (or the BLOOMSIMD_KERNEL
 *             environment variable, also in any case).
 *   flags     a combination of BLOOMSIMD_CONCURRENT, BLOOMSIMD_NO_HUGEPAGES,
 *             BLOOMSIMD_PARQUET, and BLOOMSIMD_U64_XXH3 or BLOOMSIMD_U64_MUM.
 *
 * Layered filters (one handle; every call below works on them):
 *   growth      scalable filter (docs/SCALABLE.md). 0 = fixed size; >= 1 =
 *               when the newest layer has received as many keys as it was
 *               sized for, a new layer `growth` times its capacity is added
 *               (1: layers of equal capacity, as RedisBloom's EXPANSION 1).
 *               Keys are counted by the insert-and-report-new calls (only new
 *               keys); the plain add* calls cannot know, so they count every
 *               key. Requires capacity; bits must be 0 (each layer is sized
 *               from its capacity and FPR); an explicit k applies to every
 *               layer.
 *   tightening  how the chain's FPR budget is split between its layers; the
 *               sum of the layers' FPRs stays <= fpr however many layers it
 *               grows (union bound), so the whole chain's FPR does too.
 *               0 (the default): the budget schedule of docs/SCALABLE.md.
 *               Layer 0 gets fpr / 3 (a filter that never grows costs at
 *               most ~10% more bits than with r = 0.5), the later layers
 *               what a Pareto-tailed curve over the keys gives them: grown
 *               a thousandfold with growth 2, about 1.85x the bits of a
 *               filter pre-sized for the final count (r = 0.5: 2.85x), and
 *               thousands of layers at growth 1.
 *               r in (0, 1): the geometric schedule, layer i sized for FPR
 *               fpr * (1 - r) * r^i (RedisBloom's with r = 0.5, the default
 *               before the budget schedule). Only with growth
 *               (INVALID_ARGUMENT without).
 *   generations sliding window (docs/WINDOWS.md). 0 or 1 = not a window;
 *               2..BLOOMSIMD_MAX_GENERATIONS generations, each sized for
 *               `capacity` keys at `fpr` (or `bits`), so the window's FPR is
 *               1 - (1 - fpr)^generations <= generations * fpr. Inserts go to
 *               the current generation, lookups see all of them, and
 *               bloomsimd_rotate drops the oldest. Not with growth
 *               (INVALID_ARGUMENT).
 *
 *   layout    BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256, or 0 for
 *             the kernel's default: SPLIT256 on sse42, avx2, avx512 and
 *             neon, BLOCK512 on scalar (see "Block layouts" above).
 *             Every layer of a layered filter has the filter's layout.
 */
typedef struct bloomsimd_options {
    uint64_t capacity;
    double fpr;
    uint64_t bits;
    uint32_t k;
    uint64_t seed;
    const char *kernel;
    uint32_t flags;
    uint32_t growth;
    double tightening;
    uint32_t generations;
    uint32_t layout;
} bloomsimd_options;

/* RedisBloom's geometric ratio, the default before the budget schedule: pass
 * it as options.tightening to size layers as RedisBloom does. */
#define BLOOMSIMD_DEFAULT_TIGHTENING 0.5
/* The budget schedule's (options.tightening 0) share of fpr for layer 0. */
#define BLOOMSIMD_FIRST_LAYER_SHARE (1.0 / 3.0)
/* Layers of a scalable filter. Before this table limit, a chain meets the
 * layout's 2^32 blocks (growth 2 from 10^5 keys at 1%: the 21st layer) or,
 * at growth 1, the 1e-10 floor of its newest layer's FPR (the budget
 * schedule: after 908,016 layers at fpr 1%, 22,802 at 0.01%; docs/SCALABLE.md). */
#define BLOOMSIMD_MAX_LAYERS (1u << 24)
#define BLOOMSIMD_MAX_GENERATIONS 64u    /* generations of a window */

/*
 * Creates an empty filter sized for `capacity` keys at false-positive rate
 * `fpr`, with the default seed and kernel.
 * Returns BLOOMSIMD_OK and sets *out, or:
 *   BLOOMSIMD_ERR_INVALID_ARGUMENT  out is NULL, capacity is 0, fpr is NaN,
 *                                   <= 0, >= 1 or below BLOOMSIMD_MIN_FPR;
 *   BLOOMSIMD_ERR_TOO_LARGE         the filter would need more than
 *                                   BLOOMSIMD_MAX_BLOCKS blocks or overflow size_t;
 *   BLOOMSIMD_ERR_KERNEL_UNAVAILABLE BLOOMSIMD_KERNEL names a kernel this CPU cannot run;
 *   BLOOMSIMD_ERR_NO_MEMORY         allocation failed.
 * On any failure *out is set to NULL (when out is not NULL) and nothing leaks.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_create(bloomsimd_filter **out, uint64_t capacity, double fpr);

/*
 * Creates an empty filter from options (see bloomsimd_options).
 * Returns what bloomsimd_create returns, plus:
 *   BLOOMSIMD_ERR_INVALID_ARGUMENT  options is NULL, k > BLOOMSIMD_MAX_K,
 *                                   unknown flags, or neither capacity nor bits;
 *                                   an unknown layout, or split256 with a k
 *                                   other than 0 and 8;
 *                                   growth with bits or without
 *                                   capacity, tightening NaN or outside [0, 1)
 *                                   or without growth, the first layer's FPR
 *                                   (fpr / 3, or fpr * (1 - tightening))
 *                                   below BLOOMSIMD_MIN_FPR, generations above
 *                                   BLOOMSIMD_MAX_GENERATIONS, growth together
 *                                   with generations;
 *   BLOOMSIMD_ERR_KERNEL_UNAVAILABLE options->kernel is unknown or not runnable here.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_create_with(bloomsimd_filter **out, const bloomsimd_options *options);

/* Frees the filter. NULL is a no-op. */
BLOOMSIMD_API void bloomsimd_destroy(bloomsimd_filter *filter);

/* Removes every key (zeroes all blocks). NULL, or a read-only filter, is a no-op.
 * Not atomic: no other thread may use the filter meanwhile, even with
 * BLOOMSIMD_CONCURRENT. A scalable filter on the heap drops every layer but the
 * first; a window keeps its generations (all emptied) and its rotation count. */
BLOOMSIMD_API void bloomsimd_clear(bloomsimd_filter *filter);

/*
 * An independent copy of src: the same kernel, flags, seed, geometry, keys
 * and counters; every layer of a scalable filter (which grows on as the
 * source would) and every generation of a window (with its rotations and
 * ages). The copy answers every lookup exactly as src did at the time of the
 * copy, then each changes alone. It is always a writable heap filter: a
 * mapped src (read-only or writable) gives a heap copy not tied to the file,
 * with the bit array from the current bloomsimd_set_allocator allocator.
 * src may be read meanwhile. A BLOOMSIMD_CONCURRENT src may also be inserted
 * into meanwhile: every key whose insert returned before the clone started
 * is in the copy; a key inserted during the clone may be in it, absent, or
 * (for a key spanning several 64-bit words) partly set, so the copy may not
 * report it; a layered src's grows and rotates wait for the clone.
 * Returns BLOOMSIMD_OK, BLOOMSIMD_ERR_INVALID_ARGUMENT (NULL out or src) or
 * BLOOMSIMD_ERR_NO_MEMORY; on failure *out is NULL and nothing leaks.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_clone(bloomsimd_filter **out, const bloomsimd_filter *src);

/* ======================================================================== */
/* Single keys                                                              */
/* ======================================================================== */

/* Inserts one key. Returns BLOOMSIMD_OK, BLOOMSIMD_ERR_INVALID_ARGUMENT
 * (filter NULL, or key NULL with len > 0), or BLOOMSIMD_ERR_READ_ONLY. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_u64(bloomsimd_filter *filter, uint64_t key);
BLOOMSIMD_API bloomsimd_status bloomsimd_add(bloomsimd_filter *filter, const void *key, size_t len);

/* True if the key may be present, false if it is certainly absent.
 * False for a NULL filter, or a NULL key with len > 0. */
BLOOMSIMD_API bool bloomsimd_contains_u64(const bloomsimd_filter *filter, uint64_t key);
BLOOMSIMD_API bool bloomsimd_contains(const bloomsimd_filter *filter, const void *key, size_t len);

/* ======================================================================== */
/* Batches (the fast path: hashing and memory accesses are pipelined)      */
/* ======================================================================== */

/* Inserts n 64-bit keys. keys may be NULL only when n is 0.
 * Returns BLOOMSIMD_OK, BLOOMSIMD_ERR_INVALID_ARGUMENT or BLOOMSIMD_ERR_READ_ONLY. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_batch_u64(bloomsimd_filter *filter, const uint64_t *keys, size_t n);

/* Looks up n 64-bit keys. out[i] = 1 if keys[i] may be present, 0 if it is
 * certainly absent; out may be NULL. Returns the number of maybe-present keys
 * (0 for a NULL filter, or NULL keys). */
BLOOMSIMD_API size_t bloomsimd_contains_batch_u64(const bloomsimd_filter *filter, const uint64_t *keys, size_t n,
                                                  uint8_t *out);

/* The same for byte keys: keys[i] points at lens[i] bytes (keys[i] may be NULL
 * when lens[i] is 0). Errors as above; a NULL keys[i] with lens[i] > 0 gives
 * BLOOMSIMD_ERR_INVALID_ARGUMENT before anything is inserted. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_batch(bloomsimd_filter *filter, const void *const *keys,
                                                   const size_t *lens, size_t n);
/* A NULL keys[i] with lens[i] > 0 is reported absent (out[i] = 0). */
BLOOMSIMD_API size_t bloomsimd_contains_batch(const bloomsimd_filter *filter, const void *const *keys,
                                              const size_t *lens, size_t n, uint8_t *out);

/* ======================================================================== */
/* Insert and report new (deduplication)                                    */
/* ======================================================================== */

/*
 * In key order, each key is tested and then inserted: out[i] = 1 if keys[i]
 * was not (probably) present before, else 0, so a key repeated within the
 * batch is new only the first time. One pass, at batch-insert speed. out may
 * be NULL; *new_count (may be NULL) gets the number of new keys.
 * With BLOOMSIMD_CONCURRENT, of several threads inserting the same new key at
 * least one reports it new (docs/CONCURRENCY.md).
 * Scalable filters: new = absent from every layer; new keys go to the newest
 * layer, which grows the filter when it is full. Windows: new = absent from
 * every live generation; the key is inserted into the current generation
 * either way (a repeat refreshes it in the window).
 * Returns BLOOMSIMD_OK; BLOOMSIMD_ERR_INVALID_ARGUMENT (filter NULL, keys NULL
 * with n > 0; for byte keys a NULL keys[i] with lens[i] > 0, before anything
 * is inserted); BLOOMSIMD_ERR_READ_ONLY; or, for a scalable filter whose grow
 * failed, BLOOMSIMD_ERR_NO_MEMORY / BLOOMSIMD_ERR_TOO_LARGE (no layer of the
 * next size fits the layout or BLOOMSIMD_MIN_FPR): the keys before the one
 * that needed the new layer are inserted and reported in out and *new_count,
 * the rest are not inserted (out[i] = 0), and the filter stays usable.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new_batch_u64(bloomsimd_filter *filter, const uint64_t *keys, size_t n,
                                                           uint8_t *out, size_t *new_count);
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new_batch(bloomsimd_filter *filter, const void *const *keys,
                                                       const size_t *lens, size_t n, uint8_t *out,
                                                       size_t *new_count);
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new_hashes(bloomsimd_filter *filter, const uint64_t *hashes, size_t n,
                                                        uint8_t *out, size_t *new_count);
/* One key: *was_new (may be NULL) as above. Same statuses. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new_u64(bloomsimd_filter *filter, uint64_t key, bool *was_new);
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new(bloomsimd_filter *filter, const void *key, size_t len,
                                                 bool *was_new);

/* ======================================================================== */
/* Selection vectors and bitmaps (join filters)                             */
/* ======================================================================== */

/*
 * Writes the indices (0-based, ascending) of the keys that may be present to
 * indices[0 .. return value); indices must have room for n entries. n must be
 * <= UINT32_MAX (else nothing is written and 0 is returned). 0 for a NULL
 * filter, keys or indices. Byte keys: a NULL keys[i] with lens[i] > 0 is
 * absent.
 */
BLOOMSIMD_API size_t bloomsimd_select_batch_u64(const bloomsimd_filter *filter, const uint64_t *keys, size_t n,
                                                uint32_t *indices);
BLOOMSIMD_API size_t bloomsimd_select_hashes(const bloomsimd_filter *filter, const uint64_t *hashes, size_t n,
                                             uint32_t *indices);
BLOOMSIMD_API size_t bloomsimd_select_batch(const bloomsimd_filter *filter, const void *const *keys,
                                            const size_t *lens, size_t n, uint32_t *indices);
/*
 * bitmap[(n + 7) / 8]: bit i % 8 of byte i / 8 (LSB first) is 1 if key i may
 * be present; the bits past n in the last byte are 0. Returns the number of
 * set bits; 0 (bitmap untouched) for a NULL filter, keys or bitmap.
 */
BLOOMSIMD_API size_t bloomsimd_contains_bitmap_u64(const bloomsimd_filter *filter, const uint64_t *keys, size_t n,
                                                   uint8_t *bitmap);
BLOOMSIMD_API size_t bloomsimd_contains_bitmap_hashes(const bloomsimd_filter *filter, const uint64_t *hashes,
                                                      size_t n, uint8_t *bitmap);
BLOOMSIMD_API size_t bloomsimd_contains_bitmap(const bloomsimd_filter *filter, const void *const *keys,
                                               const size_t *lens, size_t n, uint8_t *bitmap);

/* ======================================================================== */
/* Sliding windows                                                          */
/* ======================================================================== */

/*
 * Drops the oldest generation and starts a new, empty current one, so a key
 * stays in the window for `generations` rotations after the one it was
 * inserted in (docs/WINDOWS.md). Returns BLOOMSIMD_OK;
 * BLOOMSIMD_ERR_INVALID_ARGUMENT if filter is NULL or not a window;
 * BLOOMSIMD_ERR_READ_ONLY for a read-only mapping. With BLOOMSIMD_CONCURRENT
 * it may run while other threads insert and look up: no insert is lost and a
 * key of a live generation is never missed (docs/CONCURRENCY.md says exactly
 * what they observe); concurrent rotates are serialised internally. Without
 * the flag no other thread may use the filter meanwhile.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_rotate(bloomsimd_filter *filter);

/* ======================================================================== */
/* Hashes: hash once, probe many filters with the same seed                 */
/* ======================================================================== */

/* XXH3_64bits_withSeed(key, len, seed of filter). 0 for a NULL filter. */
BLOOMSIMD_API uint64_t bloomsimd_hash(const bloomsimd_filter *filter, const void *key, size_t len);
/* hashes[i] = hash of keys[i] as 8 little-endian bytes. No-op for NULL arguments. */
BLOOMSIMD_API void bloomsimd_hash_batch_u64(const bloomsimd_filter *filter, const uint64_t *keys, size_t n,
                                            uint64_t *hashes);
/* Insert / look up pre-computed hashes. Errors and return values as for the u64 batches. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_hashes(bloomsimd_filter *filter, const uint64_t *hashes, size_t n);
BLOOMSIMD_API size_t bloomsimd_contains_hashes(const bloomsimd_filter *filter, const uint64_t *hashes, size_t n,
                                               uint8_t *out);

/* ======================================================================== */
/* Direct access (language bindings)                                        */
/* ======================================================================== */

/*
 * What a binding needs to insert and look up single keys in its own language,
 * over the filter's own memory, following kernels/layout.h (e.g. the Go
 * package: no foreign call per key). A binding must check `layout` and fall
 * back to the C calls for a layout it does not implement.
 */
typedef struct bloomsimd_view {
    void *blocks;           /* nblocks blocks (64 bytes in layout 2, 32 in layout 3), 64-byte aligned,
                               little-endian 32-bit words */
    uint64_t nblocks;
    uint32_t k;             /* layout 3: always 8 */
    uint64_t seed;
    const uint16_t *select; /* the 64 word-selection masks of k (kernels/layout.h section 3); static;
                               NULL in layout 3 (every word is used) */
    uint32_t layout;        /* BLOOMSIMD_LAYOUT_BLOCK512 (2, kernels/layout.h) or
                               BLOOMSIMD_LAYOUT_SPLIT256 (3, kernels/layout_split256.h) */
    bool concurrent;        /* BLOOMSIMD_CONCURRENT: writers must use 64-bit atomic ORs, readers
                               64-bit atomic loads, on 8-byte-aligned words (docs/CONCURRENCY.md) */
    bool read_only;         /* a read-only mapping: never write through blocks (SIGSEGV) */
    uint64_t *items;        /* the counter add_new* increments (bloomsimd_info.items): a binding that
                               inserts-and-reports-new through the view adds its new keys here, with a
                               64-bit relaxed atomic add when concurrent, plainly otherwise */
} bloomsimd_view;

/* Fills *view. The pointers stay valid until bloomsimd_destroy; the thread
 * rules of docs/CONCURRENCY.md apply to accesses through blocks exactly as to
 * the library's own calls. Returns BLOOMSIMD_OK, or
 * BLOOMSIMD_ERR_INVALID_ARGUMENT if either pointer is NULL or the filter is
 * layered (scalable or a window: no single bit array), a Parquet filter, or
 * its 64-bit keys are not hashed with XXH3 (BLOOMSIMD_U64_MUM: a program
 * that probes with XXH3 would misprobe it; bloomsimd_get_probe describes it)
 * (*view untouched). */
BLOOMSIMD_API bloomsimd_status bloomsimd_get_view(const bloomsimd_filter *filter, bloomsimd_view *view);

/*
 * The rest of what a binding's single-key probe needs, from the library
 * rather than copied into the binding: how a 64-bit key becomes its hash h,
 * with the filter's seed-derived constants, and the layout's salts. With a
 * bloomsimd_view, a 64-bit key's probe is (kernels/layout.h sections 1-4,
 * kernels/layout_split256.h):
 *
 *   hash BLOOMSIMD_U64_XXH3: h = XXH3_64bits_withSeed of the key's 8
 *        little-endian bytes = rrmxmx(rotl64(key, 32) ^ xxh3_bitflip, 8):
 *            h ^= rotl64(h, 49) ^ rotl64(h, 24);  h *= 0x9FB21C651E98DF25;
 *            h ^= (h >> 35) + 8;  h *= 0x9FB21C651E98DF25;  h ^= h >> 28
 *   hash BLOOMSIMD_U64_MUM: p = (key ^ mum_a) * (bswap64(key) ^ mum_b), the
 *        full 128-bit product; h = (lo64(p) ^ hi64(p)) * 0x9E3779B97F4A7C15;
 *        h ^= h >> 32
 *   block = ((h >> 32) * view.nblocks) >> 32
 *   bit of word w = ((uint32_t)h * salts[w]) >> 27, in every word w < 8
 *        (split256) or in the words of view.select[(uint32_t)h >> 26]
 *        (block512)
 *
 * The multipliers above are the hashes' definitions, fixed by the file
 * format; the values here are the ones a filter's seed and layout give.
 * tests/fixtures/hash_vectors.txt has hashes and whole probes to test a
 * binding against. A binding must check `hash` (and view.layout) and call the
 * library for a value it does not implement: a newer library may add one.
 */
typedef struct bloomsimd_probe_constants {
    uint32_t hash;          /* BLOOMSIMD_U64_XXH3 or BLOOMSIMD_U64_MUM (as bloomsimd_info.flags names it) */
    uint64_t xxh3_bitflip;  /* XXH3's seed constant of its 4..8-byte path, (secret[8..15] ^
                               secret[16..23]) - (seed ^ (bswap32(seed) << 32)); set for both hashes
                               (byte keys are XXH3 either way) */
    uint64_t mum_a, mum_b;  /* mum: splitmix64's finaliser of seed ^ 0x243F6A8885A308D3 and of
                               seed ^ 0x13198A2E03707344; 0 for XXH3 */
    uint32_t salts[16];     /* the odd 32-bit salts of the words' bits: block512 uses all 16,
                               split256 the first 8 (Parquet's) */
} bloomsimd_probe_constants;

/* Fills *view as bloomsimd_get_view does, for XXH3 and mum filters alike,
 * and *constants. The same pointer lifetime and thread rules as
 * bloomsimd_get_view. Returns BLOOMSIMD_OK, or
 * BLOOMSIMD_ERR_INVALID_ARGUMENT if a pointer is NULL, the filter is layered
 * or it is a Parquet filter (*view and *constants untouched). */
BLOOMSIMD_API bloomsimd_status bloomsimd_get_probe(const bloomsimd_filter *filter, bloomsimd_view *view,
                                                   bloomsimd_probe_constants *constants);

/* ======================================================================== */
/* Byte keys in one buffer: Arrow layouts, fixed width, pointer arrays      */
/* ======================================================================== */

/*
 * A batch of byte keys, described without copying. Hashing is XXH3 over
 * many keys at once in the kernel (bit-exact with XXH3_64bits_withSeed), so
 * short string keys cost close to 64-bit keys. Build one with the
 * constructors below:
 *
 *   OFFSETS32  Arrow binary/utf8: key i = data[offsets[i] .. offsets[i+1]),
 *              offsets has n+1 entries, non-decreasing, offsets[n] <= data_len
 *              (offsets[0] may be > 0: a sliced array).
 *   OFFSETS64  the same with 64-bit offsets (Arrow large-binary/large-utf8).
 *   FIXED      key i = data[i*width .. (i+1)*width), n*width <= data_len
 *              (UUIDs, 16/32-byte digests).
 *   POINTERS   key i = pointers[i][0 .. lengths[i]) (what bloomsimd_add_batch
 *              takes); pointers[i] may be NULL only when lengths[i] is 0.
 *
 * Every call below validates the whole view first (BLOOMSIMD_ERR_INVALID_ARGUMENT
 * for a NULL view, NULL arrays with n > 0, decreasing offsets, an offset or
 * n*width beyond data_len, a size overflow, a NULL pointer with a length),
 * and then inserts nothing and writes no output.
 */
typedef enum bloomsimd_keys_layout {
    BLOOMSIMD_KEYS_POINTERS = 0,
    BLOOMSIMD_KEYS_OFFSETS32 = 1,
    BLOOMSIMD_KEYS_OFFSETS64 = 2,
    BLOOMSIMD_KEYS_FIXED = 3
} bloomsimd_keys_layout;

typedef struct bloomsimd_keys {
    bloomsimd_keys_layout layout;
    size_t n;                     /* number of keys */
    const void *data;             /* OFFSETS32, OFFSETS64, FIXED */
    size_t data_len;              /* bytes readable at data */
    const uint32_t *offsets32;    /* OFFSETS32: n+1 entries */
    const uint64_t *offsets64;    /* OFFSETS64: n+1 entries */
    size_t width;                 /* FIXED: bytes per key (0: every key empty) */
    const void *const *pointers;  /* POINTERS */
    const size_t *lengths;        /* POINTERS */
} bloomsimd_keys;

static inline bloomsimd_keys bloomsimd_keys_offsets32(const void *data, size_t data_len, const uint32_t *offsets,
                                                      size_t n)
{
    bloomsimd_keys k = {BLOOMSIMD_KEYS_OFFSETS32, n, data, data_len, offsets, NULL, 0, NULL, NULL};
    return k;
}

static inline bloomsimd_keys bloomsimd_keys_offsets64(const void *data, size_t data_len, const uint64_t *offsets,
                                                      size_t n)
{
    bloomsimd_keys k = {BLOOMSIMD_KEYS_OFFSETS64, n, data, data_len, NULL, offsets, 0, NULL, NULL};
    return k;
}

static inline bloomsimd_keys bloomsimd_keys_fixed(const void *data, size_t data_len, size_t width, size_t n)
{
    bloomsimd_keys k = {BLOOMSIMD_KEYS_FIXED, n, data, data_len, NULL, NULL, width, NULL, NULL};
    return k;
}

static inline bloomsimd_keys bloomsimd_keys_pointers(const void *const *pointers, const size_t *lengths, size_t n)
{
    bloomsimd_keys k = {BLOOMSIMD_KEYS_POINTERS, n, NULL, 0, NULL, NULL, 0, pointers, lengths};
    return k;
}

/* Inserts every key of the view. Returns BLOOMSIMD_OK, _INVALID_ARGUMENT
 * (NULL filter or a bad view: nothing inserted) or _READ_ONLY. */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_keys(bloomsimd_filter *filter, const bloomsimd_keys *keys);
/* Looks up every key: out[i] = 1 if key i may be present (out may be NULL);
 * *hits (may be NULL) = the number of maybe-present keys. Returns
 * BLOOMSIMD_OK or _INVALID_ARGUMENT (NULL filter or a bad view: nothing
 * written). */
BLOOMSIMD_API bloomsimd_status bloomsimd_contains_keys(const bloomsimd_filter *filter, const bloomsimd_keys *keys,
                                                       uint8_t *out, size_t *hits);
/* Insert and report new (see bloomsimd_add_new_batch_u64): out[i] = 1 if key
 * i was (probably) absent before it was inserted, in key order; out and
 * new_count may be NULL. Returns what bloomsimd_add_new_hashes returns, plus
 * _INVALID_ARGUMENT for a bad view (nothing inserted). */
BLOOMSIMD_API bloomsimd_status bloomsimd_add_new_keys(bloomsimd_filter *filter, const bloomsimd_keys *keys,
                                                      uint8_t *out, size_t *new_count);
/* Selection vector: the indices (ascending) of the keys that may be present
 * go to indices[0 .. *count); indices holds keys->n entries, which must be
 * <= UINT32_MAX. Returns BLOOMSIMD_OK or _INVALID_ARGUMENT (NULL filter,
 * indices or count, n > UINT32_MAX, or a bad view: nothing written). */
BLOOMSIMD_API bloomsimd_status bloomsimd_select_keys(const bloomsimd_filter *filter, const bloomsimd_keys *keys,
                                                     uint32_t *indices, size_t *count);
/* hashes[i] = XXH3_64bits_withSeed(key i, seed of filter). Returns
 * BLOOMSIMD_OK or _INVALID_ARGUMENT (NULL filter or hashes, or a bad view). */
BLOOMSIMD_API bloomsimd_status bloomsimd_hash_keys(const bloomsimd_filter *filter, const bloomsimd_keys *keys,
                                                   uint64_t *hashes);

/* ======================================================================== */
/* Introspection                                                            */
/* ======================================================================== */

/* For layered filters (scalable, window) bits, blocks and memory_bytes are
 * totals over all layers, capacity is the first layer's (a window: each
 * generation's), fpr the target of the whole filter, and k the first layer's.
 */
typedef struct bloomsimd_info {
    uint64_t capacity;     /* as requested (0 if only bits were given) */
    double fpr;            /* target FPR: requested, or the model's FPR at capacity */
    uint64_t bits;         /* blocks * 512 (block512) or blocks * 256 (split256) */
    uint64_t blocks;
    uint32_t k;
    uint64_t seed;
    uint64_t memory_bytes; /* bytes of the bit array(s) */
    const char *kernel;    /* name of the kernel this filter runs */
    uint32_t flags;        /* as created, with exactly one hash flag: BLOOMSIMD_PARQUET,
                              BLOOMSIMD_U64_XXH3 or BLOOMSIMD_U64_MUM (also for a loaded file) */
    uint32_t growth;       /* options.growth (0 = fixed size) */
    double tightening;     /* scalable filters: r of the geometric schedule, 0 for the budget schedule (the default) */
    uint32_t layers;       /* 1 for plain filters; layers of a scalable filter; generations of a window */
    uint64_t items;        /* keys counted new by add_new* (plus every key of add* on scalable and window
                              filters); a window: summed over its live generations, so a key refreshed
                              in a later generation counts once per generation */
    /* Windows only (0 otherwise): */
    uint32_t generations;
    uint64_t rotations;          /* bloomsimd_rotate calls over the filter's life (kept by save/load) */
    uint64_t current_items;      /* keys new to the current generation */
    int64_t current_started_ns;  /* CLOCK_REALTIME, ns since the epoch, when the current generation started */
    int64_t oldest_started_ns;   /* ... when the oldest live generation started (creation, until it rotates out) */
    uint32_t layout;             /* BLOOMSIMD_LAYOUT_BLOCK512 or BLOOMSIMD_LAYOUT_SPLIT256 (every layer's) */
    /* The share of its capacity the filter has taken, from its counters: the
     * number an operator alarms on (docs/OPERATIONS.md). 0.8 is 80%; it passes
     * 1 when the filter holds more than it was sized for.
     *   plain     items / capacity (items counts insert-and-report-new only:
     *             a filter filled by the add* calls reads 0 here; see
     *             bloomsimd_fill_info.load for the share measured from its bits)
     *   scalable  items / capacity, i.e. over the first layer's capacity, so it
     *             passes 1 once the filter has grown
     *   window    the fullest live generation's items / capacity (each
     *             generation is sized for capacity keys)
     * 0 without a capacity (a filter sized by bits alone). */
    double load;
} bloomsimd_info;

/* Fills *info. No-op if either pointer is NULL. A few loads, whatever the
 * filter's size (hosts call it per command). With BLOOMSIMD_CONCURRENT the
 * counters may be read mid-insert or mid-rotate (each is some value it had). */
BLOOMSIMD_API void bloomsimd_get_info(const bloomsimd_filter *filter, bloomsimd_info *info);

/*
 * How full the filter is, measured from its bits (docs/ESTIMATES.md), so it
 * sees every key however it was inserted: the saturation signal. A filter
 * fed more keys than it was sized for keeps answering with a worse FPR;
 * fpr_now shows it long before the filter saturates: at 7x capacity a 1%
 * filter answers "maybe" for 92% of absent keys, while its estimate is still
 * within 0.2%.
 *
 *   fill_ratio       bits set / bits, over all layers (bloomsimd_fill_ratio)
 *   estimated_items  distinct keys, estimated (bloomsimd_estimate_count); finite
 *   fpr_now          the FPR a lookup of an absent key has now: the exact
 *                    model of kernels/layout.h at each layer's estimate, 1
 *                    for a layer with every bit set, layers combined as
 *                    1 - prod(1 - f_i) (as bloomsimd_predicted_fpr)
 *   saturated        some layer has fewer than BLOOMSIMD_SATURATED_CLEAR_BITS
 *                    clear bits: its estimate is no longer reliable (with no
 *                    clear bit it is the bound (B/k) ln B of its B bits, see
 *                    bloomsimd_estimate_count)
 *   load             the share of its capacity the filter has taken, as
 *                    bloomsimd_info.load, except for a plain filter that
 *                    counted no items (filled by the add* calls, which do not
 *                    count): there estimated_items / capacity, so it sees keys
 *                    however they were inserted. 0 without a capacity.
 *
 * Reads every bit once (about 0.6 ns per 8 bytes: ~1 ms per 16 MiB), unlike
 * bloomsimd_get_info: call it every so many batches, not per key. No-op if
 * either pointer is NULL. With BLOOMSIMD_CONCURRENT it may run while other
 * threads insert (the bits are some interleaving of their inserts).
 */
#define BLOOMSIMD_SATURATED_CLEAR_BITS 100u
typedef struct bloomsimd_fill_info {
    double fill_ratio;
    double estimated_items;
    double fpr_now;
    bool saturated;
    double load;
} bloomsimd_fill_info;

BLOOMSIMD_API void bloomsimd_get_fill_info(const bloomsimd_filter *filter, bloomsimd_fill_info *fill);

/* The layout's exact FPR model for this geometry after `items` distinct keys
 * (see README "FPR model"). Scalable filters: the chain after `items` new
 * keys filled its layers in order (layers not yet grown are modelled as they
 * would be sized); windows: every generation holding `items` keys
 * (docs/SCALABLE.md, docs/WINDOWS.md). NaN for a NULL filter, or if a needed
 * layer cannot be sized. */
BLOOMSIMD_API double bloomsimd_predicted_fpr(const bloomsimd_filter *filter, uint64_t items);

/* What bloomsimd_create_with(options) would build, computed without
 * allocating anything. Each field equals the created filter's get_info
 * field of the same name (blocks, bits, k, memory_bytes, fpr, layers,
 * kernel, layout); a scalable filter is described as created, i.e. its first layer. */
typedef struct bloomsimd_sizing {
    uint64_t blocks;
    uint64_t bits;
    uint32_t k;
    uint64_t memory_bytes;
    double bits_per_key;   /* bits of one layer / capacity (a window: of one generation); 0 without capacity */
    double fpr;            /* target FPR, as get_info reports it */
    double predicted_fpr;  /* bloomsimd_predicted_fpr(filter, capacity) of the new filter */
    uint32_t layers;
    const char *kernel;    /* the kernel create would pick */
    uint32_t layout;       /* the layout create would pick (BLOOMSIMD_LAYOUT_BLOCK512 or _SPLIT256) */
} bloomsimd_sizing;

/* Fills *sizing (zeroed on failure). Returns BLOOMSIMD_OK, or exactly the
 * status bloomsimd_create_with(options) would return for these options
 * (INVALID_ARGUMENT, TOO_LARGE, KERNEL_UNAVAILABLE; NO_MEMORY only if the
 * FPR model's small tables cannot be allocated), and INVALID_ARGUMENT for a
 * NULL options or sizing. Thread-safe. */
BLOOMSIMD_API bloomsimd_status bloomsimd_size_for(const bloomsimd_options *options, bloomsimd_sizing *sizing);

/* ======================================================================== */
/* Memory: who allocates the bit arrays                                     */
/* ======================================================================== */

/*
 * By default a bit array is posix_memalign'ed, or for 2 MiB and more an
 * anonymous mapping advised MADV_HUGEPAGE. A host that accounts its memory
 * itself (a Redis module: RedisModule_Calloc / RedisModule_Free, so filters
 * show in used_memory and MEMORY USAGE) installs its own allocator:
 *
 *   alloc(bytes, user)        zeroed memory of `bytes` bytes, or NULL
 *   free(ptr, bytes, user)    releases what alloc returned, with its size
 *
 * The library asks for 63 bytes more than the array and aligns it to 64
 * itself; arrays of 2 MiB or more still get MADV_HUGEPAGE on their 2 MiB-
 * aligned interior (unless BLOOMSIMD_NO_HUGEPAGES). The allocator applies to
 * bit arrays created, loaded, deserialized or cloned after the call; mapped
 * files are not allocated. Each filter remembers the allocator that made it
 * and frees with it, so changing or removing the allocator later is safe.
 * NULL, or a struct with a NULL function, restores the default. Filter
 * objects themselves (a few hundred bytes) stay on malloc.
 * Thread-safe; takes effect for creates that start after it returns.
 */
typedef struct bloomsimd_allocator {
    void *(*alloc)(size_t bytes, void *user);
    void (*free)(void *ptr, size_t bytes, void *user);
    void *user;
} bloomsimd_allocator;

BLOOMSIMD_API void bloomsimd_set_allocator(const bloomsimd_allocator *allocator);

/* ======================================================================== */
/* Kernels                                                                  */
/* ======================================================================== */

/* Number of kernels compiled in (including ones this CPU cannot run). */
BLOOMSIMD_API size_t bloomsimd_kernel_count(void);
/* Name of kernel i in priority order (best first), or NULL past the end.
 * Names are lower case; every call that takes a name accepts any case. */
BLOOMSIMD_API const char *bloomsimd_kernel_name(size_t i);
/* True if `name` is compiled in and this CPU (and OS) can run it. */
BLOOMSIMD_API bool bloomsimd_kernel_supported(const char *name);
/* True if `name` runs through an emulation layer here (NEON via SIMDe on x86):
 * listed and testable, never auto-selected. */
BLOOMSIMD_API bool bloomsimd_kernel_emulated(const char *name);
/* The kernel new filters get when options.kernel is NULL: BLOOMSIMD_KERNEL if
 * set and runnable, otherwise the best native kernel. NULL if BLOOMSIMD_KERNEL
 * names a kernel that cannot run here (create then fails with
 * BLOOMSIMD_ERR_KERNEL_UNAVAILABLE). */
BLOOMSIMD_API const char *bloomsimd_default_kernel(void);

/* ======================================================================== */
/* Persistence (format: docs/FORMAT.md)                                     */
/* ======================================================================== */

/* Flags for bloomsimd_map. */
#define BLOOMSIMD_MAP_READ_ONLY 0x0u  /* zero-copy, shareable; adds return BLOOMSIMD_ERR_READ_ONLY */
#define BLOOMSIMD_MAP_WRITABLE 0x1u   /* inserts go to the file (MAP_SHARED); bloomsimd_sync persists */
#define BLOOMSIMD_MAP_ACCEPT_UNSYNCED 0x2u /* accept a file whose payload checksum is stale (never synced) */

/* Every kind of filter (plain, scalable, window) serializes, saves, loads
 * and maps; a layered filter is held still while it is written (its grows and
 * rotates wait; inserts and lookups go on). A writable mapping of a scalable
 * filter cannot grow: the insert that would need a new layer returns
 * BLOOMSIMD_ERR_READ_ONLY (the keys before it are in; load the file to grow
 * it). A writable mapping of a window rotates in place. */

/*
 * Which kernel a restored filter runs. bloomsimd_deserialize, bloomsimd_load
 * and bloomsimd_map give it the process default, bloomsimd_default_kernel()
 * (BLOOMSIMD_KERNEL if set, else the best native kernel), whatever kernel
 * wrote it: the bytes are the same on every kernel. The _with calls take
 * options instead. Zero-initialise, then set what you need:
 *
 *   kernel     a kernel name as for bloomsimd_options.kernel; NULL: the default.
 *   flags      BLOOMSIMD_CONCURRENT / BLOOMSIMD_NO_HUGEPAGES, added to the
 *              flags saved with the filter (e.g. CONCURRENT to insert from
 *              several threads into a filter saved without it); a later
 *              save or sync records them.
 *   map_flags  bloomsimd_map_with only: BLOOMSIMD_MAP_*; must be 0 elsewhere.
 *
 * A NULL options pointer means all defaults. Options are checked before the
 * file or buffer is read: unknown flags or map flags are
 * BLOOMSIMD_ERR_INVALID_ARGUMENT, an unknown or unrunnable kernel (or, with
 * kernel NULL, a BLOOMSIMD_KERNEL naming one) is
 * BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, exactly as bloomsimd_create_with. Every
 * other status is the one the call without options returns.
 */
typedef struct bloomsimd_load_options {
    const char *kernel;
    uint32_t flags;
    unsigned map_flags;
} bloomsimd_load_options;

/* Bytes bloomsimd_serialize writes for this filter (0 for NULL). A concurrent
 * scalable filter may grow after this call, and then need more. */
BLOOMSIMD_API size_t bloomsimd_serialized_size(const bloomsimd_filter *filter);
/* Writes the filter into buf[0..cap). Returns BLOOMSIMD_OK and *written, or
 * BLOOMSIMD_ERR_INVALID_ARGUMENT (NULL filter/buf) or BLOOMSIMD_ERR_TOO_LARGE
 * (cap < bloomsimd_serialized_size). written may be NULL. */
BLOOMSIMD_API bloomsimd_status bloomsimd_serialize(const bloomsimd_filter *filter, void *buf, size_t cap,
                                                   size_t *written);
/* Writes bytes [offset, offset + len) of what bloomsimd_serialize would write
 * into buf[0..len), and nothing else: for hosts that hand a large filter out
 * in pieces (the Redis module's BF.SCANDUMP). A slice of the bit arrays costs
 * a copy of its bytes; a slice that covers any of the header (the first 4096
 * bytes of a plain filter; docs/FORMAT.md) also reads the whole filter once,
 * for the checksums the header carries. Slices of a filter that does not
 * change between the calls add up to bloomsimd_serialize's bytes exactly;
 * slices taken while it changes may not, and then the reader rejects their
 * sum (_CORRUPT). Returns BLOOMSIMD_OK (len 0: nothing written), or
 * _INVALID_ARGUMENT (NULL filter, NULL buf with len > 0, or bytes past
 * bloomsimd_serialized_size), _NO_MEMORY (the header of a filter with
 * thousands of layers could not be allocated). */
BLOOMSIMD_API bloomsimd_status bloomsimd_serialize_range(const bloomsimd_filter *filter, uint64_t offset, void *buf,
                                                         size_t len);
/* Validates everything (sizes, magic, version, ids, both checksums, k and
 * block limits) before trusting anything, then builds a new filter on the
 * default kernel (see above). Returns BLOOMSIMD_OK, or _CORRUPT, _VERSION (unknown format
 * version or newer layout/hash id), _TOO_LARGE (the host cannot address it),
 * _INVALID_ARGUMENT (NULL out or buf), _NO_MEMORY, _KERNEL_UNAVAILABLE. */
BLOOMSIMD_API bloomsimd_status bloomsimd_deserialize(bloomsimd_filter **out, const void *buf, size_t len);
/*
 * Streaming: the bytes of bloomsimd_serialize through a callback (a socket,
 * a compressor, a container format), with no buffer of the filter's size.
 *
 * bloomsimd_write_fn must take all `len` bytes, or return a status other
 * than BLOOMSIMD_OK (BLOOMSIMD_ERR_IO with errno set, say), which stops the
 * write and is returned as it is. bloomsimd_read_fn reads up to `len` (>= 1)
 * bytes into buf and sets *got: 1..len bytes, or 0 at the end of the stream;
 * any other status stops the read and is returned as it is. Callbacks must
 * not use the filter being written.
 */
typedef bloomsimd_status (*bloomsimd_write_fn)(void *ctx, const void *buf, size_t len);
typedef bloomsimd_status (*bloomsimd_read_fn)(void *ctx, void *buf, size_t len, size_t *got);

/* Writes exactly the bytes bloomsimd_serialize would, in order, in pieces of
 * at most 1 MiB, straight from the filter's memory (the checksums are taken
 * in a first pass, as the header that carries them goes first). A layered
 * filter is held still meanwhile (its grows and rotates wait). A
 * BLOOMSIMD_CONCURRENT filter, whose bits may change between the passes, is
 * first copied with bloomsimd_clone, and the copy is written: that one case
 * costs a temporary copy of the filter's size (and may give _NO_MEMORY).
 * Returns BLOOMSIMD_OK, _INVALID_ARGUMENT (NULL filter or write), _NO_MEMORY,
 * or the callback's status; after a failure the stream holds a prefix of
 * the bytes, which a reader rejects. */
BLOOMSIMD_API bloomsimd_status bloomsimd_serialize_stream(const bloomsimd_filter *filter, bloomsimd_write_fn write,
                                                          void *ctx);
/* Reads one serialized filter from the stream, with bloomsimd_load_options
 * (NULL: defaults, see bloomsimd_deserialize_with). The header is read and
 * validated as deserialize validates it before anything is allocated; then
 * each layer's payload is read straight into the new filter's memory and its
 * checksum verified. Asks for exactly the filter's bytes: what follows it in
 * the stream is left unread (so, unlike deserialize, trailing bytes are not
 * an error). Returns deserialize_with's statuses, with these differences: a
 * stream that ends early is _CORRUPT (truncated); a read callback's failure
 * is returned as it is, and one that claims more bytes than asked is
 * _INVALID_ARGUMENT (NULL out or read, too); a stream shorter than its intact
 * header claims is _CORRUPT once it ends, or _NO_MEMORY if the claimed size
 * cannot even be allocated (a stream's length is not known in advance). On
 * failure *out is NULL and nothing leaks. */
BLOOMSIMD_API bloomsimd_status bloomsimd_deserialize_stream(bloomsimd_filter **out, bloomsimd_read_fn read, void *ctx,
                                                            const bloomsimd_load_options *options);
/* The same over a blocking file descriptor from its current offset (a pipe,
 * a socket, a file holding other data too): short transfers and EINTR are
 * retried, other failures are BLOOMSIMD_ERR_IO with errno kept; fd < 0 is
 * _INVALID_ARGUMENT. Reading leaves the offset just past the filter. On a
 * regular file, a header claiming more bytes than the file has left is
 * _CORRUPT before anything is allocated (as bloomsimd_load). */
BLOOMSIMD_API bloomsimd_status bloomsimd_serialize_fd(const bloomsimd_filter *filter, int fd);
BLOOMSIMD_API bloomsimd_status bloomsimd_deserialize_fd(bloomsimd_filter **out, int fd,
                                                        const bloomsimd_load_options *options);

/* Atomic save: temporary file PATH.tmp-<pid>-<n>-<ns> (flocked while it is
 * written), fsync, rename, fsync of the directory. A crash leaves the old
 * file or the new one. BLOOMSIMD_ERR_IO keeps errno.
 * A save that dies before its rename (SIGKILL, SIGXFSZ, a crash) leaves its
 * temporary file behind. Every save and load of PATH first removes those of
 * PATH's temporaries that are stale: regular files of this user named
 * exactly as above, whose PID does not exist and whose flock no process
 * holds. A live writer's file, in this PID namespace or another, is never
 * removed; a dead writer's file whose PID now belongs to another process is
 * kept until that process exits. Best effort: it never changes the result or
 * errno of the save or load. */
BLOOMSIMD_API bloomsimd_status bloomsimd_save(const bloomsimd_filter *filter, const char *path);
/* Reads a saved file into a new heap filter, with the same validation as
 * bloomsimd_deserialize (a file that shrinks while it is read is _CORRUPT).
 * Removes PATH's stale temporaries first (see bloomsimd_save). */
BLOOMSIMD_API bloomsimd_status bloomsimd_load(bloomsimd_filter **out, const char *path);
/* Maps a saved filter; flags from BLOOMSIMD_MAP_*. Validation reads the whole
 * payload once (checksum). Returns BLOOMSIMD_OK, or _CORRUPT (including a
 * never-synced writable file, unless BLOOMSIMD_MAP_ACCEPT_UNSYNCED), _VERSION,
 * _IO (errno kept; a second writable mapping of one file fails with errno
 * EWOULDBLOCK), _INVALID_ARGUMENT (NULL, unknown flags). Another process
 * truncating a mapped file raises SIGBUS in the mapper; no library can prevent that. */
BLOOMSIMD_API bloomsimd_status bloomsimd_map(bloomsimd_filter **out, const char *path, unsigned flags);
/* The same three with bloomsimd_load_options (see above): the kernel, added
 * filter flags and, for map, the BLOOMSIMD_MAP_* flags. Plain, scalable and
 * window filters alike. */
BLOOMSIMD_API bloomsimd_status bloomsimd_deserialize_with(bloomsimd_filter **out, const void *buf, size_t len,
                                                          const bloomsimd_load_options *options);
BLOOMSIMD_API bloomsimd_status bloomsimd_load_with(bloomsimd_filter **out, const char *path,
                                                   const bloomsimd_load_options *options);
BLOOMSIMD_API bloomsimd_status bloomsimd_map_with(bloomsimd_filter **out, const char *path,
                                                  const bloomsimd_load_options *options);
/* Writable mapping: updates the header checksums and msyncs. Heap filters and
 * read-only mappings: no-op (BLOOMSIMD_OK). NULL: BLOOMSIMD_ERR_INVALID_ARGUMENT;
 * msync failure: BLOOMSIMD_ERR_IO. bloomsimd_destroy does NOT sync: inserts
 * since the last sync reach the file (shared mapping) but its checksum is stale
 * until the next sync (docs/FORMAT.md, "Crashes"). */
BLOOMSIMD_API bloomsimd_status bloomsimd_sync(bloomsimd_filter *filter);

/* ======================================================================== */
/* Set operations and estimates                                             */
/* ======================================================================== */

/* dst |= src / dst &= src, with the kernel's SIMD loop. Same blocks, k,
 * seed and hash required, else BLOOMSIMD_ERR_INCOMPATIBLE (dst untouched);
 * BLOOMSIMD_ERR_READ_ONLY for a read-only dst; BLOOMSIMD_ERR_INVALID_ARGUMENT
 * for NULL. If either filter is BLOOMSIMD_CONCURRENT, words are combined with
 * atomic OR/AND instead (docs/CONCURRENCY.md).
 * Layered filters: union combines layer by layer two scalable filters that
 * grew alike (same seed, growth, tightening, number of layers, and blocks and
 * k per layer) or two windows of the same generations and geometry (matched
 * by age); anything else, and intersect of a layered filter, is
 * BLOOMSIMD_ERR_INCOMPATIBLE (docs/SCALABLE.md, "Union"). */
BLOOMSIMD_API bloomsimd_status bloomsimd_union(bloomsimd_filter *dst, const bloomsimd_filter *src);
BLOOMSIMD_API bloomsimd_status bloomsimd_intersect(bloomsimd_filter *dst, const bloomsimd_filter *src);
/* Estimated number of distinct keys inserted, from bit occupancy
 * (docs/ESTIMATES.md: formula, error bar, when to trust it). 0 for an empty
 * filter, NaN for NULL, never infinite: a filter with every bit set gives
 * the bound ln(1/B) / ln(1 - k/B) ~ (B/k) ln B of its B bits (the count at
 * which one clear bit is expected; it most likely holds at least that many),
 * and bloomsimd_get_fill_info's `saturated` tells when it is unreliable.
 * Layered filters: the sum over their layers. */
BLOOMSIMD_API double bloomsimd_estimate_count(const bloomsimd_filter *filter);
/* Fraction of bits set, in [0, 1]. NaN for NULL. */
BLOOMSIMD_API double bloomsimd_fill_ratio(const bloomsimd_filter *filter);

/* ======================================================================== */
/* Parquet split-block filters (docs/PARQUET.md)                            */
/* ======================================================================== */

/*
 * A filter created with BLOOMSIMD_PARQUET is Parquet's split-block Bloom
 * filter (parquet-format BloomFilter.md): z blocks of 8 little-endian 32-bit
 * words, a value's hash h = XXH64(PLAIN encoding, seed 0), its block
 * ((h >> 32) * z) >> 32, and in word w the bit ((uint32_t)h * SALT[w]) >> 27
 * (kernels/layout_split256.h). Every call of this header works on it, with
 * the keys given as their PLAIN encoding: INT64 / DOUBLE values as u64 keys
 * (the 8 little-endian bytes; a double's bit pattern), INT32 / FLOAT as
 * 4-byte byte keys, BYTE_ARRAY values as their bytes (no length prefix),
 * FIXED_LEN_BYTE_ARRAY as their bytes. bloomsimd_hash_batch_u64 and
 * bloomsimd_hash give these XXH64 hashes; a Parquet filter has no
 * bloomsimd_view (its hash is not the one bindings probe in place).
 */

/* Reads a Parquet filter: a BloomFilterHeader (BLOCK, XXHASH, UNCOMPRESSED)
 * followed by its bitset, from buf[0..len) (as stored in a file at a column
 * chunk's bloom_filter_offset), into a new heap filter with
 * BLOOMSIMD_PARQUET (the bitset is copied; kernel as for bloomsimd_create).
 * *consumed (may be NULL) gets header + bitset bytes. Returns BLOOMSIMD_OK,
 * or what bloomsimd_parquet_header_parse returns, _CORRUPT if the bitset is
 * shorter than numBytes, _TOO_LARGE above 2^32 blocks, _NO_MEMORY,
 * _KERNEL_UNAVAILABLE; *out is NULL on failure. */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_read(bloomsimd_filter **out, const void *buf, size_t len,
                                                      size_t *consumed);
/* The same without a copy: a read-only filter whose bits are buf's bitset,
 * for probing filters in a file read or mapped into memory. buf must stay
 * valid and unchanged until bloomsimd_destroy. Inserts, clear and union into
 * it get BLOOMSIMD_ERR_READ_ONLY (or do nothing, as bloomsimd_clear).
 * Requires the bitset (buf + the header's length) to be 64-byte aligned and
 * a little-endian host (the bitset's words are little-endian): otherwise
 * _INVALID_ARGUMENT says so, and bloomsimd_parquet_read copies instead.
 * Other failures as bloomsimd_parquet_read. */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_view(bloomsimd_filter **out, const void *buf, size_t len,
                                                      size_t *consumed);
/* Writes a BLOOMSIMD_PARQUET filter as a BloomFilterHeader and its bitset
 * into buf[0..cap). *written (may be NULL) gets the length (also when cap is
 * too small: then it is what is needed). Returns BLOOMSIMD_OK,
 * _INVALID_ARGUMENT (NULL, not a Parquet filter, or a bitset above INT32_MAX
 * bytes) or _TOO_LARGE (cap too small). */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_write(const bloomsimd_filter *filter, void *buf, size_t cap,
                                                       size_t *written);
/* The bitset size for ndv distinct values at false-positive rate fpr: the
 * fewest 32-byte blocks whose exact model FPR is <= fpr (what
 * bloomsimd_create_with with BLOOMSIMD_PARQUET allocates), in bytes. Parquet
 * writers commonly round up to a power of two and cap at 128 MiB; *bytes is
 * not rounded. Returns BLOOMSIMD_OK, _INVALID_ARGUMENT (NULL, ndv 0, fpr
 * outside [BLOOMSIMD_MIN_FPR, 1)) or _TOO_LARGE (above INT32_MAX bytes). */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_size_for(uint64_t ndv, double fpr, uint64_t *bytes);

/* ======================================================================== */
/* Parquet footers                                                          */
/* ======================================================================== */

/*
 * A Parquet file ends with its footer: FileMetaData in Thrift's compact
 * protocol, its length (4 bytes, little-endian) and the magic "PAR1". The
 * footer says, for each row group and leaf column (a "column chunk"), where
 * that chunk's Bloom filter is: bloom_filter_offset (ColumnMetaData field 14)
 * and bloom_filter_length (field 15, header and bitset together; older
 * writers leave it out). At that offset a BloomFilterHeader (Thrift) is
 * followed by the bitset of numBytes bytes.
 *
 * Everything here is validated before it is trusted: a truncated or hostile
 * input gets BLOOMSIMD_ERR_CORRUPT (malformed) or BLOOMSIMD_ERR_VERSION (well
 * formed but something this library does not read: an encrypted footer, a
 * Bloom filter algorithm, hash or compression other than BLOCK / XXHASH /
 * UNCOMPRESSED), with the byte and the check in bloomsimd_last_error(). It
 * never reads outside the buffer, never recurses on the input, works in time
 * linear in its length and allocates at most a small multiple of it.
 */

/* Parquet physical types (the Type enum of parquet.thrift). */
#define BLOOMSIMD_PARQUET_BOOLEAN 0u
#define BLOOMSIMD_PARQUET_INT32 1u
#define BLOOMSIMD_PARQUET_INT64 2u
#define BLOOMSIMD_PARQUET_INT96 3u
#define BLOOMSIMD_PARQUET_FLOAT 4u
#define BLOOMSIMD_PARQUET_DOUBLE 5u
#define BLOOMSIMD_PARQUET_BYTE_ARRAY 6u
#define BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY 7u

/* "INT64", "BYTE_ARRAY", ...; NULL for a value outside the enum. */
BLOOMSIMD_API const char *bloomsimd_parquet_type_name(uint32_t physical_type);

/* A leaf column of the schema, in schema order. */
typedef struct bloomsimd_parquet_column {
    const char *path;       /* the names from the root's child down, joined with '.' ("a.b.c") */
    uint32_t depth;         /* names in the path (1 for a top-level column) */
    uint32_t physical_type; /* BLOOMSIMD_PARQUET_* */
    int32_t type_length;    /* FIXED_LEN_BYTE_ARRAY: bytes per value; otherwise as the file says, or 0 */
} bloomsimd_parquet_column;

/* One column chunk: a leaf column within one row group. */
typedef struct bloomsimd_parquet_chunk {
    int64_t num_values;          /* values in the chunk, nulls included */
    int64_t bloom_filter_offset; /* byte offset of its BloomFilterHeader in the file; -1: no filter */
    int64_t bloom_filter_length; /* header + bitset bytes; -1 if the file does not record it (read
                                    the header to learn it, bloomsimd_parquet_header_parse) */
    bool encrypted;              /* its ColumnMetaData is encrypted: nothing known, offset -1 */
    bool external;               /* its data is in another file (ColumnChunk.file_path): offset -1 */
} bloomsimd_parquet_chunk;

/* A parsed footer: one allocation, freed with bloomsimd_parquet_footer_free. */
typedef struct bloomsimd_parquet_footer {
    uint64_t file_size;      /* as given to the parse */
    uint64_t footer_offset;  /* where FileMetaData starts in the file */
    uint32_t footer_bytes;   /* its length */
    int32_t version;         /* FileMetaData.version */
    int64_t num_rows;
    const char *created_by;  /* "" when the file does not say */
    uint32_t columns;        /* leaf columns */
    uint32_t row_groups;
    const bloomsimd_parquet_column *column;  /* [columns] */
    const int64_t *row_group_rows;           /* [row_groups] */
    const bloomsimd_parquet_chunk *chunk;    /* [row_groups * columns]: row group r, column c at r * columns + c */
} bloomsimd_parquet_footer;

/* Bytes a footer parse needs from the end of the file: the footer, its
 * length and the magic (footer length + 8), read from the file's last 8
 * bytes `last8` and the file's size. Returns BLOOMSIMD_OK and *tail_bytes, or
 * BLOOMSIMD_ERR_INVALID_ARGUMENT (NULL pointer), BLOOMSIMD_ERR_CORRUPT (a file
 * shorter than 12 bytes, no "PAR1" at the end, a footer length that does not
 * fit before it), BLOOMSIMD_ERR_VERSION ("PARE": an encrypted footer). */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_tail_bytes(const void *last8, uint64_t file_size,
                                                            uint64_t *tail_bytes);
/*
 * Parses a footer. `tail` holds the last tail_len bytes of a file of
 * file_size bytes: the whole file (tail_len == file_size; its leading "PAR1"
 * is then checked too), or at least bloomsimd_parquet_tail_bytes of its end.
 * Checks the schema tree (every group's children present, every leaf typed),
 * that every row group has one chunk per leaf whose path_in_schema and type
 * are the leaf's, every required field, and that each Bloom filter lies
 * between the leading magic and the footer. Returns BLOOMSIMD_OK and *out, or
 * BLOOMSIMD_ERR_INVALID_ARGUMENT (NULL pointers, tail_len > file_size, a tail
 * too short for the footer it ends with), _CORRUPT, _VERSION (as above),
 * _TOO_LARGE (more than UINT32_MAX columns or row groups, or a schema whose
 * joined column paths would be longer than the footer itself), _NO_MEMORY.
 * On failure *out is NULL.
 */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_footer_parse(bloomsimd_parquet_footer **out, const void *tail,
                                                              size_t tail_len, uint64_t file_size);
/* Reads the footer of the file at `path` (two reads: the last 8 bytes, then
 * the footer) and parses it. Returns what bloomsimd_parquet_footer_parse
 * returns, and BLOOMSIMD_ERR_IO (errno kept; EISDIR, EINVAL for a file that is
 * not regular) if the file cannot be opened or read. */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_footer_load(bloomsimd_parquet_footer **out, const char *path);
/* Frees a footer. NULL is a no-op. */
BLOOMSIMD_API void bloomsimd_parquet_footer_free(bloomsimd_parquet_footer *footer);
/* The index of the leaf column whose path is `path` (as in
 * bloomsimd_parquet_column.path), or -1. */
BLOOMSIMD_API int64_t bloomsimd_parquet_footer_find(const bloomsimd_parquet_footer *footer, const char *path);

/* A BloomFilterHeader. */
typedef struct bloomsimd_parquet_header {
    uint32_t header_bytes; /* Thrift bytes before the bitset */
    uint32_t bitset_bytes; /* numBytes: a positive multiple of 32 (whole 256-bit blocks) */
} bloomsimd_parquet_header;

/* Parses the BloomFilterHeader at the start of buf[0..len) (the bitset may
 * follow or not). Returns BLOOMSIMD_OK and *out, or _INVALID_ARGUMENT (NULL),
 * _CORRUPT (truncated, malformed, a required field missing, numBytes not a
 * positive multiple of 32), _VERSION (an algorithm, hash or compression that
 * is not BLOCK, XXHASH, UNCOMPRESSED). */
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_header_parse(const void *buf, size_t len,
                                                              bloomsimd_parquet_header *out);
/* Writes the BloomFilterHeader of a bitset of bitset_bytes bytes (a positive
 * multiple of 32, at most INT32_MAX) to buf[0..cap); *written (may be NULL)
 * gets its length, at most BLOOMSIMD_PARQUET_HEADER_MAX_BYTES. Returns
 * BLOOMSIMD_OK, _INVALID_ARGUMENT (NULL buf, a bad size) or _TOO_LARGE (cap
 * too small; *written then says how much is needed). */
#define BLOOMSIMD_PARQUET_HEADER_MAX_BYTES 19u
BLOOMSIMD_API bloomsimd_status bloomsimd_parquet_header_write(uint32_t bitset_bytes, void *buf, size_t cap,
                                                              size_t *written);

/* ======================================================================== */
/* Single keys, inlined                                                     */
/* ======================================================================== */

/*
 * In a program compiled for AVX2 (-mavx2, or a -march that has it),
 * bloomsimd_contains_u64(f, key) and bloomsimd_add_u64(f, key), called as
 * functions, expand here to an inline probe: no call into the library and no
 * indirect jump, so a loop of them keeps its keys' hashing in registers and
 * more cache misses in flight. With -mavx512f a block512 probe is one 512-bit
 * test (split256, the default, is one 256-bit test either way). A portable
 * build (no AVX2) calls the exported functions, which run the CPU's best
 * kernel. The exported functions stay for bindings and FFI:
 * take their address, call them with the name in parentheses,
 * (bloomsimd_contains_u64)(f, key), or define BLOOMSIMD_NO_INLINE before
 * including this header.
 *
 * Every filter starts with a bloomsimd_inline (below), which the library
 * fills. The inline code probes only the shapes this header knows and calls
 * the library for anything else: layered, Parquet and BLOOMSIMD_CONCURRENT
 * filters, adds to a read-only mapping, and whatever a newer library adds. A
 * program built against this header so never misreads a filter made by a
 * newer library. Answers and bytes are the library's, bit for bit
 * (tests/test_inline.c, on every layout, hash and k).
 * docs/kernels/single-key.md has the figures.
 *
 * Why a tag: a call must find out, on every call, that the filter is one it
 * may probe in place. Version and shape share the view's first word, so that
 * is one compare with an immediate per shape it tries (the filter's usual
 * shape first), and the shapes are separate `if`s, not a `switch`: on Zen 3
 * a version check plus a switch cost 13-22% of a cached lookup, the tag
 * about half of that.
 */
#define BLOOMSIMD_INLINE_VERSION 2u
/* A view's version (top 16 bits) and probe shape (low 16) in one word. The
 * first 32 bits of every version of the view are such a tag; version 1 held
 * the version alone there (1), which no tag equals, so each side of a
 * version change falls back to the library. */
#define BLOOMSIMD_INLINE_TAG(shape) ((BLOOMSIMD_INLINE_VERSION << 16) | (shape))
#define BLOOMSIMD_INLINE_LIBRARY BLOOMSIMD_INLINE_TAG(0u) /* no inline probe: call the library */
#define BLOOMSIMD_INLINE_SPLIT256_XXH3 BLOOMSIMD_INLINE_TAG(1u)
#define BLOOMSIMD_INLINE_BLOCK512_XXH3 BLOOMSIMD_INLINE_TAG(2u)
#define BLOOMSIMD_INLINE_SPLIT256_MUM BLOOMSIMD_INLINE_TAG(3u)
#define BLOOMSIMD_INLINE_BLOCK512_MUM BLOOMSIMD_INLINE_TAG(4u)

/* The first member of every filter. `probe` stays the first field of every
 * future version; the rest is this version's. */
typedef struct bloomsimd_inline {
    uint32_t probe;          /* lookups: a BLOOMSIMD_INLINE_* tag */
    uint32_t write;          /* adds: the same tag, or BLOOMSIMD_INLINE_LIBRARY where the library must
                                refuse them (a read-only mapping) */
    uint64_t *words;         /* the bit array, 64-byte aligned, little-endian 32-bit words */
    uint64_t nblocks;
    uint64_t hash_a, hash_b; /* XXH3: the seed's bitflip in hash_a; mum: its two words */
    const uint16_t *select;  /* block512: the 64 word masks of the filter's k */
} bloomsimd_inline;

#if !defined(BLOOMSIMD_NO_INLINE) && defined(__AVX2__)
#include <immintrin.h>

/* XXH3_64bits_withSeed of the key's 8 little-endian bytes (kernels/layout.h section 1). */
static inline uint64_t bloomsimd_inline_xxh3_(uint64_t key, uint64_t bitflip)
{
    uint64_t h = ((key << 32) | (key >> 32)) ^ bitflip;
    h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40));
    h *= UINT64_C(0x9FB21C651E98DF25);
    h ^= (h >> 35) + 8u;
    h *= UINT64_C(0x9FB21C651E98DF25);
    return h ^ (h >> 28);
}

/* Hash 3, BLOOMSIMD_U64_MUM (kernels/layout.h section 1). */
static inline uint64_t bloomsimd_inline_mum_(uint64_t key, uint64_t a, uint64_t b)
{
    __extension__ unsigned __int128 p = (unsigned __int128)(key ^ a) * (__builtin_bswap64(key) ^ b);
    uint64_t h = ((uint64_t)p ^ (uint64_t)(p >> 64)) * UINT64_C(0x9E3779B97F4A7C15);
    return h ^ (h >> 32);
}

/* The salts of the words' bits (1 << ((lo * salt) >> 27)): split256 uses the
 * first 8 (Parquet's), block512 all 16. */
static const uint32_t bloomsimd_inline_salts_[16] __attribute__((aligned(64))) = {
    0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u,
    0x3c6ef373u, 0x9e3779b9u, 0x2545f491u, 0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu, 0x165667b1u, 0xd3a2646du};

/* The key's block: ((h >> 32) * nblocks) >> 32, of 4 (split256) or 8 (block512) 64-bit words. */
static inline uint64_t *bloomsimd_inline_block_(const bloomsimd_inline *v, uint64_t h, unsigned words)
{
    return v->words + (((h >> 32) * v->nblocks) >> 32) * words;
}

/* The bit of each of 8 words, salts from `at`. */
static inline __m256i bloomsimd_inline_bits8_(uint32_t lo, unsigned at)
{
    __m256i salts = _mm256_load_si256((const __m256i *)(const void *)(bloomsimd_inline_salts_ + at));
    __m256i shift = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((int)lo), salts), 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), shift);
}

/* block512: all-ones in the words of `sel` (8 of its bits from `at`). */
static inline __m256i bloomsimd_inline_words8_(unsigned sel, unsigned at)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)(sel >> at)), bit), bit);
}

static inline bool bloomsimd_inline_split256_has_(const bloomsimd_inline *v, uint64_t h)
{
    const __m256i *b = (const __m256i *)(const void *)bloomsimd_inline_block_(v, h, 4);
    return _mm256_testc_si256(_mm256_load_si256(b), bloomsimd_inline_bits8_((uint32_t)h, 0));
}

static inline void bloomsimd_inline_split256_set_(const bloomsimd_inline *v, uint64_t h)
{
    __m256i *b = (__m256i *)(void *)bloomsimd_inline_block_(v, h, 4);
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), bloomsimd_inline_bits8_((uint32_t)h, 0)));
}

static inline bool bloomsimd_inline_block512_has_(const bloomsimd_inline *v, uint64_t h)
{
    const uint32_t lo = (uint32_t)h;
    const unsigned sel = v->select[lo >> 26];
    const uint64_t *b = bloomsimd_inline_block_(v, h, 8);
#if defined(__AVX512F__)
    __m512i salts = _mm512_load_si512((const void *)bloomsimd_inline_salts_);
    __m512i bits = _mm512_sllv_epi32(_mm512_set1_epi32(1),
                                     _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_set1_epi32((int)lo), salts), 27));
    return _mm512_mask_test_epi32_mask((__mmask16)sel, bits, _mm512_load_si512((const void *)b)) == (__mmask16)sel;
#else
    __m256i m0 = _mm256_and_si256(bloomsimd_inline_bits8_(lo, 0), bloomsimd_inline_words8_(sel, 0));
    __m256i m1 = _mm256_and_si256(bloomsimd_inline_bits8_(lo, 8), bloomsimd_inline_words8_(sel, 8));
    return _mm256_testc_si256(_mm256_load_si256((const __m256i *)(const void *)b), m0) &
           _mm256_testc_si256(_mm256_load_si256((const __m256i *)(const void *)(b + 4)), m1);
#endif
}

static inline void bloomsimd_inline_block512_set_(const bloomsimd_inline *v, uint64_t h)
{
    const uint32_t lo = (uint32_t)h;
    const unsigned sel = v->select[lo >> 26];
    __m256i *b = (__m256i *)(void *)bloomsimd_inline_block_(v, h, 8);
    __m256i m0 = _mm256_and_si256(bloomsimd_inline_bits8_(lo, 0), bloomsimd_inline_words8_(sel, 0));
    __m256i m1 = _mm256_and_si256(bloomsimd_inline_bits8_(lo, 8), bloomsimd_inline_words8_(sel, 8));
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), m0));
    _mm256_store_si256(b + 1, _mm256_or_si256(_mm256_load_si256(b + 1), m1));
}

/* The shape tried first: the default layout of every SIMD kernel, split256. */
#define BLOOMSIMD_INLINE_FIRST_XXH3_ BLOOMSIMD_INLINE_SPLIT256_XXH3
#define BLOOMSIMD_INLINE_FIRST_HAS_ bloomsimd_inline_split256_has_
#define BLOOMSIMD_INLINE_FIRST_SET_ bloomsimd_inline_split256_set_
#define BLOOMSIMD_INLINE_OTHER_XXH3_ BLOOMSIMD_INLINE_BLOCK512_XXH3
#define BLOOMSIMD_INLINE_OTHER_HAS_ bloomsimd_inline_block512_has_
#define BLOOMSIMD_INLINE_OTHER_SET_ bloomsimd_inline_block512_set_
/* The mum tag of the same layout as the XXH3 tag t (tags 1/3 and 2/4). */
#define BLOOMSIMD_INLINE_MUM_OF_(t) ((t) + 2u)

static inline bool bloomsimd_inline_contains_u64(const bloomsimd_filter *filter, uint64_t key)
{
    const bloomsimd_inline *v = (const bloomsimd_inline *)(const void *)filter;
    if (filter) {
        const uint32_t tag = v->probe;
        if (tag == BLOOMSIMD_INLINE_FIRST_XXH3_)
            return BLOOMSIMD_INLINE_FIRST_HAS_(v, bloomsimd_inline_xxh3_(key, v->hash_a));
        if (tag == BLOOMSIMD_INLINE_MUM_OF_(BLOOMSIMD_INLINE_FIRST_XXH3_))
            return BLOOMSIMD_INLINE_FIRST_HAS_(v, bloomsimd_inline_mum_(key, v->hash_a, v->hash_b));
        if (tag == BLOOMSIMD_INLINE_OTHER_XXH3_)
            return BLOOMSIMD_INLINE_OTHER_HAS_(v, bloomsimd_inline_xxh3_(key, v->hash_a));
        if (tag == BLOOMSIMD_INLINE_MUM_OF_(BLOOMSIMD_INLINE_OTHER_XXH3_))
            return BLOOMSIMD_INLINE_OTHER_HAS_(v, bloomsimd_inline_mum_(key, v->hash_a, v->hash_b));
    }
    return (bloomsimd_contains_u64)(filter, key);
}

static inline bloomsimd_status bloomsimd_inline_add_u64(bloomsimd_filter *filter, uint64_t key)
{
    const bloomsimd_inline *v = (const bloomsimd_inline *)(const void *)filter;
    if (filter) {
        const uint32_t tag = v->write;
        if (tag == BLOOMSIMD_INLINE_FIRST_XXH3_) {
            BLOOMSIMD_INLINE_FIRST_SET_(v, bloomsimd_inline_xxh3_(key, v->hash_a));
            return BLOOMSIMD_OK;
        }
        if (tag == BLOOMSIMD_INLINE_MUM_OF_(BLOOMSIMD_INLINE_FIRST_XXH3_)) {
            BLOOMSIMD_INLINE_FIRST_SET_(v, bloomsimd_inline_mum_(key, v->hash_a, v->hash_b));
            return BLOOMSIMD_OK;
        }
        if (tag == BLOOMSIMD_INLINE_OTHER_XXH3_) {
            BLOOMSIMD_INLINE_OTHER_SET_(v, bloomsimd_inline_xxh3_(key, v->hash_a));
            return BLOOMSIMD_OK;
        }
        if (tag == BLOOMSIMD_INLINE_MUM_OF_(BLOOMSIMD_INLINE_OTHER_XXH3_)) {
            BLOOMSIMD_INLINE_OTHER_SET_(v, bloomsimd_inline_mum_(key, v->hash_a, v->hash_b));
            return BLOOMSIMD_OK;
        }
    }
    return (bloomsimd_add_u64)(filter, key);
}

#define bloomsimd_contains_u64(filter, key) bloomsimd_inline_contains_u64((filter), (key))
#define bloomsimd_add_u64(filter, key) bloomsimd_inline_add_u64((filter), (key))

#endif /* !BLOOMSIMD_NO_INLINE && __AVX2__ */

#ifdef __cplusplus
}
#endif

#endif /* BLOOMSIMD_H */
