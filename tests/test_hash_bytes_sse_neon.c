/*
 * test_hash_bytes_sse_neon.c — the uniform-group paths of the sse42 and
 * neon multi-key XXH3 (kernels/xxh3_keys_sse42.h, kernels/xxh3_keys_neon.h)
 * are bit-exact with libxxhash's XXH3_64bits_withSeed and with the scalar
 * reference (kernels/xxh3_bytes.h) where tests/test_hash_bytes.c does not
 * aim:
 *
 *   - groups of 8 keys stored back to back with one width (8, 16, 32, 64,
 *     and the widths next to them, which must not take those paths) in the
 *     fixed, offsets32 and offsets64 layouts, from every first key 0..9 and
 *     for every count, so groups start anywhere in the view and end in every
 *     tail length; the entry writes nothing outside hashes[0 .. count);
 *   - offsets groups whose 8 keys span exactly 8 w bytes without all being
 *     w long (the lengths, not the span, decide);
 *   - uniform groups between runs of mixed lengths (the runs left to the
 *     per-key path are flushed in order);
 *   - uniform groups that end at an unreadable page or start right after
 *     one (a vector load outside the group's bytes faults);
 *   - views of only empty keys with no data, and the public calls over more
 *     than one internal chunk of 1024 keys.
 *
 * Runs in every kernel's pass (the checks hold for any kernel): the kernel
 * entry is called directly (the reference loop for a kernel without one).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "dispatch.h"
#include "internal.h"
#include "support.h"
#include "xxh3_bytes.h"

static const uint64_t seeds[] = {0, 1, 42, 0xffffffffu, UINT64_C(1) << 32, UINT64_C(0x0123456789abcdef), UINT64_MAX};
#define N_SEEDS (sizeof seeds / sizeof seeds[0])

static const bloomsimd_kernel *kernel;

static void pick_kernel(void)
{
    kernel = bloomsimd_kernel_by_name(test_kernel());
    cr_assert_not_null(kernel, "kernel %s", test_kernel());
    cr_assert(bloomsimd_kernel_runnable(kernel));
}

TestSuite(hash_bytes_groups, .init = pick_kernel);

enum { CANARY = 2 };
#define CANARY_WORD UINT64_C(0x5a5a5a5a5a5a5a5a)

/* Hashes keys first .. first+count-1 of v with this run's kernel entry and
 * compares each with libxxhash and with the scalar reference
 * (bloomsimd_hash_keys_reference, the scalar kernel's entry); also checks
 * the words around the output. */
static void check_range(const bloomsimd_xxh3_params *p, const bloomsimd_keys *v, size_t first, size_t count,
                        const char *what)
{
    uint64_t *buf = malloc((count + 2 * CANARY) * sizeof *buf);
    uint64_t *reference = malloc((count + 1) * sizeof *reference);
    for (size_t i = 0; i < count + 2 * CANARY; i++) buf[i] = CANARY_WORD;
    uint64_t *got = buf + CANARY;
    if (kernel->hash_keys)
        kernel->hash_keys(p, v, first, count, got);
    else
        bloomsimd_hash_keys_reference(p, v, first, count, got);
    bloomsimd_hash_keys_reference(p, v, first, count, reference);
    for (size_t i = 0; i < count; i++) {
        size_t len;
        const uint8_t *k = bloomsimd_keys_at(v, first + i, &len);
        uint64_t want = XXH3_64bits_withSeed(len ? (const void *)k : "", len, p->seed);
        if (got[i] != want || got[i] != reference[i])
            cr_assert_fail("%s: key %zu of %zu from %zu (length %zu, seed %#llx): %016llx, libxxhash %016llx, "
                           "scalar reference %016llx",
                           what, first + i, count, first, len, (unsigned long long)p->seed,
                           (unsigned long long)got[i], (unsigned long long)want, (unsigned long long)reference[i]);
    }
    free(reference);
    for (size_t i = 0; i < CANARY; i++) {
        cr_assert_eq(buf[i], CANARY_WORD, "%s: wrote before hashes[0]", what);
        cr_assert_eq(buf[CANARY + count + i], CANARY_WORD, "%s: wrote past hashes[%zu]", what, count);
    }
    free(buf);
}

static uint8_t *random_bytes(size_t n, uint64_t stream)
{
    uint8_t *b = malloc(n + 8);
    uint64_t state = stream;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = test_splitmix64(&state);
        memcpy(b + i, &r, 8);
    }
    return b;
}

/* Views of n keys with the given lengths stored back to back from data +
 * start: offsets32, offsets64 (both with offsets[0] = start, a sliced
 * array) and, if every length is w, fixed width w from data + start. */
typedef struct views {
    uint32_t *off32;
    uint64_t *off64;
    bloomsimd_keys v[3];
    size_t nviews;
} views;

