/*
 * test_probe_constants.c — bloomsimd_get_probe gives a binding everything its
 * single-key probe needs, for XXH3 and mum filters alike:
 *
 *   - the constants are kernels/layout.h's (salts, XXH3's bitflip, mum's a
 *     and b of the filter's seed), and the view is bloomsimd_get_view's;
 *   - a probe written from the view and the constants alone (as a binding
 *     writes it) answers as bloomsimd_contains_u64 on many keys, for both
 *     hashes, both layouts, plain and concurrent, and its inserts are the
 *     library's bytes;
 *   - tests/fixtures/hash_vectors.txt (every binding's tests read it) is what
 *     the library computes: the XXH3 rows also equal libxxhash, and each probe
 *     row's key sets exactly the row's bits in the row's block;
 *   - NULL arguments, layered and Parquet filters are refused with outputs
 *     untouched, and bloomsimd_get_view still refuses mum filters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "layout.h"
#include "support.h"

static const uint32_t layouts[2] = {BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_LAYOUT_SPLIT256};
static const uint32_t hashes[2] = {BLOOMSIMD_U64_XXH3, BLOOMSIMD_U64_MUM};

/* The probe a binding writes from bloomsimd_get_probe's outputs alone:
 * include/bloomsimd.h's recipe, with nothing of kernels/layout.h. */
static uint64_t binding_hash(const bloomsimd_probe_constants *c, uint64_t key)
{
    uint64_t h;
    if (c->hash == BLOOMSIMD_U64_MUM) {
        __extension__ unsigned __int128 p =
            (unsigned __int128)(key ^ c->mum_a) * (__builtin_bswap64(key) ^ c->mum_b);
        h = ((uint64_t)p ^ (uint64_t)(p >> 64)) * UINT64_C(0x9E3779B97F4A7C15);
        return h ^ (h >> 32);
    }
    h = ((key << 32) | (key >> 32)) ^ c->xxh3_bitflip;
    h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40));
    h *= UINT64_C(0x9FB21C651E98DF25);
    h ^= (h >> 35) + 8u;
    h *= UINT64_C(0x9FB21C651E98DF25);
    return h ^ (h >> 28);
}

/* The key's block (returned) and its word masks (words not set are 0). */
static uint32_t *binding_probe(const bloomsimd_view *v, const bloomsimd_probe_constants *c, uint64_t key,
                               uint32_t mask[16], unsigned *words)
{
    uint64_t h = binding_hash(c, key);
    uint32_t lo = (uint32_t)h;
    *words = v->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 8 : 16;
    uint16_t select = v->layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 0xFFu : v->select[lo >> 26];
    for (unsigned w = 0; w < 16; w++) mask[w] = (select >> w & 1u) ? 1u << ((lo * c->salts[w]) >> 27) : 0;
    return (uint32_t *)v->blocks + (((h >> 32) * v->nblocks) >> 32) * *words;
}

static bool binding_contains(const bloomsimd_view *v, const bloomsimd_probe_constants *c, uint64_t key)
{
    uint32_t mask[16];
    unsigned words;
    const uint32_t *b = binding_probe(v, c, key, mask, &words);
    uint32_t missing = 0;
    for (unsigned w = 0; w < words; w++) missing |= mask[w] & ~__atomic_load_n(&b[w], __ATOMIC_RELAXED);
    return missing == 0;
}

static void binding_add(const bloomsimd_view *v, const bloomsimd_probe_constants *c, uint64_t key)
{
    uint32_t mask[16];
    unsigned words;
    uint32_t *b = binding_probe(v, c, key, mask, &words);
    uint64_t *b64 = (uint64_t *)(void *)b;
    for (unsigned i = 0; i < words / 2; i++) {
        uint64_t m = (uint64_t)mask[2 * i] | (uint64_t)mask[2 * i + 1] << 32;
        if (v->concurrent)
            __atomic_fetch_or(&b64[i], m, __ATOMIC_RELAXED);
        else
            b64[i] |= m;
    }
}

