/*
 * sbbf.h — the split-block peer: the reference every kernel is judged against.
 *
 * A 256-bit split-block Bloom filter: each key picks one 32-byte block and
 * sets one bit in each of its 8 32-bit words (k = 8). This is the shape of
 * Boost.Bloom's fast_multiblock32<8>, Impala's and Parquet's split-block
 * filters and Kudu's block Bloom filter, the fastest blocked filters in
 * common use. It is written here as strongly as we can write it for AVX2
 * (sbbf_avx2.c): a one-multiply hash, batches pipelined through a ring with
 * prefetches well ahead, no call per key; and it gets huge pages like the
 * library. It is sized with its own exact FPR model (sbbf.c) for the same
 * target FPR as the filter it is compared with, and the bench measures its
 * FPR next to ours.
 *
 * Only sbbf_avx2.c is compiled with -mavx2 -mbmi2; it runs only after
 * bench_sbbf_available() has checked the CPU (and the OS) in baseline code.
 */
#ifndef BLOOMSIMD_BENCH_SBBF_H
#define BLOOMSIMD_BENCH_SBBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_SBBF_BLOCK_BYTES 32u
#define BENCH_SBBF_K 8u

typedef struct bench_sbbf {
    uint32_t *words;  /* nblocks * 8 words, 32-byte aligned */
    uint64_t nblocks; /* 1 .. 2^32 */
    size_t bytes;     /* allocated (a mapping is rounded up to 2 MiB) */
    bool mapped;
} bench_sbbf;

/* True when this build has the AVX2 peer and this CPU (and OS) runs it;
 * otherwise *why says why not (for the report). */
bool bench_sbbf_available(const char **why);

/* The exact FPR of n keys in nblocks blocks (uniform hash bits):
 *   FPR = sum_{s=0}^{8} (-1)^s C(8,s) (1 - (1 - q^s) / m)^n,  q = 31/32.
 * Derivation in sbbf.c. */
double bench_sbbf_fpr(uint64_t n, uint64_t nblocks);
/* The standard deviation of the FPR measured with `queries` absent keys on
 * one filter of n keys, around bench_sbbf_fpr (both its parts; sbbf.c). */
double bench_sbbf_fpr_sigma(uint64_t n, uint64_t nblocks, uint64_t queries);
/* The fewest blocks whose FPR at n keys is <= fpr (0 if fpr is out of (0,1)). */
uint64_t bench_sbbf_blocks_for(uint64_t n, double fpr);

bool bench_sbbf_init(bench_sbbf *f, uint64_t nblocks);
void bench_sbbf_free(bench_sbbf *f);
static inline double bench_sbbf_bits_per_key(const bench_sbbf *f, uint64_t n)
{
    return n ? (double)f->nblocks * 8.0 * BENCH_SBBF_BLOCK_BYTES / (double)n : 0;
}

/* Batched insert / lookup (out[i] = 1 if key i may be present; returns the
 * hit count), and lookups one key at a time through an inlined probe with no
 * prefetch, as a user's loop over single calls would run. Only after
 * bench_sbbf_available() returned true. */
void bench_sbbf_add(const bench_sbbf *f, const uint64_t *keys, size_t n);
size_t bench_sbbf_contains(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out);
size_t bench_sbbf_contains_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n);
/* Inserts one key at a time through the same inlined insert, nothing prefetched. */
void bench_sbbf_add_one_by_one(const bench_sbbf *f, const uint64_t *keys, size_t n);

/* The AVX2 entry points behind the three calls above (sbbf_avx2.c). */
void bench_sbbf_add_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n);
size_t bench_sbbf_contains_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n, uint8_t *out);
size_t bench_sbbf_contains_one_by_one_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n);
void bench_sbbf_add_one_by_one_avx2(const bench_sbbf *f, const uint64_t *keys, size_t n);

#endif
