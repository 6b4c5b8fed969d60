/*
 * thrift.h — the part of Thrift's compact protocol that Parquet's footer and
 * Bloom filter header need: a bounds-checked reader and a small writer.
 *
 * Compact protocol, as Parquet writes it:
 *   struct   a sequence of fields, then a 0 byte (STOP). A field starts with a
 *            byte whose high nibble is the field id minus the previous field's
 *            id in this struct (1..15), or 0 and then the id as a zigzag
 *            varint i16; its low nibble is the type below. A bool field's
 *            value is its type (1 true, 2 false), with no payload.
 *   types    1/2 bool, 3 i8 (one byte), 4 i16, 5 i32, 6 i64 (zigzag ULEB128
 *            varints), 7 double (8 bytes LE), 8 binary (varint length, bytes),
 *            9 list, 10 set (a byte: size << 4 | element type, size 15 meaning
 *            a varint size follows; bools are one byte each), 11 map (varint
 *            size; if > 0 a byte key type << 4 | value type), 12 struct.
 *
 * Every read checks the bytes left before touching them, so a reader over
 * [start, end) never reads outside it; each failure is BLOOMSIMD_ERR_CORRUPT
 * with the offset from `start` and what was wrong in bloomsimd_last_error().
 * Skipping an unknown field walks nested values with an explicit stack of at
 * most BLOOMSIMD_THRIFT_MAX_DEPTH levels (no recursion), and every element
 * consumes at least one byte, so any input is walked in time linear in its
 * length. No function here allocates.
 */
#ifndef BLOOMSIMD_PARQUET_THRIFT_H
#define BLOOMSIMD_PARQUET_THRIFT_H

#include "../baseline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../include/bloomsimd.h"

/* Compact-protocol type nibbles. */
enum {
    BLOOMSIMD_THRIFT_STOP = 0,
    BLOOMSIMD_THRIFT_TRUE = 1,
    BLOOMSIMD_THRIFT_FALSE = 2,
    BLOOMSIMD_THRIFT_I8 = 3,
    BLOOMSIMD_THRIFT_I16 = 4,
    BLOOMSIMD_THRIFT_I32 = 5,
    BLOOMSIMD_THRIFT_I64 = 6,
    BLOOMSIMD_THRIFT_DOUBLE = 7,
    BLOOMSIMD_THRIFT_BINARY = 8,
    BLOOMSIMD_THRIFT_LIST = 9,
    BLOOMSIMD_THRIFT_SET = 10,
    BLOOMSIMD_THRIFT_MAP = 11,
    BLOOMSIMD_THRIFT_STRUCT = 12
};

/* Nesting a skipped value may have. Parquet's deepest definition (a
 * LogicalType inside a SchemaElement inside FileMetaData) is 4 levels; 64
 * leaves room for future fields and stops a hostile input cold. */
#define BLOOMSIMD_THRIFT_MAX_DEPTH 64u

typedef struct bloomsimd_thrift_reader {
    const uint8_t *start; /* offsets in failure details count from here */
    const uint8_t *pos;
    const uint8_t *end;
    const char *what;     /* the structure being read, for failure details ("FileMetaData") */
} bloomsimd_thrift_reader;

static inline void bloomsimd_thrift_reader_init(bloomsimd_thrift_reader *r, const void *buf, size_t len,
                                                const char *what)
{
    r->start = buf;
    r->pos = buf;
    r->end = r->start + len;
    r->what = what;
}

static inline size_t bloomsimd_thrift_offset(const bloomsimd_thrift_reader *r) { return (size_t)(r->pos - r->start); }

/* The next field header of the struct being read. *last_id is the previous
 * field's id in this struct (0 before the first), updated here. At the STOP
 * byte *type is BLOOMSIMD_THRIFT_STOP and *id is 0. Unknown type nibbles (13,
 * 14, 15) are CORRUPT. */
bloomsimd_status bloomsimd_thrift_field(bloomsimd_thrift_reader *r, int16_t *last_id, int16_t *id, uint8_t *type);

/* Values of a field (or list element) of type `type`: each checks that the
 * type is the one expected (an i32 field accepts i8 and i16 encodings, an
 * i64 field any integer: Thrift's compact varints are the same bytes), then
 * reads it. `name` names the field for the failure detail. */
bloomsimd_status bloomsimd_thrift_i32(bloomsimd_thrift_reader *r, uint8_t type, const char *name, int32_t *value);
bloomsimd_status bloomsimd_thrift_i64(bloomsimd_thrift_reader *r, uint8_t type, const char *name, int64_t *value);
/* binary/string: *data points into the reader's buffer, *len bytes. */
bloomsimd_status bloomsimd_thrift_binary(bloomsimd_thrift_reader *r, uint8_t type, const char *name,
                                         const uint8_t **data, size_t *len);
/* list/set header: its element type and count. The count is checked against
 * the bytes left (every element takes at least one), so a caller may size an
 * array by it without trusting the input further. */
bloomsimd_status bloomsimd_thrift_list(bloomsimd_thrift_reader *r, uint8_t type, const char *name,
                                       uint8_t *elem_type, uint32_t *count);
/* Checks that a field is a struct (the caller then reads its fields). */
bloomsimd_status bloomsimd_thrift_expect_struct(const bloomsimd_thrift_reader *r, uint8_t type, const char *name);
/* Skips one value of `type` (a field's payload or a list element), however
 * nested, within BLOOMSIMD_THRIFT_MAX_DEPTH levels. */
bloomsimd_status bloomsimd_thrift_skip(bloomsimd_thrift_reader *r, uint8_t type);
/* The failure for a struct whose field `id` appears twice. */
bloomsimd_status bloomsimd_thrift_duplicate(const bloomsimd_thrift_reader *r, int16_t id);
/* The failure for a required field that is missing. */
bloomsimd_status bloomsimd_thrift_missing(const bloomsimd_thrift_reader *r, int16_t id, const char *name);

/* ---- writer: into a caller's buffer; stops (ok = false) at its end ---- */
typedef struct bloomsimd_thrift_writer {
    uint8_t *buf;
    size_t cap;
    size_t len; /* bytes written, or that would have been written past cap */
} bloomsimd_thrift_writer;

static inline void bloomsimd_thrift_writer_init(bloomsimd_thrift_writer *w, void *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
}

/* True if every byte fit. w->len counts every byte asked for, so a writer
 * over a NULL buffer of capacity 0 measures the encoding. */
static inline bool bloomsimd_thrift_writer_ok(const bloomsimd_thrift_writer *w) { return w->len <= w->cap; }

void bloomsimd_thrift_put_byte(bloomsimd_thrift_writer *w, uint8_t byte);
void bloomsimd_thrift_put_varint(bloomsimd_thrift_writer *w, uint64_t value);
/* A field header, with the delta form when it fits; updates *last_id. */
void bloomsimd_thrift_put_field(bloomsimd_thrift_writer *w, int16_t *last_id, int16_t id, uint8_t type);
void bloomsimd_thrift_put_i32(bloomsimd_thrift_writer *w, int32_t value);
void bloomsimd_thrift_put_i64(bloomsimd_thrift_writer *w, int64_t value);
void bloomsimd_thrift_put_binary(bloomsimd_thrift_writer *w, const void *data, size_t len);
void bloomsimd_thrift_put_list(bloomsimd_thrift_writer *w, uint8_t elem_type, uint32_t count);
static inline void bloomsimd_thrift_put_stop(bloomsimd_thrift_writer *w) { bloomsimd_thrift_put_byte(w, 0); }

#endif
