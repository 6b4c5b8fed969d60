/*
 * reseal_header.c — test helper: rewrite a filter file's header checksum
 * (docs/FORMAT.md: XXH3_64bits of bytes 0..119, seed 0, little-endian at
 * offset 120) after a test has edited a header field, so that the reader's
 * later checks (unknown kind, layout, hash) are the ones that refuse it.
 *
 *   reseal_header FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <xxhash.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: reseal_header FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r+b");
    unsigned char h[128];
    if (!f || fread(h, 1, sizeof h, f) != sizeof h) {
        fprintf(stderr, "reseal_header: %s: cannot read 128 header bytes\n", argv[1]);
        return 2;
    }
    uint64_t sum = XXH3_64bits(h, 120);
    for (int i = 0; i < 8; i++) h[120 + i] = (unsigned char)(sum >> (8 * i));
    if (fseek(f, 120, SEEK_SET) != 0 || fwrite(h + 120, 1, 8, f) != 8 || fclose(f) != 0) {
        fprintf(stderr, "reseal_header: %s: cannot write the checksum\n", argv[1]);
        return 2;
    }
    return 0;
}
