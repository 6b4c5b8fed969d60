/*
 * cmd_create.c — `bloomsimd create FILE --capacity N --fpr P`.
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "filterfile.h"

static void help(void)
{
    printf("Usage: bloomsimd create FILE --capacity N [--fpr P] [OPTION]...\n"
           "Create an empty filter file sized for N distinct keys at false-positive rate P.\n"
           "The file is written atomically (a temporary file renamed into place).\n\n"
           "%s"
           "Other:\n"
           "      --force            replace FILE if it exists\n"
           "  -h, --help             this help\n\n"
           "Example: bloomsimd create seen.bsf --capacity 50M --fpr 1e-4\n",
           cli_size_help);
}

int cmd_create(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_SIZE_LONGOPTS,
                                             {"force", no_argument, NULL, 'F'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_size_options size;
    cli_size_options_init(&size);
    bool force = false;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" CLI_SIZE_SHORTOPTS "h", longopts, NULL)) != -1) {
        int r = cli_size_option(&size, c, optarg);
        if (r < 0) return CLI_ERROR;
        if (r > 0) continue;
        switch (c) {
        case 'F': force = true; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (optind == argc) return cli_usage_error("missing FILE");
    if (optind + 1 < argc) return cli_usage_error("one FILE only (got '%s' too)", argv[optind + 1]);
    const char *path = argv[optind];
    if (!size.have_capacity && !size.bits) return cli_usage_error("--capacity N is required (or --bits B)");
    struct stat st;
    if (!force && stat(path, &st) == 0) {
        cli_error("%s: exists (--force replaces it)", path);
        return CLI_ERROR;
    }
    if (ff_locked_by_writer(path)) {
        cli_error("%s: in use by a writer (a running 'bloomsimd dedup --state'?): not replaced", path);
        return CLI_ERROR;
    }
    bloomsimd_filter *f;
    if (!ff_create(&size, 0, BLOOMSIMD_DEFAULT_FPR, &f)) return CLI_ERROR;
    bool ok = ff_save(f, path);
    bloomsimd_destroy(f);
    return ok ? CLI_OK : CLI_ERROR;
}
