/*
 * test_parquet_fixtures.c — the Bloom filters DuckDB wrote
 * (tests/parquet/fixtures), against the specification's reference
 * (sbbf_reference.h: libxxhash's XXH64 of the PLAIN encodings):
 *   - every value written is reported possibly present (no false negatives);
 *   - a filter built from the row group's values with the file's number of
 *     blocks is byte-identical to the file's;
 *   - the FPR measured on absent values of the column's type matches the
 *     filter's exact FPR (from its bits), which matches the model's for its
 *     distinct values and blocks within the model's spread;
 *   - every answer DuckDB's parquet_bloom_probe gave (duckdb_probe.tsv) is
 *     ours too, false positives included.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_values.h"
#include "sbbf_reference.h"
#include "support.h"

#define FIXTURE_DIR BLOOMSIMD_PARQUET_FIXTURES

typedef struct fixture {
    uint8_t *buf;
    size_t len;
    bloomsimd_parquet_footer *footer;
} fixture;

static fixture open_fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, name);
    fixture fx;
    fx.buf = test_read_file(path, &fx.len);
    bloomsimd_status st = bloomsimd_parquet_footer_parse(&fx.footer, fx.buf, fx.len, fx.len);
    cr_assert_eq(st, BLOOMSIMD_OK, "%s: %s", name, bloomsimd_last_error());
    return fx;
}

static void close_fixture(fixture *fx)
{
    bloomsimd_parquet_footer_free(fx->footer);
    free(fx->buf);
}

/* The bitset of chunk (rg, col) as aligned 32-bit words (caller frees); *z
 * gets its blocks. NULL if the chunk has no filter. */
