/*
 * util.c — messages on stderr and the signal plumbing shared by commands.
 */
#include <errno.h>
#include <signal.h>
#include <sys/select.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "cli.h"

const char *cli_cmd = "";
volatile sig_atomic_t cli_stop_signal = 0;

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "bloomsimd%s%s: %s", *cli_cmd ? " " : "", cli_cmd, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning: ", fmt, ap);
    va_end(ap);
}

const char *cli_status_text(bloomsimd_status st)
{
    static char text[384];
    const char *status = bloomsimd_status_string(st);
    const char *detail = bloomsimd_last_error();
    if (!detail || !*detail || strcmp(detail, status) == 0)
        snprintf(text, sizeof text, "%s", status);
    else
        snprintf(text, sizeof text, "%s: %s", status, detail);
    return text;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'bloomsimd %s%s--help' for more information.\n", cli_cmd, *cli_cmd ? " " : "");
    return CLI_ERROR;
}

static void on_stop_signal(int sig)
{
    cli_stop_signal = sig;
}

static bool stop_signals_caught;

void cli_catch_stop_signals(void)
{
    stop_signals_caught = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a read blocked on a quiet pipe must return EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* pselect unblocks the stop signals only while it waits, atomically: one
 * arriving just before the wait interrupts it instead of being missed (a
 * plain read could block on a quiet pipe after the flag was checked). */
bool cli_wait_readable(int fd)
{
    if (!stop_signals_caught || fd >= FD_SETSIZE) return !cli_stop_signal;
    sigset_t stop, saved;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    for (;;) {
        pthread_sigmask(SIG_BLOCK, &stop, &saved);
        int rc = 0, err = 0;
        if (!cli_stop_signal) {
            fd_set in;
            FD_ZERO(&in);
            FD_SET(fd, &in);
            rc = pselect(fd + 1, &in, NULL, NULL, NULL, &saved);
            err = errno;
        }
        /* the mask restored each time round: under ThreadSanitizer, which
         * runs a handler late, a caught signal's handler runs here at the latest */
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        if (cli_stop_signal) return false;
        if (rc >= 0 || err != EINTR) return true;
    }
}

void cli_die_of_signal(int sig)
{
    fflush(stdout);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* only if the signal was somehow not fatal */
}

void cli_block_stop_signals(bool block)
{
    static sigset_t saved;
    sigset_t set;
    if (block) {
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        sigprocmask(SIG_BLOCK, &set, &saved);
    } else {
        sigprocmask(SIG_SETMASK, &saved, NULL);
    }
}
