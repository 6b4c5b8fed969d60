/*
 * footer.c — the Parquet footer: FileMetaData's schema, row groups and
 * column chunks, read only as far as Bloom filters need, and checked.
 *
 * File layout: "PAR1" | column data, Bloom filters, indexes | FileMetaData
 * (Thrift compact) | footer length (u32 LE) | "PAR1".
 *
 * Fields read (parquet.thrift); everything else is skipped unread:
 *   FileMetaData   1 version i32, 2 schema list<SchemaElement>, 3 num_rows i64,
 *                  4 row_groups list<RowGroup>, 6 created_by string
 *   SchemaElement  1 type (Type), 2 type_length i32, 4 name string, 5 num_children i32
 *   RowGroup       1 columns list<ColumnChunk>, 2 total_byte_size i64, 3 num_rows i64
 *   ColumnChunk    1 file_path string, 2 file_offset i64, 3 meta_data ColumnMetaData,
 *                  8 crypto_metadata, 9 encrypted_column_metadata
 *   ColumnMetaData 1 type, 2 encodings list, 3 path_in_schema list<string>, 4 codec,
 *                  5 num_values i64, 6/7 total sizes i64, 9 data_page_offset i64,
 *                  14 bloom_filter_offset i64, 15 bloom_filter_length i32
 * Required fields (thrift `required`) must be present, each field at most
 * once. The schema is the tree flattened depth first: an element with
 * num_children is a group whose children follow, one without is a leaf and
 * must have a type; the root is element 0.
 *
 * Cost bounds: every list's count is checked against the bytes left (each
 * element takes at least one), and the arrays grow (doubling) as elements
 * are parsed, not by the count a list claims: each array holds at most
 * twice the elements actually read, and an element takes at least 3 bytes
 * of footer, so the parse allocates at most ~40 times the footer's length
 * (tests/parquet/test_parquet_footer.c measures it on hostile footers);
 * the schema tree is walked with an explicit
 * stack; a chunk's path is compared name by name with its leaf's ancestors,
 * which costs what the path's bytes in the footer cost. The joined column
 * paths handed back are capped at the footer's length: with at least one row
 * group each path is spelled out in the footer, so only a schema built to
 * blow up (deep groups over many leaves, no row groups) reaches the cap.
 */
#include "parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../internal.h"
#include "../persist/io.h"

typedef struct schema_elem {
    const uint8_t *name;
    size_t name_len;
    int32_t type;         /* -1: absent (a group) */
    int32_t type_length;  /* 0 when absent */
    int32_t num_children; /* -1: absent (a leaf) */
    uint32_t parent;      /* index of its group (the root: itself) */
    uint32_t depth;       /* names from the root's child down to it (root 0) */
    size_t path_len;      /* joined path length, dots included */
} schema_elem;

typedef struct chunk_rec {
    bloomsimd_parquet_chunk out;
    bool has_metadata;
    int32_t type;
    bloomsimd_thrift_reader path; /* at path_in_schema's first element */
    uint32_t path_count;
} chunk_rec;

typedef struct parse {
    bloomsimd_thrift_reader r;
    uint64_t footer_offset; /* in the file */
    int32_t version;
    int64_t num_rows;
    const uint8_t *created_by;
    size_t created_by_len;
    schema_elem *schema;
    uint32_t nschema;
    chunk_rec *chunks;
    size_t nchunks, chunks_cap;
    uint32_t *rg_columns; /* chunks in each row group */
    int64_t *rg_rows;
    uint32_t nrg;
    size_t rg_cap;
} parse;

#define TRY(expr)                                                                                                  \
    do {                                                                                                           \
        bloomsimd_status try_st_ = (expr);                                                                         \
        if (try_st_ != BLOOMSIMD_OK) return try_st_;                                                              \
    } while (0)

/* Marks field id seen; a second occurrence is CORRUPT. */
static bloomsimd_status see(const bloomsimd_thrift_reader *r, uint64_t *seen, int16_t id)
{
    uint64_t bit = bloomsimd_parquet_field_bit(id);
    if (*seen & bit) return bloomsimd_thrift_duplicate(r, id);
    *seen |= bit;
    return BLOOMSIMD_OK;
}

