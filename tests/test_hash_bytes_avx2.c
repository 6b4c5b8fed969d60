/*
 * test_hash_bytes_avx2.c — the shapes kernels/xxh3_keys_avx2.h treats
 * specially hash bit-exactly as libxxhash's XXH3_64bits_withSeed and as the
 * scalar kernel: keys of 8, 16, 32 and 64 bytes stored back to back (fixed
 * width; runs of 8-key groups of one such length in both offsets layouts and
 * in pointers into one buffer), the widths around them, runs starting and
 * ending anywhere in a batch (every `first` and `count` of the kernel's
 * multi-key call), runs between keys of other lengths, groups whose span is
 * 8 w bytes but whose lengths differ, pointers of one length that are not
 * back to back, and uniform keys that begin right after and end right
 * before an unreadable page. Runs on every kernel (through this run's kernel
 * entry; ctest runs it once per kernel, and a CPU without AVX2 skips the
 * avx2 run, saying so: tests/support.c); the avx2 kernel is the one whose
 * paths it targets.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "support.h"

static const uint64_t seeds[] = {0, 42, UINT64_C(0x0123456789abcdef), UINT64_MAX};
#define N_SEEDS (sizeof seeds / sizeof seeds[0])

static bloomsimd_filter *filter_with_seed(uint64_t seed)
{
    bloomsimd_options o = {.bits = 512, .k = 6, .seed = seed};
    return test_filter(&o);
}

static void fill_random(uint8_t *b, size_t n, uint64_t stream)
{
    uint64_t state = stream;
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)test_splitmix64(&state);
}

/* The keys of one batch in every layout: key i is data[off[i] .. off[i+1]);
 * off[0] may be nonzero (a sliced array). The pointers view points into data
 * (keys back to back, as the kernel's pointer runs look for). */
typedef struct batch {
    const uint8_t *data;
    size_t data_len;
    uint32_t *off32;
    uint64_t *off64;
    size_t n;
    size_t width; /* nonzero: every key has this length and off[i] = off[0] + i width */
} batch;

/* Key k of a view, as the reader of the layout sees it. */
static const uint8_t *key_of(const bloomsimd_keys *v, size_t k, size_t *len)
{
    const uint8_t *data = v->data;
    switch (v->layout) {
    case BLOOMSIMD_KEYS_OFFSETS32: *len = v->offsets32[k + 1] - v->offsets32[k]; return data + v->offsets32[k];
    case BLOOMSIMD_KEYS_OFFSETS64: *len = (size_t)(v->offsets64[k + 1] - v->offsets64[k]); return data + v->offsets64[k];
    case BLOOMSIMD_KEYS_FIXED: *len = v->width; return data + k * v->width;
    default: *len = v->lengths[k]; return v->pointers[k];
    }
}

/*
 * hash_range(first, count) of the view on this run's kernel against
 * libxxhash, and against the scalar kernel's (the reference) on the same
 * seed; nothing past count is written.
 */
static void check_view(bloomsimd_filter *f, bloomsimd_filter *ref, uint64_t seed, const bloomsimd_keys *v,
                       size_t first, size_t count, const char *what)
{
    uint64_t *got = malloc((count + 1) * sizeof *got), *want_ref = malloc((count + 1) * sizeof *want_ref);
    got[count] = UINT64_C(0x5a5a5a5a5a5a5a5a);
    bloomsimd_keys_hash_range(f, v, first, count, got);
    bloomsimd_keys_hash_range(ref, v, first, count, want_ref);
    cr_assert_eq(got[count], UINT64_C(0x5a5a5a5a5a5a5a5a), "%s: wrote past count %zu", what, count);
    for (size_t i = 0; i < count; i++) {
        size_t k = first + i, len;
        const uint8_t *key = key_of(v, k, &len);
        uint64_t want = XXH3_64bits_withSeed(len ? (const void *)key : "", len, seed);
        if (got[i] != want || want_ref[i] != want)
            cr_assert_fail("%s: key %zu of first %zu count %zu (length %zu, seed %#llx): %016llx, scalar kernel "
                           "%016llx, libxxhash %016llx",
                           what, k, first, count, len, (unsigned long long)seed, (unsigned long long)got[i],
                           (unsigned long long)want_ref[i], (unsigned long long)want);
    }
    free(want_ref), free(got);
}

/* The same kernel's filter and the scalar kernel's, on one seed. */
typedef struct filters {
    bloomsimd_filter *f, *ref;
    uint64_t seed;
} filters;

static filters filters_with_seed(uint64_t seed)
{
    bloomsimd_options scalar = {.bits = 512, .k = 6, .seed = seed, .kernel = "scalar"};
    filters fs = {filter_with_seed(seed), test_filter(&scalar), seed};
    return fs;
}

static void filters_destroy(filters *fs) { bloomsimd_destroy(fs->f), bloomsimd_destroy(fs->ref); }

