/*
 * lifetimes.c -- gccompare's lifetimes tables (compare.h; docs/gcstats.md,
 * "Lifetimes"): the program's demographics, per class, from the gcstats
 * agent's "lifetimes".
 *
 * The first table counts, per class, the objects allocated, how many died
 * before their 1st, 2nd, 3rd or a later collection, and how many were live
 * at exit.  Ages in collections depend on how often a collector collects,
 * so that table is the first column's collector's, and says so.  The second
 * gives, per class and collector, the mean bytes the program allocated in an
 * object's life, from its allocation to the free that reported its death: a
 * clock of the program's own, which differs between collectors only by how
 * late each found the deaths (under --gc-stress, every allocation, not at
 * all).  The classes are the first run's with the most objects, the rest
 * summed on one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* A run's lifetimes entry for `name`, or NULL. */
static json_object *class_entry(json_object *stats, const char *name) {
    json_object *lifetimes;
    if (!json_object_object_get_ex(stats, "lifetimes", &lifetimes)) return NULL;
    for (size_t i = 0; i < json_object_array_length(lifetimes); i++) {
        json_object *entry = json_object_array_get_idx(lifetimes, i), *class_name;
        if (json_object_object_get_ex(entry, "class", &class_name) &&
            strcmp(json_object_get_string(class_name), name) == 0)
            return entry;
    }
    return NULL;
}

static uint64_t field(json_object *entry, const char *key) {
    json_object *value;
    return entry && json_object_object_get_ex(entry, key, &value) ? (uint64_t)json_object_get_int64(value) : 0;
}

static uint64_t element(json_object *entry, const char *key, size_t index) {
    json_object *array;
    if (!entry || !json_object_object_get_ex(entry, key, &array)) return 0;
    json_object *value = json_object_array_get_idx(array, index);
    return value ? (uint64_t)json_object_get_int64(value) : 0;
}

/* One line's figures: a class's, or the rest's summed. */
typedef struct {
    uint64_t allocated, died_at[4], live_at_exit; /* died_at: 1st, 2nd, 3rd, later */
} Demography;

static void add_entry(Demography *line, json_object *entry) {
    line->allocated += field(entry, "allocated");
    line->live_at_exit += field(entry, "live_at_exit");
    json_object *ages;
    if (!entry || !json_object_object_get_ex(entry, "died_at", &ages)) return;
    for (size_t k = 0; k < json_object_array_length(ages); k++)
        line->died_at[k < 3 ? k : 3] += element(entry, "died_at", k);
}

static int by_allocated(const void *a, const void *b) {
    uint64_t x = field(*(json_object *const *)a, "allocated"), y = field(*(json_object *const *)b, "allocated");
    return (x < y) - (x > y);
}

/* The mean span of the deaths of the classes in `names` (count of them)
 * under one run, as text: "-" when none died. */
static void mean_span(json_object *stats, const char *const *names, size_t count, char *text, size_t size) {
    uint64_t lived = 0, deaths = 0;
    for (size_t i = 0; i < count; i++) {
        json_object *entry = class_entry(stats, names[i]);
        lived += field(entry, "bytes_lived");
        deaths += field(entry, "allocated") - field(entry, "live_at_exit");
    }
    if (deaths) snprintf(text, size, "%llu", (unsigned long long)(lived / deaths));
    else snprintf(text, size, "-");
}

static void demography_line(FILE *out, const char *label, const Demography *line) {
    fprintf(out, "%-*s  %10llu  %10llu  %8llu  %8llu  %8llu  %12llu\n", LIFETIMES_CLASS_WIDTH, label,
            (unsigned long long)line->allocated, (unsigned long long)line->died_at[0],
            (unsigned long long)line->died_at[1], (unsigned long long)line->died_at[2],
            (unsigned long long)line->died_at[3], (unsigned long long)line->live_at_exit);
}

static void span_line(FILE *out, const char *label, const CompareRun *runs, size_t count, const char *const *names,
                      size_t num_names) {
    fprintf(out, "%-*s", LIFETIMES_CLASS_WIDTH, label);
    for (size_t r = 0; r < count; r++) {
        char cell[32];
        mean_span(runs[r].stats, names, num_names, cell, sizeof cell);
        int width = (int)strlen(runs[r].collector);
        fprintf(out, "  %*s", width > MIN_COLUMN_WIDTH ? width : MIN_COLUMN_WIDTH, cell);
    }
    fputc('\n', out);
}

bool report_lifetimes(FILE *out, const CompareRun *runs, size_t count) {
    json_object *lifetimes;
    if (!json_object_object_get_ex(runs[0].stats, "lifetimes", &lifetimes) ||
        !json_object_is_type(lifetimes, json_type_array)) {
        compare_error("%s: the statistics have no lifetimes", runs[0].collector);
        return false;
    }
    size_t num_classes = json_object_array_length(lifetimes);
    json_object **sorted = calloc(num_classes + 1, sizeof *sorted);
    const char **names = calloc(num_classes + 1, sizeof *names);
    if (!sorted || !names) {
        compare_error("out of memory");
        free(sorted);
        free(names);
        return false;
    }
    for (size_t i = 0; i < num_classes; i++) {
        json_object *class_name;
        sorted[i] = json_object_array_get_idx(lifetimes, i);
        if (!json_object_object_get_ex(sorted[i], "class", &class_name) ||
            !json_object_is_type(class_name, json_type_string)) {
            compare_error("%s: a class of the statistics' lifetimes has no name", runs[0].collector);
            free(sorted);
            free(names);
            return false;
        }
    }
    qsort(sorted, num_classes, sizeof *sorted, by_allocated);
    for (size_t i = 0; i < num_classes; i++)
        names[i] = json_object_get_string(json_object_object_get(sorted[i], "class"));
    /* A line for the rest only when it stands for two classes or more. */
    size_t shown = num_classes > LIFETIMES_SHOWN_CLASSES + 1 ? LIFETIMES_SHOWN_CLASSES : num_classes;
    char rest[64];
    snprintf(rest, sizeof rest, "(%zu more classes)", num_classes - shown);

    fprintf(out, "\nlifetimes per class: objects that died before their 1st, 2nd, 3rd or a later collection,\n"
                 "counted in %s's collections\n",
            runs[0].collector);
    fprintf(out, "%-*s  %10s  %10s  %8s  %8s  %8s  %12s\n", LIFETIMES_CLASS_WIDTH, "class", "allocated",
            "before 1st", "2nd", "3rd", "later", "live at exit");
    Demography summed = {0};
    for (size_t i = 0; i < num_classes; i++) {
        Demography line = {0};
        add_entry(&line, sorted[i]);
        if (i < shown) demography_line(out, names[i], &line);
        else add_entry(&summed, sorted[i]);
    }
    if (shown < num_classes) demography_line(out, rest, &summed);

    fprintf(out, "\nmean bytes the program allocated in an object's life, to the free that reported its death\n");
    fprintf(out, "%-*s", LIFETIMES_CLASS_WIDTH, "class");
    /* at least as wide as the cells */
    for (size_t r = 0; r < count; r++) fprintf(out, "  %*s", MIN_COLUMN_WIDTH, runs[r].collector);
    fputc('\n', out);
    for (size_t i = 0; i < shown; i++) span_line(out, names[i], runs, count, &names[i], 1);
    if (shown < num_classes) span_line(out, rest, runs, count, &names[shown], num_classes - shown);
    free(sorted);
    free(names);
    return true;
}
