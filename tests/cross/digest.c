/*
 * digest.c — prints checksums of a fixed set of filters, so that two builds
 * (x86-64 natively, AArch64 under qemu) and every kernel can be compared
 * with diff: the layout promises the same bytes on every CPU and kernel.
 *
 * Usage: bloomsimd-cross-digest KERNEL
 *        bloomsimd-cross-digest --kernels   (runnable kernels: "name native|emulated")
 * Stdout: one line per filter (layout, seed, k, blocks, key kind, digest of
 * the bit array, hits of a lookup batch, digest of bloomsimd_serialize's image),
 * then a total. Nothing on stdout names the kernel or the CPU, so outputs
 * must be byte-identical. Exit 1 on any API failure or if the filter did
 * not run on KERNEL; exit 77 if KERNEL cannot run here.
 *
 * The filters cover both layouts, each named (a kernel's default layout is
 * not the same on every kernel, so no filter here takes the default):
 * block512 with 4 seeds (0, 1, a 64-bit one, one with a byte-swapped low
 * word), k 1..16, 1 block to 2^20 + 3 blocks; split256 (k 8) from 1 block to
 * 2^21 + 5 blocks; u64 batches, single u64 inserts, pre-computed hashes and
 * byte keys of length 0..40 in each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloomsimd.h"
#include "internal.h"

/* 64-bit FNV-1a over little-endian 64-bit words: simple, and written here
 * so the comparison does not trust any code under test. */
