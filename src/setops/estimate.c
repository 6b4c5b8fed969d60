/*
 * estimate.c — bit occupancy: fill ratio and the estimated number of keys.
 *
 * Estimator (derivation, variance and measured error: docs/ESTIMATES.md).
 * With m blocks there are B = 512 m bits. A key sets exactly k bits, one in
 * each of k distinct words of one block; every bit of the array is one of
 * them with probability p = (1/m) (k/16) (1/32) = k / B. (split256: B = 256 m,
 * k = 8 bits, one in each of the 8 words, p = (1/m) (1/32) = 8 / B: the same
 * formula.) Keys hash
 * independently, so after n distinct keys a given bit is still clear with
 * probability (1 - p)^n, and the number X of set bits has
 *     E[X] = B (1 - (1 - p)^n)              (exact, by linearity)
 * Solving for n at the observed X:
 *     n^ = ln(1 - X/B) / ln(1 - k/B)
 * The logarithms are taken with log1p so that a nearly empty filter of 2^41
 * bits keeps full precision. X = 0 gives 0.
 *
 * Saturation. The estimate is only as good as the clear bits Z = B - X that
 * are left: sd(n^)/n ~ 1/(lambda sqrt(Z)) (docs/ESTIMATES.md). With Z = 0
 * the bits say nothing more about n, so instead of +infinity the estimate
 * is the bound it would have with one clear bit,
 *     n_max = ln(1/B) / ln(1 - k/B)  ~  (B/k) ln B,
 * the count at which the expected number of clear bits reaches 1: a full
 * filter most likely holds at least about that many keys. A layer with
 * fewer than BLOOMSIMD_SATURATED_CLEAR_BITS clear bits is "saturated":
 * bloomsimd_get_fill_info says so, and its FPR now is 1 when no bit is clear. Rejected:
 * +infinity (the first version): callers had to special-case it, and a sum
 * over layers or a cast to an integer went wrong silently.
 *
 * Code outside kernels/ has baseline flags, so the popcount is portable SWAR
 * arithmetic rather than the popcnt instruction; docs/ESTIMATES.md gives its
 * measured speed against a plain read of the array.
 */
#include "../baseline.h"

#include <math.h>
#include <stdbool.h>

#include "../internal.h"
#include "../layers/layers.h"

#define SWAR_M1 UINT64_C(0x5555555555555555)
#define SWAR_M2 UINT64_C(0x3333333333333333)
#define SWAR_M4 UINT64_C(0x0f0f0f0f0f0f0f0f)
#define SWAR_M8 UINT64_C(0x00ff00ff00ff00ff)

/* Word i of the array; concurrent filters are read with relaxed atomic
 * loads so that counting while other threads insert is defined. */
static inline uint64_t load_word(const uint64_t *w, size_t i, bool concurrent)
{
    return concurrent ? __atomic_load_n(&w[i], __ATOMIC_RELAXED) : w[i];
}

/*
 * Bits set in w[0..n), n even. Per pair of words: 2-bit field counts of each
 * word, summed into one word of 4-bit fields (each <= 8), folded into 8-bit
 * fields that accumulate over up to 15 pairs (15 * 16 = 240 < 256); one
 * horizontal sum per 15 pairs. About 1.5x faster than counting word by
 * word with a multiply each (docs/ESTIMATES.md, "Cost").
 */
static inline uint64_t count_pairs(const uint64_t *w, size_t n, bool concurrent)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n;) {
        size_t end = n - i < 30 ? n : i + 30;
        uint64_t bytes = 0;
        for (; i < end; i += 2) {
            uint64_t x = load_word(w, i, concurrent), y = load_word(w, i + 1, concurrent);
            x -= (x >> 1) & SWAR_M1;
            y -= (y >> 1) & SWAR_M1;
            uint64_t nibbles = (x & SWAR_M2) + ((x >> 2) & SWAR_M2) + (y & SWAR_M2) + ((y >> 2) & SWAR_M2);
            bytes += (nibbles & SWAR_M4) + ((nibbles >> 4) & SWAR_M4);
        }
        uint64_t halves = (bytes & SWAR_M8) + ((bytes >> 8) & SWAR_M8);
        total += (halves * UINT64_C(0x0001000100010001)) >> 48;
    }
    return total;
}

