/*
 * test_hash_bytes.c — this run's kernel hashes byte keys bit-exactly as
 * libxxhash's XXH3_64bits_withSeed: every length 0..512 and random lengths
 * up to 64 KiB, several seeds, every alignment, mixed lengths in one batch
 * (the SIMD kernels group keys by length class), in every key layout, and
 * keys that end exactly at a page followed by an unreadable page (a read
 * past a key's end faults).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "support.h"

static const uint64_t seeds[] = {0, 1, 42, 0xffffffffu, UINT64_C(1) << 32, UINT64_C(0x0123456789abcdef), UINT64_MAX};
#define N_SEEDS (sizeof seeds / sizeof seeds[0])

static bloomsimd_filter *filter_with_seed(uint64_t seed)
{
    bloomsimd_options o = {.bits = 512, .k = 6, .seed = seed};
    return test_filter(&o);
}

static uint8_t *random_bytes(size_t n, uint64_t stream)
{
    uint8_t *b = malloc(n + 64);
    uint64_t state = stream;
    for (size_t i = 0; i < n + 64; i += 8) {
        uint64_t r = test_splitmix64(&state);
        memcpy(b + i, &r, 8);
    }
    return b;
}

/* Hashes the pointer view and compares every key with libxxhash. */
static void check_pointers(bloomsimd_filter *f, uint64_t seed, const void *const *keys, const size_t *lens, size_t n,
                           const char *what)
{
    uint64_t *got = malloc((n + 1) * sizeof *got);
    bloomsimd_keys v = bloomsimd_keys_pointers(keys, lens, n);
    cr_assert_eq(bloomsimd_hash_keys(f, &v, got), BLOOMSIMD_OK);
    for (size_t i = 0; i < n; i++) {
        uint64_t want = XXH3_64bits_withSeed(lens[i] ? keys[i] : "", lens[i], seed);
        if (got[i] != want)
            cr_assert_fail("%s: key %zu (length %zu, seed %#llx): %016llx, libxxhash %016llx", what, i, lens[i],
                           (unsigned long long)seed, (unsigned long long)got[i], (unsigned long long)want);
    }
    free(got);
}

Test(hash_bytes, every_length_0_to_512_every_seed_and_alignment)
{
    uint8_t *buf = random_bytes(600, 1);
    const void *keys[513 * 8];
    size_t lens[513 * 8];
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s]);
        size_t n = 0;
        for (size_t len = 0; len <= 512; len++)
            for (size_t align = 0; align < 8; align++) {
                keys[n] = buf + align + (len % 37);
                lens[n++] = len;
            }
        check_pointers(f, seeds[s], keys, lens, n, "lengths 0..512");
        bloomsimd_destroy(f);
    }
    free(buf);
}

Test(hash_bytes, random_lengths_up_to_64_KiB_mixed_in_one_batch)
{
    enum { N = 3000, MAX = 65536 };
    uint8_t *buf = random_bytes(MAX + 64, 2);
    const void *keys[N];
    size_t lens[N];
    uint64_t state = 3;
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s]);
        for (size_t i = 0; i < N; i++) {
            uint64_t r = test_splitmix64(&state);
            /* mostly short and mid keys, every class interleaved, some long */
            size_t len = (r & 7) == 0 ? (size_t)(r >> 8) % MAX : (size_t)(r >> 8) % 260;
            keys[i] = buf + (r >> 40) % 64;
            lens[i] = len;
        }
        check_pointers(f, seeds[s], keys, lens, N, "random lengths");
        bloomsimd_destroy(f);
    }
    free(buf);
}

