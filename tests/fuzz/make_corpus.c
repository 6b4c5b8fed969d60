/*
 * make_corpus.c — writes the seed corpus for fuzz_deserialize into a
 * directory: small valid files of several geometries, and mutations of them
 * that each stop at a different validation step (docs/FORMAT.md
 * "Validation"). Run once and commit the output (tests/fuzz/corpus/):
 *     ninja bloomsimd_fuzz_make_corpus && ./tests/fuzz/bloomsimd_fuzz_make_corpus <dir>
 * Uses the scalar kernel, so the bytes do not depend on the machine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/format.h"

static const char *out_dir;

static void emit(const char *name, const uint8_t *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (len && fwrite(buf, 1, len, fp) != len) || fclose(fp) != 0) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        exit(1);
    }
}

/* A plain filter; k 0 means split256 (k 8, 32-byte blocks), else block512. */
static uint8_t *valid(uint64_t blocks, uint32_t k, uint64_t seed, uint32_t flags, size_t nkeys, size_t *len)
{
    bool split = k == 0;
    bloomsimd_options o = {.bits = blocks * (split ? 256 : 512), .k = k, .seed = seed, .capacity = nkeys,
                           .flags = flags, .kernel = "scalar",
                           .layout = split ? BLOOMSIMD_LAYOUT_SPLIT256 : BLOOMSIMD_LAYOUT_BLOCK512};
    bloomsimd_filter *f;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) exit(1);
    for (uint64_t key = 0; key < nkeys; key++) bloomsimd_add_u64(f, key * 0x9E3779B97F4A7C15u);
    *len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(*len + 64);
    if (!buf || bloomsimd_serialize(f, buf, *len, NULL) != BLOOMSIMD_OK) exit(1);
    bloomsimd_destroy(f);
    return buf;
}

/* A scalable filter with `layers` layers, or a window of `generations`
 * rotated `rotations` times, on the scalar kernel. */
static uint8_t *valid_layered(bool window, uint32_t count, uint32_t k, uint32_t rotations, uint32_t layout,
                              size_t *len)
{
    bloomsimd_options o = {.capacity = 40, .fpr = 0.01, .k = k, .seed = 7, .kernel = "scalar", .layout = layout};
    if (window)
        o.generations = count;
    else
        o.growth = 2;
    bloomsimd_filter *f;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) exit(1);
    uint64_t key = 1;
    if (window) {
        for (uint32_t r = 0; r < rotations; r++) {
            for (int i = 0; i < 30; i++) bloomsimd_add_new_u64(f, key++ * 0x9E3779B97F4A7C15u, NULL);
            bloomsimd_rotate(f);
        }
    } else {
        bloomsimd_info info;
        do {
            bloomsimd_add_new_u64(f, key++ * 0x9E3779B97F4A7C15u, NULL);
            bloomsimd_get_info(f, &info);
        } while (info.layers < count);
    }
    *len = bloomsimd_serialized_size(f);
    uint8_t *buf = malloc(*len + 64);
    if (!buf || bloomsimd_serialize(f, buf, *len, NULL) != BLOOMSIMD_OK) exit(1);
    bloomsimd_destroy(f);
    return buf;
}

/* The directory checksum (offset 80 of a layered file), then the header's. */
static void reseal_layered(uint8_t *b)
{
    uint32_t layers = bloomsimd_le32_get(b + BLOOMSIMD_HDR_LAYER_COUNT);
    if (layers > BLOOMSIMD_FORMAT_MAX_LAYERS) layers = BLOOMSIMD_FORMAT_MAX_LAYERS;
    bloomsimd_le64_put(b + BLOOMSIMD_HDR_PAYLOAD_CHECKSUM,
                       bloomsimd_payload_checksum(b + BLOOMSIMD_HDR_DIRECTORY, (size_t)BLOOMSIMD_FORMAT_ENTRY_BYTES * layers));
    bloomsimd_header_reseal(b);
}

