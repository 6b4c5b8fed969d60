/*
 * support.c — per-run kernel selection and key generation.
 *
 * A constructor runs before Criterion starts: if BLOOMSIMD_KERNEL names a
 * kernel this CPU cannot run, the whole suite is skipped with exit code 77
 * and a message naming the kernel (CTest shows "Skipped").
 */
#include "support.h"

#include <criterion/criterion.h>
#include <unistd.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void skip_unsupported_kernel(void)
{
    const char *k = getenv("BLOOMSIMD_KERNEL");
    if (k && *k && !bloomsimd_kernel_supported(k)) {
        bool known = false;
        for (size_t i = 0; bloomsimd_kernel_name(i); i++) known |= strcmp(bloomsimd_kernel_name(i), k) == 0;
        fprintf(stderr, "SKIP: kernel '%s' is %s; suite not run for it\n", k,
                known ? "not supported by this CPU" : "not compiled in");
        exit(77);
    }
}

bloomsimd_filter *test_filter(const bloomsimd_options *o)
{
    bloomsimd_options copy = *o;
    if (!copy.kernel) copy.kernel = test_kernel();
    bloomsimd_filter *f = NULL;
    bloomsimd_status st = bloomsimd_create_with(&f, &copy);
    cr_assert_eq(st, BLOOMSIMD_OK, "create_with: %s (%s)", bloomsimd_status_string(st), bloomsimd_last_error());
    return f;
}

void test_remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
    free(dir);
}

char *test_fixture_path(const char *name)
{
    /* this file's directory: tests/, whose fixtures/ holds the committed files */
    char *path = malloc(strlen(__FILE__) + strlen(name) + 16);
    cr_assert_not_null(path);
    strcpy(path, __FILE__);
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, "fixtures/");
    strcat(path, name);
    return path;
}

uint8_t *test_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}
