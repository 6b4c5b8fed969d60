/*
 * bfx_cmds.c — extensions no RedisBloom peer has:
 *
 *   BFX.MADD64 key <blob> [ARRAY]     blob = n 64-bit keys, 8 bytes each, little-endian
 *   BFX.MEXISTS64 key <blob> [ARRAY]  one command, one argument, one batch: no per-item parsing
 *   BFX.MERGE dst src                 dst |= src (same geometry, seed and 64-bit hash)
 *   BFX.ESTIMATE key                  distinct keys estimated from the fill
 *   BFX.INFO key                      layout, u64 hash, k, kernel, load, bits/key, predicted FPR now, ...
 *
 * The 64-bit commands reply with a bitmap, a bulk string of ceil(n/8) bytes
 * where bit i % 8 of byte i / 8 (LSB first) answers key i, or with ARRAY an
 * array of n integers/booleans. They hash with the filter's own 64-bit hash.
 * With XXH3 (the default) a 64-bit key hashes as its 8 little-endian bytes,
 * so BF.EXISTS key <those 8 bytes> agrees with BFX.MADD64; with mum
 * (BF.RESERVE ... U64HASH MUM) the two are different items.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bsr.h"

/* Parses "key blob [ARRAY]"; replies and returns false on a bad blob. */
static bool parse_blob(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bsr_batch *b, bool *as_array) {
    *as_array = false;
    if (argc == 4) {
        size_t n;
        const char *s = rm_StringPtrLen(argv[3], &n);
        if (n != 5 || strncasecmp(s, "ARRAY", 5) != 0) {
            rm_ReplyWithError(ctx, "ERR syntax error");
            return false;
        }
        *as_array = true;
    }
    size_t len;
    const char *blob = rm_StringPtrLen(argv[2], &len);
    if (len % 8) {
        rm_ReplyWithError(ctx, "ERR blob length must be a multiple of 8 (little-endian 64-bit keys)");
        return false;
    }
    if (!bsr_batch_from_blob(b, blob, len / 8)) {
        rm_ReplyWithError(ctx, "ERR Insufficient memory");
        return false;
    }
    return true;
}

/* Replies with out[0..n) as a bitmap or an array of booleans. */
static void reply_hits(RedisModuleCtx *ctx, const uint8_t *out, size_t n, bool as_array) {
    if (as_array) {
        rm_ReplyWithArray(ctx, (long)n);
        for (size_t i = 0; i < n; i++) rm_ReplyWithBool(ctx, out[i]);
        return;
    }
    size_t bytes = (n + 7) / 8;
    uint8_t *bm = rm_Calloc(bytes ? bytes : 1, 1);
    for (size_t i = 0; i < n; i++) bm[i >> 3] |= (uint8_t)((out[i] != 0) << (i & 7));
    rm_ReplyWithStringBuffer(ctx, (const char *)bm, bytes);
    rm_Free(bm);
}

/* BFX.MADD64 key blob [ARRAY]: inserts; bit i = key i was newly added. A key
 * created here gets BF.ADD's defaults. A full NONSCALING filter ends the
 * answer early as BF.MADD does: the reply is an error naming how many keys
 * were taken (those are inserted and replicated). */
int bsrx_cmd_madd64(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3 && argc != 4) return rm_WrongArity(ctx);
    bsr_batch b;
    bool as_array;
    if (!parse_blob(ctx, argv, argc, &b, &as_array)) return REDISMODULE_OK;
    RedisModuleKey *key;
    bloomsimd_filter *f = bsr_open_or_create(ctx, argv[1], &bsr_defaults, &key);
    rm_CloseKey(key);
    if (!f) {
        bsr_batch_free(&b);
        return REDISMODULE_OK;
    }
    size_t answered = 0;
    bloomsimd_status grow;
    bsr_share before;
    bloomsimd_info info;
    bsr_share_of(f, &before, &info);
    bsr_add_result r = bsr_batch_add(f, &info, &b, &answered, &grow);
    bsr_stats_changed(ctx, argv[1], &before, f);
    if (r == BSR_ADD_FULL) bsr_stats_refused(ctx, argv[1]);
    rm_ReplicateVerbatim(ctx);
    if (r == BSR_ADD_DONE)
        reply_hits(ctx, b.out, b.n, as_array);
    else if (r == BSR_ADD_FULL) {
        char msg[96];
        snprintf(msg, sizeof msg, "ERR non scaling filter is full (after %zu of %zu keys)", answered, b.n);
        rm_ReplyWithError(ctx, msg);
    } else
        bsr_reply_grow_error(ctx, grow);
    bsr_batch_free(&b);
    return REDISMODULE_OK;
}

