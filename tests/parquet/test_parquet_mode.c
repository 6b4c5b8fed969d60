/*
 * test_parquet_mode.c — BLOOMSIMD_PARQUET filters on this run's kernel,
 * against the specification's reference (sbbf_reference.h, libxxhash XXH64):
 *   - the hashes (u64 keys inlined, byte keys, key views) are libxxhash's XXH64;
 *   - every call (batched and single, u64 and byte keys, every hit form,
 *     insert-and-report-new) sets and finds exactly the reference's bits;
 *   - DuckDB's filters (fixtures/) read with bloomsimd_parquet_read find every
 *     written value through the library's calls, and filters built with the
 *     library from the same values and blocks write byte-identical bitsets;
 *   - bloomsimd_parquet_write / _read round trips, the library's own file
 *     format keeps the hash, the FPR at capacity meets the target;
 *   - bad options, buffers and files get their specific status.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fixture_values.h"
#include "sbbf_reference.h"
#include "support.h"

#define FIXTURE_DIR BLOOMSIMD_PARQUET_FIXTURES

static bloomsimd_filter *parquet_filter(uint64_t blocks, uint32_t flags)
{
    bloomsimd_options o = {.bits = blocks * 256, .flags = BLOOMSIMD_PARQUET | flags};
    return test_filter(&o);
}

static const uint32_t *words_of(const bloomsimd_filter *f, uint64_t *blocks)
{
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    *blocks = info.blocks;
    /* no view for Parquet filters: the bytes through the export */
    static uint8_t buf[64 + (1u << 20)];
    size_t n;
    cr_assert_eq(bloomsimd_parquet_write(f, buf, sizeof buf, &n), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    bloomsimd_parquet_header h;
    cr_assert_eq(bloomsimd_parquet_header_parse(buf, n, &h), BLOOMSIMD_OK);
    cr_assert_eq(h.bitset_bytes, info.blocks * 32);
    return (const uint32_t *)(buf + h.header_bytes); /* little-endian words on every tested host */
}

Test(parquet_mode, hashes_are_libxxhash_xxh64)
{
    bloomsimd_filter *f = parquet_filter(64, 0);
    enum { N = 3000 };
    uint64_t keys[N], hashes[N];
    for (size_t i = 0; i < N; i++) keys[i] = test_key(1, i) >> (i % 64); /* small and large values */
    bloomsimd_hash_batch_u64(f, keys, N, hashes);
    for (size_t i = 0; i < N; i++) {
        uint8_t le[8];
        fixture_le(le, keys[i], 8);
        cr_assert_eq(hashes[i], XXH64(le, 8, 0), "u64 key %zu", i);
    }
    /* every batch length 0..40 (the vector kernels' steps of 8 and their tails), and a start off a vector */
    for (size_t n = 0; n <= 40; n++) {
        uint64_t h[41] = {0};
        bloomsimd_hash_batch_u64(f, keys + 1, n, h);
        for (size_t i = 0; i < n; i++) cr_assert_eq(h[i], XXH64(&keys[1 + i], 8, 0), "batch of %zu: key %zu", n, i);
        cr_assert_eq(h[n], 0, "batch of %zu: wrote past its end", n);
    }
    /* byte keys: every length 0..512 (the inlined XXH64 below 32 bytes,
     * libxxhash above) at every alignment 0..7, and long random ones */
    uint8_t bytes[512 + 8];
    for (size_t b = 0; b < sizeof bytes; b++) bytes[b] = (uint8_t)(test_key(4, b) >> 29);
    for (size_t len = 0; len <= 512; len++)
        for (size_t align = 0; align < 8; align++)
            cr_assert_eq(bloomsimd_hash(f, bytes + align, len), XXH64(bytes + align, len, 0),
                         "byte key of %zu bytes at offset %zu", len, align);
    uint8_t *big = malloc(1u << 16);
    for (size_t b = 0; b < 1u << 16; b++) big[b] = (uint8_t)(test_key(5, b) >> 31);
    for (size_t r = 0; r < 200; r++) {
        size_t len = (size_t)(test_key(6, r) % (1u << 16)), at = (size_t)(test_key(7, r) % ((1u << 16) - len + 1));
        cr_assert_eq(bloomsimd_hash(f, big + at, len), XXH64(big + at, len, 0), "key of %zu bytes", len);
    }
    free(big);
    /* keys that end at an unreadable page, and start at the first byte of a
     * mapping: nothing outside a key is read */
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    for (long i = 0; i < page; i++) map[i] = (uint8_t)(i * 7 + 1);
    for (size_t len = 0; len <= 100; len++) {
        cr_assert_eq(bloomsimd_hash(f, map + page - len, len), XXH64(map + page - len, len, 0), "%zu bytes at the end", len);
        cr_assert_eq(bloomsimd_hash(f, map, len), XXH64(map, len, 0), "%zu bytes at the start", len);
    }
    for (size_t w = 1; w <= 20; w++) { /* fixed-width views ending at the page */
        enum { FN = 8 * 5 + 3 };
        uint64_t fh[FN];
        bloomsimd_keys fv = bloomsimd_keys_fixed(map + page - FN * w, FN * w, w, FN);
        cr_assert_eq(bloomsimd_hash_keys(f, &fv, fh), BLOOMSIMD_OK);
        for (size_t i = 0; i < FN; i++)
            cr_assert_eq(fh[i], XXH64(map + page - FN * w + i * w, w, 0), "width %zu at the end: key %zu", w, i);
    }
    munmap(map, 2 * (size_t)page);
    /* a key view: offsets, every length 0..79 */
    uint32_t off[81];
    off[0] = 0;
    uint8_t data[80 * 81 / 2];
    for (uint32_t i = 0; i < 80; i++) {
        off[i + 1] = off[i] + i;
        for (uint32_t b = 0; b < i; b++) data[off[i] + b] = (uint8_t)(i ^ b);
    }
    bloomsimd_keys v = bloomsimd_keys_offsets32(data, sizeof data, off, 80);
    uint64_t vh[80];
    cr_assert_eq(bloomsimd_hash_keys(f, &v, vh), BLOOMSIMD_OK);
    for (uint32_t i = 0; i < 80; i++) cr_assert_eq(vh[i], XXH64(data + off[i], i, 0), "view key %u", i);
    bloomsimd_destroy(f);
}

