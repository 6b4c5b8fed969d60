/*
 * u64_hash_gate.c — the quality gate of tests/test_hash_quality.c (the same
 * key families, sizes and thresholds) run on candidate 64-bit-key hashes
 * that are not hash ids, through the public hashes calls
 * (bloomsimd_add_hashes / bloomsimd_contains_hashes), for several seeds and
 * a chosen FPR. docs/kernels/hash-u64.md lists what each candidate gave.
 *
 *   cc -O2 -msse4.2 -Iinclude -Itests bench/harness/u64_hash_gate.c build/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/gate
 *   /tmp/gate CANDIDATE [SEEDS [FPR]]       (e.g. 7 8 0.001; exit status 0 when every check passed)
 *
 * Candidates (a, b: the seed's two words, splitmix64 of seed ^ a salt):
 *   0  mum, hash 3 (passes)          5  candidate 1, then p ^ p >> 29
 *   1  lo32(y) * hi32(y) ^ rotl(y, 32), y = x ^ a      6  y * (rotl(x, 32) ^ b | 1), low 64 bits, ^ >> 32
 *   2  candidate 1 with + (rotl(y, 32) ^ b)            7  lo ^ hi of (x ^ a) * (crc32c(x) ^ b) (passes)
 *   3  candidate 1 with hi32 mixed with rotl(y, 13)    8  lo ^ hi of (x ^ a) * 0x9E3779B97F4A7C15 (must fail)
 *   4  candidate 1, then * 0x9E3779B97F4A7C15
 */
#include <bloomsimd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash_families.h" /* tests/: the gate's key families */

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t A, B; /* seed words */
static int cand;

static inline uint64_t hash(uint64_t x)
{
    uint64_t y, p;
    __extension__ unsigned __int128 q;
    switch (cand) {
    case 0: /* mum (hash 3) */
        q = (unsigned __int128)(x ^ A) * (__builtin_bswap64(x) ^ B);
        p = ((uint64_t)q ^ (uint64_t)(q >> 64)) * UINT64_C(0x9E3779B97F4A7C15);
        return p ^ (p >> 32);
    case 1: /* mx32: one 32x32->64 product of the seeded halves, xor the swapped key */
        y = x ^ A;
        p = (uint64_t)(uint32_t)y * (y >> 32);
        return p ^ rotl(y, 32);
    case 2: /* the same, plus B */
        y = x ^ A;
        p = (uint64_t)(uint32_t)y * (y >> 32);
        return p + (rotl(y, 32) ^ B);
    case 3: /* lo * (hi ^ lo-rot) */
        y = x ^ A;
        p = (uint64_t)(uint32_t)y * (uint32_t)((y >> 32) ^ (uint32_t)rotl(y, 13));
        return p ^ rotl(y, 32);
    case 4: /* candidate 1, then one 64-bit multiply by a constant */
        y = x ^ A;
        p = (uint64_t)(uint32_t)y * (y >> 32);
        return (p ^ rotl(y, 32)) * UINT64_C(0x9E3779B97F4A7C15);
    case 5: /* mx32 then xorshift of the top into the bottom */
        y = x ^ A;
        p = (uint64_t)(uint32_t)y * (y >> 32);
        p ^= rotl(y, 32);
        return p ^ (p >> 29);
    case 6: /* 64x64 low multiply of x by its rotation */
        y = x ^ A;
        p = y * ((rotl(x, 32) ^ B) | 1);
        return p ^ (p >> 32);
    case 7: /* crc candidate */
        q = (unsigned __int128)(x ^ A) * (__builtin_ia32_crc32di(0, x) ^ B);
        return (uint64_t)q ^ (uint64_t)(q >> 64);
    case 8: /* one constant multiply (must fail) */
        q = (unsigned __int128)(x ^ A) * UINT64_C(0x9E3779B97F4A7C15);
        return (uint64_t)q ^ (uint64_t)(q >> 64);
    }
    return 0;
}

static double FPR = 0.01;
static int verbose = 1;

static unsigned check(uint64_t *keys, uint64_t *h, uint8_t *out, size_t n0, size_t q0, uint32_t layout, int fam,
                      unsigned j)
{
    size_t n = n0, q = q0;
    hash_family_sizes(fam, j, &n, &q);
    for (size_t i = 0; i < n + q; i++) keys[i] = hash_family_member(fam, j, i), h[i] = hash(keys[i]);
    bloomsimd_options o = {.capacity = n, .fpr = FPR, .layout = layout, .seed = 7};
    bloomsimd_filter *f = NULL;
    if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) {
        fprintf(stderr, "create: %s\n", bloomsimd_last_error());
        exit(2);
    }
    bloomsimd_add_hashes(f, h, n);
    size_t fp = bloomsimd_contains_hashes(f, h + n, q, out);
    double model = bloomsimd_predicted_fpr(f, n), meas = (double)fp / (double)q;
    double tol = fmax(0.10, 4.5 / sqrt(model * (double)q));
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    uint64_t blocks = info.blocks;
    uint32_t *pb = calloc(blocks, 4);
    for (size_t i = 0; i < n; i++) pb[((h[i] >> 32) * blocks) >> 32]++;
    double mean = (double)n / (double)blocks, chi2 = 0;
    for (uint64_t b = 0; b < blocks; b++) chi2 += (pb[b] - mean) * (pb[b] - mean) / mean;
    double z = (chi2 - (double)(blocks - 1)) / sqrt(2.0 * (double)(blocks - 1));
    free(pb);
    bloomsimd_destroy(f);
    unsigned fail = 0;
    if (fabs(meas / model - 1) > tol) {
        fail++;
        if (verbose)
            printf("  FAIL %s %s j%u: FPR %.4f%% model %.4f%% (%+.1f%%)\n", bloomsimd_layout_name(layout), hash_family_names[fam], j,
                   100 * meas, 100 * model, 100 * (meas / model - 1));
    }
    if (z > 5) {
        fail++;
        if (verbose) printf("  FAIL %s %s j%u: chi z %.1f\n", bloomsimd_layout_name(layout), hash_family_names[fam], j, z);
    }
    return fail;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CANDIDATE [SEEDS [FPR]]\n", argv[0]);
        return 2;
    }
    cand = atoi(argv[1]);
    int seeds = argc > 2 ? atoi(argv[2]) : 1;
    if (argc > 3) FPR = atof(argv[3]);
    size_t n = 1000000, q = 400000;
    uint64_t *keys = malloc((n + q) * 8), *h = malloc((n + q) * 8);
    uint8_t *out = malloc(n + q);
    unsigned total = 0;
    for (int s = 0; s < seeds; s++) {
        A = hash_family_mix64((uint64_t)s ^ UINT64_C(0xA0761D6478BD642F));
        B = hash_family_mix64((uint64_t)s ^ UINT64_C(0xE7037ED1A0B428DB));
        unsigned fails = 0;
        static const uint32_t layouts[2] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
        for (int l = 0; l < 2; l++)
            for (int fam = 0; fam < FAM_COUNT; fam++) {
                if (fam == FAM_STRIDE)
                    for (unsigned j = 1; j <= HASH_FAMILY_MAX_STRIDE; j++) fails += check(keys, h, out, n, q, layouts[l], fam, j);
                else
                    fails += check(keys, h, out, n, q, layouts[l], fam, 0);
            }
        printf("candidate %d seed %d FPR %g: %u of 236 checks failed\n", cand, s, FPR, fails);
        fflush(stdout);
        total += fails;
    }
    return total != 0;
}
