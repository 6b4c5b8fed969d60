/*
 * bf_type.c — the "bloomsimd" data type: keys, creation, the payload
 * encoding, and the type callbacks (RDB, AOF rewrite, digest, free, copy,
 * memory usage).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bsr.h"

RedisModuleType *bsr_type;

/* A key made by BF.ADD, BF.MADD or BFX.MADD64 gets the library's default
 * 64-bit hash (XXH3): only BF.RESERVE and BF.INSERT take U64HASH. */
const bsr_create_opts bsr_defaults = {.capacity = BSR_DEFAULT_CAPACITY,
                                      .error_rate = BSR_DEFAULT_ERROR_RATE,
                                      .expansion = BSR_DEFAULT_EXPANSION,
                                      .autocreate = true,
                                      .u64_hash = 0};

#define BSR_HEADER_PAD 0xA5
static const char bsr_magic[8] = {'B', 'S', 'I', 'M', 'D', 'R', 'D', 'B'};

bsr_key_state bsr_open(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleKey **key,
                       bloomsimd_filter **filter) {
    *filter = NULL;
    *key = rm_OpenKey(ctx, name, mode);
    int type = rm_KeyType(*key);
    if (type == REDISMODULE_KEYTYPE_EMPTY) return BSR_KEY_EMPTY;
    if (type != REDISMODULE_KEYTYPE_MODULE || rm_ModuleTypeGetType(*key) != bsr_type) return BSR_KEY_WRONGTYPE;
    *filter = rm_ModuleTypeGetValue(*key);
    return BSR_KEY_FILTER;
}

bloomsimd_filter *bsr_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode) {
    RedisModuleKey *key;
    bloomsimd_filter *f;
    bsr_key_state state = bsr_open(ctx, name, mode, &key, &f);
    rm_CloseKey(key); /* the value outlives the handle within the command */
    if (state == BSR_KEY_EMPTY) rm_ReplyWithError(ctx, "ERR not found");
    if (state == BSR_KEY_WRONGTYPE) rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    return f;
}

bloomsimd_filter *bsr_open_or_create(RedisModuleCtx *ctx, RedisModuleString *name, const bsr_create_opts *o,
                                      RedisModuleKey **key) {
    bloomsimd_filter *f;
    switch (bsr_open(ctx, name, REDISMODULE_READ | REDISMODULE_WRITE, key, &f)) {
    case BSR_KEY_FILTER:
        return f;
    case BSR_KEY_WRONGTYPE:
        rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return NULL;
    case BSR_KEY_EMPTY:
        break;
    }
    if (!o->autocreate) {
        rm_ReplyWithError(ctx, "ERR not found");
        return NULL;
    }
    bloomsimd_status st = bsr_create(&f, o);
    if (st != BLOOMSIMD_OK) {
        bsr_reply_create_error(ctx, st, o->capacity, o->error_rate, o->expansion);
        return NULL;
    }
    bsr_set_value(*key, f);
    return f;
}

/* The smallest error rate a filter can be built for: its first layer's
 * share of the rate must stay >= the library's 1e-10 (NONSCALING: all of
 * it, with the margin; scaling: BLOOMSIMD_FIRST_LAYER_SHARE). */
static double smallest_error_rate(uint32_t expansion) {
    return BLOOMSIMD_MIN_FPR / (expansion ? BLOOMSIMD_FIRST_LAYER_SHARE : BSR_FPR_MARGIN);
}

bool bsr_parse_u64_hash(RedisModuleString *arg, bsr_create_opts *o) {
    size_t n;
    const char *s = rm_StringPtrLen(arg, &n);
    if (n == 4 && strncasecmp(s, "XXH3", 4) == 0)
        o->u64_hash = BLOOMSIMD_U64_XXH3;
    else if (n == 3 && strncasecmp(s, "MUM", 3) == 0)
        o->u64_hash = BLOOMSIMD_U64_MUM;
    else
        return false;
    return true;
}

bloomsimd_status bsr_create(bloomsimd_filter **out, const bsr_create_opts *c) {
    bloomsimd_options o;
    memset(&o, 0, sizeof o);
    o.capacity = c->capacity;
    o.fpr = c->expansion ? c->error_rate : c->error_rate * BSR_FPR_MARGIN;
    o.growth = c->expansion; /* tightening 0: the budget schedule; every layer has the filter's hash */
    o.flags = c->u64_hash;
    return bloomsimd_create_with(out, &o);
}

/* RedisBloom answers "ERR could not create filter" for every filter it cannot
 * build; we keep that prefix (clients match on it) and say why, in the
 * client's own terms: its capacity and error rate, not the library's
 * per-layer figures. */
