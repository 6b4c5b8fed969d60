/*
 * format.h — the on-disk header of a saved filter (docs/FORMAT.md, versions 2
 * and 3: version 3 is written only for a scalable filter version 2 cannot
 * describe, and differs from it only where marked [v3]).
 *
 * Every multi-byte field is little-endian and is encoded and decoded byte by
 * byte (bloomsimd_le*), so the file is identical on every CPU and never
 * depends on struct padding or host byte order.
 *
 *   offset size  field
 *        0    8  magic "\x89BSIMD\r\n"
 *        8    4  format_version (2 or 3; version 1 files, layout 1, fail with BLOOMSIMD_ERR_VERSION)
 *       12    4  payload_offset (4096; layered files: 128 + 64 * layers rounded up to 4096)
 *       16    4  layout_id (2 = block512, kernels/layout.h; 3 = split256, kernels/layout_split256.h)
 *       20    4  hash_id (1 = XXH3_64bits_withSeed; 2 = Parquet's XXH64 seed 0; 3 = mum for
 *                64-bit keys, XXH3 for byte keys: kernels/layout.h section 1)
 *       24    8  seed
 *       32    8  block_count (1 .. 2^32; layered: the sum over the layers)
 *       40    4  k (1 .. 16; scalable: options.k, 0 = chosen per layer; window: the generations' k)
 *       44    4  state_flags (bit 0: DIRTY)
 *       48    4  filter_flags (BLOOMSIMD_CONCURRENT | BLOOMSIMD_NO_HUGEPAGES)
 *       52    4  filter_kind (0 plain, 1 scalable, 2 window)
 *       56    8  capacity
 *       64    8  target_fpr (IEEE-754 binary64 bits)
 *       72    8  payload_bytes (plain: block_count * block bytes, 64 or 32 by layout; layered: every
 *                layer rounded up to 4096)
 *       80    8  payload_checksum (plain: XXH3_64bits of the payload; layered: of the layer directory)
 *       88    8  items (plain: the add_new counter; layered: 0)
 *                [v3, layered: u32 schedule at 88 (0 geometric, 1 budget; src/layers/schedule.c), u32 0 at 92]
 *       96    4  layer_count (plain 0; scalable 1..64 [v3: 1..2^24]; window 2..64)
 *      100    4  growth (scalable >= 1, else 0)
 *      104    8  tightening (scalable, geometric schedule: in (0, 1); else 0)
 *      112    8  rotations (window, < 2^62, else 0)
 *      120    8  header_checksum (XXH3_64bits of bytes 0..119, seed 0)
 *      128   64  layer directory entry 0, 1, ... (layered files; below), then zero padding
 *  payload_offset  payload: plain, block_count blocks; layered, layer i at an offset that is
 *                  a multiple of 4096 [v3: of 64], zero padding between layers
 *
 * Layer directory entry (64 bytes):
 *   +0 u64 block_count  +8 u32 k  +12 u32 reserved 0  +16 u64 capacity  +24 f64 fpr
 *   +32 u64 items  +40 i64 started_ns  +48 u64 payload_checksum (XXH3 of its blocks)  +56 u64 reserved 0
 */
#ifndef BLOOMSIMD_PERSIST_FORMAT_H
#define BLOOMSIMD_PERSIST_FORMAT_H

#include "../baseline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../internal.h"

#define BLOOMSIMD_FORMAT_MAGIC "\x89" "BSIMD\r\n"
#define BLOOMSIMD_FORMAT_MAGIC_BYTES 8u
/* The versions this library reads and writes (docs/FORMAT.md, "Versions"). */
#define BLOOMSIMD_FORMAT_VERSION 3u
#define BLOOMSIMD_FORMAT_VERSION_OLDEST 2u
#define BLOOMSIMD_FORMAT_PAYLOAD_OFFSET 4096u
/* layout_id: BLOOMSIMD_LAYOUT_BLOCK512 (2) or BLOOMSIMD_LAYOUT_SPLIT256 (3),
 * from the filter's geometry; hash_id: BLOOMSIMD_HASH_XXH3 (1), _PARQUET_XXH64 (2) or
 * _MUM (3), kernel.h. */