/* The required fields of `mask` not in `seen`: the first is reported. */
static bloomsimd_status require(const bloomsimd_thrift_reader *r, uint64_t seen, uint64_t mask,
                                const char *const names[64])
{
    uint64_t missing = mask & ~seen;
    if (!missing) return BLOOMSIMD_OK;
    int16_t id = (int16_t)__builtin_ctzll(missing);
    return bloomsimd_thrift_missing(r, id, names[id]);
}

static bloomsimd_status check_type_enum(const bloomsimd_thrift_reader *r, int32_t type, const char *where)
{
    if (type >= 0 && type <= (int32_t)BLOOMSIMD_PARQUET_FIXED_LEN_BYTE_ARRAY) return BLOOMSIMD_OK;
    return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: %s type %ld is not a Parquet type",
                          bloomsimd_thrift_offset(r), where, (long)type);
}

static bloomsimd_status parse_schema_element(bloomsimd_thrift_reader *r, schema_elem *e)
{
    static const char *const names[64] = {[4] = "SchemaElement.name"};
    uint64_t seen = 0;
    int16_t last = 0, id = 0;
    uint8_t t = 0;
    *e = (schema_elem){.type = -1, .num_children = -1};
    for (;;) {
        TRY(bloomsimd_thrift_field(r, &last, &id, &t));
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        TRY(see(r, &seen, id));
        switch (id) {
        case 1:
            TRY(bloomsimd_thrift_i32(r, t, "SchemaElement.type", &e->type));
            TRY(check_type_enum(r, e->type, "SchemaElement"));
            break;
        case 2: TRY(bloomsimd_thrift_i32(r, t, "SchemaElement.type_length", &e->type_length)); break;
        case 4:
            TRY(bloomsimd_thrift_binary(r, t, "SchemaElement.name", &e->name, &e->name_len));
            if (memchr(e->name, 0, e->name_len))
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: a schema name holds a NUL byte",
                                      bloomsimd_thrift_offset(r));
            break;
        case 5:
            TRY(bloomsimd_thrift_i32(r, t, "SchemaElement.num_children", &e->num_children));
            if (e->num_children < 0)
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: num_children %ld < 0",
                                      bloomsimd_thrift_offset(r), (long)e->num_children);
            break;
        default: TRY(bloomsimd_thrift_skip(r, t)); break;
        }
    }
    return require(r, seen, bloomsimd_parquet_field_bit(4), names);
}

/* Room for element `index` in *array (of *cap elements of `size` bytes),
 * doubling: arrays grow with the elements parsed, not with a list's claim. */
static bloomsimd_status grow(void **array, size_t *cap, size_t index, size_t size, const char *what)
{
    if (index < *cap) return BLOOMSIMD_OK;
    size_t n = *cap ? 2 * *cap : 16;
    void *grown = realloc(*array, n * size);
    if (!grown) return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "%zu %s", n, what);
    *array = grown;
    *cap = n;
    return BLOOMSIMD_OK;
}

static bloomsimd_status parse_schema(parse *p, uint8_t t)
{
    uint8_t elem = 0;
    uint32_t n = 0;
    TRY(bloomsimd_thrift_list(&p->r, t, "FileMetaData.schema", &elem, &n));
    TRY(bloomsimd_thrift_expect_struct(&p->r, elem, "FileMetaData.schema element"));
    size_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        TRY(grow((void **)&p->schema, &cap, i, sizeof *p->schema, "schema elements"));
        p->nschema = i + 1;
        TRY(parse_schema_element(&p->r, &p->schema[i]));
    }
    if (!p->schema) TRY(grow((void **)&p->schema, &cap, 0, sizeof *p->schema, "schema elements"));
    return BLOOMSIMD_OK;
}