/* Inserts through the batched u64 call set the reference's bits; every
 * lookup form answers as the reference does. */
Test(parquet_mode, u64_calls_match_the_reference)
{
    const uint64_t z = 1000;
    enum { N = 6000, Q = 20000 };
    bloomsimd_filter *f = parquet_filter(z, 0);
    uint64_t *keys = test_keys(N, 2);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, N / 2), BLOOMSIMD_OK);
    for (size_t i = N / 2; i < N; i++) cr_assert_eq(bloomsimd_add_u64(f, keys[i]), BLOOMSIMD_OK);
    uint32_t *ref = aligned_alloc(64, z * 32);
    memset(ref, 0, z * 32);
    for (size_t i = 0; i < N; i++) {
        uint8_t le[8];
        fixture_le(le, keys[i], 8);
        ref_sbbf_insert(ref, z, ref_sbbf_hash(le, 8));
    }
    uint64_t blocks;
    const uint32_t *ours = words_of(f, &blocks);
    cr_assert_eq(blocks, z);
    cr_assert_arr_eq(ours, ref, z * 32, "filter bytes differ from the reference's");

    /* lookups of present and absent keys, every form, ragged length */
    uint64_t *q = malloc(Q * sizeof *q);
    uint8_t *expect = malloc(Q), *bytes = malloc(Q), *bitmap = calloc((Q + 7) / 8, 1);
    uint32_t *idx = malloc(Q * sizeof *idx);
    size_t expected_hits = 0;
    for (size_t i = 0; i < Q; i++) {
        q[i] = i % 3 == 0 ? keys[i % N] : test_key(3, i);
        uint8_t le[8];
        fixture_le(le, q[i], 8);
        expect[i] = ref_sbbf_check(ref, z, ref_sbbf_hash(le, 8));
        expected_hits += expect[i];
    }
    size_t n = Q - 3; /* not a multiple of a chunk or of 8 */
    expected_hits -= expect[Q - 1] + expect[Q - 2] + expect[Q - 3];
    cr_assert_eq(bloomsimd_contains_batch_u64(f, q, n, bytes), expected_hits);
    cr_assert_eq(bloomsimd_select_batch_u64(f, q, n, idx), expected_hits);
    cr_assert_eq(bloomsimd_contains_bitmap_u64(f, q, n, bitmap), expected_hits);
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(bytes[i], expect[i], "key %zu", i);
        cr_assert_eq((bitmap[i / 8] >> (i % 8)) & 1, expect[i], "bitmap key %zu", i);
        cr_assert_eq(bloomsimd_contains_u64(f, q[i]), expect[i], "single key %zu", i);
        if (expect[i]) cr_assert_eq(idx[next++], i, "selected index");
    }
    /* insert-and-report-new: new exactly where the reference lacked the key */
    uint8_t *fresh = malloc(Q);
    size_t count = 0;
    cr_assert_eq(bloomsimd_add_new_batch_u64(f, q, n, fresh, &count), BLOOMSIMD_OK);
    for (size_t i = 0; i < n; i++) {
        uint8_t le[8];
        fixture_le(le, q[i], 8);
        uint64_t h = ref_sbbf_hash(le, 8);
        cr_assert_eq(fresh[i], !ref_sbbf_check(ref, z, h), "add_new key %zu", i);
        ref_sbbf_insert(ref, z, h);
    }
    ours = words_of(f, &blocks);
    cr_assert_arr_eq(ours, ref, z * 32, "after add_new, filter bytes differ from the reference's");
    bool was_new = true;
    cr_assert_eq(bloomsimd_add_new_u64(f, q[0], &was_new), BLOOMSIMD_OK);
    cr_assert(!was_new);
    free(fresh), free(idx), free(bitmap), free(bytes), free(expect), free(q), free(ref), free(keys);
    bloomsimd_destroy(f);
}

