/*
 * mode.c — Parquet split-block filters (BLOOMSIMD_PARQUET): the split256
 * layout with Parquet's hash, XXH64 seed 0 of a value's PLAIN encoding, and
 * their import and export as a BloomFilterHeader followed by the bitset.
 *
 * The blocks and bits are split256's (kernels/layout_split256.h), which are
 * Parquet's, so only the hashing differs from an XXH3 filter: the batched
 * u64 calls hash a chunk of keys (src/u64_keys.c, with the hash below) and
 * hand the hashes to the kernel's pre-hashed entries (the same probe,
 * prefetching and hit forms as every other split256 filter).
 *
 * Hashing (docs/PARQUET.md, "How values are hashed", has the figures): u64
 * keys through the kernel's hash_u64_parquet (avx512: 8 per zmm; avx2: 4 per
 * ymm beside 4 in general registers), else the portable loop here
 * (bloomsimd_xxh64_u64, kernels/xxh64_u64.h: faster than any sse42 or neon
 * arrangement measured or counted). Key views through the kernel's
 * hash_keys_parquet (fixed widths 4, 8, 16 on avx512 and avx2), else here:
 * fixed widths 4, 8 and 16 by the width's straight-line formula (2.3-2.7x
 * libxxhash called per key), keys under 32 bytes by the inlined
 * bloomsimd_xxh64_bytes (1.1-1.3x), longer ones by libxxhash's XXH64
 * (whose 32-byte stripe loop is 1.1-1.2x the inlined one here).
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../../dispatch/dispatch.h"
#include "../../kernels/layout_split256.h"
#include "../internal.h"
#include "../persist/format.h"

/* Keys this long and longer go to libxxhash (see the top of the file). */
#define PARQUET_INLINE_BELOW 32u

uint64_t bloomsimd_parquet_hash_bytes(const void *key, size_t len)
{
    if (len < PARQUET_INLINE_BELOW) return bloomsimd_xxh64_bytes(key, len);
    return XXH64(key, len, 0);
}

void bloomsimd_parquet_hash_u64(const bloomsimd_filter *f, const uint64_t *keys, size_t n, uint64_t *hashes)
{
    if (f->kernel->hash_u64_parquet) {
        f->kernel->hash_u64_parquet(keys, n, hashes);
        return;
    }
    for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_xxh64_u64(keys[i]);
}

/* One width per loop: each compiles to its straight-line formula. */
#define PARQUET_FIXED_LOOP(WIDTH)                                                                                  \
    static void parquet_hash_fixed##WIDTH(const uint8_t *data, size_t n, uint64_t *hashes)                         \
    {                                                                                                              \
        for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_xxh64_fixed(data + i * WIDTH, WIDTH);                 \
    }
PARQUET_FIXED_LOOP(4)
PARQUET_FIXED_LOOP(8)
PARQUET_FIXED_LOOP(16)

void bloomsimd_parquet_hash_keys(const bloomsimd_keys *v, size_t first, size_t count, uint64_t *hashes)
{
    const uint8_t *data = v->data;
    if (v->layout == BLOOMSIMD_KEYS_FIXED && data) {
        const uint8_t *at = data + first * v->width;
        switch (v->width) {
        case 4: parquet_hash_fixed4(at, count, hashes); return;
        case 8: parquet_hash_fixed8(at, count, hashes); return;
        case 16: parquet_hash_fixed16(at, count, hashes); return;
        default: break;
        }
    }
    for (size_t i = 0; i < count; i++) {
        size_t k = first + i;
        const void *p = NULL;
        size_t len = 0;
        switch (v->layout) {
        case BLOOMSIMD_KEYS_OFFSETS32:
            p = data + v->offsets32[k], len = (size_t)(v->offsets32[k + 1] - v->offsets32[k]);
            break;
        case BLOOMSIMD_KEYS_OFFSETS64:
            p = data + v->offsets64[k], len = (size_t)(v->offsets64[k + 1] - v->offsets64[k]);
            break;
        case BLOOMSIMD_KEYS_FIXED: p = data + k * v->width, len = v->width; break;
        case BLOOMSIMD_KEYS_POINTERS: p = v->pointers[k], len = v->lengths[k]; break;
        }
        hashes[i] = bloomsimd_parquet_hash_bytes(p, len);
    }
}

/* ---- import and export ---------------------------------------------------- */

