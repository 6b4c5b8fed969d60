/*
 * harness.h — what the paired-round harnesses of this folder share: the
 * thread's CPU time, a key generator, and quantiles of per-round samples.
 */
#ifndef BLOOMSIMD_HARNESS_H
#define BLOOMSIMD_HARNESS_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Seconds of this thread's CPU time: the shared machine's other processes are not charged. */
static inline double harness_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: distinct, well-mixed 64-bit keys. */
static inline uint64_t harness_splitmix(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline int harness_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile (0..1, nearest rank) of v[0..n); sorts v. */
static inline double harness_quantile(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, harness_compare);
    return v[(int)(p * (n - 1) + 0.5)];
}

#endif
