/*
 * module.c — RedisModule_OnLoad: the data type and the command table.
 *
 * Names are lower case, as RedisBloom registers them (COMMAND shows them so).
 * Every command is declared once below with its flags and key specs, so
 * ACLs (%R~ / %W~ key patterns), COMMAND INFO / COMMAND GETKEYS, replication
 * and Redis Cluster routing (the key decides the slot; BFX.MERGE's two keys
 * must share one) all see what the command does to its key.
 */
#include <stddef.h>

#include "bsr.h"

#define BSR_MODULE_NAME "bf"
#define BSR_MODULE_VERSION 10000 /* 1.0.0 */

enum { RO_ACCESS, RO_META, RW_INSERT, RW_UPDATE, OW_REPLACE };

static const uint64_t bsr_key_flags[] = {
    [RO_ACCESS] = REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS, /* reads the items */
    [RO_META] = REDISMODULE_CMD_KEY_RO,                                 /* reads counts, not items */
    [RW_INSERT] = REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_INSERT,  /* adds items, may create */
    [RW_UPDATE] = REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_UPDATE,  /* rewrites the content */
    [OW_REPLACE] = REDISMODULE_CMD_KEY_OW | REDISMODULE_CMD_KEY_UPDATE, /* replaces the value (RESTORE's) */
};

typedef struct {
    const char *name;
    RedisModuleCmdFunc fn;
    const char *flags;
    int arity;
    int key_access;  /* access of the key at argv[1] */
    int key2_access; /* -1, or access of a second key at argv[2] */
    const char *summary;
} bsr_command;

static const bsr_command bsr_commands[] = {
    {"bf.reserve", bsr_cmd_reserve, "write deny-oom", -4, RW_INSERT, -1,
     "Creates an empty Bloom filter with an error rate and a capacity"},
    {"bf.add", bsr_cmd_add, "write deny-oom fast", 3, RW_INSERT, -1, "Adds an item; 1 if it was newly added"},
    {"bf.madd", bsr_cmd_madd, "write deny-oom", -3, RW_INSERT, -1, "Adds items as one batch"},
    {"bf.insert", bsr_cmd_insert, "write deny-oom", -4, RW_INSERT, -1,
     "Adds items, creating the filter with the given parameters if needed"},
    {"bf.exists", bsr_cmd_exists, "readonly fast", 3, RO_ACCESS, -1, "Checks whether an item may be present"},
    {"bf.mexists", bsr_cmd_mexists, "readonly fast", -3, RO_ACCESS, -1, "Checks items as one batch"},
    {"bf.info", bsr_cmd_info, "readonly fast", -2, RO_META, -1, "Capacity, size, filters, items, expansion"},
    {"bf.card", bsr_cmd_card, "readonly fast", 2, RO_META, -1, "Number of items added (counted new)"},
    {"bf.debug", bsr_cmd_debug, "readonly fast", 2, RO_META, -1, "Items, then size, bits, k, capacity, FPR"},
    {"bf.scandump", bsr_cmd_scandump, "readonly", 3, RO_ACCESS, -1, "Dumps a filter in chunks"},
    {"bf.loadchunk", bsr_cmd_loadchunk, "write deny-oom", 4, RW_UPDATE, -1,
     "Restores a filter from BF.SCANDUMP chunks"},
    {"bfx.madd64", bsrx_cmd_madd64, "write deny-oom", -3, RW_INSERT, -1,
     "Adds 64-bit little-endian keys packed in one string"},
    {"bfx.mexists64", bsrx_cmd_mexists64, "readonly", -3, RO_ACCESS, -1,
     "Checks 64-bit little-endian keys packed in one string"},
    {"bfx.merge", bsrx_cmd_merge, "write deny-oom", 3, RW_UPDATE, RO_ACCESS,
     "Union of a compatible filter into another"},
    {"bfx.estimate", bsrx_cmd_estimate, "readonly fast", 2, RO_META, -1, "Distinct items estimated from the fill"},
    {"bfx.info", bsrx_cmd_info, "readonly fast", 2, RO_META, -1, "Layout, u64 hash, k, kernel, bits per key, FPR now"},
    {"bfx.export", bsrx_cmd_export, "readonly", 2, RO_ACCESS, -1, "The filter as the library's portable file"},
    {"bfx.import", bsrx_cmd_import, "write deny-oom", -3, OW_REPLACE, -1,
     "A filter from the library's portable file (any binding's, or BFX.EXPORT's)"},
};

