/*
 * c_reference.c — the C library's side of the binding's tests: a separate
 * program, linked with libbloomsimd alone, that builds filters with the
 * single-key C calls (not the batch calls the binding uses) and answers
 * lookups, so the tests compare the binding's bytes and answers with C's.
 *
 *   c_reference build OUT KIND KEYS [name=value...]   create, insert every key, save OUT
 *   c_reference query FILTER KIND KEYS ANSWERS        load FILTER; one byte (0/1) per key
 *
 * KIND: u64 (KEYS holds little-endian u64 keys) or bytes (KEYS holds
 * records: a little-endian u32 length, then that many bytes).
 * Options: capacity= fpr= seed= k= bits= growth= generations= layout=
 * concurrent=1 (as in bloomsimd_options) and new=1 (insert with bloomsimd_add_new*, which counts
 * keys and grows scalable filters). Exit 0 on success, 1 on a library
 * failure (its status and detail on stderr), 2 on bad usage.
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *data;
    size_t len;
} file_bytes;

static int read_all(const char *path, file_bytes *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return -1;
    out->data = buf;
    out->len = len;
    return 0;
}

/* Calls fn(key, len) for each record of a bytes KEYS file, or fn(NULL, u64) for u64 keys. */
typedef int (*key_fn)(void *ctx, const void *key, size_t len, uint64_t u64);

static int each_key(const file_bytes *keys, int is_u64, key_fn fn, void *ctx)
{
    for (size_t at = 0; at < keys->len;) {
        if (is_u64) {
            uint64_t k = 0;
            for (int b = 0; b < 8; b++) k |= (uint64_t)keys->data[at + (size_t)b] << (8 * b);
            if (fn(ctx, NULL, 0, k)) return -1;
            at += 8;
        } else {
            uint32_t n = (uint32_t)keys->data[at] | (uint32_t)keys->data[at + 1] << 8 |
                         (uint32_t)keys->data[at + 2] << 16 | (uint32_t)keys->data[at + 3] << 24;
            if (fn(ctx, keys->data + at + 4, n, 0)) return -1;
            at += 4 + (size_t)n;
        }
    }
    return 0;
}

typedef struct {
    bloomsimd_filter *filter;
    int is_u64, add_new;
    bloomsimd_status st;
    FILE *answers;
} run;

static int insert_one(void *ctx, const void *key, size_t len, uint64_t u64)
{
    run *r = ctx;
    bool fresh;
    if (r->is_u64)
        r->st = r->add_new ? bloomsimd_add_new_u64(r->filter, u64, &fresh) : bloomsimd_add_u64(r->filter, u64);
    else
        r->st = r->add_new ? bloomsimd_add_new(r->filter, key, len, &fresh) : bloomsimd_add(r->filter, key, len);
    return r->st != BLOOMSIMD_OK;
}

static int answer_one(void *ctx, const void *key, size_t len, uint64_t u64)
{
    run *r = ctx;
    int hit = r->is_u64 ? bloomsimd_contains_u64(r->filter, u64) : bloomsimd_contains(r->filter, key, len);
    return fputc(hit ? 1 : 0, r->answers) == EOF;
}

static int option(bloomsimd_options *o, int *add_new, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq) return -1;
    size_t n = (size_t)(eq - arg);
    const char *v = eq + 1;
    if (!strncmp(arg, "capacity", n)) o->capacity = strtoull(v, NULL, 10);
    else if (!strncmp(arg, "fpr", n)) o->fpr = strtod(v, NULL);
    else if (!strncmp(arg, "seed", n)) o->seed = strtoull(v, NULL, 10);
    else if (!strncmp(arg, "k", n)) o->k = (uint32_t)strtoul(v, NULL, 10);
    else if (!strncmp(arg, "bits", n)) o->bits = strtoull(v, NULL, 10);
    else if (!strncmp(arg, "growth", n)) o->growth = (uint32_t)strtoul(v, NULL, 10);
    else if (!strncmp(arg, "generations", n)) o->generations = (uint32_t)strtoul(v, NULL, 10);
    else if (!strncmp(arg, "layout", n)) o->layout = (uint32_t)strtoul(v, NULL, 10);
    else if (!strncmp(arg, "concurrent", n)) o->flags |= atoi(v) ? BLOOMSIMD_CONCURRENT : 0u;
    else if (!strncmp(arg, "new", n)) *add_new = atoi(v);
    else return -1;
    return 0;
}

static int fail(const char *what, bloomsimd_status st)
{
    fprintf(stderr, "c_reference %s: %s (%s)\n", what, bloomsimd_status_string(st), bloomsimd_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 5) return 2;
    const char *cmd = argv[1], *path = argv[2], *kind = argv[3];
    file_bytes keys;
    if (read_all(argv[4], &keys) < 0) return perror(argv[4]), 2;
    run r = {.is_u64 = !strcmp(kind, "u64")};
    if (!r.is_u64 && strcmp(kind, "bytes")) return 2;
    if (!strcmp(cmd, "build")) {
        bloomsimd_options o = {0};
        for (int i = 5; i < argc; i++)
            if (option(&o, &r.add_new, argv[i]) < 0) return fprintf(stderr, "bad option %s\n", argv[i]), 2;
        if ((r.st = bloomsimd_create_with(&r.filter, &o)) != BLOOMSIMD_OK) return fail("create", r.st);
        if (each_key(&keys, r.is_u64, insert_one, &r) < 0) return fail("insert", r.st);
        if ((r.st = bloomsimd_save(r.filter, path)) != BLOOMSIMD_OK) return fail("save", r.st);
    } else if (!strcmp(cmd, "query") && argc == 6) {
        if ((r.st = bloomsimd_load(&r.filter, path)) != BLOOMSIMD_OK) return fail("load", r.st);
        if (!(r.answers = fopen(argv[5], "wb"))) return perror(argv[5]), 2;
        if (each_key(&keys, r.is_u64, answer_one, &r) < 0 || fclose(r.answers)) return perror(argv[5]), 2;
    } else {
        return 2;
    }
    bloomsimd_destroy(r.filter);
    free(keys.data);
    return 0;
}
