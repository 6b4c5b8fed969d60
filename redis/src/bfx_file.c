/*
 * bfx_file.c — a filter as the library's portable file, in one bulk string:
 *
 *   BFX.EXPORT key                    -> the filter's bytes (docs/FORMAT.md)
 *   BFX.IMPORT key bytes [REPLACE]    -> OK
 *
 * The bytes are what every binding saves and loads (Python's to_bytes, Go's
 * MarshalBinary, Java's writeTo, the C library's bloomsimd_serialize, and the
 * files of the `bloomsimd` command), so a filter built offline in any of them
 * can be served from Redis, and a Redis filter can be taken home, without
 * the module's own SCANDUMP header. A text item here is the same key as the
 * same bytes added anywhere else (BF.ADD k alice is add("alice")).
 *
 * IMPORT validates the whole payload first (the library's deserialize: sizes,
 * both checksums, every field), so a bad payload is an error and changes
 * nothing. The key must not exist, or must hold a filter of ours and REPLACE
 * be given; any other value is WRONGTYPE and stays. The bit arrays come from
 * the module's allocator, so the filter shows in used_memory at once. The
 * command replicates verbatim. One bulk string is at most the server's
 * proto-max-bulk-len (512 MB by default); a larger filter travels by
 * BF.SCANDUMP / BF.LOADCHUNK instead.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bsr.h"

/* BFX.EXPORT key */
int bsrx_cmd_export(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    size_t len = bloomsimd_serialized_size(f), written = 0;
    char *buf = len ? rm_Alloc(len) : NULL;
    bloomsimd_status st = buf ? bloomsimd_serialize(f, buf, len, &written) : BLOOMSIMD_ERR_INVALID_ARGUMENT;
    if (st != BLOOMSIMD_OK || written != len) {
        if (buf) rm_Free(buf);
        char msg[128];
        snprintf(msg, sizeof msg, "ERR cannot serialize this filter: %s",
                 bloomsimd_status_string(st == BLOOMSIMD_OK ? BLOOMSIMD_ERR_CORRUPT : st));
        return rm_ReplyWithError(ctx, msg);
    }
    rm_ReplyWithStringBuffer(ctx, buf, len);
    rm_Free(buf);
    return REDISMODULE_OK;
}

/* BFX.IMPORT key bytes [REPLACE] */
int bsrx_cmd_import(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3 && argc != 4) return rm_WrongArity(ctx);
    bool replace = false;
    if (argc == 4) {
        size_t n;
        const char *s = rm_StringPtrLen(argv[3], &n);
        if (n != 7 || strncasecmp(s, "REPLACE", 7) != 0) return rm_ReplyWithError(ctx, "ERR syntax error");
        replace = true;
    }
    size_t len;
    const char *bytes = rm_StringPtrLen(argv[2], &len);
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_deserialize(&f, bytes, len);
    if (st != BLOOMSIMD_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "ERR received bad data (%s): %s", bloomsimd_status_string(st),
                 bloomsimd_last_error());
        return rm_ReplyWithError(ctx, msg);
    }
    RedisModuleKey *key;
    bloomsimd_filter *old;
    bsr_key_state state = bsr_open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &old);
    if (state == BSR_KEY_EMPTY || (state == BSR_KEY_FILTER && replace)) {
        bsr_set_value(key, f); /* frees (and uncounts) the old filter, if any */
        f = NULL;
    }
    rm_CloseKey(key);
    if (f) {
        bloomsimd_destroy(f);
        if (state == BSR_KEY_WRONGTYPE) return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return rm_ReplyWithError(ctx, "ERR item exists");
    }
    rm_ReplicateVerbatim(ctx);
    return rm_ReplyWithSimpleString(ctx, "OK");
}
