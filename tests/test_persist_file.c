/*
 * test_persist_file.c — files: a failed save leaves the old file intact,
 * read-only mappings refuse adds and are shared by processes, writable
 * mappings keep their inserts across close/reopen/sync and mark unsynced
 * files as such, and one writer at a time.
 *
 * Tests run as root, so permission bits cannot make a save fail; a file-size
 * limit (RLIMIT_FSIZE, with SIGXFSZ ignored so write returns EFBIG) in a
 * forked child simulates a full disk partway through the write instead.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist/format.h"
#include "support.h"

static char *make_dir(void)
{
    char tmpl[] = "/tmp/bloomsimd-file-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

/* Number of entries in dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}


static bloomsimd_filter *filter_with_keys(uint64_t blocks, const uint64_t *keys, size_t n)
{
    bloomsimd_options o = {.bits = blocks * 512, .k = 7, .seed = 11, .capacity = n};
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, n), BLOOMSIMD_OK);
    return f;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "child did not exit normally (status %#x)", status);
    return WEXITSTATUS(status);
}

Test(persist_file, failed_save_leaves_the_old_file_intact)
{
    char *dir = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/filter.bsf", dir);
    uint64_t *keys = test_keys(1000, 1);
    bloomsimd_filter *old_filter = filter_with_keys(64, keys, 1000);
    cr_assert_eq(bloomsimd_save(old_filter, path), BLOOMSIMD_OK);
    size_t old_len;
    uint8_t *old_bytes = test_read_file(path, &old_len);

    /* 16384 blocks = 1 MiB of payload against a 256 KiB file-size limit. */
    uint64_t *more = test_keys(100000, 2);
    bloomsimd_filter *big = filter_with_keys(16384, more, 100000);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {256 << 10, 256 << 10};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(90);
        errno = 0;
        bloomsimd_status st = bloomsimd_save(big, path);
        if (st != BLOOMSIMD_ERR_IO) _exit(91);
        _exit(errno == EFBIG ? 0 : 92);
    }
    cr_assert_eq(wait_child(pid), 0, "save under a file-size limit must fail with _IO and errno EFBIG");

    size_t now_len;
    uint8_t *now_bytes = test_read_file(path, &now_len);
    cr_assert_eq(now_len, old_len);
    cr_assert(memcmp(now_bytes, old_bytes, old_len) == 0, "the old file changed");
    cr_assert_eq(count_entries(dir), 1, "the temporary file was left behind");
    bloomsimd_filter *back = NULL;
    cr_assert_eq(bloomsimd_load(&back, path), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(back, keys, 1000, NULL), 1000);

    /* Without the limit the same save succeeds and replaces the file. */
    cr_assert_eq(bloomsimd_save(big, path), BLOOMSIMD_OK);
    bloomsimd_destroy(back);
    cr_assert_eq(bloomsimd_load(&back, path), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(back, more, 100000, NULL), 100000);
    cr_assert_eq(count_entries(dir), 1);

    bloomsimd_destroy(back);
    bloomsimd_destroy(big);
    bloomsimd_destroy(old_filter);
    free(old_bytes);
    free(now_bytes);
    free(keys);
    free(more);
    test_remove_dir(dir);
}

