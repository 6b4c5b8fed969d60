/*
 * args.h — the numbers the examples take on their command lines, read as
 * bloomsimd-bench and the bloomsimd command read them: a count as 1000000,
 * 1e6, 10^6, 1000k, 1M, 1.5G, 1T or 0xf4240; a rate as 0.01, 1e-2 or 1%.
 * Anything else, or a value out of range, is refused with one line that
 * names the allowed range: never truncated (strtoull reads "1e6" as 1) and
 * never passed on to fail later.
 */
#ifndef BLOOMSIMD_EXAMPLE_ARGS_H
#define BLOOMSIMD_EXAMPLE_ARGS_H

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number in [lo, hi]; decimal forms are exact up to 2^53, where
 * doubles stop being exact (digits and hex are always exact). */
static inline int example_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    double v;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
        errno = 0;
        unsigned long long u = strtoull(s + 2, &end, 16);
        if (*end || errno || u < lo || u > hi) return 0;
        *out = u;
        return 1;
    }
    if (strncmp(s, "10^", 3) == 0) {
        long e = strtol(s + 3, &end, 10);
        if (end == s + 3 || e < 0 || e > 18) return 0;
        for (v = 1; e > 0; e--) v *= 10;
    } else {
        if (!(*s >= '0' && *s <= '9') && *s != '.') return 0;
        v = strtod(s, &end);
        if (end == s) return 0;
        switch (*end) { /* powers of 1000, as the bench and the bloomsimd command take them */
        case 'k': case 'K': v *= 1e3, end++; break;
        case 'M': v *= 1e6, end++; break;
        case 'G': v *= 1e9, end++; break;
        case 'T': v *= 1e12, end++; break;
        default: break;
        }
    }
    if (*end || !(v >= (double)lo && v <= (double)hi) || v != (double)(uint64_t)v) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* A rate in [lo, hi): 0.01, 1e-2 or 1%. */
static inline int example_rate(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end != s && *end == '%') v /= 100.0, end++;
    if (end == s || *end || !(v >= lo && v < hi)) return 0;
    *out = v;
    return 1;
}

/* The refusal: "<prog>: <what> '<arg>': allowed <range>", then the usage line; exit status 2. */
static inline int example_refuse(const char *prog, const char *what, const char *arg, const char *range,
                                 const char *usage)
{
    fprintf(stderr, "%s: %s '%s': allowed %s\nusage: %s\n", prog, what, arg, range, usage);
    return 2;
}

#endif
