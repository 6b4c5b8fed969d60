/*
 * test_kernel_entries.c — the kernel-table entries added with layout 2, for
 * this run's kernel against the scalar reference, called directly through
 * the kernel tables (so a kernel's own loop is tested, not the core's):
 *
 *   - contains_u64 / contains_hashes in every hit form (bytes, bitmap,
 *     indices): identical answers, identical counts, nothing written past
 *     the output, bitmap padding bits zero;
 *   - add_new_u64 / add_new_hashes: identical "new" flags and counts, the
 *     in-order rule (a repeat inside the batch is new only the first time),
 *     identical filter bytes, concurrent and plain;
 *   - add_one / contains_one: identical bytes and answers.
 *
 * Every batch size around the vector widths and groups, tails, k = 1..16,
 * 1 block (every key in one block: maximal intra-batch dependence) and
 * large filters.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"
#include "layout.h"
#include "support.h"

static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
                               255, 257, 1000, 4099};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define MAX_N 4099u

typedef struct pair {
    const bloomsimd_kernel *ref, *simd;
    bloomsimd_geometry gr, gs;
    void *mem_r, *mem_s;
} pair;

static pair make_pair(uint64_t blocks, uint32_t k, uint64_t seed, bool concurrent)
{
    pair p;
    p.ref = bloomsimd_kernel_by_name("scalar");
    p.simd = bloomsimd_kernel_by_name(test_kernel());
    cr_assert_not_null(p.ref);
    cr_assert_not_null(p.simd);
    cr_assert_eq(posix_memalign(&p.mem_r, 64, blocks * 64), 0);
    cr_assert_eq(posix_memalign(&p.mem_s, 64, blocks * 64), 0);
    memset(p.mem_r, 0, blocks * 64);
    memset(p.mem_s, 0, blocks * 64);
    bloomsimd_geometry g = {.nblocks = blocks,
                            .k = k,
                            .select = bloomsimd_select_tables[k - 1],
                            .hash_bitflip = bloomsimd_xxh3_bitflip(seed),
                            .concurrent = concurrent};
    p.gr = g, p.gs = g;
    p.gr.words = p.mem_r, p.gs.words = p.mem_s;
    return p;
}

static void free_pair(pair *p)
{
    free(p->mem_r);
    free(p->mem_s);
}

static void assert_same_bytes(const pair *p, const char *what)
{
    cr_assert(memcmp(p->mem_r, p->mem_s, p->gr.nblocks * 64) == 0, "%s: filter bytes differ (%s vs scalar)", what,
              p->simd->name);
}

/* Keys with repeats: about a quarter of them are earlier keys of the batch. */
static void keys_with_repeats(uint64_t *keys, size_t n, uint64_t stream)
{
    uint64_t state = stream;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_splitmix64(&state);
        keys[i] = (i > 0 && (r & 3) == 0) ? keys[r % i] : test_key(stream, i);
    }
}

/* Runs one lookup in `form` on both kernels and compares everything. The
 * output buffers are offset by `shift` bytes (unaligned) and guarded. */
static void compare_lookup(pair *p, const uint64_t *src, size_t n, int hashed, bloomsimd_hit_form form, size_t shift)
{
    size_t elem = form == BLOOMSIMD_HITS_INDICES ? 4 : 1;
    size_t bytes = form == BLOOMSIMD_HITS_BITMAP ? (n + 7) / 8 : n * elem;
    uint8_t *buf_r = malloc(bytes + 64), *buf_s = malloc(bytes + 64);
    memset(buf_r, 0xA5, bytes + 64);
    memset(buf_s, 0xA5, bytes + 64);
    void *out_r = buf_r + (form == BLOOMSIMD_HITS_INDICES ? 0 : shift), *out_s = buf_s + (form == BLOOMSIMD_HITS_INDICES ? 0 : shift);
    size_t hr = hashed ? p->ref->contains_hashes(&p->gr, src, n, form, out_r)
                       : p->ref->contains_u64(&p->gr, src, n, form, out_r);
    size_t hs = hashed ? p->simd->contains_hashes(&p->gs, src, n, form, out_s)
                       : p->simd->contains_u64(&p->gs, src, n, form, out_s);
    cr_assert_eq(hs, hr, "%s form %d n=%zu hashed=%d: %zu hits, scalar %zu", p->simd->name, form, n, hashed, hs, hr);
    size_t written = form == BLOOMSIMD_HITS_INDICES ? hr * 4 : bytes;
    cr_assert(memcmp(out_r, out_s, written) == 0, "%s form %d n=%zu: answers differ", p->simd->name, form, n);
    const uint8_t *end = (const uint8_t *)out_s + (form == BLOOMSIMD_HITS_INDICES ? n * 4 : bytes);
    for (size_t i = 0; i < 8 && end + i < buf_s + bytes + 64; i++)
        cr_assert_eq(end[i], 0xA5, "%s form %d n=%zu wrote past the end", p->simd->name, form, n);
    if (form == BLOOMSIMD_HITS_BITMAP && n % 8)
        cr_assert_eq(((const uint8_t *)out_s)[n / 8] >> (n % 8), 0, "bitmap padding bits must be 0");
    if (form == BLOOMSIMD_HITS_BYTES) { /* out = NULL counts the same */
        size_t hn = hashed ? p->simd->contains_hashes(&p->gs, src, n, form, NULL)
                           : p->simd->contains_u64(&p->gs, src, n, form, NULL);
        cr_assert_eq(hn, hr, "out = NULL must count the same");
    }
    free(buf_r);
    free(buf_s);
}

