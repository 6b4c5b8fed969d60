/*
 * test_stale_temps.c — the temporary files of saves that died are removed by
 * the next save or load of the same path, and nothing else is:
 *
 *   - a save killed by SIGXFSZ (the file-size limit) leaves
 *     PATH.tmp-<pid>-...; the next save removes it, and so does a load;
 *   - a fake temporary named with a dead PID is removed; one named with a
 *     live PID (this process, a running child) is kept; one with a dead PID
 *     but flocked by a live process (a writer in another PID namespace, or
 *     a reused PID) is kept;
 *   - names that only look alike (another path's, wrong pattern, a directory,
 *     a symlink) are kept;
 *   - a save still holds its flock while it writes, so a concurrent save of
 *     the same path by another process never loses its temporary file.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_samples.h"

static char *make_dir(void)
{
    char tmpl[] = "/tmp/bloomsimd-stale-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Names in dir starting with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

/* A PID that certainly belonged to a process that has exited (and been reaped). */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) _exit(0);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
    cr_assert(kill(pid, 0) != 0 && errno == ESRCH);
    return pid;
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0, "%s", path);
    cr_assert_eq(write(fd, "partial", 7), 7);
    close(fd);
}

Test(stale_temps, a_save_killed_by_sigxfsz_is_cleaned_by_the_next_save_and_load)
{
    char *dir = make_dir(), path[512];
    snprintf(path, sizeof path, "%s/full.bsf", dir);
    bloomsimd_options o = {.capacity = 1000000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            struct rlimit limit = {64 << 10, 64 << 10};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(90);
            bloomsimd_save(f, path); /* SIGXFSZ kills it partway */
            _exit(91);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ, "the child was not killed by SIGXFSZ");
        cr_assert_eq(count_prefixed(dir, "full.bsf.tmp-"), 1, "the killed save left no temporary file");
        bloomsimd_filter *g = NULL;
        if (round == 0) {
            cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
        } else {
            cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK); /* the file of round 0 */
            bloomsimd_destroy(g);
        }
        cr_assert_eq(count_prefixed(dir, "full.bsf.tmp-"), 0, "round %d: the stale temporary is still there", round);
    }
    bloomsimd_destroy(f);
    test_remove_dir(dir);
}

