/*
 * stream.h — the stream reader shared by the callback and file-descriptor
 * entry points.
 */
#ifndef BLOOMSIMD_PERSIST_STREAM_H
#define BLOOMSIMD_PERSIST_STREAM_H

#include "format.h"

/* bloomsimd_deserialize_stream with a known upper bound on the bytes the
 * stream still holds (UINT64_MAX: unknown): a header claiming more is
 * BLOOMSIMD_ERR_CORRUPT before anything is allocated. */
bloomsimd_status bloomsimd_stream_read(bloomsimd_filter **out, bloomsimd_read_fn read, void *ctx,
                                       const bloomsimd_load_options *options, uint64_t limit);

#endif
