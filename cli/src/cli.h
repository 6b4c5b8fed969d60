/*
 * cli.h — what the subcommands of the `bloomsimd` tool share.
 *
 * The tool is a client of the library: it includes only <bloomsimd.h>.
 * Exit statuses follow grep: 0 = ok / something matched, 1 = nothing
 * matched, 2 = error. Every error goes to stderr, prefixed "bloomsimd CMD:".
 */
#ifndef BLOOMSIMD_CLI_H
#define BLOOMSIMD_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bloomsimd.h>

#define CLI_OK 0
#define CLI_NO_MATCH 1
#define CLI_ERROR 2

/* The running subcommand's name, for messages ("bloomsimd dedup: ..."). */
extern const char *cli_cmd;
/* Set by the SIGINT/SIGTERM handler of commands that must clean up. */
extern volatile sig_atomic_t cli_stop_signal;

/* Messages on stderr: "bloomsimd CMD: " + text + "\n". */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A note on stderr (same prefix, no "warning:"): what the tool chose for the user. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library failure for a message: "STATUS: DETAIL" with the library's
 * detail string (bloomsimd_last_error()), or STATUS alone when it has none.
 * Call it right after the failing call, before any other library call.
 * Returns a static buffer, rewritten by the next call (main thread only). */
const char *cli_status_text(bloomsimd_status st);
/* An option error: the message, then "Try 'bloomsimd CMD --help'". Returns CLI_ERROR. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- numbers (args.c) --------------------------------------------------- */
/* "10000000", "1e7", "10M" (k, M, G, T: powers of 1000), "0x10". Prints the
 * error (naming the option and the allowed range) and returns false on
 * anything else, on values below min, or above max. */
bool cli_parse_count(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* A probability in [min, max). */
bool cli_parse_fraction(const char *option, const char *text, double min, double max, double *out);
/* A single byte: "," or "\t" / "tab" / "\\0"-style escapes. */
bool cli_parse_byte(const char *option, const char *text, char *out);

/* ---- record options shared by add, query and dedup ----------------------- */
typedef struct cli_record_options {
    char terminator;     /* '\n', or '\0' with --null */
    bool crlf;           /* strip one '\r' before the terminator from the key */
    uint32_t field;      /* 0 = the whole record, else the 1-based field */
    char delimiter;      /* field separator, '\t' by default */
    bool delimiter_set;
    bool u64;            /* keys are decimal or 0x-hex unsigned 64-bit integers */
    bool quiet;
    bool progress;       /* --progress: even when stderr is not a terminal */
    int threads;         /* 1, or 2: a reader thread reads and splits ahead */
} cli_record_options;

void cli_record_options_init(cli_record_options *o);
/* Handles one of the shared options (getopt code `c`, argument `arg`);
 * returns 1 if handled, 0 if not one of them, -1 on a bad value (printed). */
int cli_record_option(cli_record_options *o, int c, const char *arg);
/* Rejects contradictory combinations (printed). */
bool cli_record_options_check(const cli_record_options *o);
/* The getopt_long table entries and help text for the shared options. */
#define CLI_RECORD_LONGOPTS                                                                       \
    {"null", no_argument, NULL, 'z'}, {"crlf", no_argument, NULL, 'r'},                           \
        {"field", required_argument, NULL, 'f'}, {"delimiter", required_argument, NULL, 'd'},     \
        {"u64", no_argument, NULL, 'u'}, {"quiet", no_argument, NULL, 'q'},                       \
        {"silent", no_argument, NULL, 'q'}, {"progress", no_argument, NULL, 'P'},                 \
        {"threads", required_argument, NULL, 'T'}
#define CLI_RECORD_SHORTOPTS "zrf:d:uqP"
extern const char cli_record_help[];

/* Reports a getopt failure (c is '?' or ':'); returns CLI_ERROR. */
int cli_bad_option(int c, char **argv, int optind_now, int optopt_now);

/* ---- filter size options shared by create and dedup ----------------------- */
typedef struct cli_size_options {
    uint64_t capacity, bits, seed;
    double fpr;
    uint32_t k, growth;
    uint32_t layout; /* --layout: BLOOMSIMD_LAYOUT_*, 0 = the kernel's default */
    uint32_t u64_hash; /* --u64-hash: BLOOMSIMD_U64_XXH3 or _MUM, 0 = the library's default (XXH3) */
    bool have_capacity, have_fpr, have_growth, have_seed;
} cli_size_options;
void cli_size_options_init(cli_size_options *s);
int cli_size_option(cli_size_options *s, int c, const char *arg);
#define CLI_SIZE_LONGOPTS                                                                          \
    {"capacity", required_argument, NULL, 'n'}, {"fpr", required_argument, NULL, 'p'},             \
        {"growth", required_argument, NULL, 'g'}, {"seed", required_argument, NULL, 's'},          \
        {"k", required_argument, NULL, 'k'}, {"bits", required_argument, NULL, 'b'},               \
        {"layout", required_argument, NULL, 'L'},                                                  \
        {"u64-hash", required_argument, NULL, 'H'} /* long only: 'L', 'H' are not in the short options */
#define CLI_SIZE_SHORTOPTS "n:p:g:s:k:b:"
extern const char cli_size_help[];

/* ---- signals ------------------------------------------------------------ */
/* Catches SIGINT, SIGTERM and SIGHUP into cli_stop_signal (without
 * SA_RESTART, so a blocked read returns) and ignores SIGPIPE (writes then
 * fail with EPIPE, which the writer reports as a stop). */
void cli_catch_stop_signals(void);
/* Waits until fd has input (or its end), or a stop signal was caught;
 * false on a stop signal. Returns at once unless the stop signals are
 * caught (cli_catch_stop_signals): uncaught, they end the process. */
bool cli_wait_readable(int fd);
/* After cleanup: die of the caught signal, as if it had never been caught. */
void cli_die_of_signal(int sig) __attribute__((noreturn));
/* Blocks / restores SIGINT, SIGTERM and SIGHUP around an atomic save, so an
 * interrupt lands before or after it, never in the middle (no stray temp file). */
void cli_block_stop_signals(bool block);

/* ---- subcommands ---------------------------------------------------------- */
int cmd_create(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_dedup(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_parquet(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
