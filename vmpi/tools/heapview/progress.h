/*
 * progress.h -- heapview's progress lines on standard error (docs/heapview.md,
 * "Progress on standard error").
 *
 * A line is said about work under way once it has taken a while: a
 * second when standard error is a terminal, PROGRESS_QUIET_AFTER seconds
 * otherwise, so that the tests' quick runs, their standard error in a file,
 * print nothing even on a loaded machine.  On a terminal the milestones
 * (a run begins, a trace read, the page written) are said too.
 */
#ifndef HEAPVIEW_PROGRESS_H
#define HEAPVIEW_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PROGRESS_QUIET_AFTER 10.0 /* seconds, when standard error is not a terminal */

/* Called once, first: is standard error a terminal? */
void progress_init(void);

/* The time now, to measure work from. */
struct timespec progress_now(void);

double progress_seconds_since(const struct timespec *start);

/* Seconds of work before it is told about: 1 on a terminal, else PROGRESS_QUIET_AFTER. */
double progress_threshold(void);

/* "heapview: " and the formatted line, if standard error is a terminal or
 * the work begun at `start` has taken progress_threshold() seconds or more. */
void progress_say(const struct timespec *start, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* ---- reading a trace: how far it is ---------------------------------------------------- */

#define PROGRESS_EVERY 5.0 /* seconds */

typedef struct {
    const char *path;
    struct timespec started;
    double reported; /* seconds after start of the last report */
    uint64_t events;
} Progress;

void progress_start(Progress *progress, const char *path);

/* Called at every event; true when a report is due: the clock is read once
 * every 65536 events, and a report made every PROGRESS_EVERY seconds. */
bool progress_due(Progress *progress);

/* `done` of `total` bytes read. */
void progress_report(const Progress *progress, size_t done, size_t total);

/* The whole file read: said on a terminal, or after a long read. */
void progress_done(const Progress *progress, size_t total);

#endif
