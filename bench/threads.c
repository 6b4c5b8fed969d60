/*
 * threads.c — multi-thread rows at one size, with the best kernel:
 *   - batched lookups with 1..T threads on one shared filter;
 *   - inserts: a plain filter on one thread (the only safe way without the
 *     flag: one writer) against a BLOOMSIMD_CONCURRENT filter on 1..T threads;
 *   - lookups on the concurrent filter (atomic loads) on one thread.
 * Each thread takes a disjoint slice of the same q keys, pinned to its own
 * CPU, so ns/key = time / all keys is aggregate throughput. Scaling is
 * judged on wall time, the time a user waits: a run once reported 1.87x for
 * 2 threads by per-thread CPU time while its wall time per key went from
 * 8.88 to 14.08 ns (the second thread had no core of its own). The slowest
 * thread's CPU time is reported beside it: on a machine shared with other
 * work it shows what the threads would do with free cores, and it cannot
 * tell whether they ran at the same time. All thread counts are measured
 * interleaved.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops.h"
#include "run.h"

#define MAX_THREADS 64u
#define MAX_RUNS 1001u /* warm-up + --reps <= 1000 */

typedef struct thread_job {
    bench_op_ctx slice[MAX_THREADS];
    double cpu_ns[MAX_THREADS]; /* per-thread CPU time of the last run */
    uint8_t *out[MAX_THREADS];
    bench_fn fn;
    unsigned nthreads;
    bool pin;
    unsigned ncpus;
    unsigned first_cpu; /* the calling thread's CPU: it runs slice 0 */
    double keys;        /* over all threads */
    double cpu[MAX_RUNS]; /* per run (the first is the warm-up): slowest thread's CPU ns / keys */
    unsigned runs;
} thread_job;

typedef struct thread_arg {
    thread_job *job;
    unsigned index;
    uint64_t result;
} thread_arg;

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_slice(thread_arg *a)
{
    double t0 = thread_cpu_ns();
    a->result = a->job->fn(&a->job->slice[a->index]);
    a->job->cpu_ns[a->index] = thread_cpu_ns() - t0;
}

static void *thread_main(void *p)
{
    thread_arg *a = p;
    if (a->job->pin) bench_pin_thread((int)((a->job->first_cpu + a->index) % a->job->ncpus));
    run_slice(a);
    return NULL;
}

static double slowest_thread_ns(const thread_job *job)
{
    double worst = 0;
    for (unsigned t = 0; t < job->nthreads; t++)
        if (job->cpu_ns[t] > worst) worst = job->cpu_ns[t];
    return worst;
}

static uint64_t run_threads(void *ctx)
{
    thread_job *job = ctx;
    pthread_t tid[MAX_THREADS];
    thread_arg args[MAX_THREADS];
    uint64_t total = 0;
    unsigned started = 0;
    for (unsigned t = 0; t < job->nthreads; t++) {
        args[t] = (thread_arg){job, t, 0};
        if (t == 0) continue; /* the calling thread runs slice 0 */
        if (pthread_create(&tid[t], NULL, thread_main, &args[t]) != 0) break;
        started = t;
    }
    run_slice(&args[0]);
    for (unsigned t = 1; t <= started; t++) pthread_join(tid[t], NULL);
    for (unsigned t = 0; t < job->nthreads; t++) total += args[t].result;
    if (job->runs < MAX_RUNS) job->cpu[job->runs++] = slowest_thread_ns(job) / job->keys;
    return total;
}

static bool job_init(thread_job *job, const bench_options *o, const bench_machine *m, bloomsimd_filter *f,
                     bench_fn fn, const uint64_t *keys, size_t q, unsigned nthreads)
{
    memset(job, 0, sizeof *job);
    job->fn = fn;
    job->nthreads = nthreads;
    job->pin = o->pin;
    job->ncpus = m->ncpus;
    job->first_cpu = m->pinned_cpu >= 0 ? (unsigned)m->pinned_cpu : 0;
    size_t per = q / nthreads;
    for (unsigned t = 0; t < nthreads; t++) {
        size_t from = t * per, count = t + 1 == nthreads ? q - from : per;
        job->out[t] = malloc(o->batch);
        if (!job->out[t]) return false;
        job->slice[t] = (bench_op_ctx){.filter = f, .keys = keys + from, .nkeys = count, .total = count,
                                       .batch = o->batch, .out = job->out[t]};
    }
    return true;
}

static void job_free(thread_job *job)
{
    for (unsigned t = 0; t < job->nthreads; t++) free(job->out[t]);
}

