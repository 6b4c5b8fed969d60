/*
 * bsr.h — shared declarations of the bloomsimd Redis module (bloomsimd.so).
 *
 * A key's value is a bloomsimd_filter itself: every figure BF.INFO reports
 * (capacity, error rate, expansion, layers, items) is read back from the
 * library with bloomsimd_get_info, so a filter that arrived through RDB,
 * RESTORE or LOADCHUNK answers exactly like the one that was built here.
 */
#ifndef BSR_H
#define BSR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bloomsimd.h>

#include "rm_api.h"

/* The RDB type name: exactly nine characters from [A-Za-z0-9_-]. */
#define BSR_TYPE_NAME "bloomsimd"
/* Encoding version of our payload (RDB, DUMP/RESTORE, SCANDUMP). A server
 * with an older module refuses a newer payload instead of misreading it. */
#define BSR_ENCODING_VERSION 1

/* RedisBloom's defaults for a key created by BF.ADD, BF.MADD or BF.INSERT. */
#define BSR_DEFAULT_ERROR_RATE 0.01
#define BSR_DEFAULT_CAPACITY 100
#define BSR_DEFAULT_EXPANSION 2
/*
 * Sizing. A scaling filter (any EXPANSION) is the library's default
 * scalable filter for error_rate: its budget schedule (docs/SCALABLE.md)
 * gives layer 0 a third of the rate and the later layers shares that keep
 * the sum of every layer's FPR below error_rate however far it grows, so the
 * chain's FPR stays below error_rate (union bound). RedisBloom gives layer i
 * error_rate * 0.5^(i+1): grown from 10^5 to 10^7 items at EXPANSION 2 the
 * budget schedule needs about 0.9x RedisBloom's memory (21.5 against 24.4
 * bits/item, blocked layout included) instead of 1.85x with our former
 * r = 1/4, and at EXPANSION 1 it keeps adding layers for thousands of items
 * of capacity 1 where a geometric ratio would reach the library's 1e-10 FPR
 * floor after a few dozen.
 * The margin, NONSCALING only: the library's model is exact, so a filter
 * built for exactly p measures p plus sampling noise (+-3% at 10^5 absent
 * items and p = 1%), above p half the time. Building for 0.9 p makes
 * "measured FPR <= error rate" hold, at ~0.2 bit/item. A scaling chain needs
 * none: its layers' FPRs sum to error_rate times (1 - what is kept for
 * layers not grown yet), at most 2/3 of it at seven layers grown from 10^5.
 */
#define BSR_FPR_MARGIN 0.9
/* Largest EXPANSION accepted (RedisBloom's later versions cap it the same). */
#define BSR_MAX_EXPANSION 32768

extern RedisModuleType *bsr_type;

/* ---- keys ------------------------------------------------------------------- */

typedef enum { BSR_KEY_EMPTY, BSR_KEY_FILTER, BSR_KEY_WRONGTYPE } bsr_key_state;

/* Opens argv key in mode; *filter is set when the key holds one of ours. */
bsr_key_state bsr_open(RedisModuleCtx *ctx, RedisModuleString *name, int mode, RedisModuleKey **key,
                       bloomsimd_filter **filter);

/* How a command creates a missing key (BF.RESERVE's and BF.INSERT's
 * options, or BF.ADD's defaults); expansion 0 = NONSCALING. */
typedef struct {
    uint64_t capacity;
    double error_rate;
    uint32_t expansion;
    bool autocreate;   /* false: NOCREATE */
    uint32_t u64_hash; /* U64HASH: BLOOMSIMD_U64_XXH3 or _MUM; 0 = the library's default, XXH3 */
} bsr_create_opts;

/* Parses U64HASH's value, MUM or XXH3 in any case, into o->u64_hash. */
bool bsr_parse_u64_hash(RedisModuleString *arg, bsr_create_opts *o);

/* BF.ADD's: error rate 0.01, capacity 100, expansion 2. */
extern const bsr_create_opts bsr_defaults;

