/*
 * trace_read_json_refused.c -- trace_read_json (trace_read_json.h) in the
 * lab page's build (docs/lab.md), which has no json-c: the page's own runs
 * are binary recordings, and a trace in JSON lines is refused.
 */
#include "trace_read_json.h"

bool trace_read_json(const char *path, FILE *file, char *collector, size_t collector_size, HeapEventSink sink,
                     void *context, char *err, size_t err_size) {
    (void)file, (void)collector, (void)collector_size, (void)sink, (void)context;
    snprintf(err, err_size, "%s: this build (WebAssembly) reads binary recordings only, not JSON lines", path);
    return false;
}