Test(parquet_mode, byte_key_calls_match_the_reference)
{
    const uint64_t z = 300;
    enum { N = 2000 };
    bloomsimd_filter *f = parquet_filter(z, BLOOMSIMD_CONCURRENT);
    uint32_t *ref = aligned_alloc(64, z * 32);
    memset(ref, 0, z * 32);
    char text[N][24];
    const void *ptr[N];
    size_t len[N];
    for (size_t i = 0; i < N; i++) {
        len[i] = (size_t)snprintf(text[i], sizeof text[i], "value-%zu", i * 7919) % 24;
        ptr[i] = text[i];
        ref_sbbf_insert(ref, z, ref_sbbf_hash(text[i], len[i]));
    }
    cr_assert_eq(bloomsimd_add_batch(f, ptr, len, N / 2), BLOOMSIMD_OK);
    for (size_t i = N / 2; i < N; i++) cr_assert_eq(bloomsimd_add(f, ptr[i], len[i]), BLOOMSIMD_OK);
    uint64_t blocks;
    cr_assert_arr_eq(words_of(f, &blocks), ref, z * 32, "filter bytes differ from the reference's");
    uint8_t out[N];
    cr_assert_eq(bloomsimd_contains_batch(f, ptr, len, N, out), N);
    for (size_t i = 0; i < N; i++) cr_assert(bloomsimd_contains(f, ptr[i], len[i]));
    free(ref);
    bloomsimd_destroy(f);
}

