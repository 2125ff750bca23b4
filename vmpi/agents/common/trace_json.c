/*
 * trace_json.c -- the trace format's JSON lines (trace_json.h): the pieces
 * of a line, and one writer per field kind, called in the order vmpi.h's
 * event table lists an event's fields.
 */
#include "trace_json.h"

/* `,"NAME":`, what comes before a field's value, with its length: NAME is a
 * string literal, so each key is one copy of a known length. */
typedef struct Key {
    const char *text;
    size_t length;
} Key;
#define KEY(name) ((Key){",\"" name "\":", sizeof(",\"" name "\":") - 1})

static void key(TraceOutput *out, Key name) { trace_output_bytes(out, name.text, name.length); }

static void int_field(TraceOutput *out, Key name, int64_t value) {
    key(out, name);
    trace_output_int(out, value);
}

static void id_value(TraceOutput *out, const void *id) {
    if (id)
        trace_output_uint(out, (uint64_t)(uintptr_t)id);
    else
        trace_output_literal(out, "null");
}

static void id_field(TraceOutput *out, Key name, const void *id) {
    key(out, name);
    id_value(out, id);
}

static void string_field(TraceOutput *out, Key name, const char *text) {
    key(out, name);
    trace_output_string(out, text);
}

void trace_json_header(TraceOutput *out, int32_t vmpi_version, const char *collector) {
    trace_output_literal(out, "{\"format\":");
    trace_output_string(out, TRACE_FORMAT_NAME);
    trace_output_literal(out, ",\"version\":");
    trace_output_uint(out, TRACE_FORMAT_VERSION);
    int_field(out, KEY("vmpi_version"), vmpi_version);
    string_field(out, KEY("collector"), collector);
    trace_output_literal(out, "}\n");
}

/* What comes between a line's seq and its thread number, for each event:
 * `,"event":"NAME","thread":`, one copy.  Event names are identifiers:
 * nothing in them needs escaping. */
#define EVENT_KEYS(name) ",\"event\":\"" name "\"" ",\"thread\":"
static const Key event_keys[VMPI_EVENT_CODE_LIMIT] = {
#define EVENT_KEYS_ENTRY(name, code, member) [code] = {EVENT_KEYS(#name), sizeof(EVENT_KEYS(#name)) - 1},
    VMPI_EVENTS(EVENT_KEYS_ENTRY)
#undef EVENT_KEYS_ENTRY
};
static const Key unknown_event_keys = {EVENT_KEYS("UNKNOWN"), sizeof(EVENT_KEYS("UNKNOWN")) - 1};

static void begin_line(TraceOutput *out, uint64_t seq, const VMPI_Event *event, uint32_t thread) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    Key keys = code > 0 && code < VMPI_EVENT_CODE_LIMIT && event_keys[code].text ? event_keys[code] : unknown_event_keys;
    trace_output_literal(out, "{\"seq\":");
    trace_output_uint(out, seq);
    trace_output_bytes(out, keys.text, keys.length);
    trace_output_uint(out, thread);
    if (event->event_type & VMPI_REQUESTED_EVENT) trace_output_literal(out, ",\"requested\":true");
}

static void end_line(TraceOutput *out) {
    trace_output_literal(out, "}\n");
    trace_output_flush_if_fuller(out, TRACE_BUFFER_BYTES / 4);
}

/* ---- one writer per field kind (vmpi.h, VMPI_FIELDS_*) ------------------------------ */

/* Each takes the field's JVMPI name, its value and `count`: the last INT32
 * field written, which is the length of an array field that follows. */

/* Opens element `index` of an array of objects, up to its first value. */
static void begin_element(TraceOutput *out, int32_t index, Key first_key) {
    if (index) trace_output_literal(out, ",");
    trace_output_literal(out, "{");
    trace_output_bytes(out, first_key.text + 1, first_key.length - 1); /* without its comma */
}

static void put_INT32(TraceOutput *out, Key name, int32_t value, int32_t *count) {
    int_field(out, name, value);
    *count = value;
}