static void layered_seeds(void)
{
    size_t len;
    uint8_t *b = valid_layered(false, 3, 0, 0, BLOOMSIMD_LAYOUT_BLOCK512, &len);
    emit("valid_scalable_3layers", b, len);
    uint8_t *m = malloc(len);
#define MUTATE(name, stmt)                                                                                         \
    do {                                                                                                           \
        memcpy(m, b, len);                                                                                         \
        stmt;                                                                                                      \
        reseal_layered(m);                                                                                         \
        emit(name, m, len);                                                                                        \
    } while (0)
    uint8_t *e1 = m + BLOOMSIMD_HDR_DIRECTORY + BLOOMSIMD_FORMAT_ENTRY_BYTES;
    MUTATE("bad_kind_3", bloomsimd_le32_put(m + BLOOMSIMD_HDR_KIND, 3));
    MUTATE("bad_scalable_as_window", bloomsimd_le32_put(m + BLOOMSIMD_HDR_KIND, 2));
    MUTATE("bad_layer_count_65", bloomsimd_le32_put(m + BLOOMSIMD_HDR_LAYER_COUNT, 65));
    MUTATE("bad_layer_count_2", bloomsimd_le32_put(m + BLOOMSIMD_HDR_LAYER_COUNT, 2));
    MUTATE("bad_growth_0", bloomsimd_le32_put(m + BLOOMSIMD_HDR_GROWTH, 0));
    MUTATE("bad_tightening_1", bloomsimd_le64_put(m + BLOOMSIMD_HDR_TIGHTENING, UINT64_C(0x3ff0000000000000)));
    MUTATE("bad_layer_capacity", bloomsimd_le64_put(e1 + BLOOMSIMD_ENT_CAPACITY, 81));
    MUTATE("bad_layer_fpr_ulp", bloomsimd_le64_put(e1 + BLOOMSIMD_ENT_FPR, bloomsimd_le64_get(e1 + BLOOMSIMD_ENT_FPR) + 1));
    MUTATE("bad_layer_items_over", bloomsimd_le64_put(e1 + BLOOMSIMD_ENT_ITEMS, 81));
    MUTATE("bad_layer_blocks_0", bloomsimd_le64_put(e1 + BLOOMSIMD_ENT_BLOCKS, 0));
    MUTATE("bad_layer_k_17", bloomsimd_le32_put(e1 + BLOOMSIMD_ENT_K, 17));
    MUTATE("bad_layer_reserved", e1[BLOOMSIMD_ENT_RESERVED_B] = 1);
    MUTATE("bad_layer_payload_checksum", e1[BLOOMSIMD_ENT_CHECKSUM] ^= 1);
    MUTATE("bad_layered_items_88", bloomsimd_le64_put(m + BLOOMSIMD_HDR_ITEMS, 1));
    MUTATE("bad_layer_gap", m[len - 1] = 1);
    memcpy(m, b, len);
    m[BLOOMSIMD_HDR_PAYLOAD_CHECKSUM] ^= 1;
    bloomsimd_header_reseal(m);
    emit("bad_directory_checksum", m, len);
    emit("bad_scalable_last_layer_short", b, len - 4096);
#undef MUTATE
    free(m);
    free(b);

    b = valid_layered(false, 2, 5, 0, BLOOMSIMD_LAYOUT_BLOCK512, &len);
    emit("valid_scalable_k5", b, len);
    free(b);
    b = valid_layered(true, 3, 0, 5, BLOOMSIMD_LAYOUT_BLOCK512, &len);
    emit("valid_window_3gens_5rotations", b, len);
    m = malloc(len);
    memcpy(m, b, len);
    bloomsimd_le32_put(m + BLOOMSIMD_HDR_K, 1 + bloomsimd_le32_get(m + BLOOMSIMD_HDR_K) % 16);
    reseal_layered(m);
    emit("bad_window_k_mismatch", m, len);
    memcpy(m, b, len);
    bloomsimd_le64_put(m + BLOOMSIMD_HDR_ROTATIONS, UINT64_C(1) << 62);
    reseal_layered(m);
    emit("bad_window_rotations", m, len);
    free(m);
    free(b);

    /* split256 (layout 3): layered files, and a layer whose k is not 8 */
    b = valid_layered(false, 3, 0, 0, BLOOMSIMD_LAYOUT_SPLIT256, &len);
    emit("valid_split256_scalable_3layers", b, len);
    m = malloc(len);
    memcpy(m, b, len);
    bloomsimd_le32_put(m + BLOOMSIMD_HDR_DIRECTORY + BLOOMSIMD_FORMAT_ENTRY_BYTES + BLOOMSIMD_ENT_K, 7);
    reseal_layered(m);
    emit("bad_split256_layer_k_7", m, len);
    free(m);
    free(b);
    b = valid_layered(true, 2, 0, 3, BLOOMSIMD_LAYOUT_SPLIT256, &len);
    emit("valid_split256_window_2gens_3rotations", b, len);
    free(b);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];
    size_t len;
    uint8_t *b;

    b = valid(1, 1, 0, 0, 0, &len);
    emit("valid_1block_k1_empty", b, len);
    free(b);
    b = valid(1, 16, 1, 0, 40, &len);
    emit("valid_1block_k16", b, len);
    free(b);
    b = valid(4, 3, UINT64_C(0xfedcba9876543210), BLOOMSIMD_NO_HUGEPAGES, 30, &len);
    emit("valid_4blocks_k3_nohuge", b, len);
    free(b);

    b = valid(3, 0, 42, 0, 25, &len);
    emit("valid_split256_3blocks", b, len);
    free(b);
    b = valid(1, 0, 1, BLOOMSIMD_CONCURRENT, 0, &len);
    emit("valid_split256_1block_empty_concurrent", b, len);
    free(b);

    b = valid(2, 7, 42, BLOOMSIMD_CONCURRENT, 20, &len);
    emit("valid_2blocks_k7_concurrent", b, len);
    /* DIRTY with a matching checksum: accepted. */
    bloomsimd_le32_put(b + BLOOMSIMD_HDR_STATE_FLAGS, BLOOMSIMD_FORMAT_STATE_DIRTY);
    bloomsimd_header_reseal(b);
    emit("valid_dirty_synced", b, len);
    /* DIRTY with a stale payload: rejected. */
    b[4096 + 3] ^= 0x40;
    emit("bad_dirty_unsynced", b, len);
    b[4096 + 3] ^= 0x40;
    bloomsimd_le32_put(b + BLOOMSIMD_HDR_STATE_FLAGS, 0);
    bloomsimd_header_reseal(b);

    emit("bad_empty", b, 0);
    emit("bad_magic_only", b, 8);
    emit("bad_fixed_header_only", b, 128);
    emit("bad_header_only", b, 4096);
    emit("bad_one_byte_short", b, len - 1);
    b[len] = 0;
    emit("bad_one_byte_long", b, len + 1);

    uint8_t *m = malloc(len);
    /* Each edit below is resealed, so only the field check can reject it. */