int bsr_reply_create_error(RedisModuleCtx *ctx, bloomsimd_status st, uint64_t capacity, double error_rate,
                           uint32_t expansion) {
    char msg[320];
    /* (printed with 3 digits after rounding up by 0.5%, so the figure shown is one that builds) */
    double smallest_rate = smallest_error_rate(expansion);
    if (st == BLOOMSIMD_ERR_NO_MEMORY) return rm_ReplyWithError(ctx, "ERR Insufficient memory to create filter");
    if (st == BLOOMSIMD_ERR_TOO_LARGE)
        snprintf(msg, sizeof msg,
                 "ERR could not create filter: capacity %llu at error rate %.15g needs more than the largest "
                 "filter (2^32 blocks)",
                 (unsigned long long)capacity, error_rate);
    else if (st == BLOOMSIMD_ERR_INVALID_ARGUMENT && error_rate < smallest_rate)
        snprintf(msg, sizeof msg,
                 "ERR could not create filter: error rate %.15g is below the smallest this module builds (%.3g%s)",
                 error_rate, smallest_rate * 1.005,
                 !expansion ? " for NONSCALING" : expansion == 1 ? " at EXPANSION 1" : " at EXPANSION 2 or more");
    else /* another reason, in the library's words */
        snprintf(msg, sizeof msg, "ERR could not create filter: %s", bloomsimd_last_error());
    return rm_ReplyWithError(ctx, msg);
}

int bsr_reply_grow_error(RedisModuleCtx *ctx, bloomsimd_status st) {
    if (st == BLOOMSIMD_ERR_NO_MEMORY) return rm_ReplyWithError(ctx, "ERR Insufficient memory to grow filter");
    /* TOO_LARGE: the layer limit, 2^32 blocks, or a layer's FPR below 1e-10. */
    return rm_ReplyWithError(ctx, "Maximum expansions reached");
}

uint64_t bsr_total_capacity(const bloomsimd_info *info) {
    if (info->growth == 0) return info->capacity;
    uint64_t total = 0, layer = info->capacity;
    for (uint32_t i = 0; i < info->layers; i++) {
        total = total + layer < total ? UINT64_MAX : total + layer;
        layer = layer > UINT64_MAX / info->growth ? UINT64_MAX : layer * info->growth;
    }
    return total;
}

size_t bsr_mem_usage_of(const bloomsimd_info *info) {
    /* The library's own objects next to the bit arrays: a 512-byte filter
     * struct per layer, its slot in the layer table and the allocator's
     * overhead; 640 bytes a layer is a slight over-estimate (a chain can have
     * thousands of one-block layers, where this is most of its memory). */
    return (size_t)info->memory_bytes + 640u * (info->layers ? info->layers : 1);
}

size_t bsr_mem_usage(const void *value) {
    bloomsimd_info info;
    bloomsimd_get_info(value, &info);
    return bsr_mem_usage_of(&info);
}

/* ---- payload ----------------------------------------------------------------------- */

