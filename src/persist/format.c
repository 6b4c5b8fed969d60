/*
 * format.c — encoding and validation of the header and layer directory
 * (docs/FORMAT.md, versions 2 and 3).
 *
 * Validation trusts nothing: every length is compared with what the caller
 * actually holds before it is used, and the only arithmetic on untrusted
 * numbers (block_count * 64 rounded up, sums over at most 2^24 layers,
 * payload_offset + payload_bytes) is done after each block_count <= 2^32 is
 * established, so it stays below 2^63 and cannot wrap. A layered file's
 * scalable chain (capacities c * g^i, FPRs by its schedule) is recomputed
 * with the writer's arithmetic (src/layers/schedule.c: correctly rounded
 * operations only) and must match bit for bit.
 */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Compiled into this file rather than called in libxxhash.so, so that under
 * ASan the checksum's reads of untrusted buffers are checked too. */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "../../dispatch/dispatch.h"
#include "../layers/layers.h"

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u); /* IEEE-754 binary64 on every supported target */
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

/* payload_offset of a file with `layers` directory entries (0: plain). */
static uint64_t payload_offset_for(uint32_t layers)
{
    return layers == 0 ? BLOOMSIMD_FORMAT_PAYLOAD_OFFSET
                       : round_up(BLOOMSIMD_HDR_DIRECTORY + (uint64_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * layers,
                                  BLOOMSIMD_FORMAT_ALIGN);
}

/* Sets the payload offsets and total from the layers' block counts. */
static void lay_out(bloomsimd_header *h)
{
    uint64_t at = h->payload_offset;
    h->blocks = 0;
    for (uint32_t i = 0; i < h->layers; i++) {
        h->layer[i].offset = at;
        h->blocks += h->layer[i].blocks;
        uint64_t bytes = h->layer[i].blocks * bloomsimd_layout_block_bytes(h->layout_id);
        uint64_t align = h->version >= 3 ? BLOOMSIMD_FORMAT_ALIGN_V3 : BLOOMSIMD_FORMAT_ALIGN;
        at += h->kind == BLOOMSIMD_KIND_PLAIN ? bytes : round_up(bytes, align);
    }
    h->payload_bytes = at - h->payload_offset;
}

bloomsimd_filter *bloomsimd_payload_layer(const bloomsimd_filter *f, uint32_t i)
{
    return f->layers ? bloomsimd_layer_get(f->layers, i) : (bloomsimd_filter *)(uintptr_t)f;
}

void bloomsimd_header_release(bloomsimd_header *h)
{
    if (h->layer != h->inline_layer) free(h->layer);
    h->layer = h->inline_layer;
}

/* Points h->layer at room for `layers` entries. */
static bool directory_room(bloomsimd_header *h, uint32_t layers)
{
    h->layer = h->inline_layer;
    if (layers <= BLOOMSIMD_FORMAT_MAX_LAYERS) return true;
    h->layer = calloc(layers, sizeof *h->layer);
    if (h->layer) return true;
    h->layer = h->inline_layer;
    return false;
}

uint8_t *bloomsimd_header_buffer(const bloomsimd_header *h, uint8_t *stack)
{
    return h->payload_offset <= BLOOMSIMD_FORMAT_HEADER_MAX ? stack : calloc(1, h->payload_offset);
}

void bloomsimd_header_buffer_free(uint8_t *buffer, const uint8_t *stack)
{
    if (buffer != stack) free(buffer);
}

void bloomsimd_layers_hold(const bloomsimd_filter *f)
{
    if (f->layers) pthread_mutex_lock(&f->layers->lock);
}

void bloomsimd_layers_release(const bloomsimd_filter *f)
{
    if (f->layers) pthread_mutex_unlock(&f->layers->lock);
}

bloomsimd_status bloomsimd_header_hold(const bloomsimd_filter *f, bloomsimd_header *h)
{
    bloomsimd_layers_hold(f);
    bloomsimd_status st = bloomsimd_header_from_filter(f, 0, h);
    if (st != BLOOMSIMD_OK) bloomsimd_layers_release(f);
    return st;
}

bloomsimd_status bloomsimd_header_from_filter(const bloomsimd_filter *f, uint32_t state_flags, bloomsimd_header *h)
{
    memset(h, 0, sizeof *h);
    h->layer = h->inline_layer;
    h->version = BLOOMSIMD_FORMAT_VERSION_OLDEST;
    h->layout_id = f->geometry.layout;
    h->hash_id = f->geometry.hash_id;
    h->seed = f->seed;
    h->state_flags = state_flags;
    h->filter_flags = f->flags & BLOOMSIMD_KNOWN_FLAGS;
    h->capacity = f->capacity;
    h->fpr = f->fpr;
    if (!f->layers) {
        h->kind = BLOOMSIMD_KIND_PLAIN;
        h->k = f->geometry.k;
        h->items = bloomsimd_items_get(f);
        h->layers = 1;
        h->layer[0] = (bloomsimd_layer_entry){.blocks = f->geometry.nblocks, .k = f->geometry.k};
    } else {
        const bloomsimd_layers *ls = f->layers;
        h->kind = ls->kind;
        h->layers = h->layer_count = __atomic_load_n(&ls->count, __ATOMIC_ACQUIRE);
        if (!directory_room(h, h->layers))
            return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the directory of %u layers failed", h->layers);
        if (ls->kind == BLOOMSIMD_KIND_SCALABLE) {
            h->k = ls->k_option;
            h->growth = ls->growth;
            h->tightening = ls->tightening;
            h->schedule = ls->schedule;
            h->through = ls->through;
            /* the oldest version that describes it: 2 knows only the
             * geometric schedule and up to 64 layers */
            if (ls->schedule != BLOOMSIMD_SCHEDULE_GEOMETRIC || h->layers > BLOOMSIMD_FORMAT_MAX_LAYERS) h->version = 3;
        } else {
            h->k = bloomsimd_layer_get(ls, 0)->geometry.k;
            h->rotations = __atomic_load_n(&ls->phase, __ATOMIC_ACQUIRE) >> 1;
        }
        for (uint32_t i = 0; i < h->layers; i++) {
            const bloomsimd_filter *layer = bloomsimd_layer_get(ls, i);
            h->layer[i] = (bloomsimd_layer_entry){.blocks = layer->geometry.nblocks,
                                                  .k = layer->geometry.k,
                                                  .capacity = layer->capacity,
                                                  .fpr = layer->fpr,
                                                  .items = bloomsimd_items_get(layer),
                                                  .started_ns = __atomic_load_n(&layer->started_ns, __ATOMIC_RELAXED)};
        }
    }
    h->payload_offset = (uint32_t)payload_offset_for(h->layer_count);
    lay_out(h);
    return BLOOMSIMD_OK;
}

void bloomsimd_header_set_checksum(bloomsimd_header *h, uint32_t i, uint64_t checksum)
{
    h->layer[i].checksum = checksum;
    if (h->kind == BLOOMSIMD_KIND_PLAIN) h->payload_checksum = checksum;
}

uint64_t bloomsimd_header_file_bytes(const bloomsimd_header *h) { return h->payload_offset + h->payload_bytes; }

uint64_t bloomsimd_header_checksum(const uint8_t *header)
{
    return XXH3_64bits(header, BLOOMSIMD_FORMAT_CHECKSUMMED_BYTES);
}

void bloomsimd_header_reseal(uint8_t *header)
{
    bloomsimd_le64_put(header + BLOOMSIMD_HDR_HEADER_CHECKSUM, bloomsimd_header_checksum(header));
}

static uint64_t directory_checksum(const uint8_t *header, uint32_t layers)
{
    return XXH3_64bits(header + BLOOMSIMD_HDR_DIRECTORY, (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * layers);
}

void bloomsimd_header_encode(const bloomsimd_header *h, uint8_t *out)
{
    memset(out, 0, h->payload_offset);
    memcpy(out + BLOOMSIMD_HDR_MAGIC, BLOOMSIMD_FORMAT_MAGIC, BLOOMSIMD_FORMAT_MAGIC_BYTES);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_VERSION, h->version);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_PAYLOAD_OFFSET, h->payload_offset);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_LAYOUT_ID, h->layout_id);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_HASH_ID, h->hash_id);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_SEED, h->seed);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_BLOCKS, h->blocks);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_K, h->k);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_STATE_FLAGS, h->state_flags);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_FILTER_FLAGS, h->filter_flags);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_KIND, h->kind);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_CAPACITY, h->capacity);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_FPR, double_bits(h->fpr));
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_PAYLOAD_BYTES, h->payload_bytes);
    if (h->version >= 3 && h->kind != BLOOMSIMD_KIND_PLAIN)
        bloomsimd_le32_put(out + BLOOMSIMD_HDR_SCHEDULE, h->schedule); /* and 92..95 stay 0 */
    else
        bloomsimd_le64_put(out + BLOOMSIMD_HDR_ITEMS, h->items);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_LAYER_COUNT, h->layer_count);
    bloomsimd_le32_put(out + BLOOMSIMD_HDR_GROWTH, h->growth);
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_TIGHTENING, double_bits(h->tightening));
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_ROTATIONS, h->rotations);
    uint64_t checksum = h->payload_checksum;
    if (h->kind != BLOOMSIMD_KIND_PLAIN) {
        for (uint32_t i = 0; i < h->layer_count; i++) {
            uint8_t *e = out + BLOOMSIMD_HDR_DIRECTORY + (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * i;
            const bloomsimd_layer_entry *l = &h->layer[i];
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_BLOCKS, l->blocks);
            bloomsimd_le32_put(e + BLOOMSIMD_ENT_K, l->k);
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_CAPACITY, l->capacity);
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_FPR, double_bits(l->fpr));
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_ITEMS, l->items);
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_STARTED, (uint64_t)l->started_ns);
            bloomsimd_le64_put(e + BLOOMSIMD_ENT_CHECKSUM, l->checksum);
        }
        checksum = directory_checksum(out, h->layer_count);
    }
    bloomsimd_le64_put(out + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM, checksum);
    bloomsimd_header_reseal(out);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= p[i];
    return acc == 0;
}

