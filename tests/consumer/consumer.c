/* consumer.c — a program outside the tree, built against the installed library. */
#include <bloomsimd.h>
#include <stdio.h>

int main(void)
{
    bloomsimd_filter *f = NULL;
    if (bloomsimd_create(&f, 1000, 0.01) != BLOOMSIMD_OK) return 1;
    uint64_t keys[3] = {1, 2, 3};
    if (bloomsimd_add_batch_u64(f, keys, 3) != BLOOMSIMD_OK) return 2;
    size_t found = bloomsimd_contains_batch_u64(f, keys, 3, NULL);
    printf("consumer: libbloomsimd %s, kernel %s, found %zu/3\n", bloomsimd_version_string(),
           bloomsimd_default_kernel(), found);
    bloomsimd_destroy(f);
    return found == 3 && bloomsimd_version_number() == BLOOMSIMD_VERSION_NUMBER ? 0 : 3;
}
