/*
 * support_samples.h — sample filters of every kind and "same filter" checks.
 */
#ifndef BLOOMSIMD_TEST_SUPPORT_SAMPLES_H
#define BLOOMSIMD_TEST_SUPPORT_SAMPLES_H

#include <stddef.h>

#include "support.h"

#define TEST_KINDS 3
#define TEST_SAMPLE_KEYS 2500u
#define TEST_SAMPLE_STREAM 61u

/* "plain", "scalable", "window" */
extern const char *const test_kind_names[TEST_KINDS];

/* Kind 0: a plain filter; 1: a scalable filter grown to 4 layers; 2: a
 * window of 3 generations rotated 5 times. Keys are test_key(61, i), i <
 * TEST_SAMPLE_KEYS. kernel NULL: this run's kernel. */
bloomsimd_filter *test_sample(int kind, const char *kernel, uint32_t flags);

/* The serialized bytes (caller frees); the test fails if serialize does. */
uint8_t *test_serialize(const bloomsimd_filter *f, size_t *len);

/* a and b answer every sample key and 20000 absent keys alike (batch and
 * single-key calls), and find some. */
void test_assert_same_answers(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what);

/* The same answers, info (layout, layers, items, blocks, k, seed, flags, rotations)
 * and serialized bytes. */
void test_assert_same_filter(const bloomsimd_filter *a, const bloomsimd_filter *b, const char *what);

#endif