/* Geometry limits of kernels/layout.h section 7 (layout 2) and
 * kernels/layout_split256.h section 6 (layout 3: k is 8) for one payload layer. */
static bool k_ok(uint32_t layout, uint32_t k)
{
    return layout == BLOOMSIMD_LAYOUT_SPLIT256 ? k == BLOOMSIMD_SPLIT256_K : k >= 1 && k <= BLOOMSIMD_MAX_K;
}

static bool layer_geometry_ok(uint32_t layout, uint64_t blocks, uint32_t k)
{
    return k_ok(layout, k) && blocks >= 1 && blocks <= BLOOMSIMD_MAX_BLOCKS;
}

static bool fpr_ok(double fpr) { return fpr >= 0.0 && fpr < 1.0; } /* also rejects NaN */

/* The failure details of validation (bloomsimd_last_error): which field,
 * what it held, what was expected. */
#define CORRUPT(...) bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, __VA_ARGS__)
#define NEWER(...) bloomsimd_fail(BLOOMSIMD_ERR_VERSION, __VA_ARGS__)

/* `what`: "the filter" or "layer i". */
static bloomsimd_status bad_geometry(const char *what, uint32_t layout, uint64_t blocks, uint32_t k)
{
    if (layout == BLOOMSIMD_LAYOUT_SPLIT256 && k != BLOOMSIMD_SPLIT256_K)
        return CORRUPT("%s: k %u in layout 3 (split256), which sets exactly 8 bits per key", what, (unsigned)k);
    if (k < 1 || k > BLOOMSIMD_MAX_K) return CORRUPT("%s: k %u is outside 1..16", what, (unsigned)k);
    return CORRUPT("%s: block count %llu is outside 1..2^32", what, (unsigned long long)blocks);
}

