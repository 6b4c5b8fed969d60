/*
 * bf_cmds.c — BF.RESERVE, BF.ADD, BF.MADD, BF.INSERT, BF.EXISTS, BF.MEXISTS,
 * BF.INFO and BF.CARD with RedisBloom's syntax, replies and error strings.
 *
 * Replies go through ReplyWithBool and ReplyWithMap, which the server writes
 * as integers / a flat array on RESP2 and as booleans / a map after HELLO 3,
 * which is what RedisBloom 2.6 answers on each protocol.
 *
 * Multi-item commands parse every item, then hash and probe them as one
 * batch through the library (bloomsimd_add_new_batch: in order, a key
 * repeated within one command is new only the first time; the same answer
 * RedisBloom gives item by item), then reply.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bsr.h"

/* ---- small helpers ------------------------------------------------------------- */

static bool arg_is(RedisModuleString *arg, const char *word) {
    size_t n;
    const char *s = rm_StringPtrLen(arg, &n);
    return n == strlen(word) && strncasecmp(s, word, n) == 0;
}

/* The shared body of BF.ADD, BF.MADD and BF.INSERT. */
static int insert_and_reply(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString **items, size_t n,
                            bool multi, const bsr_create_opts *o) {
    RedisModuleKey *key;
    bloomsimd_filter *f = bsr_open_or_create(ctx, name, o, &key);
    bsr_batch b;
    if (!f || !bsr_batch_from_args(&b, items, n)) {
        if (f) rm_ReplyWithError(ctx, "ERR Insufficient memory");
        rm_CloseKey(key);
        return REDISMODULE_OK;
    }
    size_t answered = 0;
    bloomsimd_status st;
    bsr_share before;
    bloomsimd_info info;
    bsr_share_of(f, &before, &info);
    bsr_add_result r = bsr_batch_add(f, &info, &b, &answered, &st);
    rm_CloseKey(key);
    bsr_stats_changed(ctx, name, &before, f);
    if (r == BSR_ADD_FULL) bsr_stats_refused(ctx, name);
    if (r == BSR_ADD_GROW_FAILED) {
        bsr_batch_free(&b);
        rm_ReplicateVerbatim(ctx); /* the key may have been created, some items added */
        return bsr_reply_grow_error(ctx, st);
    }
    if (multi) rm_ReplyWithArray(ctx, (long)(answered + (r == BSR_ADD_FULL)));
    for (size_t i = 0; i < answered; i++) rm_ReplyWithBool(ctx, b.out[i]);
    if (r == BSR_ADD_FULL) rm_ReplyWithError(ctx, "ERR non scaling filter is full");
    bsr_batch_free(&b);
    rm_ReplicateVerbatim(ctx);
    return REDISMODULE_OK;
}

/* ---- BF.RESERVE ------------------------------------------------------------------- */

/* Parses an error rate and a capacity with RedisBloom's BF.RESERVE replies. */
static bool parse_rate_capacity(RedisModuleCtx *ctx, RedisModuleString *rate, RedisModuleString *cap,
                                bsr_create_opts *o) {
    long long c;
    if (rm_StringToDouble(rate, &o->error_rate) != REDISMODULE_OK) {
        rm_ReplyWithError(ctx, "ERR bad error rate");
        return false;
    }
    if (!(o->error_rate > 0 && o->error_rate < 1)) {
        rm_ReplyWithError(ctx, "ERR (0 < error rate range < 1) ");
        return false;
    }
    if (rm_StringToLongLong(cap, &c) != REDISMODULE_OK) {
        rm_ReplyWithError(ctx, "ERR bad capacity");
        return false;
    }
    if (c <= 0) {
        rm_ReplyWithError(ctx, "ERR (capacity should be larger than 0)");
        return false;
    }
    o->capacity = (uint64_t)c;
    return true;
}

/* An EXPANSION value RedisBloom takes (an integer >= 1) that this module
 * cannot build: a precise reason, since RedisBloom has no string for it. */