static bloomsimd_status parse_column_metadata(bloomsimd_thrift_reader *r, chunk_rec *c)
{
    static const char *const names[64] = {[1] = "ColumnMetaData.type",
                                          [2] = "ColumnMetaData.encodings",
                                          [3] = "ColumnMetaData.path_in_schema",
                                          [4] = "ColumnMetaData.codec",
                                          [5] = "ColumnMetaData.num_values",
                                          [6] = "ColumnMetaData.total_uncompressed_size",
                                          [7] = "ColumnMetaData.total_compressed_size",
                                          [9] = "ColumnMetaData.data_page_offset"};
    const uint64_t required = 0x2feu; /* fields 1..7 and 9 */
    uint64_t seen = 0;
    int16_t last = 0, id = 0;
    uint8_t t = 0, elem = 0;
    uint32_t n = 0;
    int32_t i32 = 0;
    int64_t i64 = 0;
    for (;;) {
        TRY(bloomsimd_thrift_field(r, &last, &id, &t));
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        TRY(see(r, &seen, id));
        switch (id) {
        case 1:
            TRY(bloomsimd_thrift_i32(r, t, names[1], &c->type));
            TRY(check_type_enum(r, c->type, "ColumnMetaData"));
            break;
        case 2: /* a list of enums: its shape is checked, its values are not needed */
            TRY(bloomsimd_thrift_list(r, t, names[2], &elem, &n));
            for (uint32_t i = 0; i < n; i++) TRY(bloomsimd_thrift_i32(r, elem, "an encoding", &i32));
            break;
        case 3:
            TRY(bloomsimd_thrift_list(r, t, names[3], &elem, &n));
            c->path = *r;
            c->path_count = n;
            for (uint32_t i = 0; i < n; i++) {
                const uint8_t *s = NULL;
                size_t len = 0;
                TRY(bloomsimd_thrift_binary(r, elem, "a path_in_schema name", &s, &len));
            }
            break;
        case 4: TRY(bloomsimd_thrift_i32(r, t, names[4], &i32)); break;
        case 5:
            TRY(bloomsimd_thrift_i64(r, t, names[5], &c->out.num_values));
            if (c->out.num_values < 0)
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: num_values %lld < 0",
                                      bloomsimd_thrift_offset(r), (long long)c->out.num_values);
            break;
        case 6:
        case 7:
        case 9: TRY(bloomsimd_thrift_i64(r, t, names[id], &i64)); break;
        case 14: TRY(bloomsimd_thrift_i64(r, t, "ColumnMetaData.bloom_filter_offset", &c->out.bloom_filter_offset)); break;
        case 15:
            TRY(bloomsimd_thrift_i32(r, t, "ColumnMetaData.bloom_filter_length", &i32));
            c->out.bloom_filter_length = i32;
            break;
        default: TRY(bloomsimd_thrift_skip(r, t)); break;
        }
    }
    if (!(seen & bloomsimd_parquet_field_bit(14))) c->out.bloom_filter_offset = -1;
    if (!(seen & bloomsimd_parquet_field_bit(15))) c->out.bloom_filter_length = -1;
    c->has_metadata = true;
    return require(r, seen, required, names);
}

static bloomsimd_status parse_column_chunk(bloomsimd_thrift_reader *r, chunk_rec *c)
{
    static const char *const names[64] = {[2] = "ColumnChunk.file_offset"};
    uint64_t seen = 0;
    int16_t last = 0, id = 0;
    uint8_t t = 0;
    int64_t i64 = 0;
    const uint8_t *s = NULL;
    size_t len = 0;
    bool crypto = false;
    *c = (chunk_rec){.type = -1};
    for (;;) {
        TRY(bloomsimd_thrift_field(r, &last, &id, &t));
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        TRY(see(r, &seen, id));
        switch (id) {
        case 1:
            TRY(bloomsimd_thrift_binary(r, t, "ColumnChunk.file_path", &s, &len));
            c->out.external = true;
            break;
        case 2: TRY(bloomsimd_thrift_i64(r, t, names[2], &i64)); break;
        case 3:
            TRY(bloomsimd_thrift_expect_struct(r, t, "ColumnChunk.meta_data"));
            TRY(parse_column_metadata(r, c));
            break;
        case 8:
        case 9:
            crypto = true;
            TRY(bloomsimd_thrift_skip(r, t));
            break;
        default: TRY(bloomsimd_thrift_skip(r, t)); break;
        }
    }
    TRY(require(r, seen, bloomsimd_parquet_field_bit(2), names));
    if (!c->has_metadata) {
        if (!crypto)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: a column chunk has no meta_data",
                                  bloomsimd_thrift_offset(r));
        c->out.encrypted = true;
    }
    if (!c->has_metadata || c->out.external) c->out.bloom_filter_offset = c->out.bloom_filter_length = -1;
    return BLOOMSIMD_OK;
}

