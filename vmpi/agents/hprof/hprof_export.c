/*
 * hprof_export.c -- the pprof= and folded= files (see hprof_export.h).
 */
#include "hprof_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hprof_folded.h"
#include "hprof_pprof.h"

static int64_t now_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static bool open_file(HprofExportFile *f, const char *path) {
    f->path = path;
    f->bytes = NULL;
    if (!path[0] || trace_output_open(&f->out, path)) return true;
    fprintf(stderr, "hprof: cannot open %s: %s\n", path, strerror(errno));
    f->path = "";
    return false;
}

bool hprof_export_open(HprofExport *e, const HprofOptions *opts) {
    e->opts = opts;
    e->start_nanos = now_nanos();
    if (!open_file(&e->pprof, opts->pprof_file)) return false;
    if (open_file(&e->folded, opts->folded_file)) return true;
    hprof_export_abandon(e);
    return false;
}

bool hprof_export_wanted(const HprofExport *e) { return e->pprof.path[0] || e->folded.path[0]; }

/* A rendering in place of the last. */
static void replace(HprofExportFile *f, char *bytes, size_t size) {
    free(f->bytes);
    f->bytes = bytes;
    f->size = size;
}

bool hprof_export_dump(HprofExport *e, const HprofStacks *stacks) {
    char *bytes;
    size_t size;
    if (e->pprof.path[0]) {
        int64_t now = now_nanos();
        /* Go's periods: a heap profile's, exact; else a CPU profile's, a
         * sample every interval (cpu=samples) or exact (cpu=times).  With
         * both, the heap's: the CPU values are in nanoseconds already. */
        bool sampled_cpu = !e->opts->heap_sites && e->opts->cpu_samples;
        /* sample=: Go's heap profiles' period, the sampling interval in
         * bytes, its values already scaled to estimates, and a comment
         * that says they are. */
        bool sampled_heap = e->opts->sample_interval >= 0;
        char comment[160];
        if (e->opts->sample_interval > 0)
            snprintf(comment, sizeof comment,
                     "hprof sample=%d: the heap values are estimates from heap sampling, one sample per %d bytes "
                     "allocated on average",
                     e->opts->sample_interval, e->opts->sample_interval);
        else
            snprintf(comment, sizeof comment, "hprof sample=0: heap sampling of every allocation: the values are exact");
        HprofPprofHeader header = {
            .time_nanos = now,
            .duration_nanos = now - e->start_nanos,
            .period_type = e->opts->heap_sites || sampled_heap ? (HprofValueType){"space", "bytes"}
                                                               : (HprofValueType){"cpu", "nanoseconds"},
            .period = sampled_heap && e->opts->sample_interval > 0 ? e->opts->sample_interval
                      : sampled_cpu                               ? (int64_t)e->opts->interval * 1000000
                                                                  : 1,
            .default_type = hprof_default_value_type(e->opts),
            .comment = sampled_heap ? comment : NULL,
        };
        if (!hprof_pprof_render(stacks, &header, &bytes, &size)) return false;
        replace(&e->pprof, bytes, size);
    }
    ptrdiff_t value = hprof_stacks_type_index(stacks, e->opts->folded_value);
    if (e->folded.path[0] && value >= 0) {
        if (!hprof_folded_render(stacks, (size_t)value, &bytes, &size)) return false;
        replace(&e->folded, bytes, size);
    }
    return true;
}

/* The file is done with: its rendering freed, and nothing more to do. */
static void closed(HprofExportFile *f) {
    free(f->bytes);
    f->bytes = NULL;
    f->path = "";
}

static void publish(HprofExportFile *f) {
    if (!f->path[0]) return;
    if (f->bytes) trace_output_bytes(&f->out, f->bytes, f->size);
    int error = trace_output_close(&f->out);
    if (error) fprintf(stderr, "hprof: cannot write %s: %s\n", f->path, strerror(error));
    closed(f);
}

void hprof_export_publish(HprofExport *e) {
    publish(&e->pprof);
    publish(&e->folded);
}

static void abandon(HprofExportFile *f) {
    if (!f->path[0]) return;
    trace_output_abandon(&f->out);
    closed(f);
}

void hprof_export_abandon(HprofExport *e) {
    abandon(&e->pprof);
    abandon(&e->folded);
}
