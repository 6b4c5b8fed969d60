/*
 * stream_fd.c — bloomsimd_serialize_fd / bloomsimd_deserialize_fd: the
 * stream calls over a file descriptor (a pipe, a socket, a file at its
 * current offset).
 *
 * Short transfers are retried until done, EINTR is retried, and any other
 * failure is BLOOMSIMD_ERR_IO with errno kept (EAGAIN from a non-blocking
 * descriptor included: these calls do not poll). On a regular file the bytes
 * left after the current offset bound what a header may claim, so a forged
 * size is rejected before allocation, as bloomsimd_load does.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream.h"

/* Linux transfers at most 0x7ffff000 bytes per call anyway. */
#define MAX_TRANSFER_BYTES ((size_t)1 << 30)

static bloomsimd_status fd_write(void *ctx, const void *buf, size_t len)
{
    int fd = *(const int *)ctx;
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len < MAX_TRANSFER_BYTES ? len : MAX_TRANSFER_BYTES);
        if (n < 0) {
            if (errno == EINTR) continue;
            return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "writing to file descriptor %d", fd);
        }
        if (n == 0) { /* no progress: would loop forever */
            errno = EIO;
            return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "writing to file descriptor %d made no progress", fd);
        }
        p += n;
        len -= (size_t)n;
    }
    return BLOOMSIMD_OK;
}

static bloomsimd_status fd_read(void *ctx, void *buf, size_t len, size_t *got)
{
    int fd = *(const int *)ctx;
    for (;;) {
        ssize_t n = read(fd, buf, len < MAX_TRANSFER_BYTES ? len : MAX_TRANSFER_BYTES);
        if (n >= 0) {
            *got = (size_t)n;
            return BLOOMSIMD_OK;
        }
        if (errno != EINTR) return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "reading from file descriptor %d", fd);
    }
}

bloomsimd_status bloomsimd_serialize_fd(const bloomsimd_filter *f, int fd)
{
    if (fd < 0) {
        bloomsimd_error_clear();
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "file descriptor %d is negative", fd);
    }
    return bloomsimd_serialize_stream(f, fd_write, &fd);
}

bloomsimd_status bloomsimd_deserialize_fd(bloomsimd_filter **out, int fd, const bloomsimd_load_options *options)
{
    if (out) *out = NULL;
    if (fd < 0) {
        bloomsimd_error_clear();
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "file descriptor %d is negative", fd);
    }
    uint64_t limit = UINT64_MAX;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0) limit = st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
    }
    return bloomsimd_stream_read(out, fd_read, &fd, options, limit);
}
