/*
 * stats.c — timing: a monotonic clock, one warm-up then N timed repetitions,
 * reported as the median (robust to the noise of a shared machine) with the
 * min and max as the spread.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_clock_ns(const bench_options *o)
{
    if (o->wall_clock) return bench_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_stats bench_summarize(double *samples, unsigned reps)
{
    bench_stats s = {0, 0, 0, reps};
    if (reps == 0) return s;
    qsort(samples, reps, sizeof *samples, compare_double);
    s.min = samples[0];
    s.max = samples[reps - 1];
    s.median = (reps & 1u) ? samples[reps / 2] : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    return s;
}

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h> /* clflush, mfence: SSE2, part of the x86-64 baseline */
#endif

void bench_evict(const void *p, size_t bytes)
{
    if (!p || !bytes) return;
    uintptr_t line = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + bytes;
#if defined(__x86_64__) || defined(__i386__)
    for (; line < end; line += 64) _mm_clflush((const void *)line);
    _mm_mfence();
#elif defined(__aarch64__)
    for (; line < end; line += 64) __asm__ volatile("dc civac, %0" : : "r"(line) : "memory");
    __asm__ volatile("dsb ish" : : : "memory");
#else
    (void)line, (void)end;
#endif
}

#define MAX_REPS 1000u
#define MAX_JOBS 32u

void bench_measure_interleaved(const bench_options *o, const bench_job *jobs, size_t njobs, bench_measurement *out)
{
    static double samples[MAX_JOBS][MAX_REPS], wall_samples[MAX_JOBS][MAX_REPS];
    uint64_t first[MAX_JOBS];
    bench_counters sum[MAX_JOBS];
    unsigned reps = o->reps < 1 ? 1 : (o->reps > MAX_REPS ? MAX_REPS : o->reps);
    if (njobs > MAX_JOBS) njobs = MAX_JOBS;
    /* warm-up: page faults, caches, branch predictors */
    for (size_t j = 0; j < njobs; j++) {
        first[j] = jobs[j].fn(jobs[j].ctx);
        out[j] = (bench_measurement){.counts_agree = true, .count = first[j]};
        sum[j] = (bench_counters){0, 0, 0, 0, 0};
    }
    for (unsigned r = 0; r < reps; r++) {
        for (size_t j = 0; j < njobs; j++) {
            bench_evict(jobs[j].cold, jobs[j].cold_bytes);
            if (o->perf) bench_perf_start();
            bool wall = jobs[j].wall_clock || o->wall_clock;
            double w0 = bench_now_ns();
            double t0 = wall ? w0 : bench_clock_ns(o);
            uint64_t c = jobs[j].fn(jobs[j].ctx);
            double t1 = wall ? bench_now_ns() : bench_clock_ns(o);
            double w1 = bench_now_ns();
            wall_samples[j][r] = (w1 - w0) / (jobs[j].keys > 0 ? jobs[j].keys : 1);
            if (o->perf) {
                bench_counters p = bench_perf_stop(jobs[j].keys);
                sum[j].cycles += p.cycles / reps;
                sum[j].instructions += p.instructions / reps;
                sum[j].l1d_misses += p.l1d_misses / reps;
                sum[j].llc_misses += p.llc_misses / reps;
                sum[j].dtlb_misses += p.dtlb_misses / reps;
            }
            samples[j][r] = (t1 - t0) / (jobs[j].keys > 0 ? jobs[j].keys : 1);
            if (c != first[j]) out[j].counts_agree = false;
            out[j].count = c;
        }
    }
    for (size_t j = 0; j < njobs; j++) {
        out[j].ns = bench_summarize(samples[j], reps);
        out[j].wall_ns = bench_summarize(wall_samples[j], reps);
        /* a counter that was unavailable reads -1 every time: keep it negative */
        out[j].perf = o->perf ? sum[j] : (bench_counters){-1, -1, -1, -1, -1};
    }
}

bench_measurement bench_measure(const bench_options *o, bench_fn fn, void *ctx, double keys)
{
    bench_job job = {.fn = fn, .ctx = ctx, .keys = keys, .wall_clock = false};
    bench_measurement m;
    bench_measure_interleaved(o, &job, 1, &m);
    return m;
}

void bench_progress(const bench_options *o, const char *fmt, ...)
{
    /* On a terminal, one line rewritten in place; into a file or a pipe (a CI
     * log), at most one line per 10 s, so that a run of a few minutes leaves
     * a few dozen lines, not one per step. */
    if (o->quiet) return;
    static int tty = -1;
    static double last = -1e9;
    if (tty < 0) tty = isatty(STDERR_FILENO);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (!tty && now - last < 10) return;
    last = now;
    va_list ap;
    va_start(ap, fmt);
    fputs(tty ? "\r\033[K[bench] " : "[bench] ", stderr);
    vfprintf(stderr, fmt, ap);
    if (!tty) fputc('\n', stderr);
    va_end(ap);
}

void bench_progress_done(const bench_options *o)
{
    if (!o->quiet && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
}
