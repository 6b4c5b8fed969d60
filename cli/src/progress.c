/*
 * progress.c — see progress.h.
 */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define SHOW_AFTER_SECONDS 1.0

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress *p, bool quiet, bool forced, bool writes_stdout, uint64_t total_bytes)
{
    p->tty = isatty(2) != 0;
    p->enabled = !quiet && (forced || (p->tty && !(writes_stdout && isatty(1))));
    p->forced = forced && !quiet;
    p->shown = false;
    p->start = p->last = progress_now();
    p->total_bytes = total_bytes;
}

static void human(double v, char *buf, size_t cap, const char *unit)
{
    if (v >= 1e9) snprintf(buf, cap, "%.2fG %s", v / 1e9, unit);
    else if (v >= 1e6) snprintf(buf, cap, "%.2fM %s", v / 1e6, unit);
    else if (v >= 1e3) snprintf(buf, cap, "%.1fk %s", v / 1e3, unit);
    else snprintf(buf, cap, "%.0f %s", v, unit);
}

static void print_line(progress *p, uint64_t records, uint64_t bytes, double now, const char *end)
{
    double secs = now - p->start > 1e-9 ? now - p->start : 1e-9;
    char recs[32], rate[32], mbs[32];
    human((double)records, recs, sizeof recs, "records");
    human((double)records / secs, rate, sizeof rate, "rec/s");
    snprintf(mbs, sizeof mbs, "%.1f MB/s", (double)bytes / secs / 1e6);
    if (p->total_bytes)
        fprintf(stderr, "%s%s  %s  %s  %.0f%%%s", p->tty ? "\r\033[K" : "", recs, rate, mbs,
                100.0 * (double)bytes / (double)p->total_bytes, end);
    else
        fprintf(stderr, "%s%s  %s  %s  %.1f s%s", p->tty ? "\r\033[K" : "", recs, rate, mbs, secs, end);
    fflush(stderr);
}

void progress_update(progress *p, uint64_t records, uint64_t bytes)
{
    if (!p->enabled) return;
    double now = progress_now();
    if (now - p->start < SHOW_AFTER_SECONDS) return;
    if (p->shown && now - p->last < (p->tty ? 0.25 : 1.0)) return;
    p->last = now;
    p->shown = true;
    print_line(p, records, bytes, now, p->tty ? "" : "\n");
}

void progress_done(progress *p, uint64_t records, uint64_t bytes)
{
    if (!p->enabled || !(p->shown || p->forced)) return;
    if (p->tty && !p->forced) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    } else {
        print_line(p, records, bytes, progress_now(), " (done)\n");
    }
}
