/*
 * trace_binary.c -- writes the binary event recording (trace_binary.h):
 * one writer per field kind, called in the order vmpi.h's event table lists
 * an event's fields, as trace_json.c's are.  No malloc, no stdio.
 */
#include "trace_binary.h"

#define COUNT_FIELD(member, kind, name) +1
#define CHECK_FIELD_COUNT(name, code, member)                                              \
    _Static_assert((0 VMPI_FIELDS_##member(COUNT_FIELD)) <= TRACE_BINARY_MAX_FIELDS, \
                   #name " has more fields than TRACE_BINARY_MAX_FIELDS");
VMPI_EVENTS(CHECK_FIELD_COUNT)
#undef CHECK_FIELD_COUNT
#undef COUNT_FIELD

/* The most bytes a varint takes. */
#define MAX_VARINT_BYTES 10

static void put_varint(TraceOutput *out, uint64_t value) {
    if (sizeof out->buffer - out->used < MAX_VARINT_BYTES) trace_output_flush(out);
    unsigned char *at = (unsigned char *)out->buffer + out->used;
    unsigned char *start = at;
    while (value >= 0x80) {
        *at++ = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    *at++ = (unsigned char)value;
    out->used += (size_t)(at - start);
}

static void put_signed(TraceOutput *out, int64_t value) { put_varint(out, trace_binary_zigzag(value)); }

/* An ID as its difference from the field's last value. */
static void put_id_value(TraceOutput *out, uint64_t *last, uint64_t value) {
    put_signed(out, (int64_t)(value - *last));
    *last = value;
}

/* FNV-1a: short texts, few of them. */
static uint32_t text_hash(const char *text, size_t length) {
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    return hash;
}

static void put_string(TraceBinary *writer, const char *text) {
    TraceOutput *out = writer->out;
    if (!text) {
        put_varint(out, TRACE_BINARY_NULL_STRING);
        return;
    }
    size_t length = strlen(text);
    uint32_t mask = TRACE_BINARY_STRING_SLOTS - 1;
    uint32_t at = text_hash(text, length) & mask;
    for (; writer->slots[at].entry_plus_one; at = (at + 1) & mask) {
        const char *known = writer->text + writer->slots[at].offset;
        if (strncmp(known, text, length) == 0 && known[length] == '\0') {
            put_varint(out, TRACE_BINARY_KNOWN_STRING + writer->slots[at].entry_plus_one - 1);
            return;
        }
    }
    /* A new string: kept while the table is at most three quarters full. */
    if (writer->slots_used < TRACE_BINARY_STRING_SLOTS / 4 * 3 &&
        length < sizeof writer->text - writer->text_used) {
        memcpy(writer->text + writer->text_used, text, length + 1);
        writer->slots[at] = (TraceBinaryString){writer->strings_written + 1, writer->text_used};
        writer->text_used += (uint32_t)length + 1;
        writer->slots_used++;
    }
    writer->strings_written++;
    put_varint(out, TRACE_BINARY_NEW_STRING);
    put_varint(out, length);
    trace_output_bytes(out, text, length);
}

void trace_binary_start(TraceBinary *writer, TraceOutput *out, int32_t vmpi_version, const char *collector) {
    writer->out = out;
    writer->last_thread = 0;
    memset(writer->last_id, 0, sizeof writer->last_id);
    writer->strings_written = writer->slots_used = writer->text_used = 0;
    memset(writer->slots, 0, sizeof writer->slots);
    trace_output_bytes(out, TRACE_BINARY_MAGIC, TRACE_BINARY_MAGIC_BYTES);
    put_varint(out, TRACE_BINARY_VERSION);
    put_varint(out, TRACE_FORMAT_VERSION);
    put_signed(out, vmpi_version);
    put_string(writer, collector);
}

/* ---- one writer per field kind (vmpi.h, VMPI_FIELDS_*) ------------------------------ */

/* Each takes the writer, the field's last ID, its value and `count`: the
 * last INT32 field written, the length of an array field that follows. */

static void put_INT32(TraceBinary *writer, uint64_t *last, int32_t value, int32_t *count) {
    (void)last;
    put_signed(writer->out, value);
    *count = value;
}

#define put_INT64 put_number
#define put_ARENA_ID put_number
static void put_number(TraceBinary *writer, uint64_t *last, int64_t value, int32_t *count) {
    (void)last;
    (void)count;
    put_signed(writer->out, value);
}

#define put_OBJECT_ID put_id
#define put_METHOD_ID put_id
#define put_THREAD_ID put_id
#define put_RAW_MONITOR put_id
#define put_JNI_REF put_id
static void put_id(TraceBinary *writer, uint64_t *last, const void *value, int32_t *count) {
    (void)count;
    put_id_value(writer->out, last, (uint64_t)(uintptr_t)value);
}

static void put_STRING(TraceBinary *writer, uint64_t *last, const char *value, int32_t *count) {
    (void)last;
    (void)count;
    put_string(writer, value);
}

static void put_METHODS(TraceBinary *writer, uint64_t *last, const VMPI_Method *methods, int32_t *count) {
    for (int32_t i = 0; i < *count; i++) {
        put_string(writer, methods[i].method_name);
        put_string(writer, methods[i].method_signature);
        put_signed(writer->out, methods[i].start_lineno);
        put_signed(writer->out, methods[i].end_lineno);
        put_id_value(writer->out, last, (uint64_t)(uintptr_t)methods[i].method_id);
    }
}

static void put_FIELDS(TraceBinary *writer, uint64_t *last, const VMPI_Field *fields, int32_t *count) {
    (void)last;
    for (int32_t i = 0; i < *count; i++) {
        put_string(writer, fields[i].field_name);
        put_string(writer, fields[i].field_signature);
    }
}

static void put_CALL_FRAMES(TraceBinary *writer, uint64_t *last, const VMPI_CallFrame *frames, int32_t *count) {
    for (int32_t i = 0; i < *count; i++) {
        put_id_value(writer->out, last, (uint64_t)(uintptr_t)frames[i].method_id);
        put_signed(writer->out, frames[i].lineno);
    }
}

/* What the JSON leaves out (trace_json.c), the recording leaves out too. */
#define put_CALL_TRACES put_omitted
#define put_INT32_ARRAY put_omitted
#define put_BUFFER put_omitted
#define put_BYTES put_omitted
#define put_ALLOCATOR put_omitted
static void put_omitted(TraceBinary *writer, uint64_t *last, const void *value, int32_t *count) {
    (void)writer;
    (void)last;
    (void)value;
    (void)count;
}

void trace_binary_event(TraceBinary *writer, const VMPI_Event *event, uint32_t thread) {
    TraceOutput *out = writer->out;
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code <= 0 || code >= VMPI_EVENT_CODE_LIMIT || !vmpi_event_name(code)) code = 0;
    unsigned char first = (unsigned char)code;
    if (event->event_type & VMPI_REQUESTED_EVENT) first |= TRACE_BINARY_REQUESTED;
    if (thread == writer->last_thread) first |= TRACE_BINARY_SAME_THREAD;
    trace_output_bytes(out, (const char *)&first, 1);
    if (thread != writer->last_thread) put_varint(out, thread);
    writer->last_thread = thread;
    int32_t count = 0;
    uint64_t *last = writer->last_id[code];
    switch (code) {
#define PUT_FIELD(member, kind, name) put_##kind(writer, last++, event->u.member.name, &count);
#define EVENT_CASE(name, code, member) \
    case code:                         \
        VMPI_FIELDS_##member(PUT_FIELD) break;
        VMPI_EVENTS(EVENT_CASE)
#undef EVENT_CASE
#undef PUT_FIELD
    }
    trace_output_flush_if_fuller(out, TRACE_BUFFER_BYTES / 4);
}