Test(hash_bytes, keys_ending_at_an_unreadable_page_are_never_over_read)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    uint8_t *end = map + page;
    for (long i = 0; i < page; i++) map[i] = (uint8_t)(i * 7 + 1);
    /* every length 0..300 ending at the guard page, and keys starting at the
     * page's first byte (nothing before them is read either: the mapping
     * starts there) */
    enum { N = 602 };
    const void *keys[N];
    size_t lens[N];
    for (size_t len = 0; len <= 300; len++) {
        keys[2 * len] = end - len;
        lens[2 * len] = len;
        keys[2 * len + 1] = map;
        lens[2 * len + 1] = len;
    }
    for (size_t s = 0; s < N_SEEDS; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s]);
        check_pointers(f, seeds[s], keys, lens, N, "at a page end");
        /* the same keys as one Arrow array ending at the guard page */
        uint32_t offsets[302];
        for (size_t i = 0; i <= 301; i++) offsets[i] = (uint32_t)(page - 301 + i) - (uint32_t)(page - 301);
        uint64_t got[301];
        bloomsimd_keys v = bloomsimd_keys_offsets32(end - 301, 301, offsets, 301);
        cr_assert_eq(bloomsimd_hash_keys(f, &v, got), BLOOMSIMD_OK);
        for (size_t i = 0; i < 301; i++) cr_assert_eq(got[i], XXH3_64bits_withSeed(end - 301 + i, 1, seeds[s]));
        /* and as fixed-width keys of every width that ends at the page */
        for (size_t width = 1; width <= 64; width++) {
            size_t n = 200 / width + 1;
            const uint8_t *data = end - n * width;
            uint64_t h[201];
            bloomsimd_keys fv = bloomsimd_keys_fixed(data, n * width, width, n);
            cr_assert_eq(bloomsimd_hash_keys(f, &fv, h), BLOOMSIMD_OK);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(h[i], XXH3_64bits_withSeed(data + i * width, width, seeds[s]), "width %zu key %zu",
                             width, i);
        }
        bloomsimd_destroy(f);
    }
    munmap(map, 2 * (size_t)page);
}

/*
 * Keys of one width stored back to back (fixed width, an Arrow array of
 * equal lengths, pointers into one buffer) take the SIMD kernels' load-and-
 * transpose path for widths 8, 16, 32 and 64; everything else takes the
 * per-class path. Every such width and its neighbours, ending at an
 * unreadable page (the plain loads read exactly the group's bytes), in
 * every layout; and groups that span exactly 8 w bytes without being
 * uniform (lengths w - 1 and w + 1 side by side), or are uniform but not
 * adjacent (pointers with a gap, lines with a separator), which must not
 * take that path.
 */
static void check_view(bloomsimd_filter *f, uint64_t seed, const bloomsimd_keys *v, const uint8_t *const *key,
                       const size_t *len, size_t n, const char *what, size_t width)
{
    uint64_t got[80];
    cr_assert_eq(bloomsimd_hash_keys(f, v, got), BLOOMSIMD_OK);
    for (size_t i = 0; i < n; i++)
        if (got[i] != XXH3_64bits_withSeed(key[i], len[i], seed))
            cr_assert_fail("%s, width %zu, seed %#llx: key %zu (length %zu) differs from libxxhash", what, width,
                           (unsigned long long)seed, i, len[i]);
}

