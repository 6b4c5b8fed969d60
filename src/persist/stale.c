/*
 * stale.c — removing the temporary files of saves that died
 * (bloomsimd_save writes PATH.tmp-<pid>-<n>-<ns>, then renames it; a save
 * killed in between, by SIGKILL, SIGXFSZ or a crash, leaves it behind).
 *
 * Every save and load of PATH first scans PATH's directory and deletes an
 * entry only if all of these hold:
 *   1. its name is exactly <basename of PATH>.tmp-<digits>-<digits>-<digits>;
 *   2. it is a regular file (not followed if a symlink) owned by this user;
 *   3. no process holds its flock: every save holds an exclusive flock on
 *      its temporary file from creation until after the rename (file.c), and
 *      the kernel drops it when the writer dies. This is what protects a live
 *      writer the PID test cannot see: one in another PID namespace
 *      (container) sharing the directory, or whose PID was reused;
 *   4. the PID in its name does not exist here (kill(pid, 0) gives ESRCH).
 *      This covers the moment between a writer's open and its flock: the
 *      writer's PID is alive, so the file is kept. A dead writer whose PID
 *      was reused by another process is therefore kept too, until that PID
 *      is free again: never deleting a live writer's file matters more than
 *      deleting every stale one at once.
 * A writer in another namespace caught between open and flock (where 4 does
 * not protect it) sees its file unlinked when it checks after the flock, and
 * starts over with a new name (file.c). The scan is best effort: any error
 * skips the entry, and neither the result nor errno of the save or load
 * depends on it. Its cost is one pass over the directory's entries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

/* Parses "<digits>-<digits>-<digits>" and returns the first number as the
 * writer's PID, or 0 if the rest of the name is not exactly that. */
static pid_t temp_pid(const char *s)
{
    long long pid = 0;
    for (int field = 0; field < 3; field++) {
        if (*s < '0' || *s > '9') return 0;
        unsigned long long v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (v > (unsigned long long)1 << 40) return 0; /* no PID or counter is that long */
            v = v * 10 + (unsigned)(*s - '0');
        }
        if (field == 0) pid = (long long)v;
        if (field < 2 && *s++ != '-') return 0;
    }
    const long long pid_max = (long long)(((unsigned long long)1 << (8 * sizeof(pid_t) - 1)) - 1);
    if (*s != '\0' || pid <= 0 || pid > pid_max) return 0;
    return (pid_t)pid;
}

/* Conditions 2-4 of the file comment, for entry `name` of the open directory. */
static bool is_stale(int dir_fd, const char *name, pid_t pid)
{
    if (kill(pid, 0) == 0 || errno != ESRCH) return false; /* alive, or cannot tell */
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool stale = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
                 flock(fd, LOCK_EX | LOCK_NB) == 0;
    /* unlinked while the lock is held, so no writer can take it over meanwhile */
    if (stale) stale = unlinkat(dir_fd, name, 0) == 0;
    close(fd);
    return stale;
}

void bloomsimd_remove_stale_temps(const char *path)
{
    int saved = errno;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    size_t prefix_len = strlen(base) + 5; /* "<base>.tmp-" */
    char *prefix = malloc(prefix_len + 1);
    DIR *d = dir && prefix && *base ? opendir(dir) : NULL;
    if (d) {
        memcpy(prefix, base, prefix_len - 5);
        memcpy(prefix + prefix_len - 5, ".tmp-", 6);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, prefix, prefix_len) != 0) continue;
            pid_t pid = temp_pid(e->d_name + prefix_len);
            if (pid > 0) (void)is_stale(dirfd(d), e->d_name, pid);
        }
        closedir(d);
    }
    free(prefix);
    free(dir);
    errno = saved;
}
