/*
 * bench.h — what the parts of bloomsimd-bench share: options, the result
 * record, and the small helpers each part exports.
 *
 * The bench is a program, not a test: it measures, checks that the measured
 * work was real (no false negatives, counts consumed), and reports. It links
 * the static library and reads internal headers only to reproduce the exact
 * block-index computation (the ceiling) and to compare filter bytes.
 */
#ifndef BLOOMSIMD_BENCH_H
#define BLOOMSIMD_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_KERNELS 16
#define BENCH_MAX_SIZES 16

/* ---- options (cli.c) ------------------------------------------------------ */
typedef struct bench_options {
    const char *kernels[BENCH_MAX_KERNELS]; /* chosen kernels; empty = all supported */
    size_t nkernels;
    bool kernels_given;
    bool emulated;        /* also run emulated kernels (neon via SIMDe on x86) */
    uint64_t sizes[BENCH_MAX_SIZES];
    size_t nsizes;
    bool sizes_given;
    double bits_per_key;  /* used when fpr == 0 */
    double fpr;           /* > 0: size filters by the layout model for this target */
    uint32_t k;           /* 0 = the library's choice */
    uint32_t layout;      /* --layout: BLOOMSIMD_LAYOUT_*, 0 = each kernel's default */
    size_t batch;         /* keys per batch call */
    unsigned reps;        /* measured repetitions (after one warm-up) */
    uint64_t queries;     /* keys per measured repetition */
    unsigned max_threads; /* multi-thread rows: 1..max_threads */
    bool threads;         /* run the multi-thread rows */
    bool refs;            /* ceiling, classic, libbloom rows */
    bool libbloom;
    bool layout_rows; /* every kernel on both layouts (layout_rows.c) */
    bool perf;
    bool pin;
    bool quiet;           /* no progress on stderr */
    bool wall_clock;      /* time single-thread phases by wall clock, not thread CPU time */
    bool long_output;     /* also list every measurement with min, max and Mkeys/s */
    bool fpr_sweep;       /* measured FPR vs bits/key (also implied by --plot) */
    unsigned paired_rounds; /* --paired N (default 1000): lookup/ceiling round by round at the largest size; 0 = off */
    double peer_fprs[4];  /* --peer-fpr: targets of the paired comparison with the split-block peer */
    size_t npeer_fprs;
    unsigned peer_rounds; /* --peer-rounds N (default 100): rounds per operation; 0 = off */
    const char *csv_path;
    const char *json_path;
    const char *plot_dir;
    bool plot_default;    /* the plot goes into out_dir because gnuplot is there, not because --plot asked */
    bool verbose;         /* --verbose: every table on stdout, not only the summary */
    bool quick;           /* --quick: a first taste, under half a minute */
    const char *out_dir;  /* report.txt, results.csv, results.json (and charts) go here */
    uint64_t seed;
    /* --phase: run one small phase only (for cachegrind.sh) */
    const char *phase;    /* NULL, "lookup" or "insert" */
    unsigned present_pct; /* share of present keys in --phase lookup queries */
} bench_options;

/* Fills defaults, parses argv. Returns 0 to run, 1 when --help was printed,
 * -1 on a usage error (message already printed). */
int bench_parse_options(bench_options *o, int argc, char **argv);

/* ---- timing and statistics (stats.c) ----------------------------------------- */
double bench_now_ns(void);
/* The clock single-thread phases are timed with: the calling thread's CPU
 * time (default: time the scheduler gives to other processes on a shared
 * machine is not charged to the bench), or wall time with --clock wall. */
double bench_clock_ns(const struct bench_options *o);
typedef struct bench_stats {
    double median, min, max; /* ns per key */
    unsigned reps;
} bench_stats;
/* Median/min/max of reps samples (sorted in place). */
bench_stats bench_summarize(double *samples, unsigned reps);

/* Hardware counters per key (--perf); negative when unavailable. */
typedef struct bench_counters {
    double cycles, instructions, l1d_misses, llc_misses, dtlb_misses;
} bench_counters;

/* One measured operation: processes `keys` keys and returns a count that
 * depends on the work (hits, a checksum), so the compiler cannot drop it. */
typedef uint64_t (*bench_fn)(void *ctx);
typedef struct bench_measurement {
    bench_stats ns;       /* ns per key */
    bench_stats wall_ns;  /* ns per key by wall clock, whatever the clock of ns */
    uint64_t count;       /* what the last repetition returned */
    bool counts_agree;    /* every repetition returned the same count */
    bench_counters perf;
} bench_measurement;
/* One warm-up call, then reps timed calls (counters around the timed ones). */
bench_measurement bench_measure(const struct bench_options *o, bench_fn fn, void *ctx, double keys);
/* The same for several implementations of one operation, interleaved: each
 * repetition times every job once, in turn, so that the noise of a shared
 * machine hits all of them alike and their ratios stay meaningful. */