static void exercise(uint64_t blocks, uint32_t k, bool concurrent)
{
    pair p = make_pair(blocks, k, 1000 + k, concurrent);
    uint64_t *keys = malloc(MAX_N * 8), *hashes = malloc(MAX_N * 8);
    uint8_t *new_r = malloc(MAX_N), *new_s = malloc(MAX_N);
    for (size_t si = 0; si < N_SIZES; si++) {
        size_t n = sizes[si];
        keys_with_repeats(keys, n, 50 + si);
        for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_xxh3_u64(keys[i], p.gr.hash_bitflip);
        /* insert-and-report-new: half the batches as keys, half as hashes */
        int hashed = si & 1;
        memset(new_s, 0xEE, MAX_N);
        size_t cr = hashed ? p.ref->add_new_hashes(&p.gr, hashes, n, new_r) : p.ref->add_new_u64(&p.gr, keys, n, new_r);
        size_t cs = hashed ? p.simd->add_new_hashes(&p.gs, hashes, n, new_s)
                           : p.simd->add_new_u64(&p.gs, keys, n, new_s);
        cr_assert_eq(cs, cr, "%s add_new n=%zu k=%u blocks=%llu: %zu new, scalar %zu", p.simd->name, n, k,
                     (unsigned long long)blocks, cs, cr);
        cr_assert(memcmp(new_r, new_s, n) == 0, "%s add_new flags differ n=%zu k=%u", p.simd->name, n, k);
        if (n < MAX_N) cr_assert_eq(new_s[n], 0xEE, "add_new wrote past the end");
        assert_same_bytes(&p, "add_new");
        /* the in-order rule, checked on the reference's own flags: a key
         * seen earlier in the batch is never new */
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i && new_r[i]; j++)
                cr_assert(keys[j] != keys[i], "key %zu repeats key %zu but was reported new", i, j);
        /* add_new with out = NULL */
        cr_assert_eq(p.simd->add_new_u64(&p.gs, keys, n, NULL), 0, "a second pass finds nothing new");
        /* lookups of present and absent keys, every form, unaligned outputs */
        for (size_t i = 0; i < n; i++) keys[i] = (i & 1) ? keys[i] : test_key(900 + si, i);
        for (size_t i = 0; i < n; i++) hashes[i] = bloomsimd_xxh3_u64(keys[i], p.gr.hash_bitflip);
        for (int form = 0; form < 3; form++) {
            compare_lookup(&p, keys, n, 0, (bloomsimd_hit_form)form, 1 + (si % 3));
            compare_lookup(&p, hashes, n, 1, (bloomsimd_hit_form)form, si % 2);
        }
    }
    /* single keys */
    for (size_t i = 0; i < 3000; i++) {
        uint64_t h = bloomsimd_xxh3_u64(test_key(77, i), p.gr.hash_bitflip);
        if (i % 3 == 0) {
            p.ref->add_one(&p.gr, h);
            p.simd->add_one(&p.gs, h);
        }
        uint64_t q = bloomsimd_xxh3_u64(test_key(78, i), p.gr.hash_bitflip);
        cr_assert_eq(p.simd->contains_one(&p.gs, h), p.ref->contains_one(&p.gr, h), "contains_one differs");
        cr_assert_eq(p.simd->contains_one(&p.gs, q), p.ref->contains_one(&p.gr, q), "contains_one differs (absent)");
        if (i % 3 == 0) cr_assert(p.simd->contains_one(&p.gs, h), "single-key false negative");
    }
    assert_same_bytes(&p, "add_one");
    free(keys), free(hashes), free(new_r), free(new_s);
    free_pair(&p);
}

Test(kernel_entries, every_k_on_one_block_where_every_key_shares_the_block)
{
    for (uint32_t k = 1; k <= 16; k++) exercise(1, k, false);
}

Test(kernel_entries, every_k_on_small_and_large_filters)
{
    for (uint32_t k = 1; k <= 16; k++) exercise(k % 2 ? 37 : 1024, k, false);
    exercise(UINT64_C(1) << 16, 6, false);
}

Test(kernel_entries, concurrent_filters_give_the_same_answers_and_bytes)
{
    for (uint32_t k = 1; k <= 16; k += 5) exercise(k == 1 ? 1 : 4096, k, true);
}