Test(hash_bytes, adjacent_keys_of_one_width_at_a_page_end_in_every_layout)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    for (long i = 0; i < page; i++) map[i] = (uint8_t)(i * 13 + 5);
    uint8_t *end = map + page;
    static const size_t widths[] = {7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};
    enum { N = 8 * 5 + 3 }; /* five full groups and a partial one */
    for (size_t s = 0; s < 3; s++) {
        bloomsimd_filter *f = filter_with_seed(seeds[s * 3]);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            const size_t w = widths[wi];
            const uint8_t *data = end - N * w;
            const uint8_t *key[N];
            size_t len[N];
            uint32_t off32[N + 1];
            uint64_t off64[N + 1];
            for (size_t i = 0; i < N; i++) key[i] = data + i * w, len[i] = w;
            for (size_t i = 0; i <= N; i++) off32[i] = (uint32_t)(i * w), off64[i] = i * w;
            bloomsimd_keys fixed = bloomsimd_keys_fixed(data, N * w, w, N);
            bloomsimd_keys o32 = bloomsimd_keys_offsets32(data, N * w, off32, N);
            bloomsimd_keys o64 = bloomsimd_keys_offsets64(data, N * w, off64, N);
            bloomsimd_keys ptr = bloomsimd_keys_pointers((const void *const *)key, len, N);
            check_view(f, seeds[s * 3], &fixed, key, len, N, "fixed", w);
            check_view(f, seeds[s * 3], &o32, key, len, N, "offsets32", w);
            check_view(f, seeds[s * 3], &o64, key, len, N, "offsets64", w);
            check_view(f, seeds[s * 3], &ptr, key, len, N, "pointers into one buffer", w);
            /* group 2 spans 8 w bytes but holds a (w - 1, w + 1) pair */
            len[17] = w - 1, len[18] = w + 1, key[18] = key[17] + w - 1;
            off32[18] = (uint32_t)(off32[17] + w - 1), off64[18] = off32[18];
            check_view(f, seeds[s * 3], &o32, key, len, N, "offsets32, an uneven pair", w);
            check_view(f, seeds[s * 3], &o64, key, len, N, "offsets64, an uneven pair", w);
            check_view(f, seeds[s * 3], &ptr, key, len, N, "pointers, an uneven pair", w);
            /* group 3 uniform but with a gap: keys 24..31 start one byte later */
            len[17] = w, len[18] = w, key[18] = key[17] + w;
            const uint8_t *moved = map;
            for (size_t i = 24; i < 32; i++) key[i] = moved + 1 + (i - 24) * w;
            key[28] = moved + 2 + 4 * w; /* not adjacent to key 27 */
            check_view(f, seeds[s * 3], &ptr, key, len, N, "pointers with a gap", w);
            /* lines of one width: a separator byte between keys, the last one ending at the page */
            for (size_t i = 0; i < N; i++) key[i] = end - (N - i) * (w + 1) + 1;
            check_view(f, seeds[s * 3], &ptr, key, len, N, "lines of one width", w);
        }
        bloomsimd_destroy(f);
    }
    munmap(map, 2 * (size_t)page);
}

Test(hash_bytes, every_layout_hashes_the_same_keys_the_same)
{
    enum { N = 5000 };
    uint8_t *data = random_bytes(N * 80, 4);
    uint32_t off32[N + 1];
    uint64_t off64[N + 1];
    const void *ptrs[N];
    size_t lens[N];
    uint64_t state = 5;
    off32[0] = 7, off64[0] = 7; /* a sliced array: the first key starts at 7 */
    for (size_t i = 0; i < N; i++) {
        size_t len = (size_t)(test_splitmix64(&state) % 70);
        off32[i + 1] = off32[i] + (uint32_t)len;
        off64[i + 1] = off32[i + 1];
        ptrs[i] = data + off32[i];
        lens[i] = len;
    }
    bloomsimd_filter *f = filter_with_seed(99);
    uint64_t *a = malloc(N * 8), *b = malloc(N * 8), *c = malloc(N * 8);
    bloomsimd_keys va = bloomsimd_keys_offsets32(data, off32[N], off32, N);
    bloomsimd_keys vb = bloomsimd_keys_offsets64(data, off64[N], off64, N);
    bloomsimd_keys vc = bloomsimd_keys_pointers(ptrs, lens, N);
    cr_assert_eq(bloomsimd_hash_keys(f, &va, a), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_hash_keys(f, &vb, b), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_hash_keys(f, &vc, c), BLOOMSIMD_OK);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(a[i], XXH3_64bits_withSeed(ptrs[i], lens[i], 99), "key %zu", i);
        cr_assert_eq(b[i], a[i]);
        cr_assert_eq(c[i], a[i]);
        cr_assert_eq(bloomsimd_hash(f, ptrs[i], lens[i]), a[i], "single-key hash");
    }
    free(a), free(b), free(c), free(data);
    bloomsimd_destroy(f);
}
