/*
 * hprof_export.h -- pprof= and folded=: the files that hold hprof's tables
 * in the formats of today's tools (hprof_pprof.h, hprof_folded.h), beside
 * the text profile.
 *
 * Each file holds one profile, not a series, so it gets the tables of the
 * last dump: each dump (at exit or on request) renders them into memory in
 * place of the one before, and the exit publishes that.  The files are
 * complete or absent as the text profile is: opened at load under a
 * temporary name (vmpi/agents/common/trace_output.h), so that a path that
 * cannot be written stops the VM before the program runs, and renamed into
 * place at exit only if the text profile is published too.
 */
#ifndef GCLAB_HPROF_EXPORT_H
#define GCLAB_HPROF_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/trace_output.h"
#include "hprof_options.h"
#include "hprof_stacks.h"

typedef struct HprofExportFile {
    const char *path;         /* "" when not asked for */
    TraceOutput out;
    char *bytes;              /* the last dump's rendering, or NULL */
    size_t size;
} HprofExportFile;

typedef struct HprofExport {
    const HprofOptions *opts;
    int64_t start_nanos;      /* when the agent loaded (CLOCK_REALTIME) */
    HprofExportFile pprof, folded;
} HprofExport;

/* Opens the files asked for; false, after saying why, if one cannot be. */
bool hprof_export_open(HprofExport *e, const HprofOptions *opts);

/* Whether any file is asked for: only then are the tables made into stacks. */
bool hprof_export_wanted(const HprofExport *e);

/* A dump's tables, rendered for the files in place of the last dump's;
 * false if memory ran out. */
bool hprof_export_dump(HprofExport *e, const HprofStacks *stacks);

/* At exit: the last renderings written and the files renamed into place;
 * a failure is reported.  Or abandoned: nothing published. */
void hprof_export_publish(HprofExport *e);
void hprof_export_abandon(HprofExport *e);

#endif