/* DuckDB's filters: read, probed through the library, rebuilt byte-identical. */
static void check_fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, name);
    size_t flen;
    uint8_t *file = test_read_file(path, &flen);
    bloomsimd_parquet_footer *ft;
    cr_assert_eq(bloomsimd_parquet_footer_parse(&ft, file, flen, flen), BLOOMSIMD_OK);
    uint64_t rows_before = 0;
    unsigned filters = 0;
    for (uint32_t rg = 0; rg < ft->row_groups; rg++) {
        uint64_t rows = (uint64_t)ft->row_group_rows[rg];
        for (uint32_t col = 0; col < ft->columns; col++) {
            const bloomsimd_parquet_chunk *ch = &ft->chunk[rg * ft->columns + col];
            if (ch->bloom_filter_offset < 0) continue;
            filters++;
            const char *column = ft->column[col].path;
            bool as_u64 = ft->column[col].physical_type == BLOOMSIMD_PARQUET_INT64 ||
                          ft->column[col].physical_type == BLOOMSIMD_PARQUET_DOUBLE;
            bloomsimd_filter *theirs;
            size_t used;
            cr_assert_eq(bloomsimd_parquet_read(&theirs, file + ch->bloom_filter_offset,
                                                (size_t)ch->bloom_filter_length, &used),
                         BLOOMSIMD_OK, "%s rg %u: %s", column, rg, bloomsimd_last_error());
            cr_assert_eq(used, (size_t)ch->bloom_filter_length);
            bloomsimd_info info;
            bloomsimd_get_info(theirs, &info);
            cr_assert(info.flags & BLOOMSIMD_PARQUET);
            cr_assert_eq(info.layout, BLOOMSIMD_LAYOUT_SPLIT256);
            bloomsimd_filter *ours = parquet_filter(info.blocks, 0);
            for (uint64_t i = rows_before; i < rows_before + rows; i++) {
                uint8_t v[FIXTURE_VALUE_MAX];
                int vlen = fixture_value(name, column, i, v);
                if (vlen < 0) continue;
                if (as_u64) {
                    uint64_t key = 0;
                    for (int b = 7; b >= 0; b--) key = key << 8 | v[b];
                    cr_assert(bloomsimd_contains_u64(theirs, key), "%s rg %u row %llu absent", column, rg,
                              (unsigned long long)i);
                    cr_assert_eq(bloomsimd_add_batch_u64(ours, &key, 1), BLOOMSIMD_OK);
                } else {
                    cr_assert(bloomsimd_contains(theirs, v, (size_t)vlen), "%s rg %u row %llu absent", column, rg,
                              (unsigned long long)i);
                    cr_assert_eq(bloomsimd_add(ours, v, (size_t)vlen), BLOOMSIMD_OK);
                }
            }
            /* the same values in the same blocks: the writer's bytes */
            uint8_t *mine = malloc((size_t)ch->bloom_filter_length + 64);
            size_t wrote;
            cr_assert_eq(bloomsimd_parquet_write(ours, mine, (size_t)ch->bloom_filter_length + 64, &wrote),
                         BLOOMSIMD_OK);
            bloomsimd_parquet_header hm, hf;
            cr_assert_eq(bloomsimd_parquet_header_parse(mine, wrote, &hm), BLOOMSIMD_OK);
            cr_assert_eq(bloomsimd_parquet_header_parse(file + ch->bloom_filter_offset,
                                                        (size_t)ch->bloom_filter_length, &hf),
                         BLOOMSIMD_OK);
            cr_assert_eq(hm.bitset_bytes, hf.bitset_bytes);
            cr_assert_arr_eq(mine + hm.header_bytes, file + ch->bloom_filter_offset + hf.header_bytes, hf.bitset_bytes,
                             "%s rg %u: the library's filter differs from the writer's", column, rg);
            free(mine);
            bloomsimd_destroy(ours);
            bloomsimd_destroy(theirs);
        }
        rows_before += rows;
    }
    cr_assert_gt(filters, 0);
    cr_log_info("%s: %u filters found every value and were rebuilt byte-identical on kernel %s", name, filters,
                test_kernel());
    bloomsimd_parquet_footer_free(ft);
    free(file);
}

Test(parquet_mode, duckdb_mixed_read_probed_rebuilt) { check_fixture("mixed.parquet"); }
Test(parquet_mode, duckdb_nulls_read_probed_rebuilt) { check_fixture("nulls_fpr0001.parquet"); }
Test(parquet_mode, duckdb_types_read_probed_rebuilt) { check_fixture("types.parquet"); }