Test(stale_temps, dead_pids_removed_live_or_locked_kept)
{
    char *dir = make_dir(), path[512], name[600];
    snprintf(path, sizeof path, "%s/f.bsf", dir);
    bloomsimd_filter *f = test_sample(0, NULL, 0);
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);

    pid_t child = fork(); /* a live process that is not us */
    cr_assert_geq(child, 0);
    if (child == 0) {
        /* never outlive the test, even one that fails before killing us */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(60);
        pause();
        _exit(0);
    }
    char dead1[600], dead2[600], live_self[600], live_child[600], locked[600];
    snprintf(dead1, sizeof dead1, "%s.tmp-%d-0-123456789", path, (int)dead_pid());
    snprintf(dead2, sizeof dead2, "%s.tmp-%d-17-1", path, (int)dead_pid());
    snprintf(live_self, sizeof live_self, "%s.tmp-%d-5-42", path, (int)getpid());
    snprintf(live_child, sizeof live_child, "%s.tmp-%d-0-7", path, (int)child);
    snprintf(locked, sizeof locked, "%s.tmp-%d-3-99", path, (int)dead_pid());
    const char *keep_names[] = {"f.bsf.tmp-", "f.bsf.tmp-123", "f.bsf.tmp-1-2", "f.bsf.tmp-1-2-3-4", "f.bsf.tmp-x-1-2",
                                "f.bsf.tmp--1-2", "f.bsf.tmp-1-2-3x", "g.bsf.tmp-1-2-3", "xf.bsf.tmp-1-2-3",
                                "f.bsf.tmpx-1-2-3", "f.bsf.tmp-99999999999999999999-1-2", "f.bsf.tmp-0-1-2"};
    for (int via = 0; via < 2; via++) {
        touch(dead1), touch(dead2), touch(live_self), touch(live_child), touch(locked);
        for (size_t i = 0; i < sizeof keep_names / sizeof *keep_names; i++) {
            snprintf(name, sizeof name, "%s/%s", dir, keep_names[i]);
            touch(name);
        }
        /* a directory and a symlink named like a dead writer's temporary */
        char as_dir[600], as_link[600];
        snprintf(as_dir, sizeof as_dir, "%s.tmp-%d-1-1", path, (int)dead_pid());
        snprintf(as_link, sizeof as_link, "%s.tmp-%d-2-2", path, (int)dead_pid());
        cr_assert_eq(mkdir(as_dir, 0755), 0);
        cr_assert_eq(symlink(dead1, as_link), 0);
        /* dead PID, but a live process holds the writer's flock */
        int lock_fd = open(locked, O_RDONLY);
        cr_assert_eq(flock(lock_fd, LOCK_EX), 0);

        if (via == 0) {
            cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
        } else {
            bloomsimd_filter *g = NULL;
            cr_assert_eq(bloomsimd_load(&g, path), BLOOMSIMD_OK);
            test_assert_same_filter(f, g, "loaded");
            bloomsimd_destroy(g);
        }
        const char *how = via ? "load" : "save";
        cr_assert(!exists(dead1), "%s: dead writer's temporary kept", how);
        cr_assert(!exists(dead2), "%s: dead writer's temporary kept", how);
        cr_assert(exists(live_self), "%s: this process's temporary deleted", how);
        cr_assert(exists(live_child), "%s: a live process's temporary deleted", how);
        cr_assert(exists(locked), "%s: a flocked temporary deleted", how);
        cr_assert(exists(as_dir) && exists(as_link), "%s: a directory or symlink deleted", how);
        for (size_t i = 0; i < sizeof keep_names / sizeof *keep_names; i++) {
            snprintf(name, sizeof name, "%s/%s", dir, keep_names[i]);
            cr_assert(exists(name), "%s: %s deleted", how, keep_names[i]);
        }
        /* once the lock goes, the dead writer's file goes at the next call */
        close(lock_fd);
        cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
        cr_assert(!exists(locked), "%s: unlocked dead temporary kept", how);
        cr_assert(exists(dead1) == false && exists(live_self));
        rmdir(as_dir);
        unlink(as_link);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* the child is gone now: its temporary is stale */
    cr_assert_eq(bloomsimd_save(f, path), BLOOMSIMD_OK);
    cr_assert(!exists(live_child), "the exited child's temporary kept");
    cr_assert(exists(live_self));
    bloomsimd_destroy(f);
    test_remove_dir(dir);
}

/* Children save the same path in a loop; each save must succeed (a cleaner
 * never removes a live writer's temporary), and nothing is left behind. */
Test(stale_temps, concurrent_saves_by_several_processes)
{
    char *dir = make_dir(), path[512];
    snprintf(path, sizeof path, "%s/shared.bsf", dir);
    bloomsimd_options o = {.capacity = 300000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        cr_assert_geq(kids[i], 0);
        if (kids[i] == 0) {
            for (int n = 0; n < 30; n++) {
                if (bloomsimd_save(f, path) != BLOOMSIMD_OK) _exit(1);
                bloomsimd_filter *g = NULL;
                if (bloomsimd_load(&g, path) != BLOOMSIMD_OK) _exit(2);
                bloomsimd_destroy(g);
            }
            _exit(0);
        }
    }
    for (int i = 0; i < 3; i++) {
        int status;
        cr_assert_eq(waitpid(kids[i], &status, 0), kids[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: exit %d", i, WEXITSTATUS(status));
    }
    cr_assert_eq(count_prefixed(dir, "shared.bsf.tmp-"), 0);
    bloomsimd_destroy(f);
    test_remove_dir(dir);
}
