/*
 * thrift.c — compact-protocol reader and writer (thrift.h has the encoding).
 */
#include "thrift.h"

#include <string.h>

#include "../internal.h"

static const char *type_name(uint8_t type)
{
    static const char *const names[] = {"stop", "bool", "bool", "i8",  "i16", "i32",   "i64",
                                        "double", "binary", "list", "set", "map", "struct"};
    return type < sizeof names / sizeof names[0] ? names[type] : "unknown type";
}

static bloomsimd_status truncated(const bloomsimd_thrift_reader *r, const char *need)
{
    return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s truncated at byte %zu: %s runs past the end (%zu bytes)",
                          r->what, bloomsimd_thrift_offset(r), need, (size_t)(r->end - r->start));
}

/* An unsigned LEB128 varint of at most max_bytes bytes (5: 32 bits, 10: 64
 * bits). A value wider than the type (bits above 32 or 64) is CORRUPT, as a
 * Thrift reader would overflow on it. */
static bloomsimd_status read_varint(bloomsimd_thrift_reader *r, unsigned max_bytes, const char *name,
                                    uint64_t *value)
{
    const uint8_t *p = r->pos;
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (p == r->end) return truncated(r, name);
        uint8_t byte = *p++;
        unsigned shift = 7u * i;
        uint64_t bits = byte & 0x7fu;
        /* The last byte may carry only the bits the type has left. */
        if (i + 1 == max_bytes && (bits >> ((max_bytes == 5 ? 32u : 64u) - shift)) != 0)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: varint %s overflows %u bits", r->what,
                                  bloomsimd_thrift_offset(r), name, max_bytes == 5 ? 32u : 64u);
        v |= bits << shift;
        if (!(byte & 0x80u)) break;
        if (i + 1 == max_bytes)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: varint %s longer than %u bytes", r->what,
                                  bloomsimd_thrift_offset(r), name, max_bytes);
    }
    r->pos = p;
    *value = v;
    return BLOOMSIMD_OK;
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1u); }

static bool known_type(uint8_t type) { return type >= BLOOMSIMD_THRIFT_TRUE && type <= BLOOMSIMD_THRIFT_STRUCT; }

bloomsimd_status bloomsimd_thrift_field(bloomsimd_thrift_reader *r, int16_t *last_id, int16_t *id, uint8_t *type)
{
    size_t at = bloomsimd_thrift_offset(r);
    if (r->pos == r->end) return truncated(r, "a field header");
    uint8_t byte = *r->pos++;
    if (byte == 0) {
        *id = 0;
        *type = BLOOMSIMD_THRIFT_STOP;
        return BLOOMSIMD_OK;
    }
    uint8_t t = byte & 0x0fu;
    if (!known_type(t))
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: field type %u is not a compact-protocol type",
                              r->what, at, t);
    int32_t next;
    if (byte >> 4) {
        next = (int32_t)*last_id + (byte >> 4);
    } else {
        uint64_t raw = 0;
        bloomsimd_status st = read_varint(r, 3, "field id", &raw);
        if (st != BLOOMSIMD_OK) return st;
        next = (int32_t)unzigzag(raw);
    }
    if (next < INT16_MIN || next > INT16_MAX)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: field id %ld outside i16", r->what, at,
                              (long)next);
    *id = (int16_t)next;
    *last_id = (int16_t)next;
    *type = t;
    return BLOOMSIMD_OK;
}

static bloomsimd_status wrong_type(const bloomsimd_thrift_reader *r, const char *name, uint8_t type,
                                   const char *want)
{
    return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: field %s is %s, not %s", r->what,
                          bloomsimd_thrift_offset(r), name, type_name(type), want);
}

