/*
 * gcstats_chrome.c -- the run as Chrome trace JSON (gcstats_chrome.h).
 * Records are formatted straight into trace_output's buffer: no malloc, no
 * stdio, so collections' events can be written as they happen.
 */
#include "gcstats_chrome.h"

#include <stdio.h>

static const char *const phase_names[] = {
    [CHROME_PHASE_FREE] = "free",
    [CHROME_PHASE_MOVE] = "move",
    [CHROME_PHASE_RENEW] = "arena renewal",
};

enum { COLLECTIONS_TID = 1 }; /* a phase's track is 1 + its ChromePhase */

/* Starts a record: {"ph":"P","pid":1,"ts":T with a comma before it unless
 * it is the first.  Chrome's ts is in microseconds; ours keep nanoseconds
 * as three decimals. */
static void begin_record(ChromeTrace *trace, const char *ph, uint64_t ns) {
    TraceOutput *out = &trace->out;
    trace_output_text(out, trace->records++ ? ",\n{\"ph\":\"" : "{\"ph\":\"");
    trace_output_text(out, ph);
    trace_output_text(out, "\",\"pid\":1,\"ts\":");
    trace_output_uint(out, ns / 1000);
    char fraction[8];
    snprintf(fraction, sizeof fraction, ".%03u", (unsigned)(ns % 1000));
    trace_output_text(out, fraction);
}

static void field_uint(TraceOutput *out, const char *name, uint64_t value) {
    trace_output_text(out, ",\"");
    trace_output_text(out, name);
    trace_output_text(out, "\":");
    trace_output_uint(out, value);
}

static void field_string(TraceOutput *out, const char *name, const char *value) {
    trace_output_text(out, ",\"");
    trace_output_text(out, name);
    trace_output_text(out, "\":");
    trace_output_string(out, value);
}

static void end_record(ChromeTrace *trace) {
    trace_output_text(&trace->out, "}");
    trace_output_flush_if_fuller(&trace->out, TRACE_BUFFER_BYTES / 4);
}

/* A metadata record naming the process (tid 0) or a track. */
static void name_record(ChromeTrace *trace, const char *what, int tid, const char *name) {
    begin_record(trace, "M", 0);
    field_uint(&trace->out, "tid", (uint64_t)tid);
    field_string(&trace->out, "name", what);
    trace_output_text(&trace->out, ",\"args\":{\"name\":");
    trace_output_string(&trace->out, name);
    trace_output_text(&trace->out, "}");
    end_record(trace);
}

bool chrome_open(ChromeTrace *trace, const char *path) {
    trace->begun = false;
    trace->records = 0;
    trace->in_collection = false;
    trace->phase = CHROME_PHASE_NONE;
    return trace_output_open(&trace->out, path);
}

void chrome_begin(ChromeTrace *trace, const char *collector) {
    if (!collector) collector = "unknown";
    trace->begun = true;
    trace_output_text(&trace->out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"collector\":");
    trace_output_string(&trace->out, collector);
    trace_output_text(&trace->out, "},\"traceEvents\":[\n");
    char process[128];
    snprintf(process, sizeof process, "gclab %s", collector);
    name_record(trace, "process_name", 0, process);
    name_record(trace, "thread_name", COLLECTIONS_TID, "collections");
    for (int phase = CHROME_PHASE_FREE; phase <= CHROME_PHASE_RENEW; phase++)
        name_record(trace, "thread_name", COLLECTIONS_TID + phase, phase_names[phase]);
}

/* A "B" or "E" record on track `tid`; a "B" is named, an "E" closes the
 * innermost open slice of its track. */
static void slice_record(ChromeTrace *trace, const char *ph, uint64_t ns, int tid, const char *name) {
    begin_record(trace, ph, ns);
    field_uint(&trace->out, "tid", (uint64_t)tid);
    if (name) field_string(&trace->out, "name", name);
}

void chrome_collection_begin(ChromeTrace *trace, uint64_t ns) {
    slice_record(trace, "B", ns, COLLECTIONS_TID, "GC");
    end_record(trace);
    trace->in_collection = true;
}

void chrome_phase(ChromeTrace *trace, uint64_t ns, ChromePhase phase) {
    if (!trace->in_collection || phase == trace->phase) return;
    if (trace->phase != CHROME_PHASE_NONE) {
        slice_record(trace, "E", ns, COLLECTIONS_TID + (int)trace->phase, NULL);
        end_record(trace);
    }
    trace->phase = phase;
    if (phase != CHROME_PHASE_NONE) {
        slice_record(trace, "B", ns, COLLECTIONS_TID + (int)phase, phase_names[phase]);
        end_record(trace);
    }
}

void chrome_collection_end(ChromeTrace *trace, uint64_t ns, const ChromeCollection *collection) {
    chrome_phase(trace, ns, CHROME_PHASE_NONE);
    slice_record(trace, "E", ns, COLLECTIONS_TID, NULL);
    TraceOutput *out = &trace->out;
    trace_output_text(out, ",\"args\":{\"kind\":");
    trace_output_string(out, collection->kind);
    trace_output_text(out, ",\"pause_ns\":");
    trace_output_uint(out, collection->pause_ns);
    field_uint(out, "objects_moved", collection->objects_moved);
    field_uint(out, "bytes_moved", collection->bytes_moved);
    field_uint(out, "objects_freed", collection->objects_freed);
    field_uint(out, "bytes_freed", collection->bytes_freed);
    field_uint(out, "used_bytes", (uint64_t)collection->used_bytes);
    field_uint(out, "capacity_bytes", (uint64_t)collection->capacity_bytes);
    trace_output_text(out, "}");
    end_record(trace);
    trace->in_collection = false;
}

void chrome_arena_counter(ChromeTrace *trace, uint64_t ns, int32_t arena_id, const char *arena_name,
                          uint64_t used_bytes, uint64_t objects) {
    char name[96];
    snprintf(name, sizeof name, "arena %d %s", (int)arena_id, arena_name);
    begin_record(trace, "C", ns);
    field_string(&trace->out, "name", name);
    trace_output_text(&trace->out, ",\"args\":{\"used_bytes\":");
    trace_output_uint(&trace->out, used_bytes);
    field_uint(&trace->out, "objects", objects);
    trace_output_text(&trace->out, "}");
    end_record(trace);
}

void chrome_counter(ChromeTrace *trace, uint64_t ns, const char *name, uint64_t bytes) {
    begin_record(trace, "C", ns);
    field_string(&trace->out, "name", name);
    trace_output_text(&trace->out, ",\"args\":{\"bytes\":");
    trace_output_uint(&trace->out, bytes);
    trace_output_text(&trace->out, "}");
    end_record(trace);
}

int chrome_close(ChromeTrace *trace, uint64_t ns) {
    if (!trace->begun) chrome_begin(trace, NULL);
    if (trace->in_collection) {
        chrome_phase(trace, ns, CHROME_PHASE_NONE);
        slice_record(trace, "E", ns, COLLECTIONS_TID, NULL);
        trace_output_text(&trace->out, ",\"args\":{\"unfinished\":true}");
        end_record(trace);
        trace->in_collection = false;
    }
    trace_output_text(&trace->out, "\n]}\n");
    return trace_output_close(&trace->out);
}
