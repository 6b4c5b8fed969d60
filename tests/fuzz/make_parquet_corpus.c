/*
 * make_parquet_corpus.c — writes the seed corpora of the Parquet fuzz
 * targets: DIR/footer (small files with valid footers of several shapes, and
 * mutations that each stop at a different check) and DIR/header
 * (BloomFilterHeaders, valid and not). Run once and commit the output:
 *     ninja bloomsimd_fuzz_make_parquet_corpus &&
 *     ./tests/fuzz/bloomsimd_fuzz_make_parquet_corpus tests/fuzz/corpus_parquet
 * (fuzz.sh adds the DuckDB fixtures of tests/parquet/fixtures to the footer
 * seeds when it fuzzes.)
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/thrift.h"
#include "pq_builder.h"

static char dir[4096];

static void emit(const char *sub, const char *name, const uint8_t *buf, size_t len)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (len && fwrite(buf, 1, len, fp) != len) || fclose(fp) != 0) {
        fprintf(stderr, "make_parquet_corpus: cannot write %s\n", path);
        exit(1);
    }
}

static uint8_t buf[1 << 16];

static void footer(const char *name, const pqb_file *f)
{
    size_t n = pqb_write(f, buf, sizeof buf);
    if (n > sizeof buf) exit(1);
    emit("footer", name, buf, n);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);

    /* a data area holding two real filters, at offsets 4 and 4 + 79 */
    uint8_t data[256] = {0};
    size_t a = pqb_bloom(64, 0x5a, data, sizeof data);
    size_t b = pqb_bloom(32, 0xff, data + a, sizeof data - a);
    static const pqb_elem flat[] = {{"schema", -1, 3}, {"id", BLOOMSIMD_PARQUET_INT64, -1},
                                    {"name", BLOOMSIMD_PARQUET_BYTE_ARRAY, -1}, {"score", BLOOMSIMD_PARQUET_DOUBLE, -1}};
    pqb_chunk rg2[6];
    for (int r = 0; r < 2; r++) {
        rg2[3 * r] = (pqb_chunk){{"id"}, 1, BLOOMSIMD_PARQUET_INT64, 4, (int32_t)a, false, false, false};
        rg2[3 * r + 1] = (pqb_chunk){{"name"}, 1, BLOOMSIMD_PARQUET_BYTE_ARRAY, (int64_t)(4 + a), -1, false, false, false};
        rg2[3 * r + 2] = (pqb_chunk){{"score"}, 1, BLOOMSIMD_PARQUET_DOUBLE, -1, -1, false, false, false};
    }
    pqb_file f = {.schema = flat, .nschema = 4, .row_groups = 2, .columns = 3, .chunks = rg2, .data = data,
                  .data_bytes = (uint32_t)(a + b), .created_by = "bloomsimd corpus"};
    footer("valid_flat_2rg", &f);
    pqb_file g = f;
    g.row_groups = 0;
    footer("valid_no_row_groups", &g);
    g = f, g.nesting = 8;
    footer("valid_unknown_nested_field", &g);
    pqb_chunk enc[6];
    memcpy(enc, rg2, sizeof enc);
    enc[4].no_metadata = enc[4].encrypted = true;
    enc[5].external = true;
    g = f, g.chunks = enc;
    footer("valid_encrypted_and_external_chunks", &g);

    static const pqb_elem nested[] = {{"schema", -1, 2}, {"user", -1, 2}, {"id", BLOOMSIMD_PARQUET_INT32, -1},
                                      {"tags", -1, 1}, {"tag", BLOOMSIMD_PARQUET_BYTE_ARRAY, -1},
                                      {"ts", BLOOMSIMD_PARQUET_INT64, -1}};
    pqb_chunk nc[3] = {{{"user", "id"}, 2, BLOOMSIMD_PARQUET_INT32, 4, (int32_t)a, false, false, false},
                       {{"user", "tags", "tag"}, 3, BLOOMSIMD_PARQUET_BYTE_ARRAY, -1, -1, false, false, false},
                       {{"ts"}, 1, BLOOMSIMD_PARQUET_INT64, (int64_t)(4 + a), (int32_t)b, false, false, false}};
    pqb_file n = {.schema = nested, .nschema = 6, .row_groups = 1, .columns = 3, .chunks = nc, .data = data,
                  .data_bytes = (uint32_t)(a + b)};
    footer("valid_nested", &n);

    g = f, g.drop_num_rows = true;
    footer("bad_missing_num_rows", &g);
    g = f, g.duplicate_version = true;
    footer("bad_duplicate_version", &g);
    g = f, g.nesting = BLOOMSIMD_THRIFT_MAX_DEPTH + 1;
    footer("bad_nested_too_deep", &g);
    g = f, g.columns = 2;
    footer("bad_row_group_short", &g);
    pqb_chunk bad[6];
    memcpy(bad, rg2, sizeof bad);
    bad[0].type = BLOOMSIMD_PARQUET_INT32;
    g = f, g.chunks = bad;
    footer("bad_chunk_type", &g);
    memcpy(bad, rg2, sizeof bad);
    bad[1].path[0] = "nom";
    footer("bad_chunk_path", &g);
    memcpy(bad, rg2, sizeof bad);
    bad[0].bloom_offset = 100000;
    footer("bad_bloom_offset", &g);
    memcpy(bad, rg2, sizeof bad);
    bad[0].bloom_length = 10000;
    footer("bad_bloom_length", &g);
    static const pqb_elem untyped[] = {{"schema", -1, 3}, {"id", -1, -1}, {"name", 6, -1}, {"score", 5, -1}};
    g = f, g.schema = untyped;
    footer("bad_leaf_without_type", &g);
    static const pqb_elem short_tree[] = {{"schema", -1, 4}, {"id", 2, -1}, {"name", 6, -1}, {"score", 5, -1}};
    g = f, g.schema = short_tree;
    footer("bad_schema_ends_inside_group", &g);
    size_t len = pqb_write(&f, buf, sizeof buf);
    memcpy(buf + len - 4, "PARE", 4);
    emit("footer", "bad_encrypted_footer", buf, len);
    emit("footer", "bad_truncated", buf, len / 2);

    /* headers */
    static const uint32_t sizes[] = {32, 128, 4096, 1u << 20, 0x7fffffe0u};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t hn;
        char name[64];
        bloomsimd_parquet_header_write(sizes[i], buf, sizeof buf, &hn);
        snprintf(name, sizeof name, "valid_%u", sizes[i]);
        emit("header", name, buf, hn);
        if (i == 1) {
            memset(buf + hn, 0xab, 128); /* with its bitset after it */
            emit("header", "valid_128_with_bitset", buf, hn + 128);
            emit("header", "bad_truncated", buf, hn - 1);
        }
    }
    /* long-form field ids, and an unknown field with a nested value */
    bloomsimd_thrift_writer w;
    bloomsimd_thrift_writer_init(&w, buf, sizeof buf);
    int16_t last = 0;
    bloomsimd_thrift_put_field(&w, &last, 2, BLOOMSIMD_THRIFT_STRUCT);
    int16_t in = 0;
    bloomsimd_thrift_put_field(&w, &in, 1, BLOOMSIMD_THRIFT_STRUCT);
    bloomsimd_thrift_put_stop(&w);
    bloomsimd_thrift_put_stop(&w);
    last = 20; /* forces the long form for field 1 */
    bloomsimd_thrift_put_field(&w, &last, 1, BLOOMSIMD_THRIFT_I32);
    bloomsimd_thrift_put_i32(&w, 256);
    last = 1;
    for (int16_t id = 3; id <= 4; id++) {
        bloomsimd_thrift_put_field(&w, &last, id, BLOOMSIMD_THRIFT_STRUCT);
        in = 0;
        bloomsimd_thrift_put_field(&w, &in, 1, BLOOMSIMD_THRIFT_STRUCT);
        bloomsimd_thrift_put_stop(&w);
        bloomsimd_thrift_put_stop(&w);
    }
    bloomsimd_thrift_put_field(&w, &last, 9, BLOOMSIMD_THRIFT_MAP);
    bloomsimd_thrift_put_varint(&w, 1);
    bloomsimd_thrift_put_byte(&w, (BLOOMSIMD_THRIFT_BINARY << 4) | BLOOMSIMD_THRIFT_LIST);
    bloomsimd_thrift_put_binary(&w, "k", 1);
    bloomsimd_thrift_put_list(&w, BLOOMSIMD_THRIFT_TRUE, 2);
    bloomsimd_thrift_put_byte(&w, 1);
    bloomsimd_thrift_put_byte(&w, 2);
    bloomsimd_thrift_put_stop(&w);
    emit("header", "valid_reordered_long_ids_extra_map", buf, w.len);
    size_t hn;
    bloomsimd_parquet_header_write(64, buf, sizeof buf, &hn);
    buf[4] = 0x2c; /* algorithm member 2 */
    emit("header", "bad_algorithm_2", buf, hn);
    bloomsimd_parquet_header_write(32, buf, sizeof buf, &hn);
    buf[1] = 0x60; /* numBytes 48 */
    emit("header", "bad_num_bytes_48", buf, hn);
    return 0;
}