static bloomsimd_status parse_row_group(parse *p, uint32_t index)
{
    static const char *const names[64] = {
        [1] = "RowGroup.columns", [2] = "RowGroup.total_byte_size", [3] = "RowGroup.num_rows"};
    bloomsimd_thrift_reader *r = &p->r;
    uint64_t seen = 0;
    int16_t last = 0, id = 0;
    uint8_t t = 0, elem = 0;
    uint32_t n = 0;
    int64_t i64 = 0;
    for (;;) {
        TRY(bloomsimd_thrift_field(r, &last, &id, &t));
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        TRY(see(r, &seen, id));
        switch (id) {
        case 1:
            TRY(bloomsimd_thrift_list(r, t, names[1], &elem, &n));
            TRY(bloomsimd_thrift_expect_struct(r, elem, "RowGroup.columns element"));
            for (uint32_t i = 0; i < n; i++) {
                TRY(grow((void **)&p->chunks, &p->chunks_cap, p->nchunks, sizeof *p->chunks, "column chunks"));
                TRY(parse_column_chunk(r, &p->chunks[p->nchunks++]));
            }
            p->rg_columns[index] = n;
            break;
        case 2: TRY(bloomsimd_thrift_i64(r, t, names[2], &i64)); break;
        case 3:
            TRY(bloomsimd_thrift_i64(r, t, names[3], &p->rg_rows[index]));
            if (p->rg_rows[index] < 0)
                return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData byte %zu: row group %u has %lld rows",
                                      bloomsimd_thrift_offset(r), index, (long long)p->rg_rows[index]);
            break;
        default: TRY(bloomsimd_thrift_skip(r, t)); break;
        }
    }
    return require(r, seen, 0xeu, names);
}

static bloomsimd_status parse_file_metadata(parse *p)
{
    static const char *const names[64] = {[1] = "FileMetaData.version",
                                          [2] = "FileMetaData.schema",
                                          [3] = "FileMetaData.num_rows",
                                          [4] = "FileMetaData.row_groups"};
    bloomsimd_thrift_reader *r = &p->r;
    uint64_t seen = 0;
    int16_t last = 0, id = 0;
    uint8_t t = 0, elem = 0;
    uint32_t n = 0;
    for (;;) {
        TRY(bloomsimd_thrift_field(r, &last, &id, &t));
        if (t == BLOOMSIMD_THRIFT_STOP) break;
        TRY(see(r, &seen, id));
        switch (id) {
        case 1: TRY(bloomsimd_thrift_i32(r, t, names[1], &p->version)); break;
        case 2: TRY(parse_schema(p, t)); break;
        case 3: TRY(bloomsimd_thrift_i64(r, t, names[3], &p->num_rows)); break;
        case 4:
            TRY(bloomsimd_thrift_list(r, t, names[4], &elem, &n));
            TRY(bloomsimd_thrift_expect_struct(r, elem, "FileMetaData.row_groups element"));
            for (uint32_t i = 0; i < n; i++) {
                size_t cap = p->rg_cap;
                TRY(grow((void **)&p->rg_columns, &cap, i, sizeof *p->rg_columns, "row groups"));
                cap = p->rg_cap;
                TRY(grow((void **)&p->rg_rows, &cap, i, sizeof *p->rg_rows, "row groups"));
                p->rg_cap = cap;
                p->rg_columns[i] = 0, p->rg_rows[i] = 0;
                p->nrg = i + 1;
                TRY(parse_row_group(p, i));
            }
            break;
        case 6: TRY(bloomsimd_thrift_binary(r, t, "FileMetaData.created_by", &p->created_by, &p->created_by_len)); break;
        default: TRY(bloomsimd_thrift_skip(r, t)); break;
        }
    }
    TRY(require(r, seen, 0x1eu, names));
    if (r->pos != r->end)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData ends at byte %zu of a %zu-byte footer",
                              bloomsimd_thrift_offset(r), (size_t)(r->end - r->start));
    if (p->num_rows < 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData.num_rows %lld < 0", (long long)p->num_rows);
    return BLOOMSIMD_OK;
}

