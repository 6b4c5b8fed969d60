/*
 * cmd_dedup.c — `bloomsimd dedup [INPUT...]`: print each record the first
 * time it is seen, in input order, in bounded memory (a uniq for unsorted
 * input). A repeat is always dropped; a new record is dropped only when it
 * is a false positive of the filter (probability at most the FPR).
 *
 * With --state FILE the filter lives in a writable mapping of FILE, so what
 * was seen persists across runs. FILE is synced (checksum rewritten, pages
 * flushed) at the end, every --sync-interval seconds, and on SIGINT, SIGTERM
 * and SIGHUP, which end the run after the current batch: the records of that
 * batch are written out before the sync, so every key in a synced state
 * file was also passed to the output. A closed output pipe also syncs, then
 * ends the process by SIGPIPE like any other filter in a pipeline.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "filterfile.h"
#include "keys.h"
#include "out.h"
#include "progress.h"

/* Without --capacity: enough for most files, and a false positive (a unique
 * record dropped) about once per million records. */
#define DEFAULT_CAPACITY UINT64_C(10000000)
#define DEFAULT_FPR 1e-6

/* Megabytes of a plain filter for capacity at fpr (NAN if it cannot be sized). */
static double filter_mb(uint64_t capacity, double fpr)
{
    bloomsimd_options o = {.capacity = capacity, .fpr = fpr};
    bloomsimd_sizing s;
    return bloomsimd_size_for(&o, &s) == BLOOMSIMD_OK ? (double)s.memory_bytes / 1e6 : NAN;
}

/* The help's lines on the sizes of the defaults, or why they cannot be given
 * (sizing fails when BLOOMSIMD_KERNEL names a kernel this CPU cannot run:
 * the layout, and so the size, depends on the kernel). */
static const char *sizes_text(char *buf, size_t cap)
{
    double big = filter_mb(DEFAULT_CAPACITY, DEFAULT_FPR), small = filter_mb(100000, DEFAULT_FPR);
    if (isnan(big) || isnan(small))
        snprintf(buf, cap, "  The sizes of the defaults are unknown here: %s.\n", bloomsimd_last_error());
    else
        snprintf(buf, cap,
                 "  The defaults make a %.1f MB filter. A new state FILE has its full size from the\n"
                 "  first run: size it for the most records it will hold (--capacity 100k: %.2f MB).\n",
                 big, small);
    return buf;
}

static void help(void)
{
    char sizes[512];
    printf("Usage: bloomsimd dedup [OPTION]... [INPUT]...\n"
           "Print each record of the INPUTs (default: standard input) the first time it is\n"
           "seen, in input order, like awk '!seen[$0]++' but in fixed memory. A new record is\n"
           "dropped with probability at most the filter's false-positive rate (--fpr).\n\n"
           "State:\n"
           "  -S, --state FILE       remember what was seen in FILE across runs (created with the\n"
           "                         size options below if missing; kept in sync on exit and on\n"
           "                         SIGINT/SIGTERM/SIGHUP)\n"
           "      --sync-interval S  also sync FILE every S seconds (default: only at the end)\n"
           "      --accept-unsynced  use a state FILE whose writer was killed before syncing\n"
           "Size (of the filter, or of a new state FILE; an existing FILE keeps its own):\n"
           "  -n, --capacity N       distinct records it is sized for (default 10M; 1e5, 100k)\n"
           "  -p, --fpr P            false-positive rate at capacity (default 1e-6), from 1e-10,\n"
           "                         below 1\n"
           "  -g, --growth G         grow by factor G (>= 2) past capacity (scalable filter);\n"
           "                         not with a new state FILE, which is mapped and cannot grow\n"
           "  -s, --seed S           hash seed (default 0); filters merge only with equal seeds\n"
           "  -k, --k K              bits set per key, 1..16 (default: the k that needs the least memory)\n"
           "  -b, --bits B           explicit size in bits instead of --capacity/--fpr sizing\n"
           "      --layout L         block512 or split256; default: the layout of the kernel in use\n"
           "      --u64-hash H       hash of --u64 keys: xxh3 (the default) or mum; other records\n"
           "                         hash with XXH3 either way\n"
           "%s"
           "Output:\n"
           "      --repeats          print the records seen before instead of the new ones\n"
           "%s"
           "Other:\n"
           "  -h, --help             this help\n\n"
           "Exit status: 0 if a record was printed, 1 if none, 2 on error (as grep).\n"
           "Example: tail -F app.log | bloomsimd dedup --state shipped.bsf --capacity 100M | ship\n",
           sizes_text(sizes, sizeof sizes), cli_record_help);
}