static bloomsimd_status read_integer(bloomsimd_thrift_reader *r, uint8_t type, const char *name, unsigned bits,
                                     int64_t *value)
{
    if (type == BLOOMSIMD_THRIFT_I8) {
        if (r->pos == r->end) return truncated(r, name);
        *value = (int8_t)*r->pos++;
        return BLOOMSIMD_OK;
    }
    if (type != BLOOMSIMD_THRIFT_I16 && type != BLOOMSIMD_THRIFT_I32 &&
        !(bits == 64 && type == BLOOMSIMD_THRIFT_I64))
        return wrong_type(r, name, type, bits == 64 ? "an integer" : "i32");
    uint64_t raw = 0;
    bloomsimd_status st = read_varint(r, bits == 64 ? 10u : 5u, name, &raw);
    if (st != BLOOMSIMD_OK) return st;
    *value = unzigzag(raw);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_thrift_i32(bloomsimd_thrift_reader *r, uint8_t type, const char *name, int32_t *value)
{
    int64_t v = 0;
    bloomsimd_status st = read_integer(r, type, name, 32, &v);
    if (st == BLOOMSIMD_OK) *value = (int32_t)v; /* 5-byte varints of 32 bits unzigzag into i32 range */
    return st;
}

bloomsimd_status bloomsimd_thrift_i64(bloomsimd_thrift_reader *r, uint8_t type, const char *name, int64_t *value)
{
    return read_integer(r, type, name, 64, value);
}

bloomsimd_status bloomsimd_thrift_binary(bloomsimd_thrift_reader *r, uint8_t type, const char *name,
                                         const uint8_t **data, size_t *len)
{
    if (type != BLOOMSIMD_THRIFT_BINARY) return wrong_type(r, name, type, "binary");
    uint64_t n = 0;
    bloomsimd_status st = read_varint(r, 5, name, &n);
    if (st != BLOOMSIMD_OK) return st;
    if (n > (uint64_t)(r->end - r->pos)) return truncated(r, name);
    *data = r->pos;
    *len = (size_t)n;
    r->pos += n;
    return BLOOMSIMD_OK;
}

/* The header of a list or set (type already checked). */
static bloomsimd_status read_list_header(bloomsimd_thrift_reader *r, const char *name, uint8_t *elem_type,
                                         uint32_t *count)
{
    size_t at = bloomsimd_thrift_offset(r);
    if (r->pos == r->end) return truncated(r, name);
    uint8_t byte = *r->pos++;
    uint8_t t = byte & 0x0fu;
    uint64_t n = byte >> 4;
    if (n == 15) {
        bloomsimd_status st = read_varint(r, 5, name, &n);
        if (st != BLOOMSIMD_OK) return st;
    }
    if (!known_type(t))
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: %s has element type %u", r->what, at, name, t);
    /* Every element takes at least one byte (a bool or i8 one, a struct its
     * STOP), so a longer count cannot be real. */
    if (n > (uint64_t)(r->end - r->pos))
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: %s claims %llu elements, %zu bytes left",
                              r->what, at, name, (unsigned long long)n, (size_t)(r->end - r->pos));
    *elem_type = t;
    *count = (uint32_t)n;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_thrift_list(bloomsimd_thrift_reader *r, uint8_t type, const char *name,
                                       uint8_t *elem_type, uint32_t *count)
{
    if (type != BLOOMSIMD_THRIFT_LIST && type != BLOOMSIMD_THRIFT_SET) return wrong_type(r, name, type, "list");
    return read_list_header(r, name, elem_type, count);
}

bloomsimd_status bloomsimd_thrift_expect_struct(const bloomsimd_thrift_reader *r, uint8_t type, const char *name)
{
    return type == BLOOMSIMD_THRIFT_STRUCT ? BLOOMSIMD_OK : wrong_type(r, name, type, "struct");
}

bloomsimd_status bloomsimd_thrift_duplicate(const bloomsimd_thrift_reader *r, int16_t id)
{
    return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: field %d appears twice", r->what,
                          bloomsimd_thrift_offset(r), id);
}

bloomsimd_status bloomsimd_thrift_missing(const bloomsimd_thrift_reader *r, int16_t id, const char *name)
{
    return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s ending at byte %zu: required field %d (%s) is missing",
                          r->what, bloomsimd_thrift_offset(r), id, name);
}

/* What an open container still holds, for the iterative skip. */
typedef struct skip_frame {
    uint8_t kind;       /* STRUCT, LIST (also sets) or MAP */
    uint8_t types[2];   /* LIST: element type; MAP: key and value types */
    int16_t last_id;    /* STRUCT: previous field id */
    uint64_t left;      /* LIST: elements left; MAP: keys and values left (2 per entry) */
} skip_frame;

