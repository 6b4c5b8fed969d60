/*
 * test_persist_corrupt.c — every bad input gives a clear status and nothing
 * else: truncations at every length, every single-bit flip, empty, zero- and
 * 0xFF-filled buffers, huge claimed sizes, and each header field out of range
 * (with the header checksum recomputed, so the field check itself is what
 * must catch it). The same bad bytes go through deserialize, load and map,
 * and through the stream readers (deserialize_stream, deserialize_fd).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/format.h"
#include "support.h"
#include "support_stream.h"

#define BLOCKS 2u
#define FILE_BYTES (4096u + BLOCKS * 64u)

/* A valid serialized 2-block filter with some keys. */
static uint8_t *valid_file(void)
{
    bloomsimd_options o = {.bits = BLOCKS * 512, .k = 5, .seed = 3, .capacity = 20};
    bloomsimd_filter *f = test_filter(&o);
    for (uint64_t key = 0; key < 20; key++) bloomsimd_add_u64(f, key);
    uint8_t *buf = malloc(FILE_BYTES + 64);
    cr_assert_not_null(buf);
    size_t written;
    cr_assert_eq(bloomsimd_serialize(f, buf, FILE_BYTES, &written), BLOOMSIMD_OK);
    cr_assert_eq(written, FILE_BYTES);
    bloomsimd_destroy(f);
    return buf;
}

/* deserialize must fail with `want` and leave *out NULL. The input is copied
 * to an exact-size heap block, so under ASan any read past len is caught. */
static void expect_status(const uint8_t *buf, size_t len, bloomsimd_status want, const char *what)
{
    uint8_t *exact = malloc(len ? len : 1);
    cr_assert_not_null(exact);
    if (len) memcpy(exact, buf, len);
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    bloomsimd_status st = bloomsimd_deserialize(&f, exact, len);
    cr_assert_eq(st, want, "%s: got %s, want %s", what, bloomsimd_status_string(st), bloomsimd_status_string(want));
    if (want == BLOOMSIMD_OK) {
        cr_assert_not_null(f);
        bloomsimd_destroy(f);
    } else {
        cr_assert_null(f, "%s: *out not cleared", what);
        /* every refusal explains itself (tests/test_error_detail.c checks the texts) */
        cr_assert_neq(bloomsimd_last_error()[0], '\0', "%s: no detail", what);
    }
    free(exact);
    /* the stream readers judge the same bytes the same way (support_stream.h) */
    test_expect_stream_status(buf, len, want, false, what);
}