#define MUTATE(name, stmt)                                                                                         \
    do {                                                                                                           \
        memcpy(m, b, len);                                                                                         \
        stmt;                                                                                                      \
        bloomsimd_header_reseal(m);                                                                                \
        emit(name, m, len);                                                                                        \
    } while (0)
    MUTATE("bad_version_1", bloomsimd_le32_put(m + BLOOMSIMD_HDR_VERSION, 1));
    MUTATE("bad_version_3", bloomsimd_le32_put(m + BLOOMSIMD_HDR_VERSION, 3));
    MUTATE("bad_layout_1", bloomsimd_le32_put(m + BLOOMSIMD_HDR_LAYOUT_ID, 1));
    MUTATE("bad_layout_4", bloomsimd_le32_put(m + BLOOMSIMD_HDR_LAYOUT_ID, 4));
    MUTATE("bad_layout_3_k_7", bloomsimd_le32_put(m + BLOOMSIMD_HDR_LAYOUT_ID, 3));
    MUTATE("bad_hash_2", bloomsimd_le32_put(m + BLOOMSIMD_HDR_HASH_ID, 2));
    MUTATE("bad_k_17", bloomsimd_le32_put(m + BLOOMSIMD_HDR_K, 17));
    MUTATE("bad_blocks_huge", (bloomsimd_le64_put(m + BLOOMSIMD_HDR_BLOCKS, UINT64_C(1) << 32),
                               bloomsimd_le64_put(m + BLOOMSIMD_HDR_PAYLOAD_BYTES, UINT64_C(1) << 38)));
    MUTATE("bad_payload_bytes", bloomsimd_le64_put(m + BLOOMSIMD_HDR_PAYLOAD_BYTES, 64));
    MUTATE("bad_offset_64", bloomsimd_le32_put(m + BLOOMSIMD_HDR_PAYLOAD_OFFSET, 64));
    MUTATE("bad_padding", m[2000] = 1);
    MUTATE("bad_fpr_nan", bloomsimd_le64_put(m + BLOOMSIMD_HDR_FPR, UINT64_C(0x7ff8000000000000)));
    MUTATE("bad_payload_checksum", m[BLOOMSIMD_HDR_PAYLOAD_CHECKSUM] ^= 1);
#undef MUTATE
    memcpy(m, b, len);
    m[BLOOMSIMD_HDR_HEADER_CHECKSUM] ^= 1;
    emit("bad_header_checksum", m, len);
    memset(m, 0, len);
    emit("bad_zeros", m, len);
    free(m);
    free(b);
    layered_seeds();
    return 0;
}