static bloomsimd_filter *make(uint32_t layout, uint32_t hash, uint32_t flags, uint64_t seed, uint64_t capacity)
{
    bloomsimd_options o = {.capacity = capacity, .fpr = 0.01, .layout = layout, .seed = seed, .flags = hash | flags};
    return test_filter(&o);
}

static void get_probe(const bloomsimd_filter *f, bloomsimd_view *v, bloomsimd_probe_constants *c)
{
    bloomsimd_status s = bloomsimd_get_probe(f, v, c);
    cr_assert_eq(s, BLOOMSIMD_OK, "%s (%s)", bloomsimd_status_string(s), bloomsimd_last_error());
}

Test(probe_constants, equal_the_layout_constants_of_the_seed_and_hash)
{
    static const uint32_t salts[16] = BLOOMSIMD_SALTS;
    const uint64_t seeds[] = {0, 1, 42, UINT64_MAX, UINT64_C(0x8000000000000000), UINT64_C(0xDEADBEEFCAFEF00D)};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (int l = 0; l < 2; l++)
            for (int hi = 0; hi < 2; hi++) {
                bloomsimd_filter *f = make(layouts[l], hashes[hi], 0, seeds[s], 1000);
                bloomsimd_view v;
                bloomsimd_probe_constants c;
                get_probe(f, &v, &c);
                cr_assert_eq(c.hash, hashes[hi]);
                cr_assert_eq(memcmp(c.salts, salts, sizeof salts), 0, "layout %u", layouts[l]);
                cr_assert_eq(c.xxh3_bitflip, bloomsimd_xxh3_bitflip(seeds[s]));
                const bool mum = hashes[hi] == BLOOMSIMD_U64_MUM;
                cr_assert_eq(c.mum_a, mum ? bloomsimd_mum_word(seeds[s], BLOOMSIMD_MUM_SALT_A) : 0);
                cr_assert_eq(c.mum_b, mum ? bloomsimd_mum_word(seeds[s], BLOOMSIMD_MUM_SALT_B) : 0);
                /* the hash the constants describe is the filter's (info.flags names it too) */
                bloomsimd_info info;
                bloomsimd_get_info(f, &info);
                cr_assert(info.flags & c.hash);
                bloomsimd_destroy(f);
            }
}

Test(probe_constants, default_filter_is_xxh3)
{
    bloomsimd_filter *f = make(0, 0, 0, 9, 1000);
    bloomsimd_view v;
    bloomsimd_probe_constants c;
    get_probe(f, &v, &c);
    cr_assert_eq(c.hash, BLOOMSIMD_U64_XXH3);
    cr_assert_eq(c.mum_a | c.mum_b, 0);
    bloomsimd_destroy(f);
}

Test(probe_constants, view_is_get_views_for_xxh3_filters)
{
    for (int l = 0; l < 2; l++)
        for (uint32_t flags = 0; flags <= BLOOMSIMD_CONCURRENT; flags++) {
            bloomsimd_filter *f = make(layouts[l], BLOOMSIMD_U64_XXH3, flags, 5, 5000);
            bloomsimd_view a, b;
            bloomsimd_probe_constants c;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            cr_assert_eq(bloomsimd_get_view(f, &a), BLOOMSIMD_OK);
            get_probe(f, &b, &c);
            cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "layout %u flags %u", layouts[l], flags);
            bloomsimd_destroy(f);
        }
}

/* The view of a mum filter describes its bit array as for XXH3. */
Test(probe_constants, mum_view_fields_match_the_filter)
{
    for (int l = 0; l < 2; l++) {
        bloomsimd_filter *f = make(layouts[l], BLOOMSIMD_U64_MUM, BLOOMSIMD_CONCURRENT, 77, 20000);
        bloomsimd_info info;
        bloomsimd_view v;
        bloomsimd_probe_constants c;
        bloomsimd_get_info(f, &info);
        get_probe(f, &v, &c);
        cr_assert_eq(v.nblocks, info.blocks);
        cr_assert_eq(v.k, info.k);
        cr_assert_eq(v.seed, 77);
        cr_assert_eq(v.layout, layouts[l]);
        cr_assert(v.concurrent && !v.read_only);
        cr_assert_eq((uintptr_t)v.blocks % 64, 0);
        cr_assert_eq(v.select == NULL, layouts[l] == BLOOMSIMD_LAYOUT_SPLIT256);
        /* items: the counter add_new* increments */
        bool was_new;
        cr_assert_eq(bloomsimd_add_new_u64(f, 1234, &was_new), BLOOMSIMD_OK);
        cr_assert(was_new);
        cr_assert_eq(*v.items, 1);
        bloomsimd_destroy(f);
    }
}

