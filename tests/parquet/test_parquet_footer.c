/*
 * test_parquet_footer.c — the footer and Bloom filter header parsers: the
 * DuckDB fixtures read as DuckDB wrote them, and every malformed input gets
 * the status its check gives, with a detail naming it: truncations at every
 * length, every single-byte change, and hand-built footers that break one
 * rule each (schema tree, required and duplicate fields, paths, types,
 * filter offsets, nesting, list counts, varints).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parquet/thrift.h"
#include "pq_builder.h"
#include "support.h"

#define FIXTURE(name) BLOOMSIMD_PARQUET_FIXTURES "/" name

static bloomsimd_parquet_footer *parse_ok(const uint8_t *buf, size_t len)
{
    bloomsimd_parquet_footer *f = NULL;
    bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, buf, len, len);
    cr_assert_eq(st, BLOOMSIMD_OK, "parse: %s (%s)", bloomsimd_status_string(st), bloomsimd_last_error());
    cr_assert_not_null(f);
    cr_assert_str_empty(bloomsimd_last_error());
    return f;
}

/* Parses and expects `want`, a NULL footer and a detail containing `needle`. */
static void parse_fails(const uint8_t *buf, size_t len, bloomsimd_status want, const char *needle)
{
    bloomsimd_parquet_footer *f = (bloomsimd_parquet_footer *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, buf, len, len);
    cr_assert_eq(st, want, "status %s, want %s (%s)", bloomsimd_status_string(st), bloomsimd_status_string(want),
                 bloomsimd_last_error());
    cr_assert_null(f);
    cr_assert(strstr(bloomsimd_last_error(), needle), "detail '%s' lacks '%s'", bloomsimd_last_error(), needle);
}

