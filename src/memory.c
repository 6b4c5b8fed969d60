/*
 * memory.c — the bit array: zeroed, 64-byte aligned (one block per cache line).
 *
 * Filters of 2 MiB or more are anonymous mappings (zero pages arrive lazily,
 * so creating a 1 GiB filter is instant) with MADV_HUGEPAGE: with 4 KiB pages
 * a random probe into a large filter also misses the TLB; 2 MiB pages make
 * that walk rare. Under THP "madvise" mode this request is what enables them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

bloomsimd_status bloomsimd_alloc_bits(bloomsimd_filter *f, uint64_t blocks, uint32_t flags)
{
    if (blocks == 0 || blocks > BLOOMSIMD_MAX_BLOCKS || blocks > SIZE_MAX / BLOOMSIMD_BLOCK_BYTES)
        return BLOOMSIMD_ERR_TOO_LARGE;
    size_t bytes = (size_t)blocks * BLOOMSIMD_BLOCK_BYTES;
    if (bytes >= HUGE_PAGE_BYTES) {
        size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
        void *p = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return BLOOMSIMD_ERR_NO_MEMORY;
#ifdef MADV_HUGEPAGE
        if (!(flags & BLOOMSIMD_NO_HUGEPAGES)) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
        f->storage = BLOOMSIMD_STORAGE_ANON_MAP;
        f->mapping = p;
        f->mapping_bytes = rounded;
        f->geometry.words = p;
    } else {
        void *p = NULL;
        if (posix_memalign(&p, BLOOMSIMD_BLOCK_BYTES, bytes) != 0) return BLOOMSIMD_ERR_NO_MEMORY;
        memset(p, 0, bytes);
        f->storage = BLOOMSIMD_STORAGE_HEAP;
        f->mapping = p;
        f->mapping_bytes = bytes;
        f->geometry.words = p;
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
    }
    f->mapping = NULL;
    f->geometry.words = NULL;
}
