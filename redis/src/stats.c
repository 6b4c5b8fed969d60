/*
 * stats.c — what operators watch: the module's INFO sections and its
 * keyspace events (docs/OPERATIONS.md says what each field means).
 *
 * Totals are counters kept as filters change, never a scan of the keyspace
 * (a scan would cost INFO, which monitoring calls every few seconds, a walk
 * over every key). Each filter value adds its share (bsr_share) when it
 * enters the server (bsr_set_value: created by a command, restored by
 * LOADCHUNK, imported; and the values Redis takes from rdb_load and copy:
 * RDB and AOF-preamble loads, RESTORE, DEBUG RELOAD, a replica's full sync,
 * COPY) and takes it away when Redis frees it (DEL, an overwrite, FLUSHALL,
 * expiry, eviction, the flush before a reload or a sync, a loaded RESTORE
 * payload Redis then drops). A command that changes a filter takes its share
 * before and after and adds the difference. RENAME, MOVE and SWAPDB move a
 * value without freeing it, so they change nothing, as they should. The sum
 * therefore always equals what a scan would find; the tests compare the two
 * after every kind of change.
 *
 * The per-key shares are read from bloomsimd_get_info (a few loads per
 * layer), once more per write command than before, and nothing here runs
 * per item.
 *
 * Frees can run on a background thread (FLUSHALL ASYNC, a replica's lazy
 * flush), so the totals are relaxed atomics: INFO reads each at some value
 * it had, and they agree again as soon as the frees are done.
 */
#include <string.h>

#include "bsr.h"

/* The share at or past which a filter counts as nearly full, and has its
 * bf.80pct event: the usual rule, alert at 80% and grow or rebuild before
 * the FPR climbs. */
#define BSR_NEARLY_FULL 0.8

enum { KINDS = 3 };
static const char *const kind_names[KINDS] = {"nonscaling", "scaling", "window"};

static struct {
    long long keys[KINDS], bytes[KINDS], items[KINDS], layers[KINDS];
    long long capacity;    /* BF.INFO Capacity, summed */
    long long nearly_full; /* keys at or past 80% of their capacity */
    long long full;        /* keys at or past 100% */
    long long refused;     /* inserts a full NONSCALING filter refused (only grows) */
} totals;

static const char *server_layout = "unknown";

void bsr_share_of(const bloomsimd_filter *f, bsr_share *s, bloomsimd_info *info) {
    bloomsimd_info local;
    if (!info) info = &local;
    bloomsimd_get_info(f, info);
    s->kind = info->generations ? BSR_KIND_WINDOW : info->growth ? BSR_KIND_SCALING : BSR_KIND_NONSCALING;
    s->bytes = (long long)bsr_mem_usage_of(info);
    s->items = (long long)info->items;
    s->layers = info->layers;
    s->capacity = (long long)bsr_total_capacity(info);
    /* the library's load: over the first layer's capacity for a scaling
     * filter, the fullest generation's for a window */
    s->level = info->load >= 1.0 ? 2 : info->load >= BSR_NEARLY_FULL ? 1 : 0;
}

static void add(long long *total, long long delta) {
    if (delta) __atomic_fetch_add(total, delta, __ATOMIC_RELAXED);
}

/* totals += sign * s */
static void apply(const bsr_share *s, int sign) {
    add(&totals.keys[s->kind], sign);
    add(&totals.bytes[s->kind], sign * s->bytes);
    add(&totals.items[s->kind], sign * s->items);
    add(&totals.layers[s->kind], sign * s->layers);
    add(&totals.capacity, sign * s->capacity);
    add(&totals.nearly_full, sign * (s->level >= 1));
    add(&totals.full, sign * (s->level >= 2));
}

static void stats_enter(const bloomsimd_filter *f) {
    bsr_share s;
    bsr_share_of(f, &s, NULL);
    apply(&s, +1);
}

void bsr_stats_enter(const bloomsimd_filter *f) {
    if (f) stats_enter(f);
}

void bsr_stats_leave(const bloomsimd_filter *f) {
    if (!f) return;
    bsr_share s;
    bsr_share_of(f, &s, NULL);
    apply(&s, -1);
}

int bsr_set_value(RedisModuleKey *key, bloomsimd_filter *f) {
    stats_enter(f);
    return rm_ModuleTypeSetValue(key, bsr_type, f);
}