/* Step 6 for a layered file: the directory's checksum, then every entry, then
 * the rules of the kind (docs/FORMAT.md "Layered files"). */
static bloomsimd_status decode_directory(const uint8_t *hdr, bloomsimd_header *h)
{
    uint64_t directory = directory_checksum(hdr, h->layer_count);
    if (h->payload_checksum != directory)
        return CORRUPT("layer directory checksum mismatch (stored %016llx, computed %016llx)",
                       (unsigned long long)h->payload_checksum, (unsigned long long)directory);
    /* the entries are there (avail >= payload_offset): at most 56 bytes of
     * memory per 64 of input */
    if (!directory_room(h, h->layer_count))
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the directory of %u layers failed",
                              (unsigned)h->layer_count);
    h->layers = h->layer_count;
    for (uint32_t i = 0; i < h->layers; i++) {
        const uint8_t *e = hdr + BLOOMSIMD_HDR_DIRECTORY + (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * i;
        bloomsimd_layer_entry *l = &h->layer[i];
        l->blocks = bloomsimd_le64_get(e + BLOOMSIMD_ENT_BLOCKS);
        l->k = bloomsimd_le32_get(e + BLOOMSIMD_ENT_K);
        l->capacity = bloomsimd_le64_get(e + BLOOMSIMD_ENT_CAPACITY);
        l->fpr = bits_double(bloomsimd_le64_get(e + BLOOMSIMD_ENT_FPR));
        l->items = bloomsimd_le64_get(e + BLOOMSIMD_ENT_ITEMS);
        l->started_ns = (int64_t)bloomsimd_le64_get(e + BLOOMSIMD_ENT_STARTED);
        l->checksum = bloomsimd_le64_get(e + BLOOMSIMD_ENT_CHECKSUM);
        if (!all_zero(e + BLOOMSIMD_ENT_RESERVED_A, 4) || !all_zero(e + BLOOMSIMD_ENT_RESERVED_B, 8))
            return CORRUPT("layer %u: reserved bytes are not zero", i);
        if (!layer_geometry_ok(h->layout_id, l->blocks, l->k)) {
            char what[24];
            snprintf(what, sizeof what, "layer %u", (unsigned)i);
            return bad_geometry(what, h->layout_id, l->blocks, l->k);
        }
        if (!fpr_ok(l->fpr)) return CORRUPT("layer %u: fpr %g is outside [0, 1)", i, l->fpr);
    }
    if (h->kind == BLOOMSIMD_KIND_SCALABLE) {
        /* the chain the writer derived, operation by operation */
        bool geometric = h->schedule == BLOOMSIMD_SCHEDULE_GEOMETRIC;
        if (h->growth < 1 || (geometric ? !(h->tightening > 0.0 && h->tightening < 1.0) : double_bits(h->tightening) != 0) ||
            h->rotations != 0)
            return CORRUPT("scalable filter with growth %u, tightening %g, rotations %llu (needs growth >= 1, "
                           "tightening %s, rotations 0)",
                           (unsigned)h->growth, h->tightening, (unsigned long long)h->rotations,
                           geometric ? "in (0, 1)" : "0 with the budget schedule");
        if (h->k > BLOOMSIMD_MAX_K || h->capacity < 1 || !(h->fpr > 0.0))
            return CORRUPT("scalable filter with k %u, capacity %llu, fpr %g (needs k <= 16, capacity >= 1, fpr > 0)",
                           (unsigned)h->k, (unsigned long long)h->capacity, h->fpr);
        if (h->k != 0 && !k_ok(h->layout_id, h->k))
            return CORRUPT("scalable filter with k %u in layout 3 (split256): k is 0 or 8", (unsigned)h->k);
        bloomsimd_chain_plan plan = {.schedule = (bloomsimd_schedule)h->schedule,
                                     .growth = h->growth,
                                     .tightening = h->tightening,
                                     .capacity = h->capacity,
                                     .fpr = h->fpr};
        bloomsimd_chain_step step = bloomsimd_chain_first(&plan);
        for (uint32_t i = 0; i < h->layers; i++) {
            const bloomsimd_layer_entry *l = &h->layer[i];
            if (i > 0) {
                if (step.capacity > UINT64_MAX / h->growth) return CORRUPT("layer %u: capacity overflows", i);
                bloomsimd_chain_step next;
                if (bloomsimd_chain_next(&plan, &step, &next) != BLOOMSIMD_OK)
                    return CORRUPT("layer %u: fpr %g is below the minimum 1e-10", i, next.fpr);
                step = next;
            }
            if (l->capacity != step.capacity || double_bits(l->fpr) != double_bits(step.fpr))
                return CORRUPT("layer %u: capacity %llu, fpr %.17g; growth and %s give %llu, %.17g", i,
                               (unsigned long long)l->capacity, l->fpr,
                               plan.schedule == BLOOMSIMD_SCHEDULE_BUDGET ? "the budget schedule" : "tightening",
                               (unsigned long long)step.capacity, step.fpr);
            if (step.fpr < BLOOMSIMD_MIN_FPR) return CORRUPT("layer %u: fpr %g is below the minimum 1e-10", i, step.fpr);
            if (l->items > l->capacity)
                return CORRUPT("layer %u: items %llu above its capacity %llu", i, (unsigned long long)l->items,
                               (unsigned long long)l->capacity);
            if (l->started_ns != 0) return CORRUPT("layer %u: a scalable layer with a start time", i);
            if (h->k != 0 && l->k != h->k)
                return CORRUPT("layer %u: k %u, the filter's k is %u", i, (unsigned)l->k, (unsigned)h->k);
        }
        h->through = step.through;
    } else {
        /* a window: G generations alike */
        if (h->layers < 2) return CORRUPT("a window of %u generation (needs 2..64)", (unsigned)h->layers);
        if (h->growth != 0 || double_bits(h->tightening) != 0)
            return CORRUPT("a window with growth %u, tightening %g (both must be 0)", (unsigned)h->growth,
                           h->tightening);
        if (h->rotations >= BLOOMSIMD_FORMAT_MAX_ROTATIONS)
            return CORRUPT("a window with %llu rotations (at most 2^62 - 1)", (unsigned long long)h->rotations);
        if (!k_ok(h->layout_id, h->k))
            return CORRUPT("a window with k %u (needs %s)", (unsigned)h->k,
                           h->layout_id == BLOOMSIMD_LAYOUT_SPLIT256 ? "8 in layout 3, split256" : "1..16");
        for (uint32_t i = 0; i < h->layers; i++) {
            const bloomsimd_layer_entry *l = &h->layer[i];
            if (l->blocks != h->layer[0].blocks || l->k != h->k || l->capacity != h->capacity ||
                double_bits(l->fpr) != double_bits(h->fpr))
                return CORRUPT("generation %u (blocks %llu, k %u, capacity %llu, fpr %g) differs from the window's "
                               "(blocks %llu, k %u, capacity %llu, fpr %g)",
                               i, (unsigned long long)l->blocks, (unsigned)l->k, (unsigned long long)l->capacity,
                               l->fpr, (unsigned long long)h->layer[0].blocks, (unsigned)h->k,
                               (unsigned long long)h->capacity, h->fpr);
        }
    }
    return BLOOMSIMD_OK;
}

