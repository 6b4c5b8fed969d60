/*
 * cmd_add.c — `bloomsimd add FILE [INPUT...]`: insert records.
 *
 * The filter is loaded into memory, the inputs are inserted batch by batch,
 * and the file is replaced atomically at the end: an error or an interrupt
 * leaves FILE exactly as it was.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "filterfile.h"
#include "keys.h"
#include "progress.h"


static void help(void)
{
    printf("Usage: bloomsimd add FILE [OPTION]... [INPUT]...\n"
           "Insert each record of the INPUTs (default: standard input; '-' is standard input)\n"
           "into the filter FILE. FILE is replaced atomically when all input is read; on an\n"
           "error or an interrupt it is left unchanged.\n\n"
           "%s"
           "Other:\n"
           "      --accept-unsynced  use a FILE whose writer was killed before syncing\n"
           "  -h, --help             this help\n\n"
           "Exit status: 0 inserted, 2 error.\n"
           "Example: zcat urls.gz | bloomsimd add crawled.bsf\n",
           cli_record_help);
}

/* After an add: past capacity, the FPR is above target. Said once, at the end. */
static void warn_if_over_capacity(const bloomsimd_filter *f, const char *path)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    /* A scalable filter's capacity is its first layer's: past it the filter grows
     * and its layers tighten to keep the whole chain at its FPR (an add that
     * cannot grow fails instead). */
    if (!info.capacity || info.growth) return;
    double keys = bloomsimd_estimate_count(f);
    /* 2% above: the estimate's own noise at capacity is far below that, so a
     * filter filled to exactly its capacity does not warn. */
    if (!(keys > 1.02 * (double)info.capacity)) return;
    if (bloomsimd_fill_ratio(f) >= 1.0) {
        cli_warn("%s is saturated (every bit set): every query now answers 'maybe present'", path);
        return;
    }
    cli_warn("%s holds about %.0f distinct keys, more than its capacity %llu: predicted false-positive rate %.3g "
             "(target %g); recreate it with a larger --capacity",
             path, keys, (unsigned long long)info.capacity, bloomsimd_predicted_fpr(f, (uint64_t)keys), info.fpr);
}

int cmd_add(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_RECORD_LONGOPTS,
                                             {"accept-unsynced", no_argument, NULL, 'A'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_record_options ro;
    cli_record_options_init(&ro);
    bool accept_unsynced = false;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" CLI_RECORD_SHORTOPTS "h", longopts, NULL)) != -1) {
        int r = cli_record_option(&ro, c, optarg);
        if (r < 0) return CLI_ERROR;
        if (r > 0) continue;
        switch (c) {
        case 'A': accept_unsynced = true; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (!cli_record_options_check(&ro)) return CLI_ERROR;
    if (optind == argc) return cli_usage_error("missing FILE");
    const char *path = argv[optind++];
    if (ff_locked_by_writer(path)) {
        cli_error("%s: in use by a writer (a running 'bloomsimd dedup --state'?): adding now would lose its "
                  "inserts; stop it first",
                  path);
        return CLI_ERROR;
    }
    bloomsimd_filter *f;
    if (!ff_open(path, FF_LOAD, accept_unsynced, &f)) return CLI_ERROR;

    rec_reader r;
    rec_batch b;
    int status = CLI_ERROR;
    if (!records_open(&r, argv + optind, (size_t)(argc - optind), ro.terminator, ro.threads)) goto out_filter;
    if (!rec_batch_init(&b)) goto out_reader;
    progress pg;
    progress_init(&pg, ro.quiet, ro.progress, false, r.total_bytes);
    long n;
    bool ok = true;
    while ((n = records_next(&r, &b)) > 0) {
        if (!keys_extract(&ro, &b)) {
            ok = false;
            break;
        }
        bloomsimd_status st = keys_add(f, &ro, &b);
        if (st != BLOOMSIMD_OK) {
            cli_error("%s: %s", path, cli_status_text(st));
            ok = false;
            break;
        }
        progress_update(&pg, r.records, r.bytes);
    }
    progress_done(&pg, r.records, r.bytes);
    if (ok && !r.failed) {
        if (!ro.quiet) warn_if_over_capacity(f, path);
        if (ff_save(f, path)) status = CLI_OK;
    } else {
        cli_error("%s: not changed", path);
    }
    rec_batch_free(&b);
out_reader:
    records_close(&r);
out_filter:
    bloomsimd_destroy(f);
    return status;
}
