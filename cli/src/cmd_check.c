/*
 * cmd_check.c — `bloomsimd check FILE...`: full validation.
 *
 * A read-only map validates everything the format defines (magic, version,
 * header checksum, sizes, reserved bytes, layout and hash ids, the payload
 * checksum) before it returns; nothing is trusted before that.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "filterfile.h"

static void help(void)
{
    printf("Usage: bloomsimd check [OPTION]... FILE...\n"
           "Validate each filter FILE completely: header, sizes, version and both checksums.\n"
           "Prints 'FILE: ok' for each valid file; the reason on stderr for each invalid one.\n\n"
           "  -q, --quiet, --silent  print nothing; the exit status says it\n"
           "      --accept-unsynced  count a file whose writer was killed before syncing as valid\n"
           "  -h, --help             this help\n\n"
           "Exit status: 0 if every FILE is valid, 1 if one is not, 2 if one cannot be read.\n");
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {{"quiet", no_argument, NULL, 'q'},
                                             {"silent", no_argument, NULL, 'q'},
                                             {"accept-unsynced", no_argument, NULL, 'A'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool quiet = false;
    unsigned flags = BLOOMSIMD_MAP_READ_ONLY;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = true; break;
        case 'A': flags |= BLOOMSIMD_MAP_ACCEPT_UNSYNCED; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (optind == argc) return cli_usage_error("missing FILE");
    int status = CLI_OK;
    for (int i = optind; i < argc; i++) {
        bloomsimd_filter *f;
        errno = 0;
        bloomsimd_status st = bloomsimd_map(&f, argv[i], flags);
        int err = errno;
        if (st == BLOOMSIMD_OK) {
            bloomsimd_destroy(f);
            if (!quiet) printf("%s: ok\n", argv[i]);
            continue;
        }
        if (!quiet) ff_report_open_error(argv[i], st, err);
        bool invalid = st == BLOOMSIMD_ERR_CORRUPT || st == BLOOMSIMD_ERR_VERSION || st == BLOOMSIMD_ERR_TOO_LARGE;
        int s = invalid ? CLI_NO_MATCH : CLI_ERROR;
        if (s > status) status = s;
    }
    fflush(stdout);
    return status;
}
