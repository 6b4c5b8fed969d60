/*
 * filterfile.c — see filterfile.h.
 */
#include "filterfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* docs/FORMAT.md, "Fixed header". */
static const unsigned char FORMAT_MAGIC[8] = {0x89, 'B', 'S', 'I', 'M', 'D', '\r', '\n'};
#define FORMAT_STATE_DIRTY 0x1u

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool ff_read_header(const char *path, ff_header *h)
{
    memset(h, 0, sizeof *h);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    unsigned char b[128];
    struct stat st;
    ssize_t n = pread(fd, b, sizeof b, 0);
    bool ok = n >= 0 && fstat(fd, &st) == 0;
    close(fd);
    if (!ok) return false;
    h->file_bytes = (uint64_t)st.st_size;
    h->magic_ok = n >= 8 && memcmp(b, FORMAT_MAGIC, 8) == 0;
    if (n < 128) return true;
    h->format_version = le32(b + 8);
    h->layout_id = le32(b + 16);
    h->hash_id = le32(b + 20);
    h->state_flags = le32(b + 44);
    h->filter_flags = le32(b + 48);
    return true;
}

/* A _CORRUPT file that maps with ACCEPT_UNSYNCED was written through a
 * writable mapping whose writer never synced (killed, or still running). */
static bool is_unsynced(const char *path)
{
    bloomsimd_filter *f = NULL;
    if (bloomsimd_map(&f, path, BLOOMSIMD_MAP_READ_ONLY | BLOOMSIMD_MAP_ACCEPT_UNSYNCED) != BLOOMSIMD_OK)
        return false;
    bloomsimd_destroy(f);
    return true;
}

void ff_report_open_error(const char *path, bloomsimd_status st, int err)
{
    switch (st) {
    case BLOOMSIMD_ERR_IO:
        if (err == EWOULDBLOCK)
            cli_error("%s: in use by another writer (a running 'bloomsimd dedup --state'?): one writer per file",
                      path);
        else if (err == ENOENT && (strcmp(cli_cmd, "add") == 0 || strcmp(cli_cmd, "query") == 0))
            cli_error("%s: %s (make one with 'bloomsimd create %s --capacity N --fpr P')", path, strerror(err),
                      path);
        else
            cli_error("%s: %s", path, strerror(err));
        return;
    case BLOOMSIMD_ERR_CORRUPT: {
        /* The library's reason first: is_unsynced() below calls the library again. */
        char reason[384];
        snprintf(reason, sizeof reason, "%s", cli_status_text(st));
        ff_header h;
        bool checking = strcmp(cli_cmd, "check") == 0;
        if (is_unsynced(path)) {
            cli_error("%s: not synced: its writer stopped without syncing (killed?), so its checksum is stale;"
                      " keys added since its last sync may be partly missing."
                      " --accept-unsynced uses it as it is (a later sync makes it valid again)",
                      path);
        } else if (ff_read_header(path, &h) && !h.magic_ok) {
            cli_error("%s: not a bloomsimd filter file (%s)", path,
                      h.file_bytes == 0 ? "empty" : "no bloomsimd magic at the start");
        } else {
            cli_error("%s: %s (rebuild it from its keys%s)", path, reason,
                      checking ? "" : "; 'bloomsimd check' validates files");
        }
        return;
    }
    case BLOOMSIMD_ERR_VERSION:
        /* The detail names the field this build does not know and what it reads. */
        cli_error("%s: %s; this is libbloomsimd %s: rebuild the file from its keys with this version,"
                  " or read it with the version that wrote it",
                  path, cli_status_text(st), bloomsimd_version_string());
        return;
    case BLOOMSIMD_ERR_KERNEL_UNAVAILABLE:
        cli_error("%s: %s (check the BLOOMSIMD_KERNEL environment variable: %s)", path,
                  bloomsimd_status_string(st), getenv("BLOOMSIMD_KERNEL") ? getenv("BLOOMSIMD_KERNEL") : "unset");
        return;
    default:
        cli_error("%s: %s", path, cli_status_text(st));
        return;
    }
}

