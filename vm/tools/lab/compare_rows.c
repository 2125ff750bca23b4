/*
 * compare_rows.c -- prints gccompare's rows (vmpi/tools/gccompare/metrics.h)
 * as JSON, for the lab page (docs/lab.md, "The table"): the build runs it
 * under node and make_page.py puts what it prints in the page, so the page
 * shows the rows of gccompare's one list, not a list of its own.
 *
 *   {"metrics": [{"key": K, "label": L, "shown": "count"|"ms"|"percent"|"kib"|"ratio"}, ...],
 *    "min_column_width": 12, "lifetimes_shown_classes": 8, "lifetimes_class_width": 24}
 *
 * Keys and labels are plain ASCII without quotes or backslashes.
 */
#include <stdio.h>

#include "vmpi/tools/gccompare/metrics.h"

static const char *const shown_names[] = {
    [SHOW_COUNT] = "count", [SHOW_MS] = "ms", [SHOW_PERCENT] = "percent", [SHOW_KIB] = "kib", [SHOW_RATIO] = "ratio",
};

int main(void) {
    printf("{\"metrics\": [");
    for (size_t m = 0; m < num_compare_metrics; m++)
        printf("%s\n  {\"key\": \"%s\", \"label\": \"%s\", \"shown\": \"%s\"}", m ? "," : "", compare_metrics[m].key,
               compare_metrics[m].label, shown_names[compare_metrics[m].how]);
    printf("],\n \"min_column_width\": %d, \"lifetimes_shown_classes\": %d, \"lifetimes_class_width\": %d}\n",
           MIN_COLUMN_WIDTH, LIFETIMES_SHOWN_CLASSES, LIFETIMES_CLASS_WIDTH);
    return 0;
}
