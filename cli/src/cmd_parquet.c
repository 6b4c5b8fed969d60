/*
 * cmd_parquet.c — `bloomsimd parquet`: ask the Bloom filters inside Parquet
 * files which row groups may hold a value, or list the filters.
 *
 *   bloomsimd parquet FILE... --column NAME [--values FILE | VALUE...]
 *   bloomsimd parquet --list FILE...
 *
 * The footer is parsed by the library (bloomsimd_parquet_footer_load, which
 * validates it); each column chunk's filter is read from the file at its
 * bloom_filter_offset into a BLOOMSIMD_PARQUET filter (bloomsimd_parquet_read)
 * and every value is looked up in it, PLAIN-encoded for the column's
 * physical type: INT32/INT64 decimal, signed or unsigned (UINT_32/UINT_64
 * columns store the same bits), FLOAT/DOUBLE as strtod reads them,
 * BYTE_ARRAY the value's bytes, FIXED_LEN_BYTE_ARRAY(L) its L bytes or 2L
 * hex digits (dashes ignored: a UUID's text form). With --hex, every value
 * of a byte-array column is hex digits, so binary values (digests, packed
 * ids, bytes that are not text) can be given too. One line per value
 * and row group: [FILE<TAB>]ROW_GROUP<TAB>VALUE<TAB>maybe|no; row groups
 * without a filter for the column print "unknown" (the engine must read them).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void help(void)
{
    printf("Usage: bloomsimd parquet [OPTION]... FILE... --column NAME [VALUE]...\n"
           "       bloomsimd parquet --list FILE...\n"
           "Ask the split-block Bloom filters in Parquet files which row groups may hold\n"
           "each VALUE of column NAME (dotted path for nested columns: a.b). One line per\n"
           "value and row group, row groups numbered from 0 in footer order:\n"
           "  [FILE<TAB>]ROW_GROUP<TAB>VALUE<TAB>maybe|no|unknown   (FILE when several are given;\n"
           "  unknown: that row group has no filter for the column)\n"
           "The FILEs are the operands that end in .parquet (or the first operand, whatever its\n"
           "name); with --values or --list every operand is a FILE.\n\n"
           "      --column NAME   the column whose filters are asked\n"
           "      --values FILE   read the values from FILE, one a line ('-': standard input)\n"
           "  -c, --count         per file and row group, the count of values that may be there\n"
           "  -x, --hex           the values are hex digits (dashes ignored): for BYTE_ARRAY and\n"
           "                      FIXED_LEN_BYTE_ARRAY columns, binary values included\n"
           "      --json          one JSON object a line instead of the tab-separated form\n"
           "  -l, --list          list every column chunk's filter: size, bits per value, the\n"
           "                      distinct values it holds (estimated) and its FPR for them\n"
           "  -h, --help          this help\n\n"
           "Values are read as the column's physical type: INT32/INT64 as decimal integers\n"
           "(signed, or unsigned up to 2^32-1 / 2^64-1), FLOAT/DOUBLE as numbers, BYTE_ARRAY\n"
           "as the value's bytes, FIXED_LEN_BYTE_ARRAY(L) as L bytes or 2L hex digits\n"
           "(dashes ignored, so a UUID can be given in its usual form); with --hex, the\n"
           "bytes of either as hex digits (2L of them for FIXED_LEN_BYTE_ARRAY(L)).\n"
           "Exit status: 0 if some value may be in some row group, 1 if none, 2 on error.\n"
           "Example: bloomsimd parquet events-*.parquet --column user_id 42 1234567\n");
}

typedef struct pq_file {
    const char *path;
    int fd;
    bloomsimd_parquet_footer *footer;
} pq_file;

static bool open_file(pq_file *pf, const char *path)
{
    pf->path = path;
    pf->footer = NULL;
    pf->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (pf->fd < 0) {
        cli_error("%s: %s", path, strerror(errno));
        return false;
    }
    bloomsimd_status st = bloomsimd_parquet_footer_load(&pf->footer, path);
    if (st != BLOOMSIMD_OK) {
        cli_error("%s: not a readable Parquet file: %s", path, bloomsimd_last_error());
        close(pf->fd);
        pf->fd = -1;
        return false;
    }
    return true;
}

static void close_file(pq_file *pf)
{
    if (pf->footer) bloomsimd_parquet_footer_free(pf->footer);
    if (pf->fd >= 0) close(pf->fd);
}

/* The filter of one column chunk, or NULL (none: *none set; an error: printed). */
static bloomsimd_filter *chunk_filter(const pq_file *pf, uint32_t rg, uint32_t col, bool *none)
{
    const bloomsimd_parquet_chunk *ch = &pf->footer->chunk[(size_t)rg * pf->footer->columns + col];
    *none = ch->bloom_filter_offset < 0;
    if (*none) return NULL;
    uint64_t len = ch->bloom_filter_length >= 0 ? (uint64_t)ch->bloom_filter_length : 0;
    if (len == 0) {
        /* older writers leave the length out: the header says it */
        uint8_t head[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
        ssize_t got = pread(pf->fd, head, sizeof head, (off_t)ch->bloom_filter_offset);
        bloomsimd_parquet_header h;
        if (got <= 0 || bloomsimd_parquet_header_parse(head, (size_t)got, &h) != BLOOMSIMD_OK) {
            cli_error("%s: row group %u: unreadable Bloom filter header: %s", pf->path, rg,
                      got <= 0 ? "short read" : bloomsimd_last_error());
            return NULL;
        }
        len = (uint64_t)h.header_bytes + h.bitset_bytes;
    }
    if (len > pf->footer->file_size || (uint64_t)ch->bloom_filter_offset > pf->footer->file_size - len) {
        cli_error("%s: row group %u: the Bloom filter runs past the end of the file", pf->path, rg);
        return NULL;
    }
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        cli_error("%s: out of memory for a %llu-byte filter", pf->path, (unsigned long long)len);
        return NULL;
    }
    ssize_t got = pread(pf->fd, buf, len, (off_t)ch->bloom_filter_offset);
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = got == (ssize_t)len ? bloomsimd_parquet_read(&f, buf, len, NULL) : BLOOMSIMD_ERR_IO;
    free(buf);
    if (st != BLOOMSIMD_OK) {
        cli_error("%s: row group %u: %s", pf->path, rg,
                  st == BLOOMSIMD_ERR_IO ? "short read of the Bloom filter" : cli_status_text(st));
        return NULL;
    }
    return f;
}