Test(persist_corrupt, empty_null_and_tiny_inputs)
{
    bloomsimd_filter *f = NULL;
    cr_assert_eq(bloomsimd_deserialize(&f, NULL, 0), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_eq(bloomsimd_deserialize(&f, NULL, 5), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    uint8_t byte = 0x89;
    cr_assert_eq(bloomsimd_deserialize(NULL, &byte, 1), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    expect_status(&byte, 0, BLOOMSIMD_ERR_CORRUPT, "empty");
    expect_status(&byte, 1, BLOOMSIMD_ERR_CORRUPT, "one byte");
}

Test(persist_corrupt, every_truncation_and_an_extra_byte_are_corrupt)
{
    uint8_t *buf = valid_file();
    char what[64];
    for (size_t len = 0; len < FILE_BYTES; len++) {
        snprintf(what, sizeof what, "truncated to %zu", len);
        expect_status(buf, len, BLOOMSIMD_ERR_CORRUPT, what);
    }
    buf[FILE_BYTES] = 0;
    expect_status(buf, FILE_BYTES + 1, BLOOMSIMD_ERR_CORRUPT, "one trailing byte");
    expect_status(buf, FILE_BYTES + 64, BLOOMSIMD_ERR_CORRUPT, "one trailing block");
    free(buf);
}

Test(persist_corrupt, every_single_bit_flip_is_detected)
{
    uint8_t *buf = valid_file();
    char what[64];
    for (size_t byte = 0; byte < FILE_BYTES; byte++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            buf[byte] ^= (uint8_t)(1u << bit);
            /* A changed version number is reported as such; anything else is corruption. */
            bloomsimd_status want = (byte >= 8 && byte < 12) ? BLOOMSIMD_ERR_VERSION : BLOOMSIMD_ERR_CORRUPT;
            snprintf(what, sizeof what, "bit %u of byte %zu", bit, byte);
            expect_status(buf, FILE_BYTES, want, what);
            buf[byte] ^= (uint8_t)(1u << bit);
        }
    }
    expect_status(buf, FILE_BYTES, BLOOMSIMD_OK, "restored"); /* the original still loads */
    free(buf);
}

Test(persist_corrupt, zero_and_ff_filled_inputs_are_corrupt)
{
    uint8_t *buf = calloc(1, FILE_BYTES);
    expect_status(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "zeros");
    memset(buf, 0xff, FILE_BYTES);
    expect_status(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "0xff");
    /* Only the magic right: zeros elsewhere read as version 0. */
    memset(buf, 0, FILE_BYTES);
    memcpy(buf, BLOOMSIMD_FORMAT_MAGIC, 8);
    expect_status(buf, FILE_BYTES, BLOOMSIMD_ERR_VERSION, "magic then zeros");
    free(buf);
}

/* Applies `edit` to the header of a valid file, recomputes the header
 * checksum so that only the field check can reject it, and expects `want`. */
typedef void (*header_edit)(uint8_t *h);
static void expect_field(header_edit edit, bloomsimd_status want, const char *what)
{
    uint8_t *buf = valid_file();
    edit(buf);
    bloomsimd_header_reseal(buf);
    expect_status(buf, FILE_BYTES, want, what);
    free(buf);
}

static void blocks_zero(uint8_t *h) { bloomsimd_le64_put(h + 32, 0); bloomsimd_le64_put(h + 72, 0); }
static void blocks_too_many(uint8_t *h)
{
    bloomsimd_le64_put(h + 32, (UINT64_C(1) << 32) + 1);
    bloomsimd_le64_put(h + 72, ((UINT64_C(1) << 32) + 1) * 64);
}
static void blocks_max_claimed(uint8_t *h) /* the largest legal filter, in a 4 KiB buffer */
{
    bloomsimd_le64_put(h + 32, UINT64_C(1) << 32);
    bloomsimd_le64_put(h + 72, UINT64_C(1) << 38);
}
static void blocks_wrapping(uint8_t *h) /* blocks * 64 wraps to 128 modulo 2^64 */
{
    bloomsimd_le64_put(h + 32, (UINT64_C(1) << 58) + 2);
    bloomsimd_le64_put(h + 72, 128);
}
static void blocks_mismatch(uint8_t *h) { bloomsimd_le64_put(h + 32, 1); }
static void payload_len_mismatch(uint8_t *h) { bloomsimd_le64_put(h + 72, 64); }
static void k_zero(uint8_t *h) { bloomsimd_le32_put(h + 40, 0); }
static void k_seventeen(uint8_t *h) { bloomsimd_le32_put(h + 40, 17); }
static void k_huge(uint8_t *h) { bloomsimd_le32_put(h + 40, UINT32_MAX); }
static void put_fpr(uint8_t *h, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    bloomsimd_le64_put(h + 64, u);
}
static void fpr_nan(uint8_t *h) { put_fpr(h, NAN); }
static void fpr_one(uint8_t *h) { put_fpr(h, 1.0); }
static void fpr_negative(uint8_t *h) { put_fpr(h, -0.5); }
static void fpr_infinite(uint8_t *h) { put_fpr(h, INFINITY); }
static void offset_64(uint8_t *h) { bloomsimd_le32_put(h + 12, 64); }
static void offset_8192(uint8_t *h) { bloomsimd_le32_put(h + 12, 8192); }
static void offset_huge(uint8_t *h) { bloomsimd_le32_put(h + 12, UINT32_MAX); }
static void kind_unknown(uint8_t *h) { h[53] = 1; }          /* filter_kind 256 */
static void kind_scalable(uint8_t *h) { bloomsimd_le32_put(h + 52, 1); } /* without its layer directory */
static void reserved_b(uint8_t *h) { h[100] = 1; }
static void padding(uint8_t *h) { h[4095] = 1; }
static void layout_one(uint8_t *h) { bloomsimd_le32_put(h + 16, 1); }
static void layout_four(uint8_t *h) { bloomsimd_le32_put(h + 16, 4); }
/* layout 3 (split256) is known, but sets exactly 8 bits: the file's k is not 8 */
static void layout_three_k(uint8_t *h) { bloomsimd_le32_put(h + 16, 3); }
static void hash_four(uint8_t *h) { bloomsimd_le32_put(h + 20, 4); }
/* Parquet's hash (2) on a block512 filter: never written, so corrupt */
static void hash_two(uint8_t *h) { bloomsimd_le32_put(h + 20, 2); }
static void state_unknown(uint8_t *h) { bloomsimd_le32_put(h + 44, 0x80); }
static void filter_flags_unknown(uint8_t *h) { bloomsimd_le32_put(h + 48, 0x100); }
static void version_one(uint8_t *h) { bloomsimd_le32_put(h + 8, 1); }
static void version_three(uint8_t *h) { bloomsimd_le32_put(h + 8, 3); }
static void version_zero(uint8_t *h) { bloomsimd_le32_put(h + 8, 0); }
static void payload_checksum(uint8_t *h) { h[80] ^= 1; }

Test(persist_corrupt, each_header_field_out_of_range_is_rejected)
{
    expect_field(blocks_zero, BLOOMSIMD_ERR_CORRUPT, "0 blocks");
    expect_field(blocks_too_many, BLOOMSIMD_ERR_CORRUPT, "2^32+1 blocks");
    expect_field(blocks_max_claimed, BLOOMSIMD_ERR_CORRUPT, "2^32 blocks claimed in 4 KiB");
    expect_field(blocks_wrapping, BLOOMSIMD_ERR_CORRUPT, "blocks*64 wraps");
    expect_field(blocks_mismatch, BLOOMSIMD_ERR_CORRUPT, "block count disagrees with payload");
    expect_field(payload_len_mismatch, BLOOMSIMD_ERR_CORRUPT, "payload length disagrees with blocks");
    expect_field(k_zero, BLOOMSIMD_ERR_CORRUPT, "k 0");
    expect_field(k_seventeen, BLOOMSIMD_ERR_CORRUPT, "k 17");
    expect_field(k_huge, BLOOMSIMD_ERR_CORRUPT, "k 2^32-1");
    expect_field(fpr_nan, BLOOMSIMD_ERR_CORRUPT, "fpr NaN");
    expect_field(fpr_one, BLOOMSIMD_ERR_CORRUPT, "fpr 1");
    expect_field(fpr_negative, BLOOMSIMD_ERR_CORRUPT, "fpr -0.5");
    expect_field(fpr_infinite, BLOOMSIMD_ERR_CORRUPT, "fpr inf");
    expect_field(offset_64, BLOOMSIMD_ERR_CORRUPT, "payload offset 64");
    expect_field(offset_8192, BLOOMSIMD_ERR_CORRUPT, "payload offset 8192");
    expect_field(offset_huge, BLOOMSIMD_ERR_CORRUPT, "payload offset 2^32-1");
    expect_field(kind_unknown, BLOOMSIMD_ERR_VERSION, "unknown filter kind (from a newer writer)");
    expect_field(kind_scalable, BLOOMSIMD_ERR_CORRUPT, "scalable kind with 0 layers");
    expect_field(reserved_b, BLOOMSIMD_ERR_CORRUPT, "reserved bytes");
    expect_field(padding, BLOOMSIMD_ERR_CORRUPT, "padding");
    expect_field(payload_checksum, BLOOMSIMD_ERR_CORRUPT, "payload checksum");
    expect_field(layout_one, BLOOMSIMD_ERR_VERSION, "layout id 1 (retired: such filters must be rebuilt)");
    expect_field(layout_four, BLOOMSIMD_ERR_VERSION, "layout id 4");
    expect_field(layout_three_k, BLOOMSIMD_ERR_CORRUPT, "layout id 3 with a k other than 8");
    expect_field(hash_four, BLOOMSIMD_ERR_VERSION, "hash id 4");
    expect_field(hash_two, BLOOMSIMD_ERR_CORRUPT, "hash id 2 on layout 2");
    expect_field(state_unknown, BLOOMSIMD_ERR_VERSION, "unknown state flag");
    expect_field(filter_flags_unknown, BLOOMSIMD_ERR_VERSION, "unknown filter flag");
    expect_field(version_one, BLOOMSIMD_ERR_VERSION, "version 1 (layout 1, retired)");
    expect_field(version_three, BLOOMSIMD_ERR_VERSION, "version 3");
    expect_field(version_zero, BLOOMSIMD_ERR_VERSION, "version 0");
}

static void set_dirty(uint8_t *h) { bloomsimd_le32_put(h + 44, BLOOMSIMD_FORMAT_STATE_DIRTY); }

Test(persist_corrupt, dirty_flag_alone_is_fine_but_a_stale_payload_is_not)
{
    /* DIRTY with a matching checksum: a file closed after its last sync. */
    expect_field(set_dirty, BLOOMSIMD_OK, "dirty, checksum matches");
    /* DIRTY with a stale checksum: deserialize has no way to accept it. */
    uint8_t *buf = valid_file();
    set_dirty(buf);
    bloomsimd_header_reseal(buf);
    buf[4096 + 5] ^= 0x10;
    expect_status(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "dirty, stale payload");
    free(buf);
}

/* The same bad bytes on disk: load and map must agree with deserialize, and
 * I/O failures keep errno. */
static char *write_temp(const uint8_t *buf, size_t len)
{
    char *path = strdup("/tmp/bloomsimd-corrupt-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
    close(fd);
    return path;
}

static void expect_file_status(const uint8_t *buf, size_t len, bloomsimd_status want, const char *what)
{
    test_expect_stream_status(buf, len, want, true, what);
    char *path = write_temp(buf, len);
    bloomsimd_filter *f = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_load(&f, path), want, "load %s", what);
    cr_assert_eq(f != NULL, want == BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_last_error()[0] != '\0', want != BLOOMSIMD_OK, "load %s: \"%s\"", what,
                 bloomsimd_last_error());
    bloomsimd_destroy(f);
    f = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY), want, "map %s", what);
    cr_assert_eq(f != NULL, want == BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_last_error()[0] != '\0', want != BLOOMSIMD_OK, "map %s: \"%s\"", what,
                 bloomsimd_last_error());
    bloomsimd_destroy(f);
    f = (bloomsimd_filter *)(uintptr_t)1;
    cr_assert_eq(bloomsimd_map(&f, path, BLOOMSIMD_MAP_WRITABLE | BLOOMSIMD_MAP_ACCEPT_UNSYNCED), want,
                 "writable map %s", what);
    cr_assert_eq(f != NULL, want == BLOOMSIMD_OK);
    bloomsimd_destroy(f);
    unlink(path);
    free(path);
}