/*
 * Walks the flattened schema: parents, depths and joined path lengths, and
 * the leaves in order (into leaves[], sized nschema). A group's children
 * follow it; open groups sit on a stack of indices (sized nschema) with the
 * children each still expects.
 */
static bloomsimd_status walk_schema(parse *p, uint32_t *leaves, uint32_t *nleaves, uint64_t *path_bytes)
{
    schema_elem *s = p->schema;
    if (p->nschema == 0) return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "FileMetaData.schema is empty");
    if (s[0].num_children < 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "schema root '%.*s' is not a group (no num_children)",
                              (int)(s[0].name_len > 64 ? 64 : s[0].name_len), (const char *)s[0].name);
    uint32_t *stack = malloc((size_t)p->nschema * sizeof *stack);
    int32_t *left = malloc((size_t)p->nschema * sizeof *left);
    if (!stack || !left) {
        free(stack);
        free(left);
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "schema walk of %u elements", p->nschema);
    }
    bloomsimd_status st = BLOOMSIMD_OK;
    uint32_t depth = 0;
    *nleaves = 0;
    *path_bytes = 0;
    s[0].parent = 0;
    if (s[0].num_children > 0) {
        stack[0] = 0;
        left[0] = s[0].num_children;
        depth = 1;
    }
    uint32_t i = 1;
    for (; i < p->nschema && depth > 0; i++) {
        uint32_t parent = stack[depth - 1];
        left[depth - 1]--;
        s[i].parent = parent;
        s[i].depth = s[parent].depth + 1;
        s[i].path_len = (parent ? s[parent].path_len + 1 : 0) + s[i].name_len;
        if (s[i].num_children > 0) {
            stack[depth] = i;
            left[depth] = s[i].num_children;
            depth++;
        } else if (s[i].num_children < 0) {
            if (s[i].type < 0) {
                st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "schema element %u ('%.*s') is a leaf without a type", i,
                                    (int)(s[i].name_len > 64 ? 64 : s[i].name_len), (const char *)s[i].name);
                break;
            }
            leaves[(*nleaves)++] = i;
            *path_bytes += s[i].path_len + 1;
        }
        while (depth > 0 && left[depth - 1] == 0) depth--;
    }
    if (st == BLOOMSIMD_OK && (depth > 0 || i < p->nschema))
        st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                            depth > 0 ? "schema ends inside a group: %u of its elements missing (%u listed)"
                                      : "schema element %u lies outside the root's tree (%u listed)",
                            depth > 0 ? (unsigned)left[depth - 1] : i, p->nschema);
    free(stack);
    free(left);
    return st;
}

/* True if chunk c's path_in_schema names exactly the ancestors of leaf
 * element `leaf` (chain[] has room for its depth). */
static bool path_matches(const parse *p, const chunk_rec *c, uint32_t leaf, uint32_t *chain)
{
    const schema_elem *s = p->schema;
    if (c->path_count != s[leaf].depth) return false;
    uint32_t d = s[leaf].depth;
    for (uint32_t e = leaf; d > 0; e = s[e].parent) chain[--d] = e;
    bloomsimd_thrift_reader r = c->path;
    for (uint32_t k = 0; k < c->path_count; k++) {
        const uint8_t *name = NULL;
        size_t len = 0;
        /* already validated when the chunk was parsed: cannot fail here */
        if (bloomsimd_thrift_binary(&r, BLOOMSIMD_THRIFT_BINARY, "path", &name, &len) != BLOOMSIMD_OK) return false;
        const schema_elem *e = &s[chain[k]];
        if (len != e->name_len || memcmp(name, e->name, len) != 0) return false;
    }
    return true;
}