static bloomsimd_status decode(const uint8_t *hdr, size_t avail, uint64_t total_len, bloomsimd_header *h);

bloomsimd_status bloomsimd_header_decode(const uint8_t *hdr, size_t avail, uint64_t total_len, bloomsimd_header *h)
{
    bloomsimd_status st = decode(hdr, avail, total_len, h);
    if (st != BLOOMSIMD_OK) bloomsimd_header_release(h);
    return st;
}

static bloomsimd_status decode(const uint8_t *hdr, size_t avail, uint64_t total_len, bloomsimd_header *h)
{
    memset(h, 0, sizeof *h);
    h->layer = h->inline_layer;
    /* 1. Enough bytes for the fixed header, and the magic. */
    if (total_len == 0) return CORRUPT("empty input (0 bytes): not a bloomsimd filter");
    /* the magic first, so that any other file is named for what it is not */
    size_t head = avail < BLOOMSIMD_FORMAT_MAGIC_BYTES ? avail : BLOOMSIMD_FORMAT_MAGIC_BYTES;
    if (total_len < BLOOMSIMD_FORMAT_MAGIC_BYTES || memcmp(hdr, BLOOMSIMD_FORMAT_MAGIC, head) != 0)
        return CORRUPT("not a bloomsimd filter: no magic \\x89BSIMD\\r\\n at offset 0 (%llu bytes)",
                       (unsigned long long)total_len);
    if (avail < BLOOMSIMD_FORMAT_FIXED_BYTES || total_len < BLOOMSIMD_FORMAT_FIXED_BYTES)
        return CORRUPT("truncated: length %llu bytes, shorter than the %u-byte fixed header",
                       (unsigned long long)(avail < total_len ? avail : total_len), BLOOMSIMD_FORMAT_FIXED_BYTES);
    /* 2. The version, before the checksum: a later version may checksum differently. */
    h->version = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_VERSION);
    if (h->version < BLOOMSIMD_FORMAT_VERSION_OLDEST || h->version > BLOOMSIMD_FORMAT_VERSION)
        return NEWER("format version %u; this library reads version %u and %u%s", (unsigned)h->version,
                     BLOOMSIMD_FORMAT_VERSION_OLDEST, BLOOMSIMD_FORMAT_VERSION,
                     h->version == 1 ? " (version 1 files hold layout 1, which is no longer read: re-create the filter)"
                                     : "");
    /* Version 3 is defined for scalable filters only: with another kind it
     * is a format this reader does not know, as an unknown version is. */
    uint32_t claimed_kind = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_KIND);
    if (h->version == 3 && claimed_kind != BLOOMSIMD_KIND_SCALABLE)
        return NEWER("format version 3; this library reads version 2, and version 3 for scalable filters only "
                     "(filter kind %u)",
                     (unsigned)claimed_kind);
    /* 3. The header checksum: from here on, the fields were written on purpose. */
    uint64_t stored = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_HEADER_CHECKSUM), computed = bloomsimd_header_checksum(hdr);
    if (stored != computed)
        return CORRUPT("header checksum mismatch (stored %016llx, computed %016llx)", (unsigned long long)stored,
                       (unsigned long long)computed);

    h->payload_offset = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_PAYLOAD_OFFSET);
    h->layout_id = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_LAYOUT_ID);
    h->hash_id = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_HASH_ID);
    h->seed = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_SEED);
    h->blocks = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_BLOCKS);
    h->k = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_K);
    h->state_flags = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_STATE_FLAGS);
    h->filter_flags = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_FILTER_FLAGS);
    h->kind = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_KIND);
    h->capacity = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_CAPACITY);
    h->fpr = bits_double(bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_FPR));
    h->payload_bytes = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_PAYLOAD_BYTES);
    h->payload_checksum = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM);
    h->items = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_ITEMS);
    uint32_t schedule_reserved = 0;
    if (h->version >= 3 && h->kind != BLOOMSIMD_KIND_PLAIN) {
        h->schedule = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_SCHEDULE);
        schedule_reserved = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_SCHEDULE_RESERVED);
        h->items = 0;
    }
    h->layer_count = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_LAYER_COUNT);
    h->growth = bloomsimd_le32_get(hdr + BLOOMSIMD_HDR_GROWTH);
    h->tightening = bits_double(bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_TIGHTENING));
    h->rotations = bloomsimd_le64_get(hdr + BLOOMSIMD_HDR_ROTATIONS);

    /* 4. Structure: a kind this reader knows, its layer count, the payload
     * offset that count implies, the fields other kinds own zero, padding. */
    if (h->kind > BLOOMSIMD_KIND_WINDOW) /* intact, from a newer writer */
        return NEWER("filter kind %u is unknown to this library (0 plain, 1 scalable, 2 window)", (unsigned)h->kind);
    bool plain = h->kind == BLOOMSIMD_KIND_PLAIN;
    uint32_t most = h->version >= 3 && h->kind == BLOOMSIMD_KIND_SCALABLE ? BLOOMSIMD_MAX_LAYERS : BLOOMSIMD_FORMAT_MAX_LAYERS;
    if (plain ? h->layer_count != 0 : (h->layer_count < 1 || h->layer_count > most))
        return CORRUPT("layer count %u for a %s filter (plain 0, layered 1..64, scalable in version 3 1..2^24)",
                       (unsigned)h->layer_count,
                       plain ? "plain" : h->kind == BLOOMSIMD_KIND_SCALABLE ? "scalable" : "window");
    uint64_t offset = payload_offset_for(h->layer_count);
    if (h->payload_offset != offset)
        return CORRUPT("payload offset %u, expected %llu for %u layers", (unsigned)h->payload_offset,
                       (unsigned long long)offset, (unsigned)h->layer_count);
    if (avail < offset || total_len < offset)
        return CORRUPT("truncated: length %llu bytes, shorter than the %llu-byte header",
                       (unsigned long long)(avail < total_len ? avail : total_len), (unsigned long long)offset);
    if (plain && (h->growth != 0 || double_bits(h->tightening) != 0 || h->rotations != 0))
        return CORRUPT("a plain filter with growth %u, tightening %g, rotations %llu (all must be 0)",
                       (unsigned)h->growth, h->tightening, (unsigned long long)h->rotations);
    if (!plain && h->items != 0)
        return CORRUPT("a layered filter with items %llu in the fixed header (must be 0)",
                       (unsigned long long)h->items);
    if (schedule_reserved != 0 || (h->kind == BLOOMSIMD_KIND_WINDOW && h->schedule != 0))
        return CORRUPT("a %s with schedule %u and bytes 92..95 %08x (a window's schedule and the reserved bytes "
                       "are 0)",
                       h->kind == BLOOMSIMD_KIND_WINDOW ? "window" : "scalable filter", (unsigned)h->schedule,
                       (unsigned)schedule_reserved);
    size_t directory_end = BLOOMSIMD_HDR_DIRECTORY + (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * h->layer_count;
    if (!all_zero(hdr + directory_end, (size_t)offset - directory_end))
        return CORRUPT("nonzero bytes in the header padding (%zu..%llu)", directory_end, (unsigned long long)offset);

    /* 5. Intact but unknown to this reader: a newer layout, hash or flag. */
    if (!bloomsimd_layout_name(h->layout_id))
        return NEWER("layout %u is unknown to this library (it reads layout 2, block512, and 3, split256)",
                     (unsigned)h->layout_id);
    if (h->hash_id != BLOOMSIMD_HASH_XXH3 && h->hash_id != BLOOMSIMD_HASH_PARQUET_XXH64 &&
        h->hash_id != BLOOMSIMD_HASH_MUM)
        return NEWER("hash %u is unknown to this library (it reads hash 1, XXH3_64bits_withSeed, 2, "
                     "Parquet's XXH64, and 3, mum for 64-bit keys)",
                     (unsigned)h->hash_id);
    /* Parquet's hash comes with its layout, seed 0, one bit array */
    if (h->hash_id == BLOOMSIMD_HASH_PARQUET_XXH64 &&
        (h->layout_id != BLOOMSIMD_LAYOUT_SPLIT256 || h->kind != 0 || h->seed != 0))
        return CORRUPT("hash 2 (Parquet's XXH64) with layout %u, kind %u, seed %llu: it is only ever written with "
                       "layout 3, a plain filter, seed 0",
                       (unsigned)h->layout_id, (unsigned)h->kind, (unsigned long long)h->seed);
    if (h->schedule > BLOOMSIMD_SCHEDULE_BUDGET)
        return NEWER("schedule %u is unknown to this library (it reads 0, geometric, and 1, the budget schedule)",
                     (unsigned)h->schedule);
    if (h->state_flags & ~BLOOMSIMD_FORMAT_KNOWN_STATE_FLAGS)
        return NEWER("unknown state flags 0x%x", (unsigned)(h->state_flags & ~BLOOMSIMD_FORMAT_KNOWN_STATE_FLAGS));
    if (h->filter_flags & ~BLOOMSIMD_KNOWN_FLAGS)
        return NEWER("unknown filter flags 0x%x", (unsigned)(h->filter_flags & ~BLOOMSIMD_KNOWN_FLAGS));

    /* 6. Geometry: limits of kernels/layout.h section 7; a layered file's
     * directory; the totals the fixed header repeats. */
    if (!fpr_ok(h->fpr)) return CORRUPT("target fpr %g is outside [0, 1)", h->fpr);
    if (plain) {
        if (!layer_geometry_ok(h->layout_id, h->blocks, h->k))
            return bad_geometry("the filter", h->layout_id, h->blocks, h->k);
        h->layers = 1;
        h->layer[0] = (bloomsimd_layer_entry){.blocks = h->blocks, .k = h->k, .checksum = h->payload_checksum};
    } else {
        bloomsimd_status st = decode_directory(hdr, h);
        if (st != BLOOMSIMD_OK) return st;
    }
    uint64_t blocks = h->blocks, payload_bytes = h->payload_bytes;
    lay_out(h); /* sums of at most 2^24 layers of <= 2^32 blocks: no wrap */
    if (h->blocks != blocks || h->payload_bytes != payload_bytes)
        return CORRUPT("block count %llu and payload bytes %llu in the header; the layers give %llu and %llu",
                       (unsigned long long)blocks, (unsigned long long)payload_bytes,
                       (unsigned long long)h->blocks, (unsigned long long)h->payload_bytes);

    /* 7. The length: exactly header + payload, nothing missing, nothing after. */
    uint64_t expected = offset + h->payload_bytes;
    if (total_len != expected)
        return CORRUPT("%s: length %llu bytes != %llu header + %llu payload (%llu blocks%s)",
                       total_len < expected ? "truncated" : "trailing bytes after the filter", (unsigned long long)total_len,
                       (unsigned long long)offset, (unsigned long long)h->payload_bytes,
                       (unsigned long long)h->blocks,
                       !plain ? ", layers page-aligned"
                       : h->layout_id == BLOOMSIMD_LAYOUT_SPLIT256 ? " of 32 bytes" : " of 64 bytes");
    if (h->payload_bytes > SIZE_MAX - offset)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "a payload of %llu bytes does not fit this address space",
                              (unsigned long long)h->payload_bytes);
    return BLOOMSIMD_OK;
}

