/*
 * io.c — complete reads/writes, checked opens and the streamed payload.
 */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
/* Compiled into this file rather than called in libxxhash.so, so that under
 * ASan the checksum's reads of untrusted buffers are checked too. */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "format.h"

/* Bounce buffer for streaming: large enough that per-syscall cost vanishes,
 * small enough not to matter next to a multi-GiB filter. */
#define STREAM_CHUNK_BYTES ((size_t)1 << 20)
/* Linux transfers at most 0x7ffff000 bytes per read/write call anyway. */
#define MAX_TRANSFER_BYTES ((size_t)1 << 30)

int bloomsimd_pwrite_all(int fd, const void *buf, size_t len, off_t offset)
{
    const uint8_t *p = buf;
    while (len > 0) {
        size_t want = len < MAX_TRANSFER_BYTES ? len : MAX_TRANSFER_BYTES;
        ssize_t n = pwrite(fd, p, want, offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

ssize_t bloomsimd_pread_full(int fd, void *buf, size_t len, off_t offset)
{
    uint8_t *p = buf;
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < MAX_TRANSFER_BYTES ? len - done : MAX_TRANSFER_BYTES;
        ssize_t n = pread(fd, p + done, want, offset + (off_t)done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

void bloomsimd_close_keep_errno(int fd)
{
    int saved = errno;
    close(fd);
    errno = saved;
}

bloomsimd_status bloomsimd_open_regular(const char *path, int oflags, int *fd_out, uint64_t *size)
{
    int fd = open(path, oflags | O_CLOEXEC);
    if (fd < 0) return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "open %.160s", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        bloomsimd_close_keep_errno(fd);
        return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "fstat %.160s", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "%.160s is not a regular file", path);
    }
    *fd_out = fd;
    *size = (uint64_t)st.st_size;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_stream_payload(const bloomsimd_filter *f, int fd, off_t payload_offset,
                                          uint64_t *checksum)
{
    size_t total = bloomsimd_filter_bytes(f);
    if (fd < 0 && !f->geometry.concurrent) {
        /* Checksum only, and no other thread may write: no copy needed. */
        *checksum = XXH3_64bits(f->geometry.words, total);
        return BLOOMSIMD_OK;
    }
    size_t chunk_cap = total < STREAM_CHUNK_BYTES ? total : STREAM_CHUNK_BYTES;
    uint8_t *chunk = malloc(chunk_cap);
    XXH3_state_t *state = XXH3_createState();
    bloomsimd_status st = BLOOMSIMD_OK;
    if (!chunk || !state || XXH3_64bits_reset(state) != XXH_OK) {
        st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a %zu-byte copy buffer failed", chunk_cap);
        goto done;
    }
    for (size_t off = 0; off < total; off += chunk_cap) {
        size_t n = total - off < chunk_cap ? total - off : chunk_cap;
        bloomsimd_payload_copy(f, chunk, off, n);
        (void)XXH3_64bits_update(state, chunk, n);
        if (fd >= 0 && bloomsimd_pwrite_all(fd, chunk, n, payload_offset + (off_t)off) != 0) {
            st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "writing the payload");
            goto done;
        }
    }
    *checksum = XXH3_64bits_digest(state);
done:;
    int saved = errno;
    XXH3_freeState(state);
    free(chunk);
    errno = saved;
    return st;
}
