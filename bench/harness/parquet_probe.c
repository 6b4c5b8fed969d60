/*
 * parquet_probe.c — Parquet split-block filters: the library's batched calls
 * on a BLOOMSIMD_PARQUET filter against the way engines probe one (one value
 * at a time: XXH64 of the PLAIN encoding with libxxhash, then the 8 words of
 * its block, scalar), on the same filter bits, in paired alternating rounds.
 *
 *   cc -O2 -Iinclude bench/harness/parquet_probe.c build-rel/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/pq
 *   /tmp/pq [rounds]            (BLOOMSIMD_KERNEL picks the kernel, as for any program)
 *
 * Rows: 10^5 and 10^7 values at 1% (the library's sizing), u64 (INT64) and
 * 16-byte (FIXED_LEN_BYTE_ARRAY(16)) values; build = inserting every value,
 * probe = 2^20 absent values. Cells: ns/value, medians over the rounds, and
 * the ratio one-at-a-time / batched per round: median [p10 p90]. Times are
 * the thread's CPU time (a shared machine steals wall time from either side).
 */
#include <bloomsimd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

static const uint32_t SALT[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: the machine is shared */
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The engines' probe: scalar, one value at a time. */
static inline int sbbf_check(const uint32_t *words, uint64_t z, uint64_t h)
{
    const uint32_t *b = words + (((h >> 32) * z) >> 32) * 8;
    for (int w = 0; w < 8; w++)
        if (!(b[w] & (1u << (((uint32_t)h * SALT[w]) >> 27)))) return 0;
    return 1;
}

static inline void sbbf_insert(uint32_t *words, uint64_t z, uint64_t h)
{
    uint32_t *b = words + (((h >> 32) * z) >> 32) * 8;
    for (int w = 0; w < 8; w++) b[w] |= 1u << (((uint32_t)h * SALT[w]) >> 27);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(q * (n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    if (rounds < 3 || rounds > 1000) rounds = 11;
    enum { Q = 1 << 20, W = 16 };
    static const uint64_t sizes[2] = {100000, 10000000};
    uint64_t *absent = malloc(Q * sizeof *absent);
    uint8_t *absent16 = malloc((size_t)Q * W);
    uint8_t *hits = malloc(Q);
    for (size_t i = 0; i < Q; i++) {
        absent[i] = mix(UINT64_C(0x5eed000000000000) + i);
        memcpy(absent16 + i * W, &absent[i], 8);
        uint64_t hi = mix(absent[i]);
        memcpy(absent16 + i * W + 8, &hi, 8);
    }
    printf("Parquet split-block filter, target FPR 1%%, kernel %s; ns/value (median of %d rounds), "
           "x = one-at-a-time / batched per round: median [p10 p90]\n",
           bloomsimd_default_kernel(), rounds);
    printf("%-6s %-5s %-6s %12s %10s %24s\n", "values", "key", "op", "one-at-a-time", "batched", "x");
    for (int s = 0; s < 2; s++) {
        uint64_t n = sizes[s];
        uint64_t *vals = malloc(n * sizeof *vals);
        uint8_t *vals16 = malloc(n * W);
        for (uint64_t i = 0; i < n; i++) {
            vals[i] = mix(i + 1);
            memcpy(vals16 + i * W, &vals[i], 8);
            uint64_t hi = mix(vals[i]);
            memcpy(vals16 + i * W + 8, &hi, 8);
        }
        for (int key16 = 0; key16 < 2; key16++) {
            bloomsimd_options o = {.capacity = n, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET};
            bloomsimd_filter *f;
            if (bloomsimd_create_with(&f, &o) != BLOOMSIMD_OK) {
                fprintf(stderr, "create: %s\n", bloomsimd_last_error());
                return 1;
            }
            bloomsimd_info info;
            bloomsimd_get_info(f, &info);
            uint64_t z = info.blocks;
            uint32_t *ref = aligned_alloc(64, z * 32);
            bloomsimd_keys vk = bloomsimd_keys_fixed(vals16, n * W, W, n);
            bloomsimd_keys ak = bloomsimd_keys_fixed(absent16, (size_t)Q * W, W, Q);
            double *ob = malloc(rounds * sizeof(double)), *bb = malloc(rounds * sizeof(double));
            double *op = malloc(rounds * sizeof(double)), *bp = malloc(rounds * sizeof(double));
            double *xb = malloc(rounds * sizeof(double)), *xp = malloc(rounds * sizeof(double));
            uint64_t sink = 0;
            for (int r = 0; r < rounds; r++) {
                for (int side = 0; side < 2; side++) {
                    int ours = (side + r) % 2; /* alternate which goes first */
                    if (ours) {
                        bloomsimd_clear(f);
                        double t0 = now_ns();
                        if (key16)
                            bloomsimd_add_keys(f, &vk);
                        else
                            bloomsimd_add_batch_u64(f, vals, n);
                        double t1 = now_ns();
                        size_t c;
                        if (key16)
                            bloomsimd_contains_keys(f, &ak, hits, &c);
                        else
                            c = bloomsimd_contains_batch_u64(f, absent, Q, hits);
                        double t2 = now_ns();
                        sink += c;
                        bb[r] = (t1 - t0) / (double)n, bp[r] = (t2 - t1) / Q;
                    } else {
                        memset(ref, 0, z * 32);
                        double t0 = now_ns();
                        for (uint64_t i = 0; i < n; i++)
                            sbbf_insert(ref, z, key16 ? XXH64(vals16 + i * W, W, 0) : XXH64(&vals[i], 8, 0));
                        double t1 = now_ns();
                        size_t c = 0;
                        for (size_t i = 0; i < Q; i++)
                            c += sbbf_check(ref, z, key16 ? XXH64(absent16 + i * W, W, 0) : XXH64(&absent[i], 8, 0));
                        double t2 = now_ns();
                        sink += c;
                        ob[r] = (t1 - t0) / (double)n, op[r] = (t2 - t1) / Q;
                    }
                }
                xb[r] = ob[r] / bb[r], xp[r] = op[r] / bp[r];
            }
            /* the same bits both ways: the library's filter is the reference's */
            uint8_t *mine = malloc(z * 32 + 64);
            size_t wrote;
            bloomsimd_parquet_write(f, mine, z * 32 + 64, &wrote);
            if (memcmp(mine + wrote - z * 32, ref, z * 32) != 0) {
                fprintf(stderr, "the library's filter differs from the reference's\n");
                return 2;
            }
            const char *key = key16 ? "16 B" : "u64";
            char vals_label[16];
            snprintf(vals_label, sizeof vals_label, "10^%d", s ? 7 : 5);
            double x10 = quantile(xb, rounds, 0.1), x90 = quantile(xb, rounds, 0.9), xm = quantile(xb, rounds, 0.5);
            printf("%-6s %-5s %-6s %12.2f %10.2f %10.2fx [%.2f %.2f]\n", vals_label, key, "build",
                   quantile(ob, rounds, 0.5), quantile(bb, rounds, 0.5), xm, x10, x90);
            x10 = quantile(xp, rounds, 0.1), x90 = quantile(xp, rounds, 0.9), xm = quantile(xp, rounds, 0.5);
            printf("%-6s %-5s %-6s %12.2f %10.2f %10.2fx [%.2f %.2f]\n", vals_label, key, "probe",
                   quantile(op, rounds, 0.5), quantile(bp, rounds, 0.5), xm, x10, x90);
            fflush(stdout);
            if (sink == 1) printf(" ");
            free(mine), free(ob), free(bb), free(op), free(bp), free(xb), free(xp), free(ref);
            bloomsimd_destroy(f);
        }
        free(vals), free(vals16);
    }
    free(absent), free(absent16), free(hits);
    return 0;
}