void bloomsimd_payload_copy(const bloomsimd_filter *f, void *dst, size_t offset, size_t bytes)
{
    const uint8_t *src = (const uint8_t *)f->geometry.words + offset;
    if (!f->geometry.concurrent) {
        memcpy(dst, src, bytes);
        return;
    }
    const uint64_t *words = (const uint64_t *)(const void *)src;
    uint8_t *d = dst;
    for (size_t i = 0; i < bytes / 8; i++) {
        uint64_t w = __atomic_load_n(&words[i], __ATOMIC_RELAXED);
        memcpy(d + 8 * i, &w, 8);
    }
}

uint64_t bloomsimd_payload_checksum(const void *payload, size_t bytes) { return XXH3_64bits(payload, bytes); }

bloomsimd_status bloomsimd_payload_verdict(const bloomsimd_header *h, uint32_t i, uint64_t actual_checksum,
                                           bool accept_unsynced)
{
    if (actual_checksum == h->layer[i].checksum) return BLOOMSIMD_OK;
    bool dirty = (h->state_flags & BLOOMSIMD_FORMAT_STATE_DIRTY) != 0;
    if (dirty && accept_unsynced) return BLOOMSIMD_OK;
    char where[24] = "";
    if (h->kind != BLOOMSIMD_KIND_PLAIN) snprintf(where, sizeof where, " in layer %u", (unsigned)i);
    return CORRUPT("payload checksum mismatch%s (stored %016llx, computed %016llx)%s", where,
                   (unsigned long long)h->layer[i].checksum, (unsigned long long)actual_checksum,
                   dirty ? ": mapped writable and not synced since its last inserts "
                           "(BLOOMSIMD_MAP_ACCEPT_UNSYNCED accepts it)"
                         : "");
}