void bsr_stats_changed(RedisModuleCtx *ctx, RedisModuleString *name, const bsr_share *before,
                       const bloomsimd_filter *f) {
    bsr_share after;
    bsr_share_of(f, &after, NULL);
    /* the difference, field by field: the kind never changes in place */
    bsr_share diff = {after.kind, after.bytes - before->bytes, after.items - before->items,
                      after.layers - before->layers, after.capacity - before->capacity, 0};
    add(&totals.bytes[diff.kind], diff.bytes);
    add(&totals.items[diff.kind], diff.items);
    add(&totals.layers[diff.kind], diff.layers);
    add(&totals.capacity, diff.capacity);
    add(&totals.nearly_full, (after.level >= 1) - (before->level >= 1));
    add(&totals.full, (after.level >= 2) - (before->level >= 2));
    /* in the order they happened: a command that crosses 80% and grows
     * crossed 80% of the first layer first */
    if (before->level == 0 && after.level >= 1)
        rm_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "bf.80pct", name);
    if (after.kind == BSR_KIND_SCALING && after.layers > before->layers)
        rm_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "bf.grow", name);
}

void bsr_stats_refused(RedisModuleCtx *ctx, RedisModuleString *name) {
    add(&totals.refused, 1);
    rm_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "bf.full", name);
}

static long long get(const long long *total) { return __atomic_load_n(total, __ATOMIC_RELAXED); }

/* INFO bf (and INFO modules, INFO everything). Field names get the module's
 * "bf_" prefix from the server. The first section repeats valkey-bloom's
 * core metrics under its names, which redis_exporter already knows; the
 * second has the rest. */
static void info_func(RedisModuleInfoCtx *ctx, int for_crash_report) {
    (void)for_crash_report;
    long long keys = 0, bytes = 0, items = 0, layers = 0;
    for (int k = 0; k < KINDS; k++) {
        keys += get(&totals.keys[k]);
        bytes += get(&totals.bytes[k]);
        items += get(&totals.items[k]);
        layers += get(&totals.layers[k]);
    }
    if (rm_InfoAddSection(ctx, "bloom_core_metrics") == REDISMODULE_OK) {
        rm_InfoAddFieldLongLong(ctx, "bloom_total_memory_bytes", bytes);
        rm_InfoAddFieldLongLong(ctx, "bloom_num_objects", keys);
        rm_InfoAddFieldLongLong(ctx, "bloom_num_filters_across_objects", layers);
        rm_InfoAddFieldLongLong(ctx, "bloom_num_items_across_objects", items);
        rm_InfoAddFieldLongLong(ctx, "bloom_capacity_across_objects", get(&totals.capacity));
    }
    if (rm_InfoAddSection(ctx, "filters") == REDISMODULE_OK) {
        const char *kernel = bloomsimd_default_kernel();
        rm_InfoAddFieldCString(ctx, "kernel", kernel ? kernel : "none");
        rm_InfoAddFieldCString(ctx, "layout", server_layout);
        for (int k = 0; k < KINDS; k++) {
            char field[32];
            static const char *const what[4] = {"keys", "bytes", "items", "layers"};
            const long long *values[4] = {totals.keys, totals.bytes, totals.items, totals.layers};
            for (int w = 0; w < 4; w++) {
                size_t n = strlen(kind_names[k]);
                memcpy(field, kind_names[k], n);
                field[n] = '_';
                strcpy(field + n + 1, what[w]);
                rm_InfoAddFieldLongLong(ctx, field, get(&values[w][k]));
            }
        }
        rm_InfoAddFieldLongLong(ctx, "keys_at_80pct", get(&totals.nearly_full));
        rm_InfoAddFieldLongLong(ctx, "keys_at_100pct", get(&totals.full));
        rm_InfoAddFieldLongLong(ctx, "full_refusals", get(&totals.refused));
    }
}

int bsr_stats_init(RedisModuleCtx *ctx) {
    /* The layout new filters get here: the library's choice for the
     * server's kernel, as bloomsimd_size_for reports it. */
    bloomsimd_options o;
    bloomsimd_sizing sizing;
    memset(&o, 0, sizeof o);
    o.capacity = BSR_DEFAULT_CAPACITY;
    o.fpr = BSR_DEFAULT_ERROR_RATE;
    if (bloomsimd_size_for(&o, &sizing) == BLOOMSIMD_OK && bloomsimd_layout_name(sizing.layout))
        server_layout = bloomsimd_layout_name(sizing.layout);
    return rm_RegisterInfoFunc(ctx, info_func);
}