/* Opens name for writing; creates the filter if the key is empty (and
 * o->autocreate). Returns the filter, or replies with the error and returns
 * NULL. *key must be closed by the caller either way. */
bloomsimd_filter *bsr_open_or_create(RedisModuleCtx *ctx, RedisModuleString *name, const bsr_create_opts *o,
                                      RedisModuleKey **key);

/* The filter under name, or NULL after replying "ERR not found" or
 * WRONGTYPE. */
bloomsimd_filter *bsr_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode);

/* Creates a filter with RedisBloom's parameters (expansion 0 = NONSCALING)
 * and the 64-bit hash of o. */
bloomsimd_status bsr_create(bloomsimd_filter **out, const bsr_create_opts *o);

/* Replies with the error for a failed create of (capacity, error_rate,
 * expansion): RedisBloom's string, with the reason after it. */
int bsr_reply_create_error(RedisModuleCtx *ctx, bloomsimd_status st, uint64_t capacity, double error_rate,
                           uint32_t expansion);

/* RedisBloom's "Capacity": the sum of every layer's capacity. */
uint64_t bsr_total_capacity(const bloomsimd_info *info);
/* MEMORY USAGE and BF.INFO "Size": the bit arrays plus our bookkeeping. */
size_t bsr_mem_usage(const void *value);
/* The same from a filter's info. */
size_t bsr_mem_usage_of(const bloomsimd_info *info);

/* ---- what operators watch: INFO bf and keyspace events (stats.c) -------------- */

typedef enum { BSR_KIND_NONSCALING, BSR_KIND_SCALING, BSR_KIND_WINDOW } bsr_kind;

/* What one filter adds to the INFO totals. */
typedef struct {
    bsr_kind kind;
    long long bytes;    /* bsr_mem_usage */
    long long items;
    long long layers;
    long long capacity; /* bsr_total_capacity */
    int level;          /* 0 below 80% of its capacity (bloomsimd_info.load), 1 at or past 80%, 2 at or past 100% */
} bsr_share;

/* The filter's share; *info (may be NULL) gets its bloomsimd_get_info. */
void bsr_share_of(const bloomsimd_filter *f, bsr_share *s, bloomsimd_info *info);
/* A filter value enters the server (counted in INFO) / is freed by it. */
void bsr_stats_enter(const bloomsimd_filter *f);
void bsr_stats_leave(const bloomsimd_filter *f);
/* Stores f under key (rm_ModuleTypeSetValue, which frees and uncounts a
 * filter the key held) and counts it. Every value a command stores goes
 * through here. */
int bsr_set_value(RedisModuleKey *key, bloomsimd_filter *f);
/* After a command changed f: adds the change since `before` to the totals
 * and sends bf.grow (a scaling filter added a layer) and bf.80pct (it
 * crossed 80% of its capacity) on the key. */
void bsr_stats_changed(RedisModuleCtx *ctx, RedisModuleString *name, const bsr_share *before,
                       const bloomsimd_filter *f);
/* A full NONSCALING filter refused an item: counted, and bf.full sent. */
void bsr_stats_refused(RedisModuleCtx *ctx, RedisModuleString *name);
/* Registers the INFO callback. */
int bsr_stats_init(RedisModuleCtx *ctx);

/* ---- batches ---------------------------------------------------------------------- */

/* A command's items as one library batch: byte keys (keys/lens, pointing
 * into the arguments) or 64-bit keys (u64, an aligned copy of a blob).
 * out[i] receives the per-item answer. */
typedef struct {
    const void **keys;
    size_t *lens;
    const uint64_t *u64;
    uint8_t *out;
    size_t n;
    void *mem;
} bsr_batch;

bool bsr_batch_from_args(bsr_batch *b, RedisModuleString **argv, size_t n);
bool bsr_batch_from_blob(bsr_batch *b, const char *blob, size_t n);
void bsr_batch_free(bsr_batch *b);
/* out[at..n) = may be present (all 0 for a NULL filter). */
void bsr_batch_contains(const bloomsimd_filter *f, bsr_batch *b, size_t at);

