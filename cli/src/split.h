/*
 * split.h — finding the records in a buffer: where each one starts and how
 * long it is, without a per-byte loop and without a call per record.
 *
 * A record is the bytes before its terminator ('\n', or '\0' with --null);
 * the terminator is not part of it. Each function appends records found in
 * [*pp, end) to rec/len from index n, stops before index max, and moves *pp
 * past the last terminator it consumed: what is left at *pp is a partial
 * record (or records past a full chunk). Returns the new count.
 */
#ifndef BLOOMSIMD_CLI_SPLIT_H
#define BLOOMSIMD_CLI_SPLIT_H

#include <stddef.h>

/* Records of any length: one memchr per record (the C library's vector
 * search, fastest once records are longer than ~128 bytes). */
size_t split_long(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                  size_t max);
/* Short records: 64 bytes at a time into a mask of terminators (SSE2 on
 * x86-64, where it is part of the baseline; 8-byte words elsewhere). */
size_t split_short(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                   size_t max);

/* The two mask implementations of split_short, both compiled on x86-64 so
 * the tests check each against split_long (tests/split_test.c). */
size_t split_short_words(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                         size_t max);
#if defined(__SSE2__)
size_t split_short_sse2(const char **pp, const char *end, char term, const char **rec, size_t *len, size_t n,
                        size_t max);
#endif

/* The implementation split_short uses: "sse2" or "words". */
const char *split_short_name(void);

#endif