static int reply_expansion_too_large(RedisModuleCtx *ctx, long long e) {
    char msg[128];
    snprintf(msg, sizeof msg, "ERR expansion %lld is above the largest this module supports (%d)", e,
             BSR_MAX_EXPANSION);
    return rm_ReplyWithError(ctx, msg);
}

/* BF.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING] [U64HASH MUM|XXH3]
 * The checks come in RedisBloom 2.6's order: rate, capacity, a missing
 * EXPANSION value, NONSCALING with EXPANSION, then the value itself; then
 * U64HASH, which RedisBloom does not have (it ignores the words). */
int bsr_cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return rm_WrongArity(ctx);
    int hash_at = -1; /* the first U64HASH word */
    for (int i = 4; i < argc && hash_at < 0; i++)
        if (arg_is(argv[i], "U64HASH")) hash_at = i;
    /* RedisBloom's arity for its own words; U64HASH h adds two. */
    if (argc > (hash_at < 0 ? 7 : 9)) return rm_WrongArity(ctx);
    bsr_create_opts o = bsr_defaults;
    if (!parse_rate_capacity(ctx, argv[2], argv[3], &o)) return REDISMODULE_OK;
    bool nonscaling = false;
    int expansion_at = -1; /* the first EXPANSION word, as RedisBloom finds it */
    for (int i = 4; i < argc; i++) {
        if (arg_is(argv[i], "NONSCALING")) nonscaling = true;
        else if (arg_is(argv[i], "EXPANSION") && expansion_at < 0) expansion_at = i;
        /* Anything else is ignored, as RedisBloom does. */
    }
    if (expansion_at >= 0) {
        long long e;
        if (expansion_at + 1 == argc) return rm_ReplyWithError(ctx, "ERR no expansion");
        if (nonscaling) return rm_ReplyWithError(ctx, "Nonscaling filters cannot expand");
        if (rm_StringToLongLong(argv[expansion_at + 1], &e) != REDISMODULE_OK)
            return rm_ReplyWithError(ctx, "ERR bad expansion");
        if (e < 1) return rm_ReplyWithError(ctx, "ERR expansion should be greater or equal to 1");
        if (e > BSR_MAX_EXPANSION) return reply_expansion_too_large(ctx, e);
        o.expansion = (uint32_t)e;
    }
    if (nonscaling) o.expansion = 0;
    if (hash_at >= 0) {
        if (hash_at + 1 == argc) return rm_ReplyWithError(ctx, "ERR no u64hash");
        if (!bsr_parse_u64_hash(argv[hash_at + 1], &o)) return rm_ReplyWithError(ctx, "ERR bad u64hash (MUM or XXH3)");
    }

    RedisModuleKey *key;
    bloomsimd_filter *f;
    bsr_key_state state = bsr_open(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &f);
    bloomsimd_status st = BLOOMSIMD_OK;
    if (state == BSR_KEY_EMPTY && (st = bsr_create(&f, &o)) == BLOOMSIMD_OK)
        bsr_set_value(key, f);
    rm_CloseKey(key);
    if (state == BSR_KEY_FILTER) return rm_ReplyWithError(ctx, "ERR item exists");
    if (state == BSR_KEY_WRONGTYPE) return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    if (st != BLOOMSIMD_OK) return bsr_reply_create_error(ctx, st, o.capacity, o.error_rate, o.expansion);
    rm_ReplicateVerbatim(ctx);
    return rm_ReplyWithSimpleString(ctx, "OK");
}

/* ---- BF.ADD / BF.MADD / BF.INSERT ------------------------------------------------------ */

/* BF.ADD key item */
int bsr_cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return rm_WrongArity(ctx);
    return insert_and_reply(ctx, argv[1], argv + 2, 1, false, &bsr_defaults);
}

/* BF.MADD key item [item ...] */
int bsr_cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return rm_WrongArity(ctx);
    return insert_and_reply(ctx, argv[1], argv + 2, (size_t)argc - 2, true, &bsr_defaults);
}

/* BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE] [NONSCALING] [U64HASH h] ITEMS item...
 * Options are told apart by their first letter(s), as RedisBloom does.
 * U64HASH (ours) applies, as CAPACITY does, only when the key is created. */
int bsr_cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return rm_WrongArity(ctx);
    bsr_create_opts o = bsr_defaults;
    bool nonscaling = false, expansion_given = false;
    int items = -1;
    long long capacity = (long long)o.capacity;
    for (int i = 2; i < argc && items < 0;) {
        size_t n;
        const char *s = rm_StringPtrLen(argv[i], &n);
        char c0 = n ? (char)(s[0] | 0x20) : 0, c1 = n > 1 ? (char)(s[1] | 0x20) : 0,
             c2 = n > 2 ? (char)(s[2] | 0x20) : 0;
        switch (c0) {
        case 'i':
            items = ++i;
            break;
        case 'e':
            if (++i == argc) return rm_WrongArity(ctx);
            if (c1 == 'r') {
                if (rm_StringToDouble(argv[i++], &o.error_rate) != REDISMODULE_OK)
                    return rm_ReplyWithError(ctx, "Bad error rate");
            } else {
                long long e;
                if (rm_StringToLongLong(argv[i++], &e) != REDISMODULE_OK) return rm_ReplyWithError(ctx, "Bad expansion");
                if (e < 1) return rm_ReplyWithError(ctx, "Bad argument received");
                if (e > BSR_MAX_EXPANSION) return reply_expansion_too_large(ctx, e);
                o.expansion = (uint32_t)e;
                expansion_given = true;
            }
            break;
        case 'c':
            if (++i == argc) return rm_WrongArity(ctx);
            if (rm_StringToLongLong(argv[i++], &capacity) != REDISMODULE_OK)
                return rm_ReplyWithError(ctx, "Bad capacity");
            break;
        case 'n':
            if (c2 == 'c')
                o.autocreate = false;
            else
                nonscaling = true;
            i++;
            break;
        case 'u': /* ours, matched as a whole word: other 'u' words stay unknown, as in RedisBloom */
            if (!arg_is(argv[i], "U64HASH")) return rm_ReplyWithError(ctx, "Unknown argument received");
            if (++i == argc) return rm_WrongArity(ctx);
            if (!bsr_parse_u64_hash(argv[i++], &o)) return rm_ReplyWithError(ctx, "Bad u64hash (MUM or XXH3)");
            break;
        default:
            return rm_ReplyWithError(ctx, "Unknown argument received");
        }
    }
    if (items < 0 || items == argc) return rm_WrongArity(ctx);
    if (!(o.error_rate > 0 && o.error_rate < 1) || capacity < 1)
        return rm_ReplyWithError(ctx, "Bad argument received");
    if (nonscaling && expansion_given) return rm_ReplyWithError(ctx, "Nonscaling filters cannot expand");
    o.capacity = (uint64_t)capacity;
    if (nonscaling) o.expansion = 0;
    return insert_and_reply(ctx, argv[1], argv + items, (size_t)(argc - items), true, &o);
}

/* ---- BF.EXISTS / BF.MEXISTS ------------------------------------------------------------- */

/* A missing key, or one holding another type, answers 0 for every item
 * (RedisBloom's behaviour: these commands never reply WRONGTYPE). */
static bloomsimd_filter *open_for_lookup(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleKey **key) {
    bloomsimd_filter *f;
    return bsr_open(ctx, name, REDISMODULE_READ, key, &f) == BSR_KEY_FILTER ? f : NULL;
}

/* BF.EXISTS key item */
int bsr_cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return rm_WrongArity(ctx);
    RedisModuleKey *key;
    bloomsimd_filter *f = open_for_lookup(ctx, argv[1], &key);
    size_t n;
    const char *s = rm_StringPtrLen(argv[2], &n);
    bool found = f && bloomsimd_contains(f, s, n);
    rm_CloseKey(key);
    return rm_ReplyWithBool(ctx, found);
}