static uint64_t count_set_bits(const bloomsimd_filter *f)
{
    const uint64_t *w = (const uint64_t *)(const void *)f->geometry.words;
    size_t n = bloomsimd_filter_bytes(f) / sizeof(uint64_t); /* 8 (4 in split256) per block: even */
    return f->geometry.concurrent ? count_pairs(w, n, true) : count_pairs(w, n, false);
}

double bloomsimd_fill_ratio(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    if (f->layers) {
        /* all bits of all layers */
        bloomsimd_probe_order order = bloomsimd_probe_order_of(f);
        double set = 0.0, bits = 0.0;
        for (uint32_t i = 0; i < order.count; i++) {
            const bloomsimd_filter *layer = bloomsimd_layer_in_order(&order, i);
            set += (double)count_set_bits(layer);
            bits += (double)layer->geometry.nblocks * bloomsimd_filter_block_bits(layer);
        }
        return set / bits;
    }
    double bits = (double)f->geometry.nblocks * bloomsimd_filter_block_bits(f);
    return (double)count_set_bits(f) / bits;
}

/* One plain filter (or layer): its bits, its estimate, its FPR now, and
 * whether it is saturated. */
typedef struct layer_estimate {
    double set, bits;
    double keys;
    double fpr;
    bool saturated;
} layer_estimate;

static layer_estimate estimate_one(const bloomsimd_filter *f)
{
    uint64_t bits = f->geometry.nblocks * bloomsimd_filter_block_bits(f);
    uint64_t set = count_set_bits(f);
    layer_estimate e = {(double)set, (double)bits, 0.0, 0.0, false};
    if (set == 0) return e;
    uint64_t clear = bits - set;
    e.saturated = clear < BLOOMSIMD_SATURATED_CLEAR_BITS;
    double b = (double)bits;
    /* no clear bit: the bound of one clear bit (see the top of the file) */
    double x = clear == 0 ? b - 1.0 : (double)set;
    e.keys = log1p(-x / b) / log1p(-(double)f->geometry.k / b);
    /* every bit set: every lookup hits, whatever the model says at n_max */
    e.fpr = clear == 0 ? 1.0
                       : bloomsimd_layout_model_fpr(f->geometry.layout, e.keys, (double)f->geometry.nblocks,
                                                    f->geometry.k);
    return e;
}

/* The sums over a layered filter's layers. Layers hold disjoint insertions
 * (a scalable filter puts each new key in one layer), so their estimates
 * add; a window's generations may share refreshed keys, which then count
 * once per generation (docs/ESTIMATES.md, "Layered filters"). A lookup
 * probes every layer, so the FPRs combine as in bloomsimd_predicted_fpr:
 * layers modelled as independent, 1 - prod(1 - f_i). */
static layer_estimate estimate_all(const bloomsimd_filter *f)
{
    if (!f->layers) return estimate_one(f);
    bloomsimd_probe_order order = bloomsimd_probe_order_of(f);
    layer_estimate total = {0.0, 0.0, 0.0, 0.0, false};
    double miss = 1.0;
    for (uint32_t i = 0; i < order.count; i++) {
        layer_estimate e = estimate_one(bloomsimd_layer_in_order(&order, i));
        total.set += e.set;
        total.bits += e.bits;
        total.keys += e.keys;
        total.saturated |= e.saturated;
        miss *= 1.0 - e.fpr;
    }
    total.fpr = 1.0 - miss;
    return total;
}

double bloomsimd_estimate_count(const bloomsimd_filter *f)
{
    if (!f) return NAN;
    return estimate_all(f).keys;
}

void bloomsimd_get_fill_info(const bloomsimd_filter *f, bloomsimd_fill_info *fill)
{
    if (!f || !fill) return;
    layer_estimate e = estimate_all(f);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    /* Layered filters count every key they take; a plain filter counts only
     * insert-and-report-new, so one that counted nothing may still be full:
     * its bits say how full. (A plain filter filled partly each way reads
     * its counted share; the estimate would be the truer one there, but the
     * library cannot tell that case apart.) */
    double load = !f->layers && info.items == 0 ? bloomsimd_load_of(e.keys, info.capacity) : info.load;
    *fill = (bloomsimd_fill_info){.fill_ratio = e.set / e.bits,
                                  .estimated_items = e.keys,
                                  .fpr_now = e.fpr,
                                  .saturated = e.saturated,
                                  .load = load};
}