void bench_thread_rows(const bench_options *o, const bench_machine *m, const char *kernel, bloomsimd_filter *filled,
                       const bench_workload *w)
{
    unsigned T = o->max_threads ? o->max_threads : m->ncpus;
    if (T > MAX_THREADS) T = MAX_THREADS;
    const size_t q = w->q;

    bloomsimd_options opt = bench_filter_options(o, w->n, kernel, BLOOMSIMD_CONCURRENT);
    bloomsimd_filter *conc = NULL;
    bloomsimd_status st = bloomsimd_create_with(&conc, &opt);
    if (st != BLOOMSIMD_OK) {
        bench_check_failed("create concurrent %s filter: %s", kernel, bloomsimd_status_string(st));
        return;
    }
    bench_progress(o, "threads: filling a BLOOMSIMD_CONCURRENT %s filter of %llu keys", kernel,
                   (unsigned long long)w->n);
    {
        bench_op_ctx c = {.filter = conc, .keys = w->inserted, .nkeys = (size_t)w->n, .total = (size_t)w->n,
                          .batch = o->batch};
        double t0 = bench_clock_ns(o);
        bench_op_insert(&c);
        double t1 = bench_clock_ns(o);
        double ns = (t1 - t0) / (double)w->n;
        bench_result *r = bench_result_add("threads", kernel, "fill-concurrent", w->n, 1, (bench_stats){ns, ns, ns, 1});
        if (r) snprintf(r->note, sizeof r->note, "first insert of all keys, page faults included");
    }

    /* jobs: lookup x T, insert plain x 1, insert concurrent x T, lookup concurrent x 1 */
    thread_job *jobs = calloc(2 * T + 2, sizeof *jobs);
    bench_job bj[2 * MAX_THREADS + 2];
    bench_measurement res[2 * MAX_THREADS + 2];
    const char *ops[2 * MAX_THREADS + 2];
    unsigned nthreads[2 * MAX_THREADS + 2];
    size_t nj = 0;
    bool ok = jobs != NULL;
    for (unsigned t = 1; ok && t <= T; t++, nj++) {
        ok = job_init(&jobs[nj], o, m, filled, bench_op_lookup, w->absent, q, t);
        ops[nj] = "lookup0", nthreads[nj] = t;
    }
    if (ok) {
        ok = job_init(&jobs[nj], o, m, filled, bench_op_insert, w->inserted, q < w->n ? q : (size_t)w->n, 1);
        ops[nj] = "insert", nthreads[nj++] = 1;
    }
    for (unsigned t = 1; ok && t <= T; t++, nj++) {
        ok = job_init(&jobs[nj], o, m, conc, bench_op_insert, w->inserted, q < w->n ? q : (size_t)w->n, t);
        ops[nj] = "insert-concurrent", nthreads[nj] = t;
    }
    if (ok) {
        ok = job_init(&jobs[nj], o, m, conc, bench_op_lookup, w->absent, q, 1);
        ops[nj] = "lookup0-concurrent", nthreads[nj++] = 1;
    }
    if (ok) {
        for (size_t j = 0; j < nj; j++) {
            size_t keys = 0;
            for (unsigned t = 0; t < jobs[j].nthreads; t++) keys += jobs[j].slice[t].total;
            jobs[j].keys = (double)keys;
            bj[j] = (bench_job){.fn = run_threads, .ctx = &jobs[j], .keys = (double)keys, .wall_clock = true}; /* wall clock */
        }
        bench_progress(o, "threads: %zu jobs (1..%u threads), %u reps", nj, T, o->reps);
        bench_measure_interleaved(o, bj, nj, res);
        double base_lookup = res[0].ns.median, base_insert = res[T].ns.median, base_conc = res[T + 1].ns.median;
        for (size_t j = 0; j < nj; j++) {
            bench_result *r = bench_result_add("threads", kernel, ops[j], w->n, nthreads[j], res[j].ns);
            if (!r) continue;
            /* beside the wall time: the slowest thread's CPU time, warm-up excluded */
            r->x = jobs[j].runs > 1 ? bench_summarize(jobs[j].cpu + 1, jobs[j].runs - 1).median : NAN;
            r->perf = res[j].perf;
            if (strcmp(ops[j], "lookup0") == 0) {
                r->value = base_lookup / res[j].ns.median;
                snprintf(r->note, sizeof r->note, "speed-up vs 1 thread");
            } else if (strcmp(ops[j], "insert-concurrent") == 0) {
                r->value = base_conc / res[j].ns.median;
                snprintf(r->note, sizeof r->note, "speed-up vs 1 concurrent thread; %.2fx plain 1-thread time",
                         res[j].ns.median / base_insert);
            } else if (strcmp(ops[j], "lookup0-concurrent") == 0) {
                r->value = res[j].ns.median / base_lookup;
                snprintf(r->note, sizeof r->note, "time vs plain filter lookup");
            }
            if (!res[j].counts_agree)
                bench_check_failed("threads %s x%u: repetitions returned different counts", ops[j], nthreads[j]);
        }
        /* every thread split sees the same keys: the same hit count */
        for (unsigned t = 1; t < T; t++)
            if (res[t].count != res[0].count)
                bench_check_failed("threads: lookups on %u threads found %llu, on 1 thread %llu", t + 1,
                                   (unsigned long long)res[t].count, (unsigned long long)res[0].count);
        /* the concurrent filter must hold exactly the same bits */
        bench_op_ctx c = {.filter = conc, .keys = w->present, .nkeys = q, .total = q, .batch = o->batch};
        uint64_t found = bench_op_lookup(&c);
        if (found != q)
            bench_check_failed("concurrent filter: %llu of %zu present keys found", (unsigned long long)found, q);
    } else {
        fprintf(stderr, "bloomsimd-bench: threads: out of memory\n");
    }
    for (size_t j = 0; jobs && j < 2 * T + 2; j++) job_free(&jobs[j]);
    free(jobs);
    bloomsimd_destroy(conc);
}