/* Both hashes, both layouts, plain and concurrent: the binding's probe and
 * the library agree on every key, present or absent, and inserts through
 * the view give the library's bytes. */
Test(probe_constants, binding_probe_answers_as_the_library)
{
    enum { N = 20000 };
    uint64_t *keys = test_keys(2 * N, 11);
    for (int l = 0; l < 2; l++)
        for (int hi = 0; hi < 2; hi++)
            for (uint32_t flags = 0; flags <= BLOOMSIMD_CONCURRENT; flags++) {
                bloomsimd_filter *f = make(layouts[l], hashes[hi], flags, 31337, N);
                bloomsimd_filter *g = make(layouts[l], hashes[hi], flags, 31337, N);
                bloomsimd_view v, w;
                bloomsimd_probe_constants c, d;
                get_probe(f, &v, &c);
                get_probe(g, &w, &d);
                cr_assert_eq(bloomsimd_add_batch_u64(f, keys, N / 2), BLOOMSIMD_OK);
                for (size_t i = N / 2; i < N; i++) binding_add(&v, &c, keys[i]);
                size_t agree = 0, hits = 0;
                for (size_t i = 0; i < 2 * N; i++) {
                    bool lib = (bloomsimd_contains_u64)(f, keys[i]);
                    bool mine = binding_contains(&v, &c, keys[i]);
                    cr_assert_eq(mine, lib, "layout %u hash %u flags %u key %zu", layouts[l], hashes[hi], flags, i);
                    if (i < N) cr_assert(lib, "a key inserted is missing: %zu", i);
                    agree++;
                    hits += lib;
                }
                cr_assert_eq(agree, 2 * N);
                cr_assert_lt(hits, N + N / 20, "absent keys: %zu hits beyond the model", hits - N);
                /* the same keys by the library alone: the same bytes */
                cr_assert_eq(bloomsimd_add_batch_u64(g, keys, N), BLOOMSIMD_OK);
                cr_assert_eq(memcmp(v.blocks, w.blocks, v.nblocks * test_block_bits(v.layout) / 8), 0,
                             "layout %u hash %u flags %u", layouts[l], hashes[hi], flags);
                /* and the hash the constants give is the library's hash of the key */
                for (size_t i = 0; i < 1000; i++) {
                    uint64_t h;
                    bloomsimd_hash_batch_u64(f, &keys[i], 1, &h);
                    cr_assert_eq(binding_hash(&c, keys[i]), h);
                }
                bloomsimd_destroy(f);
                bloomsimd_destroy(g);
            }
    free(keys);
}

