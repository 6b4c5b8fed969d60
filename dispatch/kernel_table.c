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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../src/internal.h"
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

/* Case-insensitive: "AVX2" in an environment variable or a config file
 * means avx2; there is no other kernel it could mean. */
const bloomsimd_kernel *bloomsimd_kernel_by_name(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < KERNEL_TABLE_SIZE; i++)
        if (strcasecmp(kernel_table[i]->name, name) == 0) return kernel_table[i];
    return NULL;
}

/* "avx512, avx2, sse42, neon, scalar": the compiled kernels (runnable_only:
 * those this CPU runs), best first. */
static void kernel_names(char *buf, size_t cap, bool runnable_only)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < KERNEL_TABLE_SIZE; i++) {
        if (runnable_only && !bloomsimd_kernel_runnable(kernel_table[i])) continue;
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", kernel_table[i]->name);
        if (n < 0 || (size_t)n >= cap - used) return;
        used += (size_t)n;
    }
}

/* The detail for a name that selects no runnable kernel; `source` is
 * "BLOOMSIMD_KERNEL=" for the environment, "kernel " for options.kernel. */
static bloomsimd_status kernel_unavailable(const char *source, const char *name)
{
    char names[128];
    if (!bloomsimd_kernel_by_name(name)) {
        kernel_names(names, sizeof names, false);
        return bloomsimd_fail(BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "%s\"%.64s\" names no compiled kernel (%s)", source,
                              name, names);
    }
    kernel_names(names, sizeof names, true);
    return bloomsimd_fail(BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "%s\"%.64s\": this CPU cannot run it (runnable here: %s)",
                          source, name, names);
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
/* The refused value, for the detail of every create that fails because of
 * it (the environment is read once; later setenv calls do not matter). */
static char default_override_value[65];

static void choose_default(void)
{
    const char *forced = getenv("BLOOMSIMD_KERNEL");
    if (forced && *forced) {
        const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(forced);
        if (bloomsimd_kernel_runnable(kernel)) {
            default_kernel = kernel;
        } else {
            default_override_failed = true;
            snprintf(default_override_value, sizeof default_override_value, "%s", forced);
        }
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
        if (!bloomsimd_kernel_runnable(kernel)) return kernel_unavailable("kernel ", requested);
        *out = kernel;
        return BLOOMSIMD_OK;
    }
    pthread_once(&default_once, choose_default);
    if (default_override_failed) return kernel_unavailable("BLOOMSIMD_KERNEL=", default_override_value);
    if (!default_kernel)
        return bloomsimd_fail(BLOOMSIMD_ERR_KERNEL_UNAVAILABLE, "no compiled kernel runs on this CPU");
    *out = default_kernel;
    return BLOOMSIMD_OK;
}

const bloomsimd_kernel *bloomsimd_kernel_lookup(const char *requested)
{
    if (requested) {
        const bloomsimd_kernel *kernel = bloomsimd_kernel_by_name(requested);
        return bloomsimd_kernel_runnable(kernel) ? kernel : NULL;
    }
    pthread_once(&default_once, choose_default);
    return default_override_failed ? NULL : default_kernel;
}