/* What DuckDB 1.5.6 wrote (tests/parquet/fixtures/write_fixtures.mjs). */
Test(parquet_footer, duckdb_mixed_fixture)
{
    size_t len;
    uint8_t *buf = test_read_file(FIXTURE("mixed.parquet"), &len);
    bloomsimd_parquet_footer *f = parse_ok(buf, len);
    static const struct {
        const char *path;
        uint32_t depth, type, bitset;
    } want[] = {
        {"i64", 1, BLOOMSIMD_PARQUET_INT64, 4096},  {"i32", 1, BLOOMSIMD_PARQUET_INT32, 2048},
        {"f64", 1, BLOOMSIMD_PARQUET_DOUBLE, 4096}, {"f32", 1, BLOOMSIMD_PARQUET_FLOAT, 2048},
        {"str", 1, BLOOMSIMD_PARQUET_BYTE_ARRAY, 4096}, {"var", 1, BLOOMSIMD_PARQUET_BYTE_ARRAY, 4096},
        {"s.x", 2, BLOOMSIMD_PARQUET_INT64, 128},
    };
    cr_assert_eq(f->columns, 7);
    cr_assert_eq(f->row_groups, 3);
    cr_assert_eq(f->num_rows, 12288);
    cr_assert_eq(f->file_size, len);
    cr_assert_eq(f->footer_offset + f->footer_bytes + 8, len);
    cr_assert(strstr(f->created_by, "DuckDB"), "created_by '%s'", f->created_by);
    for (uint32_t c = 0; c < 7; c++) {
        cr_assert_str_eq(f->column[c].path, want[c].path);
        cr_assert_eq(f->column[c].depth, want[c].depth);
        cr_assert_eq(f->column[c].physical_type, want[c].type);
        cr_assert_eq(bloomsimd_parquet_footer_find(f, want[c].path), c);
    }
    cr_assert_eq(bloomsimd_parquet_footer_find(f, "x"), -1);
    cr_assert_eq(bloomsimd_parquet_footer_find(f, "s"), -1);
    for (uint32_t r = 0; r < 3; r++) {
        cr_assert_eq(f->row_group_rows[r], 4096);
        for (uint32_t c = 0; c < 7; c++) {
            const bloomsimd_parquet_chunk *ch = &f->chunk[r * 7 + c];
            cr_assert(!ch->encrypted && !ch->external);
            cr_assert_eq(ch->num_values, 4096);
            cr_assert_gt(ch->bloom_filter_offset, 4);
            bloomsimd_parquet_header h;
            cr_assert_eq(bloomsimd_parquet_header_parse(buf + ch->bloom_filter_offset, len - (size_t)ch->bloom_filter_offset,
                                                        &h),
                         BLOOMSIMD_OK, "%s", bloomsimd_last_error());
            cr_assert_eq(h.bitset_bytes, want[c].bitset, "%s rg %u: %u", want[c].path, r, h.bitset_bytes);
            cr_assert_eq((int64_t)(h.header_bytes + h.bitset_bytes), ch->bloom_filter_length);
            /* our header for that size is the writer's, byte for byte */
            uint8_t ours[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
            size_t n;
            cr_assert_eq(bloomsimd_parquet_header_write(h.bitset_bytes, ours, sizeof ours, &n), BLOOMSIMD_OK);
            cr_assert_eq(n, h.header_bytes);
            cr_assert_arr_eq(ours, buf + ch->bloom_filter_offset, n);
        }
    }
    bloomsimd_parquet_footer_free(f);
    free(buf);
}

Test(parquet_footer, duckdb_nulls_fixture_and_a_column_without_filter)
{
    size_t len;
    uint8_t *buf = test_read_file(FIXTURE("nulls_fpr0001.parquet"), &len);
    bloomsimd_parquet_footer *f = parse_ok(buf, len);
    cr_assert_eq(f->columns, 3);
    cr_assert_eq(f->row_groups, 1);
    cr_assert_str_eq(f->column[0].path, "id");
    cr_assert_str_eq(f->column[2].path, "seq");
    cr_assert_eq(f->column[2].physical_type, BLOOMSIMD_PARQUET_INT32);
    cr_assert_gt(f->chunk[0].bloom_filter_offset, 0);
    cr_assert_gt(f->chunk[1].bloom_filter_offset, 0);
    cr_assert_eq(f->chunk[2].bloom_filter_offset, -1);
    cr_assert_eq(f->chunk[2].bloom_filter_length, -1);
    bloomsimd_parquet_footer_free(f);
    free(buf);
}

Test(parquet_footer, load_and_tail_agree_with_whole_file_parse)
{
    size_t len;
    uint8_t *buf = test_read_file(FIXTURE("mixed.parquet"), &len);
    bloomsimd_parquet_footer *whole = parse_ok(buf, len), *loaded = NULL, *tail = NULL;
    cr_assert_eq(bloomsimd_parquet_footer_load(&loaded, FIXTURE("mixed.parquet")), BLOOMSIMD_OK, "%s",
                 bloomsimd_last_error());
    uint64_t need;
    cr_assert_eq(bloomsimd_parquet_tail_bytes(buf + len - 8, len, &need), BLOOMSIMD_OK);
    cr_assert_eq(need, whole->footer_bytes + 8u);
    cr_assert_eq(bloomsimd_parquet_footer_parse(&tail, buf + len - need, (size_t)need, len), BLOOMSIMD_OK);
    /* a tail one byte short of the footer is the caller's mistake */
    bloomsimd_parquet_footer *none;
    cr_assert_eq(bloomsimd_parquet_footer_parse(&none, buf + len - need + 1, (size_t)need - 1, len),
                 BLOOMSIMD_ERR_INVALID_ARGUMENT);
    for (const bloomsimd_parquet_footer *g = loaded; g; g = g == loaded ? tail : NULL) {
        cr_assert_eq(g->columns, whole->columns);
        cr_assert_eq(g->row_groups, whole->row_groups);
        cr_assert_eq(g->file_size, whole->file_size);
        for (uint32_t i = 0; i < whole->columns * whole->row_groups; i++) {
            cr_assert_eq(g->chunk[i].bloom_filter_offset, whole->chunk[i].bloom_filter_offset);
            cr_assert_eq(g->chunk[i].bloom_filter_length, whole->chunk[i].bloom_filter_length);
        }
        for (uint32_t c = 0; c < whole->columns; c++) cr_assert_str_eq(g->column[c].path, whole->column[c].path);
    }
    bloomsimd_parquet_footer_free(whole);
    bloomsimd_parquet_footer_free(loaded);
    bloomsimd_parquet_footer_free(tail);
    free(buf);
}

Test(parquet_footer, load_reports_io_and_short_files)
{
    bloomsimd_parquet_footer *f;
    cr_assert_eq(bloomsimd_parquet_footer_load(&f, "/nonexistent/x.parquet"), BLOOMSIMD_ERR_IO);
    cr_assert_null(f);
    cr_assert_eq(bloomsimd_parquet_footer_load(&f, BLOOMSIMD_PARQUET_FIXTURES), BLOOMSIMD_ERR_IO); /* a directory */
    char path[] = "/tmp/bloomsimd-pq-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "PAR1PAR1", 8), 8);
    close(fd);
    cr_assert_eq(bloomsimd_parquet_footer_load(&f, path), BLOOMSIMD_ERR_CORRUPT);
    cr_assert(strstr(bloomsimd_last_error(), "shorter than any Parquet file"), "%s", bloomsimd_last_error());
    unlink(path);
    cr_assert_eq(bloomsimd_parquet_footer_load(NULL, path), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_footer_parse(NULL, path, 1, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_footer_parse(&f, NULL, 1, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_footer_parse(&f, path, 20, 10), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_parquet_footer_free(NULL);
}

/* Every truncation of a real file (the tail handed over as the whole file)
 * fails cleanly; so does every single-byte change in its footer, unless the
 * change is one the format cannot see (then the parse succeeds). */
Test(parquet_footer, every_truncation_and_every_byte_change_of_the_footer)
{
    size_t len;
    uint8_t *buf = test_read_file(FIXTURE("nulls_fpr0001.parquet"), &len);
    bloomsimd_parquet_footer *f = parse_ok(buf, len);
    size_t footer_at = (size_t)f->footer_offset;
    bloomsimd_parquet_footer_free(f);
    for (size_t cut = 0; cut < len; cut++) {
        bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, buf, cut, cut);
        cr_assert_eq(st, BLOOMSIMD_ERR_CORRUPT, "cut %zu: %s", cut, bloomsimd_status_string(st));
        cr_assert_null(f);
    }
    uint8_t *copy = malloc(len);
    size_t accepted = 0;
    for (size_t at = footer_at; at < len; at++) {
        for (unsigned delta = 1; delta < 256; delta += 85) {
            memcpy(copy, buf, len);
            copy[at] = (uint8_t)(copy[at] + delta);
            bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, copy, len, len);
            cr_assert(st == BLOOMSIMD_OK || st == BLOOMSIMD_ERR_CORRUPT || st == BLOOMSIMD_ERR_VERSION ||
                          st == BLOOMSIMD_ERR_TOO_LARGE,
                      "byte %zu +%u: %s", at, delta, bloomsimd_status_string(st));
            if (st == BLOOMSIMD_OK) {
                accepted++;
                bloomsimd_parquet_footer_free(f);
            } else {
                cr_assert_null(f);
                cr_assert_str_neq(bloomsimd_last_error(), "");
            }
        }
    }
    /* most changes break something: a name's or a count's byte, a field id */
    cr_assert_lt(accepted, (len - footer_at) * 3 / 2, "%zu of %zu changes accepted", accepted, (len - footer_at) * 3);
    free(copy);
    free(buf);
}

/* ---- hand-built footers, one broken rule each ---- */

static const pqb_elem flat_schema[] = {{"root", -1, 2}, {"a", BLOOMSIMD_PARQUET_INT64, -1}, {"b", BLOOMSIMD_PARQUET_BYTE_ARRAY, -1}};

static uint8_t file_buf[1 << 16];

static size_t flat_file(pqb_chunk *chunks, uint32_t row_groups, const pqb_file *over)
{
    pqb_file f = over ? *over : (pqb_file){0};
    if (!f.schema) f.schema = flat_schema, f.nschema = 3;
    if (!f.row_groups && !over) f.row_groups = row_groups;
    if (!f.columns) f.columns = 2;
    f.chunks = chunks;
    if (!f.data_bytes) f.data_bytes = 200;
    size_t n = pqb_write(&f, file_buf, sizeof file_buf);
    cr_assert_leq(n, sizeof file_buf);
    return n;
}

static void default_chunks(pqb_chunk *c, uint32_t row_groups)
{
    for (uint32_t r = 0; r < row_groups; r++) {
        c[2 * r] = (pqb_chunk){{"a"}, 1, BLOOMSIMD_PARQUET_INT64, 10, 50, false, false, false};
        c[2 * r + 1] = (pqb_chunk){{"b"}, 1, BLOOMSIMD_PARQUET_BYTE_ARRAY, -1, -1, false, false, false};
    }
}

Test(parquet_footer, built_file_parses)
{
    pqb_chunk c[4];
    default_chunks(c, 2);
    size_t n = flat_file(c, 2, NULL);
    bloomsimd_parquet_footer *f = parse_ok(file_buf, n);
    cr_assert_eq(f->columns, 2);
    cr_assert_eq(f->row_groups, 2);
    cr_assert_eq(f->chunk[0].bloom_filter_offset, 10);
    cr_assert_eq(f->chunk[0].bloom_filter_length, 50);
    cr_assert_eq(f->chunk[1].bloom_filter_offset, -1);
    cr_assert_str_eq(f->created_by, "");
    bloomsimd_parquet_footer_free(f);
}

Test(parquet_footer, nested_schema_paths)
{
    /* root { g { h { x INT32, y DOUBLE } }, z FLOAT } */
    static const pqb_elem schema[] = {{"root", -1, 2}, {"g", -1, 1}, {"h", -1, 2}, {"x", BLOOMSIMD_PARQUET_INT32, -1},
                                      {"y", BLOOMSIMD_PARQUET_DOUBLE, -1}, {"z", BLOOMSIMD_PARQUET_FLOAT, -1}};
    pqb_chunk c[3] = {{{"g", "h", "x"}, 3, BLOOMSIMD_PARQUET_INT32, -1, -1, false, false, false},
                      {{"g", "h", "y"}, 3, BLOOMSIMD_PARQUET_DOUBLE, 20, 40, false, false, false},
                      {{"z"}, 1, BLOOMSIMD_PARQUET_FLOAT, -1, -1, false, false, false}};
    pqb_file spec = {.schema = schema, .nschema = 6, .row_groups = 1, .columns = 3, .created_by = "builder 1"};
    size_t n = flat_file(c, 1, &spec);
    bloomsimd_parquet_footer *f = parse_ok(file_buf, n);
    cr_assert_eq(f->columns, 3);
    cr_assert_str_eq(f->column[0].path, "g.h.x");
    cr_assert_eq(f->column[0].depth, 3);
    cr_assert_str_eq(f->column[1].path, "g.h.y");
    cr_assert_str_eq(f->column[2].path, "z");
    cr_assert_str_eq(f->created_by, "builder 1");
    bloomsimd_parquet_footer_free(f);
    /* the same names in another order is not the leaf's path */
    c[1].path[0] = "h", c[1].path[1] = "g";
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "path_in_schema");
    c[1].path[0] = "g", c[1].path[1] = "h", c[1].depth = 2;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "path_in_schema");
}

