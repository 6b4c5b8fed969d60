/*
 * cmd_info.c — `bloomsimd info FILE [--json] [--alarm SHARE]`: what the
 * library reports about a filter file (bloomsimd_get_info and
 * bloomsimd_get_fill_info: fill ratio, estimated keys, FPR now, load) plus
 * what the file's header says (format version, checksum state).
 *
 * --alarm is for a cron job: exit 1 when a filter has taken SHARE of its
 * capacity or more (the library's load: its counted keys, or its estimated
 * keys where the keys were not counted), so a check needs no parsing. It
 * changes nothing else: without it the exit statuses are 0 and 2 as before.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "filterfile.h"

static void help(void)
{
    printf("Usage: bloomsimd info [OPTION]... FILE...\n"
           "Show each filter FILE's geometry, k, kernel, bits per key, fill, estimated number\n"
           "of keys, predicted false-positive rate now, format version and checksum state.\n"
           "A file whose writer was killed before syncing is shown, marked 'stale'.\n\n"
           "  -j, --json             one JSON object per FILE, one per line\n"
           "  -a, --alarm SHARE      exit 1 if a FILE has taken SHARE of its capacity or more\n"
           "                         (0.8 or 80%%: its counted keys, or the keys estimated from\n"
           "                         the fill where keys are not counted; a growing filter:\n"
           "                         of its first layer's capacity); each such FILE is named\n"
           "                         on stderr. For cron jobs and monitoring checks.\n"
           "  -h, --help             this help\n\n"
           "Exit status: 0 shown, 1 shown and some FILE at or past the --alarm share,\n"
           "2 error (an unreadable FILE; the others are still shown and checked).\n");
}

typedef struct facts {
    const char *path;
    ff_header h;
    bloomsimd_info info;
    bool stale;
    bloomsimd_fill_info fill;
    uint64_t file_bytes;
} facts;

static void flags_text(uint32_t flags, char *buf, size_t cap)
{
    flags &= BLOOMSIMD_CONCURRENT | BLOOMSIMD_NO_HUGEPAGES; /* the hash flags have their own line */
    snprintf(buf, cap, "%s%s%s", flags ? "" : "none", flags & BLOOMSIMD_CONCURRENT ? "concurrent" : "",
             flags & BLOOMSIMD_NO_HUGEPAGES ? (flags & BLOOMSIMD_CONCURRENT ? ", no-hugepages" : "no-hugepages")
                                            : "");
}

static const char *checksum_text(const facts *x)
{
    if (x->stale) return "stale (written through a mapping, never synced since)";
    if (x->h.state_flags & 1u) return "ok (synced by a writable mapping)";
    return "ok";
}

static void print_text(const facts *x)
{
    const bloomsimd_info *i = &x->info;
    char flags[64];
    flags_text(i->flags, flags, sizeof flags);
    printf("file:              %s\n", x->path);
    printf("format:            version %u, layout %u, hash %s (id %u)\n", x->h.format_version, x->h.layout_id,
           x->h.hash_id == 2   ? "XXH64, Parquet's"
           : x->h.hash_id == 3 ? "mum for 64-bit keys, XXH3-64 for byte keys"
                               : "XXH3-64",
           x->h.hash_id);
    printf("checksum:          %s\n", checksum_text(x));
    printf("file size:         %llu bytes (%.1f MiB)\n", (unsigned long long)x->file_bytes,
           (double)x->file_bytes / 1048576.0);
    if (i->capacity && i->growth)
        printf("capacity:          %llu keys in the first layer (the filter grows past it)\n",
               (unsigned long long)i->capacity);
    else if (i->capacity) printf("capacity:          %llu keys\n", (unsigned long long)i->capacity);
    else printf("capacity:          not given (sized by bits)\n");
    printf("target FPR:        %.6g%s\n", i->fpr, i->capacity ? "" : " (model at capacity)");
    printf("blocks:            %llu x %u bits (layout %s)\n", (unsigned long long)i->blocks,
           i->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? BLOOMSIMD_SPLIT256_BLOCK_BITS : BLOOMSIMD_BLOCK_BITS,
           bloomsimd_layout_name(i->layout) ? bloomsimd_layout_name(i->layout) : "unknown");
    printf("bits:              %llu (%.1f MiB)\n", (unsigned long long)i->bits, (double)i->memory_bytes / 1048576.0);
    if (i->capacity && !i->growth) printf("bits/key:          %.2f at capacity\n", (double)i->bits / (double)i->capacity);
    else if (i->growth && x->fill.estimated_items >= 1 && x->fill.fill_ratio < 1.0)
        printf("bits/key:          %.2f at the estimated keys (all layers)\n",
               (double)i->bits / x->fill.estimated_items);
    printf("k:                 %u\n", i->k);
    printf("seed:              %llu (0x%llx)\n", (unsigned long long)i->seed, (unsigned long long)i->seed);
    printf("kernel:            %s\n", i->kernel);
    printf("flags:             %s\n", flags);
    if (i->growth && i->tightening > 0)
        printf("growth:            x%u per layer, %u layer%s (geometric schedule, tightening %g)\n", i->growth,
               i->layers, i->layers == 1 ? "" : "s", i->tightening);
    else if (i->growth)
        printf("growth:            x%u per layer, %u layer%s (budget schedule)\n", i->growth, i->layers,
               i->layers == 1 ? "" : "s");
    if (i->generations) printf("window:            %u generations, %llu rotations\n", i->generations,
                               (unsigned long long)i->rotations);
    if (i->items) printf("keys counted new:  %llu (by insert-and-report-new in this process)\n",
                         (unsigned long long)i->items);
    printf("fill:              %.4f%% of bits set\n", 100.0 * x->fill.fill_ratio);
    if (x->fill.fill_ratio >= 1.0) {
        printf("estimated keys:    saturated (every bit set): every query answers 'maybe'\n");
    } else {
        printf("estimated keys:    %.0f\n", x->fill.estimated_items);
        printf("FPR now:           %.6g (model at the estimated keys)\n", x->fill.fpr_now);
    }
    if (i->capacity) {
        const char *of = i->generations ? " (the fullest generation)"
                         : i->growth    ? " of the first layer (the filter grows past it)"
                                        : "";
        printf("load:              %.2f%% of capacity%s, by %s%s\n", 100.0 * x->fill.load, of,
               !i->generations && !i->growth && !i->items ? "the estimated keys" : "the counted keys",
               !i->growth && x->fill.load > 1.0 ? ", OVER CAPACITY" : "");
    }
}

