/*
 * cmd_bench.c — `bloomsimd bench [ARG...]`: runs bloomsimd-bench, the
 * library's benchmark, from next to this program (installed, or the build
 * tree's bench/) or from PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static bool find_next_to_self(char *out, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return false;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return false;
    *slash = '\0';
    static const char *const candidates[] = {"%s/bloomsimd-bench", "%s/../bench/bloomsimd-bench"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        snprintf(out, cap, candidates[i], self);
        if (access(out, X_OK) == 0) return true;
    }
    return false;
}

int cmd_bench(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: bloomsimd bench [ARG]...\n"
               "Run bloomsimd-bench, the library's benchmark (every kernel on this CPU against the\n"
               "memory ceiling and reference filters), with the ARGs. 'bloomsimd bench -- --help'\n"
               "shows its options. It is looked for next to bloomsimd, in the build tree's bench/,\n"
               "then in PATH.\n");
        return CLI_OK;
    }
    char path[PATH_MAX + 64];
    int skip = argc > 1 && strcmp(argv[1], "--") == 0 ? 1 : 0;
    char **args = argv + skip;
    args[0] = (char *)"bloomsimd-bench";
    fflush(stdout);
    if (find_next_to_self(path, sizeof path)) execv(path, args);
    else execvp("bloomsimd-bench", args);
    cli_error("cannot run bloomsimd-bench: %s. It is built with the library (cmake -DBLOOMSIMD_BUILD_BENCH=ON, "
              "the default: build/bench/bloomsimd-bench) and installed next to bloomsimd",
              strerror(errno));
    return CLI_ERROR;
}
