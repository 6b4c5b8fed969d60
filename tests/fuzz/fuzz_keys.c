/*
 * fuzz_keys.c — libFuzzer target for the bloomsimd_keys calls (byte keys in
 * Arrow offsets, fixed-width and pointer layouts).
 *
 * Invariant: for ANY view built from the input (offsets and widths taken
 * from the input bytes, so most are invalid), bloomsimd_hash_keys,
 * bloomsimd_add_keys and bloomsimd_contains_keys return OK or
 * _INVALID_ARGUMENT, all three agree, never read outside the key data (it is
 * copied into an allocation of exactly its size, so ASan sees any over-read),
 * and on a refused view write nothing and insert nothing. On an accepted
 * view every hash equals libxxhash's XXH3_64bits_withSeed of that key, and
 * every key is found after insertion.
 *
 * Every kernel has its own multi-key hashing (kernels/xxh3_keys_*.h), so the
 * kernel is taken from the input too: all of them are fuzzed in one run.
 *
 * Input: byte 0 = layout (low 2 bits) and kernel (the rest: index into
 * bloomsimd_kernel_name, modulo the count; one this CPU cannot run means the
 * default kernel), byte 1 = n, byte 2 = fixed width; then
 * for offsets32/64 (n+1) offsets, for pointers n (offset, length) byte
 * pairs clamped into the data; the remaining bytes are the key data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include <bloomsimd.h>

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "fuzz_keys: invariant failed: %s (line %d)\n", #cond, __LINE__);                       \
            abort();                                                                                               \
        }                                                                                                          \
    } while (0)

bloomsimd_status fuzz_last_status;

static size_t take(const uint8_t **p, size_t *left, void *dst, size_t bytes)
{
    size_t got = bytes < *left ? bytes : *left;
    memset(dst, 0, bytes);
    memcpy(dst, *p, got);
    *p += got, *left -= got;
    return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    if (size < 3) return 0;
    unsigned layout = input[0] % 4, n = input[1], width = input[2];
    const uint8_t *p = input + 3;
    size_t left = size - 3;
    uint32_t off32[257];
    uint64_t off64[257];
    uint8_t pairs[512];
    if (layout == BLOOMSIMD_KEYS_OFFSETS32) take(&p, &left, off32, 4 * (n + 1));
    if (layout == BLOOMSIMD_KEYS_OFFSETS64) take(&p, &left, off64, 8 * (n + 1));
    if (layout == BLOOMSIMD_KEYS_POINTERS) take(&p, &left, pairs, 2 * n);
    size_t data_len = left;
    uint8_t *data = malloc(data_len ? data_len : 1);
    if (!data) return 0;
    memcpy(data, p, data_len);

    const void *ptrs[256];
    size_t lens[256];
    bloomsimd_keys v;
    switch (layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: v = bloomsimd_keys_offsets32(data, data_len, off32, n); break;
    case BLOOMSIMD_KEYS_OFFSETS64: v = bloomsimd_keys_offsets64(data, data_len, off64, n); break;
    case BLOOMSIMD_KEYS_FIXED: v = bloomsimd_keys_fixed(data, data_len, width, n); break;
    default:
        /* raw pointers cannot be validated by the library (it trusts them, as
         * any C API must): build in-bounds ones, a NULL one for length 255 */
        for (unsigned i = 0; i < n; i++) {
            size_t at = data_len ? pairs[2 * i] % data_len : 0, len = pairs[2 * i + 1];
            if (len == 255) {
                ptrs[i] = NULL;
                lens[i] = 1;
                continue;
            }
            if (at + len > data_len) len = data_len - at;
            ptrs[i] = data_len ? data + at : NULL;
            lens[i] = len;
        }
        v = bloomsimd_keys_pointers(ptrs, lens, n);
    }

    const char *kernel = bloomsimd_kernel_name((size_t)(input[0] >> 2) % bloomsimd_kernel_count());
    if (!bloomsimd_kernel_supported(kernel)) kernel = NULL;
    bloomsimd_options o = {.bits = 4096, .k = 7, .seed = size, .kernel = kernel};
    bloomsimd_filter *f = NULL;
    CHECK(bloomsimd_create_with(&f, &o) == BLOOMSIMD_OK);
    uint64_t hashes[256];
    uint8_t out[256];
    memset(hashes, 0xA5, sizeof hashes);
    memset(out, 0xA5, sizeof out);
    bloomsimd_status h = bloomsimd_hash_keys(f, &v, hashes);
    CHECK(h == BLOOMSIMD_OK || h == BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_status a = bloomsimd_add_keys(f, &v);
    size_t hits = 12345;
    bloomsimd_status c = bloomsimd_contains_keys(f, &v, out, &hits);
    CHECK(a == h && c == h);
    fuzz_last_status = h;
    if (h != BLOOMSIMD_OK) {
        for (size_t i = 0; i < 256; i++) CHECK(hashes[i] == UINT64_C(0xA5A5A5A5A5A5A5A5) && out[i] == 0xA5);
        CHECK(hits == 12345);
        CHECK(bloomsimd_fill_ratio(f) == 0.0);
    } else {
        CHECK(hits == n);
        for (unsigned i = 0; i < n; i++) {
            size_t len;
            const uint8_t *key;
            switch (layout) {
            case BLOOMSIMD_KEYS_OFFSETS32: key = data + off32[i], len = off32[i + 1] - off32[i]; break;
            case BLOOMSIMD_KEYS_OFFSETS64: key = data + off64[i], len = (size_t)(off64[i + 1] - off64[i]); break;
            case BLOOMSIMD_KEYS_FIXED: key = data + (size_t)i * width, len = width; break;
            default: key = ptrs[i], len = lens[i];
            }
            CHECK(hashes[i] == XXH3_64bits_withSeed(len ? key : (const uint8_t *)"", len, size));
            CHECK(out[i] == 1);
        }
    }
    bloomsimd_destroy(f);
    free(data);
    return 0;
}
