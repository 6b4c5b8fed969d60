/*
 * kernel_table.c — the compiled-in kernels in priority order, selection and
 * the BLOOMSIMD_KERNEL override.
 *
 * The list comes from the build (kernel_list.inc is generated from the
 * bloomsimd_kernel(...) lines in CMakeLists.txt, best first), so a new kernel
 * file joins the table, the tests and the bench without edits here.
 */
#include "../src/baseline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

#define BLOOMSIMD_KERNEL_ENTRY(name) extern const bloomsimd_kernel bloomsimd_kernel_##name;
#include "kernel_list.inc"
#undef BLOOMSIMD_KERNEL_ENTRY

static const bloomsimd_kernel *const kernel_table[] = {
#define BLOOMSIMD_KERNEL_ENTRY(name) &bloomsimd_kernel_##name,
#include "kernel_list.inc"
#undef BLOOMSIMD_KERNEL_ENTRY
};
#define KERNEL_TABLE_SIZE (sizeof kernel_table / sizeof kernel_table[0])

size_t bloomsimd_kernel_count(void) { return KERNEL_TABLE_SIZE; }

const char *bloomsimd_kernel_name(size_t i) { return i < KERNEL_TABLE_SIZE ? kernel_table[i]->name : NULL; }

const bloomsimd_kernel *bloomsimd_kernel_by_name(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < KERNEL_TABLE_SIZE; i++)
        if (strcmp(kernel_table[i]->name, name) == 0) return kernel_table[i];
    return NULL;
}

bool bloomsimd_kernel_runnable(const bloomsimd_kernel *kernel)
{
    return kernel && (kernel->required_features & ~bloomsimd_cpu_features()) == 0;
}

bool bloomsimd_kernel_supported(const char *name) { return bloomsimd_kernel_runnable(bloomsimd_kernel_by_name(name)); }

bool bloomsimd_kernel_emulated(const char *name)
{
    const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(name);
    return kernel && kernel->emulated;
}

/* Process-wide default, decided once: the BLOOMSIMD_KERNEL override (which
 * may name an unavailable kernel: then every create without an explicit
 * kernel fails, never silently falls back), else the best native kernel. */
static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static const bloomsimd_kernel *default_kernel;
static bool default_override_failed;

static void choose_default(void)
{
    const char *forced = getenv("BLOOMSIMD_KERNEL");
    if (forced && *forced) {
        const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(forced);
        if (bloomsimd_kernel_runnable(kernel))
            default_kernel = kernel;
        else
            default_override_failed = true;
        return;
    }
    for (size_t i = 0; i < KERNEL_TABLE_SIZE; i++) {
        if (!kernel_table[i]->emulated && bloomsimd_kernel_runnable(kernel_table[i])) {
            default_kernel = kernel_table[i];
            return;
        }
    }
}

const char *bloomsimd_default_kernel(void)
{
    pthread_once(&default_once, choose_default);
    return default_kernel ? default_kernel->name : NULL;
}

bloomsimd_status bloomsimd_select_kernel(const char *requested, const bloomsimd_kernel **out)
{
    if (requested) {
        const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(requested);
        if (!bloomsimd_kernel_runnable(kernel)) return BLOOMSIMD_ERR_KERNEL_UNAVAILABLE;
        *out = kernel;
        return BLOOMSIMD_OK;
    }
    pthread_once(&default_once, choose_default);
    if (default_override_failed || !default_kernel) return BLOOMSIMD_ERR_KERNEL_UNAVAILABLE;
    *out = default_kernel;
    return BLOOMSIMD_OK;
}