static bloomsimd_status push(bloomsimd_thrift_reader *r, skip_frame *stack, unsigned *depth, skip_frame frame)
{
    if (*depth == BLOOMSIMD_THRIFT_MAX_DEPTH)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: values nested deeper than %u levels", r->what,
                              bloomsimd_thrift_offset(r), BLOOMSIMD_THRIFT_MAX_DEPTH);
    stack[(*depth)++] = frame;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_thrift_skip(bloomsimd_thrift_reader *r, uint8_t type)
{
    skip_frame stack[BLOOMSIMD_THRIFT_MAX_DEPTH];
    unsigned depth = 0;
    uint8_t t = type;
    bool element = false; /* a bool inside a container is a byte; a bool field has none */
    for (;;) {
        bloomsimd_status st = BLOOMSIMD_OK;
        uint64_t n = 0;
        switch (t) {
        case BLOOMSIMD_THRIFT_TRUE:
        case BLOOMSIMD_THRIFT_FALSE:
        case BLOOMSIMD_THRIFT_I8:
            /* a bool field's value is its type nibble; in a container it is a byte */
            if (t == BLOOMSIMD_THRIFT_I8 || element) {
                if (r->pos == r->end) return truncated(r, "a byte");
                r->pos++;
            }
            break;
        case BLOOMSIMD_THRIFT_I16:
        case BLOOMSIMD_THRIFT_I32:
        case BLOOMSIMD_THRIFT_I64:
            st = read_varint(r, 10, "an integer", &n);
            break;
        case BLOOMSIMD_THRIFT_DOUBLE:
            if (r->end - r->pos < 8) return truncated(r, "a double");
            r->pos += 8;
            break;
        case BLOOMSIMD_THRIFT_BINARY: {
            const uint8_t *data = NULL;
            size_t len = 0;
            st = bloomsimd_thrift_binary(r, t, "a binary", &data, &len);
            break;
        }
        case BLOOMSIMD_THRIFT_LIST:
        case BLOOMSIMD_THRIFT_SET: {
            uint8_t elem = 0;
            uint32_t count = 0;
            st = read_list_header(r, "a list", &elem, &count);
            if (st == BLOOMSIMD_OK && count)
                st = push(r, stack, &depth, (skip_frame){BLOOMSIMD_THRIFT_LIST, {elem, 0}, 0, count});
            break;
        }
        case BLOOMSIMD_THRIFT_MAP: {
            size_t at = bloomsimd_thrift_offset(r);
            st = read_varint(r, 5, "a map size", &n);
            if (st != BLOOMSIMD_OK || n == 0) break;
            if (r->pos == r->end) return truncated(r, "a map's types");
            uint8_t kv = *r->pos++;
            uint8_t kt = kv >> 4, vt = kv & 0x0fu;
            if (!known_type(kt) || !known_type(vt))
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: map of types %u/%u", r->what, at, kt,
                                      vt);
            if (n > (uint64_t)(r->end - r->pos) / 2)
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: map claims %llu entries, %zu bytes left",
                                      r->what, at, (unsigned long long)n, (size_t)(r->end - r->pos));
            st = push(r, stack, &depth, (skip_frame){BLOOMSIMD_THRIFT_MAP, {kt, vt}, 0, 2 * n});
            break;
        }
        case BLOOMSIMD_THRIFT_STRUCT:
            st = push(r, stack, &depth, (skip_frame){BLOOMSIMD_THRIFT_STRUCT, {0, 0}, 0, 0});
            break;
        default:
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s byte %zu: value of type %u", r->what,
                                  bloomsimd_thrift_offset(r), t);
        }
        if (st != BLOOMSIMD_OK) return st;
        /* The next value to skip: from the innermost open container. */
        for (;;) {
            if (depth == 0) return BLOOMSIMD_OK;
            skip_frame *f = &stack[depth - 1];
            if (f->kind == BLOOMSIMD_THRIFT_STRUCT) {
                int16_t id;
                st = bloomsimd_thrift_field(r, &f->last_id, &id, &t);
                if (st != BLOOMSIMD_OK) return st;
                if (t == BLOOMSIMD_THRIFT_STOP) {
                    depth--;
                    continue;
                }
                element = false;
                break;
            }
            if (f->left == 0) {
                depth--;
                continue;
            }
            f->left--;
            /* a map alternates key (even count left after the step: odd before) and value */
            t = f->kind == BLOOMSIMD_THRIFT_MAP ? f->types[f->left % 2 ? 0 : 1] : f->types[0];
            element = true;
            break;
        }
    }
}

/* ---- writer ---- */

void bloomsimd_thrift_put_byte(bloomsimd_thrift_writer *w, uint8_t byte)
{
    if (w->len < w->cap) w->buf[w->len] = byte;
    w->len++;
}

void bloomsimd_thrift_put_varint(bloomsimd_thrift_writer *w, uint64_t value)
{
    while (value >= 0x80u) {
        bloomsimd_thrift_put_byte(w, (uint8_t)(value | 0x80u));
        value >>= 7;
    }
    bloomsimd_thrift_put_byte(w, (uint8_t)value);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void bloomsimd_thrift_put_field(bloomsimd_thrift_writer *w, int16_t *last_id, int16_t id, uint8_t type)
{
    int32_t delta = (int32_t)id - *last_id;
    if (delta > 0 && delta <= 15) {
        bloomsimd_thrift_put_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        bloomsimd_thrift_put_byte(w, type);
        bloomsimd_thrift_put_varint(w, zigzag(id));
    }
    *last_id = id;
}

void bloomsimd_thrift_put_i32(bloomsimd_thrift_writer *w, int32_t value)
{
    bloomsimd_thrift_put_varint(w, (uint32_t)zigzag(value));
}

void bloomsimd_thrift_put_i64(bloomsimd_thrift_writer *w, int64_t value) { bloomsimd_thrift_put_varint(w, zigzag(value)); }

void bloomsimd_thrift_put_binary(bloomsimd_thrift_writer *w, const void *data, size_t len)
{
    bloomsimd_thrift_put_varint(w, len);
    for (size_t i = 0; i < len; i++) bloomsimd_thrift_put_byte(w, ((const uint8_t *)data)[i]);
}

void bloomsimd_thrift_put_list(bloomsimd_thrift_writer *w, uint8_t elem_type, uint32_t count)
{
    if (count < 15) {
        bloomsimd_thrift_put_byte(w, (uint8_t)(count << 4 | elem_type));
    } else {
        bloomsimd_thrift_put_byte(w, (uint8_t)(0xf0u | elem_type));
        bloomsimd_thrift_put_varint(w, count);
    }
}
