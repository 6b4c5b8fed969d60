/*
 * fuzz_parquet_footer.c — libFuzzer target for the Parquet footer parser.
 *
 * Invariant: for ANY byte string taken as a whole file,
 * bloomsimd_parquet_footer_parse returns OK, _CORRUPT, _VERSION, _TOO_LARGE
 * or _NO_MEMORY, never reads outside the input, never crashes or recurses
 * out of stack (ASan/UBSan watch), leaves *out NULL and a non-empty
 * bloomsimd_last_error() on failure, and when it returns OK the footer
 * describes the input: the footer ends 8 bytes before the end, there are
 * row_groups * columns chunks, every column path is a NUL-terminated string
 * with depth - 1 dots or more, and every Bloom filter range lies between the
 * leading magic and the footer. Parsing only the tail (the footer and its
 * last 8 bytes) gives the same footer, and parsing any shorter tail is the
 * caller's error (_INVALID_ARGUMENT), never a read before the buffer.
 *
 * The committed corpus is fed to the same entry point by replay.c in CTest.
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "fuzz_parquet_footer: invariant failed: %s (line %d)\n", #cond, __LINE__);             \
            abort();                                                                                               \
        }                                                                                                          \
    } while (0)

bloomsimd_status fuzz_last_status;

static void check_footer(const bloomsimd_parquet_footer *f, size_t size)
{
    CHECK(f->file_size == size);
    CHECK(f->footer_offset + f->footer_bytes + 8 == size);
    for (uint32_t c = 0; c < f->columns; c++) {
        const char *p = f->column[c].path;
        size_t dots = 0, len = strlen(p);
        for (size_t i = 0; i < len; i++) dots += p[i] == '.';
        CHECK(f->column[c].depth >= 1 && dots + 1 >= f->column[c].depth);
        CHECK(bloomsimd_parquet_type_name(f->column[c].physical_type) != NULL);
    }
    for (uint64_t i = 0; i < (uint64_t)f->row_groups * f->columns; i++) {
        const bloomsimd_parquet_chunk *ch = &f->chunk[i];
        CHECK(ch->num_values >= 0 || ch->encrypted);
        if (ch->bloom_filter_offset == -1) continue;
        CHECK(!ch->encrypted && !ch->external);
        CHECK(ch->bloom_filter_offset >= 4 && (uint64_t)ch->bloom_filter_offset < f->footer_offset);
        if (ch->bloom_filter_length != -1)
            CHECK(ch->bloom_filter_length > 0 &&
                  (uint64_t)(ch->bloom_filter_offset + ch->bloom_filter_length) <= f->footer_offset);
    }
    for (uint32_t r = 0; r < f->row_groups; r++) CHECK(f->row_group_rows[r] >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bloomsimd_parquet_footer *f = (bloomsimd_parquet_footer *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_parquet_footer_parse(&f, data, size, size);
    fuzz_last_status = st;
    CHECK(st == BLOOMSIMD_OK || st == BLOOMSIMD_ERR_CORRUPT || st == BLOOMSIMD_ERR_VERSION ||
          st == BLOOMSIMD_ERR_TOO_LARGE || st == BLOOMSIMD_ERR_NO_MEMORY);
    if (st != BLOOMSIMD_OK) {
        CHECK(f == NULL);
        CHECK(bloomsimd_last_error()[0] != '\0');
        return 0;
    }
    check_footer(f, size);
    /* The tail alone: the same answer; one byte less: the caller's mistake. */
    size_t tail = (size_t)f->footer_bytes + 8;
    bloomsimd_parquet_footer *g = NULL;
    CHECK(bloomsimd_parquet_footer_parse(&g, data + size - tail, tail, size) == BLOOMSIMD_OK);
    CHECK(g->columns == f->columns && g->row_groups == f->row_groups && g->num_rows == f->num_rows);
    for (uint32_t c = 0; c < f->columns; c++) CHECK(strcmp(g->column[c].path, f->column[c].path) == 0);
    for (uint64_t i = 0; i < (uint64_t)f->row_groups * f->columns; i++)
        CHECK(memcmp(&g->chunk[i], &f->chunk[i], sizeof g->chunk[i]) == 0);
    bloomsimd_parquet_footer_free(g);
    bloomsimd_parquet_footer *h = (bloomsimd_parquet_footer *)(uintptr_t)1;
    CHECK(bloomsimd_parquet_footer_parse(&h, data + size - tail + 1, tail - 1, size) ==
          BLOOMSIMD_ERR_INVALID_ARGUMENT);
    CHECK(h == NULL);
    bloomsimd_parquet_footer_free(f);
    return 0;
}