static bloomsimd_status check_chunk(const parse *p, const chunk_rec *c, uint32_t rg, uint32_t col,
                                    const schema_elem *leaf)
{
    if (!c->has_metadata) return BLOOMSIMD_OK;
    if (c->type != leaf->type)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "row group %u column %u: type %s, but the schema says %s", rg,
                              col, bloomsimd_parquet_type_name((uint32_t)c->type),
                              bloomsimd_parquet_type_name((uint32_t)leaf->type));
    int64_t off = c->out.bloom_filter_offset, len = c->out.bloom_filter_length;
    if (off == -1) return BLOOMSIMD_OK;
    uint64_t end = p->footer_offset;
    if (off < 4 || (uint64_t)off >= end)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                              "row group %u column %u: bloom_filter_offset %lld outside the data (4 .. %llu)", rg, col,
                              (long long)off, (unsigned long long)end);
    if (len != -1 && (len <= 0 || (uint64_t)len > end - (uint64_t)off))
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                              "row group %u column %u: bloom_filter_length %lld at offset %lld runs into the "
                              "footer at %llu",
                              rg, col, (long long)len, (long long)off, (unsigned long long)end);
    return BLOOMSIMD_OK;
}

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static bloomsimd_status build(parse *p, bloomsimd_parquet_footer **out)
{
    uint32_t *leaves = malloc((size_t)p->nschema * sizeof *leaves);
    uint32_t *chain = malloc((size_t)p->nschema * sizeof *chain);
    bloomsimd_status st = leaves && chain ? BLOOMSIMD_OK
                                          : bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "schema of %u elements", p->nschema);
    uint32_t nleaves = 0;
    uint64_t path_bytes = 0;
    if (st == BLOOMSIMD_OK) st = walk_schema(p, leaves, &nleaves, &path_bytes);
    if (st == BLOOMSIMD_OK && path_bytes > (uint64_t)(p->r.end - p->r.start) + nleaves)
        st = bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "the schema's %u column paths join to %llu bytes, more than the "
                                                     "%zu-byte footer",
                            nleaves, (unsigned long long)path_bytes, (size_t)(p->r.end - p->r.start));
    for (uint32_t rg = 0; st == BLOOMSIMD_OK && rg < p->nrg; rg++)
        if (p->rg_columns[rg] != nleaves)
            st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "row group %u has %u column chunks, the schema %u leaves", rg,
                                p->rg_columns[rg], nleaves);
    for (size_t i = 0; st == BLOOMSIMD_OK && i < p->nchunks; i++) {
        uint32_t rg = (uint32_t)(i / nleaves), col = (uint32_t)(i % nleaves);
        const chunk_rec *c = &p->chunks[i];
        const schema_elem *leaf = &p->schema[leaves[col]];
        if (c->has_metadata && !path_matches(p, c, leaves[col], chain))
            st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT,
                                "row group %u column %u: path_in_schema (%u names) is not the schema's '%.*s'", rg, col,
                                c->path_count, (int)(leaf->name_len > 64 ? 64 : leaf->name_len),
                                (const char *)leaf->name);
        else
            st = check_chunk(p, c, rg, col, leaf);
    }
    if (st != BLOOMSIMD_OK) {
        free(leaves);
        free(chain);
        return st;
    }

    /* One allocation: the struct, the arrays, then the strings. */
    size_t at_columns = align8(sizeof(bloomsimd_parquet_footer));
    size_t at_rows = at_columns + align8((size_t)nleaves * sizeof(bloomsimd_parquet_column));
    size_t at_chunks = at_rows + align8((size_t)p->nrg * sizeof(int64_t));
    size_t at_strings = at_chunks + align8(p->nchunks * sizeof(bloomsimd_parquet_chunk));
    size_t total = at_strings + (size_t)path_bytes + p->created_by_len + 1;
    uint8_t *mem = calloc(1, total);
    if (!mem) {
        free(leaves);
        free(chain);
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "footer of %zu bytes", total);
    }
    bloomsimd_parquet_footer *f = (bloomsimd_parquet_footer *)(void *)mem;
    bloomsimd_parquet_column *columns = (bloomsimd_parquet_column *)(void *)(mem + at_columns);
    int64_t *rows = (int64_t *)(void *)(mem + at_rows);
    bloomsimd_parquet_chunk *chunks = (bloomsimd_parquet_chunk *)(void *)(mem + at_chunks);
    char *strings = (char *)(mem + at_strings);
    for (uint32_t c = 0; c < nleaves; c++) {
        const schema_elem *leaf = &p->schema[leaves[c]];
        /* written back to front: the leaf's name, a dot, its parent's, ... */
        char *end = strings + leaf->path_len;
        for (uint32_t e = leaves[c]; e != 0; e = p->schema[e].parent) {
            const schema_elem *x = &p->schema[e];
            end -= x->name_len;
            memcpy(end, x->name, x->name_len);
            if (x->parent != 0) *--end = '.';
        }
        columns[c] = (bloomsimd_parquet_column){strings, leaf->depth, (uint32_t)leaf->type, leaf->type_length};
        strings += leaf->path_len + 1; /* calloc'ed: already NUL-terminated */
    }
    if (p->nrg) memcpy(rows, p->rg_rows, (size_t)p->nrg * sizeof *rows);
    for (size_t i = 0; i < p->nchunks; i++) chunks[i] = p->chunks[i].out;
    if (p->created_by_len) memcpy(strings, p->created_by, p->created_by_len);
    *f = (bloomsimd_parquet_footer){.file_size = 0,
                                    .footer_offset = p->footer_offset,
                                    .footer_bytes = (uint32_t)(p->r.end - p->r.start),
                                    .version = p->version,
                                    .num_rows = p->num_rows,
                                    .created_by = strings,
                                    .columns = nleaves,
                                    .row_groups = p->nrg,
                                    .column = columns,
                                    .row_group_rows = rows,
                                    .chunk = chunks};
    free(leaves);
    free(chain);
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_tail_bytes(const void *last8, uint64_t file_size, uint64_t *tail_bytes)
{
    bloomsimd_error_clear();
    if (!last8 || !tail_bytes) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "NULL argument");
    if (file_size < BLOOMSIMD_PARQUET_MIN_FILE_BYTES)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%llu bytes is shorter than any Parquet file (12)",
                              (unsigned long long)file_size);
    const uint8_t *t = last8;
    if (memcmp(t + 4, BLOOMSIMD_PARQUET_MAGIC_ENCRYPTED, 4) == 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_VERSION, "encrypted footer (magic PARE) is not supported");
    if (memcmp(t + 4, BLOOMSIMD_PARQUET_MAGIC, 4) != 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "no PAR1 magic at the end (%02x %02x %02x %02x)", t[4], t[5],
                              t[6], t[7]);
    uint32_t len = bloomsimd_parquet_le32(t);
    if ((uint64_t)len > file_size - BLOOMSIMD_PARQUET_MIN_FILE_BYTES)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "footer length %u does not fit in a %llu-byte file", len,
                              (unsigned long long)file_size);
    *tail_bytes = (uint64_t)len + 8;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_parquet_footer_parse(bloomsimd_parquet_footer **out, const void *tail, size_t tail_len,
                                                uint64_t file_size)
{
    if (out) *out = NULL;
    bloomsimd_error_clear();
    if (!out || !tail) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "NULL argument");
    if ((uint64_t)tail_len > file_size)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "tail of %zu bytes is longer than the %llu-byte file",
                              tail_len, (unsigned long long)file_size);
    if (tail_len < 8) {
        if (file_size < BLOOMSIMD_PARQUET_MIN_FILE_BYTES)
            return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%llu bytes is shorter than any Parquet file (12)",
                                  (unsigned long long)file_size);
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "tail of %zu bytes: the last 8 are needed", tail_len);
    }
    const uint8_t *t = tail;
    uint64_t need = 0;
    bloomsimd_status st = bloomsimd_parquet_tail_bytes(t + tail_len - 8, file_size, &need);
    if (st != BLOOMSIMD_OK) return st;
    if (need > tail_len)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "tail of %zu bytes; the footer needs the last %llu",
                              tail_len, (unsigned long long)need);
    if ((uint64_t)tail_len == file_size && memcmp(t, BLOOMSIMD_PARQUET_MAGIC, 4) != 0)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "no PAR1 magic at the start (%02x %02x %02x %02x)", t[0], t[1],
                              t[2], t[3]);
    size_t footer_len = (size_t)(need - 8);
    parse p = {0};
    bloomsimd_thrift_reader_init(&p.r, t + tail_len - need, footer_len, "FileMetaData");
    p.footer_offset = file_size - need;
    st = parse_file_metadata(&p);
    if (st == BLOOMSIMD_OK && p.schema == NULL) st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "no schema");
    if (st == BLOOMSIMD_OK) st = build(&p, out);
    if (st == BLOOMSIMD_OK) (*out)->file_size = file_size;
    free(p.schema);
    free(p.chunks);
    free(p.rg_columns);
    free(p.rg_rows);
    return st;
}

