/*
 * c_batch.c — the C library's batched calls, timed in C, for bench.py: the
 * "C library" column. Built by run.sh into a shared object linked with the
 * same libbloomsimd.a as the extension, loaded with ctypes into the same
 * process, so both columns run the same machine code on the same key
 * arrays, the same filter bytes and the same memory.
 *
 * The clock (this thread's CPU time, as bench.py's) is read in C around the
 * library call alone: what the binding
 * adds (argument parsing, the buffer export, the result array, the GIL
 * release) is exactly the difference between the columns.
 */
#define _POSIX_C_SOURCE 200809L
#include <bloomsimd.h>
#include <stdint.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* as bench.py's time.thread_time_ns */
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A filter from serialized bytes (Filter.to_bytes()), on `kernel`: the same
 * bits and geometry as the Python filter. NULL on failure. */
void *bsb_load(const void *bytes, size_t len, const char *kernel)
{
    bloomsimd_load_options o = {.kernel = kernel};
    bloomsimd_filter *f = NULL;
    return bloomsimd_deserialize_with(&f, bytes, len, &o) == BLOOMSIMD_OK ? f : NULL;
}

void bsb_free(void *f)
{
    bloomsimd_destroy(f);
}

/* ns of one bloomsimd_contains_batch_u64 over keys[0..n) into out[0..n). */
uint64_t bsb_contains_ns(void *f, const uint64_t *keys, size_t n, uint8_t *out)
{
    uint64_t t0 = now_ns();
    bloomsimd_contains_batch_u64(f, keys, n, out);
    return now_ns() - t0;
}

/* ns of one bloomsimd_add_batch_u64 into the filter after clearing it
 * (the clear is not timed, as bench.py clears the Python filter untimed). */
uint64_t bsb_add_ns(void *f, const uint64_t *keys, size_t n)
{
    bloomsimd_clear(f);
    uint64_t t0 = now_ns();
    bloomsimd_status st = bloomsimd_add_batch_u64(f, keys, n);
    uint64_t t = now_ns() - t0;
    return st == BLOOMSIMD_OK ? t : 0;
}
