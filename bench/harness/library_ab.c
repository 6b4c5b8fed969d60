/*
 * library_ab.c — two builds of the library in one process, in paired
 * alternating rounds: how a kernel change is measured on a shared machine,
 * where two runs minutes apart see different loads. Each build is a shared
 * library loaded with dlopen (RTLD_LOCAL, so their symbols do not mix); both
 * get the same filter size, the same keys and the same stream of queries,
 * and every round times A then B or B then A (alternating), so a burst of
 * load hits both sides alike. Reported: medians, and the per-round ratio
 * B/A (below 1: B is faster) as p10 / median / p90.
 *
 *   cc -O2 -Iinclude bench/harness/library_ab.c -ldl -lm -o /tmp/ab
 *   BLOOMSIMD_KERNEL=avx2 /tmp/ab A.so B.so KEYS [STREAM_KEYS [ROUNDS [CHUNK [FPR]]]]
 *
 * Lookups stream STREAM_KEYS absent keys (default 2^23: 64 MiB, larger than
 * the caches, as a column scan feeds them) in calls of CHUNK keys (default
 * 4096), a fresh stretch of the stream each round; inserts stream the KEYS
 * keys into the cleared filter. Thread CPU time. AB_LAYOUT=2|3 sets the
 * layout (default: the kernel's); AB_OPS=lookup,insert,add_new,hashes,
 * single_add,single_new picks the operations (hashes = hash a chunk, then
 * contains_hashes; single_add and single_new = one bloomsimd_add_u64 or
 * bloomsimd_add_new_u64 call per key, the KEYS keys into the cleared filter,
 * as a dedup loop makes them).
 */
#include <bloomsimd.h>

#include "harness.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lib {
    const char *path;
    void *handle;
    bloomsimd_status (*create_with)(bloomsimd_filter **, const bloomsimd_options *);
    void (*destroy)(bloomsimd_filter *);
    void (*clear)(bloomsimd_filter *);
    bloomsimd_status (*add_batch_u64)(bloomsimd_filter *, const uint64_t *, size_t);
    size_t (*contains_batch_u64)(const bloomsimd_filter *, const uint64_t *, size_t, uint8_t *);
    bloomsimd_status (*add_new_batch_u64)(bloomsimd_filter *, const uint64_t *, size_t, uint8_t *, size_t *);
    void (*hash_batch_u64)(const bloomsimd_filter *, const uint64_t *, size_t, uint64_t *);
    size_t (*contains_hashes)(const bloomsimd_filter *, const uint64_t *, size_t, uint8_t *);
    bloomsimd_status (*add_u64)(bloomsimd_filter *, uint64_t);
    bloomsimd_status (*add_new_u64)(bloomsimd_filter *, uint64_t, bool *);
    const char *(*last_error)(void);
    bloomsimd_filter *f;
} lib;

static void *must(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static void lib_open(lib *l, const char *path)
{
    l->path = path;
    l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!l->handle) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(2);
    }
    *(void **)&l->create_with = must(l->handle, "bloomsimd_create_with");
    *(void **)&l->destroy = must(l->handle, "bloomsimd_destroy");
    *(void **)&l->clear = must(l->handle, "bloomsimd_clear");
    *(void **)&l->add_batch_u64 = must(l->handle, "bloomsimd_add_batch_u64");
    *(void **)&l->contains_batch_u64 = must(l->handle, "bloomsimd_contains_batch_u64");
    *(void **)&l->add_new_batch_u64 = must(l->handle, "bloomsimd_add_new_batch_u64");
    *(void **)&l->hash_batch_u64 = must(l->handle, "bloomsimd_hash_batch_u64");
    *(void **)&l->contains_hashes = must(l->handle, "bloomsimd_contains_hashes");
    *(void **)&l->last_error = must(l->handle, "bloomsimd_last_error");
    *(void **)&l->add_u64 = must(l->handle, "bloomsimd_add_u64");
    *(void **)&l->add_new_u64 = must(l->handle, "bloomsimd_add_new_u64");
}

static uint64_t *keys, *stream, *hbuf;
static uint8_t *out;
static size_t nkeys, nstream, chunk, round_keys;
static volatile size_t sink;

enum { OP_LOOKUP, OP_INSERT, OP_ADD_NEW, OP_HASHES, OP_SINGLE_ADD, OP_SINGLE_NEW, OP_COUNT };
static const char *op_names[OP_COUNT] = {"lookup", "insert", "add_new", "hashes", "single_add", "single_new"};

