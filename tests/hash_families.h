/*
 * hash_families.h — the key sets of the 64-bit-key hash quality gate
 * (tests/test_hash_quality.c): structured ids users really insert, and
 * random keys. Shared with bench/harness/u64_hash_gate.c, which runs the
 * same gate on hashes that are not hash ids, so both judge the same keys.
 *
 * Families (i = 0, 1, ...): i; i << j for j = 1..48 (fewer keys where i would
 * overflow); keys differing only in their top 16 and only in their top 32
 * bits; Snowflake ids (ms << 22 | worker << 12 | seq); IPv4 addresses as
 * integers and in network byte order; two 32-bit fields (i / 1000, i % 1000);
 * multiples of 1000; both halves equal; ~i; random keys. Every family lists
 * distinct keys, so members past the first n are absent from a filter of
 * the first n.
 */
#ifndef BLOOMSIMD_TESTS_HASH_FAMILIES_H
#define BLOOMSIMD_TESTS_HASH_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

enum { FAM_SEQUENTIAL, FAM_STRIDE, FAM_TOP16, FAM_TOP32, FAM_SNOWFLAKE, FAM_IPV4, FAM_IPV4_NET, FAM_FIELDS,
       FAM_THOUSANDS, FAM_HALVES, FAM_COMPLEMENT, FAM_RANDOM, FAM_COUNT };

/* strides 2^1 .. 2^HASH_FAMILY_MAX_STRIDE */
#define HASH_FAMILY_MAX_STRIDE 48u

static const char *const hash_family_names[FAM_COUNT] = {
    "0..n-1", "stride 2^j", "top 16 bits", "top 32 bits", "Snowflake ids", "IPv4", "IPv4 network order",
    "two 32-bit fields", "multiples of 1000", "halves equal", "~i", "random"};

/* The splitmix64 finaliser: a bijection of 64-bit words. */
static inline uint64_t hash_family_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Member i of a family (j: the stride's exponent, else unused). The random
 * family is hash_family_mix64 of i ^ a constant. */
static inline uint64_t hash_family_member(int family, unsigned j, uint64_t i)
{
    switch (family) {
    case FAM_SEQUENTIAL: return i;
    case FAM_STRIDE: return i << j;
    case FAM_TOP16: return (i << 48) | UINT64_C(0x123456789ab);
    case FAM_TOP32: return (i << 32) | UINT64_C(0x9abcdef);
    case FAM_SNOWFLAKE: { /* 64 sequence numbers a worker, 32 workers a millisecond */
        uint64_t ms = UINT64_C(1700000000000) + i / 2048, worker = (i / 64) % 32, seq = i % 64;
        return (ms << 22) | (worker << 12) | seq;
    }
    case FAM_IPV4: return UINT64_C(0x0A000000) + i;
    case FAM_IPV4_NET: return __builtin_bswap32((uint32_t)(0x0A000000u + i));
    case FAM_FIELDS: return ((i / 1000) << 32) | (i % 1000);
    case FAM_THOUSANDS: return i * 1000;
    case FAM_HALVES: return (i << 32) | i;
    case FAM_COMPLEMENT: return ~i;
    default: return hash_family_mix64(i ^ UINT64_C(0x5851F42D4C957F2D));
    }
}

/* *n keys in and *q looked up (given the usual n + q): fewer for the
 * families with fewer members (top 16 bits: 2^16; stride 2^j: 2^(64-j)),
 * 60% of them in the filter. */
static inline void hash_family_sizes(int family, unsigned j, size_t *n, size_t *q)
{
    if (family == FAM_TOP16) *n = 40000, *q = 25536;
    if (family == FAM_STRIDE && 64 - j < 63 && (UINT64_C(1) << (64 - j)) < *n + *q) {
        size_t members = (size_t)1 << (64 - j);
        *n = members * 6 / 10, *q = members - *n;
    }
}

#endif
