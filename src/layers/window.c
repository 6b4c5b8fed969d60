/*
 * window.c — sliding-window filters: G generations in fixed slots, inserts
 * into the current one, lookups through all of them, and bloomsimd_rotate
 * (docs/WINDOWS.md; the concurrency argument in full: docs/CONCURRENCY.md).
 *
 * State: a phase counter P. P = 2 * rotations while no rotate runs; a
 * rotate makes it odd ("draining") while it waits and clears, then even
 * again. The current slot is (P / 2) % G in both cases: a draining rotate
 * has not yet moved it.
 *
 * Writers (inserts) on a BLOOMSIMD_CONCURRENT window register under the
 * phase they saw, in writers[P % 4]: load P, increment, re-load P and retry
 * if it moved (seq_cst throughout, so a rotate that stores P and then reads
 * the counter cannot miss a writer that passed its re-check: Dekker's
 * argument). A writer under an even phase P reads every slot (add_new checks
 * the older generations); a writer under the odd phase P + 1 reads every
 * slot but the oldest, the one being dropped.
 *
 * rotate(P even): store P + 1; wait until no writer is registered under P or
 * P - 1 (the writers of P - 1, the previous drain, read the slots this rotate
 * keeps, but they may still be running); zero the oldest slot; store P + 2.
 * So when a slot is zeroed, no writer that could write or read it as a live
 * generation is running: writers registered earlier have left, and writers
 * registering meanwhile see the odd phase and leave that slot alone. No
 * insert is lost (a writer inserts only into the current slot, which no
 * rotate clears until G rotations later, after the writer has left), and
 * "new" is decided against a fixed set of generations, so of several writers
 * inserting the same new key at least one reports it new (docs/CONCURRENCY.md).
 *
 * Readers take no part: they probe all G slots. A slot being zeroed holds
 * only the generation that is expiring, whose keys a lookup racing with the
 * rotate may or may not see; every other slot only gains bits meanwhile.
 */
#include <sched.h>
#include <string.h>

#include "layers.h"

static uint64_t phase_of(const bloomsimd_layers *ls)
{
    return __atomic_load_n(&ls->phase, __ATOMIC_ACQUIRE);
}

/* Registers a writer; returns the phase it registered under. */
static uint64_t enter(bloomsimd_layers *ls)
{
    for (;;) {
        uint64_t p = __atomic_load_n(&ls->phase, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&ls->writers[p & 3], 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&ls->phase, __ATOMIC_SEQ_CST) == p) return p;
        __atomic_fetch_sub(&ls->writers[p & 3], 1, __ATOMIC_RELEASE);
    }
}

static void leave(bloomsimd_layers *ls, uint64_t p)
{
    __atomic_fetch_sub(&ls->writers[p & 3], 1, __ATOMIC_RELEASE);
}

/* The slot of age `age` (0 = current) under phase p. */
static bloomsimd_filter *slot_of_age(const bloomsimd_layers *ls, uint64_t p, uint32_t age)
{
    uint32_t g = ls->count;
    uint32_t current = (uint32_t)((p >> 1) % g);
    return ls->layer[(current + g - age) % g];
}

bloomsimd_status bloomsimd_window_insert(bloomsimd_filter *f, const uint64_t *src, bool src_keys, size_t n,
                                         uint8_t *out, size_t *fresh, bool report)
{
    bloomsimd_layers *ls = f->layers;
    bool concurrent = f->geometry.concurrent;
    uint64_t p = concurrent ? enter(ls) : ls->phase;
    bloomsimd_filter *current = slot_of_age(ls, p, 0);
    /* generations that count for "new": all but the current, and not the
     * oldest while a rotate drops it */
    uint32_t older = ls->count - 1 - (uint32_t)(p & 1);
    *fresh = 0;
    if (!report) {
        if (src_keys)
            bloomsimd_u64_add(current, src, n);
        else
            current->kernel->add_hashes(&current->geometry, src, n);
        bloomsimd_items_add(current, n);
        if (concurrent) leave(ls, p);
        return BLOOMSIMD_OK;
    }
    uint64_t hashed[BLOOMSIMD_CHAIN_CHUNK], cand[BLOOMSIMD_CHAIN_CHUNK];
    uint32_t idx[BLOOMSIMD_CHAIN_CHUNK];
    uint8_t flags_local[BLOOMSIMD_CHAIN_CHUNK], found[BLOOMSIMD_CHAIN_CHUNK];
    for (size_t base = 0; base < n; base += BLOOMSIMD_CHAIN_CHUNK) {
        size_t count = n - base < BLOOMSIMD_CHAIN_CHUNK ? n - base : BLOOMSIMD_CHAIN_CHUNK;
        const uint64_t *h = bloomsimd_chunk_hashes(f, src, src_keys, base, count, hashed);
        /* every key goes into the current generation (a repeat refreshes
         * it); the one pass says which were new to it, in key order */
        uint8_t *flags = out ? out + base : flags_local;
        size_t new_here = current->kernel->add_new_hashes(&current->geometry, h, count, flags);
        bloomsimd_items_add(current, new_here);
        /* those are new to the window unless an older generation holds them */
        size_t m = 0;
        for (size_t i = 0; i < count; i++) {
            cand[m] = h[i];
            idx[m] = (uint32_t)i;
            m += flags[i];
        }
        memset(found, 0, count);
        for (uint32_t age = 1; age <= older && m > 0; age++)
            bloomsimd_chain_drop_hits(slot_of_age(ls, p, age), cand, idx, 0, &m, found);
        for (size_t i = 0; i < count; i++) flags[i] &= (uint8_t)!found[i];
        *fresh += m;
    }
    if (concurrent) leave(ls, p);
    return BLOOMSIMD_OK;
}

