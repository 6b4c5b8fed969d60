/*
 * qemu_exec_shim.c — lets an AArch64 program running under qemu-user
 * re-execute AArch64 programs when binfmt_misc is not registered.
 *
 * Why: Criterion runs every test in a fresh process that BoxFort creates by
 * fork() + execl("/proc/self/exe" resolved, "boxfort-worker"). qemu-user
 * forwards execve to the host kernel, which cannot run an AArch64 ELF
 * without a binfmt_misc entry (ENOEXEC), so every test would fail to spawn.
 * Registering binfmt_misc is a host-wide change CI machines and containers
 * often forbid; this preload library instead turns "execve(aarch64 ELF)"
 * into "execve(qemu-aarch64, -0 argv0, ELF, args...)", which the host runs.
 *
 * Loaded into the guest with LD_PRELOAD (through QEMU_SET_ENV, see
 * scripts/aarch64-check.sh), so QEMU_SET_ENV and QEMU_LD_PREFIX stay in the
 * environment and the re-executed qemu sets the guest up the same way. The
 * guest-only variables LD_PRELOAD and LD_LIBRARY_PATH are dropped from the
 * host environment of the new qemu (the host loader would try to preload an
 * AArch64 library into the x86 qemu); QEMU_SET_ENV puts them back for the
 * guest. BLOOMSIMD_QEMU names the qemu binary (default qemu-aarch64 in /usr/bin).
 *
 * Built for AArch64 only, never part of the library. Only the exec
 * functions BoxFort and the test programs use are wrapped (glibc's execl
 * calls its internal execve, not the interposable symbol).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHIM_MAX_ARGS 256
#define SHIM_MAX_ENV 1024
#define SHIM_EM_AARCH64 183

extern char **environ;

static int is_aarch64_elf(const char *path)
{
    unsigned char head[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t got = read(fd, head, sizeof head);
    close(fd);
    if (got != (ssize_t)sizeof head) return 0;
    if (memcmp(head, "\177ELF", 4) != 0) return 0;
    unsigned machine = (unsigned)head[18] | ((unsigned)head[19] << 8); /* e_machine, little-endian */
    return machine == SHIM_EM_AARCH64;
}

static int guest_only(const char *entry)
{
    return strncmp(entry, "LD_PRELOAD=", 11) == 0 || strncmp(entry, "LD_LIBRARY_PATH=", 16) == 0;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    if (!is_aarch64_elf(path)) return (int)syscall(SYS_execve, path, argv, envp);

    const char *qemu = getenv("BLOOMSIMD_QEMU");
    if (!qemu || !*qemu) qemu = "/usr/bin/qemu-aarch64";

    char *args[SHIM_MAX_ARGS];
    size_t n = 0;
    args[n++] = (char *)qemu;
    if (argv[0]) {
        args[n++] = (char *)"-0";
        args[n++] = argv[0];
    }
    args[n++] = (char *)path;
    for (size_t i = 1; argv[0] && argv[i]; i++) {
        if (n + 1 >= SHIM_MAX_ARGS) {
            errno = E2BIG;
            return -1;
        }
        args[n++] = argv[i];
    }
    args[n] = NULL;

    char *env[SHIM_MAX_ENV];
    size_t m = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        if (guest_only(envp[i])) continue;
        if (m + 1 >= SHIM_MAX_ENV) {
            errno = E2BIG;
            return -1;
        }
        env[m++] = envp[i];
    }
    env[m] = NULL;
    return (int)syscall(SYS_execve, qemu, args, env);
}

int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }

int execl(const char *path, const char *arg, ...)
{
    char *argv[SHIM_MAX_ARGS];
    size_t n = 0;
    argv[n++] = (char *)arg;
    va_list ap;
    va_start(ap, arg);
    while (arg) {
        arg = va_arg(ap, const char *);
        if (n + 1 >= SHIM_MAX_ARGS) {
            va_end(ap);
            errno = E2BIG;
            return -1;
        }
        argv[n++] = (char *)arg;
    }
    va_end(ap);
    return execve(path, argv, environ);
}