/* Saved and mapped read-only, a mum filter keeps its constants. */
Test(probe_constants, mapped_mum_filter_keeps_its_constants)
{
    bloomsimd_filter *f = make(BLOOMSIMD_LAYOUT_BLOCK512, BLOOMSIMD_U64_MUM, 0, 4242, 1000);
    cr_assert_eq(bloomsimd_add_u64(f, 99), BLOOMSIMD_OK);
    char path[] = "/tmp/bloomsimd-probe-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *m;
    cr_assert_eq(bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    bloomsimd_view v, mv;
    bloomsimd_probe_constants c, mc;
    get_probe(f, &v, &c);
    get_probe(m, &mv, &mc);
    cr_assert_eq(memcmp(&c, &mc, sizeof c), 0);
    cr_assert(mv.read_only && !v.read_only);
    cr_assert(binding_contains(&mv, &mc, 99));
    bloomsimd_destroy(m);
    unlink(path);
    bloomsimd_destroy(f);
}

Test(probe_constants, refused_filters_and_null_arguments_leave_outputs_untouched)
{
    bloomsimd_view v, v0;
    bloomsimd_probe_constants c, c0;
    memset(&v, 0xa5, sizeof v);
    memset(&c, 0x5a, sizeof c);
    v0 = v;
    c0 = c;
    bloomsimd_filter *f = make(0, BLOOMSIMD_U64_MUM, 0, 1, 1000);
    cr_assert_eq(bloomsimd_get_probe(NULL, &v, &c), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_get_probe(f, NULL, &c), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_get_probe(f, &v, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_neq(strstr(bloomsimd_last_error(), "constants"), NULL, "%s", bloomsimd_last_error());
    cr_assert_eq(memcmp(&v, &v0, sizeof v), 0);
    cr_assert_eq(memcmp(&c, &c0, sizeof c), 0);
    bloomsimd_destroy(f);

    bloomsimd_options layered[] = {
        {.capacity = 1000, .fpr = 0.01, .growth = 2, .flags = BLOOMSIMD_U64_MUM},
        {.capacity = 1000, .fpr = 0.01, .generations = 3, .flags = BLOOMSIMD_U64_MUM},
        {.capacity = 1000, .fpr = 0.01, .growth = 2},
        {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET},
    };
    for (size_t i = 0; i < sizeof layered / sizeof layered[0]; i++) {
        f = test_filter(&layered[i]);
        cr_assert_eq(bloomsimd_get_probe(f, &v, &c), BLOOMSIMD_ERR_INVALID_ARGUMENT, "options %zu", i);
        cr_assert_neq(bloomsimd_last_error()[0], '\0');
        cr_assert_eq(memcmp(&v, &v0, sizeof v), 0, "options %zu", i);
        cr_assert_eq(memcmp(&c, &c0, sizeof c), 0, "options %zu", i);
        bloomsimd_destroy(f);
    }
}

/* A program written against bloomsimd_get_view probes with XXH3: it must
 * never get a view of a mum filter (it calls the library instead). */
Test(probe_constants, get_view_still_refuses_mum_filters)
{
    for (int l = 0; l < 2; l++) {
        bloomsimd_filter *f = make(layouts[l], BLOOMSIMD_U64_MUM, 0, 3, 1000);
        bloomsimd_view v, v0;
        memset(&v, 0xa5, sizeof v);
        v0 = v;
        cr_assert_eq(bloomsimd_get_view(f, &v), BLOOMSIMD_ERR_INVALID_ARGUMENT);
        cr_assert_eq(memcmp(&v, &v0, sizeof v), 0);
        cr_assert_neq(strstr(bloomsimd_last_error(), "bloomsimd_get_probe"), NULL, "%s", bloomsimd_last_error());
        bloomsimd_destroy(f);
    }
}

static uint32_t hash_flag(unsigned id)
{
    cr_assert(id == 1 || id == 3, "unknown hash id %u", id);
    return id == 1 ? BLOOMSIMD_U64_XXH3 : BLOOMSIMD_U64_MUM;
}

Test(probe_constants, hash_vectors_are_the_librarys_and_libxxhashs)
{
    char *path = test_fixture_path("hash_vectors.txt");
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "%s", path);
    char line[512];
    unsigned rows[4] = {0};
    while (fgets(line, sizeof line, in)) {
        unsigned id;
        unsigned long long seed, key, want;
        if (strncmp(line, "hash ", 5) != 0) continue;
        cr_assert_eq(sscanf(line, "hash %u %llx %llx %llx", &id, &seed, &key, &want), 4, "bad line: %s", line);
        bloomsimd_filter *f = make(0, hash_flag(id), 0, seed, 100);
        uint64_t k = key, got;
        bloomsimd_hash_batch_u64(f, &k, 1, &got);
        cr_assert_eq(got, want, "hash %u seed %llx key %llx: %llx", id, seed, key, (unsigned long long)got);
        bloomsimd_view v;
        bloomsimd_probe_constants c;
        get_probe(f, &v, &c);
        cr_assert_eq(binding_hash(&c, key), want);
        if (id == 1) {
            uint8_t bytes[8];
            for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)(key >> (8 * i));
            cr_assert_eq(XXH3_64bits_withSeed(bytes, 8, seed), want, "libxxhash: seed %llx key %llx", seed, key);
        }
        rows[id]++;
        bloomsimd_destroy(f);
    }
    fclose(in);
    free(path);
    cr_assert_geq(rows[1], 60u, "only %u XXH3 vectors", rows[1]);
    cr_assert_geq(rows[3], 60u, "only %u mum vectors", rows[3]);
}

/* Each probe row: in an empty filter of the row's shape, the key sets
 * exactly the row's bits of the row's block and nothing else; the binding's
 * probe from bloomsimd_get_probe derives the same. */
Test(probe_constants, probe_vectors_are_the_librarys)
{
    char *path = test_fixture_path("hash_vectors.txt");
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "%s", path);
    char line[512];
    unsigned rows = 0, layouts_seen = 0, hashes_seen = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned layout, k, id;
        unsigned long long seed, nblocks, key, block;
        int used = 0;
        if (strncmp(line, "probe ", 6) != 0) continue;
        cr_assert_eq(sscanf(line, "probe %u %u %u %llx %llu %llx %llu %n", &layout, &k, &id, &seed, &nblocks, &key,
                            &block, &used),
                     7, "bad line: %s", line);
        uint8_t want[512] = {0};
        unsigned nbits = 0;
        for (char *p = line + used; *p && *p != '\n';) {
            char *end;
            unsigned long bit = strtoul(p, &end, 10);
            cr_assert(end != p && bit < test_block_bits(layout), "bad bits: %s", line);
            want[bit] = 1;
            nbits++;
            p = *end == ',' ? end + 1 : end;
        }
        cr_assert_eq(nbits, k, "a row of k %u with %u bits: %s", k, nbits, line);
        bloomsimd_options o = {.bits = nblocks * test_block_bits(layout), .k = k, .seed = seed, .layout = layout,
                               .flags = hash_flag(id)};
        bloomsimd_filter *f = test_filter(&o);
        bloomsimd_view v;
        bloomsimd_probe_constants c;
        get_probe(f, &v, &c);
        cr_assert_eq(v.nblocks, nblocks);
        cr_assert_eq(v.k, k);
        cr_assert_eq(bloomsimd_add_u64(f, key), BLOOMSIMD_OK);
        const unsigned words = v.layout == BLOOMSIMD_LAYOUT_SPLIT256 ? 8 : 16;
        const uint32_t *all = v.blocks;
        for (uint64_t b = 0; b < nblocks; b++)
            for (unsigned w = 0; w < words; w++) {
                uint32_t word = all[b * words + w];
                for (unsigned bit = 0; bit < 32; bit++) {
                    bool set = word >> bit & 1u, expect = b == block && want[w * 32 + bit];
                    cr_assert_eq(set, expect, "block %llu word %u bit %u: %s", (unsigned long long)b, w, bit, line);
                }
            }
        uint32_t mask[16];
        unsigned mwords;
        const uint32_t *at = binding_probe(&v, &c, key, mask, &mwords);
        cr_assert_eq(at, all + block * words);
        for (unsigned w = 0; w < words; w++)
            for (unsigned bit = 0; bit < 32; bit++) cr_assert_eq(mask[w] >> bit & 1u, want[w * 32 + bit]);
        layouts_seen |= 1u << layout;
        hashes_seen |= 1u << id;
        rows++;
        bloomsimd_destroy(f);
    }
    fclose(in);
    free(path);
    cr_assert_geq(rows, 40u, "only %u probe vectors", rows);
    cr_assert_eq(layouts_seen, 1u << 2 | 1u << 3);
    cr_assert_eq(hashes_seen, 1u << 1 | 1u << 3);
}
