/*
 * layout_neon_count.c — AArch64 instructions per key of block512 against
 * split256 on one kernel (docs/kernels/default-layout.md): run under
 * `qemu-aarch64 -singlestep -d exec,nochain`, where every executed guest
 * instruction logs one "Trace" line; (count at ROUNDS - count at 1 round) /
 * ((ROUNDS - 1) * 4096) is instructions per key of the timed call alone
 * (setup, key generation and the filter's creation cancel).
 *
 *   ./layout_neon_count KERNEL LAYOUT(2|3) OP ROUNDS
 *
 * OP: lookup (bloomsimd_contains_batch_u64 of 4096 absent keys, bytes out),
 * lookup-present (the same of the 4096 inserted keys), insert
 * (bloomsimd_add_batch_u64), insert-new (bloomsimd_add_new_batch_u64),
 * contains1 (one bloomsimd_contains_u64 call per absent key), add1 (one
 * bloomsimd_add_u64 per key). The filter holds the 4096 keys at 1% (sized
 * by explicit bits, so that the sizing model's libm calls stay out of the
 * trace): block512 80 blocks, k 6 (9.91 bits/key rounded up to blocks);
 * split256 169 blocks, k 8 (10.53).
 *
 * Build (after bash scripts/aarch64-check.sh) and count:
 *
 *   aarch64-linux-gnu-gcc -O2 -Iinclude bench/harness/layout_neon_count.c \
 *       build-aarch64-check/aarch64/libbloomsimd.a \
 *       build-aarch64-check/sysroot/usr/lib/aarch64-linux-gnu/libxxhash.a -lm -lpthread -static \
 *       -o /tmp/layout_count
 *   bash bench/harness/layout_neon_count.sh /tmp/layout_count
 */
#include <bloomsimd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };
static uint64_t keys[N], absent[N];
static uint8_t out[N];

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    const char *kernel = argv[1], *op = argv[3];
    uint32_t layout = (uint32_t)strtoul(argv[2], NULL, 10);
    int rounds = atoi(argv[4]);
    bloomsimd_options o = {.kernel = kernel, .seed = 0x1234567, .layout = layout};
    if (layout == BLOOMSIMD_LAYOUT_SPLIT256) o.bits = 169 * 256;
    else o.bits = 80 * 512, o.k = 6;
    bloomsimd_filter *f;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) return 3;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    if (info.layout != layout || strcmp(info.kernel, kernel) != 0) return 4;
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++) keys[i] = splitmix64(&s);
    for (size_t i = 0; i < N; i++) absent[i] = splitmix64(&s);
    if (bloomsimd_add_batch_u64(f, keys, N) != BLOOMSIMD_OK) return 5;
    uint64_t x = 0;
    for (int r = 0; r < rounds; r++) {
        if (strcmp(op, "lookup") == 0) {
            x += bloomsimd_contains_batch_u64(f, absent, N, out);
        } else if (strcmp(op, "lookup-present") == 0) {
            x += bloomsimd_contains_batch_u64(f, keys, N, out);
        } else if (strcmp(op, "insert") == 0) {
            if (bloomsimd_add_batch_u64(f, keys, N) != BLOOMSIMD_OK) return 6;
        } else if (strcmp(op, "insert-new") == 0) {
            size_t fresh = 0;
            if (bloomsimd_add_new_batch_u64(f, keys, N, out, &fresh) != BLOOMSIMD_OK) return 6;
            x += fresh;
        } else if (strcmp(op, "contains1") == 0) {
            for (size_t i = 0; i < N; i++) x += bloomsimd_contains_u64(f, absent[i]);
        } else if (strcmp(op, "add1") == 0) {
            for (size_t i = 0; i < N; i++)
                if (bloomsimd_add_u64(f, keys[i]) != BLOOMSIMD_OK) return 6;
        } else {
            return 2;
        }
    }
    printf("%llu\n", (unsigned long long)x);
    bloomsimd_destroy(f);
    return 0;
}
