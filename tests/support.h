/*
 * support.h — shared helpers for the Criterion suites.
 */
#ifndef BLOOMSIMD_TEST_SUPPORT_H
#define BLOOMSIMD_TEST_SUPPORT_H

#include <bloomsimd.h>
#include <stdbool.h>
#include <stdint.h>

/* splitmix64: a fast, well-mixed generator for test keys. */
static inline uint64_t test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The splitmix64 finalizer: a bijection on 64-bit values. */
static inline uint64_t test_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Key i (< 2^40) of stream `stream` (< 2^24). Because test_mix64 is a
 * bijection and the inputs (stream << 40) | i are distinct, keys are distinct
 * within a stream AND across streams: "absent" keys are guaranteed absent. */
static inline uint64_t test_key(uint64_t stream, uint64_t i) { return test_mix64((stream << 40) | i); }

/* BLOOMSIMD_TEST_QUICK=1 (set by the ASan and qemu stages of scripts/test.sh):
 * statistical suites drop their most expensive rows (FPR <= 1e-4, needing
 * >= 2e7 lookups each) and say so; every other check runs unchanged. The
 * native release stage always runs everything. */
bool test_quick_mode(void);

/* The kernel this run is for: BLOOMSIMD_KERNEL, or the default. */
const char *test_kernel(void);

/* The layout a filter made with options.layout = 0 gets on this run's kernel
 * (the kernel's default_layout, as bloomsimd_size_for reports it; which
 * kernel has which default is pinned by test_layout_split256.c). Tests about
 * "a default filter" expect this; tests about one layout name it. */
uint32_t test_default_layout(void);

/* Bits in one block of `layout` (BLOOMSIMD_LAYOUT_BLOCK512 or _SPLIT256). */
static inline uint64_t test_block_bits(uint32_t layout)
{
    return layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_BLOCK_BITS : BLOOMSIMD_BLOCK_BITS;
}

/* test_key(stream, 0 .. n-1): n distinct keys, disjoint from every other
 * stream. Caller frees. */
uint64_t *test_keys(size_t n, uint64_t stream);

/* Calls check(o, what) for every geometry the single-key and few-key suites
 * compare with the pipeline: split256, and block512 at k = k_step, 2 k_step,
 * .. up to 16; 64-bit keys hashed by XXH3 and by mum; plain and concurrent
 * filters. o has the given capacity and fpr, and seed + k (split256: k = 0);
 * `what` names the case for the assertions. */
void test_each_geometry(uint64_t capacity, double fpr, uint64_t seed, uint32_t k_step,
                        void (*check)(bloomsimd_options o, const char *what));

/* A filter on this run's kernel; the test fails if creation fails. */
bloomsimd_filter *test_filter(const bloomsimd_options *o);

/* Removes every file in dir, then dir itself, then frees the string. */
void test_remove_dir(char *dir);

/* tests/fixtures/<name> of the source tree (caller frees). */
char *test_fixture_path(const char *name);

/* The whole file (caller frees); the test fails if it cannot be read. */
uint8_t *test_read_file(const char *path, size_t *len);

#endif