/* JSON numbers: finite ones as is, the rest as null. */
static void json_number(const char *name, double v, const char *sep)
{
    if (isfinite(v)) printf("\"%s\":%.17g%s", name, v, sep);
    else printf("\"%s\":null%s", name, sep);
}

static void json_string(const char *name, const char *s, const char *sep)
{
    printf("\"%s\":\"", name);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    printf("\"%s", sep);
}

static void print_json(const facts *x, double alarm)
{
    const bloomsimd_info *i = &x->info;
    printf("{");
    json_string("file", x->path, ",");
    printf("\"format_version\":%u,\"layout\":%u,\"hash_id\":%u,", x->h.format_version, x->h.layout_id,
           x->h.hash_id);
    printf("\"checksum\":\"%s\",\"dirty_flag\":%s,", x->stale ? "stale" : "ok", x->h.state_flags & 1u ? "true" : "false");
    printf("\"file_bytes\":%llu,\"capacity\":%llu,", (unsigned long long)x->file_bytes,
           (unsigned long long)i->capacity);
    json_number("target_fpr", i->fpr, ",");
    printf("\"blocks\":%llu,\"bits\":%llu,\"memory_bytes\":%llu,", (unsigned long long)i->blocks,
           (unsigned long long)i->bits, (unsigned long long)i->memory_bytes);
    json_number("bits_per_key", i->capacity ? (double)i->bits / (double)i->capacity : NAN, ",");
    printf("\"k\":%u,\"seed\":%llu,", i->k, (unsigned long long)i->seed);
    printf("\"growth\":%u,\"layers\":%u,\"generations\":%u,", i->growth, i->layers, i->generations);
    json_string("kernel", i->kernel, ",");
    printf("\"concurrent\":%s,\"no_hugepages\":%s,", i->flags & BLOOMSIMD_CONCURRENT ? "true" : "false",
           i->flags & BLOOMSIMD_NO_HUGEPAGES ? "true" : "false");
    json_number("fill", x->fill.fill_ratio, ",");
    printf("\"saturated\":%s,", x->fill.fill_ratio >= 1.0 ? "true" : "false");
    json_number("estimated_keys", x->fill.estimated_items, ",");
    json_number("fpr_now", x->fill.fpr_now, ",");
    printf("\"items\":%llu,", (unsigned long long)i->items);
    json_number("load", x->fill.load, alarm > 0 ? "," : "");
    if (alarm > 0) printf("\"alarm\":%s", x->fill.load >= alarm ? "true" : "false");
    printf("}\n");
}

static bool gather(const char *path, facts *x)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    bloomsimd_filter *f = NULL;
    errno = 0;
    bloomsimd_status st = bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY);
    int err = errno;
    if (st == BLOOMSIMD_ERR_CORRUPT &&
        bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY | BLOOMSIMD_MAP_ACCEPT_UNSYNCED) == BLOOMSIMD_OK) {
        st = BLOOMSIMD_OK;
        x->stale = true;
    }
    if (st != BLOOMSIMD_OK) {
        ff_report_open_error(path, st, err);
        return false;
    }
    ff_read_header(path, &x->h);
    x->file_bytes = x->h.file_bytes;
    bloomsimd_get_info(f, &x->info);
    bloomsimd_get_fill_info(f, &x->fill);
    /* info.kernel points into the library's static table: it outlives f. */
    bloomsimd_destroy(f);
    return true;
}

int cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {{"json", no_argument, NULL, 'j'},
                                             {"alarm", required_argument, NULL, 'a'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool json = false;
    double alarm = 0; /* 0: no --alarm */
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ja:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'a':
            if (!cli_parse_fraction("--alarm", optarg, 1e-4, 1000.0, &alarm)) return CLI_ERROR;
            break;
        case 'h': help(); return CLI_OK;
        default: return cli_bad_option(c, argv, optind, optopt);
        }
    }
    if (optind == argc) return cli_usage_error("missing FILE");
    bool error = false, alarmed = false;
    for (int i = optind; i < argc; i++) {
        facts x;
        if (!gather(argv[i], &x)) {
            error = true;
            continue;
        }
        if (json) print_json(&x, alarm);
        else {
            if (i > optind) printf("\n");
            print_text(&x);
        }
        if (alarm > 0 && x.fill.load >= alarm) {
            alarmed = true;
            cli_note("%s: at %.2f%% of its capacity (alarm at %g%%)", argv[i], 100.0 * x.fill.load, 100.0 * alarm);
        }
    }
    int status = error ? CLI_ERROR : alarmed ? CLI_NO_MATCH : CLI_OK;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error: %s", strerror(errno));
        return CLI_ERROR;
    }
    return status;
}
