/*
 * dump.c — BF.SCANDUMP and BF.LOADCHUNK: a filter dumped and restored in
 * chunks that each fit in one bulk string.
 *
 * The dump is our payload (bsr.h): a 32-byte header, then the library's
 * serialization (the body). Iterators, as RedisBloom's clients expect them:
 *   SCANDUMP key 0   -> [1, header]
 *   SCANDUMP key c   -> [b + 1, body[c-1 .. b)]  where b = min(c-1+limit, body)
 *                    -> [0, ""]                  once c-1 reaches the end
 *   LOADCHUNK key 1 header, then LOADCHUNK key <iter> <data> for each chunk,
 *   in order (each chunk's start is iter - 1 - len).
 * limit = min(16 MiB, proto-max-bulk-len), so no chunk is ever a bulk string
 * the server would refuse.
 *
 * No half-built key. Chunks are collected outside the keyspace, per (db,
 * key), and the key appears only when the last byte has arrived and the whole
 * payload has passed the library's validation (sizes, both checksums). A
 * corrupt, truncated or abandoned sequence leaves nothing behind but its
 * buffer here, which the next header for that key (or the oldest-first limit
 * of BSR_MAX_PENDING) discards. Partial chunks are not replicated; the
 * completing chunk replicates the whole sequence (header and every chunk, in
 * one MULTI), so replicas and the AOF never hold a half sequence either,
 * even across a replica resync or an AOF rewrite mid-restore.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bsr.h"

#define BSR_MAX_CHUNK ((size_t)16 << 20)
#define BSR_MAX_PENDING 16

static size_t chunk_limit = BSR_MAX_CHUNK;

size_t bsr_chunk_limit(void) { return chunk_limit; }

void bsr_refresh_chunk_limit(RedisModuleCtx *ctx) {
    RedisModuleCallReply *r = rm_Call(ctx, "CONFIG", "cc", "GET", "proto-max-bulk-len");
    if (!r) return;
    if (rm_CallReplyType(r) == REDISMODULE_REPLY_ARRAY && rm_CallReplyLength(r) == 2) {
        size_t n;
        const char *s = rm_CallReplyStringPtr(rm_CallReplyArrayElement(r, 1), &n);
        unsigned long long v = 0;
        size_t i = 0;
        for (; s && i < n && s[i] >= '0' && s[i] <= '9' && v < (1ull << 60); i++) v = v * 10 + (unsigned)(s[i] - '0');
        if (s && i == n && v > 0) chunk_limit = v < BSR_MAX_CHUNK ? (size_t)v : BSR_MAX_CHUNK;
    }
    rm_FreeCallReply(r);
}

/* ---- BF.SCANDUMP --------------------------------------------------------------------- */

/* BF.SCANDUMP key iterator */
int bsr_cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    long long iter;
    if (rm_StringToLongLong(argv[2], &iter) != REDISMODULE_OK)
        return rm_ReplyWithError(ctx, "Second argument must be numeric");
    if (iter < 0) iter = LLONG_MAX; /* past the end */
    bsr_refresh_chunk_limit(ctx);

    /* Stateless, like RedisBloom's: each call hands out one slice of the
     * payload, and only that slice is serialized (bloomsimd_serialize_range:
     * a copy of its bytes; the first body chunk, which holds the library's
     * header, also reads the filter once for its checksums). Serializing the
     * whole filter per call would cost O(filter) per chunk: for a 254 MB
     * filter, 18 calls of ~0.25 s, each blocking the server. */
    size_t body = bloomsimd_serialized_size(f);
    if (!body) return rm_ReplyWithError(ctx, "ERR cannot serialize this filter: invalid argument");
    if (iter == 0) {
        unsigned char header[BSR_HEADER_BYTES];
        bsr_encode_header(header, body);
        rm_ReplyWithArray(ctx, 2);
        rm_ReplyWithLongLong(ctx, 1);
        return rm_ReplyWithStringBuffer(ctx, (const char *)header, BSR_HEADER_BYTES);
    }
    if ((unsigned long long)iter - 1 >= body) {
        rm_ReplyWithArray(ctx, 2);
        rm_ReplyWithLongLong(ctx, 0);
        return rm_ReplyWithStringBuffer(ctx, "", 0);
    }
    size_t at = (size_t)iter - 1, n = body - at < chunk_limit ? body - at : chunk_limit;
    char *chunk = rm_Alloc(n);
    bloomsimd_status st = bloomsimd_serialize_range(f, at, chunk, n);
    if (st != BLOOMSIMD_OK) {
        rm_Free(chunk);
        char msg[128];
        snprintf(msg, sizeof msg, "ERR cannot serialize this filter: %s", bloomsimd_status_string(st));
        return rm_ReplyWithError(ctx, msg);
    }
    rm_ReplyWithArray(ctx, 2);
    rm_ReplyWithLongLong(ctx, (long long)(at + n + 1));
    rm_ReplyWithStringBuffer(ctx, chunk, n);
    rm_Free(chunk);
    return REDISMODULE_OK;
}

/* ---- chunks being received ------------------------------------------------------------- */

typedef struct {
    int db;
    char *name; /* the key, binary-safe */
    size_t name_len;
    char *payload; /* header + the body received so far */
    size_t received; /* body bytes received */
    size_t body_len; /* announced by the header */
} bsr_pending;

static bsr_pending pending[BSR_MAX_PENDING];
static int npending;

static void pending_drop(int i) {
    rm_Free(pending[i].name);
    rm_Free(pending[i].payload);
    memmove(&pending[i], &pending[i + 1], (size_t)(npending - i - 1) * sizeof pending[0]);
    npending--;
}

void bsr_pending_clear(void) {
    while (npending) pending_drop(npending - 1);
}

