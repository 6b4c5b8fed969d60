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
#define FIXTURE_VALUE_MAX 64u

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

/* Row i's value of `column` in `file` ("mixed.parquet" or
 * "nulls_fpr0001.parquet"), PLAIN-encoded into buf (BYTE_ARRAY without its
 * length prefix). Returns its length, or -1 for NULL. */
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
    case BLOOMSIMD_PARQUET_INT64: {
        long long v = strtoll(text, &end, 10);
        return *end ? -1 : (int)fixture_le(buf, (uint64_t)v, 8);
    }
    case BLOOMSIMD_PARQUET_INT32: {
        long v = strtol(text, &end, 10);
        return *end ? -1 : (int)fixture_le(buf, (uint32_t)(int32_t)v, 4);
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
    default: return -1;
    }
}

#endif
