/*
 * internal.h — the filter object and the core's internal functions.
 */
#ifndef BLOOMSIMD_INTERNAL_H
#define BLOOMSIMD_INTERNAL_H

#include "baseline.h"

#include <stddef.h>
#include <stdint.h>

#include "../include/bloomsimd.h"
#include "../kernels/kernel.h"

/* How the bit array is held; decides how destroy releases it. */
typedef enum bloomsimd_storage {
    BLOOMSIMD_STORAGE_HEAP,     /* posix_memalign */
    BLOOMSIMD_STORAGE_ANON_MAP, /* anonymous mmap (large filters, huge pages) */
    BLOOMSIMD_STORAGE_FILE_MAP  /* mapping of a saved filter file */
} bloomsimd_storage;

struct bloomsimd_filter {
    bloomsimd_geometry geometry;
    const bloomsimd_kernel *kernel;
    uint64_t capacity;
    double fpr;
    uint64_t seed;
    uint32_t flags;
    bool read_only;
    bloomsimd_storage storage;
    void *mapping;        /* what to free / munmap */
    size_t mapping_bytes; /* length of the mapping (FILE_MAP, ANON_MAP) */
    int fd;               /* FILE_MAP: the open file, else -1 */
};

/* ---- layout tables (tables/select_tables.c, generated) ---- */
/* bloomsimd_select_tables[k - 1]: the 64 word-selection masks of k (layout.h section 3). */
extern const uint16_t bloomsimd_select_tables[BLOOMSIMD_MAX_K][BLOOMSIMD_SELECT_ENTRIES];

/* ---- FPR model and sizing (fpr_model.c, sizing.c) ---- */
/* FPR(n, m, k) of kernels/layout.h section 5: exact for layout 2. NaN for k
 * outside 1..16 or when the model's terms cannot be allocated. */
double bloomsimd_model_fpr(double items, double blocks, uint32_t k);
/* Layout 1's formula (uniformly random k-subset): the bracket for sizing. */
double bloomsimd_model_fpr_hypergeometric(double items, double blocks, uint32_t k);
/* Terms of the exact model for k (0 if k is out of range or out of memory). */
uint32_t bloomsimd_model_term_count(uint32_t k);

typedef struct bloomsimd_geometry_choice {
    uint64_t blocks;
    uint32_t k;
} bloomsimd_geometry_choice;

/* Sizing of kernels/layout.h section 6, with the overrides of bloomsimd_options.
 * Validates the options (except kernel name). */
bloomsimd_status bloomsimd_choose_geometry(const bloomsimd_options *options, bloomsimd_geometry_choice *choice,
                                           double *target_fpr);

/* ---- memory (memory.c) ---- */
/* Zeroed, 64-byte-aligned bit array for `blocks` blocks; huge pages for
 * >= 2 MiB unless BLOOMSIMD_NO_HUGEPAGES. Fills filter->geometry.words,
 * mapping, mapping_bytes, storage. */
bloomsimd_status bloomsimd_alloc_bits(bloomsimd_filter *filter, uint64_t blocks, uint32_t flags);
void bloomsimd_free_bits(bloomsimd_filter *filter);

/* ---- filter object (filter.c) ---- */
/* Allocates a filter struct around an already-chosen geometry and kernel,
 * without the bit array. */
bloomsimd_status bloomsimd_filter_init(bloomsimd_filter *filter, uint64_t blocks, uint32_t k, uint64_t seed,
                                       uint32_t flags, const bloomsimd_kernel *kernel);

static inline size_t bloomsimd_filter_bytes(const bloomsimd_filter *f)
{
    return (size_t)f->geometry.nblocks * 64u;
}

#endif
