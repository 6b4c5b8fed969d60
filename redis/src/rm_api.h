/*
 * rm_api.h — the project's own declarations of the parts of the Redis module
 * API that bloomsimd.so uses.
 *
 * Debian ships no redismodule.h. A module does not link against Redis: on
 * load, Redis hands the module a context whose first word is the address of
 * RedisModule_GetApi, and the module asks it for each function by name. So
 * only four things must match the server: the function names, their
 * signatures, the numeric constants, and the layout of the structs the module
 * passes in (type methods, command info). All of them are written here from
 * the public module API reference (redis.io "Modules API reference", Redis
 * 7.0) for exactly what this module calls; nothing else is declared.
 *
 * Every function is a pointer named rm_<Name> (for RedisModule_<Name>),
 * resolved once by rm_api_init() in rm_api.c. A name the server does not
 * have makes the load fail with a log line naming it.
 */
#ifndef BSR_RM_API_H
#define BSR_RM_API_H

#include <stddef.h>
#include <stdint.h>

/* ---- constants ------------------------------------------------------------ */

#define REDISMODULE_OK 0
#define REDISMODULE_ERR 1
#define REDISMODULE_APIVER_1 1

#define REDISMODULE_READ (1 << 0)
#define REDISMODULE_WRITE (1 << 1)

#define REDISMODULE_KEYTYPE_EMPTY 0
#define REDISMODULE_KEYTYPE_MODULE 6

#define REDISMODULE_POSTPONED_LEN (-1L)

#define REDISMODULE_REPLY_STRING 0
#define REDISMODULE_REPLY_ERROR 1
#define REDISMODULE_REPLY_INTEGER 2
#define REDISMODULE_REPLY_ARRAY 3

/* The module checks RedisModule_IsIOError after loading instead of letting a
 * short read kill the server: required for RESTORE of a hostile payload. */
#define REDISMODULE_OPTIONS_HANDLE_IO_ERRORS (1 << 0)

/* RedisModule_GetContextFlags */
#define REDISMODULE_CTX_FLAGS_LOADING (1 << 6)

/* Keyspace events of module commands: 'd' in notify-keyspace-events. */
#define REDISMODULE_NOTIFY_MODULE (1 << 13)

#define REDISMODULE_ERRORMSG_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"

/* ---- opaque server types ---------------------------------------------------- */

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleDigest RedisModuleDigest;
typedef struct RedisModuleCallReply RedisModuleCallReply;
typedef struct RedisModuleCommand RedisModuleCommand;
typedef struct RedisModuleInfoCtx RedisModuleInfoCtx;

typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
/* INFO: called for INFO, INFO modules, INFO <module name> and crash reports. */
typedef void (*RedisModuleInfoFunc)(RedisModuleInfoCtx *ctx, int for_crash_report);

/* ---- data type methods (struct layout of method version 3) ----------------- */

typedef void *(*RedisModuleTypeLoadFunc)(RedisModuleIO *rdb, int encver);
typedef void (*RedisModuleTypeSaveFunc)(RedisModuleIO *rdb, void *value);
typedef void (*RedisModuleTypeRewriteFunc)(RedisModuleIO *aof, RedisModuleString *key, void *value);
typedef size_t (*RedisModuleTypeMemUsageFunc)(const void *value);
typedef void (*RedisModuleTypeDigestFunc)(RedisModuleDigest *digest, void *value);
typedef void (*RedisModuleTypeFreeFunc)(void *value);
typedef int (*RedisModuleTypeAuxLoadFunc)(RedisModuleIO *rdb, int encver, int when);
typedef void (*RedisModuleTypeAuxSaveFunc)(RedisModuleIO *rdb, int when);
typedef size_t (*RedisModuleTypeFreeEffortFunc)(RedisModuleString *key, const void *value);
typedef void (*RedisModuleTypeUnlinkFunc)(RedisModuleString *key, const void *value);
typedef void *(*RedisModuleTypeCopyFunc)(RedisModuleString *fromkey, RedisModuleString *tokey, const void *value);
typedef int (*RedisModuleTypeDefragFunc)(void *ctx, RedisModuleString *key, void **value);

/* Version 3 ends at defrag (version 4 appends the *2 callbacks, unused here). */
#define BSR_TYPE_METHOD_VERSION 3
typedef struct RedisModuleTypeMethods {
    uint64_t version;
    RedisModuleTypeLoadFunc rdb_load;
    RedisModuleTypeSaveFunc rdb_save;
    RedisModuleTypeRewriteFunc aof_rewrite;
    RedisModuleTypeMemUsageFunc mem_usage;
    RedisModuleTypeDigestFunc digest;
    RedisModuleTypeFreeFunc free;
    RedisModuleTypeAuxLoadFunc aux_load;
    RedisModuleTypeAuxSaveFunc aux_save;
    int aux_save_triggers;
    RedisModuleTypeFreeEffortFunc free_effort;
    RedisModuleTypeUnlinkFunc unlink;
    RedisModuleTypeCopyFunc copy;
    RedisModuleTypeDefragFunc defrag;
} RedisModuleTypeMethods;

