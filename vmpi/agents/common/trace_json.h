/*
 * trace_json.h -- one event as a line of the trace format's JSON
 * (docs/trace-format.md), generated from vmpi.h's event table.
 *
 * The trace agent writes its lines with these, and so does the binary
 * recording's converter (vmpi-trace2json): both write the same bytes for the
 * same events because they run the same code.  Like trace_output.h, nothing
 * here allocates, so it may run in thread-suspended mode.
 */
#ifndef GCLAB_TRACE_JSON_H
#define GCLAB_TRACE_JSON_H

#include <stdint.h>

#include "trace_output.h"
#include "vmpi.h"

/* The first line: which format this is, and what wrote it. */
void trace_json_header(TraceOutput *out, int32_t vmpi_version, const char *collector);

/* Line `seq` (from 1): `event`, which happened in VM thread number
 * `thread` (0 for none).  Its env_id is not read. */
void trace_json_event(TraceOutput *out, uint64_t seq, const VMPI_Event *event, uint32_t thread);

#endif
