/*
 * pq_builder.h — builds small Parquet files in memory for the tests and the
 * fuzz seed corpus: a leading "PAR1", a data area (where Bloom filters go),
 * a FileMetaData written with the library's Thrift writer, its length and
 * "PAR1". Every knob exists to make one particular footer check fire.
 */
#ifndef BLOOMSIMD_TEST_PQ_BUILDER_H
#define BLOOMSIMD_TEST_PQ_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pqb_elem {
    const char *name;     /* NULL: leave the required name out */
    int32_t type;         /* -1: no type (a group) */
    int32_t num_children; /* -1: none (a leaf) */
} pqb_elem;

typedef struct pqb_chunk {
    const char *path[6]; /* path_in_schema */
    uint32_t depth;
    int32_t type;
    int64_t bloom_offset; /* -1: no field 14 */
    int32_t bloom_length; /* -1: no field 15 */
    bool no_metadata;     /* ColumnChunk without meta_data */
    bool encrypted;       /* ... and with encrypted_column_metadata */
    bool external;        /* ColumnChunk.file_path set */
} pqb_chunk;

typedef struct pqb_file {
    const pqb_elem *schema;
    uint32_t nschema;
    uint32_t row_groups;
    uint32_t columns;        /* chunks per row group in `chunks` (row-major) */
    const pqb_chunk *chunks;
    const uint8_t *data;     /* data area after the leading magic, data_bytes long (NULL: zeros) */
    uint32_t data_bytes;
    uint32_t nesting;        /* > 0: FileMetaData gets an unknown field 100 of `nesting` nested lists */
    bool drop_num_rows;      /* leave out the required FileMetaData.num_rows */
    bool duplicate_version;  /* write FileMetaData.version twice */
    const char *created_by;  /* NULL: none */
} pqb_file;

/* Writes the file into buf[0..cap) and returns its length (which may exceed
 * cap: then only a prefix was written). */
size_t pqb_write(const pqb_file *f, uint8_t *buf, size_t cap);

/* A split-block Bloom filter area as writers lay it out: the header for
 * `bitset_bytes`, then the bitset (all bytes `fill`). Returns its length
 * (header + bitset), writing into buf[0..cap). */
size_t pqb_bloom(uint32_t bitset_bytes, uint8_t fill, uint8_t *buf, size_t cap);

#endif
