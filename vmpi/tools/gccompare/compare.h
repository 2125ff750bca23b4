/*
 * compare.h -- what gccompare's parts share (docs/gcstats.md, "gccompare").
 *
 * gccompare runs one program under every collector with the same heap and
 * seed, each run with the gcstats agent, and puts the agent's figures side
 * by side.  gccompare.c reads the command line and drives the comparison;
 * runs.c runs vmrun in a scratch directory and keeps what each run printed;
 * figures.c reads the agent's JSON and knows the table's rows; report.c
 * writes the table, the CSV, the JSON and the merged Chrome trace;
 * lifetimes.c the lifetimes tables under the table.  Every
 * figure comes from the agent, that is from the VM's event stream, never
 * from vmrun's log text.
 *
 * A function that fails says why on stderr, in one line starting
 * "gccompare: " (compare_error), and returns false or NULL: the caller only
 * unwinds, and gccompare exits 1.
 */
#ifndef GCLAB_COMPARE_H
#define GCLAB_COMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "metrics.h"

typedef struct {
    const char *heap;        /* --heap for every run, or NULL for vmrun's own */
    const char *seed;        /* --seed, digits only */
    const char *only;        /* --gc=A,B,..., or NULL for all that vmrun lists */
    const char **vm_options; /* --vm-option=OPT, each passed to every run */
    size_t num_vm_options;
    const char *csv_path, *json_path, *chrome_path; /* NULL when not asked for */
    const char *vmrun;
    const char *program;
    char **args; /* the program's own arguments */
    size_t num_args;
} CompareOptions;

/* One run of the program under one collector. */
typedef struct {
    const char *collector;
    char *output; /* what the program printed on stdout, all of it */
    size_t output_len;
    int status;        /* vmrun's exit status; minus the signal that killed it */
    char *first_error; /* the first "error:" or "vmrun:" line of its stderr, or "" */
    json_object *stats; /* the agent's figures (figures.c) */
} CompareRun;

void compare_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* runs.c: the scratch directory, the collectors vmrun has, one run. */
char *scratch_create(void);
void scratch_remove(char *scratch);
char *scratch_file(const char *scratch, const char *label, const char *suffix);
bool list_collectors(const CompareOptions *options, const char *scratch, char ***names, size_t *count);
bool run_collector(const CompareOptions *options, const char *scratch, const char *collector,
                   const char *label, const char *extra_option, CompareRun *run);
void run_release(CompareRun *run);

/* figures.c: the agent's JSON, and its figures as the rows (metrics.h) show them. */
json_object *figures_read(const char *path, const char *label);
void figures_add_cycles_off(json_object *refcount, json_object *cycles_off);
void figure_shown(json_object *stats, const Metric *metric, char *text, size_t size);
const char *figure_raw(json_object *stats, const char *key);

/* report.c: what gccompare prints and writes. */
void report_table(FILE *out, const CompareRun *runs, size_t count);
bool report_csv(const char *path, const CompareRun *runs, size_t count);
bool report_json(const char *path, const CompareOptions *options, const CompareRun *runs, size_t count,
                 json_object *cycles_off);
bool report_chrome(const char *path, const char *scratch, const CompareRun *runs, size_t count);

/* lifetimes.c: the lifetimes tables, after the metrics' table. */
bool report_lifetimes(FILE *out, const CompareRun *runs, size_t count);

#endif
