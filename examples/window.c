/*
 * window.c — "have I seen this event in the last 24 hours?": a sliding window
 * of 24 generations, rotated every hour. A key stays in the window for 24
 * rotations after the hour it was inserted in, then ages out, with no rebuild
 * and no pause: bloomsimd_rotate drops the oldest hour and starts a new one.
 *
 * The demo replays 48 simulated hours of events in which some event ids come
 * back after 3 hours (inside the window: reported duplicates) or after 30
 * hours (outside it: new again). A real service rotates on the wall clock
 * instead, with the window's own age:
 *
 *     bloomsimd_info info;
 *     bloomsimd_get_info(window, &info);
 *     if (now_ns - info.current_started_ns >= 3600 * 1000000000LL) bloomsimd_rotate(window);
 *
 *   build/bloomsimd-example-window [events per hour]
 */
#include <bloomsimd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h" /* 1e6, 10^6, 1%: numbers read as bloomsimd-bench reads them */

#define HOURS 48
#define BATCH 4096

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Event i of hour h: mostly fresh ids, 10% repeat an id from 3 hours ago,
 * 10% one from 30 hours ago. */
static uint64_t event_id(uint64_t hour, uint64_t i, uint64_t per_hour)
{
    uint64_t r = mix(hour * per_hour + i) % 10;
    if (r == 0 && hour >= 3) return mix((hour - 3) * per_hour + i / 2 + 7);
    if (r == 1 && hour >= 30) return mix((hour - 30) * per_hour + i / 2 + 7);
    return mix(hour * per_hour + i + 7);
}

int main(int argc, char **argv)
{
    uint64_t per_hour = 200000;
    const char *usage = "bloomsimd-example-window [keys per hour, e.g. 2e5]";
    if (argc > 2) return example_refuse("window", "arguments", argv[2], "at most 1", usage);
    if (argc > 1 && !example_count(argv[1], 1, 1000000000u, &per_hour))
        return example_refuse("window", "keys per hour", argv[1], "1 .. 1e9 (200000 or 2e5)", usage);
    bloomsimd_options o = {.capacity = per_hour, .fpr = 0.0001, .generations = 24};
    bloomsimd_filter *window;
    bloomsimd_status st = bloomsimd_create_with(&window, &o);
    if (st != BLOOMSIMD_OK) {
        fprintf(stderr, "window: %s\n", bloomsimd_status_string(st));
        return 1;
    }
    uint64_t ids[BATCH];
    uint8_t fresh[BATCH];
    printf("%5s %10s %12s %14s\n", "hour", "events", "duplicates", "window items");
    for (uint64_t hour = 0; hour < HOURS; hour++) {
        if (hour > 0) bloomsimd_rotate(window); /* a new hour: the hour 24 hours ago ages out */
        uint64_t dups = 0;
        for (uint64_t base = 0; base < per_hour; base += BATCH) {
            size_t n = per_hour - base < BATCH ? (size_t)(per_hour - base) : BATCH;
            for (size_t i = 0; i < n; i++) ids[i] = event_id(hour, base + i, per_hour);
            size_t new_count;
            bloomsimd_add_new_batch_u64(window, ids, n, fresh, &new_count);
            dups += n - new_count; /* seen within the last 24 hours */
        }
        bloomsimd_info info;
        bloomsimd_get_info(window, &info);
        if (hour % 6 == 5 || hour == 2 || hour == 3 || hour == 29 || hour == 30)
            printf("%5" PRIu64 " %10" PRIu64 " %12" PRIu64 " %14" PRIu64 "\n", hour, per_hour, dups, info.items);
    }
    printf("(from hour 3 about 10%% of events repeat an id seen 3 hours earlier and are duplicates; ids seen\n"
           " 30 hours earlier have aged out of the 24-hour window and count as new)\n");
    bloomsimd_destroy(window);
    return 0;
}
