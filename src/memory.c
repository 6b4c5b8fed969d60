/*
 * memory.c — the bit array: zeroed, 64-byte aligned (one block per cache line).
 *
 * Filters of 2 MiB or more are anonymous mappings (zero pages arrive lazily,
 * so creating a 1 GiB filter is instant) with MADV_HUGEPAGE: with 4 KiB pages
 * a random probe into a large filter also misses the TLB; 2 MiB pages make
 * that walk rare. Under THP "madvise" mode this request is what enables them.
 *
 * A host allocator (bloomsimd_set_allocator) replaces both: it returns
 * zeroed memory, 63 bytes more than the array so that the array can start on
 * a 64-byte boundary, and large arrays are still advised MADV_HUGEPAGE over
 * their 2 MiB-aligned interior.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

static pthread_mutex_t allocator_lock = PTHREAD_MUTEX_INITIALIZER;
static bloomsimd_allocator host_allocator; /* alloc == NULL: the default */

void bloomsimd_set_allocator(const bloomsimd_allocator *a)
{
    pthread_mutex_lock(&allocator_lock);
    if (a && a->alloc && a->free)
        host_allocator = *a;
    else
        memset(&host_allocator, 0, sizeof host_allocator);
    pthread_mutex_unlock(&allocator_lock);
}

static bloomsimd_status alloc_with_host(bloomsimd_filter *f, const bloomsimd_allocator *a, size_t bytes,
                                        uint32_t flags)
{
    if (bytes > SIZE_MAX - (BLOOMSIMD_BLOCK_BYTES - 1))
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "%zu bytes do not fit this address space", bytes);
    size_t total = bytes + BLOOMSIMD_BLOCK_BYTES - 1;
    void *raw = a->alloc(total, a->user);
    if (!raw)
        return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "the host allocator returned NULL for %zu bytes", total);
    uintptr_t start = ((uintptr_t)raw + BLOOMSIMD_BLOCK_BYTES - 1) & ~(uintptr_t)(BLOOMSIMD_BLOCK_BYTES - 1);
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE_BYTES && !(flags & BLOOMSIMD_NO_HUGEPAGES)) {
        uintptr_t first = (start + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
        uintptr_t last = (start + bytes) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
        if (last > first) (void)madvise((void *)first, last - first, MADV_HUGEPAGE);
    }
#endif
    (void)flags;
    f->storage = BLOOMSIMD_STORAGE_CUSTOM;
    f->allocator = *a;
    f->mapping = raw;
    f->mapping_bytes = total;
    bloomsimd_set_words(f, (void *)start);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_alloc_bits(bloomsimd_filter *f, uint64_t blocks, uint32_t flags)
{
    const uint32_t block_bytes = bloomsimd_layout_block_bytes(f->geometry.layout);
    if (blocks == 0 || blocks > BLOOMSIMD_MAX_BLOCKS || blocks > SIZE_MAX / block_bytes)
        return bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "%llu blocks: outside 1 .. 2^32 or this address space",
                              (unsigned long long)blocks);
    size_t bytes = (size_t)blocks * block_bytes;
    pthread_mutex_lock(&allocator_lock);
    bloomsimd_allocator a = host_allocator;
    pthread_mutex_unlock(&allocator_lock);
    if (a.alloc) return alloc_with_host(f, &a, bytes, flags);
    if (bytes >= HUGE_PAGE_BYTES) {
        size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
        void *p = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "mapping %zu bytes for the bit array failed", rounded);
#ifdef MADV_HUGEPAGE
        if (!(flags & BLOOMSIMD_NO_HUGEPAGES)) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
        f->storage = BLOOMSIMD_STORAGE_ANON_MAP;
        f->mapping = p;
        f->mapping_bytes = rounded;
        bloomsimd_set_words(f, p);
    } else {
        void *p = NULL;
        if (posix_memalign(&p, BLOOMSIMD_BLOCK_BYTES, bytes) != 0)
            return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating %zu bytes for the bit array failed", bytes);
        memset(p, 0, bytes);
        f->storage = BLOOMSIMD_STORAGE_HEAP;
        f->mapping = p;
        f->mapping_bytes = bytes;
        bloomsimd_set_words(f, p);
    }
    (void)flags;
    return BLOOMSIMD_OK;
}

void bloomsimd_free_bits(bloomsimd_filter *f)
{
    switch (f->storage) {
    case BLOOMSIMD_STORAGE_HEAP: free(f->mapping); break;
    case BLOOMSIMD_STORAGE_ANON_MAP:
    case BLOOMSIMD_STORAGE_FILE_MAP:
        if (f->mapping) munmap(f->mapping, f->mapping_bytes);
        break;
    case BLOOMSIMD_STORAGE_BORROWED: break; /* the parent's mapping */
    case BLOOMSIMD_STORAGE_CUSTOM:
        if (f->mapping) f->allocator.free(f->mapping, f->mapping_bytes, f->allocator.user);
        break;
    }
    f->mapping = NULL;
    bloomsimd_set_words(f, NULL);
}