/* ns per key of one timed pass of `op` on l, over keys [start, start + count) of its input. */
static double timed(lib *l, int op, size_t start)
{
    const uint64_t *src = op == OP_LOOKUP || op == OP_HASHES ? stream : keys;
    size_t total = op == OP_LOOKUP || op == OP_HASHES ? nstream : nkeys;
    size_t count = op == OP_LOOKUP || op == OP_HASHES ? round_keys : nkeys;
    if (op != OP_LOOKUP && op != OP_HASHES) l->clear(l->f);
    double t = harness_cpu_seconds();
    if (op == OP_SINGLE_ADD) {
        for (size_t i = 0; i < count; i++) l->add_u64(l->f, src[i]);
        return (harness_cpu_seconds() - t) / (double)count * 1e9;
    }
    if (op == OP_SINGLE_NEW) {
        size_t fresh = 0;
        for (size_t i = 0; i < count; i++) {
            bool was_new;
            l->add_new_u64(l->f, src[i], &was_new);
            fresh += was_new;
        }
        sink += fresh;
        return (harness_cpu_seconds() - t) / (double)count * 1e9;
    }
    for (size_t done = 0; done < count;) {
        size_t pos = (start + done) % total;
        size_t c = count - done < chunk ? count - done : chunk;
        if (c > total - pos) c = total - pos;
        switch (op) {
        case OP_LOOKUP: sink += l->contains_batch_u64(l->f, src + pos, c, out); break;
        case OP_INSERT: l->add_batch_u64(l->f, src + pos, c); break;
        case OP_ADD_NEW: {
            size_t fresh = 0;
            l->add_new_batch_u64(l->f, src + pos, c, out, &fresh);
            sink += fresh;
            break;
        }
        default:
            l->hash_batch_u64(l->f, src + pos, c, hbuf);
            sink += l->contains_hashes(l->f, hbuf, c, out);
        }
        done += c;
    }
    return (harness_cpu_seconds() - t) / (double)count * 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: library_ab A.so B.so KEYS [STREAM_KEYS [ROUNDS [CHUNK [FPR]]]]\n");
        return 2;
    }
    lib libs[2];
    lib_open(&libs[0], argv[1]);
    lib_open(&libs[1], argv[2]);
    nkeys = (size_t)strtod(argv[3], NULL);
    nstream = argc > 4 ? (size_t)strtod(argv[4], NULL) : (size_t)1 << 23;
    int rounds = argc > 5 ? atoi(argv[5]) : 21;
    chunk = argc > 6 ? (size_t)strtod(argv[6], NULL) : 4096;
    double fpr = argc > 7 ? strtod(argv[7], NULL) : 0.01;
    if (rounds < 1 || rounds > 999 || !chunk || !nkeys || !nstream) return 2;
    /* a round of lookups: at least 2^18 keys, and at least the filter's keys */
    round_keys = nkeys > ((size_t)1 << 18) ? nkeys : (size_t)1 << 18;
    if (round_keys > nstream) round_keys = nstream;
    bloomsimd_options o = {.capacity = nkeys, .fpr = fpr};
    const char *layout = getenv("AB_LAYOUT");
    if (layout) o.layout = (uint32_t)atoi(layout);
    keys = malloc(nkeys * 8);
    stream = malloc(nstream * 8);
    hbuf = malloc(chunk * 8);
    out = malloc(chunk);
    uint64_t s = 42;
    for (size_t i = 0; i < nkeys; i++) keys[i] = harness_splitmix(&s);
    for (size_t i = 0; i < nstream; i++) stream[i] = harness_splitmix(&s);
    for (int i = 0; i < 2; i++) {
        if (libs[i].create_with(&libs[i].f, &o) != BLOOMSIMD_OK) {
            fprintf(stderr, "%s: create: %s\n", libs[i].path, libs[i].last_error());
            return 1;
        }
    }
    bool want[OP_COUNT] = {true, true, false, false, false, false};
    const char *ops = getenv("AB_OPS");
    if (ops) {
        for (int op = 0; op < OP_COUNT; op++) want[op] = strstr(ops, op_names[op]) != NULL;
    }
    printf("A %s\nB %s\n%zu keys, lookups over %zu streamed keys (%.0f MB), %zu a round, calls of %zu, %d rounds\n",
           argv[1], argv[2], nkeys, nstream, nstream * 8 / 1e6, round_keys, chunk, rounds);
    for (int op = 0; op < OP_COUNT; op++) {
        if (!want[op]) continue;
        double *a = malloc(sizeof(double) * (size_t)rounds), *b = malloc(sizeof(double) * (size_t)rounds),
               *ratio = malloc(sizeof(double) * (size_t)rounds);
        /* the filters hold the keys during lookups */
        for (int i = 0; i < 2; i++) {
            libs[i].clear(libs[i].f);
            libs[i].add_batch_u64(libs[i].f, keys, nkeys);
        }
        timed(&libs[0], op, 0), timed(&libs[1], op, 0); /* warm */
        size_t start = 0;
        for (int r = 0; r < rounds; r++) {
            /* both sides read the same fresh stretch of the stream, each from memory: A's pass
             * leaves it in the caches for B, so B reads the stretch that follows, and next
             * round the order flips */
            size_t next = start + round_keys;
            if (r & 1) {
                b[r] = timed(&libs[1], op, start);
                a[r] = timed(&libs[0], op, next);
            } else {
                a[r] = timed(&libs[0], op, start);
                b[r] = timed(&libs[1], op, next);
            }
            start = next + round_keys;
            ratio[r] = b[r] / a[r];
        }
        double ma = harness_quantile(a, rounds, 0.5), mb = harness_quantile(b, rounds, 0.5);
        printf("%-8s ns/key A %.2f  B %.2f   B/A p10 %.3f  median %.3f  p90 %.3f\n", op_names[op], ma, mb,
               harness_quantile(ratio, rounds, 0.1), harness_quantile(ratio, rounds, 0.5), harness_quantile(ratio, rounds, 0.9));
        free(a), free(b), free(ratio);
    }
    for (int i = 0; i < 2; i++) libs[i].destroy(libs[i].f);
    return 0;
}
