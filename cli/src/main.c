/*
 * main.c — `bloomsimd`: the subcommand table, global --help and --version.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef BLOOMSIMD_CLI_VERSION
#define BLOOMSIMD_CLI_VERSION "0.1.0"
#endif

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"create", cmd_create, "create an empty filter file sized for N keys at a false-positive rate"},
    {"add", cmd_add, "insert records (lines, NUL-separated, a field, or integers) into a filter file"},
    {"query", cmd_query, "print the records that may be in a filter (--absent: the others)"},
    {"dedup", cmd_dedup, "print each record the first time it is seen (bounded memory, any order)"},
    {"info", cmd_info, "show a filter file's geometry, fill, estimated keys and FPR now"},
    {"merge", cmd_merge, "union of filter files with the same geometry and seed"},
    {"check", cmd_check, "validate filter files completely (exit status 0 if all are valid)"},
    {"parquet", cmd_parquet, "ask the Bloom filters in Parquet files which row groups may hold values"},
    {"bench", cmd_bench, "run the library benchmark, bloomsimd-bench"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: bloomsimd COMMAND [OPTION]... [ARG]...\n"
            "Bloom filters from the command line: build, query, dedup and inspect filter files.\n\n"
            "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n'bloomsimd COMMAND --help' describes each command; 'man bloomsimd' has examples.\n"
            "Exit status: 0 success or a match, 1 no match (query, dedup, check), 2 error.\n"
            "Records are bytes (no locale); filter files are portable (any CPU, any kernel).\n");
}

int main(int argc, char **argv)
{
    /* A file size limit (ulimit -f) must fail a write with EFBIG, which the
     * atomic save reports and cleans up after, not kill the process midway. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return CLI_ERROR;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) {
            for (size_t i = 0; i < NCOMMANDS; i++) {
                if (strcmp(argv[2], commands[i].name) == 0) {
                    char *help_argv[] = {argv[2], (char *)"--help", NULL};
                    cli_cmd = commands[i].name;
                    return commands[i].run(2, help_argv);
                }
            }
            return cli_usage_error("no command '%s'", argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        const char *kernel = bloomsimd_default_kernel();
        printf("bloomsimd %s (libbloomsimd %s, kernel %s)\n", BLOOMSIMD_CLI_VERSION, bloomsimd_version_string(),
               kernel ? kernel : "unavailable: BLOOMSIMD_KERNEL names a kernel this CPU cannot run");
        return CLI_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(name, commands[i].name) == 0) {
            cli_cmd = commands[i].name;
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    if (name[0] == '-') return cli_usage_error("unknown option '%s' (a command comes first)", name);
    return cli_usage_error("unknown command '%s'", name);
}
