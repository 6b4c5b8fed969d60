/*
 * run.h — the phases of a bench run: one filter size across kernels and
 * references, the multi-thread rows, the persistence/set-operation rows, the
 * FPR sweep, and the single-phase mode used by cachegrind.sh.
 */
#ifndef BLOOMSIMD_BENCH_RUN_H
#define BLOOMSIMD_BENCH_RUN_H

#include <bloomsimd.h>

#include <stdio.h>

#include "bench.h"

/* Keys of one filter size, shared by every phase at that size. */
typedef struct bench_workload {
    uint64_t n;
    uint64_t *inserted; /* n keys, stream 1 */
    uint64_t *absent;   /* q keys never inserted, stream 2 */
    uint64_t *half;     /* q queries, 50% present */
    uint64_t *present;  /* q queries, 100% present */
    uint64_t *one;      /* q queries, 1% present */
    size_t q;
} bench_workload;

bool bench_workload_make(bench_workload *w, const bench_options *o, uint64_t n);
void bench_workload_free(bench_workload *w);

/* Options for a filter of n keys as the run is configured. */
bloomsimd_options bench_filter_options(const bench_options *o, uint64_t n, const char *kernel, uint32_t flags);

/* Counts a failed correctness check (printed on stderr); main exits 2 if any. */
void bench_check_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned bench_check_failures(void);

/* Every kernel and reference at size w->n. Returns the index in kernels[] of
 * the fastest batched negative lookup, or -1. Runs `after` (threads,
 * persistence) with the best kernel's filled filter while it is alive. */
typedef void (*bench_after_fn)(const bench_options *o, const bench_machine *m, const char *kernel,
                               bloomsimd_filter *filled, const bench_workload *w);
int bench_run_size(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nkernels,
                   const bench_workload *w, bench_after_fn after, uint64_t largest);

/* layout_rows.c: every (non-emulated) kernel on both layouts at one size,
 * batched and single-key lookups and inserts; skipped when --layout pins one */
void bench_layout_rows(const bench_options *o, const char *const *kernels, size_t nk, const bench_workload *w);
void bench_print_layouts(const bench_options *o, const char *const *kernels, size_t nk);

/* forms_rows.c: insert-and-report-new and the hit forms for one
 * kernel's filled filter, one interleaved group of jobs; out and indices
 * hold o->batch entries */
void bench_forms_rows(const bench_options *o, const char *kernel, bloomsimd_filter *f, const bench_workload *w,
                      uint8_t *out, uint32_t *indices);
void bench_print_forms(uint64_t n, const char *const *kernels, size_t nk);

/* string_rows.c: byte keys through bloomsimd_keys views for one
 * kernel's filter, one interleaved group; at 10^5 and 10^8 keys (or the
 * largest size of a run without those) */
bool bench_string_rows_wanted(const bench_options *o, uint64_t n, uint64_t largest);
void bench_string_rows(const bench_options *o, const char *kernel, bloomsimd_filter *f, const bench_workload *w,
                       uint8_t *out, uint64_t *hashes);
void bench_print_strings(uint64_t n, const char *const *kernels, size_t nk);
/* ns/key of job kind a / kind b ("offsets", "pointers", "hash", "xxh", "xxh+probe", or "u64" for b) at
 * width (0 = mixed 8..64 bytes); 0 when not measured */
double bench_string_ratio(const char *kernel, unsigned width, const char *a, const char *b, uint64_t n);

/* layered_rows.c: scalable and window filters at the largest size */
void bench_layered_rows(const bench_options *o, const bench_workload *w);
/* parquet_rows.c: BLOOMSIMD_PARQUET filters at 10^5 and 10^7 keys (when the run has them),
 * batched against one value at a time with libxxhash's XXH64 */
void bench_parquet_rows(const bench_options *o, const bench_workload *w);
void bench_print_parquet(const bench_options *o);
void bench_print_layered(const bench_options *o);
/* scalable / fixed: look0% time ratio, bits/key ratio, measured FPR; false if not run */
bool bench_layered_figures(uint64_t *n, double *target, double *lookup_ratio, double *bits_ratio, double *fpr);

/* threads.c */
void bench_thread_rows(const bench_options *o, const bench_machine *m, const char *kernel, bloomsimd_filter *filled,
                       const bench_workload *w);
/* persist_rows.c */
void bench_persist_rows(const bench_options *o, const bench_machine *m, const char *kernel, bloomsimd_filter *filled,
                        const bench_workload *w);
/* fpr_sweep.c: measured FPR vs bits/key, library and classic, against models */
void bench_fpr_sweep(const bench_options *o, const char *kernel);
/* phase.c: one phase for cachegrind; prints "phase ... count=N" */
int bench_run_phase(const bench_options *o);

/* paired.c: --paired N, the lookup/ceiling ratio round by round (largest size) */
void bench_paired_rounds(const bench_options *o, const char *kernel, bloomsimd_filter *filled,
                         const bench_workload *w);
void bench_print_paired(const bench_options *o);
/* the lookup / ceiling figures of those rounds for the verdict; false if they did not run */
bool bench_paired_figures(uint64_t *n, double *quiet, double *p10, double *median, double *p90);

/* peer_rounds.c: every kernel against the split-block peer at --peer-fpr
 * targets, paired rounds (run per size, printed once at the end) */
void bench_peer_rounds(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nk,
                       const bench_workload *w);
void bench_print_peer_rounds(const bench_options *o, const char *const *kernels, size_t nk);
/* One paired ratio (section "vs-peer" or "vs-ceiling", op "lookup0" or
 * "insert") at size n and target FPR: false if it was not measured. */
bool bench_peer_ratio(const char *section, const char *kernel, const char *op, uint64_t n, double target,
                      double *quiet, double *p10, double *median, double *p90);

/* table.c */
/* "10^8" for powers of ten from 1000 up, else the plain number */
void bench_format_keys(char *buf, size_t cap, uint64_t n);
void bench_print_header(const bench_options *o, const bench_machine *m, const char *const *kernels, size_t nkernels);
void bench_print_size(const bench_options *o, const bench_machine *m, uint64_t n, const char *const *kernels,
                      size_t nkernels, int best);
void bench_print_threads(const bench_options *o);
void bench_print_fpr(const bench_options *o);
/* verdict.c: the non-emulated kernel with the fastest batched negative
 * lookup at n keys, or NULL. */
const char *bench_fastest_kernel(const char *const *kernels, size_t nk, uint64_t n);
/* summary.c: the one-screen summary (stdout); folder = where report.txt and
 * the data went; wrote_plot = the size chart is there. */
void bench_print_screen(FILE *out, const bench_options *o, const bench_machine *m, const char *const *kernels,
                        size_t nk, const uint64_t *sizes, size_t nsizes, const char *folder, bool wrote_plot);
void bench_print_summary(const bench_options *o, const char *const *kernels, size_t nkernels,
                         const uint64_t *sizes, size_t nsizes);

/* plot.c */
bool bench_plot_available(void);
bool bench_plot(const bench_options *o, const char *const *kernels, size_t nkernels, const uint64_t *sizes,
                size_t nsizes);

#endif