bool ff_open(const char *path, ff_mode mode, bool accept_unsynced, bloomsimd_filter **out)
{
    bloomsimd_status st;
    unsigned unsynced = accept_unsynced ? BLOOMSIMD_MAP_ACCEPT_UNSYNCED : 0;
    errno = 0;
    switch (mode) {
    case FF_MAP_READ: st = bloomsimd_map(out, path, BLOOMSIMD_MAP_READ_ONLY | unsynced); break;
    case FF_MAP_WRITE: st = bloomsimd_map(out, path, BLOOMSIMD_MAP_WRITABLE | unsynced); break;
    default:
        if (accept_unsynced) {
            /* The loader has no ACCEPT_UNSYNCED: copy out of a read-only mapping instead.
             * The clone keeps everything the file has (layout, hash, layers); options
             * rebuilt from its info would take the kernel's default layout. */
            bloomsimd_filter *m;
            st = bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY | unsynced);
            if (st == BLOOMSIMD_OK) {
                st = bloomsimd_clone(out, m);
                bloomsimd_destroy(m);
            }
        } else {
            st = bloomsimd_load(out, path);
        }
        break;
    }
    if (st == BLOOMSIMD_OK) return true;
    ff_report_open_error(path, st, errno);
    return false;
}

bool ff_save(const bloomsimd_filter *f, const char *path)
{
    cli_block_stop_signals(true);
    errno = 0;
    bloomsimd_status st = bloomsimd_save(f, path);
    int err = errno;
    cli_block_stop_signals(false);
    if (st == BLOOMSIMD_OK) return true;
    if (st == BLOOMSIMD_ERR_IO)
        cli_error("%s: cannot save: %s (the previous file, if any, is unchanged)", path, strerror(err));
    else
        cli_error("%s: cannot save: %s", path, cli_status_text(st));
    return false;
}

bool ff_locked_by_writer(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return locked;
}

/* Bytes of one block of the filter these options make (the layout of the
 * kernel the library picks when no layout is asked for). */
static uint64_t block_bytes_of_new(bloomsimd_options o)
{
    bloomsimd_sizing z;
    o.capacity = 1, o.bits = 0, o.growth = 0;
    bool split = bloomsimd_size_for(&o, &z) == BLOOMSIMD_OK && z.layout == BLOOMSIMD_LAYOUT_SPLIT256;
    return split ? BLOOMSIMD_SPLIT256_BLOCK_BYTES : BLOOMSIMD_BLOCK_BYTES;
}

bool ff_create(const cli_size_options *s, uint64_t default_capacity, double default_fpr, bloomsimd_filter **out)
{
    *out = NULL;
    if (s->have_growth && s->bits) {
        cli_usage_error("--growth sizes each layer from --capacity and --fpr: not with --bits");
        return false;
    }
    bloomsimd_options o = {0};
    o.capacity = s->have_capacity ? s->capacity : (s->bits ? 0 : default_capacity);
    o.fpr = s->have_fpr ? s->fpr : default_fpr;
    o.bits = s->bits;
    o.k = s->k;
    o.seed = s->seed;
    o.growth = s->growth;
    o.layout = s->layout;
    o.flags = s->u64_hash;
    bloomsimd_status st = bloomsimd_create_with(out, &o);
    if (st == BLOOMSIMD_ERR_INVALID_ARGUMENT && o.growth) {
        /* The header documents scalable filters before every build has them:
         * if the same filter without growth is fine, growth is what is missing. */
        bloomsimd_filter *plain;
        o.growth = 0;
        if (bloomsimd_create_with(&plain, &o) == BLOOMSIMD_OK) {
            bloomsimd_destroy(plain);
            cli_error("--growth: this libbloomsimd (%s) cannot create scalable filters yet; size --capacity for "
                      "the most keys you expect instead",
                      bloomsimd_version_string());
            return false;
        }
        o.growth = s->growth;
    }
    switch (st) {
    case BLOOMSIMD_OK: return true;
    case BLOOMSIMD_ERR_TOO_LARGE:
        cli_error("a filter for %llu keys at FPR %g needs more than %llu blocks (%llu GiB), the layout's limit",
                  (unsigned long long)o.capacity, o.fpr, (unsigned long long)BLOOMSIMD_MAX_BLOCKS,
                  (unsigned long long)(BLOOMSIMD_MAX_BLOCKS * block_bytes_of_new(o) >> 30));
        return false;
    case BLOOMSIMD_ERR_NO_MEMORY:
        cli_error("not enough memory for a filter of %llu keys at FPR %g", (unsigned long long)o.capacity, o.fpr);
        return false;
    case BLOOMSIMD_ERR_KERNEL_UNAVAILABLE:
        cli_error("%s (BLOOMSIMD_KERNEL=%s)", bloomsimd_status_string(st),
                  getenv("BLOOMSIMD_KERNEL") ? getenv("BLOOMSIMD_KERNEL") : "");
        return false;
    default:
        cli_error("cannot create the filter: %s", cli_status_text(st));
        return false;
    }
}
