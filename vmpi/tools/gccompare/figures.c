/*
 * figures.c -- the gcstats agent's figures as gccompare reads and shows them
 * (compare.h; the agent's JSON is described in docs/gcstats.md, "The JSON").
 *
 * A run's figures are the agent's JSON object as json-c parsed it, checked
 * for its format and version.  Its one fraction, throughput, is rewritten as
 * the shortest decimal that reads back as the same double (0.6359, not the
 * agent's 0.635900), so that the CSV and the JSON gccompare writes show it as
 * any JSON reader would print the number.  One figure is gccompare's own,
 * from two of the agent's: the objects freed per collection (null for a run
 * that never collected), which tells refcount's modes apart: immediate mode
 * frees an evicted object and its cascade in a collection of their own.
 * Refcount's figures get two more:
 * what the run with --rc-cycles=off left live at exit, and how many more
 * objects that was than with cycle collection.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* The shortest text that reads back as `value`, in the form JSON readers
 * print a double (Python's repr, JavaScript's toString): positional from
 * 1e-4 up to 1e16, with ".0" when it has no fraction, exponential beyond. */
static void shortest_double(double value, char *text, size_t size) {
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(text, size, "%.*e", digits - 1, value);
        if (strtod(text, NULL) == value) break;
    }
    snprintf(text, size, "%.*e", digits - 1, value);
    int exponent = atoi(strchr(text, 'e') + 1);
    if (!isfinite(value) || exponent < -4 || exponent >= 16) return;
    int decimals = digits - 1 - exponent;
    snprintf(text, size, "%.*f", decimals > 0 ? decimals : 0, value);
    if (!strchr(text, '.')) strncat(text, ".0", size - strlen(text) - 1);
}

/* Reads LABEL's statistics from `path`; NULL, said why, if they are not
 * gcstats version 2. */
json_object *figures_read(const char *path, const char *label) {
    json_object *stats = json_object_from_file(path);
    if (!stats) {
        compare_error("%s: %s is not JSON: %s", label, path, json_util_get_last_err());
        return NULL;
    }
    json_object *format, *version;
    if (!json_object_is_type(stats, json_type_object) || !json_object_object_get_ex(stats, "format", &format) ||
        strcmp(json_object_get_string(format), "gclab-gcstats") != 0 ||
        !json_object_object_get_ex(stats, "version", &version) || !json_object_is_type(version, json_type_int) ||
        json_object_get_int64(version) != 2) {
        compare_error("%s: %s is not gcstats version 2", label, path);
        json_object_put(stats);
        return NULL;
    }
    int64_t collections = json_object_get_int64(json_object_object_get(stats, "collections"));
    double freed = (double)json_object_get_int64(json_object_object_get(stats, "objects_freed"));
    json_object_object_add(stats, "objects_freed_per_collection",
                           collections ? json_object_new_double(freed / (double)collections) : NULL);
    json_object_object_foreach(stats, key, value) {
        if (json_object_is_type(value, json_type_double)) {
            char text[64];
            shortest_double(json_object_get_double(value), text, sizeof text);
            json_object_object_add(stats, key, json_object_new_double_s(json_object_get_double(value), text));
        }
    }
    return stats;
}

static int64_t live_at_exit(json_object *stats) {
    return json_object_get_int64(json_object_object_get(stats, "live_objects_at_exit"));
}

void figures_add_cycles_off(json_object *refcount, json_object *cycles_off) {
    json_object_object_add(refcount, "live_objects_at_exit_cycles_off", json_object_new_int64(live_at_exit(cycles_off)));
    json_object_object_add(refcount, "unreclaimed_cycles_off",
                           json_object_new_int64(live_at_exit(cycles_off) - live_at_exit(refcount)));
}

/* The JSON's text of the figure (a count, or the fraction as above), or
 * NULL when the run has none (a collector other than refcount has no
 * cycles-off figures) or it is null (no collection, no percentile). */
const char *figure_raw(json_object *stats, const char *key) {
    json_object *value;
    if (!json_object_object_get_ex(stats, key, &value) || !value) return NULL;
    return json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN);
}

/* The figure as the table shows it: "-" for none. */
void figure_shown(json_object *stats, const Metric *metric, char *text, size_t size) {
    json_object *value;
    if (!json_object_object_get_ex(stats, metric->key, &value) || !value) {
        snprintf(text, size, "-");
        return;
    }
    double figure = json_object_get_double(value);
    switch (metric->how) {
    case SHOW_MS: snprintf(text, size, "%.3f", figure / 1e6); break;
    case SHOW_PERCENT: snprintf(text, size, "%.2f", figure * 100); break;
    case SHOW_KIB: snprintf(text, size, "%.1f", figure / 1024); break;
    case SHOW_RATIO: snprintf(text, size, "%.1f", figure); break;
    case SHOW_COUNT: snprintf(text, size, "%s", figure_raw(stats, metric->key)); break;
    }
}
