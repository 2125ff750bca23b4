/*
 * report.c -- what gccompare prints and writes (compare.h; the formats are
 * in docs/gcstats.md, "gccompare").
 *
 * The table has a row per metric (figures.c) and a column per collector, at
 * least 12 characters wide; the CSV the same rows with the JSON's raw
 * numbers, an empty cell where the table shows "-", lines ended by CRLF as
 * RFC 4180 has them (no cell needs quoting: collector names and metric keys
 * hold no comma, quote or newline); the JSON every run's figures; the Chrome
 * trace every run's events in one file, the run's process (pid 1) renumbered
 * to the collector's place in the table.  A file that cannot be written
 * whole is removed, never left half-written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

void report_table(FILE *out, const CompareRun *runs, size_t count) {
    int label_width = 0;
    for (size_t m = 0; m < num_compare_metrics; m++) {
        int width = (int)strlen(compare_metrics[m].label);
        if (width > label_width) label_width = width;
    }
    fprintf(out, "%*s", label_width, "");
    for (size_t i = 0; i < count; i++) fprintf(out, "  %*s", MIN_COLUMN_WIDTH, runs[i].collector);
    fputc('\n', out);
    for (size_t m = 0; m < num_compare_metrics; m++) {
        fprintf(out, "%-*s", label_width, compare_metrics[m].label);
        for (size_t i = 0; i < count; i++) {
            char cell[64];
            figure_shown(runs[i].stats, &compare_metrics[m], cell, sizeof cell);
            int width = (int)strlen(runs[i].collector);
            fprintf(out, "  %*s", width > MIN_COLUMN_WIDTH ? width : MIN_COLUMN_WIDTH, cell);
        }
        fputc('\n', out);
    }
}

/* Opens `path` for report_close. */
static FILE *report_open(const char *path) {
    FILE *file = fopen(path, "w");
    if (!file) compare_error("cannot write %s: %s", path, strerror(errno));
    return file;
}

/* Closes what report_open opened; a file not written whole is removed. */
static bool report_close(const char *path, FILE *file) {
    bool written = !ferror(file);
    int error = errno;
    if (fclose(file) != 0 && written) {
        written = false;
        error = errno;
    }
    if (!written) {
        compare_error("cannot write %s: %s", path, strerror(error));
        unlink(path);
    }
    return written;
}

bool report_csv(const char *path, const CompareRun *runs, size_t count) {
    FILE *file = report_open(path);
    if (!file) return false;
    fputs("metric", file);
    for (size_t i = 0; i < count; i++) fprintf(file, ",%s", runs[i].collector);
    fputs("\r\n", file);
    for (size_t m = 0; m < num_compare_metrics; m++) {
        fputs(compare_metrics[m].key, file);
        for (size_t i = 0; i < count; i++) {
            const char *raw = figure_raw(runs[i].stats, compare_metrics[m].key);
            fprintf(file, ",%s", raw ? raw : "");
        }
        fputs("\r\n", file);
    }
    return report_close(path, file);
}

/* Writes `document`, then drops it. */
static bool write_json(const char *path, json_object *document, int flags) {
    FILE *file = report_open(path);
    if (file) {
        fputs(json_object_to_json_string_ext(document, flags | JSON_C_TO_STRING_NOSLASHESCAPE), file);
        fputc('\n', file);
    }
    json_object_put(document);
    return file && report_close(path, file);
}

bool report_json(const char *path, const CompareOptions *options, const CompareRun *runs, size_t count,
                 json_object *cycles_off) {
    json_object *document = json_object_new_object(), *args = json_object_new_array(),
                *collectors = json_object_new_object();
    for (size_t i = 0; i < options->num_args; i++) json_object_array_add(args, json_object_new_string(options->args[i]));
    for (size_t i = 0; i < count; i++)
        json_object_object_add(collectors, runs[i].collector, json_object_get(runs[i].stats));
    json_object_object_add(document, "program", json_object_new_string(options->program));
    json_object_object_add(document, "args", args);
    json_object_object_add(document, "heap", options->heap ? json_object_new_string(options->heap) : NULL);
    json_object_object_add(document, "seed", json_object_new_uint64(strtoull(options->seed, NULL, 10)));
    json_object_object_add(document, "collectors", collectors);
    json_object_object_add(document, "refcount_cycles_off", json_object_get(cycles_off));
    return write_json(path, document, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
}

bool report_chrome(const char *path, const char *scratch, const CompareRun *runs, size_t count) {
    json_object *document = json_object_new_object(), *events = json_object_new_array();
    json_object_object_add(document, "displayTimeUnit", json_object_new_string("ms"));
    json_object_object_add(document, "traceEvents", events);
    for (size_t i = 0; i < count; i++) {
        char *run_path = scratch_file(scratch, runs[i].collector, ".chrome.json");
        json_object *run = run_path ? json_object_from_file(run_path) : NULL, *run_events;
        if (!run || !json_object_object_get_ex(run, "traceEvents", &run_events) ||
            !json_object_is_type(run_events, json_type_array)) {
            if (run_path) compare_error("%s: %s is not a Chrome trace", runs[i].collector, run_path);
            json_object_put(run);
            json_object_put(document);
            free(run_path);
            return false;
        }
        for (size_t e = 0; e < json_object_array_length(run_events); e++) {
            json_object *event = json_object_array_get_idx(run_events, e);
            json_object_object_add(event, "pid", json_object_new_int64((int64_t)i + 1));
            json_object_array_add(events, json_object_get(event));
        }
        json_object_put(run);
        free(run_path);
    }
    return write_json(path, document, JSON_C_TO_STRING_PLAIN);
}
