/*
 * progress.h -- heapview's progress lines on standard error (docs/heapview.md,
 * "Progress on standard error").
 *
 * A line is said always when standard error is a terminal, and otherwise
 * only about work that has taken PROGRESS_AFTER seconds or more: the quick
 * runs of the tests, whose standard error is a file, print nothing.
 */
#ifndef HEAPVIEW_PROGRESS_H
#define HEAPVIEW_PROGRESS_H

#include <stdbool.h>
#include <time.h>

#define PROGRESS_AFTER 1.0 /* seconds */

/* Called once, first: is standard error a terminal? */
void progress_init(void);

/* The time now, to measure work from. */
struct timespec progress_now(void);

double progress_seconds_since(const struct timespec *start);

/* "heapview: " and the formatted line, if standard error is a terminal or
 * the work begun at `start` has taken PROGRESS_AFTER seconds or more. */
void progress_say(const struct timespec *start, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