/* Bytes 0..119 are checksummed; the checksum itself sits at 120. */
#define BLOOMSIMD_FORMAT_FIXED_BYTES 128u
#define BLOOMSIMD_FORMAT_CHECKSUMMED_BYTES 120u
/* Layer directory entries of layered files, from offset 128. */
#define BLOOMSIMD_FORMAT_ENTRY_BYTES 64u
/* Layers of a version-2 file (and of any window: BLOOMSIMD_MAX_GENERATIONS);
 * a version-3 file holds up to BLOOMSIMD_MAX_LAYERS (2^24: its payload
 * offset, 128 + 64 * 2^24 rounded up, still fits the 32-bit field). */
#define BLOOMSIMD_FORMAT_MAX_LAYERS 64u
/* Layer payloads start on multiples of this in version 2 (the page size)... */
#define BLOOMSIMD_FORMAT_ALIGN 4096u
/* ... and of this in version 3 (a block512 line: mappable in place either
 * way, and a chain of thousands of one-block layers is not 64 times its bits). */
#define BLOOMSIMD_FORMAT_ALIGN_V3 64u
/* The largest payload_offset of up to 64 layers: 128 + 64 * 64 rounded up.
 * Headers this long are read and written on the stack; a longer one (a
 * version-3 chain of more layers) on the heap. */
#define BLOOMSIMD_FORMAT_HEADER_MAX 8192u
#define BLOOMSIMD_FORMAT_MAX_ROTATIONS (UINT64_C(1) << 62)

#define BLOOMSIMD_FORMAT_STATE_DIRTY 0x1u
#define BLOOMSIMD_FORMAT_KNOWN_STATE_FLAGS BLOOMSIMD_FORMAT_STATE_DIRTY

/* Field offsets (see the table above). */
enum {
    BLOOMSIMD_HDR_MAGIC = 0,
    BLOOMSIMD_HDR_VERSION = 8,
    BLOOMSIMD_HDR_PAYLOAD_OFFSET = 12,
    BLOOMSIMD_HDR_LAYOUT_ID = 16,
    BLOOMSIMD_HDR_HASH_ID = 20,
    BLOOMSIMD_HDR_SEED = 24,
    BLOOMSIMD_HDR_BLOCKS = 32,
    BLOOMSIMD_HDR_K = 40,
    BLOOMSIMD_HDR_STATE_FLAGS = 44,
    BLOOMSIMD_HDR_FILTER_FLAGS = 48,
    BLOOMSIMD_HDR_KIND = 52,
    BLOOMSIMD_HDR_CAPACITY = 56,
    BLOOMSIMD_HDR_FPR = 64,
    BLOOMSIMD_HDR_PAYLOAD_BYTES = 72,
    BLOOMSIMD_HDR_PAYLOAD_CHECKSUM = 80,
    BLOOMSIMD_HDR_ITEMS = 88,
    BLOOMSIMD_HDR_SCHEDULE = 88, /* [v3, layered] */
    BLOOMSIMD_HDR_SCHEDULE_RESERVED = 92,
    BLOOMSIMD_HDR_LAYER_COUNT = 96,
    BLOOMSIMD_HDR_GROWTH = 100,
    BLOOMSIMD_HDR_TIGHTENING = 104,
    BLOOMSIMD_HDR_ROTATIONS = 112,
    BLOOMSIMD_HDR_HEADER_CHECKSUM = 120,
    BLOOMSIMD_HDR_DIRECTORY = 128
};

/* Offsets inside a layer directory entry. */
enum {
    BLOOMSIMD_ENT_BLOCKS = 0,
    BLOOMSIMD_ENT_K = 8,
    BLOOMSIMD_ENT_RESERVED_A = 12,
    BLOOMSIMD_ENT_CAPACITY = 16,
    BLOOMSIMD_ENT_FPR = 24,
    BLOOMSIMD_ENT_ITEMS = 32,
    BLOOMSIMD_ENT_STARTED = 40,
    BLOOMSIMD_ENT_CHECKSUM = 48,
    BLOOMSIMD_ENT_RESERVED_B = 56
};

/* One layer of the payload (a plain file has one, described by the fixed header). */
typedef struct bloomsimd_layer_entry {
    uint64_t blocks;
    uint32_t k;
    uint64_t capacity;
    double fpr;
    uint64_t items;
    int64_t started_ns;
    uint64_t checksum;
    uint64_t offset; /* where its blocks start in the file (derived, not stored) */
} bloomsimd_layer_entry;