/* A decimal integer in [lo, hi] (hi may exceed INT64_MAX: unsigned text),
 * as its two's-complement bits; false on anything else. */
static bool parse_integer(const char *text, int64_t lo, uint64_t hi, uint64_t *bits)
{
    char *end;
    errno = 0;
    if (text[0] == '-') {
        long long v = strtoll(text, &end, 10);
        if (end == text + 1 || *end || errno || v < lo) return false;
        *bits = (uint64_t)v;
        return true;
    }
    if (!(text[0] >= '0' && text[0] <= '9') && !(text[0] == '+' && text[1] >= '0' && text[1] <= '9')) return false;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno || v > hi) return false;
    *bits = (uint64_t)v;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The bytes that text spells in hex digits (dashes skipped), into buf (at
 * least tlen / 2 bytes). Returns their count, or -1 for a character that is
 * neither, or an odd count of digits. */
static long hex_bytes(const char *text, size_t tlen, uint8_t *buf)
{
    size_t digits = 0;
    for (size_t i = 0; i < tlen; i++) {
        if (text[i] == '-') continue;
        int d = hex_digit(text[i]);
        if (d < 0) return -1;
        buf[digits / 2] = (uint8_t)(digits % 2 ? buf[digits / 2] | d : d << 4);
        digits++;
    }
    return digits % 2 ? -1 : (long)(digits / 2);
}

/* A FIXED_LEN_BYTE_ARRAY(width) value: the text's bytes when it has exactly
 * width of them (unless hex), else 2 * width hex digits (dashes skipped:
 * 8-4-4-4-12 UUID text). The two cannot be confused: hex needs more than
 * width characters. buf holds at least tlen bytes. */
static long fixed_bytes(const char *text, size_t tlen, size_t width, bool hex, uint8_t *buf)
{
    if (!hex && tlen == width) {
        memcpy(buf, text, tlen);
        return (long)tlen;
    }
    long n = width > 0 ? hex_bytes(text, tlen, buf) : -1;
    return n == (long)width ? n : -1;
}

/* Whether --hex can apply to the column: its values are bytes. */
static bool is_byte_array(const bloomsimd_parquet_column *col)
{
    return col->physical_type == BLOOMSIMD_PARQUET_BYTE_ARRAY ||
           col->physical_type == BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY;
}

/* The PLAIN encoding of text for column `col` into buf (at least 16 bytes
 * and the text's length). Returns its length, or -1. hex:
 * a byte-array value given as hex digits (is_byte_array(col) holds). */
