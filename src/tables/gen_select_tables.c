/*
 * gen_select_tables.c — generates src/tables/select_tables.c, the frozen
 * word-selection tables of layout 2 (kernels/layout.h section 3).
 *
 *     bloomsimd-gen-select-tables > src/tables/select_tables.c
 *
 * For each k in 1..16 it builds 64 16-bit masks with popcount k: the k words
 * of the block a key sets, chosen by the top 6 bits of the key's low hash
 * word. The table must look, to the FPR, like a uniformly random k-subset:
 *
 *   - every word appears in exactly 64k/16 = 4k entries (exact: a word used
 *     more often fills faster and raises the FPR of every key that probes it);
 *   - every pair of words appears together as close to 64 C(k,2)/C(16,2)
 *     times as possible (two keys' subsets then overlap like random ones,
 *     which is what the hypergeometric term of the FPR model assumes);
 *   - no mask appears twice when C(16,k) >= 64 (a duplicate is a pair of
 *     keys that always collide on all k words). For k = 1, 15 and 16 there
 *     are only 16, 16 and 1 masks: the table lists each of them equally often.
 *
 * Method: start from 64 windows of k consecutive words at offset 64i·k mod 16
 * (every word exactly 4k times), then improve pair balance with threshold
 * accepting (Dueck & Scheuer 1990): a move swaps one word between two
 * entries (x in A \ B goes to B, y in B \ A to A), which keeps every word's
 * count; it is kept when the cost rises by at most a threshold that falls
 * linearly to zero. Integer cost, integer threshold and a fixed splitmix64
 * sequence make the output identical on every compiler, libm and CPU
 * (tests/CMakeLists.txt regenerates the file and compares it byte for byte).
 *
 * Cost = sum over word pairs of (240 P_ab - 64 k (k-1))^2, i.e. the squared
 * deviation of each pair count P_ab from its ideal 64 k(k-1)/2 / 120, scaled
 * by 240 to stay integral, plus 10^12 per duplicate mask.
 *
 * Measured effect (exact model, src/fpr_model.c; bits/key at the target,
 * table vs a uniformly random k-subset, for the k that sizing picks):
 * +0.05% at 10% (k=3), +0.01% at 1% (k=6), +0.01% at 0.1% (k=9),
 * +0.00% at 0.01% (k=12) and beyond. A random 64-entry table costs 1.2-1.6%.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ENTRIES 64
#define WORDS 16
#define ITERATIONS 400000L

static uint64_t rng_state = UINT64_C(0x6c6962626c6f6f6d); /* "libbloom" */