typedef enum { BSR_ADD_DONE, BSR_ADD_FULL, BSR_ADD_GROW_FAILED } bsr_add_result;
/* Inserts the batch in order into f, whose info is *info; out[i] = 1 if item
 * i was new. *answered items
 * got an answer: all of them (DONE), or those before the first new item a
 * full NONSCALING filter refused (FULL). GROW_FAILED: the library could not
 * add a layer (*st says why: NO_MEMORY, or TOO_LARGE at its layer, size or
 * FPR limits). */
bsr_add_result bsr_batch_add(bloomsimd_filter *f, const bloomsimd_info *info, bsr_batch *b, size_t *answered,
                             bloomsimd_status *st);
/* Replies with the error for a failed grow. */
int bsr_reply_grow_error(RedisModuleCtx *ctx, bloomsimd_status st);

/* ---- payload: one encoding for RDB, DUMP/RESTORE, SCANDUMP and AOF ----------- */

/* Payload = 128-byte header + the library's serialization (docs/FORMAT.md).
 *   0  8 bytes  magic "BSIMDRDB"
 *   8  u32 LE   encoding version (BSR_ENCODING_VERSION)
 *  12  u32 LE   0 (reserved)
 *  16  u64 LE   body length (bytes of the library serialization)
 *  24  96 bytes 0xA5 (padding; not zero, so that zeroing any of it is seen)
 * 120  u64 LE   FNV-1a 64 of bytes 0..119
 * The body carries its own checksums, checked by bloomsimd_deserialize. The
 * header is as long as RedisBloom's dumped chain header for a few links, so
 * tools (and RedisBloom's own flow tests) that corrupt bytes at its offsets
 * reach checked bytes and get "received bad data". */
#define BSR_HEADER_BYTES 128u
#define BSR_HEADER_SUM_AT 120u

typedef enum { BSR_HDR_OK, BSR_HDR_CORRUPT, BSR_HDR_NEWER } bsr_header_status;

/* Writes the header of a payload whose body is body_len bytes. */
void bsr_encode_header(unsigned char out[BSR_HEADER_BYTES], uint64_t body_len);
/* Serialises filter into a RedisModule_Alloc'd buffer (header + body).
 * Returns NULL and sets *st (may be NULL) to the library's reason when the
 * filter cannot be serialised. */
char *bsr_encode(const bloomsimd_filter *filter, size_t *len, bloomsimd_status *st);
/* Reads a header; *body_len is the body length it announces. */
bsr_header_status bsr_decode_header(const char *buf, size_t len, uint64_t *body_len);
/* Builds a filter from a whole payload. BLOOMSIMD_OK, or the library's status
 * (CORRUPT for a bad header or a length mismatch, VERSION for a newer one). */
bloomsimd_status bsr_decode(const char *buf, size_t len, bloomsimd_filter **out);

/* ---- chunks (BF.SCANDUMP / BF.LOADCHUNK and the AOF rewrite) ----------------- */

/* Largest body chunk: 16 MiB, or proto-max-bulk-len if that is smaller. */
size_t bsr_chunk_limit(void);
/* Re-reads proto-max-bulk-len (CONFIG GET) when a context is at hand. */
void bsr_refresh_chunk_limit(RedisModuleCtx *ctx);
/* Drops every half-received LOADCHUNK sequence (module unload). */
void bsr_pending_clear(void);

/* ---- type callbacks ----------------------------------------------------------- */

void *bsr_rdb_load(RedisModuleIO *io, int encver);
void bsr_rdb_save(RedisModuleIO *io, void *value);
void bsr_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value);
void bsr_digest(RedisModuleDigest *md, void *value);
void bsr_free(void *value);
void *bsr_copy(RedisModuleString *fromkey, RedisModuleString *tokey, const void *value);

/* ---- commands ------------------------------------------------------------------ */

int bsr_cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_debug(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsr_cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_madd64(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_mexists64(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_merge(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_estimate(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_export(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int bsrx_cmd_import(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

#endif /* BSR_H */