/* The header at buf, and a check that its whole bitset follows it. */
static bloomsimd_status parse_stored(const void *buf, size_t len, bloomsimd_parquet_header *h)
{
    bloomsimd_status st = bloomsimd_parquet_header_parse(buf, len, h);
    if (st != BLOOMSIMD_OK) return st;
    if (len - h->header_bytes < h->bitset_bytes)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                              "Parquet Bloom filter: numBytes %u but only %zu bytes follow the %u-byte header",
                              h->bitset_bytes, len - h->header_bytes, h->header_bytes);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_read(bloomsimd_filter **out, const void *buf, size_t len, size_t *consumed)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !buf)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "buf" : "out");
    bloomsimd_parquet_header h;
    bloomsimd_status st = parse_stored(buf, len, &h);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t blocks = h.bitset_bytes / BLOOMSIMD_SPLIT256_BLOCK_BYTES;
    bloomsimd_options o = {.bits = blocks * BLOOMSIMD_SPLIT256_BLOCK_BITS,
                           .layout = BLOOMSIMD_LAYOUT_SPLIT256,
                           .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f;
    st = bloomsimd_create_with(&f, &o);
    if (st != BLOOMSIMD_OK) return st;
    /* The bitset is little-endian 32-bit words, as the filter stores them. */
    const uint8_t *bits = (const uint8_t *)buf + h.header_bytes;
    uint32_t *w = f->geometry.words;
    for (uint64_t i = 0; i < blocks * 8; i++) w[i] = bloomsimd_le32_get(bits + 4 * i);
    if (consumed) *consumed = (size_t)h.header_bytes + h.bitset_bytes;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_view(bloomsimd_filter **out, const void *buf, size_t len, size_t *consumed)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !buf)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "buf" : "out");
    bloomsimd_parquet_header h;
    bloomsimd_status st = parse_stored(buf, len, &h);
    if (st != BLOOMSIMD_OK) return st;
    const uint8_t *bits = (const uint8_t *)buf + h.header_bytes;
    /* the kernels load whole blocks with aligned vector loads */
    if ((uintptr_t)bits % 64 != 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "the bitset at %p is not 64-byte aligned: bloomsimd_parquet_read copies it",
                              (const void *)bits);
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "a big-endian host cannot use Parquet's little-endian words in place: "
                              "bloomsimd_parquet_read converts them");
    const bloomsimd_kernel *kernel;
    st = bloomsimd_select_kernel(NULL, &kernel);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_filter *f = malloc(sizeof *f);
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the filter object failed");
    bloomsimd_geometry_choice shape = {h.bitset_bytes / BLOOMSIMD_SPLIT256_BLOCK_BYTES, BLOOMSIMD_SPLIT256_K,
                                       BLOOMSIMD_LAYOUT_SPLIT256, BLOOMSIMD_HASH_PARQUET_XXH64};
    bloomsimd_filter_init(f, &shape, 0, BLOOMSIMD_PARQUET, kernel);
    f->storage = BLOOMSIMD_STORAGE_BORROWED; /* the caller's memory: nothing to release */
    bloomsimd_set_words(f, (void *)(uintptr_t)bits);
    bloomsimd_filter_set_read_only(f, true);
    if (consumed) *consumed = (size_t)h.header_bytes + h.bitset_bytes;
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_write(const bloomsimd_filter *f, void *buf, size_t cap, size_t *written)
{
    bloomsimd_error_clear();
    if (!f || !buf) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", f ? "buf" : "filter");
    if (f->layers || !bloomsimd_is_parquet(f))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "not a Parquet filter (create it with BLOOMSIMD_PARQUET, or read it with "
                              "bloomsimd_parquet_read): its hash is not Parquet's XXH64");
    uint64_t bytes = f->geometry.nblocks * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
    if (bytes > INT32_MAX)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT,
                              "bitset of %llu bytes: above Parquet's numBytes limit (INT32_MAX)",
                              (unsigned long long)bytes);
    uint8_t header[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
    size_t hlen = 0;
    bloomsimd_status st = bloomsimd_parquet_header_write((uint32_t)bytes, header, sizeof header, &hlen);
    if (st != BLOOMSIMD_OK) return st;
    if (written) *written = hlen + (size_t)bytes;
    if (cap < hlen + bytes)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "buffer of %zu bytes: the filter needs %zu", cap,
                              hlen + (size_t)bytes);
    memcpy(buf, header, hlen);
    uint8_t *dst = (uint8_t *)buf + hlen;
    const uint32_t *w = f->geometry.words;
    if (f->geometry.concurrent) {
        for (uint64_t i = 0; i < bytes / 4; i++)
            bloomsimd_le32_put(dst + 4 * i, __atomic_load_n(&w[i], __ATOMIC_RELAXED));
    } else {
        for (uint64_t i = 0; i < bytes / 4; i++) bloomsimd_le32_put(dst + 4 * i, w[i]);
    }
    return BLOOMSIMD_OK;
}

/*
 * Sizing: the fewest blocks whose exact FPR (kernels/layout_split256.h,
 * section 4) at ndv values is <= fpr. Bits per value at 10^6 values, against
 * the table in the specification's "Sizing an SBBF" (checked by
 * tests/parquet/test_parquet_mode.c, size_for_matches_the_spec_table):
 *     fpr        10%     1%      0.1%    0.01%   0.001%
 *     spec       6.0     10.5    16.9    26.4    41
 *     here       5.989   10.529  16.890  26.342  40.985
 * The spec's older closed form c = -8 / ln(1 - fpr^(1/8)) (5.77, 9.68,
 * 14.61, 21.05, 29.56 bits) gives filters whose exact FPR is 1.13x, 1.46x,
 * 2.08x, 3.23x and 5.48x the target. Limits: at least one 32-byte block;
 * numBytes is an i32, so at most INT32_MAX bytes (_TOO_LARGE above).
 * Writers often round up to a power of two and cap at 128 MiB; not here.
 */
bloomsimd_status bloomsimd_parquet_size_for(uint64_t ndv, double fpr, uint64_t *bytes)
{
    bloomsimd_error_clear();
    if (!bytes) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "bytes is NULL");
    bloomsimd_options o = {.capacity = ndv, .fpr = fpr, .layout = BLOOMSIMD_LAYOUT_SPLIT256,
                           .flags = BLOOMSIMD_PARQUET};
    if (ndv == 0) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "ndv 0: give the number of distinct values");
    if (!(fpr > 0))
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "fpr %g is outside [1e-10, 1)", fpr);
    bloomsimd_geometry_choice choice;
    double target;
    bloomsimd_status st = bloomsimd_choose_geometry(&o, &choice, &target);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t b = choice.blocks * BLOOMSIMD_SPLIT256_BLOCK_BYTES;
    if (b > INT32_MAX)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE,
                              "%llu values at fpr %g need %llu bytes, above Parquet's numBytes limit (INT32_MAX)",
                              (unsigned long long)ndv, fpr, (unsigned long long)b);
    *bytes = b;
    return BLOOMSIMD_OK;
}