Test(parquet_footer, schema_tree_errors)
{
    pqb_chunk c[2];
    default_chunks(c, 1);
    pqb_file spec = {.row_groups = 1};
    size_t n;
    static const pqb_elem leaf_without_type[] = {{"root", -1, 2}, {"a", -1, -1}, {"b", 6, -1}};
    spec.schema = leaf_without_type, spec.nschema = 3;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "leaf without a type");
    static const pqb_elem missing_child[] = {{"root", -1, 3}, {"a", 2, -1}, {"b", 6, -1}};
    spec.schema = missing_child;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "ends inside a group");
    static const pqb_elem extra[] = {{"root", -1, 1}, {"a", 2, -1}, {"b", 6, -1}};
    spec.schema = extra;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "outside the root");
    static const pqb_elem root_leaf[] = {{"root", 2, -1}, {"a", 2, -1}, {"b", 6, -1}};
    spec.schema = root_leaf;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "not a group");
    static const pqb_elem no_name[] = {{"root", -1, 2}, {NULL, 2, -1}, {"b", 6, -1}};
    spec.schema = no_name;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "SchemaElement.name");
    static const pqb_elem bad_type[] = {{"root", -1, 2}, {"a", 8, -1}, {"b", 6, -1}};
    spec.schema = bad_type;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "not a Parquet type");
    spec.schema = flat_schema, spec.nschema = 0;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "schema is empty");
}

