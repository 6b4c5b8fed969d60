/*
 * hash_keys_sse42_paired.c — paired, alternating rounds: bloomsimd_hash_keys on an
 * sse42 filter vs the same call on a scalar filter (the reference loop) vs
 * libxxhash XXH3_64bits_withSeed per key, over byte-key views.
 * (build and run: bench/harness/README.md)
 *
 * Each round times every variant once over N keys (calls of CHUNK keys, as
 * add_keys/contains_keys chunk them), in an order that rotates per round.
 * Per case it prints median ns/key per variant, then for each ratio
 * (reference / sse42, libxxhash / sse42) p10 / median / p90 of the
 * per-round ratios and the median over the quietest tenth of rounds (the
 * rounds with the smallest sum of the three times).
 *
 *   cc -O2 -I<repo>/include hash_keys_sse42_paired.c <build>/libbloomsimd.a -lxxhash -lm -o hash_keys_sse42_paired
 *   ./hash_keys_sse42_paired [rounds]
 */
#include <bloomsimd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

enum { N = 1 << 14, CHUNK = 1024, V = 3 };
static const char *const vname[V] = {"sse42", "scalar", "libxxhash"};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef enum { FIXED, OFF32, OFF64 } layout;
static const char *const lname[] = {"fixed", "offsets32", "offsets64"};

typedef struct {
    layout l;
    size_t width; /* 0: mixed 8..64 */
    uint8_t *data;
    size_t data_len;
    uint32_t *o32;
    uint64_t *o64;
} workload;

static bloomsimd_keys slice(const workload *w, size_t base, size_t n)
{
    switch (w->l) {
    case FIXED: return bloomsimd_keys_fixed(w->data + base * w->width, n * w->width, w->width, n);
    case OFF32: return bloomsimd_keys_offsets32(w->data, w->data_len, w->o32 + base, n);
    default: return bloomsimd_keys_offsets64(w->data, w->data_len, w->o64 + base, n);
    }
}

static volatile uint64_t sink;
static uint64_t hashes[N];

