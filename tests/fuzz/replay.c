/*
 * replay.c — feeds every file of the given corpus directories (or files) to
 * LLVMFuzzerTestOneInput without libFuzzer, so CTest checks the fuzz
 * invariant on the committed corpus with any compiler. Exit 0 when all
 * inputs pass, 1 on an unreadable or empty corpus, 77 when BLOOMSIMD_KERNEL
 * names a kernel this CPU cannot run; an invariant failure aborts.
 */
#include <bloomsimd.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern bloomsimd_status fuzz_last_status;

/* Seed files say what they are: valid_* must be accepted, bad_* must not
 * (fuzz_last_status: the status of the target's main call); other names carry
 * no expectation. */
static int check_expectation(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    bloomsimd_status st = fuzz_last_status;
    if (!strncmp(base, "valid_", 6) && st != BLOOMSIMD_OK) {
        fprintf(stderr, "replay: %s rejected: %s\n", path, bloomsimd_status_string(st));
        return -1;
    }
    if (!strncmp(base, "bad_", 4) && st == BLOOMSIMD_OK) {
        fprintf(stderr, "replay: %s accepted\n", path);
        return -1;
    }
    return 0;
}

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    if (!buf) return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return check_expectation(path);
}

int main(int argc, char **argv)
{
    const char *kernel = getenv("BLOOMSIMD_KERNEL");
    if (kernel && *kernel && !bloomsimd_kernel_supported(kernel)) {
        fprintf(stderr, "SKIP: kernel '%s' cannot run here\n", kernel);
        return 77;
    }
    size_t files = 0;
    char path[4096];
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0) return 1;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return 1;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (replay_file(path) != 0) {
                fprintf(stderr, "replay: %s failed\n", path);
                closedir(d);
                return 1;
            }
            files++;
        }
        closedir(d);
    }
    if (files == 0) {
        fprintf(stderr, "replay: no corpus files\n");
        return 1;
    }
    printf("replay: %zu inputs passed\n", files);
    return 0;
}