typedef struct bench_job {
    bench_fn fn;
    void *ctx;
    double keys;
    bool wall_clock; /* always wall time (multi-thread jobs) */
    /* Memory flushed from every cache level before each timed call (not
     * timed): the job's input keys, so that they stream from DRAM as a
     * column scan's do, instead of from whichever cache the previous job or
     * repetition left them in. NULL: nothing flushed. */
    const void *cold;
    size_t cold_bytes;
} bench_job;
/* Flushes [p, p + bytes) from every cache level (clflush on x86, dc civac on
 * AArch64; elsewhere a no-op). */
void bench_evict(const void *p, size_t bytes);
void bench_measure_interleaved(const struct bench_options *o, const bench_job *jobs, size_t njobs,
                               bench_measurement *out);

/* ---- machine (sysinfo.c) ------------------------------------------------------ */
typedef struct bench_machine {
    char cpu_model[128];
    char cpu_flags[256];  /* the SIMD-relevant subset of /proc/cpuinfo flags */
    unsigned ncpus;
    uint64_t mem_available; /* bytes, from /proc/meminfo (0 if unknown) */
    uint64_t cache_bytes[4]; /* L1D, L2, L3 per level (index 1..3), 0 if unknown */
    bool caches_from_cpuid;  /* /sys had no cache sizes: sysconf (CPUID) gave them */
    int pinned_cpu;       /* -1 if not pinned */
    char thp[32];         /* transparent hugepage mode */
} bench_machine;
void bench_machine_probe(bench_machine *m);
/* Pins the calling thread to `cpu`; false if not allowed. */
bool bench_pin_thread(int cpu);
/* Fraction of the memory area containing addr backed by transparent huge
 * pages (AnonHugePages / size in /proc/self/smaps; adjacent anonymous
 * mappings share one area); -1 if unknown. */
double bench_huge_page_fraction(const void *addr);
/* "L1", "L2", "L3" or "DRAM": the smallest cache level holding `bytes`. */
const char *bench_residency(const bench_machine *m, uint64_t bytes);

/* ---- workloads (workload.c) --------------------------------------------------- */
/* n distinct keys of stream `stream` (streams never overlap). NULL on ENOMEM. */
uint64_t *bench_keys(size_t n, uint64_t seed, uint64_t stream);
/* q queries: each present (drawn from inserted[0..n)) with probability
 * pct/100, else absent (drawn from `absent`, q of them); deterministic. */
uint64_t *bench_mixed_queries(const uint64_t *inserted, size_t n, const uint64_t *absent, size_t q, unsigned pct,
                              uint64_t seed);
/* Byte keys of length len derived from keys (distinct keys give distinct
 * byte keys): one contiguous buffer, plus pointer and length arrays. */
typedef struct bench_byte_keys {
    unsigned char *data;
    const void **ptrs;
    size_t *lens;
    size_t n;
} bench_byte_keys;
bool bench_byte_keys_make(bench_byte_keys *b, const uint64_t *keys, size_t n, size_t len);
void bench_byte_keys_free(bench_byte_keys *b);

/* ---- results (results.c) ------------------------------------------------------ */
typedef struct bench_result {
    char section[24];     /* "kernel", "ceiling", "reference", "threads", "fpr", "persist" */
    char impl[32];        /* kernel name, "ceiling", "classic", "libbloom", ... */
    char op[32];          /* "insert", "lookup0", "lookup50", "lookup100", "single", "hash", ... */
    uint64_t keys;        /* filter size (keys inserted) */
    unsigned threads;
    bench_stats ns;       /* ns/key */
    double ratio;         /* to the ceiling (0 if n/a) */
    double value;         /* extra metric: FPR, GB/s, speed-up (op-specific, 0 if n/a) */
    double x;             /* sweep abscissa (bits/key in the FPR sweep), else 0 */
    char note[128];
    bench_counters perf;  /* --perf, per key; negative = unavailable */
} bench_result;

bench_result *bench_result_add(const char *section, const char *impl, const char *op, uint64_t keys,
                               unsigned threads, bench_stats ns);
size_t bench_result_count(void);
bench_result *bench_result_get(size_t i);
/* The result for (section, impl, op, keys, threads), or NULL. */
bench_result *bench_result_find(const char *section, const char *impl, const char *op, uint64_t keys,
                                unsigned threads);
/* The flags of this run's inline single-key rows ("-mavx2", from their
 * notes: "... built with -mavx2; ..."), or NULL if none ran. */
const char *bench_result_inline_flags(void);
bool bench_write_csv(const char *path);
bool bench_write_json(const char *path, const bench_machine *m, const bench_options *o);

/* ---- perf counters (perf_counters.c) ------------------------------------------ */
/* Opens the counters once; false (with a one-time note on stderr) if the
 * machine has none. */
bool bench_perf_open(void);
void bench_perf_start(void);
/* Stops and returns counts divided by keys (all -1 when unavailable). */
bench_counters bench_perf_stop(double keys);
void bench_perf_close(void);

/* ---- progress ---------------------------------------------------------------- */
void bench_progress(const bench_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clears the progress line on a terminal before the summary is printed. */
void bench_progress_done(const bench_options *o);

#endif
