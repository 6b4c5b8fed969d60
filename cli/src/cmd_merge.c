/*
 * cmd_merge.c — `bloomsimd merge OUT IN...`: OUT = the union of the INs.
 *
 * The first input is loaded, the others are mapped read-only and OR-ed in
 * with the library's SIMD union, and OUT is written atomically (it may be
 * one of the inputs).
 */
#include <getopt.h>
#include <stdio.h>

#include "filterfile.h"

static void help(void)
{
    printf("Usage: bloomsimd merge [OPTION]... OUT IN...\n"
           "Write to OUT the union of the filter files IN: a key in any IN is in OUT.\n"
           "The INs must have the same geometry, seed and hash (the same create options).\n"
           "OUT is written atomically; it may be one of the INs.\n\n"
           "      --accept-unsynced  use INs whose writer was killed before syncing\n"
           "  -h, --help             this help\n\n"
           "Exit status: 0 merged, 2 error.\n"
           "Example: bloomsimd merge all.bsf monday.bsf tuesday.bsf\n");
}

/* The hash as create's options name it (a Parquet filter has its own). */
static const char *hash_name(uint32_t flags)
{
    if (flags & BLOOMSIMD_U64_MUM) return "u64-hash mum";
    if (flags & BLOOMSIMD_PARQUET) return "Parquet's hash";
    return "u64-hash xxh3";
}

static void describe(const bloomsimd_filter *f, char *buf, size_t cap)
{
    bloomsimd_info i;
    bloomsimd_get_info(f, &i);
    snprintf(buf, cap, "%llu blocks, k %u, seed %llu, %s", (unsigned long long)i.blocks, i.k,
             (unsigned long long)i.seed, hash_name(i.flags));
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"accept-unsynced", no_argument, NULL, 'A'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool accept_unsynced = false;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'A': accept_unsynced = true; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (argc - optind < 2) return cli_usage_error(optind == argc ? "missing OUT and IN" : "missing IN");
    const char *out_path = argv[optind];
    if (ff_locked_by_writer(out_path)) {
        cli_error("%s: in use by a writer (a running 'bloomsimd dedup --state'?): not replaced", out_path);
        return CLI_ERROR;
    }
    bloomsimd_filter *dst;
    if (!ff_open(argv[optind + 1], FF_LOAD, accept_unsynced, &dst)) return CLI_ERROR;
    for (int i = optind + 2; i < argc; i++) {
        bloomsimd_filter *src;
        if (!ff_open(argv[i], FF_MAP_READ, accept_unsynced, &src)) {
            bloomsimd_destroy(dst);
            return CLI_ERROR;
        }
        bloomsimd_status st = bloomsimd_union(dst, src);
        if (st == BLOOMSIMD_ERR_INCOMPATIBLE) {
            char a[128], b[128];
            describe(dst, a, sizeof a);
            describe(src, b, sizeof b);
            cli_error("%s: cannot merge with %s: %s (%s vs %s); only filters created with the same size "
                      "options, seed and --u64-hash merge",
                      argv[i], argv[optind + 1], bloomsimd_status_string(st), b, a);
        } else if (st != BLOOMSIMD_OK) {
            cli_error("%s: %s", argv[i], cli_status_text(st));
        }
        bloomsimd_destroy(src);
        if (st != BLOOMSIMD_OK) {
            bloomsimd_destroy(dst);
            return CLI_ERROR;
        }
    }
    bool ok = ff_save(dst, out_path);
    bloomsimd_destroy(dst);
    return ok ? CLI_OK : CLI_ERROR;
}
