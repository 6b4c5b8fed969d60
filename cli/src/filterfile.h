/*
 * filterfile.h — filter files: open, diagnose, save, with messages that say
 * what went wrong and what to do. Files are in the library's format
 * (docs/FORMAT.md); saves are the library's atomic bloomsimd_save.
 */
#ifndef BLOOMSIMD_CLI_FILTERFILE_H
#define BLOOMSIMD_CLI_FILTERFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

typedef enum ff_mode {
    FF_MAP_READ,     /* zero-copy read-only mapping (query, info, check, merge inputs) */
    FF_MAP_WRITE,    /* writable mapping, inserts go to the file (dedup --state) */
    FF_LOAD,         /* private heap copy, saved atomically later (add, merge) */
} ff_mode;

/* Opens a filter file; on failure prints why (with a hint) and returns
 * false. accept_unsynced: take a file whose writer was killed before it
 * synced (its payload checksum is stale). */
bool ff_open(const char *path, ff_mode mode, bool accept_unsynced, bloomsimd_filter **out);
/* Prints the message for a failed open/map/load of `path`. */
void ff_report_open_error(const char *path, bloomsimd_status st, int err);
/* Atomic save with the stop signals held off; prints on failure. */
bool ff_save(const bloomsimd_filter *f, const char *path);
/* True if another process holds the file's writer lock (a running
 * `dedup --state`): saving over it would discard that writer's inserts. */
bool ff_locked_by_writer(const char *path);

/* A new heap filter from the size options (defaults for what they leave
 * out); prints why on failure. */
bool ff_create(const cli_size_options *s, uint64_t default_capacity, double default_fpr, bloomsimd_filter **out);

/* The fixed header, read directly (docs/FORMAT.md: a documented format). */
typedef struct ff_header {
    bool magic_ok;
    uint32_t format_version, layout_id, hash_id, state_flags, filter_flags;
    uint64_t file_bytes;
} ff_header;
bool ff_read_header(const char *path, ff_header *h);

#endif