bloomsimd_status bloomsimd_image_verify(const bloomsimd_header *h, const uint8_t *file, bool accept_unsynced)
{
    for (uint32_t i = 0; i < h->layers; i++) {
        const bloomsimd_layer_entry *l = &h->layer[i];
        size_t bytes = bloomsimd_header_layer_bytes(h, i);
        bloomsimd_status st =
            bloomsimd_payload_verdict(h, i, bloomsimd_payload_checksum(file + l->offset, bytes), accept_unsynced);
        if (st != BLOOMSIMD_OK) return st;
        uint64_t end = i + 1 < h->layers ? h->layer[i + 1].offset : bloomsimd_header_file_bytes(h);
        if (!all_zero(file + l->offset + bytes, (size_t)(end - l->offset - bytes)))
            return CORRUPT("nonzero padding after layer %u", (unsigned)i);
    }
    return BLOOMSIMD_OK;
}

/* A plain filter object for one payload layer. */
static bloomsimd_status make_layer(const bloomsimd_header *h, const bloomsimd_layer_entry *l, uint8_t *mapped,
                                   const bloomsimd_kernel *kernel, uint32_t flags, bloomsimd_filter **out)
{
    bloomsimd_filter *f = malloc(sizeof *f);
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a filter object failed");
    bloomsimd_geometry_choice shape = {l->blocks, l->k, h->layout_id, h->hash_id};
    bloomsimd_filter_init(f, &shape, h->seed, flags, kernel);
    f->capacity = l->capacity;
    f->fpr = l->fpr;
    f->items = l->items;
    f->started_ns = l->started_ns;
    if (mapped) {
        f->storage = BLOOMSIMD_STORAGE_BORROWED;
        bloomsimd_set_words(f, (void *)(mapped + l->offset));
    } else {
        bloomsimd_status st = bloomsimd_alloc_bits(f, l->blocks, flags);
        if (st != BLOOMSIMD_OK) {
            free(f);
            return st;
        }
    }
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_filter_from_header(const bloomsimd_header *h, uint8_t *mapped,
                                              const bloomsimd_load_choice *choice, bloomsimd_filter **out)
{
    const bloomsimd_kernel *kernel = choice->kernel;
    uint32_t flags = h->filter_flags | choice->flags;
    if (h->kind == BLOOMSIMD_KIND_PLAIN) {
        bloomsimd_layer_entry plain = h->layer[0];
        plain.capacity = h->capacity, plain.fpr = h->fpr, plain.items = h->items;
        return make_layer(h, &plain, mapped, kernel, flags, out);
    }
    bloomsimd_filter *f;
    bloomsimd_geometry_choice shape = {0, h->layer[0].k, h->layout_id, h->hash_id};
    bloomsimd_status st = bloomsimd_layered_handle((bloomsimd_kind)h->kind, &shape, h->seed, flags, kernel->name, &f);
    if (st != BLOOMSIMD_OK) return st;
    f->capacity = h->capacity;
    f->fpr = h->fpr;
    bloomsimd_layers *ls = f->layers;
    ls->growth = h->growth;
    ls->tightening = h->tightening;
    ls->schedule = (bloomsimd_schedule)h->schedule;
    ls->through = h->through;
    ls->k_option = h->kind == BLOOMSIMD_KIND_SCALABLE ? h->k : 0;
    ls->phase = h->rotations * 2;
    for (uint32_t i = 0; i < h->layers && st == BLOOMSIMD_OK; i++) {
        bloomsimd_filter **slot = bloomsimd_layer_slot(ls, i);
        st = slot ? make_layer(h, &h->layer[i], mapped, kernel, flags, slot)
                  : bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the layer table failed");
    }
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        return st;
    }
    ls->count = h->layers;
    *out = f;
    return BLOOMSIMD_OK;
}
