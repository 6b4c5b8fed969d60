/*
 * parquet_probe.c — Parquet split-block filters: the library's batched calls
 * on a BLOOMSIMD_PARQUET filter against the way engines probe one (one value
 * at a time: XXH64 of the PLAIN encoding with libxxhash, then the 8 words of
 * its block, scalar), on the same filter bits, in paired alternating rounds.
 *
 *   cc -O2 -Iinclude bench/harness/parquet_probe.c build-rel/libbloomsimd.a -lxxhash -lm -lpthread -o /tmp/pq
 *   /tmp/pq [rounds]            (BLOOMSIMD_KERNEL picks the kernel, as for any program)
 *   /tmp/pq hash [rounds]       XXH64 alone, every kernel this CPU runs against
 *                               the scalar kernel (the portable loops) and
 *                               libxxhash called per key (see hash_rows below)
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

/*
 * hash mode: bloomsimd_hash_batch_u64 / bloomsimd_hash_keys on a Parquet
 * filter of each kernel (the public calls, view validation included) and
 * libxxhash's XXH64 called once per key, on the same 1024 keys (the
 * library's chunk), in rotating order each round; ns/key medians and, per
 * round, the scalar kernel's time over each one's: median [p10 p90].
 */
enum { HASH_N = 1024, HASH_REP = 32 };

typedef struct hash_case {
    const char *name;
    int u64;      /* 1: u64 keys */
    size_t width; /* fixed-width view; 0: offsets with lengths lo..hi */
    size_t lo, hi;
} hash_case;

static int hash_rows(int rounds)
{
    static const char *const names[] = {"scalar", "sse42", "avx2", "avx512", "neon"};
    static const hash_case cases[] = {{"u64", 1, 0, 0, 0},       {"4 B fixed", 0, 4, 0, 0},
                                      {"8 B fixed", 0, 8, 0, 0}, {"16 B fixed", 0, 16, 0, 0},
                                      {"9 B offsets", 0, 0, 9, 9}, {"1..31 B offsets", 0, 0, 1, 31},
                                      {"48 B offsets", 0, 0, 48, 48}};
    bloomsimd_filter *f[5];
    int nk = 0;
    const char *kname[5];
    for (int k = 0; k < 5; k++) {
        bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_PARQUET, .kernel = names[k]};
        if (bloomsimd_kernel_emulated(names[k])) continue; /* neon through SIMDe on x86: no speed to measure */
        if (bloomsimd_create_with(&f[nk], &o) != BLOOMSIMD_OK) continue;
        kname[nk++] = names[k];
    }
    uint64_t *keys = malloc(HASH_N * sizeof *keys), *h = malloc(HASH_N * sizeof *h);
    uint8_t *data = malloc(HASH_N * 64);
    uint32_t *off = malloc((HASH_N + 1) * sizeof *off);
    for (size_t i = 0; i < HASH_N * 64; i++) data[i] = (uint8_t)mix(i);
    for (size_t i = 0; i < HASH_N; i++) keys[i] = mix(i + 77);
    printf("XXH64 alone, %d keys a call, %d rounds; ns/key medians; scalar kernel / column per round: median "
           "[p10 p90]\n",
           HASH_N, rounds);
    printf("%-16s %10s", "keys", "libxxhash");
    for (int k = 0; k < nk; k++) printf(" %8s", kname[k]);
    for (int k = 0; k < nk; k++) printf("  %22s", kname[k]);
    printf("  %22s\n", "libxxhash");
    int nv = nk + 1; /* the kernels, then libxxhash per key */
    double *t = malloc(sizeof(double) * (size_t)nv * (size_t)rounds), *r = malloc(sizeof(double) * (size_t)rounds);
    uint64_t sink = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const hash_case *hc = &cases[c];
        off[0] = 0;
        for (size_t i = 0; i < HASH_N; i++)
            off[i + 1] = off[i] + (uint32_t)(hc->lo + mix(i * 31 + c) % (hc->hi - hc->lo + 1));
        bloomsimd_keys v = hc->width ? bloomsimd_keys_fixed(data, HASH_N * hc->width, hc->width, HASH_N)
                                     : bloomsimd_keys_offsets32(data, off[HASH_N], off, HASH_N);
        for (int q = 0; q < rounds; q++)
            for (int j = 0; j < nv; j++) {
                int which = (j + q) % nv;
                double t0 = now_ns();
                for (int rep = 0; rep < HASH_REP; rep++) {
                    if (which < nk && hc->u64)
                        bloomsimd_hash_batch_u64(f[which], keys, HASH_N, h);
                    else if (which < nk)
                        bloomsimd_hash_keys(f[which], &v, h);
                    else
                        for (size_t i = 0; i < HASH_N; i++)
                            h[i] = hc->u64 ? XXH64(&keys[i], 8, 0)
                                           : hc->width ? XXH64(data + i * hc->width, hc->width, 0)
                                                       : XXH64(data + off[i], off[i + 1] - off[i], 0);
                    sink += h[rep];
                }
                t[(size_t)which * (size_t)rounds + (size_t)q] = (now_ns() - t0) / (HASH_N * HASH_REP);
            }
        printf("%-16s", hc->name);
        double *tmp = malloc(sizeof(double) * (size_t)rounds);
        memcpy(tmp, t + (size_t)nk * (size_t)rounds, sizeof(double) * (size_t)rounds);
        printf(" %10.2f", quantile(tmp, rounds, 0.5));
        for (int k = 0; k < nk; k++) {
            memcpy(tmp, t + (size_t)k * (size_t)rounds, sizeof(double) * (size_t)rounds);
            printf(" %8.2f", quantile(tmp, rounds, 0.5));
        }
        for (int k = 0; k <= nk; k++) {
            int col = k < nk ? k : nk;
            for (int q = 0; q < rounds; q++) r[q] = t[q] / t[(size_t)col * (size_t)rounds + (size_t)q];
            printf("  %6.2fx [%.2f %.2f]", quantile(r, rounds, 0.5), quantile(r, rounds, 0.1),
                   quantile(r, rounds, 0.9));
        }
        printf("\n");
        free(tmp);
    }
    if (sink == 1) printf(" ");
    for (int k = 0; k < nk; k++) bloomsimd_destroy(f[k]);
    free(t), free(r), free(keys), free(h), free(data), free(off);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "hash") == 0) {
        int hr = argc > 2 ? atoi(argv[2]) : 201;
        return hash_rows(hr >= 3 && hr <= 100000 ? hr : 201);
    }
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