static long encode(const bloomsimd_parquet_column *col, const char *text, size_t tlen, bool hex, uint8_t *buf,
                   uint64_t *u64, bool *is_u64)
{
    char *end;
    uint64_t bits;
    *is_u64 = false;
    errno = 0;
    switch (col->physical_type) {
    case BLOOMSIMD_PARQUET_INT64:
        if (!parse_integer(text, INT64_MIN, UINT64_MAX, &bits)) return -1;
        *u64 = bits, *is_u64 = true;
        return 8;
    case BLOOMSIMD_PARQUET_INT32:
        if (!parse_integer(text, INT32_MIN, UINT32_MAX, &bits)) return -1;
        for (int b = 0; b < 4; b++) buf[b] = (uint8_t)(bits >> (8 * b));
        return 4;
    case BLOOMSIMD_PARQUET_DOUBLE: {
        double d = strtod(text, &end);
        if (end == text || *end) return -1;
        memcpy(u64, &d, 8), *is_u64 = true;
        return 8;
    }
    case BLOOMSIMD_PARQUET_FLOAT: {
        float v = strtof(text, &end);
        if (end == text || *end) return -1;
        uint32_t x;
        memcpy(&x, &v, 4);
        for (int b = 0; b < 4; b++) buf[b] = (uint8_t)(x >> (8 * b));
        return 4;
    }
    case BLOOMSIMD_PARQUET_BYTE_ARRAY:
        if (hex) return hex_bytes(text, tlen, buf);
        memcpy(buf, text, tlen);
        return (long)tlen;
    case BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY:
        return col->type_length > 0 ? fixed_bytes(text, tlen, (size_t)col->type_length, hex, buf) : -1;
    default: return -1;
    }
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static int list_files(pq_file *files, int nfiles, bool json)
{
    if (!json) printf("%s%-5s %-24s %-20s %10s %8s %12s %10s\n", nfiles > 1 ? "file\t" : "", "group", "column", "type",
                      "bytes", "bits/val", "distinct~", "FPR now");
    int status = CLI_OK;
    for (int i = 0; i < nfiles; i++) {
        const bloomsimd_parquet_footer *ft = files[i].footer;
        for (uint32_t rg = 0; rg < ft->row_groups; rg++)
            for (uint32_t c = 0; c < ft->columns; c++) {
                bool none;
                bloomsimd_filter *f = chunk_filter(&files[i], rg, c, &none);
                if (!f) {
                    if (!none) status = CLI_ERROR;
                    continue;
                }
                bloomsimd_info info;
                bloomsimd_get_info(f, &info);
                double est = bloomsimd_estimate_count(f);
                double fpr = isfinite(est) ? bloomsimd_predicted_fpr(f, (uint64_t)llround(est)) : 1.0;
                const char *type = bloomsimd_parquet_type_name(ft->column[c].physical_type);
                if (json) {
                    printf("{\"file\":");
                    json_string(stdout, files[i].path);
                    printf(",\"row_group\":%u,\"column\":", rg);
                    json_string(stdout, ft->column[c].path);
                    printf(",\"type\":\"%s\",\"bytes\":%llu,\"bits_per_value\":%.2f,\"distinct_estimate\":%.0f,"
                           "\"fpr\":%.6g}\n",
                           type ? type : "?", (unsigned long long)info.memory_bytes,
                           est > 0 ? (double)info.bits / est : 0.0, isfinite(est) ? est : -1.0, fpr);
                } else {
                    if (nfiles > 1) printf("%s\t", files[i].path);
                    printf("%-5u %-24s %-20s %10llu %8.2f %12.0f %9.4f%%\n", rg, ft->column[c].path,
                           type ? type : "?", (unsigned long long)info.memory_bytes,
                           est > 0 ? (double)info.bits / est : 0.0, isfinite(est) ? est : -1.0, 100 * fpr);
                }
                bloomsimd_destroy(f);
            }
    }
    return status;
}

/* One value against every row group of one file; prints its lines. */
static void ask(const pq_file *pf, bool several, int64_t col, bloomsimd_filter **filters, const bool *none,
                const char *text, size_t tlen, bool hex, bool json, bool count_only, uint64_t *counts, bool *any,
                bool *bad)
{
    const bloomsimd_parquet_footer *ft = pf->footer;
    uint8_t stack[64];
    uint8_t *buf = tlen > sizeof stack ? malloc(tlen) : stack;
    uint64_t u64 = 0;
    bool is_u64;
    long len = buf ? encode(&ft->column[col], text, tlen, hex, buf, &u64, &is_u64) : -1;
    if (len < 0) {
        const char *type = bloomsimd_parquet_type_name(ft->column[col].physical_type);
        if (hex && ft->column[col].physical_type == BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY)
            cli_error("%s: '%s' is not a value of column %s (%s(%ld), --hex: %ld hex digits)", pf->path, text,
                      ft->column[col].path, type, (long)ft->column[col].type_length,
                      2 * (long)ft->column[col].type_length);
        else if (hex)
            cli_error("%s: '%s' is not a value of column %s (%s, --hex: an even number of hex digits)", pf->path,
                      text, ft->column[col].path, type);
        else if (ft->column[col].physical_type == BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY)
            cli_error("%s: '%s' is not a value of column %s (%s(%ld): %ld bytes or %ld hex digits)", pf->path, text,
                      ft->column[col].path, type, (long)ft->column[col].type_length,
                      (long)ft->column[col].type_length, 2 * (long)ft->column[col].type_length);
        else
            cli_error("%s: '%s' is not a value of column %s (%s)", pf->path, text, ft->column[col].path,
                      type ? type : "unknown type");
        *bad = true;
        if (buf != stack) free(buf);
        return;
    }
    for (uint32_t rg = 0; rg < ft->row_groups; rg++) {
        const char *answer = "unknown";
        if (!none[rg] && filters[rg]) {
            bool maybe = is_u64 ? bloomsimd_contains_u64(filters[rg], u64)
                                : bloomsimd_contains(filters[rg], buf, (size_t)len);
            answer = maybe ? "maybe" : "no";
            if (maybe) counts[rg]++, *any = true;
        } else if (none[rg]) {
            counts[rg]++, *any = true; /* no filter: the row group may hold it */
        }
        if (count_only) continue;
        if (json) {
            printf("{\"file\":");
            json_string(stdout, pf->path);
            printf(",\"row_group\":%u,\"value\":", rg);
            json_string(stdout, text);
            printf(",\"answer\":\"%s\"}\n", answer);
        } else {
            if (several) printf("%s\t", pf->path);
            printf("%u\t%s\t%s\n", rg, text, answer);
        }
    }
    if (buf != stack) free(buf);
}

int cmd_parquet(int argc, char **argv)
{
    static const struct option longopts[] = {{"column", required_argument, NULL, 'C'},
                                             {"values", required_argument, NULL, 'V'},
                                             {"count", no_argument, NULL, 'c'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"hex", no_argument, NULL, 'x'},
                                             {"list", no_argument, NULL, 'l'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *column = NULL, *values_path = NULL;
    bool count_only = false, json = false, list = false, hex = false;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":clxh", longopts, NULL)) != -1) {
        switch (c) {
        case 'C': column = optarg; break;
        case 'V': values_path = optarg; break;
        case 'c': count_only = true; break;
        case 'j': json = true; break;
        case 'x': hex = true; break;
        case 'l': list = true; break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    /* operands: the files (ending in .parquet, or every operand with --list or
     * --values), then the values */
    int first = optind, nfiles = 0;
    if (first == argc) return cli_usage_error("missing FILE");
    if (list || values_path) {
        nfiles = argc - first;
    } else {
        while (first + nfiles < argc) {
            const char *a = argv[first + nfiles];
            size_t n = strlen(a);
            if (n < 8 || strcmp(a + n - 8, ".parquet") != 0) break;
            nfiles++;
        }
        if (nfiles == 0) nfiles = 1; /* one file of any name, then values */
    }
    if (!list && !column) return cli_usage_error("missing --column NAME (or --list)");
    if (!list && !values_path && first + nfiles == argc) return cli_usage_error("missing VALUE (or --values FILE)");
    if (list && column) return cli_usage_error("--list and --column: list every column, or ask one");
    if (list && hex) return cli_usage_error("--hex is for values; --list asks none");

    pq_file *files = calloc((size_t)nfiles, sizeof *files);
    if (!files) return CLI_ERROR;
    int status = CLI_OK;
    for (int i = 0; i < nfiles; i++)
        if (!open_file(&files[i], argv[first + i])) status = CLI_ERROR;
    if (status != CLI_OK) {
        for (int i = 0; i < nfiles; i++) close_file(&files[i]);
        free(files);
        return status;
    }
    if (list) {
        status = list_files(files, nfiles, json);
        for (int i = 0; i < nfiles; i++) close_file(&files[i]);
        free(files);
        return status;
    }

    /* With several files the values are asked of each in turn: read them once
     * (standard input or a pipe cannot be read twice). */
    FILE *vin = NULL;
    char *values = NULL;
    size_t values_len = 0;
    if (values_path) {
        vin = strcmp(values_path, "-") == 0 ? stdin : fopen(values_path, "r");
        if (!vin) {
            cli_error("%s: %s", values_path, strerror(errno));
            for (int i = 0; i < nfiles; i++) close_file(&files[i]);
            free(files);
            return CLI_ERROR;
        }
        if (nfiles > 1) {
            FILE *mem = open_memstream(&values, &values_len);
            char chunk[65536];
            size_t got;
            while (mem && (got = fread(chunk, 1, sizeof chunk, vin)) > 0)
                if (fwrite(chunk, 1, got, mem) != got) break;
            bool failed = !mem || ferror(vin) || fclose(mem) != 0;
            if (vin != stdin) fclose(vin);
            vin = failed ? NULL : fmemopen(values, values_len, "r"); /* 0 bytes: at end (glibc >= 2.22) */
            if (!vin) {
                cli_error("%s: %s", values_path, failed ? "read error" : strerror(errno));
                free(values);
                for (int i = 0; i < nfiles; i++) close_file(&files[i]);
                free(files);
                return CLI_ERROR;
            }
        }
    }
    bool any = false, bad = false;
    char *line = NULL;
    size_t cap = 0;
    for (int i = 0; i < nfiles && status != CLI_ERROR; i++) {
        const bloomsimd_parquet_footer *ft = files[i].footer;
        int64_t col = bloomsimd_parquet_footer_find(ft, column);
        if (col < 0) {
            cli_error("%s: no column %s (skipped)", files[i].path, column);
            bad = true;
            continue;
        }
        if (hex && !is_byte_array(&ft->column[col])) {
            const char *type = bloomsimd_parquet_type_name(ft->column[col].physical_type);
            cli_error("%s: --hex: column %s is %s, not a byte array (skipped)", files[i].path, column,
                      type ? type : "of an unknown type");
            bad = true;
            continue;
        }
        bloomsimd_filter **filters = calloc(ft->row_groups ? ft->row_groups : 1, sizeof *filters);
        bool *none = calloc(ft->row_groups ? ft->row_groups : 1, sizeof *none);
        uint64_t *counts = calloc(ft->row_groups ? ft->row_groups : 1, sizeof *counts);
        if (!filters || !none || !counts) {
            cli_error("out of memory");
            status = CLI_ERROR;
        }
        for (uint32_t rg = 0; status != CLI_ERROR && rg < ft->row_groups; rg++) {
            filters[rg] = chunk_filter(&files[i], rg, (uint32_t)col, &none[rg]);
            if (!filters[rg] && !none[rg]) status = CLI_ERROR;
        }
        if (status != CLI_ERROR) {
            if (vin) {
                if (i > 0) rewind(vin);
                ssize_t n;
                while ((n = getline(&line, &cap, vin)) >= 0) {
                    if (n && line[n - 1] == '\n') line[--n] = 0;
                    if (n && line[n - 1] == '\r') line[--n] = 0;
                    ask(&files[i], nfiles > 1, col, filters, none, line, (size_t)n, hex, json, count_only, counts,
                        &any, &bad);
                }
            } else {
                for (int v = first + nfiles; v < argc; v++)
                    ask(&files[i], nfiles > 1, col, filters, none, argv[v], strlen(argv[v]), hex, json,
                        count_only, counts, &any, &bad);
            }
            if (count_only)
                for (uint32_t rg = 0; rg < ft->row_groups; rg++) {
                    if (json) {
                        printf("{\"file\":");
                        json_string(stdout, files[i].path);
                        printf(",\"row_group\":%u,\"maybe\":%llu}\n", rg, (unsigned long long)counts[rg]);
                    } else {
                        if (nfiles > 1) printf("%s\t", files[i].path);
                        printf("%u\t%llu\n", rg, (unsigned long long)counts[rg]);
                    }
                }
        }
        for (uint32_t rg = 0; filters && rg < ft->row_groups; rg++) bloomsimd_destroy(filters[rg]);
        free(filters), free(none), free(counts);
    }
    free(line);
    if (vin && vin != stdin) fclose(vin);
    free(values);
    for (int i = 0; i < nfiles; i++) close_file(&files[i]);
    free(files);
    if (fflush(stdout) != 0) {
        cli_error("write error: %s", strerror(errno));
        return CLI_ERROR;
    }
    if (status == CLI_ERROR || bad) return CLI_ERROR;
    return any ? CLI_OK : CLI_NO_MATCH;
}