Test(persist_corrupt, load_and_map_reject_what_deserialize_rejects)
{
    uint8_t *buf = valid_file();
    expect_file_status(buf, FILE_BYTES, BLOOMSIMD_OK, "valid"); /* the control: the same file intact */
    expect_file_status(buf, 0, BLOOMSIMD_ERR_CORRUPT, "empty file");
    expect_file_status(buf, 100, BLOOMSIMD_ERR_CORRUPT, "100 bytes");
    expect_file_status(buf, 4096, BLOOMSIMD_ERR_CORRUPT, "header only");
    expect_file_status(buf, FILE_BYTES - 1, BLOOMSIMD_ERR_CORRUPT, "one byte short");
    buf[4096 + 64] ^= 4;
    expect_file_status(buf, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "payload bit flip");
    buf[4096 + 64] ^= 4;
    buf[9] = 7;
    expect_file_status(buf, FILE_BYTES, BLOOMSIMD_ERR_VERSION, "version 0x701");
    free(buf);

    buf = valid_file();
    blocks_max_claimed(buf);
    bloomsimd_header_reseal(buf);
    expect_file_status(buf, 4096, BLOOMSIMD_ERR_CORRUPT, "256 GiB claimed by a 4 KiB file");
    uint8_t *zeros = calloc(1, FILE_BYTES);
    expect_file_status(zeros, FILE_BYTES, BLOOMSIMD_ERR_CORRUPT, "zero-filled file");
    free(zeros);
    free(buf);
}

Test(persist_corrupt, io_failures_keep_errno)
{
    bloomsimd_filter *f = NULL;
    errno = 0;
    cr_assert_eq(bloomsimd_load(&f, "/nonexistent-dir/none.bsf"), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, ENOENT);
    errno = 0;
    cr_assert_eq(bloomsimd_map(&f, "/nonexistent-dir/none.bsf", 0), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, ENOENT);
    errno = 0;
    cr_assert_eq(bloomsimd_load(&f, "/tmp"), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EISDIR);
    errno = 0;
    cr_assert_eq(bloomsimd_map(&f, "/tmp", 0), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EISDIR);
    errno = 0;
    cr_assert_eq(bloomsimd_load(&f, "/dev/null"), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(bloomsimd_load(NULL, "/tmp/x"), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_load(&f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_map(&f, "/tmp/x", 0x80), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_null(f);
}
