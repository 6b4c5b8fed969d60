/*
 * split_test.c — the record splitters (cli/src/split.c) against a byte loop.
 *
 * Invariant: for every buffer, start offset, end offset, terminator and
 * room left in the chunk, split_short (each of its mask implementations
 * compiled on this target) and split_long find exactly the records a byte
 * loop finds (same starts, lengths and count), stop at the same place, and
 * leave *pp just past the last terminator they consumed. Buffers include
 * every record length 0..150 at every alignment to the 64-byte blocks,
 * terminators in every byte of a block, runs of terminators (64 records in a
 * block), bytes with the high bit set, '\r' before '\n' (the splitter keeps
 * it: --crlf strips it later), NUL bytes inside '\n' records and newlines
 * inside NUL records.
 *
 *   bloomsimd-cli-split-test     exit status 0 if every case agrees
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/split.h"

typedef size_t (*splitter)(const char **, const char *, char, const char **, size_t *, size_t, size_t);

static const struct {
    const char *name;
    splitter fn;
} splitters[] = {
    {"long", split_long},
    {"short", split_short},
    {"short_words", split_short_words},
#if defined(__SSE2__)
    {"short_sse2", split_short_sse2},
#endif
};

#define MAX_RECORDS 4096
static const char *want_rec[MAX_RECORDS], *got_rec[MAX_RECORDS];
static size_t want_len[MAX_RECORDS], got_len[MAX_RECORDS];
static unsigned long cases, failures;

/* The specification: one byte at a time. */
static size_t split_bytes(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                          size_t max)
{
    const char *start = *pp;
    for (const char *p = *pp; p < end && n < max; p++) {
        if (*p != term) continue;
        rec[n] = start;
        len[n] = (size_t)(p - start);
        n++;
        start = p + 1;
    }
    *pp = start;
    return n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Every splitter on [buf + from, buf + to) with records from index n0 to max. */
static void check(const char *what, const char *buf, size_t from, size_t to, char term, size_t n0, size_t max)
{
    const char *want_p = buf + from;
    size_t want_n = split_bytes(&want_p, buf + to, term, want_rec, want_len, n0, max);
    for (size_t s = 0; s < sizeof splitters / sizeof splitters[0]; s++) {
        cases++;
        const char *p = buf + from;
        size_t n = splitters[s].fn(&p, buf + to, term, got_rec, got_len, n0, max);
        bool ok = n == want_n && p == want_p;
        for (size_t i = n0; ok && i < n; i++) ok = got_rec[i] == want_rec[i] && got_len[i] == want_len[i];
        if (ok) continue;
        if (++failures <= 10)
            fprintf(stderr,
                    "FAIL %s: %s, bytes [%zu, %zu), terminator 0x%02x, records from %zu to max %zu: "
                    "%zu records ending at %td, expected %zu ending at %td\n",
                    splitters[s].name, what, from, to, (unsigned char)term, n0, max, n, p - buf, want_n,
                    want_p - buf);
    }
}

/* Every start alignment within a block and several ends, with plenty of room. */
static void check_offsets(const char *what, const char *buf, size_t size, char term)
{
    for (size_t from = 0; from < 64 && from < size; from++) {
        check(what, buf, from, size, term, 0, MAX_RECORDS);
        check(what, buf, from, size - (size - from) / 3, term, 0, MAX_RECORDS);
        check(what, buf, from, size - 1, term, 5, MAX_RECORDS); /* records appended after others */
    }
}

int main(void)
{
    static char buf[8192];

    /* Records of every length 0..150, so every record boundary falls on
     * every offset of a block; other bytes random, never the terminator. */
    const char terms[] = {'\n', '\0'};
    for (size_t t = 0; t < sizeof terms; t++) {
        char term = terms[t];
        size_t size = 0;
        for (size_t len = 0; len <= 150 && size + len + 1 < sizeof buf; len++) {
            for (size_t i = 0; i < len; i++) {
                char c = (char)(rng() & 0xff);
                buf[size++] = c == term ? 'x' : c;
            }
            buf[size++] = term;
        }
        check_offsets("lengths 0..150", buf, size, term);

        /* Dense: every byte a terminator (64 records per block), then the
         * chunk limit at every count near a block's worth. */
        memset(buf, term, 1024);
        check_offsets("every byte a terminator", buf, 1024, term);
        for (size_t max = 1; max < 200; max++) check("full chunk", buf, 0, 1024, term, 0, max);
        for (size_t max = 60; max < 140; max++) check("full chunk, 3 in", buf, 3, 1024, term, 7, max);

        /* None: no terminator at all, so nothing is consumed. */
        memset(buf, term == '\n' ? 'a' : '\n', 1024);
        check_offsets("no terminator", buf, 1024, term);

        /* Random densities, high bytes, the other terminator inside records. */
        for (int round = 0; round < 300; round++) {
            unsigned density = 1u + (unsigned)(rng() % 40);
            size_t bytes = 128 + (size_t)(rng() % 4000);
            for (size_t i = 0; i < bytes; i++) {
                uint64_t r = rng();
                if (r % density == 0) buf[i] = term;
                else if (r % 7 == 1) buf[i] = term == '\n' ? '\0' : '\n';
                else if (r % 7 == 2) buf[i] = '\r';
                else buf[i] = (char)(0x80 | (r >> 8 & 0x7f));
                if (buf[i] == term && (r >> 20) % 5 == 0 && i) buf[i - 1] = '\r'; /* CRLF */
            }
            size_t from = (size_t)(rng() % 64), to = bytes - (size_t)(rng() % 64);
            size_t n0 = (size_t)(rng() % 8), max = n0 + 1 + (size_t)(rng() % 400);
            check("random", buf, from, to, term, n0, max);
            check("random, room", buf, from, to, term, n0, MAX_RECORDS);
        }
    }

    /* Empty and tiny ranges. */
    buf[0] = '\n';
    check("empty range", buf, 0, 0, '\n', 0, MAX_RECORDS);
    check("one terminator", buf, 0, 1, '\n', 0, MAX_RECORDS);
    check("no room", buf, 0, 1, '\n', 3, 3);

    printf("split_test: %s; %lu cases, %lu failed (split_short uses %s)\n", failures ? "FAILED" : "ok", cases,
           failures, split_short_name());
    return failures ? 1 : 0;
}
