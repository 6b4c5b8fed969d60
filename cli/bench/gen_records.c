/*
 * gen_records.c — writes random records for the CLI's tests and benchmark.
 *
 *   bloomsimd-gen-records COUNT [--min L] [--max L] [--repeat R] [--seed S]
 *                         [--first-id N] [--u64] [--null] [--crlf]
 *
 * Record i is either new (probability 1 - R) or a repeat of a uniformly
 * chosen earlier new record. A new record's bytes are a pure function of its
 * id (and the seed), so repeats are regenerated instead of stored: 10^8
 * records need no memory. Lengths are uniform in [min, max] over the
 * alphabet [A-Za-z0-9_-] (no delimiters); with --u64, records are decimal
 * 64-bit integers. Distinct ids give distinct records except with
 * probability about n^2 / 64^min (negligible for min >= 8 and n <= 10^8).
 * --first-id offsets the ids, so two runs with disjoint id ranges give
 * disjoint record sets (absent keys for lookups).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const char ALPHABET[64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

static char *out_buf;
static size_t out_len;
#define OUT_CAP ((size_t)1 << 20)

static void flush_out(void)
{
    if (out_len && fwrite(out_buf, 1, out_len, stdout) != out_len) {
        perror("bloomsimd-gen-records: write");
        exit(2);
    }
    out_len = 0;
}

static size_t make_record(uint64_t id, uint64_t seed, unsigned min, unsigned max, int u64, char *dst)
{
    uint64_t s = id * 0xd1b54a32d192ed03ull ^ seed;
    uint64_t r = splitmix64(&s);
    if (u64) return (size_t)sprintf(dst, "%llu", (unsigned long long)r);
    size_t len = min + (size_t)(r % (max - min + 1));
    for (size_t i = 0; i < len; i += 10) {
        uint64_t bits = splitmix64(&s);
        for (size_t j = i; j < len && j < i + 10; j++, bits >>= 6) dst[j] = ALPHABET[bits & 63];
    }
    return len;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bloomsimd-gen-records COUNT [--min L] [--max L] [--repeat R] [--seed S] "
                        "[--first-id N] [--u64] [--null] [--crlf]\n");
        return 2;
    }
    uint64_t count = (uint64_t)strtod(argv[1], NULL), seed = 1, first_id = 0;
    unsigned min = 8, max = 64;
    double repeat = 0.3;
    int u64 = 0, crlf = 0;
    char term = '\n';
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
        if (!strcmp(a, "--min")) min = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--max")) max = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--repeat")) repeat = atof(v), i++;
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--first-id")) first_id = (uint64_t)strtod(v, NULL), i++;
        else if (!strcmp(a, "--u64")) u64 = 1;
        else if (!strcmp(a, "--null")) term = '\0';
        else if (!strcmp(a, "--crlf")) crlf = 1;
        else {
            fprintf(stderr, "bloomsimd-gen-records: unknown option %s\n", a);
            return 2;
        }
    }
    if (min > max || max > 4096) {
        fprintf(stderr, "bloomsimd-gen-records: need min <= max <= 4096\n");
        return 2;
    }
    out_buf = malloc(OUT_CAP);
    if (!out_buf) return 2;
    uint64_t rng = seed ^ 0x5bd1e995u, distinct = 0;
    /* repeat with probability R: compare 53 random bits to R * 2^53 */
    uint64_t threshold = (uint64_t)(repeat * 9007199254740992.0);
    for (uint64_t i = 0; i < count; i++) {
        if (OUT_CAP - out_len < max + 32) flush_out();
        uint64_t id;
        if (distinct > 0 && (splitmix64(&rng) >> 11) < threshold) id = splitmix64(&rng) % distinct;
        else id = distinct++;
        out_len += make_record(first_id + id, seed, min, max, u64, out_buf + out_len);
        if (crlf) out_buf[out_len++] = '\r';
        out_buf[out_len++] = term;
    }
    flush_out();
    fflush(stdout);
    fprintf(stderr, "bloomsimd-gen-records: %llu records, %llu distinct\n", (unsigned long long)count,
            (unsigned long long)distinct);
    free(out_buf);
    return 0;
}