Test(persist_file, save_into_a_missing_or_non_directory_parent_fails_cleanly)
{
    char *dir = make_dir();
    char file[4200], bad[4300];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *fp = fopen(file, "w");
    fputs("not a directory", fp);
    fclose(fp);
    uint64_t *keys = test_keys(10, 1);
    bloomsimd_filter *f = filter_with_keys(1, keys, 10);

    snprintf(bad, sizeof bad, "%s/filter.bsf", file);
    errno = 0;
    cr_assert_eq(bloomsimd_save(f, bad), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, ENOTDIR);
    snprintf(bad, sizeof bad, "%s/missing/filter.bsf", dir);
    errno = 0;
    cr_assert_eq(bloomsimd_save(f, bad), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, ENOENT);
    /* A directory in the way of the rename: the temp file is removed again. */
    snprintf(bad, sizeof bad, "%s/adir", dir);
    cr_assert_eq(mkdir(bad, 0755), 0);
    char inner[4400];
    snprintf(inner, sizeof inner, "%s/x", bad);
    fp = fopen(inner, "w");
    fclose(fp);
    errno = 0;
    cr_assert_eq(bloomsimd_save(f, bad), BLOOMSIMD_ERR_IO);
    cr_assert(errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST, "errno %d", errno);
    cr_assert_eq(count_entries(dir), 2, "only 'plain' and 'adir' may remain");
    unlink(inner);
    rmdir(bad);

    cr_assert_eq(bloomsimd_save(NULL, file), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_save(f, NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_save(f, ""), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_destroy(f);
    free(keys);
    test_remove_dir(dir);
}

Test(persist_file, read_only_mapping_refuses_every_add_and_never_changes_the_file)
{
    char *dir = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/ro.bsf", dir);
    uint64_t *keys = test_keys(500, 1);
    bloomsimd_filter *f = filter_with_keys(20, keys, 500);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    size_t len;
    uint8_t *before = test_read_file(path, &len);

    bloomsimd_filter *m = NULL;
    cr_assert_eq(bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    uint64_t extra[4] = {1, 2, 3, 4};
    const void *byte_keys[1] = {"abc"};
    size_t byte_lens[1] = {3};
    cr_assert_eq(bloomsimd_add_u64(m, 99), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add(m, "abc", 3), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_batch_u64(m, extra, 4), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_batch(m, byte_keys, byte_lens, 1), BLOOMSIMD_ERR_READ_ONLY);
    cr_assert_eq(bloomsimd_add_hashes(m, extra, 4), BLOOMSIMD_ERR_READ_ONLY);
    bloomsimd_clear(m); /* documented no-op; would fault on PROT_READ pages otherwise */
    cr_assert_eq(bloomsimd_sync(m), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(m, keys, 500, NULL), 500);
    bloomsimd_destroy(m);

    size_t after_len;
    uint8_t *after = test_read_file(path, &after_len);
    cr_assert_eq(after_len, len);
    cr_assert(memcmp(before, after, len) == 0);
    free(before);
    free(after);
    free(keys);
    bloomsimd_destroy(f);
    test_remove_dir(dir);
}

Test(persist_file, two_processes_map_the_same_file_read_only_and_both_answer)
{
    char *dir = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/shared.bsf", dir);
    uint64_t *keys = test_keys(20000, 1);
    uint64_t *absent = test_keys(20000, 2);
    bloomsimd_filter *f = filter_with_keys(3000, keys, 20000);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    size_t expected_fp = bloomsimd_contains_batch_u64(f, absent, 20000, NULL);

    /* Both children hold their mapping open at once: each maps, signals the
     * parent, and waits until the parent has heard from both. */
    int ready[2], go[2];
    cr_assert_eq(pipe(ready), 0);
    cr_assert_eq(pipe(go), 0);
    pid_t pids[2];
    for (int c = 0; c < 2; c++) {
        pids[c] = fork();
        cr_assert_geq(pids[c], 0);
        if (pids[c] == 0) {
            bloomsimd_filter *m = NULL;
            if (bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY) != BLOOMSIMD_OK) _exit(10);
            char byte = 'r';
            if (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1) _exit(11);
            if (bloomsimd_contains_batch_u64(m, keys, 20000, NULL) != 20000) _exit(12);
            if (bloomsimd_contains_batch_u64(m, absent, 20000, NULL) != expected_fp) _exit(13);
            if (bloomsimd_add_u64(m, 5) != BLOOMSIMD_ERR_READ_ONLY) _exit(14);
            bloomsimd_destroy(m);
            _exit(0);
        }
    }
    char byte;
    for (int c = 0; c < 2; c++) cr_assert_eq(read(ready[0], &byte, 1), 1);
    /* The parent maps it too while both children hold theirs. */
    bloomsimd_filter *m = NULL;
    cr_assert_eq(bloomsimd_map(&m, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(m, keys, 20000, NULL), 20000);
    cr_assert_eq(write(go[1], "gg", 2), 2);
    for (int c = 0; c < 2; c++) cr_assert_eq(wait_child(pids[c]), 0, "child %d failed", c);

    bloomsimd_destroy(m);
    bloomsimd_destroy(f);
    free(keys);
    free(absent);
    test_remove_dir(dir);
}

static uint32_t file_state_flags(const char *path)
{
    size_t len;
    uint8_t *bytes = test_read_file(path, &len);
    cr_assert_geq(len, 128);
    uint32_t flags = bloomsimd_le32_get(bytes + BLOOMSIMD_HDR_STATE_FLAGS);
    free(bytes);
    return flags;
}

Test(persist_file, writable_mapping_inserts_survive_close_reopen_and_sync)
{
    char *dir = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/rw.bsf", dir);
    uint64_t *first = test_keys(3000, 1);
    uint64_t *second = test_keys(3000, 2);
    uint64_t *third = test_keys(3000, 3);
    bloomsimd_filter *f = filter_with_keys(500, first, 3000);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    cr_assert_eq(file_state_flags(path), 0);

    /* Map writable: DIRTY is on disk before any insert can be. */
    bloomsimd_filter *w = NULL;
    cr_assert_eq(bloomsimd_map(&w, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK);
    cr_assert_eq(file_state_flags(path), BLOOMSIMD_FORMAT_STATE_DIRTY);
    cr_assert_eq(bloomsimd_add_batch_u64(w, second, 3000), BLOOMSIMD_OK);
    /* One writer at a time. */
    bloomsimd_filter *w2 = NULL;
    errno = 0;
    cr_assert_eq(bloomsimd_map(&w2, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_ERR_IO);
    cr_assert_eq(errno, EWOULDBLOCK);
    bloomsimd_destroy(w); /* close without sync */

    /* The inserts are in the file, but its checksum is stale: detected. */
    bloomsimd_filter *r = NULL;
    cr_assert_eq(bloomsimd_load(&r, path), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_eq(bloomsimd_map(&r, path, BLOOMSIMD_MAP_READ_ONLY), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_eq(bloomsimd_map(&r, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_ERR_CORRUPT);
    cr_assert_eq(bloomsimd_map(&r, path, BLOOMSIMD_MAP_READ_ONLY | BLOOMSIMD_MAP_ACCEPT_UNSYNCED), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(r, second, 3000, NULL), 3000);
    bloomsimd_destroy(r);

    /* Reopen writable accepting it, add more, sync: a normal file again. */
    cr_assert_eq(bloomsimd_map(&w, path, BLOOMSIMD_MAP_WRITABLE | BLOOMSIMD_MAP_ACCEPT_UNSYNCED), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(w, third, 3000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_sync(w), BLOOMSIMD_OK);
    bloomsimd_destroy(w);
    cr_assert_eq(bloomsimd_load(&r, path), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(r, first, 3000, NULL), 3000);
    cr_assert_eq(bloomsimd_contains_batch_u64(r, second, 3000, NULL), 3000);
    cr_assert_eq(bloomsimd_contains_batch_u64(r, third, 3000, NULL), 3000);

    /* Byte for byte what a heap filter with the same inserts holds. */
    cr_assert_eq(bloomsimd_add_batch_u64(f, second, 3000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_batch_u64(f, third, 3000), BLOOMSIMD_OK);
    cr_assert(memcmp(f->geometry.words, r->geometry.words, 500 * 64) == 0);
    bloomsimd_destroy(r);

    /* Inserts after a sync are unsynced again until the next sync. */
    cr_assert_eq(bloomsimd_map(&w, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_sync(w), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_add_u64(w, UINT64_C(0x123456789)), BLOOMSIMD_OK);
    bloomsimd_destroy(w);
    cr_assert_eq(bloomsimd_load(&r, path), bloomsimd_contains_u64(f, UINT64_C(0x123456789))
                                                 ? BLOOMSIMD_OK /* the add set no new bit */
                                                 : BLOOMSIMD_ERR_CORRUPT);
    bloomsimd_destroy(r);
    r = NULL;
    cr_assert_eq(bloomsimd_map(&r, path, BLOOMSIMD_MAP_ACCEPT_UNSYNCED), BLOOMSIMD_OK);
    cr_assert(bloomsimd_contains_u64(r, UINT64_C(0x123456789)));
    bloomsimd_destroy(r);

    bloomsimd_destroy(f);
    free(first);
    free(second);
    free(third);
    test_remove_dir(dir);
}

Test(persist_file, sync_of_a_heap_filter_is_a_no_op_and_null_is_rejected)
{
    uint64_t *keys = test_keys(10, 1);
    bloomsimd_filter *f = filter_with_keys(2, keys, 10);
    cr_assert_eq(bloomsimd_sync(f), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_sync(NULL), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_filter *m = NULL;
    cr_assert_eq(bloomsimd_map(NULL, "/tmp/x", 0), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    cr_assert_eq(bloomsimd_map(&m, NULL, 0), BLOOMSIMD_ERR_INVALID_ARGUMENT);
    bloomsimd_destroy(f);
    free(keys);
}

Test(persist_file, a_saved_concurrent_filter_loads_concurrent)
{
    char *dir = make_dir();
    char path[4200];
    snprintf(path, sizeof path, "%s/c.bsf", dir);
    bloomsimd_options o = {.capacity = 1000, .fpr = 0.01, .flags = BLOOMSIMD_CONCURRENT};
    bloomsimd_filter *f = test_filter(&o);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    bloomsimd_filter *g = NULL;
    cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK);
    bloomsimd_info info;
    bloomsimd_get_info(g, &info);
    cr_assert_eq(info.flags, BLOOMSIMD_CONCURRENT | BLOOMSIMD_U64_XXH3);
    cr_assert(g->geometry.concurrent);
    bloomsimd_destroy(g);
    cr_assert_eq(bloomsimd_map(&g, path, BLOOMSIMD_MAP_WRITABLE), BLOOMSIMD_OK);
    cr_assert(g->geometry.concurrent);
    uint64_t *keys = test_keys(1000, 4);
    cr_assert_eq(bloomsimd_add_batch_u64(g, keys, 1000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_sync(g), BLOOMSIMD_OK); /* checksum through atomic loads */
    bloomsimd_destroy(g);
    cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(g, keys, 1000, NULL), 1000);
    bloomsimd_destroy(g);
    free(keys);
    bloomsimd_destroy(f);
    test_remove_dir(dir);
}