/* Every layout the batch has, for one (first, count). */
static void check_layouts(const filters *fs, const batch *b, size_t first, size_t count)
{
    bloomsimd_keys v32 = bloomsimd_keys_offsets32(b->data, b->data_len, b->off32, b->n);
    bloomsimd_keys v64 = bloomsimd_keys_offsets64(b->data, b->data_len, b->off64, b->n);
    check_view(fs->f, fs->ref, fs->seed, &v32, first, count, "offsets32");
    check_view(fs->f, fs->ref, fs->seed, &v64, first, count, "offsets64");
    if (b->width) {
        bloomsimd_keys vf = bloomsimd_keys_fixed(b->data + b->off32[0], b->n * b->width, b->width, b->n);
        check_view(fs->f, fs->ref, fs->seed, &vf, first, count, "fixed");
    }
    const void **ptrs = malloc((b->n + 1) * sizeof *ptrs);
    size_t *lens = malloc((b->n + 1) * sizeof *lens);
    for (size_t i = 0; i < b->n; i++) ptrs[i] = b->data + b->off32[i], lens[i] = b->off32[i + 1] - b->off32[i];
    bloomsimd_keys vp = bloomsimd_keys_pointers(ptrs, lens, b->n);
    check_view(fs->f, fs->ref, fs->seed, &vp, first, count, "pointers");
    free(lens), free(ptrs);
}

/* off[] from lengths; off64 mirrors off32. */
static void set_lengths(batch *b, size_t start, const size_t *lens, size_t n)
{
    b->off32[0] = (uint32_t)start;
    for (size_t i = 0; i < n; i++) b->off32[i + 1] = b->off32[i] + (uint32_t)lens[i];
    for (size_t i = 0; i <= n; i++) b->off64[i] = b->off32[i];
    b->n = n;
}

Test(hash_bytes_avx2, uniform_widths_every_first_and_count_every_layout)
{
    static const size_t widths[] = {8, 16, 32, 64, 1, 4, 7, 9, 12, 15, 17, 24, 31, 33, 48, 63, 65, 128};
    enum { N = 150 };
    uint8_t *data = malloc(N * 128 + 16);
    fill_random(data, N * 128 + 16, 1);
    uint32_t off32[N + 1];
    uint64_t off64[N + 1];
    size_t lens[N];
    for (size_t s = 0; s < N_SEEDS; s++) {
        filters fs = filters_with_seed(seeds[s]);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            size_t w = widths[wi];
            for (size_t i = 0; i < N; i++) lens[i] = w;
            batch b = {data, N * 128 + 16, off32, off64, N, w};
            set_lengths(&b, 3 + s, lens, N); /* keys at odd addresses */
            for (size_t first = 0; first < 14; first++) {
                for (size_t count = 0; count <= 40 && first + count <= N; count++)
                    check_layouts(&fs, &b, first, count);
                check_layouts(&fs, &b, first, N - first);
            }
        }
        filters_destroy(&fs);
    }
    free(data);
}

Test(hash_bytes_avx2, runs_of_one_width_between_other_lengths)
{
    enum { N = 4000 };
    uint8_t *data = malloc(N * 80 + 64);
    fill_random(data, N * 80 + 64, 2);
    uint32_t *off32 = malloc((N + 1) * sizeof *off32);
    uint64_t *off64 = malloc((N + 1) * sizeof *off64);
    size_t *lens = malloc(N * sizeof *lens);
    uint64_t state = 3;
    static const size_t vector_widths[] = {8, 16, 32, 64, 12, 24, 36};
    for (size_t s = 0; s < N_SEEDS; s++) {
        /* segments of 1..40 keys: one run width (most), one other length,
         * or random lengths 0..80 */
        for (size_t i = 0; i < N;) {
            uint64_t r = test_splitmix64(&state);
            size_t run = 1 + (size_t)(r % 40), kind = (size_t)(r >> 8) % 9;
            size_t w = kind < 7 ? vector_widths[kind] : kind == 7 ? 1 + (size_t)(r >> 16) % 80 : 0;
            for (size_t j = 0; j < run && i < N; j++, i++) lens[i] = w ? w : (size_t)(test_splitmix64(&state) % 81);
        }
        batch b = {data, N * 80 + 64, off32, off64, N, 0};
        set_lengths(&b, s, lens, N);
        filters fs = filters_with_seed(seeds[s]);
        for (size_t first = 0; first < 9; first++) check_layouts(&fs, &b, first, N - first);
        for (size_t first = 0; first + 100 <= N; first += 97) check_layouts(&fs, &b, first, 100);
        filters_destroy(&fs);
    }
    free(lens), free(off64), free(off32), free(data);
}