Test(parquet_mode, write_read_round_trip_and_own_format_keep_the_hash)
{
    bloomsimd_options o = {.capacity = 5000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(5000, 4);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 5000), BLOOMSIMD_OK);
    size_t need = 0;
    uint8_t small[8];
    cr_assert_eq(bloomsimd_parquet_write(f, small, sizeof small, &need), BLOOMSIMD_ERR_TOO_LARGE);
    uint8_t *buf = malloc(need);
    size_t wrote;
    cr_assert_eq(bloomsimd_parquet_write(f, buf, need, &wrote), BLOOMSIMD_OK);
    cr_assert_eq(wrote, need);
    bloomsimd_filter *g;
    cr_assert_eq(bloomsimd_parquet_read(&g, buf, wrote, NULL), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 5000, NULL), 5000);
    /* truncated bitset, truncated header */
    bloomsimd_filter *bad = (bloomsimd_filter *)1;
    cr_assert_eq(bloomsimd_parquet_read(&bad, buf, wrote - 1, NULL), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_null(bad);
    cr_assert_eq(bloomsimd_parquet_read(&bad, buf, 2, NULL), BLOOMSIMD_ERR_CORRUPT);
    /* the library's format records hash 2; loaded back it is a Parquet filter */
    size_t sz = bloomsimd_serialized_size(f), got;
    uint8_t *ser = malloc(sz);
    cr_assert_eq(bloomsimd_serialize(f, ser, sz, &got), BLOOMSIMD_OK);
    cr_assert_eq(ser[20], 2, "hash_id at offset 20 (docs/FORMAT.md)");
    bloomsimd_filter *h;
    cr_assert_eq(bloomsimd_deserialize(&h, ser, got), BLOOMSIMD_OK);
    bloomsimd_info info;
    bloomsimd_get_info(h, &info);
    cr_assert(info.flags & BLOOMSIMD_PARQUET);
    cr_assert_eq(bloomsimd_contains_batch_u64(h, keys, 5000, NULL), 5000);
    /* and answers what the original answers on absent keys */
    uint64_t *absent = test_keys(20000, 5);
    cr_assert_eq(bloomsimd_contains_batch_u64(h, absent, 20000, NULL),
                 bloomsimd_contains_batch_u64(f, absent, 20000, NULL));
    /* a Parquet filter and an XXH3 one of the same size are incompatible */
    bloomsimd_options x = {.bits = info.bits, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_filter *xf = test_filter(&x);
    cr_assert_eq(bloomsimd_union(xf, h), BLOOMSIMD_ERR_INCOMPATIBLE);
    cr_assert_eq(bloomsimd_union(g, h), BLOOMSIMD_OK);
    bloomsimd_destroy(xf), bloomsimd_destroy(h), bloomsimd_destroy(g), bloomsimd_destroy(f);
    free(absent), free(ser), free(buf), free(keys);
}

/* bloomsimd_parquet_size_for against the specification's table of bits per
 * inserted value for a false-positive probability ("Sizing an SBBF" in
 * parquet-format BloomFilter.md; docs/PARQUET.md): the exact model gives
 * each within 0.1 bit, and a filter of that size predicts at most the
 * target. The same spec's older closed form, c = -8 / ln(1 - p^(1/8)),
 * sizes too small: its filters predict 1.1-5.5x the target (checked > 1.1x). */
Test(parquet_mode, size_for_matches_the_spec_table)
{
    static const struct {
        double fpr, spec_bits;
    } table[] = {{0.1, 6.0}, {0.01, 10.5}, {0.001, 16.9}, {0.0001, 26.4}, {0.00001, 41.0}};
    const uint64_t ndv = 1000000;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        uint64_t bytes;
        cr_assert_eq(bloomsimd_parquet_size_for(ndv, table[i].fpr, &bytes), BLOOMSIMD_OK);
        cr_assert_eq(bytes % 32, 0, "whole blocks");
        double bits = 8.0 * (double)bytes / (double)ndv;
        cr_assert_leq(fabs(bits - table[i].spec_bits), 0.1, "fpr %g: %.3f bits/value, the spec's table %.1f",
                      table[i].fpr, bits, table[i].spec_bits);
        bloomsimd_filter *f = parquet_filter(bytes / 32, 0);
        cr_assert_leq(bloomsimd_predicted_fpr(f, ndv), table[i].fpr);
        bloomsimd_destroy(f);
        double closed_form = -8.0 / log(1.0 - pow(table[i].fpr, 1.0 / 8));
        f = parquet_filter((uint64_t)ceil(closed_form * (double)ndv / 256.0), 0);
        cr_assert_gt(bloomsimd_predicted_fpr(f, ndv), 1.1 * table[i].fpr, "fpr %g: the closed form's %.3f bits",
                     table[i].fpr, closed_form);
        bloomsimd_destroy(f);
    }
    /* the limits: one block at least, numBytes an i32 */
    uint64_t bytes;
    cr_assert_eq(bloomsimd_parquet_size_for(1, 0.5, &bytes), BLOOMSIMD_OK);
    cr_assert_eq(bytes, 32);
    cr_assert_eq(bloomsimd_parquet_size_for(UINT64_C(200000000), 0.001, &bytes), BLOOMSIMD_OK);
    cr_assert_leq(bytes, INT32_MAX);
    cr_assert_eq(bloomsimd_parquet_size_for(UINT64_C(2000000000), 0.0001, &bytes), BLOOMSIMD_ERR_TOO_LARGE);
}