Test(parquet_footer, chunk_errors)
{
    pqb_chunk c[2];
    size_t n;
    default_chunks(c, 1);
    c[0].type = BLOOMSIMD_PARQUET_INT32;
    n = flat_file(c, 1, NULL);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "the schema says INT64");
    default_chunks(c, 1);
    c[1].path[0] = "c";
    n = flat_file(c, 1, NULL);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "path_in_schema");
    default_chunks(c, 1);
    pqb_file one_column = {.row_groups = 1, .columns = 1};
    n = flat_file(c, 1, &one_column);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "has 1 column chunks, the schema 2 leaves");
    c[0].no_metadata = true;
    n = flat_file(c, 1, NULL);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "no meta_data");
    c[0].encrypted = true; /* encrypted column metadata: known, nothing to read */
    n = flat_file(c, 1, NULL);
    bloomsimd_parquet_footer *f = parse_ok(file_buf, n);
    cr_assert(f->chunk[0].encrypted);
    cr_assert_eq(f->chunk[0].bloom_filter_offset, -1);
    bloomsimd_parquet_footer_free(f);
    default_chunks(c, 1);
    c[0].external = true;
    n = flat_file(c, 1, NULL);
    f = parse_ok(file_buf, n);
    cr_assert(f->chunk[0].external);
    cr_assert_eq(f->chunk[0].bloom_filter_offset, -1);
    bloomsimd_parquet_footer_free(f);
}