static const RedisModuleCommandInfoVersion bsr_info_version = {
    1, sizeof(RedisModuleCommandHistoryEntry), sizeof(RedisModuleCommandKeySpec), sizeof(RedisModuleCommandArg)};

static void key_spec_at(RedisModuleCommandKeySpec *spec, int pos, int access) {
    spec->flags = bsr_key_flags[access];
    spec->begin_search_type = REDISMODULE_KSPEC_BS_INDEX;
    spec->bs.index.pos = pos;
    spec->find_keys_type = REDISMODULE_KSPEC_FK_RANGE;
    spec->fk.range.lastkey = 0; /* one key */
    spec->fk.range.keystep = 1;
    spec->fk.range.limit = 0;
}

static int register_command(RedisModuleCtx *ctx, const bsr_command *c) {
    int last = c->key2_access >= 0 ? 2 : 1;
    if (rm_CreateCommand(ctx, c->name, c->fn, c->flags, 1, last, 1) != REDISMODULE_OK) return REDISMODULE_ERR;
    RedisModuleCommandKeySpec specs[3] = {{0}};
    key_spec_at(&specs[0], 1, c->key_access);
    if (c->key2_access >= 0) key_spec_at(&specs[1], 2, c->key2_access);
    RedisModuleCommandInfo info = {0};
    info.version = &bsr_info_version;
    info.summary = c->summary;
    info.since = "1.0.0";
    info.arity = c->arity;
    info.key_specs = specs;
    return rm_SetCommandInfo(rm_GetCommand(ctx, c->name), &info);
}

/* Bit arrays come from Redis's allocator, so filters count in used_memory,
 * maxmemory and MEMORY USAGE like any other value. The library still aligns
 * them to 64 bytes and advises huge pages on large arrays. zmalloc is
 * thread-safe, so a lazy free on a background thread is fine. */
static void *bsr_lib_alloc(size_t bytes, void *user) {
    (void)user;
    return rm_Calloc(1, bytes);
}
static void bsr_lib_free(void *ptr, size_t bytes, void *user) {
    (void)bytes;
    (void)user;
    rm_Free(ptr);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

__attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv,
                                                              int argc) {
    (void)argv;
    if (argc != 0) return REDISMODULE_ERR; /* no load-time options */
    if (rm_api_init(ctx, BSR_MODULE_NAME, BSR_MODULE_VERSION) != REDISMODULE_OK) return REDISMODULE_ERR;
    static const bloomsimd_allocator allocator = {bsr_lib_alloc, bsr_lib_free, NULL};
    bloomsimd_set_allocator(&allocator);

    RedisModuleTypeMethods tm = {0};
    tm.version = BSR_TYPE_METHOD_VERSION;
    tm.rdb_load = bsr_rdb_load;
    tm.rdb_save = bsr_rdb_save;
    tm.aof_rewrite = bsr_aof_rewrite;
    tm.mem_usage = bsr_mem_usage;
    tm.digest = bsr_digest;
    tm.free = bsr_free;
    tm.copy = bsr_copy;
    bsr_type = rm_CreateDataType(ctx, BSR_TYPE_NAME, BSR_ENCODING_VERSION, &tm);
    if (!bsr_type) return REDISMODULE_ERR;
    /* A short or hostile RDB/RESTORE payload is an error to report, not a
     * reason for the server to exit. */
    rm_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);

    for (size_t i = 0; i < sizeof bsr_commands / sizeof bsr_commands[0]; i++) {
        if (register_command(ctx, &bsr_commands[i]) != REDISMODULE_OK) {
            rm_Log(ctx, "warning", "bloomsimd: cannot register %s", bsr_commands[i].name);
            return REDISMODULE_ERR;
        }
    }
    if (bsr_stats_init(ctx) != REDISMODULE_OK) return REDISMODULE_ERR;
    bsr_refresh_chunk_limit(ctx);
    rm_Log(ctx, "notice", "bloomsimd %s loaded (kernel %s)", bloomsimd_version_string(),
           bloomsimd_default_kernel() ? bloomsimd_default_kernel() : "none");
    return REDISMODULE_OK;
}