static double run(int variant, bloomsimd_filter *const *f, const workload *w, uint64_t seed)
{
    double t0 = now();
    for (size_t base = 0; base < N; base += CHUNK) {
        if (variant < 2) {
            bloomsimd_keys v = slice(w, base, CHUNK);
            if (bloomsimd_hash_keys(f[variant], &v, hashes + base) != BLOOMSIMD_OK) abort();
        } else {
            for (size_t i = base; i < base + CHUNK; i++) {
                size_t at, len;
                if (w->l == FIXED) at = i * w->width, len = w->width;
                else if (w->l == OFF32) at = w->o32[i], len = w->o32[i + 1] - w->o32[i];
                else at = (size_t)w->o64[i], len = (size_t)(w->o64[i + 1] - w->o64[i]);
                hashes[i] = XXH3_64bits_withSeed(w->data + at, len, seed);
            }
        }
    }
    double t = now() - t0;
    sink += hashes[N - 1] + hashes[N / 2];
    return t / N;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double pct(double *v, int n, double p) /* v sorted */
{
    double r = p * (n - 1);
    int i = (int)r;
    return i + 1 < n ? v[i] + (r - i) * (v[i + 1] - v[i]) : v[n - 1];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 101;
    const uint64_t seed = 0x1234567;
    bloomsimd_filter *f[2];
    for (int k = 0; k < 2; k++) {
        bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .seed = seed, .kernel = vname[k]};
        if (bloomsimd_create_with(&f[k], &o) != BLOOMSIMD_OK) { fprintf(stderr, "no kernel %s\n", vname[k]); return 1; }
    }
    /* check: all three agree */
    static const size_t widths[] = {8, 16, 32, 64, 0};
    printf("# AMD Zen 5 (family 26 model 2); %d rounds, %d keys per variant per round in calls of %d; seed %#llx\n",
           rounds, N, CHUNK, (unsigned long long)seed);
    printf("# case                 | ns/key median: sse42 scalar libxxh | scalar/sse42 p10 med p90 [quietest10%%] | libxxh/sse42 p10 med p90 [quietest10%%]\n");
    uint64_t st = 99;
    for (int li = 0; li < 3; li++)
        for (int wi = 0; wi < 5; wi++) {
            if (widths[wi] == 0 && li == FIXED) continue;
            workload w = {.l = (layout)li, .width = widths[wi]};
            w.o32 = malloc((N + 1) * sizeof *w.o32);
            w.o64 = malloc((N + 1) * sizeof *w.o64);
            size_t total = 0;
            w.o32[0] = 0, w.o64[0] = 0;
            for (size_t i = 0; i < N; i++) {
                size_t len = w.width ? w.width : 8 + sm(&st) % 57;
                total += len;
                w.o32[i + 1] = (uint32_t)total, w.o64[i + 1] = total;
            }
            w.data_len = total;
            w.data = malloc(total + 64);
            for (size_t i = 0; i < total + 64; i++) w.data[i] = (uint8_t)sm(&st);
            uint64_t a[N];
            for (int v = 0; v < V; v++) {
                run(v, f, &w, seed);
                if (v == 0) memcpy(a, hashes, sizeof a);
                else if (memcmp(a, hashes, sizeof a)) { fprintf(stderr, "%s differs\n", vname[v]); return 1; }
            }
            double *t[V], *r1 = malloc(rounds * sizeof(double)), *r2 = malloc(rounds * sizeof(double));
            double *tot = malloc(rounds * sizeof(double));
            for (int v = 0; v < V; v++) t[v] = malloc(rounds * sizeof(double));
            for (int r = 0; r < rounds; r++) {
                for (int s = 0; s < V; s++) {
                    int v = (r + s) % V;
                    t[v][r] = run(v, f, &w, seed);
                }
                r1[r] = t[1][r] / t[0][r], r2[r] = t[2][r] / t[0][r];
                tot[r] = t[0][r] + t[1][r] + t[2][r];
            }
            /* quietest tenth: rounds with the smallest total */
            int q = rounds / 10 < 1 ? 1 : rounds / 10;
            double *tsort = malloc(rounds * sizeof(double));
            memcpy(tsort, tot, rounds * sizeof(double));
            qsort(tsort, rounds, sizeof(double), cmpd);
            double cut = tsort[q - 1];
            double *q1 = malloc(rounds * sizeof(double)), *q2 = malloc(rounds * sizeof(double));
            int nq = 0;
            for (int r = 0; r < rounds && nq < q; r++)
                if (tot[r] <= cut) q1[nq] = r1[r], q2[nq] = r2[r], nq++;
            qsort(q1, nq, sizeof(double), cmpd), qsort(q2, nq, sizeof(double), cmpd);
            double med[V];
            for (int v = 0; v < V; v++) qsort(t[v], rounds, sizeof(double), cmpd), med[v] = pct(t[v], rounds, 0.5);
            qsort(r1, rounds, sizeof(double), cmpd), qsort(r2, rounds, sizeof(double), cmpd);
            char name[40];
            if (w.width) snprintf(name, sizeof name, "%2zu B %s", w.width, lname[li]);
            else snprintf(name, sizeof name, "mixed 8..64 B %s", lname[li]);
            printf("%-23s | %5.2f %5.2f %5.2f | %.2f %.2f %.2f [%.2f] | %.2f %.2f %.2f [%.2f]\n", name, med[0], med[1],
                   med[2], pct(r1, rounds, .1), pct(r1, rounds, .5), pct(r1, rounds, .9), pct(q1, nq, .5),
                   pct(r2, rounds, .1), pct(r2, rounds, .5), pct(r2, rounds, .9), pct(q2, nq, .5));
            fflush(stdout);
            for (int v = 0; v < V; v++) free(t[v]);
            free(r1), free(r2), free(tot), free(tsort), free(q1), free(q2);
            free(w.o32), free(w.o64), free(w.data);
        }
    for (int k = 0; k < 2; k++) bloomsimd_destroy(f[k]);
    return 0;
}