static uint64_t digest_words(const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < bytes; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

enum key_kind { KEYS_U64_BATCH, KEYS_U64_SINGLE, KEYS_HASHES, KEYS_BYTES };
static const char *const kind_names[] = {"u64-batch", "u64-single", "hashes", "bytes"};

typedef struct digest_case {
    uint32_t layout;
    uint64_t seed;
    uint32_t k;
    uint64_t blocks;
    size_t keys;
    enum key_kind kind;
} digest_case;

#define B512 BLOOMSIMD_LAYOUT_BLOCK512
#define S256 BLOOMSIMD_LAYOUT_SPLIT256
static const digest_case cases[] = {
    {B512, 0, 7, 1, 40, KEYS_U64_BATCH},
    {B512, 0, 1, 7, 500, KEYS_U64_BATCH},
    {B512, 1, 16, 64, 3000, KEYS_U64_BATCH},
    {B512, UINT64_C(0x9E3779B97F4A7C15), 3, 1000, 20000, KEYS_U64_BATCH},
    {B512, UINT64_C(0x0102030405060708), 11, 4099, 100003, KEYS_U64_BATCH},
    {B512, 0, 7, (UINT64_C(1) << 20) + 3, 200000, KEYS_U64_BATCH},
    {B512, 42, 5, 333, 5000, KEYS_U64_SINGLE},
    {B512, 7, 13, 1024, 10000, KEYS_HASHES},
    {B512, 0, 7, 500, 4000, KEYS_BYTES},
    {B512, UINT64_C(0xdeadbeefcafef00d), 16, 97, 2500, KEYS_BYTES},
    {B512, 3, 8, 12345, 65, KEYS_U64_BATCH},
    {S256, 0, 8, 1, 40, KEYS_U64_BATCH},
    {S256, 1, 8, 13, 500, KEYS_U64_BATCH},
    {S256, UINT64_C(0x9E3779B97F4A7C15), 8, 2000, 20000, KEYS_U64_BATCH},
    {S256, UINT64_C(0x0102030405060708), 8, 8197, 100003, KEYS_U64_BATCH},
    {S256, 0, 8, (UINT64_C(1) << 21) + 5, 200000, KEYS_U64_BATCH},
    {S256, 42, 8, 667, 5000, KEYS_U64_SINGLE},
    {S256, 7, 8, 2048, 10000, KEYS_HASHES},
    {S256, UINT64_C(0xdeadbeefcafef00d), 8, 193, 2500, KEYS_BYTES},
};
#undef B512
#undef S256

static int fail(const char *what, bloomsimd_status st)
{
    fprintf(stderr, "digest: %s: %s\n", what, bloomsimd_status_string(st));
    return 1;
}

/* Key i of a case as bytes: length i % 41, contents from the key stream. */
static size_t byte_key(uint64_t *state, size_t i, unsigned char buf[48])
{
    size_t len = i % 41;
    for (size_t j = 0; j < len; j += 8) {
        uint64_t v = splitmix64(state);
        for (size_t b = 0; b < 8 && j + b < len; b++) buf[j + b] = (unsigned char)(v >> (8 * b));
    }
    return len;
}

static int run_case(const char *kernel, const digest_case *c, uint64_t *total)
{
    uint64_t block_bits = c->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_BLOCK_BITS : BLOOMSIMD_BLOCK_BITS;
    bloomsimd_options o = {.bits = c->blocks * block_bits, .k = c->k, .seed = c->seed,
                           .kernel = kernel, .capacity = c->keys, .layout = c->layout};
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, &o);
    if (st != BLOOMSIMD_OK) return fail("create", st);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    if (strcmp(info.kernel, kernel) != 0 || info.blocks != c->blocks || info.k != c->k || info.layout != c->layout) {
        fprintf(stderr, "digest: filter runs kernel %s, layout %u, %llu blocks, k %u; wanted %s, %u, %llu, %u\n",
                info.kernel, info.layout, (unsigned long long)info.blocks, info.k, kernel, c->layout,
                (unsigned long long)c->blocks, c->k);
        bloomsimd_destroy(f);
        return 1;
    }

    /* Inserted keys are the first c->keys of a stream; queries mix them
     * with as many absent keys (the next c->keys of the stream). */
    size_t n = c->keys;
    uint64_t *keys = malloc(2 * n * sizeof *keys);
    uint8_t *out = malloc(2 * n);
    unsigned char (*bytes)[48] = malloc(2 * n * sizeof *bytes);
    const void **ptrs = malloc(2 * n * sizeof *ptrs);
    size_t *lens = malloc(2 * n * sizeof *lens);
    if (!keys || !out || !bytes || !ptrs || !lens) {
        fprintf(stderr, "digest: out of memory\n");
        return 1;
    }
    uint64_t state = c->seed ^ (c->blocks << 8) ^ c->k;
    for (size_t i = 0; i < 2 * n; i++) keys[i] = splitmix64(&state);
    for (size_t i = 0; i < 2 * n; i++) {
        lens[i] = byte_key(&state, i, bytes[i]);
        ptrs[i] = bytes[i];
    }

    size_t hits = 0;
    switch (c->kind) {
    case KEYS_U64_BATCH:
        st = bloomsimd_add_batch_u64(f, keys, n);
        hits = bloomsimd_contains_batch_u64(f, keys, 2 * n, out);
        break;
    case KEYS_U64_SINGLE:
        for (size_t i = 0; i < n && st == BLOOMSIMD_OK; i++) st = bloomsimd_add_u64(f, keys[i]);
        for (size_t i = 0; i < 2 * n; i++) hits += out[i] = bloomsimd_contains_u64(f, keys[i]);
        break;
    case KEYS_HASHES: {
        uint64_t *hashes = malloc(2 * n * sizeof *hashes);
        if (!hashes) return 1;
        bloomsimd_hash_batch_u64(f, keys, 2 * n, hashes);
        st = bloomsimd_add_hashes(f, hashes, n);
        hits = bloomsimd_contains_hashes(f, hashes, 2 * n, out);
        free(hashes);
        break;
    }
    case KEYS_BYTES:
        st = bloomsimd_add_batch(f, (const void *const *)ptrs, lens, n);
        hits = bloomsimd_contains_batch(f, (const void *const *)ptrs, lens, 2 * n, out);
        break;
    }
    if (st != BLOOMSIMD_OK) return fail("insert", st);

    uint64_t bits = digest_words(f->geometry.words, bloomsimd_filter_bytes(f));
    uint64_t answers = digest_words(out, 2 * n);
    size_t size = bloomsimd_serialized_size(f);
    void *image = malloc(size ? size : 1);
    size_t written = 0;
    if (!image) return 1;
    st = bloomsimd_serialize(f, image, size, &written);
    if (st != BLOOMSIMD_OK) return fail("serialize", st);
    uint64_t serialized = digest_words(image, written);

    printf("%s seed=%016llx k=%-2u blocks=%-8llu keys=%-6zu %-10s bits=%016llx hits=%-6zu answers=%016llx "
           "serialized=%016llx\n",
           bloomsimd_layout_name(c->layout), (unsigned long long)c->seed, c->k, (unsigned long long)c->blocks, n, kind_names[c->kind],
           (unsigned long long)bits, hits, (unsigned long long)answers, (unsigned long long)serialized);
    *total = (*total ^ bits ^ (answers << 1) ^ (serialized << 2)) * UINT64_C(0x100000001b3);

    free(image);
    free(keys);
    free(out);
    free(bytes);
    free(ptrs);
    free(lens);
    bloomsimd_destroy(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s KERNEL\n", argv[0]);
        return 2;
    }
    const char *kernel = argv[1];
    if (strcmp(kernel, "--kernels") == 0) {
        for (size_t i = 0; bloomsimd_kernel_name(i); i++)
            if (bloomsimd_kernel_supported(bloomsimd_kernel_name(i)))
                printf("%s %s\n", bloomsimd_kernel_name(i),
                       bloomsimd_kernel_emulated(bloomsimd_kernel_name(i)) ? "emulated" : "native");
        return 0;
    }
    if (!bloomsimd_kernel_supported(kernel)) {
        fprintf(stderr, "digest: kernel '%s' cannot run here\n", kernel);
        return 77;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (run_case(kernel, &cases[i], &total)) return 1;
    printf("total=%016llx\n", (unsigned long long)total);
    fprintf(stderr, "digest: kernel %s%s: %zu filters\n", kernel, bloomsimd_kernel_emulated(kernel) ? " (emulated)" : "",
            sizeof cases / sizeof cases[0]);
    return 0;
}