/* BFX.MEXISTS64 key blob [ARRAY]: bit i = key i may be present. */
int bsrx_cmd_mexists64(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3 && argc != 4) return rm_WrongArity(ctx);
    bsr_batch b;
    bool as_array;
    if (!parse_blob(ctx, argv, argc, &b, &as_array)) return REDISMODULE_OK;
    RedisModuleKey *key;
    bloomsimd_filter *f;
    bsr_key_state state = bsr_open(ctx, argv[1], REDISMODULE_READ, &key, &f);
    rm_CloseKey(key);
    if (state == BSR_KEY_WRONGTYPE) {
        bsr_batch_free(&b);
        return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    }
    if (!as_array && f) {
        /* The library writes the bitmap directly: no byte-per-key pass. */
        size_t bytes = (b.n + 7) / 8;
        uint8_t *bm = rm_Alloc(bytes ? bytes : 1);
        bloomsimd_contains_bitmap_u64(f, b.u64, b.n, bm);
        rm_ReplyWithStringBuffer(ctx, (const char *)bm, bytes);
        rm_Free(bm);
    } else {
        bsr_batch_contains(f, &b, 0);
        reply_hits(ctx, b.out, b.n, as_array);
    }
    bsr_batch_free(&b);
    return REDISMODULE_OK;
}

/* BFX.MERGE dst src */
int bsrx_cmd_merge(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return rm_WrongArity(ctx);
    bloomsimd_filter *dst = bsr_open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (!dst) return REDISMODULE_OK;
    bloomsimd_filter *src = bsr_open_existing(ctx, argv[2], REDISMODULE_READ);
    if (!src) return REDISMODULE_OK;
    bsr_share before;
    bsr_share_of(dst, &before, NULL);
    bloomsimd_status st = bloomsimd_union(dst, src);
    bsr_stats_changed(ctx, argv[1], &before, dst); /* items add up (the library's merge) */
    if (st == BLOOMSIMD_ERR_INCOMPATIBLE)
        return rm_ReplyWithError(ctx, "ERR filters are not compatible (capacity, error rate, expansion, "
                                      "layers and u64 hash must match)");
    if (st != BLOOMSIMD_OK) return rm_ReplyWithError(ctx, bloomsimd_status_string(st));
    rm_ReplicateVerbatim(ctx);
    return rm_ReplyWithSimpleString(ctx, "OK");
}

/* BFX.ESTIMATE key: distinct keys estimated from the fill (an integer). */
int bsrx_cmd_estimate(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    /* always finite: a full layer contributes the library's bound */
    double e = bloomsimd_estimate_count(f);
    return rm_ReplyWithLongLong(ctx, isfinite(e) ? llround(e) : 0);
}

/* The 64-bit hash as U64HASH names it; a Parquet filter (BFX.IMPORT of one) has its own. */
static const char *u64_hash_name(uint32_t flags) {
    if (flags & BLOOMSIMD_U64_MUM) return "mum";
    if (flags & BLOOMSIMD_PARQUET) return "parquet";
    return "xxh3";
}

/* BFX.INFO key: what the filter is and how it is doing, as a map. */
int bsrx_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    uint64_t capacity = bsr_total_capacity(&info);
    rm_ReplyWithMap(ctx, 17);
    rm_ReplyWithSimpleString(ctx, "layout");
    const char *layout = bloomsimd_layout_name(info.layout);
    rm_ReplyWithSimpleString(ctx, layout ? layout : "unknown");
    rm_ReplyWithSimpleString(ctx, "u64 hash");
    rm_ReplyWithSimpleString(ctx, u64_hash_name(info.flags));
    rm_ReplyWithSimpleString(ctx, "kernel");
    rm_ReplyWithSimpleString(ctx, info.kernel ? info.kernel : "");
    rm_ReplyWithSimpleString(ctx, "k");
    rm_ReplyWithLongLong(ctx, info.k);
    rm_ReplyWithSimpleString(ctx, "layers");
    rm_ReplyWithLongLong(ctx, info.layers);
    rm_ReplyWithSimpleString(ctx, "expansion");
    rm_ReplyWithLongLong(ctx, info.growth);
    rm_ReplyWithSimpleString(ctx, "generations"); /* a window (BFX.IMPORT of one): its generations; else 0 */
    rm_ReplyWithLongLong(ctx, info.generations);
    rm_ReplyWithSimpleString(ctx, "tightening");
    rm_ReplyWithDouble(ctx, info.tightening);
    rm_ReplyWithSimpleString(ctx, "design fpr"); /* error_rate (NONSCALING: x BSR_FPR_MARGIN) */
    rm_ReplyWithDouble(ctx, info.fpr);
    rm_ReplyWithSimpleString(ctx, "capacity");
    rm_ReplyWithLongLong(ctx, (long long)capacity);
    rm_ReplyWithSimpleString(ctx, "items");
    rm_ReplyWithLongLong(ctx, (long long)info.items);
    rm_ReplyWithSimpleString(ctx, "load"); /* the library's share of capacity taken (INFO bf's 80% / 100%) */
    rm_ReplyWithDouble(ctx, info.load);
    rm_ReplyWithSimpleString(ctx, "bits");
    rm_ReplyWithLongLong(ctx, (long long)info.bits);
    rm_ReplyWithSimpleString(ctx, "bits per key");
    rm_ReplyWithDouble(ctx, capacity ? (double)info.bits / (double)capacity : 0.0);
    rm_ReplyWithSimpleString(ctx, "predicted fpr now");
    rm_ReplyWithDouble(ctx, bloomsimd_predicted_fpr(f, info.items));
    rm_ReplyWithSimpleString(ctx, "fill ratio");
    rm_ReplyWithDouble(ctx, bloomsimd_fill_ratio(f));
    rm_ReplyWithSimpleString(ctx, "seed");
    rm_ReplyWithLongLong(ctx, (long long)info.seed);
    return REDISMODULE_OK;
}