/* ---- command info (RedisModule_SetCommandInfo, info version 1) ------------- */

/* Key-spec flags: exactly one of RO/RW/OW/RM, then what happens to the data. */
#define REDISMODULE_CMD_KEY_RO (1ULL << 0)
#define REDISMODULE_CMD_KEY_RW (1ULL << 1)
#define REDISMODULE_CMD_KEY_OW (1ULL << 2)
#define REDISMODULE_CMD_KEY_RM (1ULL << 3)
#define REDISMODULE_CMD_KEY_ACCESS (1ULL << 4)
#define REDISMODULE_CMD_KEY_UPDATE (1ULL << 5)
#define REDISMODULE_CMD_KEY_INSERT (1ULL << 6)

typedef enum { REDISMODULE_KSPEC_BS_INVALID = 0, REDISMODULE_KSPEC_BS_UNKNOWN, REDISMODULE_KSPEC_BS_INDEX,
               REDISMODULE_KSPEC_BS_KEYWORD } RedisModuleKeySpecBeginSearchType;
typedef enum { REDISMODULE_KSPEC_FK_OMITTED = 0, REDISMODULE_KSPEC_FK_UNKNOWN, REDISMODULE_KSPEC_FK_RANGE,
               REDISMODULE_KSPEC_FK_KEYNUM } RedisModuleKeySpecFindKeysType;

typedef struct RedisModuleCommandKeySpec {
    const char *notes;
    uint64_t flags;
    RedisModuleKeySpecBeginSearchType begin_search_type;
    union {
        struct { int pos; } index;
        struct { const char *keyword; int startfrom; } keyword;
    } bs;
    RedisModuleKeySpecFindKeysType find_keys_type;
    union {
        struct { int lastkey; int keystep; int limit; } range;
        struct { int keynumidx; int firstkey; int keystep; } keynum;
    } fk;
} RedisModuleCommandKeySpec;

typedef struct RedisModuleCommandHistoryEntry {
    const char *since;
    const char *changes;
} RedisModuleCommandHistoryEntry;

/* Declared only so the info version can state its size; this module passes
 * no argument descriptions (args = NULL). */
typedef struct RedisModuleCommandArg {
    const char *name;
    int type;
    int key_spec_index;
    const char *token;
    const char *summary;
    const char *since;
    int flags;
    const char *deprecated_since;
    struct RedisModuleCommandArg *subargs;
} RedisModuleCommandArg;

typedef struct RedisModuleCommandInfoVersion {
    int version;
    size_t sizeof_historyentry;
    size_t sizeof_keyspec;
    size_t sizeof_arg;
} RedisModuleCommandInfoVersion;

typedef struct RedisModuleCommandInfo {
    const RedisModuleCommandInfoVersion *version;
    const char *summary;
    const char *complexity;
    const char *since;
    RedisModuleCommandHistoryEntry *history;
    const char *tips;
    int arity;
    RedisModuleCommandKeySpec *key_specs; /* terminated by a zeroed entry */
    RedisModuleCommandArg *args;
} RedisModuleCommandInfo;

/* ---- functions (resolved by rm_api_init) ------------------------------------ */

