/*
 * metrics.h -- the rows of gccompare's table and how each is shown
 * (docs/gcstats.md, "gccompare"): the one list of them (metrics.c), which
 * report.c and lifetimes.c print and the lab page shows as they print it
 * (docs/lab.md, "The table"; vm/tools/lab/compare_rows.c hands the page
 * this header's contents).  No json-c here: the lab's build has none.
 */
#ifndef GCLAB_METRICS_H
#define GCLAB_METRICS_H

#include <stddef.h>

/* How a row's figure is shown (figure_shown in figures.c): the JSON's
 * integer as it is; nanoseconds as milliseconds with 3 decimals ("%.3f");
 * a fraction as a percentage with 2; bytes as KiB with 1; a ratio with 1. */
typedef enum { SHOW_COUNT, SHOW_MS, SHOW_PERCENT, SHOW_KIB, SHOW_RATIO } Shown;
typedef struct {
    const char *key;   /* in the agent's JSON */
    const char *label; /* in the table */
    Shown how;
} Metric;
extern const Metric compare_metrics[];
extern const size_t num_compare_metrics;

enum {
    MIN_COLUMN_WIDTH = 12,       /* a collector's column, in both tables */
    LIFETIMES_SHOWN_CLASSES = 8, /* the classes the lifetimes tables show, the rest on one line */
    LIFETIMES_CLASS_WIDTH = 24,  /* their first column */
};

#endif
