/*
 * map.c — bloomsimd_map and bloomsimd_sync: probing a saved file in place.
 *
 * The payload starts at offset 4096 of a page-aligned MAP_SHARED mapping, so
 * blocks stay 64-byte aligned and the kernels run on the file's pages
 * directly. Read-only mappings use PROT_READ and never write; the core
 * refuses adds to them (read_only) before any kernel could fault.
 *
 * Writable mappings and the DIRTY flag (docs/FORMAT.md "Writable mappings"):
 * inserts reach the file through the page cache at times we do not control,
 * while the header's payload checksum is only rewritten by bloomsimd_sync.
 * So before the first byte can change, map sets DIRTY and msyncs the header;
 * DIRTY then stays set for as long as the file is mapped writable. A reader
 * always checks the payload checksum: a match is a consistent file whatever
 * DIRTY says; a mismatch under DIRTY is "written but not synced", accepted
 * only with BLOOMSIMD_MAP_ACCEPT_UNSYNCED; a mismatch without DIRTY is
 * corruption. Rejected: clearing DIRTY in sync, because the next insert
 * could reach the disk before DIRTY is set again, and a crash would then look
 * like corruption instead of an unsynced file.
 *
 * One writer per file: a writable mapping holds flock(LOCK_EX) on its fd
 * (released when bloomsimd_destroy closes it); a second writable map fails
 * with BLOOMSIMD_ERR_IO and errno EWOULDBLOCK. Readers take no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format.h"
#include "io.h"
#include "../layers/layers.h"

static bloomsimd_status fail_unmap(void *map, size_t bytes, int fd, bloomsimd_status st)
{
    int saved = errno;
    if (map) munmap(map, bytes);
    close(fd);
    errno = saved;
    return st;
}

bloomsimd_status bloomsimd_map_with(bloomsimd_filter **out, const char *path, const bloomsimd_load_options *options)
{
    bloomsimd_error_clear();
    if (out) *out = NULL;
    if (!out || !path) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "%s is NULL", out ? "path" : "out");
    bloomsimd_load_choice choice;
    bloomsimd_status st = bloomsimd_load_options_check(options, true, &choice);
    if (st != BLOOMSIMD_OK) return st;
    bool writable = (choice.map_flags & BLOOMSIMD_MAP_WRITABLE) != 0;
    bool accept_unsynced = (choice.map_flags & BLOOMSIMD_MAP_ACCEPT_UNSYNCED) != 0;

    int fd;
    uint64_t size;
    st = bloomsimd_open_regular(path, writable ? O_RDWR : O_RDONLY, &fd, &size);
    if (st != BLOOMSIMD_OK) return st;
    if (writable && flock(fd, LOCK_EX | LOCK_NB) != 0)
        return fail_unmap(NULL, 0, fd,
                          bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "%.160s: another handle maps it writable (flock)", path));
    if (size < BLOOMSIMD_FORMAT_FIXED_BYTES) {
        /* Too short for a header (also keeps mmap away from length 0): the
         * decoder says what the few bytes are not. */
        uint8_t head[BLOOMSIMD_FORMAT_FIXED_BYTES];
        ssize_t got = bloomsimd_pread_full(fd, head, (size_t)size, 0);
        bloomsimd_header h;
        st = bloomsimd_header_decode(head, got < 0 ? 0 : (size_t)got, size, &h);
        if (st == BLOOMSIMD_OK) bloomsimd_header_release(&h);
        return fail_unmap(NULL, 0, fd, st != BLOOMSIMD_OK ? st : bloomsimd_fail(BLOOMSIMD_ERR_CORRUPT, "too short"));
    }
    if (size > SIZE_MAX)
        return fail_unmap(NULL, 0, fd, bloomsimd_fail(BLOOMSIMD_ERR_TOO_LARGE, "the file does not fit this address space"));

    size_t bytes = (size_t)size;
    void *map = mmap(NULL, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return fail_unmap(NULL, 0, fd, bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "mmap of %zu bytes", bytes));

    uint8_t *header = map;
    bloomsimd_header h;
    st = bloomsimd_header_decode(header, bytes, size, &h);
    if (st != BLOOMSIMD_OK) return fail_unmap(map, bytes, fd, st);
    st = bloomsimd_image_verify(&h, header, accept_unsynced);

    if (st == BLOOMSIMD_OK && writable && !(h.state_flags & BLOOMSIMD_FORMAT_STATE_DIRTY)) {
        bloomsimd_le32_put(header + BLOOMSIMD_HDR_STATE_FLAGS, h.state_flags | BLOOMSIMD_FORMAT_STATE_DIRTY);
        bloomsimd_header_reseal(header);
        if (msync(map, h.payload_offset, MS_SYNC) != 0) st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "msync of the header");
    }

    bloomsimd_filter *f = NULL;
    if (st == BLOOMSIMD_OK) st = bloomsimd_filter_from_header(&h, header, &choice, &f);
    uint32_t layers = h.layers;
    bloomsimd_header_release(&h);
    if (st != BLOOMSIMD_OK) return fail_unmap(map, bytes, fd, st);
    /* the handle owns the mapping; a layered filter's layers borrow from it */
    f->storage = BLOOMSIMD_STORAGE_FILE_MAP;
    f->mapping = map;
    f->mapping_bytes = bytes;
    bloomsimd_filter_set_read_only(f, !writable);
    for (uint32_t i = 0; f->layers && i < layers; i++)
        bloomsimd_filter_set_read_only(bloomsimd_layer_get(f->layers, i), !writable);
    f->fd = fd; /* keeps the writer's lock until bloomsimd_destroy */
    *out = f;
    return BLOOMSIMD_OK;
}

