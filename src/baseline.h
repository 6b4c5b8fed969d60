/*
 * baseline.h — included first by every source file outside kernels/.
 *
 * Only kernels/ may be compiled with instruction-set flags (-mavx2, ...).
 * If AVX code leaked into the core or the dispatcher, the CPU-detection code
 * itself could execute an AVX instruction on a CPU without AVX (SIGILL before
 * we ever choose a kernel). This turns that build mistake into a compile error.
 */
#ifndef BLOOMSIMD_BASELINE_H
#define BLOOMSIMD_BASELINE_H

#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__) || defined(__SSE4_2__) || \
    defined(__BMI2__)
#error "libbloomsimd: code outside kernels/ must be built with baseline flags (no -mavx*, -msse4*, -march=native)"
#endif

#endif