bloomsimd_status bloomsimd_parquet_footer_load(bloomsimd_parquet_footer **out, const char *path)
{
    if (out) *out = NULL;
    bloomsimd_error_clear();
    if (!out || !path) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "NULL argument");
    int fd;
    uint64_t size;
    bloomsimd_status st = bloomsimd_open_regular(path, O_RDONLY, &fd, &size);
    if (st != BLOOMSIMD_OK) return bloomsimd_fail_errno(st, "open %s", path);
    uint8_t last8[8];
    uint64_t need = 0;
    if (size < BLOOMSIMD_PARQUET_MIN_FILE_BYTES) {
        st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s: %llu bytes is shorter than any Parquet file (12)", path,
                            (unsigned long long)size);
    } else {
        ssize_t got = bloomsimd_pread_full(fd, last8, 8, (off_t)(size - 8));
        if (got != 8)
            st = got < 0 ? bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "read %s", path)
                         : bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s shrank while it was read", path);
        else
            st = bloomsimd_parquet_tail_bytes(last8, size, &need);
    }
    uint8_t head[4];
    if (st == BLOOMSIMD_OK) {
        /* the leading magic, which a parse of the tail alone cannot see */
        ssize_t got = bloomsimd_pread_full(fd, head, 4, 0);
        if (got != 4)
            st = got < 0 ? bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "read %s", path)
                         : bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s shrank while it was read", path);
        else if (memcmp(head, BLOOMSIMD_PARQUET_MAGIC, 4) != 0)
            st = bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s: no PAR1 magic at the start (%02x %02x %02x %02x)", path,
                                head[0], head[1], head[2], head[3]);
    }
    uint8_t *tail = NULL;
    if (st == BLOOMSIMD_OK) {
        tail = malloc((size_t)need);
        if (!tail) st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "footer of %llu bytes", (unsigned long long)need);
    }
    if (st == BLOOMSIMD_OK) {
        ssize_t got = bloomsimd_pread_full(fd, tail, (size_t)need, (off_t)(size - need));
        if (got != (ssize_t)need)
            st = got < 0 ? bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "read %s", path)
                         : bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "%s shrank while it was read", path);
    }
    bloomsimd_close_keep_errno(fd);
    if (st == BLOOMSIMD_OK) st = bloomsimd_parquet_footer_parse(out, tail, (size_t)need, size);
    free(tail);
    return st;
}

void bloomsimd_parquet_footer_free(bloomsimd_parquet_footer *footer) { free(footer); }

int64_t bloomsimd_parquet_footer_find(const bloomsimd_parquet_footer *footer, const char *path)
{
    if (!footer || !path) return -1;
    for (uint32_t c = 0; c < footer->columns; c++)
        if (strcmp(footer->column[c].path, path) == 0) return c;
    return -1;
}

const char *bloomsimd_parquet_type_name(uint32_t physical_type)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return physical_type < sizeof names / sizeof names[0] ? names[physical_type] : NULL;
}
