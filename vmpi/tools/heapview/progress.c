/*
 * progress.c -- heapview's progress lines (progress.h).
 */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static bool to_terminal;

void progress_init(void) {
    to_terminal = isatty(STDERR_FILENO);
}

struct timespec progress_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

double progress_seconds_since(const struct timespec *start) {
    struct timespec now = progress_now();
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

double progress_threshold(void) {
    return to_terminal ? 1.0 : PROGRESS_QUIET_AFTER;
}

void progress_say(const struct timespec *start, const char *format, ...) {
    if (!to_terminal && progress_seconds_since(start) < progress_threshold()) return;
    va_list args;
    va_start(args, format);
    fputs("heapview: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}