Test(parquet_mode, fpr_at_capacity_meets_the_target)
{
    enum { N = 100000, Q = 400000 };
    bloomsimd_options o = {.capacity = N, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(N, 6), *absent = test_keys(Q, 7);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, N), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, N, NULL), N);
    double measured = (double)bloomsimd_contains_batch_u64(f, absent, Q, NULL) / Q;
    double model = bloomsimd_predicted_fpr(f, N), sigma = sqrt(model * (1 - model) / Q);
    cr_assert_leq(model, 0.01);
    cr_assert_leq(fabs(measured - model), 4 * sigma, "measured %g, model %g", measured, model);
    uint64_t bytes;
    cr_assert_eq(bloomsimd_parquet_size_for(N, 0.01, &bytes), BLOOMSIMD_OK);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_eq(bytes, info.blocks * 32);
    cr_log_info("10^5 values at 1%%: %llu bytes (%.2f bits/value), measured FPR %.4f%%, model %.4f%%",
                (unsigned long long)bytes, 8.0 * (double)bytes / N, 100 * measured, 100 * model);
    free(keys), free(absent);
    bloomsimd_destroy(f);
}

Test(parquet_mode, bad_options_and_inputs_are_refused)
{
    bloomsimd_filter *f = (bloomsimd_filter *)1;
    bloomsimd_options o = {.capacity = 100, .flags = BLOOMSIMD_PARQUET, .layout = BLOOMSIMD_LAYOUT_BLOCK512};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(f);
    cr_assert(strstr(bloomsimd_last_error(), "split256"), "%s", bloomsimd_last_error());
    o = (bloomsimd_options){.capacity = 100, .flags = BLOOMSIMD_PARQUET, .seed = 7};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(bloomsimd_last_error(), "seed 0"), "%s", bloomsimd_last_error());
    o = (bloomsimd_options){.capacity = 100, .flags = BLOOMSIMD_PARQUET, .growth = 2};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o = (bloomsimd_options){.capacity = 100, .flags = BLOOMSIMD_PARQUET, .generations = 4};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    o = (bloomsimd_options){.capacity = 100, .flags = BLOOMSIMD_PARQUET, .k = 6};
    cr_assert_eq(bloomsimd_create_with(&f, &o), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    /* no view; a non-Parquet filter does not export */
    bloomsimd_filter *p = parquet_filter(4, 0);
    bloomsimd_view v;
    cr_assert_eq(bloomsimd_get_view(p, &v), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_options x = {.capacity = 100, .layout = BLOOMSIMD_LAYOUT_SPLIT256};
    bloomsimd_filter *xf = test_filter(&x);
    uint8_t buf[256];
    size_t wrote;
    cr_assert_eq(bloomsimd_parquet_write(xf, buf, sizeof buf, &wrote), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_write(NULL, buf, sizeof buf, &wrote), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_read(NULL, buf, sizeof buf, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    uint64_t bytes;
    cr_assert_eq(bloomsimd_parquet_size_for(0, 0.01, &bytes), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_size_for(10, 1.5, &bytes), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_parquet_size_for(UINT64_C(1) << 40, 1e-6, &bytes), BLOOMSIMD_ERR_TOO_LARGE);
    bloomsimd_destroy(xf), bloomsimd_destroy(p);
}

/* Fixed-width views (INT32 / FLOAT at 4 bytes, FIXED_LEN_BYTE_ARRAY at any
 * width; some kernels vectorise 4, 8 and 16): every width and batch length
 * hashes as libxxhash, and inserts set the reference's bits. */
Test(parquet_mode, fixed_width_views_hash_as_libxxhash)
{
    enum { MAXN = 1100, MAXW = 20 };
    uint8_t *data = malloc(MAXN * MAXW + 1);
    for (size_t i = 0; i < MAXN * MAXW + 1; i++) data[i] = (uint8_t)(test_key(8, i) >> 13);
    uint64_t *h = malloc(MAXN * sizeof *h);
    bloomsimd_filter *f = parquet_filter(128, 0);
    static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, 255, 256, 257, 1100};
    for (size_t w = 0; w <= MAXW; w++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            size_t n = lens[li];
            /* an unaligned start, as a column's buffer may have */
            bloomsimd_keys v = bloomsimd_keys_fixed(data + 1, n * w, w, n);
            cr_assert_eq(bloomsimd_hash_keys(f, &v, h), BLOOMSIMD_OK);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(h[i], XXH64(data + 1 + i * w, w, 0), "width %zu, %zu keys: key %zu", w, n, i);
        }
    /* inserts of 4- and 16-byte keys set the reference's bits */
    for (size_t w = 4; w <= 16; w += 12) {
        const uint64_t z = 128;
        bloomsimd_filter *g = parquet_filter(z, 0);
        bloomsimd_keys v = bloomsimd_keys_fixed(data + 1, 1000 * w, w, 1000);
        cr_assert_eq(bloomsimd_add_keys(g, &v), BLOOMSIMD_OK);
        uint32_t *ref = aligned_alloc(64, z * 32);
        memset(ref, 0, z * 32);
        for (size_t i = 0; i < 1000; i++) ref_sbbf_insert(ref, z, XXH64(data + 1 + i * w, w, 0));
        uint64_t blocks;
        cr_assert_arr_eq(words_of(g, &blocks), ref, z * 32, "width %zu: filter bytes differ", w);
        free(ref);
        bloomsimd_destroy(g);
    }
    bloomsimd_destroy(f);
    free(h), free(data);
}

/* A view over a caller's aligned buffer: the same answers as a copy, no
 * writes, and nothing freed; a misaligned buffer is refused with the reason. */
Test(parquet_mode, view_probes_in_place_and_is_read_only)
{
    bloomsimd_options o = {.capacity = 3000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
    bloomsimd_filter *f = test_filter(&o);
    uint64_t *keys = test_keys(3000, 9), *absent = test_keys(20000, 10);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 3000), BLOOMSIMD_OK);
    size_t need;
    uint8_t tmp[BLOOMSIMD_PARQUET_HEADER_MAX_BYTES];
    cr_assert_eq(bloomsimd_parquet_write(f, tmp, sizeof tmp, &need), BLOOMSIMD_ERR_TOO_LARGE);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    size_t hlen = need - (size_t)info.memory_bytes;
    uint8_t *mem = aligned_alloc(64, 64 + ((need + 63) / 64) * 64 + 64);
    uint8_t *buf = mem + 64 - hlen; /* the bitset lands on a 64-byte boundary */
    size_t wrote;
    cr_assert_eq(bloomsimd_parquet_write(f, buf, need, &wrote), BLOOMSIMD_OK);
    bloomsimd_filter *v;
    size_t used;
    cr_assert_eq(bloomsimd_parquet_view(&v, buf, wrote, &used), BLOOMSIMD_OK, "%s", bloomsimd_last_error());
    cr_assert_eq(used, wrote);
    cr_assert_eq(bloomsimd_contains_batch_u64(v, keys, 3000, NULL), 3000);
    cr_assert_eq(bloomsimd_contains_batch_u64(v, absent, 20000, NULL),
                 bloomsimd_contains_batch_u64(f, absent, 20000, NULL));
    for (size_t i = 0; i < 100; i++) cr_assert(bloomsimd_contains_u64(v, keys[i]));
    /* read-only: inserts and unions into it refused, clear a no-op, the buffer unchanged */
    uint8_t *before = malloc(wrote);
    memcpy(before, buf, wrote);
    cr_assert_eq(bloomsimd_add_u64(v, 12345), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_batch_u64(v, absent, 100), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_union(v, f), BLOOMSIMD_ERR_READ_ONLY);
    bloomsimd_clear(v);
    cr_assert_arr_eq(buf, before, wrote, "the view wrote into the caller's buffer");
    /* it can be the source of a union, and copied */
    bloomsimd_filter *g = parquet_filter(info.blocks, 0);
    cr_assert_eq(bloomsimd_union(g, v), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 3000, NULL), 3000);
    bloomsimd_destroy(v); /* must not free buf: freed below (ASan would see a double free) */
    /* misaligned: refused, with the reason */
    memmove(buf + 1, buf, wrote);
    cr_assert_eq(bloomsimd_parquet_view(&v, buf + 1, wrote, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(v);
    cr_assert(strstr(bloomsimd_last_error(), "64-byte aligned"), "%s", bloomsimd_last_error());
    cr_assert_eq(bloomsimd_parquet_view(&v, buf + 1, wrote - 1, NULL), BLOOMSIMD_ERR_CORRUPT);
    bloomsimd_destroy(g), bloomsimd_destroy(f);
    free(before), free(mem), free(keys), free(absent);
}