Test(parquet_footer, bloom_offsets_must_lie_in_the_data)
{
    pqb_chunk c[2];
    size_t n;
    static const struct {
        int64_t offset;
        int32_t length;
    } bad[] = {{0, 10}, {3, 10}, {204, -1}, {5000, -1}, {-5, 10}, {10, 0}, {10, -3}, {10, 195}, {100, 105}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        default_chunks(c, 1);
        c[0].bloom_offset = bad[i].offset, c[0].bloom_length = bad[i].length;
        n = flat_file(c, 1, NULL); /* data is bytes 4 .. 203 */
        parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "row group 0 column 0: bloom_filter_");
    }
    default_chunks(c, 1);
    c[0].bloom_offset = 4, c[0].bloom_length = 200; /* exactly the data area */
    n = flat_file(c, 1, NULL);
    bloomsimd_parquet_footer_free(parse_ok(file_buf, n));
}

Test(parquet_footer, required_and_duplicate_fields)
{
    pqb_chunk c[2];
    default_chunks(c, 1);
    pqb_file spec = {.row_groups = 1, .drop_num_rows = true};
    size_t n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "FileMetaData.num_rows");
    spec = (pqb_file){.row_groups = 1, .duplicate_version = true};
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "field 1 appears twice");
}

Test(parquet_footer, nesting_is_bounded_without_recursion)
{
    pqb_chunk c[2];
    default_chunks(c, 1);
    /* an unknown field nested to the limit is skipped; one level more is refused */
    pqb_file spec = {.row_groups = 1, .nesting = BLOOMSIMD_THRIFT_MAX_DEPTH};
    size_t n = flat_file(c, 1, &spec);
    bloomsimd_parquet_footer_free(parse_ok(file_buf, n));
    spec.nesting = BLOOMSIMD_THRIFT_MAX_DEPTH + 1;
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "nested deeper than 64");
    spec.nesting = 20000; /* far past any stack a recursive reader would survive */
    n = flat_file(c, 1, &spec);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "nested deeper than 64");
}

/* A footer of raw bytes between the magics (length and magic appended). */
static size_t raw_file(const uint8_t *footer, size_t len)
{
    memcpy(file_buf, "PAR1", 4);
    memcpy(file_buf + 4, footer, len);
    for (int i = 0; i < 4; i++) file_buf[4 + len + (size_t)i] = (uint8_t)(len >> (8 * i));
    memcpy(file_buf + 8 + len, "PAR1", 4);
    return len + 12;
}