static bloomsimd_filter *state_filter; /* for the SIGPIPE path's cleanup */
static const char *state_path;
static bool state_sync_failed;

static bool sync_state(void)
{
    if (!state_filter) return true;
    bloomsimd_status st = bloomsimd_sync(state_filter);
    if (st == BLOOMSIMD_OK) return true;
    cli_error("%s: sync failed: %s%s", state_path, cli_status_text(st),
              st == BLOOMSIMD_ERR_IO ? " (the file keeps its last synced state)" : "");
    state_sync_failed = true;
    return false;
}

static void close_state(void)
{
    if (!state_filter) return;
    sync_state();
    bloomsimd_destroy(state_filter);
    state_filter = NULL;
}

static bool size_options_given(const cli_size_options *s)
{
    return s->have_capacity || s->have_fpr || s->have_growth || s->have_seed || s->k || s->bits || s->layout ||
           s->u64_hash;
}

/* Opens (or creates, then opens) the state file as a writable mapping. */
static bool open_state(const char *path, const cli_size_options *size, bool accept_unsynced, bool quiet,
                       bloomsimd_filter **f)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (size_options_given(size) && !quiet)
            cli_warn("%s exists: its own size, seed and hash are used, the size options are ignored", path);
    } else {
        if (size->have_growth) {
            /* The state is a writable mapping of FILE, which cannot grow: refuse now,
             * not at the first record past capacity. */
            cli_usage_error("--growth: a new --state FILE is mapped and cannot grow; give --capacity for the "
                            "most records it will hold");
            return false;
        }
        bloomsimd_filter *fresh;
        if (!ff_create(size, DEFAULT_CAPACITY, DEFAULT_FPR, &fresh)) return false;
        if (!quiet) {
            /* A state file outlives the run and keeps its size: say what it got and,
             * when the defaults chose, how to choose instead. */
            bloomsimd_info info;
            bloomsimd_get_info(fresh, &info);
            double mb = (double)info.bits / 8 / 1e6;
            cli_note("%s: new state file, %.*f MB for %llu distinct records at FPR %g%s", path, mb < 1 ? 3 : 1, mb,
                     (unsigned long long)info.capacity, info.fpr,
                     size->have_capacity || size->bits ? ""
                                                       : " (dedup's default size; the file cannot grow: "
                                                         "--capacity N sizes it for N records)");
        }
        bool saved = ff_save(fresh, path);
        bloomsimd_destroy(fresh);
        if (!saved) return false;
    }
    return ff_open(path, FF_MAP_WRITE, accept_unsynced, f);
}