Test(hash_bytes_avx2, groups_spanning_8w_bytes_with_other_lengths)
{
    /* each row: 8 lengths summing to 8 w for a vector width w, not all w;
     * the batch repeats a row, then 8 keys of w, then the row again, so a
     * group of the row can follow or precede a run of w */
    static const size_t rows[][8] = {
        {4, 12, 8, 8, 8, 8, 8, 8},          {8, 8, 8, 8, 8, 8, 0, 16},     {16, 16, 16, 16, 16, 16, 15, 17},
        {0, 32, 16, 16, 16, 16, 16, 16},    {32, 32, 32, 32, 31, 33, 32, 32}, {0, 64, 32, 32, 32, 32, 32, 32},
        {64, 64, 64, 64, 64, 64, 1, 127},   {0, 0, 0, 0, 0, 0, 0, 512},    {64, 0, 64, 64, 64, 64, 64, 128},
    };
    enum { N = 8 * 7 };
    uint8_t *data = malloc(N * 128);
    fill_random(data, N * 128, 4);
    uint32_t off32[N + 1];
    uint64_t off64[N + 1];
    size_t lens[N];
    for (size_t s = 0; s < N_SEEDS; s++) {
        filters fs = filters_with_seed(seeds[s]);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            size_t sum = 0;
            for (size_t j = 0; j < 8; j++) sum += rows[r][j];
            size_t w = sum / 8, n = 0;
            for (size_t rep = 0; rep < 7; rep++)
                for (size_t j = 0; j < 8; j++) lens[n++] = rep == 2 || rep == 5 ? w : rows[r][j];
            batch b = {data, N * 128, off32, off64, N, 0};
            set_lengths(&b, 1, lens, N);
            for (size_t first = 0; first < 9; first++) check_layouts(&fs, &b, first, N - first);
        }
        filters_destroy(&fs);
    }
    free(data);
}

Test(hash_bytes_avx2, uniform_keys_next_to_unreadable_pages)
{
    /* [guard][page][guard]: n keys of width w end at the page's last byte,
     * or start at its first byte; any read outside them faults */
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map, (size_t)page, PROT_NONE), 0);
    cr_assert_eq(mprotect(map + 2 * page, (size_t)page, PROT_NONE), 0);
    uint8_t *lo = map + page, *hi = map + 2 * page;
    fill_random(lo, (size_t)page, 5);
    static const size_t widths[] = {7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 36, 48, 63, 64, 65};
    enum { MAXN = 40 };
    uint32_t off32[MAXN + 1];
    uint64_t off64[MAXN + 1];
    size_t lens[MAXN];
    for (size_t s = 0; s < N_SEEDS; s++) {
        filters fs = filters_with_seed(seeds[s]);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            size_t w = widths[wi];
            for (size_t i = 0; i < MAXN; i++) lens[i] = w;
            for (size_t n = 1; n <= MAXN; n++) {
                /* ending at the guard page above, then starting at the page's first byte */
                batch end = {hi - n * w, n * w, off32, off64, n, w};
                set_lengths(&end, 0, lens, n);
                for (size_t first = 0; first < n && first < 9; first++)
                    check_layouts(&fs, &end, first, n - first);
                batch start = {lo, n * w, off32, off64, n, w};
                set_lengths(&start, 0, lens, n);
                for (size_t first = 0; first < n && first < 9; first++)
                    check_layouts(&fs, &start, first, n - first);
            }
        }
        filters_destroy(&fs);
    }
    munmap(map, 3 * (size_t)page);
}

Test(hash_bytes_avx2, pointers_of_one_width_not_back_to_back)
{
    /* keys of one width hashed in runs whose pointers are not key i at base + i w:
     * one key moved by a byte, order reversed, every pointer on one key,
     * gaps of one key, a shorter length among equal addresses; each
     * disturbance at every position of a 24-key batch */
    enum { N = 24, KINDS = 5 };
    static const size_t widths[] = {8, 12, 16, 24, 32, 36, 64};
    uint8_t *data = malloc(3 * N * 64 + 1);
    fill_random(data, 3 * N * 64 + 1, 6);
    const void *ptrs[N];
    size_t lens[N];
    for (size_t s = 0; s < N_SEEDS; s++) {
        filters fs = filters_with_seed(seeds[s]);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            size_t w = widths[wi];
            for (size_t kind = 0; kind < KINDS; kind++)
                for (size_t at = 0; at < N; at++) {
                    for (size_t i = 0; i < N; i++) ptrs[i] = data + i * w, lens[i] = w;
                    if (kind == 0) ptrs[at] = data + at * w + 1;
                    if (kind == 1) ptrs[at] = data + (N - 1 - at) * w, ptrs[N - 1 - at] = data + at * w;
                    if (kind == 2) ptrs[at] = data;
                    if (kind == 3)
                        for (size_t i = at; i < N; i++) ptrs[i] = data + (i + 1) * w;
                    if (kind == 4) lens[at] = w - 1;
                    bloomsimd_keys vp = bloomsimd_keys_pointers(ptrs, lens, N);
                    for (size_t first = 0; first < 9; first++)
                        check_view(fs.f, fs.ref, fs.seed, &vp, first, N - first, "pointers");
                }
        }
        filters_destroy(&fs);
    }
    free(data);
}