/* BF.MEXISTS key item [item ...] */
int bsr_cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return rm_WrongArity(ctx);
    size_t n = (size_t)argc - 2;
    RedisModuleKey *key;
    bloomsimd_filter *f = open_for_lookup(ctx, argv[1], &key);
    bsr_batch b;
    if (!bsr_batch_from_args(&b, argv + 2, n)) {
        rm_CloseKey(key);
        return rm_ReplyWithError(ctx, "ERR Insufficient memory");
    }
    bsr_batch_contains(f, &b, 0);
    rm_CloseKey(key);
    rm_ReplyWithArray(ctx, (long)n);
    for (size_t i = 0; i < n; i++) rm_ReplyWithBool(ctx, b.out[i]);
    bsr_batch_free(&b);
    return REDISMODULE_OK;
}

/* ---- BF.INFO / BF.CARD ---------------------------------------------------------------------- */

/* BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION] */
int bsr_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2 && argc != 3) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    const long long values[4] = {(long long)bsr_total_capacity(&info), (long long)bsr_mem_usage(f),
                                 (long long)info.layers, (long long)info.items};
    static const char *const names[5] = {"Capacity", "Size", "Number of filters", "Number of items inserted",
                                         "Expansion rate"};
    static const char *const fields[5] = {"CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION"};
    int first = 0, last = 4;
    if (argc == 3) {
        for (first = 0; first < 5 && !arg_is(argv[2], fields[first]); first++) {
        }
        if (first == 5) return rm_ReplyWithError(ctx, "Invalid information value");
        last = first;
        rm_ReplyWithArray(ctx, 1);
    } else {
        rm_ReplyWithMap(ctx, 5);
    }
    for (int i = first; i <= last; i++) {
        if (argc == 2) rm_ReplyWithSimpleString(ctx, names[i]);
        if (i < 4)
            rm_ReplyWithLongLong(ctx, values[i]);
        else if (info.growth == 0)
            rm_ReplyWithNull(ctx); /* NONSCALING */
        else
            rm_ReplyWithLongLong(ctx, info.growth);
    }
    return REDISMODULE_OK;
}

/* BF.CARD key: items counted new (0 for a missing key). */
int bsr_cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return rm_WrongArity(ctx);
    RedisModuleKey *key;
    bloomsimd_filter *f;
    bsr_key_state state = bsr_open(ctx, argv[1], REDISMODULE_READ, &key, &f);
    rm_CloseKey(key);
    if (state == BSR_KEY_EMPTY) return rm_ReplyWithLongLong(ctx, 0);
    if (state == BSR_KEY_WRONGTYPE) return rm_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    return rm_ReplyWithLongLong(ctx, (long long)info.items);
}

/* BF.DEBUG key: RedisBloom's debug lines, "size:<items>" then one line
 * describing the filter. RedisBloom prints one line per layer; the library
 * reports totals over the layers, so this line covers the whole chain. */
int bsr_cmd_debug(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return rm_WrongArity(ctx);
    bloomsimd_filter *f = bsr_open_existing(ctx, argv[1], REDISMODULE_READ);
    if (!f) return REDISMODULE_OK;
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    char line[256];
    rm_ReplyWithArray(ctx, 2);
    int n = snprintf(line, sizeof line, "size:%llu", (unsigned long long)info.items);
    rm_ReplyWithStringBuffer(ctx, line, (size_t)n);
    n = snprintf(line, sizeof line, "bytes:%llu bits:%llu hashes:%u hashwidth:64 capacity:%llu size:%llu ratio:%g",
                 (unsigned long long)info.memory_bytes, (unsigned long long)info.bits, info.k,
                 (unsigned long long)bsr_total_capacity(&info), (unsigned long long)info.items, info.fpr);
    return rm_ReplyWithStringBuffer(ctx, line, (size_t)n);
}