static views make_views(const uint8_t *data, size_t data_len, size_t start, const size_t *lens, size_t n)
{
    views s;
    s.off32 = malloc((n + 1) * sizeof *s.off32);
    s.off64 = malloc((n + 1) * sizeof *s.off64);
    s.off32[0] = (uint32_t)start, s.off64[0] = start;
    bool fixed = n > 0;
    for (size_t i = 0; i < n; i++) {
        s.off32[i + 1] = s.off32[i] + (uint32_t)lens[i];
        s.off64[i + 1] = s.off32[i + 1];
        fixed &= lens[i] == lens[0];
    }
    cr_assert_leq(s.off64[n], data_len);
    s.v[0] = bloomsimd_keys_offsets32(data, data_len, s.off32, n);
    s.v[1] = bloomsimd_keys_offsets64(data, data_len, s.off64, n);
    s.nviews = 2;
    if (fixed) s.v[s.nviews++] = bloomsimd_keys_fixed(data + start, n * lens[0], lens[0], n);
    for (size_t i = 0; i < s.nviews; i++) cr_assert_eq(bloomsimd_keys_validate(&s.v[i]), BLOOMSIMD_OK);
    return s;
}

static void free_views(views *s) { free(s->off32), free(s->off64); }

static const char *const layout_names[] = {"offsets32", "offsets64", "fixed"};

Test(hash_bytes_groups, uniform_widths_every_layout_first_and_count)
{
    static const size_t widths[] = {8, 16, 32, 64, 7, 9, 15, 17, 24, 31, 33, 48, 63, 65};
    enum { N = 40 };
    uint8_t *data = random_bytes(N * 65 + 64, 11);
    size_t lens[N];
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_xxh3_params p;
        bloomsimd_xxh3_params_init(&p, seeds[s]);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            size_t w = widths[wi], start = (s * 7 + wi) % 16; /* every alignment mod 16 */
            for (size_t i = 0; i < N; i++) lens[i] = w;
            views vs = make_views(data, N * 65 + 64, start, lens, N);
            for (size_t l = 0; l < vs.nviews; l++)
                for (size_t first = 0; first < 10; first++)
                    for (size_t count = 0; first + count <= N; count++) {
                        char what[64];
                        snprintf(what, sizeof what, "%s, width %zu", layout_names[l], w);
                        check_range(&p, &vs.v[l], first, count, what);
                    }
            free_views(&vs);
        }
    }
    free(data);
}

Test(hash_bytes_groups, offsets_groups_spanning_8w_with_unequal_lengths_are_hashed_per_key)
{
    static const size_t widths[] = {8, 16, 32, 64};
    enum { PATTERNS = 7, N = PATTERNS * 16 };
    uint8_t *data = random_bytes(N * 64 * 2, 12);
    for (size_t wi = 0; wi < 4; wi++) {
        size_t w = widths[wi];
        /* each pattern: 8 lengths summing to 8 w, not all w, then 8 keys of width w */
        const size_t patterns[PATTERNS][8] = {
            {w - 1, w + 1, w, w, w, w, w, w},         {w, w, w, w, w, w, w - 1, w + 1},
            {w + 1, w, w, w, w, w, w, w - 1},         {0, 2 * w, w, w, w, w, w, w},
            {8 * w, 0, 0, 0, 0, 0, 0, 0},             {0, 0, 0, 0, 0, 0, 0, 8 * w},
            {w, w / 2, w + w / 2, w, w, w, w, w},
        };
        size_t lens[N];
        for (size_t g = 0; g < PATTERNS; g++)
            for (size_t j = 0; j < 8; j++) {
                lens[16 * g + j] = patterns[g][j];
                lens[16 * g + 8 + j] = w;
            }
        views vs = make_views(data, N * 64 * 2, 3, lens, N);
        for (size_t s = 0; s < N_SEEDS; s++) {
            bloomsimd_xxh3_params p;
            bloomsimd_xxh3_params_init(&p, seeds[s]);
            for (size_t l = 0; l < 2; l++)
                for (size_t first = 0; first <= 8; first++) {
                    char what[64];
                    snprintf(what, sizeof what, "%s, width %zu", layout_names[l], w);
                    check_range(&p, &vs.v[l], first, N - first, what);
                }
        }
        free_views(&vs);
    }
    free(data);
}

Test(hash_bytes_groups, uniform_groups_between_runs_of_mixed_lengths)
{
    static const size_t widths[] = {8, 16, 32, 64};
    enum { N = 800 };
    uint8_t *data = random_bytes(N * 70, 13);
    uint64_t state = 14;
    for (size_t round = 0; round < 20; round++) {
        size_t lens[N];
        for (size_t i = 0; i < N; i += 8) {
            uint64_t r = test_splitmix64(&state);
            size_t w = widths[r % 4];
            for (size_t j = 0; j < 8; j++) /* a uniform group, or 8 keys of 0..70 bytes */
                lens[i + j] = (r >> 8) % 3 ? w : (size_t)(test_splitmix64(&state) % 71);
        }
        views vs = make_views(data, N * 70, round, lens, N);
        bloomsimd_xxh3_params p;
        bloomsimd_xxh3_params_init(&p, seeds[round % N_SEEDS]);
        for (size_t l = 0; l < 2; l++) {
            size_t first = (size_t)(test_splitmix64(&state) % 16);
            check_range(&p, &vs.v[l], first, N - first - round, layout_names[l]);
            check_range(&p, &vs.v[l], 0, N, layout_names[l]);
        }
        free_views(&vs);
    }
    free(data);
}

