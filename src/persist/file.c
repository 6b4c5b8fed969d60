/*
 * file.c — bloomsimd_save (atomic replace) and bloomsimd_load.
 *
 * save writes a temporary file next to the target, fsyncs it, renames it
 * over the target and fsyncs the directory. rename(2) is atomic within one
 * file system, so after a crash the path names either the complete old file
 * or the complete new one; the directory fsync makes the rename itself
 * durable. Any failure before the rename unlinks the temporary file and
 * leaves the old file untouched. A save that dies (killed, SIGXFSZ) leaves
 * its temporary file; the next save or load of the same path removes it
 * (stale.c), which is why the temporary file is flocked while it is written.
 *
 * Rejected: mkstemp (creates mode 0600 and ignores the umask, surprising for
 * a data file); writing in place (a crash tears the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "io.h"

/* Attempts at a fresh temporary name before giving up with EEXIST. */
#define TEMP_NAME_ATTEMPTS 64

static unsigned long temp_counter;

/* Takes the writer's flock on a new temporary file (stale.c: it tells other
 * processes the file is live). False if the file must be given up: another
 * process holds the lock or already unlinked it, i.e. a cleaner that could
 * not see our PID judged it stale between our open and this call. A file
 * system without flock leaves the file unlocked (the PID test still holds). */
static bool lock_temp(int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) return errno != EWOULDBLOCK;
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_nlink > 0;
}

/* "<path>.tmp-<pid>-<counter>-<nanoseconds>", created O_EXCL with mode 0666
 * (so the umask applies as for any new file) and flocked. */
static int create_temp(const char *path, char **name_out)
{
    size_t len = strlen(path) + 80;
    char *name = malloc(len);
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    for (int attempt = 0; attempt < TEMP_NAME_ATTEMPTS; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long n = __atomic_fetch_add(&temp_counter, 1, __ATOMIC_RELAXED);
        snprintf(name, len, "%s.tmp-%ld-%lu-%ld", path, (long)getpid(), n, (long)ts.tv_nsec);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 && lock_temp(fd)) {
            *name_out = name;
            return fd;
        }
        if (fd >= 0) { /* given up: try a new name */
            close(fd);
            unlink(name);
            continue;
        }
        if (errno != EEXIST) break;
    }
    int saved = errno;
    free(name);
    errno = saved;
    return -1;
}

/* fsync of the directory holding path, so the rename is durable. File
 * systems that cannot sync a directory (EINVAL) have nothing to flush. */
static int sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash) {
        dir = strdup(".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        dir = strndup(path, n);
    }
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    if (rc != 0 && errno == EINVAL) rc = 0;
    bloomsimd_close_keep_errno(fd);
    return rc;
}

/* Writes every layer's payload at its offset, then the header (which
 * carries the payload checksums). Holes between layers read as zeros; the
 * file is extended to its full length (the last layer's padding). */
static bloomsimd_status write_file(const bloomsimd_filter *f, int fd)
{
    bloomsimd_header h;
    bloomsimd_layers_hold(f);
    bloomsimd_status st = bloomsimd_header_from_filter(f, 0, &h);
    for (uint32_t i = 0; i < h.layers && st == BLOOMSIMD_OK; i++) {
        uint64_t checksum = 0;
        st = bloomsimd_stream_payload(bloomsimd_payload_layer(f, i), fd, (off_t)h.layer[i].offset, &checksum);
        bloomsimd_header_set_checksum(&h, i, checksum);
    }
    bloomsimd_layers_release(f);
    uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX];
    uint8_t *header = st == BLOOMSIMD_OK ? bloomsimd_header_buffer(&h, stack) : NULL;
    if (st == BLOOMSIMD_OK && !header) st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the header failed");
    if (st == BLOOMSIMD_OK) {
        bloomsimd_header_encode(&h, header);
        if (ftruncate(fd, (off_t)bloomsimd_header_file_bytes(&h)) != 0 ||
            bloomsimd_pwrite_all(fd, header, h.payload_offset, 0) != 0 || fsync(fd) != 0)
            st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "writing the temporary file");
    }
    int saved = errno;
    bloomsimd_header_buffer_free(header, stack);
    bloomsimd_header_release(&h);
    errno = saved;
    return st;
}

bloomsimd_status bloomsimd_save(const bloomsimd_filter *f, const char *path)
{
    bloomsimd_error_clear();
    if (!f || !path || !*path)
        return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s", !f ? "filter is NULL" : "path is NULL or empty");
    bloomsimd_remove_stale_temps(path);
    char *temp = NULL;
    int fd = create_temp(path, &temp);
    if (fd < 0)
        return bloomsimd_fail_errno(errno == ENOMEM ? BLOOMSIMD_ERR_NO_MEMORY : BLOOMSIMD_ERR_IO,
                                    "creating a temporary file next to %.160s", path);

    /* Payload first, header last: the header carries the payload checksums. */
    bloomsimd_status st = write_file(f, fd);
    if (st != BLOOMSIMD_OK) {
        int saved = errno;
        close(fd);
        unlink(temp);
        free(temp);
        errno = saved;
        return st;
    }
    /* Renamed before it is closed: the flock is held until the temporary
     * name is gone, so no cleaner can take the finished file for stale. */
    int rc = rename(temp, path);
    if (rc != 0) {
        int saved = errno;
        unlink(temp);
        close(fd);
        free(temp);
        errno = saved;
        return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "renaming the temporary file onto %.160s", path);
    }
    free(temp);
    /* written and fsynced already; a late error here still says so */
    if (close(fd) != 0) return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "closing the file saved as %.160s", path);
    /* The new file is in place; only the durability of the rename is left. */
    if (sync_parent_dir(path) != 0)
        return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "fsync of the directory of %.160s", path);
    return BLOOMSIMD_OK;
}

