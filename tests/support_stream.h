/*
 * support_stream.h — memory streams for bloomsimd_serialize_stream /
 * bloomsimd_deserialize_stream, and the check that the stream readers judge
 * a byte string as deserialize does.
 */
#ifndef BLOOMSIMD_TEST_SUPPORT_STREAM_H
#define BLOOMSIMD_TEST_SUPPORT_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "support.h"

/* Reads buf[0..len) in pseudo-random pieces of 1..max_piece bytes (max_piece
 * 0: whatever is asked for), as a socket would. */
typedef struct test_mem_reader {
    const uint8_t *buf;
    size_t len, pos, max_piece;
    uint64_t rng;
} test_mem_reader;
bloomsimd_status test_mem_read(void *ctx, void *buf, size_t len, size_t *got);

/* Appends to a growing heap buffer; records the largest piece. */
typedef struct test_mem_writer {
    uint8_t *buf;
    size_t len, cap, largest_piece, calls;
} test_mem_writer;
bloomsimd_status test_mem_write(void *ctx, const void *buf, size_t len);

/*
 * The bytes buf[0..len), which deserialize judges `want`, read by
 * bloomsimd_deserialize_stream (from an exact-size heap copy, in pieces) and,
 * with with_fd, by bloomsimd_deserialize_fd from a regular file: the same
 * status, *out NULL on failure, and on success exactly len bytes consumed.
 * The allowed differences (both documented): a stream shorter than its
 * intact header claims may give _NO_MEMORY instead of _CORRUPT (the fd
 * reader knows the file's length and must say _CORRUPT); a valid filter
 * followed by more bytes is read, and the bytes after it are left unread.
 */
void test_expect_stream_status(const uint8_t *buf, size_t len, bloomsimd_status want, bool with_fd,
                               const char *what);

#endif