static uint64_t fnv1a64(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

void bsr_encode_header(unsigned char out[BSR_HEADER_BYTES], uint64_t body_len) {
    memset(out, 0, BSR_HEADER_BYTES);
    memset(out + 24, BSR_HEADER_PAD, BSR_HEADER_SUM_AT - 24);
    memcpy(out, bsr_magic, 8);
    put_u32(out + 8, BSR_ENCODING_VERSION);
    put_u64(out + 16, body_len);
    put_u64(out + BSR_HEADER_SUM_AT, fnv1a64(out, BSR_HEADER_SUM_AT));
}

char *bsr_encode(const bloomsimd_filter *filter, size_t *len, bloomsimd_status *st) {
    bloomsimd_status ignored;
    if (!st) st = &ignored;
    *st = BLOOMSIMD_ERR_INVALID_ARGUMENT; /* what serialize says of a filter it cannot write */
    size_t body = bloomsimd_serialized_size(filter);
    if (!body || body > SIZE_MAX - BSR_HEADER_BYTES) return NULL;
    unsigned char *buf = rm_Alloc(BSR_HEADER_BYTES + body);
    bsr_encode_header(buf, body);
    size_t written = 0;
    *st = bloomsimd_serialize(filter, buf + BSR_HEADER_BYTES, body, &written);
    if (*st != BLOOMSIMD_OK || written != body) {
        if (*st == BLOOMSIMD_OK) *st = BLOOMSIMD_ERR_CORRUPT;
        rm_Free(buf);
        return NULL;
    }
    *len = BSR_HEADER_BYTES + body;
    return (char *)buf;
}

bsr_header_status bsr_decode_header(const char *buf, size_t len, uint64_t *body_len) {
    const unsigned char *p = (const unsigned char *)buf;
    if (!buf || len < BSR_HEADER_BYTES || memcmp(p, bsr_magic, 8) != 0) return BSR_HDR_CORRUPT;
    if (get_u64(p + BSR_HEADER_SUM_AT) != fnv1a64(p, BSR_HEADER_SUM_AT)) return BSR_HDR_CORRUPT;
    if (get_u32(p + 12) != 0) return BSR_HDR_CORRUPT;
    for (size_t i = 24; i < BSR_HEADER_SUM_AT; i++)
        if (p[i] != BSR_HEADER_PAD) return BSR_HDR_CORRUPT;
    uint32_t version = get_u32(p + 8);
    if (version == 0) return BSR_HDR_CORRUPT;
    if (version > BSR_ENCODING_VERSION) return BSR_HDR_NEWER;
    *body_len = get_u64(p + 16);
    if (*body_len == 0 || *body_len > SIZE_MAX - BSR_HEADER_BYTES) return BSR_HDR_CORRUPT;
    return BSR_HDR_OK;
}

bloomsimd_status bsr_decode(const char *buf, size_t len, bloomsimd_filter **out) {
    uint64_t body = 0;
    *out = NULL;
    switch (bsr_decode_header(buf, len, &body)) {
    case BSR_HDR_NEWER:
        return BLOOMSIMD_ERR_VERSION;
    case BSR_HDR_CORRUPT:
        return BLOOMSIMD_ERR_CORRUPT;
    case BSR_HDR_OK:
        break;
    }
    if (len - BSR_HEADER_BYTES != body) return BLOOMSIMD_ERR_CORRUPT;
    return bloomsimd_deserialize(out, buf + BSR_HEADER_BYTES, (size_t)body);
}

/* ---- type callbacks ---------------------------------------------------------------- */

void *bsr_rdb_load(RedisModuleIO *io, int encver) {
    if (encver > BSR_ENCODING_VERSION) {
        rm_LogIOError(io, "warning", "bloomsimd: RDB encoding %d is newer than this module's %d", encver,
                      BSR_ENCODING_VERSION);
        return NULL;
    }
    size_t len = 0;
    char *buf = rm_LoadStringBuffer(io, &len);
    if (rm_IsIOError(io) || !buf) {
        if (buf) rm_Free(buf);
        return NULL;
    }
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bsr_decode(buf, len, &f);
    rm_Free(buf);
    if (st != BLOOMSIMD_OK) {
        rm_LogIOError(io, "warning", "bloomsimd: cannot load a filter: %s", bloomsimd_status_string(st));
        return NULL;
    }
    bsr_stats_enter(f); /* Redis owns it now: it is freed through bsr_free */
    return f;
}

void bsr_rdb_save(RedisModuleIO *io, void *value) {
    size_t len = 0;
    bloomsimd_status st;
    char *buf = bsr_encode(value, &len, &st);
    if (!buf) {
        /* An empty buffer makes the load fail loudly instead of silently
         * dropping the filter. */
        rm_LogIOError(io, "warning", "bloomsimd: cannot save a filter: %s", bloomsimd_status_string(st));
        rm_SaveStringBuffer(io, "", 0);
        return;
    }
    rm_SaveStringBuffer(io, buf, len);
    rm_Free(buf);
}

void bsr_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value) {
    size_t len = 0;
    bloomsimd_status st;
    char *buf = bsr_encode(value, &len, &st);
    if (!buf) {
        rm_LogIOError(aof, "warning", "bloomsimd: cannot rewrite a filter: %s", bloomsimd_status_string(st));
        return;
    }
    /* The same sequence BF.SCANDUMP hands out: the header as chunk 1, then
     * the body in chunks whose iterator is one past their last byte. */
    rm_EmitAOF(aof, "BF.LOADCHUNK", "slb", key, 1LL, buf, (size_t)BSR_HEADER_BYTES);
    size_t body = len - BSR_HEADER_BYTES, step = bsr_chunk_limit();
    for (size_t at = 0; at < body; at += step) {
        size_t n = body - at < step ? body - at : step;
        rm_EmitAOF(aof, "BF.LOADCHUNK", "slb", key, (long long)(at + n + 1), buf + BSR_HEADER_BYTES + at, n);
    }
    rm_Free(buf);
}

void bsr_digest(RedisModuleDigest *md, void *value) {
    size_t len = 0;
    char *buf = bsr_encode(value, &len, NULL);
    if (!buf) return;
    rm_DigestAddStringBuffer(md, buf, len);
    rm_DigestEndSequence(md);
    rm_Free(buf);
}

void bsr_free(void *value) {
    bsr_stats_leave(value);
    bloomsimd_destroy(value);
}

void *bsr_copy(RedisModuleString *fromkey, RedisModuleString *tokey, const void *value) {
    (void)fromkey;
    (void)tokey;
    size_t len = 0;
    char *buf = bsr_encode(value, &len, NULL);
    if (!buf) return NULL; /* COPY then fails with an error, the source untouched */
    bloomsimd_filter *f = NULL;
    bsr_decode(buf, len, &f);
    rm_Free(buf);
    bsr_stats_enter(f);
    return f;
}