int cmd_dedup(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_RECORD_LONGOPTS,
                                             CLI_SIZE_LONGOPTS,
                                             {"state", required_argument, NULL, 'S'},
                                             {"sync-interval", required_argument, NULL, 'I'},
                                             {"accept-unsynced", no_argument, NULL, 'A'},
                                             {"repeats", no_argument, NULL, 'R'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_record_options ro;
    cli_size_options size;
    cli_record_options_init(&ro);
    cli_size_options_init(&size);
    const char *path = NULL;
    bool accept_unsynced = false, repeats = false;
    double sync_interval = 0;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" CLI_RECORD_SHORTOPTS CLI_SIZE_SHORTOPTS "S:h", longopts, NULL)) != -1) {
        int r = cli_record_option(&ro, c, optarg);
        if (r == 0) r = cli_size_option(&size, c, optarg);
        if (r < 0) return CLI_ERROR;
        if (r > 0) continue;
        switch (c) {
        case 'S': path = optarg; break;
        case 'I':
            if (!cli_parse_fraction("--sync-interval", optarg, 0.001, 1e9, &sync_interval)) return CLI_ERROR;
            break;
        case 'A': accept_unsynced = true; break;
        case 'R': repeats = true; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (!cli_record_options_check(&ro)) return CLI_ERROR;
    if (!path && (accept_unsynced || sync_interval > 0))
        return cli_usage_error("--accept-unsynced and --sync-interval need --state FILE");

    bloomsimd_filter *f;
    if (path) {
        /* Caught from here on: a signal while the state opens ends the run
         * before the first batch, after the sync. */
        cli_catch_stop_signals();
        if (!open_state(path, &size, accept_unsynced, ro.quiet, &f)) {
            if (cli_stop_signal) cli_die_of_signal(cli_stop_signal);
            return CLI_ERROR;
        }
        state_filter = f;
        state_path = path;
    } else if (!ff_create(&size, DEFAULT_CAPACITY, DEFAULT_FPR, &f)) {
        return CLI_ERROR;
    }
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    /* Keys already in a state file count towards its capacity. */
    double known = path ? bloomsimd_estimate_count(f) : 0.0;
    uint64_t items = isfinite(known) ? (uint64_t)known : UINT64_MAX;
    bool warned = false;

    int status = CLI_ERROR;
    rec_reader r;
    rec_batch b;
    out_writer out;
    if (!records_open(&r, argv + optind, (size_t)(argc - optind), ro.terminator, ro.threads)) goto out_filter;
    if (!rec_batch_init(&b)) goto out_reader;
    if (!out_init(&out, 1)) goto out_batch;
    progress pg;
    progress_init(&pg, ro.quiet, ro.progress, true, r.total_bytes);
    double last_sync = progress_now();
    uint64_t printed = 0;
    bool ok = true;
    long n;
    while (!cli_stop_signal && (n = records_next(&r, &b)) > 0) {
        if (!keys_extract(&ro, &b)) {
            ok = false;
            break;
        }
        size_t fresh;
        bloomsimd_status st = keys_add_new(f, &ro, &b, &fresh);
        if (st != BLOOMSIMD_OK) {
            /* A scalable filter that could not grow: the keys before the one that
             * needed the new layer were inserted and are reported; pass them on. */
            if (fresh) out_records(&out, &b, b.hit, 1, ro.terminator);
            cli_error("%s: %s (%s); stopped after the records printed so far", path ? path : "the filter",
                      st == BLOOMSIMD_ERR_NO_MEMORY || st == BLOOMSIMD_ERR_TOO_LARGE ? "cannot grow the filter"
                                                                                     : "cannot insert",
                      cli_status_text(st));
            ok = false;
            break;
        }
        printed += repeats ? b.n - fresh : fresh;
        items = items > UINT64_MAX - fresh ? UINT64_MAX : items + fresh;
        /* (a scalable filter grows past its first layer's capacity instead) */
        if (!warned && info.capacity && !info.growth && items > info.capacity && !ro.quiet) {
            warned = true;
            cli_warn("more than %llu distinct records, the filter's capacity: the false-positive rate is now "
                     "about %.3g (target %g) and rises; new records may be dropped as repeats. Use a larger "
                     "--capacity%s",
                     (unsigned long long)info.capacity, bloomsimd_predicted_fpr(f, items), info.fpr,
                     path ? " (a new state file)" : "");
        }
        if (!out_records(&out, &b, b.hit, repeats ? 0 : 1, ro.terminator)) break;
        if (r.short_read && !out_flush(&out)) break; /* a slow pipe: pass records on now */
        progress_update(&pg, r.records, r.bytes);
        if (sync_interval > 0 && progress_now() - last_sync >= sync_interval) {
            if (!out_flush(&out)) break; /* what the state holds has been passed on */
            if (!sync_state()) {
                ok = false;
                break;
            }
            last_sync = progress_now();
        }
    }
    progress_done(&pg, r.records, r.bytes);
    bool flushed = out_flush(&out);
    close_state();
    if (!flushed) {
        status = out_failed(&out, NULL);
    } else if (!ok || r.failed || state_sync_failed) {
        status = CLI_ERROR;
    } else {
        status = printed ? CLI_OK : CLI_NO_MATCH;
    }
    out_free(&out);
    if (cli_stop_signal) cli_die_of_signal(cli_stop_signal);
out_batch:
    rec_batch_free(&b);
out_reader:
    records_close(&r);
out_filter:
    if (state_filter) close_state();
    else if (!path) bloomsimd_destroy(f);
    return status;
}
