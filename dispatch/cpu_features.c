/*
 * cpu_features.c — which instruction sets this CPU *and OS* support.
 *
 * x86: GCC/clang's __builtin_cpu_supports reads CPUID and also checks XGETBV
 * (XCR0), so AVX/AVX-512 are reported only when the OS saves YMM/ZMM state on
 * context switches; executing them otherwise would fault. AArch64: Advanced
 * SIMD is part of the base ISA.
 *
 * Detection runs once per process under pthread_once, so concurrent first
 * calls are safe and no per-call CPUID cost is paid.
 */
#include "../src/baseline.h"

#include <pthread.h>

#include "dispatch.h"

static pthread_once_t features_once = PTHREAD_ONCE_INIT;
static uint32_t features;

static void detect_features(void)
{
    uint32_t f = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) f |= BLOOMSIMD_CPU_SSE42;
    if (__builtin_cpu_supports("avx2")) f |= BLOOMSIMD_CPU_AVX2;
    if (__builtin_cpu_supports("bmi2")) f |= BLOOMSIMD_CPU_BMI2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        f |= BLOOMSIMD_CPU_AVX512;
#elif defined(__aarch64__)
    f |= BLOOMSIMD_CPU_NEON;
#endif
    features = f;
}

uint32_t bloomsimd_cpu_features(void)
{
    pthread_once(&features_once, detect_features);
    return features;
}
