/* test_smoke.c — the filter works end to end on this run's kernel. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support.h"

Test(smoke, inserted_keys_are_found_on_the_selected_kernel)
{
    bloomsimd_options o = {.capacity = 10000, .fpr = 0.01};
    bloomsimd_filter *f = test_filter(&o);
    bloomsimd_info info;
    bloomsimd_get_info(f, &info);
    cr_assert_str_eq(info.kernel, test_kernel());
    uint64_t *keys = test_keys(10000, 1);
    cr_assert_eq(bloomsimd_add_batch_u64(f, keys, 10000), BLOOMSIMD_OK);
    cr_assert_eq(bloomsimd_contains_batch_u64(f, keys, 10000, NULL), 10000);
    free(keys);
    bloomsimd_destroy(f);
}
