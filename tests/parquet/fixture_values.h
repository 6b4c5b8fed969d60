/*
 * fixture_values.h — the values DuckDB wrote into tests/parquet/fixtures
 * (README.md there: the formulas), as their PLAIN encodings, and the text
 * form of duckdb_probe.tsv parsed into the same encodings.
 */
#ifndef BLOOMSIMD_TEST_FIXTURE_VALUES_H
#define BLOOMSIMD_TEST_FIXTURE_VALUES_H

#include <bloomsimd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_ROWS_PER_GROUP 4096u
#define FIXTURE_MIXED_ROWS 12288u
#define FIXTURE_NULLS_ROWS 5000u
#define FIXTURE_TYPES_ROWS_PER_GROUP 2048u
#define FIXTURE_VALUE_MAX 160u

static inline size_t fixture_le(uint8_t *buf, uint64_t v, size_t bytes)
{
    for (size_t b = 0; b < bytes; b++) buf[b] = (uint8_t)(v >> (8 * b));
    return bytes;
}

static inline size_t fixture_double(uint8_t *buf, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return fixture_le(buf, bits, 8);
}

static inline size_t fixture_float(uint8_t *buf, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return fixture_le(buf, bits, 4);
}

static inline int fixture_hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A UUID's text (8-4-4-4-12 hex digits) as its 16 bytes, first digit first:
 * Parquet's UUID, FIXED_LEN_BYTE_ARRAY(16). Returns 16, or -1. */
static inline int fixture_uuid(uint8_t *buf, const char *text)
{
    int digits = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '-') continue;
        int d = fixture_hex_digit(*p);
        if (d < 0 || digits == 32) return -1;
        buf[digits / 2] = (uint8_t)(digits % 2 ? buf[digits / 2] | d : d << 4);
        digits++;
    }
    return digits == 32 ? 16 : -1;
}

/* Row i's value of `column` in `file` ("mixed.parquet",
 * "nulls_fpr0001.parquet" or "types.parquet"), PLAIN-encoded into buf
 * (BYTE_ARRAY without its length prefix). Returns its length, or -1 for NULL. */
static inline int fixture_value(const char *file, const char *column, uint64_t i, uint8_t buf[FIXTURE_VALUE_MAX])
{
    uint64_t rg = i / FIXTURE_ROWS_PER_GROUP;
    if (strcmp(file, "mixed.parquet") == 0) {
        if (!strcmp(column, "i64")) return (int)fixture_le(buf, (uint64_t)((int64_t)(i / 2) * 1000003 - ((int64_t)1 << 40)), 8);
        if (!strcmp(column, "i32"))
            return (int)fixture_le(buf, (uint32_t)(int32_t)((int64_t)(i % 1500) * 3 + (int64_t)rg * 7 - 4000), 4);
        if (!strcmp(column, "f64")) return (int)fixture_double(buf, (double)(i % 1800) / 7.0 + (double)rg);
        if (!strcmp(column, "f32")) return (int)fixture_float(buf, (float)(i % 1000) / 3.0f);
        if (!strcmp(column, "str"))
            return snprintf((char *)buf, FIXTURE_VALUE_MAX, "k%06u-%u", (unsigned)((i * 37) % 2000), (unsigned)rg);
        if (!strcmp(column, "var")) {
            unsigned x = (unsigned)(i % 23);
            memset(buf, 'x', x);
            return (int)x + snprintf((char *)buf + x, FIXTURE_VALUE_MAX - x, "%u", (unsigned)(i % 89));
        }
        if (!strcmp(column, "s.x")) return (int)fixture_le(buf, i % 100, 8);
    } else if (strcmp(file, "nulls_fpr0001.parquet") == 0) {
        if (!strcmp(column, "id")) return i % 7 == 3 ? -1 : (int)fixture_le(buf, (i % 300) * UINT64_C(1000000007), 8);
        if (!strcmp(column, "name")) return snprintf((char *)buf, FIXTURE_VALUE_MAX, "name-%u", (unsigned)(i % 700));
        if (!strcmp(column, "seq")) return (int)fixture_le(buf, (uint32_t)i, 4);
    } else if (strcmp(file, "types.parquet") == 0) {
        if (!strcmp(column, "u64")) return (int)fixture_le(buf, UINT64_MAX - (i % 700) * UINT64_C(1000000007), 8);
        if (!strcmp(column, "u32")) return (int)fixture_le(buf, UINT32_MAX - (uint32_t)(i % 600) * 3u, 4);
        if (!strcmp(column, "id")) {
            uint64_t j = i % 650;
            char text[40];
            snprintf(text, sizeof text, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                     (unsigned long long)((j * 2654435761u) % (UINT64_C(1) << 32)),
                     (unsigned long long)((j * 40503u) % 65536u), (unsigned long long)j,
                     (unsigned long long)((j * 7u) % 4096u), (unsigned long long)(j * 1000003u));
            return fixture_uuid(buf, text);
        }
        if (!strcmp(column, "long")) {
            uint64_t j = i % 700;
            int n = 0;
            for (uint64_t r = 0; r < j % 14; r++, n += 10) memcpy(buf + n, "abcdefghij", 10);
            return n + snprintf((char *)buf + n, FIXTURE_VALUE_MAX - (size_t)n, "%u", (unsigned)j);
        }
    }
    fprintf(stderr, "fixture_value: no column %s in %s\n", column, file);
    abort();
}

/* A value as duckdb_probe.tsv writes it, PLAIN-encoded for the physical
 * type. Returns its length, or -1 if the text is not a value of that type. */
static inline int fixture_parse(uint32_t physical_type, const char *text, uint8_t buf[FIXTURE_VALUE_MAX])
{
    char *end;
    switch (physical_type) {
    case BLOOMSIMD_PARQUET_INT64: { /* signed, or unsigned above INT64_MAX (UINT_64) */
        uint64_t v = text[0] == '-' ? (uint64_t)strtoll(text, &end, 10) : (uint64_t)strtoull(text, &end, 10);
        return *end ? -1 : (int)fixture_le(buf, v, 8);
    }
    case BLOOMSIMD_PARQUET_INT32: { /* signed, or unsigned above INT32_MAX (UINT_32) */
        long long v = strtoll(text, &end, 10);
        return *end ? -1 : (int)fixture_le(buf, (uint32_t)v, 4);
    }
    case BLOOMSIMD_PARQUET_DOUBLE: {
        double d = strtod(text, &end);
        return *end ? -1 : (int)fixture_double(buf, d);
    }
    case BLOOMSIMD_PARQUET_FLOAT: {
        double d = strtod(text, &end); /* the shortest double that is the float: exact */
        return *end ? -1 : (int)fixture_float(buf, (float)d);
    }
    case BLOOMSIMD_PARQUET_BYTE_ARRAY: {
        size_t n = strlen(text);
        if (n > FIXTURE_VALUE_MAX) return -1;
        memcpy(buf, text, n);
        return (int)n;
    }
    case BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY: return fixture_uuid(buf, text); /* the fixtures' only one */
    default: return -1;
    }
}

#endif