Test(hash_bytes_groups, uniform_groups_at_unreadable_pages_are_never_over_read)
{
    static const size_t widths[] = {8, 16, 32, 64};
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map, page, PROT_NONE), 0);
    cr_assert_eq(mprotect(map + 2 * page, page, PROT_NONE), 0);
    uint8_t *lo = map + page, *hi = map + 2 * page; /* the readable page is [lo, hi) */
    for (size_t i = 0; i < page; i++) lo[i] = (uint8_t)(i * 13 + 5);
    static const size_t counts[] = {8, 16, 24, 40, 64};
    size_t lens[64];
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_xxh3_params p;
        bloomsimd_xxh3_params_init(&p, seeds[s]);
        for (size_t wi = 0; wi < 4; wi++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                size_t w = widths[wi], n = counts[ci];
                for (size_t i = 0; i < n; i++) lens[i] = w;
                /* the keys end at hi, then start at lo (views over the readable page only) */
                for (int at_start = 0; at_start < 2; at_start++) {
                    size_t start = at_start ? 0 : page - n * w;
                    views vs = make_views(lo, page, start, lens, n);
                    for (size_t l = 0; l < vs.nviews; l++)
                        for (size_t first = 0; first < 8; first++) {
                            char what[80];
                            snprintf(what, sizeof what, "%s, width %zu, keys %s a guard page", layout_names[l], w,
                                     at_start ? "after" : "before");
                            check_range(&p, &vs.v[l], first, n - first, what);
                            check_range(&p, &vs.v[l], 0, n - first, what);
                        }
                    free_views(&vs);
                }
            }
    }
    (void)hi;
    munmap(map, 3 * page);
}

Test(hash_bytes_groups, views_of_empty_keys_without_data)
{
    enum { N = 21 };
    uint32_t off32[N + 1] = {0};
    uint64_t off64[N + 1] = {0};
    bloomsimd_keys v[3] = {bloomsimd_keys_offsets32(NULL, 0, off32, N), bloomsimd_keys_offsets64(NULL, 0, off64, N),
                           bloomsimd_keys_fixed(NULL, 0, 0, N)};
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_xxh3_params p;
        bloomsimd_xxh3_params_init(&p, seeds[s]);
        for (size_t l = 0; l < 3; l++) {
            cr_assert_eq(bloomsimd_keys_validate(&v[l]), BLOOMSIMD_OK);
            for (size_t first = 0; first < 9; first++) check_range(&p, &v[l], first, N - first, "empty keys");
        }
    }
}

/* bloomsimd_hash_keys, add_keys and contains_keys hash in chunks of 1024
 * keys (src/keys.c): later chunks start mid-view. */
Test(hash_bytes_groups, public_calls_over_several_chunks_match_single_key_hashes)
{
    static const size_t widths[] = {8, 16, 32, 64};
    enum { N = 3001 };
    uint8_t *data = random_bytes(N * 64 + 64, 15);
    size_t lens[N];
    uint64_t *got = malloc(N * sizeof *got);
    uint8_t *hit = malloc(N);
    for (size_t wi = 0; wi < 4; wi++) {
        size_t w = widths[wi];
        for (size_t i = 0; i < N; i++) lens[i] = i == 1500 ? w + 1 : w; /* one odd key mid-way */
        views vs = make_views(data, N * 64 + 64, 0, lens, N);
        bloomsimd_options o = {.capacity = N, .fpr = 0.01, .seed = 77 + w};
        for (size_t l = 0; l < 2; l++) {
            bloomsimd_filter *f = test_filter(&o);
            cr_assert_eq(bloomsimd_hash_keys(f, &vs.v[l], got), BLOOMSIMD_OK);
            for (size_t i = 0; i < N; i++) {
                size_t len;
                const uint8_t *k = bloomsimd_keys_at(&vs.v[l], i, &len);
                cr_assert_eq(got[i], bloomsimd_hash(f, k, len), "%s width %zu key %zu", layout_names[l], w, i);
            }
            cr_assert_eq(bloomsimd_add_keys(f, &vs.v[l]), BLOOMSIMD_OK);
            size_t hits = 0;
            cr_assert_eq(bloomsimd_contains_keys(f, &vs.v[l], hit, &hits), BLOOMSIMD_OK);
            cr_assert_eq(hits, N, "%s width %zu: every inserted key is found", layout_names[l], w);
            bloomsimd_destroy(f);
        }
        free_views(&vs);
    }
    free(got), free(hit), free(data);
}
