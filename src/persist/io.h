/*
 * io.h — system-call helpers for the persistence code: complete reads and
 * writes despite EINTR and short transfers, and the streaming payload
 * checksum shared by save and sync.
 */
#ifndef BLOOMSIMD_PERSIST_IO_H
#define BLOOMSIMD_PERSIST_IO_H

#include "../baseline.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../internal.h"

/* Writes all of buf at offset. 0, or -1 with errno set (EIO for a write
 * that makes no progress). */
int bloomsimd_pwrite_all(int fd, const void *buf, size_t len, off_t offset);

/* Reads up to len bytes at offset, stopping early only at end of file.
 * The byte count, or -1 with errno set. */
ssize_t bloomsimd_pread_full(int fd, void *buf, size_t len, off_t offset);

/* Opens path for a bloomsimd file operation (O_CLOEXEC added) and requires a
 * regular file. The fd and its size, or BLOOMSIMD_ERR_IO with errno kept
 * (EISDIR for a directory, EINVAL for another non-regular file). */
bloomsimd_status bloomsimd_open_regular(const char *path, int oflags, int *fd, uint64_t *size);

/* Closes fd without changing errno (for failure paths). */
void bloomsimd_close_keep_errno(int fd);

/*
 * Streams f's payload through a bounded bounce buffer: every chunk is copied
 * (bloomsimd_payload_copy), hashed into the payload checksum and, when fd is
 * >= 0, written to fd at payload_offset + chunk offset. The file therefore
 * holds exactly the bytes that were checksummed, even while a CONCURRENT
 * filter is being inserted into. With fd < 0 and a non-concurrent filter
 * the payload is hashed in place (nothing else may write it meanwhile).
 * BLOOMSIMD_OK, _NO_MEMORY, or _IO (errno kept).
 */
bloomsimd_status bloomsimd_stream_payload(const bloomsimd_filter *f, int fd, off_t payload_offset,
                                          uint64_t *checksum);

/* Deletes the temporary files that saves of `path` left behind when they
 * died (stale.c: the name pattern, and why a live writer's file is never
 * deleted). Best effort; errno is unchanged. */
void bloomsimd_remove_stale_temps(const char *path);

#endif