static uint32_t *chunk_bitset(const fixture *fx, uint32_t rg, uint32_t col, uint64_t *z)
{
    const bloomsimd_parquet_chunk *ch = &fx->footer->chunk[rg * fx->footer->columns + col];
    if (ch->bloom_filter_offset < 0) return NULL;
    bloomsimd_parquet_header h;
    const uint8_t *at = fx->buf + ch->bloom_filter_offset;
    cr_assert_eq(bloomsimd_parquet_header_parse(at, (size_t)ch->bloom_filter_length, &h), BLOOMSIMD_OK);
    cr_assert_eq(h.header_bytes + h.bitset_bytes, (uint64_t)ch->bloom_filter_length);
    uint32_t *words = aligned_alloc(64, h.bitset_bytes);
    memcpy(words, at + h.header_bytes, h.bitset_bytes); /* little-endian words on every tested host */
    *z = h.bitset_bytes / 32;
    return words;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Hashes of the non-NULL values of row group rg, sorted and deduplicated. */
static uint64_t *row_group_hashes(const char *file, const char *column, uint32_t rg, uint64_t rows_before,
                                  uint64_t rows, size_t *distinct)
{
    uint64_t *h = malloc(rows * sizeof *h);
    size_t n = 0;
    (void)rg;
    for (uint64_t i = rows_before; i < rows_before + rows; i++) {
        uint8_t v[FIXTURE_VALUE_MAX];
        int len = fixture_value(file, column, i, v);
        if (len >= 0) h[n++] = ref_sbbf_hash(v, (size_t)len);
    }
    qsort(h, n, sizeof *h, cmp_u64);
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (d == 0 || h[i] != h[d - 1]) h[d++] = h[i];
    *distinct = d;
    return h;
}

/* An absent value of the column's type, from random bits: outside every
 * range the fixtures use (README.md), so certainly absent. */
static int absent_value(uint32_t type, uint64_t *rng, uint8_t buf[FIXTURE_VALUE_MAX])
{
    uint64_t r = test_splitmix64(rng);
    switch (type) {
    case BLOOMSIMD_PARQUET_INT64: /* in [2^62, 2^63): none written (the unsigned ones are above 2^63) */
        return (int)fixture_le(buf, (r >> 2) | (UINT64_C(1) << 62), 8);
    case BLOOMSIMD_PARQUET_INT32: return (int)fixture_le(buf, ((uint32_t)r >> 2) | 0x40000000u, 4); /* [2^30, 2^31) */
    case BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY: /* UUIDs whose version digit is 0: those written have 4 */
        fixture_le(buf, r, 8), fixture_le(buf + 8, test_splitmix64(rng), 8);
        buf[6] &= 0x0f;
        return 16;
    case BLOOMSIMD_PARQUET_DOUBLE: return (int)fixture_double(buf, -1.0 - (double)(r >> 11)); /* negative */
    case BLOOMSIMD_PARQUET_FLOAT: return (int)fixture_float(buf, -1.0f - (float)(r >> 40)); /* negative */
    default: return snprintf((char *)buf, FIXTURE_VALUE_MAX, "absent-%llu", (unsigned long long)(r >> 8));
    }
}

#define ABSENT_QUERIES 200000u

static void check_file(const char *name)
{
    fixture fx = open_fixture(name);
    const bloomsimd_parquet_footer *f = fx.footer;
    uint64_t rows_before = 0;
    uint64_t rng = 42;
    unsigned filters = 0;
    for (uint32_t rg = 0; rg < f->row_groups; rg++) {
        uint64_t rows = (uint64_t)f->row_group_rows[rg];
        for (uint32_t col = 0; col < f->columns; col++) {
            const char *column = f->column[col].path;
            uint64_t z;
            uint32_t *file_bits = chunk_bitset(&fx, rg, col, &z);
            if (!file_bits) continue;
            filters++;
            size_t distinct;
            uint64_t *hashes = row_group_hashes(name, column, rg, rows_before, rows, &distinct);
            /* no false negatives */
            for (size_t i = 0; i < distinct; i++)
                cr_assert(ref_sbbf_check(file_bits, z, hashes[i]), "%s rg %u: a written value is absent", column, rg);
            /* the same values in the same blocks: the same bytes */
            uint32_t *ours = aligned_alloc(64, z * 32);
            memset(ours, 0, z * 32);
            for (size_t i = 0; i < distinct; i++) ref_sbbf_insert(ours, z, hashes[i]);
            cr_assert_arr_eq(ours, file_bits, z * 32, "%s rg %u: our filter differs from DuckDB's", column, rg);
            /* FPR: measured, the filter's own, the model's */
            uint64_t fp = 0;
            for (uint32_t q = 0; q < ABSENT_QUERIES; q++) {
                uint8_t v[FIXTURE_VALUE_MAX];
                int len = absent_value(f->column[col].physical_type, &rng, v);
                fp += ref_sbbf_check(file_bits, z, ref_sbbf_hash(v, (size_t)len));
            }
            double measured = (double)fp / ABSENT_QUERIES, exact = ref_sbbf_fpr_of_bits(file_bits, z);
            double model = ref_sbbf_model_fpr((double)distinct, (double)z);
            double sigma_q = sqrt(exact * (1 - exact) / ABSENT_QUERIES), sigma_f = ref_sbbf_model_sigma(distinct, z);
            cr_assert_leq(fabs(measured - exact), 5 * sigma_q + 1.0 / ABSENT_QUERIES,
                          "%s rg %u: measured FPR %g, the filter's %g (sigma %g)", column, rg, measured, exact, sigma_q);
            cr_assert_leq(fabs(exact - model), 5 * sigma_f, "%s rg %u: filter FPR %g, model %g (sigma %g)", column, rg,
                          exact, model, sigma_f);
            cr_log_info("%s %s rg %u: %zu distinct, %llu blocks (%.1f bits/value): FPR measured %.5f, of its bits "
                        "%.5f, model %.5f +- %.5f",
                        name, column, rg, distinct, (unsigned long long)z, 256.0 * (double)z / (double)distinct,
                        measured, exact, model, sigma_f);
            free(ours);
            free(hashes);
            free(file_bits);
        }
        rows_before += rows;
    }
    cr_assert_gt(filters, 0);
    close_fixture(&fx);
}

Test(parquet_fixtures, mixed_values_found_filters_identical_fpr_as_modelled) { check_file("mixed.parquet"); }

Test(parquet_fixtures, nulls_values_found_filters_identical_fpr_as_modelled) { check_file("nulls_fpr0001.parquet"); }

Test(parquet_fixtures, types_values_found_filters_identical_fpr_as_modelled) { check_file("types.parquet"); }

/* Every line of duckdb_probe.tsv: DuckDB's answer in each row group is ours. */
Test(parquet_fixtures, duckdb_probe_answers_are_ours)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/duckdb_probe.tsv", FIXTURE_DIR);
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp);
    enum { NFILES = 3 };
    const char *names[NFILES] = {"mixed.parquet", "nulls_fpr0001.parquet", "types.parquet"};
    fixture files[NFILES];
    for (int i = 0; i < NFILES; i++) files[i] = open_fixture(names[i]);
    unsigned per_file[NFILES] = {0};
    char line[512];
    size_t values = 0, probes = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\n")] = 0;
        char *file = strtok(line, "\t"), *column = strtok(NULL, "\t"), *text = strtok(NULL, "\t"),
             *answers = strtok(NULL, "\t");
        cr_assert(file && column && text && answers);
        int which = 0;
        while (which < NFILES && strcmp(file, names[which]) != 0) which++;
        cr_assert_lt(which, NFILES, "unknown file %s", file);
        per_file[which]++;
        const bloomsimd_parquet_footer *f = files[which].footer;
        int64_t col = bloomsimd_parquet_footer_find(f, column);
        cr_assert_geq(col, 0, "no column %s", column);
        uint8_t v[FIXTURE_VALUE_MAX];
        int len = fixture_parse(f->column[col].physical_type, text, v);
        cr_assert_geq(len, 0, "%s: cannot parse '%s'", column, text);
        uint64_t h = ref_sbbf_hash(v, (size_t)len);
        uint32_t rg = 0;
        for (char *a = strtok(answers, ","); a; a = strtok(NULL, ","), rg++) {
            cr_assert_lt(rg, f->row_groups);
            uint64_t z;
            uint32_t *bits = chunk_bitset(&files[which], rg, (uint32_t)col, &z);
            cr_assert_not_null(bits);
            bool ours = ref_sbbf_check(bits, z, h);
            cr_assert_eq(ours, strcmp(a, "maybe") == 0, "%s %s '%s' rg %u: DuckDB says %s", file, column, text, rg, a);
            free(bits);
            probes++;
        }
        cr_assert_eq(rg, f->row_groups);
        values++;
    }
    fclose(fp);
    cr_assert_geq(values, 1000);
    for (int i = 0; i < NFILES; i++) cr_assert_gt(per_file[i], 0, "no answers for %s", names[i]);
    cr_log_info("%zu values, %zu probes: every answer agrees with DuckDB's", values, probes);
    for (int i = 0; i < NFILES; i++) close_fixture(&files[i]);
}