/* Reads layer i's blocks straight into its bit array (no second copy of a
 * large filter), checks them, and checks the padding after them is zero. */
static bloomsimd_status read_layer(int fd, const bloomsimd_header *h, uint32_t i, bloomsimd_filter *layer)
{
    const bloomsimd_layer_entry *l = &h->layer[i];
    size_t bytes = bloomsimd_header_layer_bytes(h, i);
    ssize_t got = bloomsimd_pread_full(fd, layer->geometry.words, bytes, (off_t)l->offset);
    if (got < 0) return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "reading layer %u", (unsigned)i);
    /* A file that shrank after fstat is as bad as a short one. */
    if ((size_t)got != bytes)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "truncated while reading: layer %u has %zd of %zu bytes",
                              (unsigned)i, got, bytes);
    bloomsimd_status st =
        bloomsimd_payload_verdict(h, i, bloomsimd_payload_checksum(layer->geometry.words, bytes), false);
    if (st != BLOOMSIMD_OK) return st;
    uint64_t end = i + 1 < h->layers ? h->layer[i + 1].offset : bloomsimd_header_file_bytes(h);
    size_t gap = (size_t)(end - l->offset - bytes); /* < 4096 */
    if (gap == 0) return BLOOMSIMD_OK;
    uint8_t pad[BLOOMSIMD_FORMAT_ALIGN];
    got = bloomsimd_pread_full(fd, pad, gap, (off_t)(l->offset + bytes));
    if (got < 0) return bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "reading the padding after layer %u", (unsigned)i);
    if ((size_t)got != gap)
        return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "truncated while reading the padding after layer %u",
                              (unsigned)i);
    for (size_t j = 0; j < gap; j++)
        if (pad[j]) return bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "nonzero padding after layer %u", (unsigned)i);
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_load_with(bloomsimd_filter **out, const char *path, const bloomsimd_load_options *options)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !path) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "path" : "out");
    bloomsimd_load_choice choice;
    bloomsimd_status st = bloomsimd_load_options_check(options, false, &choice);
    if (st != BLOOMSIMD_OK) return st;
    bloomsimd_remove_stale_temps(path);
    int fd;
    uint64_t size;
    st = bloomsimd_open_regular(path, O_RDONLY, &fd, &size);
    if (st != BLOOMSIMD_OK) return st;

    uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX], *header = stack;
    size_t want = size < sizeof stack ? (size_t)size : sizeof stack;
    ssize_t got = bloomsimd_pread_full(fd, header, want, 0);
    /* a header longer than the stack's (a chain of more than 64 layers):
     * read as much as it claims, which the file's length bounds */
    uint32_t claimed = got >= BLOOMSIMD_FORMAT_FIXED_BYTES ? bloomsimd_le32_get(header + BLOOMSIMD_HDR_PAYLOAD_OFFSET) : 0;
    if (got == (ssize_t)sizeof stack && claimed > sizeof stack && claimed <= size) {
        header = malloc(claimed);
        if (!header) {
            close(fd);
            return bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating a header of %u bytes failed", (unsigned)claimed);
        }
        got = bloomsimd_pread_full(fd, header, claimed, 0);
    }
    if (got < 0) {
        st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "reading the header of %.160s", path);
        bloomsimd_header_buffer_free(header, stack);
        bloomsimd_close_keep_errno(fd);
        return st;
    }
    bloomsimd_header h;
    st = bloomsimd_header_decode(header, (size_t)got, size, &h);
    bloomsimd_header_buffer_free(header, stack);
    if (st != BLOOMSIMD_OK) {
        close(fd);
        return st;
    }
    bloomsimd_filter *f;
    st = bloomsimd_filter_from_header(&h, NULL, &choice, &f);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_header_release(&h);
        close(fd);
        return st;
    }
    for (uint32_t i = 0; i < h.layers && st == BLOOMSIMD_OK; i++) st = read_layer(fd, &h, i, bloomsimd_payload_layer(f, i));
    int saved = errno;
    close(fd);
    bloomsimd_header_release(&h);
    if (st != BLOOMSIMD_OK) {
        bloomsimd_destroy(f);
        errno = saved;
        return st;
    }
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_load(bloomsimd_filter **out, const char *path)
{
    return bloomsimd_load_with(out, path, NULL);
}
