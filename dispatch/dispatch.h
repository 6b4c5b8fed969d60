/*
 * dispatch.h — CPU feature detection and kernel selection (internal).
 */
#ifndef BLOOMSIMD_DISPATCH_H
#define BLOOMSIMD_DISPATCH_H

#include "../include/bloomsimd.h"
#include "../kernels/kernel.h"

/* BLOOMSIMD_CPU_* bits this CPU and OS support; detected once per process. */
uint32_t bloomsimd_cpu_features(void);

/* The compiled-in kernel called `name`, or NULL. */
const bloomsimd_kernel *bloomsimd_kernel_by_name(const char *name);

/* True if this CPU runs the kernel. */
bool bloomsimd_kernel_runnable(const bloomsimd_kernel *kernel);

/* The kernel bloomsimd_select_kernel(requested) would give, or NULL where it
 * would fail; sets no error detail. */
const bloomsimd_kernel *bloomsimd_kernel_lookup(const char *requested);

/*
 * The kernel for a new filter: `requested` if not NULL, else the process-wide
 * BLOOMSIMD_KERNEL override if set, else the best native kernel.
 * BLOOMSIMD_ERR_KERNEL_UNAVAILABLE if the chosen name is unknown or not runnable.
 */
bloomsimd_status bloomsimd_select_kernel(const char *requested, const bloomsimd_kernel **out);

#endif