Test(parquet_footer, thrift_level_errors)
{
    static const struct {
        const char *what;
        uint8_t bytes[16];
        size_t len;
        const char *needle;
    } cases[] = {
        {"empty footer", {0}, 0, "truncated"},
        {"unknown type nibble", {0x1d}, 1, "not a compact-protocol type"},
        {"varint past 32 bits", {0x15, 0xff, 0xff, 0xff, 0xff, 0x7f}, 6, "overflows 32 bits"},
        {"varint too long", {0xf6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 12,
         "longer than 10 bytes"},
        {"schema is not a list", {0x15, 0x02, 0x15, 0x02}, 4, "field FileMetaData.schema is i32, not list"},
        {"list longer than the bytes", {0x15, 0x02, 0x19, 0xfc, 0x80, 0x01}, 6, "claims 128 elements"},
        {"binary longer than the bytes", {0x15, 0x02, 0xf8, 0x06, 0x05, 'a'}, 6, "runs past the end"},
        {"map longer than the bytes", {0xfb, 0x08, 0x55}, 3, "map claims 8 entries"},
        {"field id outside i16", {0x05, 0xfe, 0xff, 0x7f, 0x00}, 5, "outside i16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = raw_file(cases[i].bytes, cases[i].len);
        bloomsimd_parquet_footer *f;
        bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, file_buf, n, n);
        cr_assert_eq(st, BLOOMSIMD_ERR_CORRUPT, "%s: %s", cases[i].what, bloomsimd_status_string(st));
        cr_assert(strstr(bloomsimd_last_error(), cases[i].needle), "%s: detail '%s' lacks '%s'", cases[i].what,
                  bloomsimd_last_error(), cases[i].needle);
    }
}

Test(parquet_footer, bytes_after_file_metadata)
{
    pqb_chunk c[2];
    default_chunks(c, 1);
    size_t n = flat_file(c, 1, NULL);
    uint32_t len = (uint32_t)file_buf[n - 8] | (uint32_t)file_buf[n - 7] << 8;
    uint8_t footer[4096];
    memcpy(footer, file_buf + n - 8 - len, len);
    footer[len] = 0;
    n = raw_file(footer, len + 1);
    char want[96];
    snprintf(want, sizeof want, "FileMetaData ends at byte %u of a %u-byte footer", len, len + 1);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, want);
}