bloomsimd_status bloomsimd_map(bloomsimd_filter **out, const char *path, unsigned flags)
{
    bloomsimd_load_options options = {.map_flags = flags};
    return bloomsimd_map_with(out, path, &options);
}

bloomsimd_status bloomsimd_sync(bloomsimd_filter *f)
{
    bloomsimd_error_clear();
    if (!f) return bloomsimd_fail(BLOOMSIMD_ERR_INVALID_ARGUMENT, "filter is NULL");
    if (f->storage != BLOOMSIMD_STORAGE_FILE_MAP || f->read_only) return BLOOMSIMD_OK;

    /* Checksum a snapshot of each layer, make the payload durable, then
     * publish the header (checksums, counters, a window's rotations and
     * generation ages): if the header reaches the disk, the payload it
     * describes is already there. Inserts racing with sync leave a mismatch
     * under DIRTY, which readers see as "unsynced", never as corruption. A
     * mapped filter cannot grow, so its layout is the file's. */
    bloomsimd_header h;
    bloomsimd_layers_hold(f);
    bloomsimd_status st = bloomsimd_header_from_filter(f, BLOOMSIMD_FORMAT_STATE_DIRTY, &h);
    for (uint32_t i = 0; i < h.layers && st == BLOOMSIMD_OK; i++) {
        uint64_t checksum = 0;
        st = bloomsimd_stream_payload(bloomsimd_payload_layer(f, i), -1, 0, &checksum);
        bloomsimd_header_set_checksum(&h, i, checksum);
    }
    if (st == BLOOMSIMD_OK && msync(f->mapping, f->mapping_bytes, MS_SYNC) != 0)
        st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "msync of the payload");
    if (st == BLOOMSIMD_OK) {
        uint8_t stack[BLOOMSIMD_FORMAT_HEADER_MAX];
        uint8_t *header = bloomsimd_header_buffer(&h, stack);
        if (!header) {
            st = bloomsimd_fail(BLOOMSIMD_ERR_NO_MEMORY, "allocating the header failed");
        } else {
            bloomsimd_header_encode(&h, header);
            memcpy(f->mapping, header, h.payload_offset);
            bloomsimd_header_buffer_free(header, stack);
            if (msync(f->mapping, h.payload_offset, MS_SYNC) != 0)
                st = bloomsimd_fail_errno(BLOOMSIMD_ERR_IO, "msync of the header");
        }
    }
    bloomsimd_header_release(&h);
    bloomsimd_layers_release(f);
    return st;
}
