/*
 * args.c — option values: counts, probabilities, bytes, and the record
 * options shared by add, query and dedup. Every bad value is one line that
 * names the option and what it accepts.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char cli_record_help[] =
    "Records:\n"
    "  -z, --null             records end with NUL, not newline (output too)\n"
    "  -r, --crlf             a '\\r' before the newline is not part of the key\n"
    "  -f, --field N          the key is field N (1-based) of the record; a record\n"
    "                         with fewer fields has the empty key (as in awk)\n"
    "  -d, --delimiter C      field separator for --field (default: tab)\n"
    "  -u, --u64              keys are unsigned 64-bit integers, decimal or 0x-hex\n"
    "  -q, --quiet, --silent  no warnings and no progress line\n"
    "  -P, --progress         progress line on stderr even when it is not a terminal\n"
    "      --threads N        1: read, split and probe in one thread; 2 (the default on\n"
    "                         2+ CPUs): a reader thread reads and splits ahead\n";

static uint64_t suffix_multiplier(char c)
{
    switch (c) {
    case 'k': case 'K': return UINT64_C(1000);
    case 'M': return UINT64_C(1000000);
    case 'G': return UINT64_C(1000000000);
    case 'T': return UINT64_C(1000000000000);
    default: return 0;
    }
}

/* Decimal integer, optional power-of-1000 suffix. false if not of that form. */
static bool parse_decimal_count(const char *text, uint64_t *out, bool *overflow)
{
    const char *p = text;
    uint64_t v = 0;
    *overflow = false;
    if (*p < '0' || *p > '9') return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) *overflow = true;
        v = v * 10 + d;
    }
    if (*p) {
        uint64_t m = suffix_multiplier(*p);
        if (!m || p[1]) return false;
        if (v > UINT64_MAX / m) *overflow = true;
        v *= m;
    }
    *out = v;
    return true;
}