static int pending_find(int db, const char *name, size_t n) {
    for (int i = 0; i < npending; i++)
        if (pending[i].db == db && pending[i].name_len == n && memcmp(pending[i].name, name, n) == 0) return i;
    return -1;
}

/* Replicates the completed sequence as LOADCHUNK commands of at most
 * chunk_limit bytes each (one MULTI: Replicate calls of one command are
 * wrapped together). */
static void replicate_payload(RedisModuleCtx *ctx, RedisModuleString *name, const char *payload, size_t body) {
    rm_Replicate(ctx, "BF.LOADCHUNK", "slb", name, 1LL, payload, (size_t)BSR_HEADER_BYTES);
    for (size_t at = 0; at < body; at += chunk_limit) {
        size_t n = body - at < chunk_limit ? body - at : chunk_limit;
        rm_Replicate(ctx, "BF.LOADCHUNK", "slb", name, (long long)(at + n + 1), payload + BSR_HEADER_BYTES + at, n);
    }
}

static int load_header(RedisModuleCtx *ctx, RedisModuleString *name, const char *data, size_t len) {
    size_t n;
    const char *s = rm_StringPtrLen(name, &n);
    int db = rm_GetSelectedDb(ctx);
    int i = pending_find(db, s, n);
    if (i >= 0) pending_drop(i); /* any header, even a bad one, restarts that key's sequence */
    uint64_t body_len = 0;
    if (len != BSR_HEADER_BYTES || bsr_decode_header(data, len, &body_len) != BSR_HDR_OK)
        return rm_ReplyWithError(ctx, "ERR received bad data");
    RedisModuleKey *key;
    bloomsimd_filter *f;
    bsr_key_state state = bsr_open(ctx, name, REDISMODULE_READ, &key, &f);
    rm_CloseKey(key);
    if (state == BSR_KEY_WRONGTYPE) return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (state == BSR_KEY_FILTER) return rm_ReplyWithError(ctx, "ERR item exists");

    if (npending == BSR_MAX_PENDING) pending_drop(0);
    bsr_pending *p = &pending[npending];
    p->name = rm_Alloc(n ? n : 1);
    p->payload = rm_Alloc(BSR_HEADER_BYTES);
    memcpy(p->name, s, n);
    memcpy(p->payload, data, BSR_HEADER_BYTES);
    p->db = db;
    p->name_len = n;
    p->received = 0;
    p->body_len = (size_t)body_len;
    npending++;
    return rm_ReplyWithSimpleString(ctx, "OK");
}

static int load_body(RedisModuleCtx *ctx, RedisModuleString *name, long long iter, const char *data, size_t len) {
    size_t n;
    const char *s = rm_StringPtrLen(name, &n);
    int i = pending_find(rm_GetSelectedDb(ctx), s, n);
    if (i < 0) {
        RedisModuleKey *key;
        bloomsimd_filter *f;
        bsr_key_state state = bsr_open(ctx, name, REDISMODULE_READ, &key, &f);
        rm_CloseKey(key);
        if (state == BSR_KEY_WRONGTYPE) return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return rm_ReplyWithError(ctx, "ERR invalid offset - no link found");
    }
    bsr_pending *p = &pending[i];
    unsigned long long end = (unsigned long long)iter - 1; /* iter >= 2 here */
    if (len == 0 || end < len) return rm_ReplyWithError(ctx, "ERR received bad data");
    if (end - len != p->received) return rm_ReplyWithError(ctx, "ERR invalid offset - no link found");
    if (end > p->body_len) return rm_ReplyWithError(ctx, "ERR invalid chunk - Too big for current filter");

    char *grown = rm_Realloc(p->payload, BSR_HEADER_BYTES + (size_t)end);
    if (!grown) return rm_ReplyWithError(ctx, "ERR Insufficient memory");
    p->payload = grown;
    memcpy(p->payload + BSR_HEADER_BYTES + p->received, data, len);
    p->received = (size_t)end;
    if (p->received < p->body_len) return rm_ReplyWithSimpleString(ctx, "OK");

    /* Complete: validate all of it, then (and only then) create the key. */
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bsr_decode(p->payload, BSR_HEADER_BYTES + p->body_len, &f);
    if (st != BLOOMSIMD_OK) {
        pending_drop(i);
        return rm_ReplyWithError(ctx, "ERR received bad data");
    }
    RedisModuleKey *key;
    bloomsimd_filter *existing;
    bsr_key_state state = bsr_open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, &key, &existing);
    if (state != BSR_KEY_EMPTY) { /* written meanwhile: never overwrite */
        rm_CloseKey(key);
        bloomsimd_destroy(f);
        pending_drop(i);
        return rm_ReplyWithError(ctx, state == BSR_KEY_WRONGTYPE ? REDISMODULE_ERRORMSG_WRONGTYPE : "ERR item exists");
    }
    bsr_set_value(key, f);
    rm_CloseKey(key);
    replicate_payload(ctx, name, p->payload, p->body_len);
    pending_drop(i);
    return rm_ReplyWithSimpleString(ctx, "OK");
}

/* BF.LOADCHUNK key iterator data */
int bsr_cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return rm_WrongArity(ctx);
    long long iter;
    if (rm_StringToLongLong(argv[2], &iter) != REDISMODULE_OK)
        return rm_ReplyWithError(ctx, "ERR Second argument must be numeric");
    size_t len;
    const char *data = rm_StringPtrLen(argv[3], &len);
    if (iter <= 0) return rm_ReplyWithError(ctx, "ERR received bad data");
    if (iter == 1) return load_header(ctx, argv[1], data, len);
    return load_body(ctx, argv[1], iter, data, len);
}
