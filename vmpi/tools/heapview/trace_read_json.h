/*
 * trace_read_json.h -- the JSON-lines half of trace_read (trace_read.h):
 * json-c reads it natively; a build without json-c (the lab page's,
 * docs/lab.md) has trace_read_json_refused.c instead, and reads binary
 * recordings only.
 */
#ifndef HEAPVIEW_TRACE_READ_JSON_H
#define HEAPVIEW_TRACE_READ_JSON_H

#include <stdio.h>

#include "trace_read.h"

/* Reads the JSON-lines trace open as `file` (named `path`) as trace_read does. */
bool trace_read_json(const char *path, FILE *file, char *collector, size_t collector_size, HeapEventSink sink,
                     void *context, char *err, size_t err_size);

#endif
