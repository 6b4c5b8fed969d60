/*
 * kernel.h — the contract between the filter core and one instruction-set kernel.
 *
 * A kernel is a table of function pointers. Each file in kernels/ defines
 * exactly one non-static symbol, `const bloomsimd_kernel bloomsimd_kernel_<name>`;
 * the build generates the priority-ordered table of them (see
 * cmake/BloomsimdKernels.cmake), so adding an instruction set is one file and
 * one line in CMakeLists.txt.
 *
 * Every kernel must produce exactly what kernels/scalar.c produces: the same
 * hashes, the same filter bytes after inserts, the same lookup answers.
 */
#ifndef BLOOMSIMD_KERNEL_H
#define BLOOMSIMD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU features a kernel may require (bits of bloomsimd_cpu_features()). */
enum {
    BLOOMSIMD_CPU_SSE42 = 1u << 0,   /* SSE4.2 (implies SSSE3/SSE4.1) */
    BLOOMSIMD_CPU_AVX2 = 1u << 1,    /* AVX2, OS saves YMM state */
    BLOOMSIMD_CPU_AVX512 = 1u << 2,  /* AVX-512 F+BW+DQ+VL, OS saves ZMM state */
    BLOOMSIMD_CPU_NEON = 1u << 3,    /* AArch64 Advanced SIMD */
    BLOOMSIMD_CPU_BMI2 = 1u << 4
};

/*
 * Everything a kernel needs to probe or set one filter. The core fills it at
 * create/load time; kernels only read it.
 */
typedef struct bloomsimd_geometry {
    uint32_t *words;           /* nblocks * 16 little-endian 32-bit words, 64-byte aligned */
    uint64_t nblocks;          /* 1 .. 2^32 */
    const uint16_t *subsets;   /* the C(16,k) word-selection masks for this k, ascending */
    uint32_t nsubsets;         /* C(16,k) */
    uint32_t k;                /* 1 .. 16 */
    uint64_t hash_bitflip;     /* seed-derived XXH3 constant, see bloomsimd_xxh3_u64 */
    bool concurrent;           /* inserts must use atomic ORs (BLOOMSIMD_CONCURRENT) */
} bloomsimd_geometry;

typedef struct bloomsimd_kernel {
    const char *name;
    uint32_t required_features;  /* all of these BLOOMSIMD_CPU_* bits must be present */
    bool emulated;               /* runs through SIMDe here: listed, never auto-selected */

    /* hashes[i] = XXH3_64bits_withSeed(&keys[i], 8, seed) (keys as LE bytes). */
    void (*hash_u64)(uint64_t hash_bitflip, const uint64_t *keys, size_t n, uint64_t *hashes);
    /* Insert / look up pre-computed hashes. out may be NULL; returns the count of hits. */
    void (*add_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n);
    size_t (*contains_hashes)(const bloomsimd_geometry *g, const uint64_t *hashes, size_t n, uint8_t *out);
    /* Fused key -> hash -> probe paths. out may be NULL; returns the count of hits. */
    void (*add_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n);
    size_t (*contains_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n, uint8_t *out);
    /* Set operations over whole bit arrays (nwords 64-bit words, 64-byte aligned):
     * dst[i] |= src[i] and dst[i] &= src[i]. */
    void (*union_words)(uint64_t *dst, const uint64_t *src, size_t nwords);
    void (*intersect_words)(uint64_t *dst, const uint64_t *src, size_t nwords);
    /* Optional (may be NULL): the memory floor for the bench's "ceiling" row.
     * The same hash, block index and pipeline as contains_u64, but instead of
     * probing it reads ONE 64-bit word (the first) of each key's block.
     * Returns the sum of the words read, so the reads cannot be dropped. */
    uint64_t (*touch_u64)(const bloomsimd_geometry *g, const uint64_t *keys, size_t n);
} bloomsimd_kernel;

#endif /* BLOOMSIMD_KERNEL_H */