/* A number that is no array's length. */
#define put_INT64 put_number
#define put_ARENA_ID put_number
static void put_number(TraceOutput *out, Key name, int64_t value, int32_t *count) {
    (void)count;
    int_field(out, name, value);
}

/* Every ID kind: an opaque pointer, written as an integer or null. */
#define put_OBJECT_ID put_id
#define put_METHOD_ID put_id
#define put_THREAD_ID put_id
#define put_RAW_MONITOR put_id
#define put_JNI_REF put_id
static void put_id(TraceOutput *out, Key name, const void *value, int32_t *count) {
    (void)count;
    id_field(out, name, value);
}

static void put_STRING(TraceOutput *out, Key name, const char *value, int32_t *count) {
    (void)count;
    string_field(out, name, value);
}

static void put_METHODS(TraceOutput *out, Key name, const VMPI_Method *methods, int32_t *count) {
    key(out, name);
    trace_output_literal(out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(out, i, KEY("method_name"));
        trace_output_string(out, methods[i].method_name);
        string_field(out, KEY("method_signature"), methods[i].method_signature);
        int_field(out, KEY("start_lineno"), methods[i].start_lineno);
        int_field(out, KEY("end_lineno"), methods[i].end_lineno);
        id_field(out, KEY("method_id"), methods[i].method_id);
        trace_output_literal(out, "}");
    }
    trace_output_literal(out, "]");
}

static void put_FIELDS(TraceOutput *out, Key name, const VMPI_Field *fields, int32_t *count) {
    key(out, name);
    trace_output_literal(out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(out, i, KEY("field_name"));
        trace_output_string(out, fields[i].field_name);
        string_field(out, KEY("field_signature"), fields[i].field_signature);
        trace_output_literal(out, "}");
    }
    trace_output_literal(out, "]");
}

static void put_CALL_FRAMES(TraceOutput *out, Key name, const VMPI_CallFrame *frames, int32_t *count) {
    key(out, name);
    trace_output_literal(out, "[");
    for (int32_t i = 0; i < *count; i++) {
        begin_element(out, i, KEY("method_id"));
        trace_output_uint(out, (uint64_t)(uintptr_t)frames[i].method_id);
        int_field(out, KEY("lineno"), frames[i].lineno);
        trace_output_literal(out, "}");
    }
    trace_output_literal(out, "]");
}

/* Left out of the trace: the kinds only the dump events have (HEAP_DUMP,
 * OBJECT_DUMP, MONITOR_DUMP), whose bytes are in the VM's native byte order,
 * meant for the process that asked (vmpi.h), and CLASS_LOAD_HOOK's program
 * images and allocator (their lengths are written). */
#define put_CALL_TRACES put_omitted
#define put_INT32_ARRAY put_omitted
#define put_BUFFER put_omitted
#define put_BYTES put_omitted
#define put_ALLOCATOR put_omitted
static void put_omitted(TraceOutput *out, Key name, const void *value, int32_t *count) {
    (void)out;
    (void)name;
    (void)value;
    (void)count;
}

/* The event's own fields, by their JVMPI names, in the struct's order:
 * generated from vmpi.h's event table. */
static void event_fields(TraceOutput *out, const VMPI_Event *event) {
    int32_t count = 0;
    switch (event->event_type & ~VMPI_REQUESTED_EVENT) {
#define PUT_FIELD(member, kind, name) put_##kind(out, KEY(#name), event->u.member.name, &count);
#define EVENT_CASE(name, code, member) \
    case code:                         \
        VMPI_FIELDS_##member(PUT_FIELD) break;
        VMPI_EVENTS(EVENT_CASE)
#undef EVENT_CASE
#undef PUT_FIELD
    }
}

void trace_json_event(TraceOutput *out, uint64_t seq, const VMPI_Event *event, uint32_t thread) {
    begin_line(out, seq, event, thread);
    event_fields(out, event);
    end_line(out);
}
