/*
 * perf_counters.c — --perf: hardware counters around each measured phase via
 * perf_event_open(2): cycles, instructions, L1D read misses, LLC misses and
 * dTLB read misses, reported per key.
 *
 * Each counter is opened on its own (not as a group), so a CPU that lacks one
 * event still reports the others. VMs usually expose none: then the bench
 * says so once and reports the columns as unavailable.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

enum { PERF_CYCLES, PERF_INSTRUCTIONS, PERF_L1D, PERF_LLC, PERF_DTLB, PERF_COUNT };

static int fds[PERF_COUNT] = {-1, -1, -1, -1, -1};
static bool opened, available;

static uint64_t cache_config(unsigned cache, unsigned op, unsigned result) { return cache | (op << 8) | (result << 16); }

static int open_counter(uint32_t type, uint64_t config)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

bool bench_perf_open(void)
{
    if (opened) return available;
    opened = true;
    fds[PERF_CYCLES] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
    int first_errno = errno;
    fds[PERF_INSTRUCTIONS] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
    fds[PERF_L1D] = open_counter(PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                                                                  PERF_COUNT_HW_CACHE_RESULT_MISS));
    fds[PERF_LLC] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES);
    fds[PERF_DTLB] = open_counter(PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_DTLB,
                                                                   PERF_COUNT_HW_CACHE_OP_READ,
                                                                   PERF_COUNT_HW_CACHE_RESULT_MISS));
    for (int i = 0; i < PERF_COUNT; i++) available |= fds[i] >= 0;
    if (!available)
        fprintf(stderr,
                "note: --perf: this machine exposes no hardware performance counters (perf_event_open: %s; "
                "usual in VMs); the counter columns are omitted. bench/cachegrind.sh simulates the caches "
                "instead.\n",
                strerror(first_errno));
    return available;
}

void bench_perf_start(void)
{
    if (!bench_perf_open()) return;
    for (int i = 0; i < PERF_COUNT; i++) {
        if (fds[i] < 0) continue;
        ioctl(fds[i], PERF_EVENT_IOC_RESET, 0);
        ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
    }
}

bench_counters bench_perf_stop(double keys)
{
    double v[PERF_COUNT];
    for (int i = 0; i < PERF_COUNT; i++) {
        v[i] = -1;
        if (fds[i] < 0) continue;
        ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
        uint64_t count;
        if (read(fds[i], &count, sizeof count) == (ssize_t)sizeof count && keys > 0) v[i] = (double)count / keys;
    }
    return (bench_counters){v[PERF_CYCLES], v[PERF_INSTRUCTIONS], v[PERF_L1D], v[PERF_LLC], v[PERF_DTLB]};
}

void bench_perf_close(void)
{
    for (int i = 0; i < PERF_COUNT; i++) {
        if (fds[i] >= 0) close(fds[i]);
        fds[i] = -1;
    }
}
