/*
 * progress.c -- heapview's progress lines (progress.h).
 */
#include "progress.h"

#include <inttypes.h>
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

void progress_start(Progress *progress, const char *path) {
    *progress = (Progress){.path = path, .reported = progress_threshold() - PROGRESS_EVERY};
    progress->started = progress_now();
}

bool progress_due(Progress *progress) {
    if (++progress->events % 65536) return false;
    double elapsed = progress_seconds_since(&progress->started);
    if (elapsed - progress->reported < PROGRESS_EVERY) return false;
    progress->reported = elapsed;
    return true;
}

void progress_report(const Progress *progress, size_t done, size_t total) {
    double elapsed = progress->reported;
    fprintf(stderr, "heapview: reading %s: %.0f%%, %" PRIu64 " events, %.0f s\n", progress->path,
            total ? 100.0 * (double)done / (double)total : 0.0, progress->events, elapsed);
}

void progress_done(const Progress *progress, size_t total) {
    progress_say(&progress->started, "read %" PRIu64 " events (%.1f MB) from %s in %.1f s", progress->events,
                 (double)total / 1e6, progress->path, progress_seconds_since(&progress->started));
}
