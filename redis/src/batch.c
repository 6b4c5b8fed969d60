/*
 * batch.c — a command's items as one library batch (byte keys from the
 * arguments, or 64-bit keys from a BFX binary blob), and the insert rule
 * shared by BF.ADD, BF.MADD, BF.INSERT and BFX.MADD64.
 */
#include <string.h>

#include "bsr.h"

bool bsr_batch_from_args(bsr_batch *b, RedisModuleString **argv, size_t n) {
    memset(b, 0, sizeof *b);
    char *mem = rm_Alloc(n * (sizeof(void *) + sizeof(size_t)) + n + 1);
    if (!mem) return false;
    b->mem = mem;
    b->n = n;
    b->keys = (const void **)(void *)mem;
    b->lens = (size_t *)(void *)(mem + n * sizeof(void *));
    b->out = (uint8_t *)(mem + n * (sizeof(void *) + sizeof(size_t)));
    for (size_t i = 0; i < n; i++) b->keys[i] = rm_StringPtrLen(argv[i], &b->lens[i]);
    return true;
}

bool bsr_batch_from_blob(bsr_batch *b, const char *blob, size_t n) {
    memset(b, 0, sizeof *b);
    /* uint64_t arrays must be 8-byte aligned (library contract); argument
     * strings are not, so the keys are copied (cheap next to hashing). */
    char *mem = rm_Alloc(n * sizeof(uint64_t) + n + 1);
    if (!mem) return false;
    b->mem = mem;
    b->n = n;
    memcpy(mem, blob, n * sizeof(uint64_t));
    b->u64 = (const uint64_t *)(void *)mem;
    b->out = (uint8_t *)(mem + n * sizeof(uint64_t));
    return true;
}

void bsr_batch_free(bsr_batch *b) { rm_Free(b->mem); }

static bloomsimd_status add_new(bloomsimd_filter *f, bsr_batch *b, size_t at, size_t m, size_t *fresh) {
    if (b->u64) return bloomsimd_add_new_batch_u64(f, b->u64 + at, m, b->out + at, fresh);
    return bloomsimd_add_new_batch(f, b->keys + at, b->lens + at, m, b->out + at, fresh);
}

void bsr_batch_contains(const bloomsimd_filter *f, bsr_batch *b, size_t at) {
    size_t m = b->n - at;
    if (!f)
        memset(b->out + at, 0, m);
    else if (b->u64)
        bloomsimd_contains_batch_u64(f, b->u64 + at, m, b->out + at);
    else
        bloomsimd_contains_batch(f, b->keys + at, b->lens + at, m, b->out + at);
}

/*
 * Scaling filters take the whole batch (the library adds layers as needed).
 * A NONSCALING filter is given at most (capacity - items) items per call, so
 * no call can insert more new keys than there is room for; once it is full,
 * the answers are plain lookups up to the first absent item, which is
 * refused (RedisBloom ends its reply there; items already present still
 * answer 0).
 */
bsr_add_result bsr_batch_add(bloomsimd_filter *f, const bloomsimd_info *info, bsr_batch *b, size_t *answered,
                             bloomsimd_status *st) {
    size_t n = b->n, done = 0, fresh = 0;
    *answered = 0;
    *st = BLOOMSIMD_OK;
    if (info->growth != 0) {
        if ((*st = add_new(f, b, 0, n, &fresh)) != BLOOMSIMD_OK) return BSR_ADD_GROW_FAILED;
        *answered = n;
        return BSR_ADD_DONE;
    }
    uint64_t room = info->capacity > info->items ? info->capacity - info->items : 0;
    while (done < n && room > 0) {
        size_t m = n - done < room ? n - done : (size_t)room;
        if ((*st = add_new(f, b, done, m, &fresh)) != BLOOMSIMD_OK) return BSR_ADD_GROW_FAILED;
        room -= fresh;
        done += m;
    }
    if (done < n) {
        bsr_batch_contains(f, b, done);
        for (; done < n; done++) {
            if (!b->out[done]) {
                *answered = done;
                return BSR_ADD_FULL;
            }
            b->out[done] = 0; /* present: "not newly added" */
        }
    }
    *answered = n;
    return BSR_ADD_DONE;
}
