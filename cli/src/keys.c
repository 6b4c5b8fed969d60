/*
 * keys.c — see keys.h.
 */
#include "keys.h"

#include <string.h>

/* Field `field` (1-based) of [p, p+len), or the empty key past the last
 * field, as awk's $N. memchr per field: no per-byte loop. */
static void pick_field(const char **p, size_t *len, uint32_t field, char delim)
{
    const char *s = *p;
    size_t n = *len;
    for (uint32_t f = 1; f < field; f++) {
        const char *d = memchr(s, delim, n);
        if (!d) {
            *len = 0;
            return;
        }
        n -= (size_t)(d + 1 - s);
        s = d + 1;
    }
    const char *d = memchr(s, delim, n);
    *p = s;
    *len = d ? (size_t)(d - s) : n;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Decimal or 0x-hex, surrounding blanks allowed, nothing else. */
static bool parse_u64(const char *p, size_t len, uint64_t *out)
{
    while (len && is_blank(*p)) p++, len--;
    while (len && is_blank(p[len - 1])) len--;
    if (!len) return false;
    uint64_t v = 0;
    if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        if (len - 2 > 16) return false;
        for (size_t i = 2; i < len; i++) {
            char c = p[i];
            unsigned d;
            if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
            else return false;
            v = v << 4 | d;
        }
    } else {
        for (size_t i = 0; i < len; i++) {
            char c = p[i];
            if (c < '0' || c > '9') return false;
            unsigned d = (unsigned)(c - '0');
            if (v > (UINT64_MAX - d) / 10) return false;
            v = v * 10 + d;
        }
    }
    *out = v;
    return true;
}

bool keys_extract(const cli_record_options *o, rec_batch *b)
{
    if (!o->crlf && !o->field && !o->u64) { /* whole records: the keys are the records */
        b->key = (const void *const *)b->rec;
        b->key_len = b->len;
        return true;
    }
    b->key = b->key_store;
    b->key_len = b->key_len_store;
    for (size_t i = 0; i < b->n; i++) {
        const char *p = b->rec[i];
        size_t len = b->len[i];
        if (o->crlf && len && p[len - 1] == '\r') len--;
        if (o->field) pick_field(&p, &len, o->field, o->delimiter);
        if (o->u64) {
            if (!parse_u64(p, len, &b->u64[i])) {
                size_t show = len < 40 ? len : 40;
                cli_error("%s:%llu: '%.*s%s' is not an unsigned 64-bit integer (decimal, or hex with 0x)", b->name,
                          (unsigned long long)(b->first_line + i), (int)show, p, show < len ? "..." : "");
                return false;
            }
        } else {
            b->key_store[i] = p;
            b->key_len_store[i] = len;
        }
    }
    return true;
}

bloomsimd_status keys_add(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b)
{
    if (o->u64) return bloomsimd_add_batch_u64(f, b->u64, b->n);
    return bloomsimd_add_batch(f, b->key, b->key_len, b->n);
}

size_t keys_contains(const bloomsimd_filter *f, const cli_record_options *o, rec_batch *b)
{
    if (o->u64) return bloomsimd_contains_batch_u64(f, b->u64, b->n, b->hit);
    return bloomsimd_contains_batch(f, b->key, b->key_len, b->n, b->hit);
}

bloomsimd_status keys_add_new(bloomsimd_filter *f, const cli_record_options *o, rec_batch *b, size_t *new_count)
{
    if (o->u64) return bloomsimd_add_new_batch_u64(f, b->u64, b->n, b->hit, new_count);
    return bloomsimd_add_new_batch(f, b->key, b->key_len, b->n, b->hit, new_count);
}
