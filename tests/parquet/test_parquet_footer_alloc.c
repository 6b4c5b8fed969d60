/*
 * test_parquet_footer_alloc.c — what a footer parse allocates, against the
 * footer's length, on hostile footers built to make it allocate: lists that
 * claim as many elements as there are bytes left, and lists of the smallest
 * elements that parse. The parser grows its arrays with the elements it
 * reads, so the peak of live heap bytes stays within a small multiple of
 * the footer (src/parquet/footer.c, "Cost bounds"); sizing an array by a
 * list's claimed count would allocate ~160 times the footer here.
 *
 * Linked with -Wl,--wrap for malloc, calloc, realloc and free
 * (CMakeLists.txt): the wrappers count live bytes while `tracking` is set.
 */
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bloomsimd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static bool tracking;
static size_t live, peak;

static void count_in(void *p)
{
    if (!p || !tracking) return;
    live += malloc_usable_size(p);
    if (live > peak) peak = live;
}

static void count_out(void *p)
{
    if (p && tracking) live -= malloc_usable_size(p);
}

void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    count_in(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
    void *p = __real_calloc(n, size);
    count_in(p);
    return p;
}

void *__wrap_realloc(void *old, size_t n);
void *__wrap_realloc(void *old, size_t n)
{
    size_t before = old && tracking ? malloc_usable_size(old) : 0;
    void *p = __real_realloc(old, n);
    if (p) {
        live -= before;
        count_in(p);
    }
    return p;
}

void __wrap_free(void *p);
void __wrap_free(void *p)
{
    count_out(p);
    __real_free(p);
}

/* A Parquet file around footer bytes fm[0..n): "PAR1", fm, length, "PAR1". */
static uint8_t *wrap_file(const uint8_t *fm, size_t n, size_t *len)
{
    uint8_t *f = __real_malloc(n + 12);
    memcpy(f, "PAR1", 4);
    memcpy(f + 4, fm, n);
    for (int b = 0; b < 4; b++) f[4 + n + b] = (uint8_t)(n >> (8 * b));
    memcpy(f + 8 + n, "PAR1", 4);
    *len = n + 12;
    return f;
}

static size_t put_varint(uint8_t *at, uint64_t v)
{
    size_t n = 0;
    do {
        at[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* Peak live heap bytes of one parse of the footer; the parse must fail. */
static size_t peak_of(const uint8_t *fm, size_t n)
{
    size_t len;
    uint8_t *file = wrap_file(fm, n, &len);
    bloomsimd_parquet_footer *ft = NULL;
    live = peak = 0;
    tracking = true;
    bloomsimd_status st = bloomsimd_parquet_footer_parse(&ft, file, len, len);
    tracking = false;
    cr_assert_neq(st, BLOOMSIMD_OK, "a hostile footer parsed");
    cr_assert_null(ft);
    cr_assert_eq(live, 0, "%zu bytes still allocated after a failed parse", live);
    __real_free(file);
    return peak;
}

enum { FOOTER = 1 << 20 };

/* Field header (delta, type) of Thrift's compact protocol. */
#define FIELD(delta, type) (uint8_t)((delta) << 4 | (type))
#define T_I32 5
#define T_I64 6
#define T_BINARY 8
#define T_LIST 9
#define T_STRUCT 12

static void check_bound(const char *what, const uint8_t *fm, size_t n)
{
    size_t p = peak_of(fm, n);
    cr_log_info("%s: %zu-byte footer, peak %zu bytes (%.1fx)", what, n, p, (double)p / (double)n);
    cr_assert_leq(p, 40 * n + 65536, "%s: %zu bytes allocated for a %zu-byte footer", what, p, n);
}

/* schema: a list claiming every byte left, then as many 3-byte elements
 * (a name of length 0) as fit */
Test(parquet_footer_alloc, schema_of_smallest_elements)
{
    uint8_t *fm = __real_malloc(FOOTER);
    size_t at = 0;
    fm[at++] = FIELD(2, T_LIST);
    fm[at++] = 0xF0 | T_STRUCT;
    at += put_varint(fm + at, FOOTER / 3);
    while (at + 4 <= FOOTER) fm[at++] = FIELD(4, T_BINARY), fm[at++] = 0, fm[at++] = 0;
    fm[at++] = 0;
    check_bound("schema, 3-byte elements", fm, at);
    __real_free(fm);
}

/* a row group whose columns list claims every byte left, then chunks of 5
 * bytes (file_offset 0 and an empty crypto_metadata) */
Test(parquet_footer_alloc, column_chunks_of_smallest_elements)
{
    uint8_t *fm = __real_malloc(FOOTER);
    size_t at = 0;
    fm[at++] = FIELD(4, T_LIST);
    fm[at++] = 1 << 4 | T_STRUCT; /* one row group */
    fm[at++] = FIELD(1, T_LIST);  /* RowGroup.columns */
    fm[at++] = 0xF0 | T_STRUCT;
    at += put_varint(fm + at, FOOTER / 5);
    while (at + 6 <= FOOTER) {
        fm[at++] = FIELD(2, T_I64), fm[at++] = 0; /* file_offset 0 */
        fm[at++] = FIELD(6, T_STRUCT), fm[at++] = 0; /* field 8, crypto_metadata: empty */
        fm[at++] = 0;                              /* end of the chunk */
    }
    fm[at++] = 0;
    check_bound("column chunks, 5-byte elements", fm, at);
    __real_free(fm);
}

/* lists that claim every byte left and hold one malformed element: nothing
 * sized by the claim */
Test(parquet_footer_alloc, claimed_counts_allocate_nothing)
{
    static const uint8_t prefixes[3][5] = {
        {FIELD(2, T_LIST), 0xF0 | T_STRUCT},                                         /* schema */
        {FIELD(4, T_LIST), 0xF0 | T_STRUCT},                                         /* row groups */
        {FIELD(4, T_LIST), 1 << 4 | T_STRUCT, FIELD(1, T_LIST), 0xF0 | T_STRUCT, 0}, /* columns */
    };
    static const size_t plen[3] = {2, 2, 4};
    static const char *const what[3] = {"schema claim", "row group claim", "column chunk claim"};
    uint8_t *fm = __real_malloc(FOOTER);
    for (int k = 0; k < 3; k++) {
        memset(fm, 0xff, FOOTER); /* a field header of type 15: malformed */
        memcpy(fm, prefixes[k], plen[k]);
        size_t at = plen[k] + put_varint(fm + plen[k], FOOTER - 16);
        (void)at;
        size_t p = peak_of(fm, FOOTER);
        cr_log_info("%s: peak %zu bytes", what[k], p);
        cr_assert_leq(p, 65536, "%s: %zu bytes allocated for one malformed element", what[k], p);
    }
    __real_free(fm);
}