static uint64_t splitmix64(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static unsigned below(unsigned n) { return (unsigned)(((splitmix64() >> 32) * n) >> 32); }

/* The pair counts P_ab and the pair part of the cost, sum of (240 P_ab - ideal)^2. */
typedef struct pair_counts {
    int64_t count[WORDS][WORDS];
    int64_t ideal; /* 64 k (k - 1) */
    int64_t cost;
} pair_counts;

static int64_t deviation2(const pair_counts *p, int64_t count)
{
    return (240 * count - p->ideal) * (240 * count - p->ideal);
}

/* One entry added (sign +1) or removed (sign -1): only its k(k-1)/2 pairs
 * change, and the cost changes by their terms' difference (exact integers,
 * so the running cost always equals the full sum). */
static void count_pairs(pair_counts *p, uint16_t mask, int sign)
{
    for (unsigned a = 0; a < WORDS; a++) {
        if (!(mask >> a & 1u)) continue;
        for (unsigned b = a + 1; b < WORDS; b++) {
            if (!(mask >> b & 1u)) continue;
            int64_t *c = &p->count[a][b];
            p->cost -= deviation2(p, *c);
            *c += sign;
            p->cost += deviation2(p, *c);
        }
    }
}

#define DUPLICATE_COST INT64_C(1000000000000)

/* Pair counts of zero entries: every pair term at its full deviation. */
static void pair_counts_init(pair_counts *p, unsigned k)
{
    memset(p, 0, sizeof *p);
    p->ideal = 64 * (int64_t)k * ((int64_t)k - 1);
    p->cost = (int64_t)(WORDS * (WORDS - 1) / 2) * deviation2(p, 0);
}

/* Pairs of entries holding the same mask, kept as each mask's number of
 * entries: a mask held by c entries makes c(c-1)/2 such pairs, so adding
 * one more adds c and removing one removes c - 1. The search updates it per
 * move instead of comparing all 2016 pairs of entries (the same integer, so
 * the same decisions and the same table). */
typedef struct mask_holders {
    uint8_t holders[1u << WORDS];
    int64_t pairs;
} mask_holders;

static void hold(mask_holders *d, uint16_t mask, int sign)
{
    if (sign > 0)
        d->pairs += d->holders[mask]++;
    else
        d->pairs -= --d->holders[mask];
}

/* What the cost is made of, for one table. */
typedef struct table_state {
    pair_counts pairs;
    mask_holders masks;
} table_state;

/* The state of table t of k-word masks (static storage: 64 KiB of holders). */
static table_state *tally(const uint16_t *t, unsigned k)
{
    static table_state s;
    pair_counts_init(&s.pairs, k);
    memset(&s.masks, 0, sizeof s.masks);
    for (unsigned i = 0; i < ENTRIES; i++) count_pairs(&s.pairs, t[i], 1), hold(&s.masks, t[i], 1);
    return &s;
}

/* One entry's mask changes from `from` to `to`. */
static void move(table_state *s, uint16_t from, uint16_t to)
{
    count_pairs(&s->pairs, from, -1), count_pairs(&s->pairs, to, 1);
    hold(&s->masks, from, -1), hold(&s->masks, to, 1);
}

static int64_t cost(const table_state *s) { return s->pairs.cost + DUPLICATE_COST * s->masks.pairs; }

/* The n-th set bit of m (n < popcount(m)). */
static uint16_t nth_bit(uint16_t m, unsigned n)
{
    for (unsigned w = 0; w < WORDS; w++)
        if ((m >> w & 1u) && n-- == 0) return (uint16_t)(1u << w);
    return 0;
}

static void generate(unsigned k, uint16_t *t)
{
    for (unsigned i = 0; i < ENTRIES; i++) {
        uint16_t m = 0;
        for (unsigned j = 0; j < k; j++) m |= (uint16_t)(1u << ((i * k + j) % WORDS));
        t[i] = m;
    }
    if (k == 1 || k >= 15) return; /* every mask equally often already */
    table_state *s = tally(t, k);
    int64_t c = cost(s);
    const int64_t threshold0 = 4 * 240 * 240;
    for (long it = 0; it < ITERATIONS; it++) {
        int64_t threshold = threshold0 * (ITERATIONS - 1 - it) / ITERATIONS;
        unsigned i = below(ENTRIES), j = below(ENTRIES);
        uint16_t only_i = t[i] & (uint16_t)~t[j], only_j = t[j] & (uint16_t)~t[i];
        if (i == j || !only_i) continue;
        uint16_t x = nth_bit(only_i, below((unsigned)__builtin_popcount(only_i)));
        uint16_t y = nth_bit(only_j, below((unsigned)__builtin_popcount(only_j)));
        uint16_t old_i = t[i], old_j = t[j];
        uint16_t new_i = (uint16_t)((old_i & ~x) | y), new_j = (uint16_t)((old_j & ~y) | x);
        move(s, old_i, new_i), move(s, old_j, new_j);
        t[i] = new_i, t[j] = new_j;
        int64_t next = cost(s);
        if (next - c <= threshold) {
            c = next;
        } else {
            move(s, new_i, old_i), move(s, new_j, old_j);
            t[i] = old_i, t[j] = old_j;
        }
    }
}

int main(void)
{
    printf("/*\n"
           " * select_tables.c — GENERATED by src/tables/gen_select_tables.c; do not edit.\n"
           " *\n"
           " * Layout 2 word-selection tables (kernels/layout.h section 3): entry\n"
           " * bloomsimd_select_tables[k - 1][(uint32_t)hash >> 26] is the 16-bit mask of\n"
           " * the k words (of 16) a key sets. Part of the file format: changing one\n"
           " * bit changes every filter, so it needs a new layout id.\n"
           " */\n"
           "#include \"../internal.h\"\n\n"
           "const uint16_t bloomsimd_select_tables[BLOOMSIMD_MAX_K][BLOOMSIMD_SELECT_ENTRIES]\n"
           "    __attribute__((aligned(64))) = {\n");
    for (unsigned k = 1; k <= 16; k++) {
        uint16_t t[ENTRIES];
        generate(k, t);
        const table_state *s = tally(t, k);
        printf("    /* k = %u: sum of squared pair-count deviations %.2f, duplicate pairs %u */\n    {", k,
               (double)s->pairs.cost / (240.0 * 240.0), (unsigned)s->masks.pairs);
        for (unsigned i = 0; i < ENTRIES; i++)
            printf("%s0x%04x%s", i % 8 ? " " : (i ? "\n     " : ""), t[i], i + 1 < ENTRIES ? "," : "");
        printf("},\n");
    }
    printf("};\n");
    return 0;
}