/* The decoded header. */
typedef struct bloomsimd_header {
    uint32_t version;
    uint32_t payload_offset;
    uint32_t layout_id;
    uint32_t hash_id;
    uint64_t seed;
    uint64_t blocks;
    uint32_t k;
    uint32_t state_flags;
    uint32_t filter_flags;
    uint64_t capacity;
    double fpr;
    uint64_t payload_bytes;
    uint64_t payload_checksum;
    uint32_t kind;        /* bloomsimd_kind */
    uint64_t items;       /* plain */
    uint32_t layer_count; /* layered; 0 for plain */
    uint32_t growth;
    double tightening;
    uint32_t schedule;    /* scalable: bloomsimd_schedule (version 2: geometric) */
    double through;       /* scalable: the chain's capacity through its last layer (derived, not stored) */
    uint64_t rotations;
    /* the payload's layers: layered files, layer_count entries; plain, layer[0]
     * (blocks, k, checksum = payload_checksum, offset 4096), count 1. `layer`
     * points at `inline_layer`, or for more than 64 layers at an array of
     * the heap that bloomsimd_header_release frees (the struct must not be
     * copied). */
    uint32_t layers;
    bloomsimd_layer_entry *layer;
    bloomsimd_layer_entry inline_layer[BLOOMSIMD_FORMAT_MAX_LAYERS];
} bloomsimd_header;

/* Frees a directory of more than 64 layers (h->layer then points at nothing
 * valid). Every header that bloomsimd_header_from_filter or a successful
 * bloomsimd_header_decode filled must be released; a failed decode releases
 * its own. */
void bloomsimd_header_release(bloomsimd_header *h);