Test(parquet_footer, magic_and_length)
{
    pqb_chunk c[2];
    default_chunks(c, 1);
    size_t n = flat_file(c, 1, NULL);
    memcpy(file_buf + n - 4, "PARE", 4);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_VERSION, "encrypted footer");
    memcpy(file_buf + n - 4, "PAR2", 4);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "no PAR1 magic at the end");
    memcpy(file_buf + n - 4, "PAR1", 4);
    memcpy(file_buf, "PAR0", 4);
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "no PAR1 magic at the start");
    memcpy(file_buf, "PAR1", 4);
    uint32_t too_long = (uint32_t)n - 11;
    for (int i = 0; i < 4; i++) file_buf[n - 8 + (size_t)i] = (uint8_t)(too_long >> (8 * i));
    parse_fails(file_buf, n, BLOOMSIMD_ERR_CORRUPT, "does not fit");
    uint64_t need;
    cr_assert_eq(bloomsimd_parquet_tail_bytes(NULL, 100, &need), BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

/* ---- BloomFilterHeader ---- */

Test(parquet_header, round_trip_every_varint_width)
{
    static const uint32_t sizes[] = {32, 64, 8160, 8192, 1u << 20, 1u << 30, 0x7fffffe0u};
    static const uint32_t header_len[] = {15, 16, 16, 17, 18, 19, 19};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t buf[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
        size_t n;
        cr_assert_eq(bloomsimd_parquet_header_write(sizes[i], buf, sizeof buf, &n), BLOOMSIMD_OK);
        cr_assert_eq(n, header_len[i], "%u: %zu bytes", sizes[i], n);
        bloomsimd_parquet_header h;
        cr_assert_eq(bloomsimd_parquet_header_parse(buf, n, &h), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
        cr_assert_eq(h.bitset_bytes, sizes[i]);
        cr_assert_eq(h.header_bytes, n);
        for (size_t cut = 0; cut < n; cut++)
            cr_assert_eq(bloomsimd_parquet_header_parse(buf, cut, &h), BLOOMSIMD_ERR_CORRUPT, "cut %zu", cut);
        cr_assert_eq(bloomsimd_parquet_header_write(sizes[i], buf, n - 1, &n), BLOOMSIMD_ERR_TOO_LARGE);
        cr_assert_eq(n, header_len[i]);
    }
    size_t n;
    uint8_t buf[32];
    cr_assert_eq(bloomsimd_parquet_header_write(0, buf, sizeof buf, &n), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_header_write(48, buf, sizeof buf, &n), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_header_write(0x80000000u, buf, sizeof buf, &n), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_header_write(32, NULL, 0, &n), BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

/* A header with numBytes and the three unions given as (member id) each, 0
 * meaning an empty union, -1 leaving the field out. */
static size_t header_with(uint8_t *buf, int32_t num_bytes, int members[3])
{
    bloomsimd_thrift_writer w;
    bloomsimd_thrift_writer_init(&w, buf, 64);
    int16_t last = 0;
    bloomsimd_thrift_put_field(&w, &last, 1, BLOOMSIMD_THRIFT_I32);
    bloomsimd_thrift_put_i32(&w, num_bytes);
    for (int u = 0; u < 3; u++) {
        if (members[u] < 0) continue;
        int16_t inner = 0;
        bloomsimd_thrift_put_field(&w, &last, (int16_t)(2 + u), BLOOMSIMD_THRIFT_STRUCT);
        if (members[u] > 0) {
            bloomsimd_thrift_put_field(&w, &inner, (int16_t)members[u], BLOOMSIMD_THRIFT_STRUCT);
            bloomsimd_thrift_put_stop(&w);
        }
        bloomsimd_thrift_put_stop(&w);
    }
    bloomsimd_thrift_put_stop(&w);
    return w.len;
}

Test(parquet_header, unsupported_and_malformed)
{
    uint8_t buf[64];
    bloomsimd_parquet_header h;
    static const struct {
        int32_t num_bytes;
        int members[3];
        bloomsimd_status want;
        const char *needle;
    } cases[] = {
        {64, {1, 1, 1}, BLOOMSIMD_OK, ""},
        {64, {2, 1, 1}, BLOOMSIMD_ERR_VERSION, "algorithm member 2 is not BLOCK"},
        {64, {1, 2, 1}, BLOOMSIMD_ERR_VERSION, "hash member 2 is not XXHASH"},
        {64, {1, 1, 3}, BLOOMSIMD_ERR_VERSION, "compression member 3 is not UNCOMPRESSED"},
        {64, {0, 1, 1}, BLOOMSIMD_ERR_CORRUPT, "union algorithm is empty"},
        {64, {1, -1, 1}, BLOOMSIMD_ERR_CORRUPT, "required field 3 (hash)"},
        {48, {1, 1, 1}, BLOOMSIMD_ERR_CORRUPT, "numBytes 48"},
        {0, {1, 1, 1}, BLOOMSIMD_ERR_CORRUPT, "numBytes 0"},
        {-64, {1, 1, 1}, BLOOMSIMD_ERR_CORRUPT, "numBytes -64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int m[3] = {cases[i].members[0], cases[i].members[1], cases[i].members[2]};
        size_t n = header_with(buf, cases[i].num_bytes, m);
        bloomsimd_status st = bloomsimd_parquet_header_parse(buf, n, &h);
        cr_assert_eq(st, cases[i].want, "case %zu: %s (%s)", i, bloomsimd_status_string(st), bloomsimd_last_error());
        cr_assert(strstr(bloomsimd_last_error(), cases[i].needle), "case %zu: '%s'", i, bloomsimd_last_error());
    }
    /* a union with two members */
    static const uint8_t two[] = {0x15, 0x80, 0x01, 0x1c, 0x1c, 0x00, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00,
                                  0x1c, 0x1c, 0x00, 0x00, 0x00};
    cr_assert_eq(bloomsimd_parquet_header_parse(two, sizeof two, &h), BLOOMSIMD_ERR_CORRUPT);
    cr_assert(strstr(bloomsimd_last_error(), "sets two members"), "%s", bloomsimd_last_error());
    cr_assert_eq(bloomsimd_parquet_header_parse(NULL, 4, &h), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_header_parse(buf, 4, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
}

Test(parquet_footer, type_names)
{
    cr_assert_str_eq(bloomsimd_parquet_type_name(BLOOMSIMD_PARQUET_INT64), "INT64");
    cr_assert_str_eq(bloomsimd_parquet_type_name(BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
    cr_assert_null(bloomsimd_parquet_type_name(8));
}
