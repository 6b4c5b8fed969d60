/*
 * progress.h — the progress line on stderr.
 *
 * Shown when stderr is a terminal (and stdout is not the same terminal, so
 * records and progress never interleave) and the run has lasted a second,
 * i.e. only for large inputs; --progress forces it (one line per second
 * when stderr is not a terminal); --quiet silences it.
 */
#ifndef BLOOMSIMD_CLI_PROGRESS_H
#define BLOOMSIMD_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    bool enabled, forced, tty, shown;
    double start, last;
    uint64_t total_bytes; /* 0 = unknown (a pipe) */
} progress;

/* writes_stdout: the command prints records (query, dedup). */
void progress_init(progress *p, bool quiet, bool forced, bool writes_stdout, uint64_t total_bytes);
/* Cheap when nothing is due: one clock read. */
void progress_update(progress *p, uint64_t records, uint64_t bytes);
/* Clears the terminal line; with --progress, ends with a line of totals. */
void progress_done(progress *p, uint64_t records, uint64_t bytes);
double progress_now(void);

#endif