bool cli_parse_count(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    bool overflow = false, ok = false;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && text[2]) {
        char *end;
        errno = 0;
        v = strtoull(text + 2, &end, 16);
        ok = *end == '\0' && text[2] != '-' && text[2] != '+';
        overflow = errno == ERANGE;
    } else if (strncmp(text, "10^", 3) == 0) {
        /* 10^7: the bench's and the examples' form too */
        char *end;
        long e = strtol(text + 3, &end, 10);
        ok = end != text + 3 && *end == '\0' && text[3] >= '0' && text[3] <= '9';
        overflow = ok && e > 19;
        for (v = 1; ok && !overflow && e > 0; e--) v *= 10;
    } else if (parse_decimal_count(text, &v, &overflow)) {
        ok = true;
    } else if (text[0] >= '0' && text[0] <= '9') {
        /* 1e7, 2.5M: a float that must come out a whole number. */
        char *end;
        double d = strtod(text, &end);
        uint64_t m = 1;
        if (*end && (m = suffix_multiplier(*end)) != 0 && !end[1]) end++;
        if (!*end && isfinite(d) && m) {
            d *= (double)m;
            ok = d == floor(d);
            overflow = d >= 18446744073709551616.0;
            if (ok && !overflow) v = (uint64_t)d;
        }
    }
    if (!ok) {
        cli_usage_error("%s '%s': not a whole number (write it as 10000000, 1e7, 10^7 or 10M)", option, text);
        return false;
    }
    if (overflow || v < min || v > max) {
        cli_usage_error("%s %s: out of range, must be from %llu to %llu", option, text, (unsigned long long)min,
                        (unsigned long long)max);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_fraction(const char *option, const char *text, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end != text && *end == '%') v /= 100.0, end++; /* 1% = 0.01, as the bench and the examples read it */
    if (end == text || *end || !isfinite(v)) {
        cli_usage_error("%s '%s': not a number (write it as 0.01, 1e-2 or 1%%)", option, text);
        return false;
    }
    if (v < min || v >= max) {
        cli_usage_error("%s %s: out of range, must be at least %g and below %g", option, text, min, max);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_byte(const char *option, const char *text, char *out)
{
    if (text[0] && !text[1]) {
        *out = text[0];
        return true;
    }
    static const struct { const char *name; char byte; } named[] = {
        {"\\t", '\t'}, {"tab", '\t'}, {"TAB", '\t'}, {"\\0", '\0'}, {"\\\\", '\\'}, {"space", ' '},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (strcmp(text, named[i].name) == 0) {
            *out = named[i].byte;
            return true;
        }
    }
    cli_usage_error("%s '%s': must be one byte (or \\t, tab, space, \\0)", option, text);
    return false;
}

void cli_record_options_init(cli_record_options *o)
{
    memset(o, 0, sizeof *o);
    o->terminator = '\n';
    o->delimiter = '\t';
    o->threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

int cli_record_option(cli_record_options *o, int c, const char *arg)
{
    uint64_t v;
    switch (c) {
    case 'z': o->terminator = '\0'; return 1;
    case 'r': o->crlf = true; return 1;
    case 'u': o->u64 = true; return 1;
    case 'q': o->quiet = true; return 1;
    case 'P': o->progress = true; return 1;
    case 'f':
        if (!cli_parse_count("--field", arg, 1, UINT32_MAX, &v)) return -1;
        o->field = (uint32_t)v;
        return 1;
    case 'T':
        if (!cli_parse_count("--threads", arg, 1, 2, &v)) return -1;
        o->threads = (int)v;
        return 1;
    case 'd':
        o->delimiter_set = true;
        return cli_parse_byte("--delimiter", arg, &o->delimiter) ? 1 : -1;
    default: return 0;
    }
}

int cli_bad_option(int c, char **argv, int optind_now, int optopt_now)
{
    const char *arg = argv[optind_now - 1];
    if (c == ':') return cli_usage_error("option '%s' needs a value", arg);
    if (optopt_now && strncmp(arg, "--", 2) != 0) return cli_usage_error("unknown option '-%c'", optopt_now);
    return cli_usage_error("unknown option '%s'", arg);
}

void cli_size_options_init(cli_size_options *s)
{
    memset(s, 0, sizeof *s);
}

int cli_size_option(cli_size_options *s, int c, const char *arg)
{
    uint64_t v;
    switch (c) {
    case 'n':
        s->have_capacity = true;
        return cli_parse_count("--capacity", arg, 1, UINT64_C(1) << 48, &s->capacity) ? 1 : -1;
    case 'p':
        s->have_fpr = true;
        return cli_parse_fraction("--fpr", arg, BLOOMSIMD_MIN_FPR, 1.0, &s->fpr) ? 1 : -1;
    case 'g':
        if (!cli_parse_count("--growth", arg, 2, 1000, &v)) return -1;
        s->growth = (uint32_t)v;
        s->have_growth = true;
        return 1;
    case 's':
        s->have_seed = true;
        return cli_parse_count("--seed", arg, 0, UINT64_MAX, &s->seed) ? 1 : -1;
    case 'k':
        if (!cli_parse_count("--k", arg, 1, BLOOMSIMD_MAX_K, &v)) return -1;
        s->k = (uint32_t)v;
        return 1;
    case 'L':
        if (strcmp(arg, "block512") == 0)
            s->layout = BLOOMSIMD_LAYOUT_BLOCK512;
        else if (strcmp(arg, "split256") == 0)
            s->layout = BLOOMSIMD_LAYOUT_SPLIT256;
        else
            return cli_usage_error("--layout '%s': block512 or split256", arg), -1;
        return 1;
    case 'H':
        if (strcmp(arg, "xxh3") == 0)
            s->u64_hash = BLOOMSIMD_U64_XXH3;
        else if (strcmp(arg, "mum") == 0)
            s->u64_hash = BLOOMSIMD_U64_MUM;
        else
            return cli_usage_error("--u64-hash '%s': xxh3 or mum", arg), -1;
        return 1;
    case 'b':
        return cli_parse_count("--bits", arg, BLOOMSIMD_BLOCK_BITS, BLOOMSIMD_MAX_BLOCKS * BLOOMSIMD_BLOCK_BITS,
                               &s->bits)
                   ? 1
                   : -1;
    default: return 0;
    }
}

const char cli_size_help[] =
    "Size:\n"
    "  -n, --capacity N       distinct keys the filter is sized for (1e7, 10M, 10000000)\n"
    "  -p, --fpr P            false-positive rate at capacity (default 0.01), from 1e-10, below 1\n"
    "  -g, --growth G         grow by factor G (>= 2) past capacity (scalable filter)\n"
    "  -s, --seed S           hash seed (default 0); filters merge only with equal seeds\n"
    "  -k, --k K              bits set per key, 1..16 (default: the k that needs the least memory)\n"
    "  -b, --bits B           explicit size in bits instead of --capacity/--fpr sizing\n"
    "      --layout L         block512 (fewest bits per key) or split256 (Parquet's 256-bit blocks,\n"
    "                         faster on sse42/avx2/neon); default: the layout of the kernel in use\n"
    "      --u64-hash H       hash of --u64 keys: xxh3 (the default) or mum (fewer instructions per\n"
    "                         key, the same FPR); other records hash with XXH3 either way\n";

bool cli_record_options_check(const cli_record_options *o)
{
    if (o->delimiter_set && !o->field) {
        cli_usage_error("--delimiter needs --field N");
        return false;
    }
    if (o->field && o->delimiter == o->terminator) {
        cli_usage_error("--delimiter cannot be the record terminator");
        return false;
    }
    if (o->crlf && o->terminator != '\n') {
        cli_usage_error("--crlf applies to lines, not to --null records");
        return false;
    }
    return true;
}