#define BSR_RM_FUNCTIONS(X) \
    X(void, SetModuleAttribs, (RedisModuleCtx *ctx, const char *name, int ver, int apiver)) \
    X(int, IsModuleNameBusy, (const char *name)) \
    X(void, SetModuleOptions, (RedisModuleCtx *ctx, int options)) \
    X(int, CreateCommand, (RedisModuleCtx *ctx, const char *name, RedisModuleCmdFunc cmdfunc, const char *strflags, \
                           int firstkey, int lastkey, int keystep)) \
    X(RedisModuleCommand *, GetCommand, (RedisModuleCtx *ctx, const char *name)) \
    X(int, SetCommandInfo, (RedisModuleCommand *command, const RedisModuleCommandInfo *info)) \
    X(RedisModuleType *, CreateDataType, (RedisModuleCtx *ctx, const char *name, int encver, \
                                          RedisModuleTypeMethods *typemethods)) \
    X(void *, Alloc, (size_t bytes)) \
    X(void *, Calloc, (size_t nmemb, size_t size)) \
    X(void *, Realloc, (void *ptr, size_t bytes)) \
    X(void, Free, (void *ptr)) \
    X(int, WrongArity, (RedisModuleCtx *ctx)) \
    X(int, ReplyWithError, (RedisModuleCtx *ctx, const char *err)) \
    X(int, ReplyWithLongLong, (RedisModuleCtx *ctx, long long ll)) \
    X(int, ReplyWithSimpleString, (RedisModuleCtx *ctx, const char *msg)) \
    X(int, ReplyWithStringBuffer, (RedisModuleCtx *ctx, const char *buf, size_t len)) \
    X(int, ReplyWithArray, (RedisModuleCtx *ctx, long len)) \
    X(void, ReplySetArrayLength, (RedisModuleCtx *ctx, long len)) \
    X(int, ReplyWithMap, (RedisModuleCtx *ctx, long len)) \
    X(int, ReplyWithNull, (RedisModuleCtx *ctx)) \
    X(int, ReplyWithBool, (RedisModuleCtx *ctx, int b)) \
    X(int, ReplyWithDouble, (RedisModuleCtx *ctx, double d)) \
    X(const char *, StringPtrLen, (const RedisModuleString *str, size_t *len)) \
    X(int, StringToLongLong, (const RedisModuleString *str, long long *ll)) \
    X(int, StringToDouble, (const RedisModuleString *str, double *d)) \
    X(RedisModuleKey *, OpenKey, (RedisModuleCtx *ctx, RedisModuleString *keyname, int mode)) \
    X(void, CloseKey, (RedisModuleKey *key)) \
    X(int, KeyType, (RedisModuleKey *key)) \
    X(RedisModuleType *, ModuleTypeGetType, (RedisModuleKey *key)) \
    X(void *, ModuleTypeGetValue, (RedisModuleKey *key)) \
    X(int, ModuleTypeSetValue, (RedisModuleKey *key, RedisModuleType *mt, void *value)) \
    X(int, ReplicateVerbatim, (RedisModuleCtx *ctx)) \
    X(int, Replicate, (RedisModuleCtx *ctx, const char *cmdname, const char *fmt, ...)) \
    X(int, GetSelectedDb, (RedisModuleCtx *ctx)) \
    X(int, GetContextFlags, (RedisModuleCtx *ctx)) \
    X(void, SaveStringBuffer, (RedisModuleIO *io, const char *str, size_t len)) \
    X(char *, LoadStringBuffer, (RedisModuleIO *io, size_t *lenptr)) \
    X(int, IsIOError, (RedisModuleIO *io)) \
    X(void, EmitAOF, (RedisModuleIO *io, const char *cmdname, const char *fmt, ...)) \
    X(void, DigestAddStringBuffer, (RedisModuleDigest *md, const char *ele, size_t len)) \
    X(void, DigestEndSequence, (RedisModuleDigest *md)) \
    X(void, Log, (RedisModuleCtx *ctx, const char *level, const char *fmt, ...)) \
    X(void, LogIOError, (RedisModuleIO *io, const char *levelstr, const char *fmt, ...)) \
    X(RedisModuleCallReply *, Call, (RedisModuleCtx *ctx, const char *cmdname, const char *fmt, ...)) \
    X(int, CallReplyType, (RedisModuleCallReply *reply)) \
    X(size_t, CallReplyLength, (RedisModuleCallReply *reply)) \
    X(RedisModuleCallReply *, CallReplyArrayElement, (RedisModuleCallReply *reply, size_t idx)) \
    X(const char *, CallReplyStringPtr, (RedisModuleCallReply *reply, size_t *len)) \
    X(void, FreeCallReply, (RedisModuleCallReply *reply)) \
    X(int, RegisterInfoFunc, (RedisModuleCtx *ctx, RedisModuleInfoFunc cb)) \
    X(int, InfoAddSection, (RedisModuleInfoCtx *ctx, const char *name)) \
    X(int, InfoAddFieldLongLong, (RedisModuleInfoCtx *ctx, const char *field, long long value)) \
    X(int, InfoAddFieldCString, (RedisModuleInfoCtx *ctx, const char *field, const char *value)) \
    X(int, NotifyKeyspaceEvent, (RedisModuleCtx *ctx, int type, const char *event, RedisModuleString *key))

#define BSR_RM_DECLARE(ret, name, args) extern ret(*rm_##name) args;
BSR_RM_FUNCTIONS(BSR_RM_DECLARE)
#undef BSR_RM_DECLARE

/* Resolves every function above through the GetApi pointer in ctx, then
 * registers the module name. REDISMODULE_OK, or REDISMODULE_ERR (a name the
 * server lacks, or the module name is taken). */
int rm_api_init(RedisModuleCtx *ctx, const char *name, int version);

#endif /* BSR_RM_API_H */
