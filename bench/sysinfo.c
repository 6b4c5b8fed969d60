/*
 * sysinfo.c — what the output header says about the machine: CPU model and
 * SIMD flags, CPU count, available memory, cache sizes (to label a filter
 * L1/L2/L3/DRAM-resident), transparent huge pages; and thread pinning.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void read_cpuinfo(bench_machine *m)
{
    static const char *const wanted[] = {"sse4_2", "avx", "avx2", "bmi2", "avx512f", "avx512bw", "avx512dq",
                                         "avx512vl", "avx512vbmi", "asimd", "sve"};
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];
    bool have_model = false, have_flags = false;
    while (fgets(line, sizeof line, f) && !(have_model && have_flags)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *value = colon + 1;
        while (*value == ' ') value++;
        value[strcspn(value, "\n")] = 0;
        if (!have_model && (strncmp(line, "model name", 10) == 0 || strncmp(line, "CPU part", 8) == 0)) {
            snprintf(m->cpu_model, sizeof m->cpu_model, "%s", value);
            have_model = true;
        } else if (!have_flags && (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0)) {
            size_t used = 0;
            for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
                /* whole-word match in the space-separated list */
                size_t len = strlen(wanted[i]);
                for (char *p = strstr(value, wanted[i]); p; p = strstr(p + 1, wanted[i])) {
                    if ((p == value || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0)) {
                        used += (size_t)snprintf(m->cpu_flags + used, sizeof m->cpu_flags - used, "%s%s",
                                                 used ? " " : "", wanted[i]);
                        break;
                    }
                }
                if (used >= sizeof m->cpu_flags) break;
            }
            have_flags = true;
        }
    }
    fclose(f);
}

static uint64_t read_size_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    char unit = 0;
    int got = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (got < 1) return 0;
    if (unit == 'K') v <<= 10;
    if (unit == 'M') v <<= 20;
    return v;
}

static void read_caches(bench_machine *m)
{
    for (int i = 0; i < 8; i++) {
        char path[128], type[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%31s", type) != 1) type[0] = 0;
        fclose(f);
        if (strcmp(type, "Instruction") == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        uint64_t level = read_size_file(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (level >= 1 && level <= 3) m->cache_bytes[level] = read_size_file(path);
    }
    /* Some containers and VMs have no cache directory in /sys (nor does lscpu
     * show caches); glibc's sysconf reads CPUID then. A hypervisor may report
     * a whole package's L3 there, so the sizes say where they came from. */
    static const int names[4] = {0, _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE};
    for (int level = 1; level <= 3; level++)
        if (!m->cache_bytes[level]) {
            long v = sysconf(names[level]);
            if (v > 0) m->cache_bytes[level] = (uint64_t)v, m->caches_from_cpuid = true;
        }
}

static void read_meminfo(bench_machine *m)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) m->mem_available = (uint64_t)kb << 10;
    }
    fclose(f);
}

static void read_thp(bench_machine *m)
{
    snprintf(m->thp, sizeof m->thp, "unknown");
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return;
    char line[128];
    if (fgets(line, sizeof line, f)) {
        char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
        if (open && close) snprintf(m->thp, sizeof m->thp, "%.*s", (int)(close - open - 1), open + 1);
    }
    fclose(f);
}

void bench_machine_probe(bench_machine *m)
{
    memset(m, 0, sizeof *m);
    m->pinned_cpu = -1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->ncpus = n > 0 ? (unsigned)n : 1u;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) m->ncpus = (unsigned)CPU_COUNT(&set);
    read_cpuinfo(m);
    read_caches(m);
    read_meminfo(m);
    read_thp(m);
}

bool bench_pin_thread(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

double bench_huge_page_fraction(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    bool inside = false;
    double result = -1, vma_bytes = 0;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        unsigned long long kb;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside) break;
            inside = a >= lo && a < hi;
            vma_bytes = (double)(hi - lo);
        } else if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
            /* adjacent anonymous mappings merge into one area: report a fraction */
            result = vma_bytes > 0 ? (double)kb * 1024.0 / vma_bytes : -1;
            break;
        }
    }
    fclose(f);
    return result;
}

const char *bench_residency(const bench_machine *m, uint64_t bytes)
{
    /* L1 and L2 are per core and their reported sizes are the core's. The L3
     * size a VM reports is often the whole package's (480-508 MiB seen on
     * 2-vCPU guests), of which a guest gets an unknown share, so a filter
     * past L2 is labelled by the reported figure, never called L3-resident. */
    if (m->cache_bytes[1] && bytes <= m->cache_bytes[1]) return "L1-resident";
    if (m->cache_bytes[2] && bytes <= m->cache_bytes[2]) return "L2-resident";
    if (m->cache_bytes[3] && bytes <= m->cache_bytes[3]) return "past L2, within the reported L3";
    return m->cache_bytes[3] ? "past the reported L3" : "past L2";
}
