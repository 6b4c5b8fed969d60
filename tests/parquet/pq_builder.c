/*
 * pq_builder.c — see pq_builder.h.
 */
#include "pq_builder.h"

#include <bloomsimd.h>
#include <string.h>

#include "parquet/thrift.h"

static void put_string(bloomsimd_thrift_writer *w, int16_t *last, int16_t id, const char *s)
{
    bloomsimd_thrift_put_field(w, last, id, BLOOMSIMD_THRIFT_BINARY);
    bloomsimd_thrift_put_binary(w, s, strlen(s));
}

static void put_i32_field(bloomsimd_thrift_writer *w, int16_t *last, int16_t id, int32_t v)
{
    bloomsimd_thrift_put_field(w, last, id, BLOOMSIMD_THRIFT_I32);
    bloomsimd_thrift_put_i32(w, v);
}

static void put_i64_field(bloomsimd_thrift_writer *w, int16_t *last, int16_t id, int64_t v)
{
    bloomsimd_thrift_put_field(w, last, id, BLOOMSIMD_THRIFT_I64);
    bloomsimd_thrift_put_i64(w, v);
}

static void put_chunk(bloomsimd_thrift_writer *w, const pqb_chunk *c)
{
    int16_t last = 0;
    if (c->external) put_string(w, &last, 1, "other.parquet");
    put_i64_field(w, &last, 2, 0);
    if (!c->no_metadata) {
        bloomsimd_thrift_put_field(w, &last, 3, BLOOMSIMD_THRIFT_STRUCT);
        int16_t m = 0;
        put_i32_field(w, &m, 1, c->type);
        bloomsimd_thrift_put_field(w, &m, 2, BLOOMSIMD_THRIFT_LIST);
        bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_I32, 1);
        bloomsimd_thrift_put_i32(w, 0); /* PLAIN */
        bloomsimd_thrift_put_field(w, &m, 3, BLOOMSIMD_THRIFT_LIST);
        bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_BINARY, c->depth);
        for (uint32_t i = 0; i < c->depth; i++) bloomsimd_thrift_put_binary(w, c->path[i], strlen(c->path[i]));
        put_i32_field(w, &m, 4, 0);   /* codec UNCOMPRESSED */
        put_i64_field(w, &m, 5, 10);  /* num_values */
        put_i64_field(w, &m, 6, 100); /* total_uncompressed_size */
        put_i64_field(w, &m, 7, 100); /* total_compressed_size */
        put_i64_field(w, &m, 9, 4);   /* data_page_offset */
        if (c->bloom_offset >= 0 || c->bloom_offset < -1) put_i64_field(w, &m, 14, c->bloom_offset);
        if (c->bloom_length != -1) put_i32_field(w, &m, 15, c->bloom_length);
        bloomsimd_thrift_put_stop(w);
    }
    if (c->encrypted) {
        bloomsimd_thrift_put_field(w, &last, 9, BLOOMSIMD_THRIFT_BINARY);
        bloomsimd_thrift_put_binary(w, "secret", 6);
    }
    bloomsimd_thrift_put_stop(w);
}

static void put_footer(bloomsimd_thrift_writer *w, const pqb_file *f)
{
    int16_t last = 0;
    put_i32_field(w, &last, 1, 1);
    if (f->duplicate_version) {
        bloomsimd_thrift_put_field(w, &last, 1, BLOOMSIMD_THRIFT_I32);
        bloomsimd_thrift_put_i32(w, 1);
    }
    bloomsimd_thrift_put_field(w, &last, 2, BLOOMSIMD_THRIFT_LIST);
    bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_STRUCT, f->nschema);
    for (uint32_t i = 0; i < f->nschema; i++) {
        const pqb_elem *e = &f->schema[i];
        int16_t s = 0;
        if (e->type >= 0) put_i32_field(w, &s, 1, e->type);
        if (i > 0) put_i32_field(w, &s, 3, 1); /* repetition_type OPTIONAL */
        if (e->name) put_string(w, &s, 4, e->name);
        if (e->num_children >= 0) put_i32_field(w, &s, 5, e->num_children);
        bloomsimd_thrift_put_stop(w);
    }
    if (!f->drop_num_rows) put_i64_field(w, &last, 3, 10 * (int64_t)f->row_groups);
    bloomsimd_thrift_put_field(w, &last, 4, BLOOMSIMD_THRIFT_LIST);
    bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_STRUCT, f->row_groups);
    for (uint32_t r = 0; r < f->row_groups; r++) {
        int16_t g = 0;
        bloomsimd_thrift_put_field(w, &g, 1, BLOOMSIMD_THRIFT_LIST);
        bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_STRUCT, f->columns);
        for (uint32_t c = 0; c < f->columns; c++) put_chunk(w, &f->chunks[r * f->columns + c]);
        put_i64_field(w, &g, 2, 1000);
        put_i64_field(w, &g, 3, 10);
        bloomsimd_thrift_put_stop(w);
    }
    if (f->created_by) put_string(w, &last, 6, f->created_by);
    if (f->nesting) {
        /* field 100: list<list<...<i32>>> nested f->nesting deep, one element each */
        bloomsimd_thrift_put_field(w, &last, 100, BLOOMSIMD_THRIFT_LIST);
        for (uint32_t d = 1; d < f->nesting; d++) bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_LIST, 1);
        bloomsimd_thrift_put_list(w, BLOOMSIMD_THRIFT_I32, 1);
        bloomsimd_thrift_put_i32(w, 7);
    }
    bloomsimd_thrift_put_stop(w);
}

size_t pqb_write(const pqb_file *f, uint8_t *buf, size_t cap)
{
    bloomsimd_thrift_writer w;
    bloomsimd_thrift_writer_init(&w, buf, cap);
    for (int i = 0; i < 4; i++) bloomsimd_thrift_put_byte(&w, (uint8_t)"PAR1"[i]);
    for (uint32_t i = 0; i < f->data_bytes; i++) bloomsimd_thrift_put_byte(&w, f->data ? f->data[i] : 0);
    size_t footer_start = w.len;
    put_footer(&w, f);
    uint32_t footer_len = (uint32_t)(w.len - footer_start);
    for (int i = 0; i < 4; i++) bloomsimd_thrift_put_byte(&w, (uint8_t)(footer_len >> (8 * i)));
    for (int i = 0; i < 4; i++) bloomsimd_thrift_put_byte(&w, (uint8_t)"PAR1"[i]);
    return w.len;
}

size_t pqb_bloom(uint32_t bitset_bytes, uint8_t fill, uint8_t *buf, size_t cap)
{
    size_t header = 0;
    bloomsimd_parquet_header_write(bitset_bytes, buf, cap, &header);
    for (size_t i = 0; i < bitset_bytes && header + i < cap; i++) buf[header + i] = fill;
    return header + bitset_bytes;
}
