/*
 * single_key.h — a kernel's single-key entries (kernel.h, bloomsimd_single_key),
 * written once from its per-layout probes.
 *
 * BLOOMSIMD_SINGLE_KEY(P, S) defines, for a kernel whose block512 probes are
 * P##_add_one / P##_contains_one / P##_add_new_one and whose split256 probes
 * are S##_add_one / S##_contains_one / S##_add_new_one (all static in the
 * kernel's file, so they inline here):
 *   P##_single_block512_{add,contains,add_new}_{u64,u64_mum,hash}
 *   P##_single_split256_{add,contains,add_new}_{u64,u64_mum,hash}
 * and BLOOMSIMD_SINGLE_KEY_ENTRIES(P) is the kernel table's initializer of
 * `single`. The u64 forms hash with bloomsimd_xxh3_u64, the _mum forms with
 * bloomsimd_mum_u64 (kernels/layout.h), in general registers: for one key, the scalar multiply chain is shorter than
 * moving the key into a vector register and back.
 */
#ifndef BLOOMSIMD_SINGLE_KEY_H
#define BLOOMSIMD_SINGLE_KEY_H

#include "kernel.h"
#include "layout.h"

#define BLOOMSIMD_SINGLE_KEY_LAYOUT(P, L, PROBE)                                                                    \
    static bloomsimd_status P##_single_##L##_add_hash(const bloomsimd_geometry *g, uint64_t hash)                   \
    {                                                                                                               \
        PROBE##_add_one(g, hash);                                                                                   \
        return BLOOMSIMD_OK;                                                                                        \
    }                                                                                                               \
    static bool P##_single_##L##_contains_hash(const bloomsimd_geometry *g, uint64_t hash)                          \
    {                                                                                                               \
        return PROBE##_contains_one(g, hash);                                                                       \
    }                                                                                                               \
    static bloomsimd_status P##_single_##L##_add_u64(const bloomsimd_geometry *g, uint64_t key)                     \
    {                                                                                                               \
        PROBE##_add_one(g, bloomsimd_xxh3_u64(key, g->hash_bitflip));                                               \
        return BLOOMSIMD_OK;                                                                                        \
    }                                                                                                               \
    static bool P##_single_##L##_contains_u64(const bloomsimd_geometry *g, uint64_t key)                            \
    {                                                                                                               \
        return PROBE##_contains_one(g, bloomsimd_xxh3_u64(key, g->hash_bitflip));                                   \
    }                                                                                                               \
    static bloomsimd_status P##_single_##L##_add_u64_mum(const bloomsimd_geometry *g, uint64_t key)                 \
    {                                                                                                               \
        PROBE##_add_one(g, bloomsimd_mum_u64(key, g->mum_a, g->mum_b));                                             \
        return BLOOMSIMD_OK;                                                                                        \
    }                                                                                                               \
    static bool P##_single_##L##_contains_u64_mum(const bloomsimd_geometry *g, uint64_t key)                        \
    {                                                                                                               \
        return PROBE##_contains_one(g, bloomsimd_mum_u64(key, g->mum_a, g->mum_b));                                 \
    }                                                                                                               \
    static bloomsimd_status P##_single_##L##_add_new_hash(const bloomsimd_geometry *g, uint64_t hash, bool *was_new) \
    {                                                                                                               \
        return bloomsimd_single_key_new(g, PROBE##_add_new_one(g, hash), was_new);                                  \
    }                                                                                                               \
    static bloomsimd_status P##_single_##L##_add_new_u64(const bloomsimd_geometry *g, uint64_t key, bool *was_new)  \
    {                                                                                                               \
        return bloomsimd_single_key_new(g, PROBE##_add_new_one(g, bloomsimd_xxh3_u64(key, g->hash_bitflip)),        \
                                        was_new);                                                                   \
    }                                                                                                               \
    static bloomsimd_status P##_single_##L##_add_new_u64_mum(const bloomsimd_geometry *g, uint64_t key,             \
                                                             bool *was_new)                                         \
    {                                                                                                               \
        return bloomsimd_single_key_new(g, PROBE##_add_new_one(g, bloomsimd_mum_u64(key, g->mum_a, g->mum_b)),      \
                                        was_new);                                                                   \
    }

#define BLOOMSIMD_SINGLE_KEY(P, S)                                                                                  \
    BLOOMSIMD_SINGLE_KEY_LAYOUT(P, block512, P)                                                                     \
    BLOOMSIMD_SINGLE_KEY_LAYOUT(P, split256, S)

#define BLOOMSIMD_SINGLE_KEY_SLOT(P, L)                                                                             \
    {.add_u64 = P##_single_##L##_add_u64,                                                                           \
     .contains_u64 = P##_single_##L##_contains_u64,                                                                 \
     .add_u64_mum = P##_single_##L##_add_u64_mum,                                                                   \
     .contains_u64_mum = P##_single_##L##_contains_u64_mum,                                                         \
     .add_hash = P##_single_##L##_add_hash,                                                                         \
     .contains_hash = P##_single_##L##_contains_hash,                                                               \
     .add_new_u64 = P##_single_##L##_add_new_u64,                                                                   \
     .add_new_u64_mum = P##_single_##L##_add_new_u64_mum,                                                           \
     .add_new_hash = P##_single_##L##_add_new_hash}

/* In slot order (kernel.h, bloomsimd_layout_slot): block512, split256. */
#define BLOOMSIMD_SINGLE_KEY_ENTRIES(P) {BLOOMSIMD_SINGLE_KEY_SLOT(P, block512), BLOOMSIMD_SINGLE_KEY_SLOT(P, split256)}

#endif /* BLOOMSIMD_SINGLE_KEY_H */