static inline void bloomsimd_le32_put(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void bloomsimd_le64_put(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t bloomsimd_le32_get(const uint8_t *p)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static inline uint64_t bloomsimd_le64_get(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The header describing filter f with the given state flags, its layers'
 * geometry, counters and file offsets; the layers' checksums are left 0 for
 * the caller (bloomsimd_header_set_checksum). A layered filter must be held
 * still by its lock (bloomsimd_layers_hold) while this and the payload copy
 * run. BLOOMSIMD_OK, or NO_MEMORY for the directory of a long chain (h then
 * needs no release). */
bloomsimd_status bloomsimd_header_from_filter(const bloomsimd_filter *f, uint32_t state_flags, bloomsimd_header *h);
/* bloomsimd_layers_hold(f), then bloomsimd_header_from_filter(f, 0, h): how a
 * writer that reads the header and the payload as one snapshot starts. On
 * failure f is released again; on success the caller releases f
 * (bloomsimd_layers_release) and h (bloomsimd_header_release). */
bloomsimd_status bloomsimd_header_hold(const bloomsimd_filter *f, bloomsimd_header *h);

/* Where to encode h's header: `stack` when its payload_offset fits
 * BLOOMSIMD_FORMAT_HEADER_MAX, else a zeroed heap buffer (NULL: no memory).
 * bloomsimd_header_buffer_free(buffer, stack) releases it. */
uint8_t *bloomsimd_header_buffer(const bloomsimd_header *h, uint8_t *stack);
void bloomsimd_header_buffer_free(uint8_t *buffer, const uint8_t *stack);
/* Records the checksum of payload layer i (plain: the payload checksum). */
void bloomsimd_header_set_checksum(bloomsimd_header *h, uint32_t i, uint64_t checksum);
/* The bit-array object holding payload layer i of f (a plain filter: f). */
bloomsimd_filter *bloomsimd_payload_layer(const bloomsimd_filter *f, uint32_t i);
/* Bytes of payload layer i's blocks (without padding), by h's layout. */
static inline size_t bloomsimd_header_layer_bytes(const bloomsimd_header *h, uint32_t i)
{
    return (size_t)(h->layer[i].blocks * bloomsimd_layout_block_bytes(h->layout_id));
}

/* Bytes of the whole file h describes. */
uint64_t bloomsimd_header_file_bytes(const bloomsimd_header *h);

/* Encodes h into out[0..h->payload_offset): fixed fields, layer directory and
 * its checksum, header checksum, zero padding. */
void bloomsimd_header_encode(const bloomsimd_header *h, uint8_t *out);

/* Recomputes the header checksum of an encoded header in place (after a field
 * of a mapped header changed). */
void bloomsimd_header_reseal(uint8_t *header);

/* XXH3_64bits(header[0..120)). */
uint64_t bloomsimd_header_checksum(const uint8_t *header);

/*
 * Validates an encoded header (fixed part and, for layered files, the layer
 * directory) against the total length of the file or buffer it came from, in
 * the order of docs/FORMAT.md "Validation", and decodes it. `avail` is how
 * many header bytes the caller could read (the header is never read beyond
 * min(avail, BLOOMSIMD_FORMAT_HEADER_MAX)).
 * Returns BLOOMSIMD_OK, BLOOMSIMD_ERR_CORRUPT, BLOOMSIMD_ERR_VERSION,
 * BLOOMSIMD_ERR_TOO_LARGE (a valid file that does not fit this address space)
 * or BLOOMSIMD_ERR_NO_MEMORY (the directory of more than 64 layers).
 * The payload checksum is NOT checked here.
 */
bloomsimd_status bloomsimd_header_decode(const uint8_t *header, size_t avail, uint64_t total_len,
                                         bloomsimd_header *h);

/* Payload checksum verdict for layer i: OK when it matches; when it does
 * not, OK only for a DIRTY header and accept_unsynced, else
 * BLOOMSIMD_ERR_CORRUPT. */
bloomsimd_status bloomsimd_payload_verdict(const bloomsimd_header *h, uint32_t i, uint64_t actual_checksum,
                                           bool accept_unsynced);
/* Checks a whole in-memory file image after its header decoded: every
 * layer's checksum (with the DIRTY rule) and every padding byte between
 * layers zero. */
bloomsimd_status bloomsimd_image_verify(const bloomsimd_header *h, const uint8_t *file, bool accept_unsynced);

/* Copies bytes [offset, offset+bytes) of f's bit array (offset and bytes
 * multiples of 8) to dst, which need not be aligned. A CONCURRENT filter is
 * read with relaxed atomic loads, so copying while other threads insert is
 * defined behaviour and yields some interleaving of their inserts. */
void bloomsimd_payload_copy(const bloomsimd_filter *f, void *dst, size_t offset, size_t bytes);

/* XXH3_64bits of a payload. */
uint64_t bloomsimd_payload_checksum(const void *payload, size_t bytes);

/* bloomsimd_load_options after their checks: the kernel to run, the filter
 * flags to add to the file's, and (map only) the BLOOMSIMD_MAP_* flags. */
typedef struct bloomsimd_load_choice {
    const bloomsimd_kernel *kernel;
    uint32_t flags;
    unsigned map_flags;
} bloomsimd_load_choice;

/* Checks options (NULL: all defaults) before any file or buffer is read:
 * unknown filter flags, or map flags outside a map (allow_map false) or
 * unknown, are BLOOMSIMD_ERR_INVALID_ARGUMENT; a kernel that is unknown or
 * not runnable here (named, or the process default) is
 * BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, as for bloomsimd_create_with. */
bloomsimd_status bloomsimd_load_options_check(const bloomsimd_load_options *options, bool allow_map,
                                              bloomsimd_load_choice *choice);

/* Builds the filter a validated header describes, on choice->kernel with the
 * file's flags plus choice->flags, with its counters. mapped == NULL: every
 * layer gets a zeroed bit array (the caller fills it from layer i's
 * payload); otherwise the bits of layer i are at mapped + h->layer[i].offset
 * (a file mapping, which the caller hands to the returned handle).
 * BLOOMSIMD_ERR_NO_MEMORY / _TOO_LARGE. */
bloomsimd_status bloomsimd_filter_from_header(const bloomsimd_header *h, uint8_t *mapped,
                                              const bloomsimd_load_choice *choice, bloomsimd_filter **out);

/* Holds a layered filter still for persistence (its grows and rotates wait);
 * no-op for plain filters. */
void bloomsimd_layers_hold(const bloomsimd_filter *f);
void bloomsimd_layers_release(const bloomsimd_filter *f);

#endif
