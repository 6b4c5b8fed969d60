/*
 * parquet.h — shared pieces of the Parquet code (footer.c, header.c).
 */
#ifndef BLOOMSIMD_PARQUET_PARQUET_H
#define BLOOMSIMD_PARQUET_PARQUET_H

#include "../baseline.h"

#include <stdint.h>

#include "thrift.h"

#define BLOOMSIMD_PARQUET_MAGIC "PAR1"
#define BLOOMSIMD_PARQUET_MAGIC_ENCRYPTED "PARE" /* encrypted footer (Parquet modular encryption) */
/* Leading magic + footer length + trailing magic. */
#define BLOOMSIMD_PARQUET_MIN_FILE_BYTES 12u

static inline uint32_t bloomsimd_parquet_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Bit i of a seen-fields mask (fields 1..63; others are never required). */
static inline uint64_t bloomsimd_parquet_field_bit(int16_t id)
{
    return id > 0 && id < 64 ? UINT64_C(1) << id : 0;
}

#endif