/* Zeroes a slot's bit array. Concurrent readers may be probing it, so on a
 * concurrent window the words are cleared with relaxed atomic stores (the
 * kernels read them with relaxed atomic loads): defined behaviour, and a
 * racing lookup sees each word either before or after. */
static void zero_slot(bloomsimd_filter *slot)
{
    if (!slot->geometry.concurrent) {
        memset(slot->geometry.words, 0, bloomsimd_filter_bytes(slot));
        return;
    }
    uint64_t *words = (uint64_t *)(void *)slot->geometry.words;
    size_t count = bloomsimd_filter_bytes(slot) / sizeof *words;
    for (size_t i = 0; i < count; i++) __atomic_store_n(&words[i], 0, __ATOMIC_RELAXED);
}

bloomsimd_status bloomsimd_rotate(bloomsimd_filter *f)
{
    bloomsimd_error_clear();
    if (!f || !f->layers || f->layers->kind != BLOOMSIMD_KIND_WINDOW)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s", f ? "the filter is not a window" : "filter is NULL");
    if (f->read_only) return bloomsimd_check_writable(f);
    bloomsimd_layers *ls = f->layers;
    pthread_mutex_lock(&ls->lock);
    uint64_t p = __atomic_load_n(&ls->phase, __ATOMIC_RELAXED); /* even: rotates are serialised */
    bloomsimd_filter *oldest = slot_of_age(ls, p, ls->count - 1);
    if (f->geometry.concurrent) {
        __atomic_store_n(&ls->phase, p + 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&ls->writers[p & 3], __ATOMIC_SEQ_CST) != 0 ||
               __atomic_load_n(&ls->writers[(p - 1) & 3], __ATOMIC_SEQ_CST) != 0)
            sched_yield();
        /* A reader that sees a zeroed word must also see the odd phase
         * (docs/CONCURRENCY.md): the fence orders the phase store before the
         * clearing stores, which a reader's acquire fence pairs with. */
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan" /* TSan does not model fences; the accesses it checks are all atomic */
#endif
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    }
    zero_slot(oldest);
    __atomic_store_n(&oldest->items, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&oldest->started_ns, bloomsimd_now_ns(), __ATOMIC_RELAXED);
    /* the zeroed slot becomes current: it is complete before writers see it */
    __atomic_store_n(&ls->phase, p + 2, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&ls->lock);
    return BLOOMSIMD_OK;
}

void bloomsimd_window_info(const bloomsimd_filter *f, bloomsimd_info *info)
{
    const bloomsimd_layers *ls = f->layers;
    uint64_t p = phase_of(ls);
    info->generations = ls->count;
    info->rotations = p >> 1;
    const bloomsimd_filter *current = slot_of_age(ls, p, 0), *oldest = slot_of_age(ls, p, ls->count - 1);
    info->current_items = bloomsimd_items_get(current);
    info->current_started_ns = __atomic_load_n(&current->started_ns, __ATOMIC_RELAXED);
    info->oldest_started_ns = __atomic_load_n(&oldest->started_ns, __ATOMIC_RELAXED);
    /* Each generation is sized for capacity keys, so the window is as full as
     * its fullest one: a burst that overfilled an older generation raises
     * the FPR until that generation rotates out, even if the current one is
     * still light. */
    uint64_t fullest = 0;
    for (uint32_t i = 0; i < ls->count; i++) {
        uint64_t n = bloomsimd_items_get(ls->layer[i]);
        if (n > fullest) fullest = n;
    }
    info->load = bloomsimd_load_of((double)fullest, f->capacity);
}
