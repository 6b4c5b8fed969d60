/*
 * hash_keys_neon_count.c — AArch64 instruction counts of bloomsimd_hash_keys (
 * bench/harness/README.md): run under `qemu-aarch64 -singlestep -d exec,nochain`, where
 * every executed guest instruction logs one "Trace" line; the count of
 * rounds R minus rounds 1, divided by (R - 1) * N, is instructions per key
 * of the call alone (setup cancels).
 *
 *   ./hash_keys_neon_count KERNEL LAYOUT(fixed|off32|mixed32) WIDTH ROUNDS
 */
#include <bloomsimd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096 };
static uint64_t h[N];

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    const char *kernel = argv[1], *layout = argv[2];
    size_t w = strtoul(argv[3], NULL, 10);
    int rounds = atoi(argv[4]);
    bloomsimd_options o = {.bits = 512, .k = 6, .seed = 0x1234567, .kernel = kernel}; /* no sizing model: its cost would swamp the log */
    bloomsimd_filter *f;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) return 3;
    static uint32_t off[N + 1];
    uint64_t s = 7;
    size_t total = 0;
    for (size_t i = 0; i < N; i++) {
        size_t len = w;
        if (strcmp(layout, "mixed32") == 0) s = s * 6364136223846793005u + 1442695040888963407u, len = 8 + (s >> 33) % 57;
        off[i] = (uint32_t)total, total += len;
    }
    off[N] = (uint32_t)total;
    uint8_t *data = malloc(total + 1);
    for (size_t i = 0; i < total; i++) data[i] = (uint8_t)(i * 131 + 7);
    bloomsimd_keys v = strcmp(layout, "fixed") == 0 ? bloomsimd_keys_fixed(data, total, w, N)
                                                     : bloomsimd_keys_offsets32(data, total, off, N);
    uint64_t x = 0;
    for (int r = 0; r < rounds; r++) {
        if (bloomsimd_hash_keys(f, &v, h) != BLOOMSIMD_OK) return 4;
        x += h[r % N];
    }
    printf("%llx\n", (unsigned long long)x);
    return 0;
}
