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

/* The writers below take and return `at`, where the next byte goes in the
 * output's buffer: kept in a register through an event, it is stored back
 * into out->used once, at the end (a store through a char pointer could
 * change any field, so out->used would be reloaded at every byte).
 *
 * Numbers are written without checking the buffer's room, one check making
 * room for the most an event's numbers take: at an event's start, and after
 * each string and array element, whose bytes are copied with checks.  Most
 * events are one check and a few stores. */
#define EVENT_ROOM (1 + MAX_VARINT_BYTES * (TRACE_BINARY_MAX_FIELDS + 1))
_Static_assert(EVENT_ROOM >= TRACE_BINARY_FIXED_MAX_BYTES, "room made for an event holds a fixed record");

static inline unsigned char *cursor(TraceOutput *out) { return (unsigned char *)out->buffer + out->used; }

static inline void store_cursor(TraceOutput *out, unsigned char *at) {
    out->used = (size_t)(at - (unsigned char *)out->buffer);
}

/* Makes room for EVENT_ROOM bytes at `at`; returns where they start. */
static inline unsigned char *make_room(TraceOutput *out, unsigned char *at) {
    if ((size_t)((unsigned char *)out->buffer + sizeof out->buffer - at) >= EVENT_ROOM) return at;
    store_cursor(out, at);
    trace_output_flush(out);
    return cursor(out);
}

static inline unsigned char *put_varint(unsigned char *at, uint64_t value) {
    while (value >= 0x80) {
        *at++ = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    *at++ = (unsigned char)value;
    return at;
}

static inline unsigned char *put_signed(unsigned char *at, int64_t value) {
    return put_varint(at, trace_binary_zigzag(value));
}

/* An ID as its difference from the field's last value. */
static inline unsigned char *put_id_value(unsigned char *at, uint64_t *last, uint64_t value) {
    at = put_signed(at, (int64_t)(value - *last));
    *last = value;
    return at;
}

/* FNV-1a: short texts, few of them. */
static uint32_t text_hash(const char *text, size_t length) {
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    return hash;
}

/* A string, with room made after it for the numbers that follow. */
static unsigned char *put_string(TraceBinary *writer, unsigned char *at, const char *text) {
    TraceOutput *out = writer->out;
    at = make_room(out, at);
    if (!text) return put_varint(at, TRACE_BINARY_NULL_STRING);
    size_t length = strlen(text);
    uint32_t mask = TRACE_BINARY_STRING_SLOTS - 1;
    uint32_t slot = text_hash(text, length) & mask;
    for (; writer->slots[slot].entry_plus_one; slot = (slot + 1) & mask) {
        const char *known = writer->text + writer->slots[slot].offset;
        if (strncmp(known, text, length) == 0 && known[length] == '\0')
            return put_varint(at, TRACE_BINARY_KNOWN_STRING + writer->slots[slot].entry_plus_one - 1);
    }
    /* A new string: kept while the table is at most three quarters full. */
    if (writer->slots_used < TRACE_BINARY_STRING_SLOTS / 4 * 3 &&
        length < sizeof writer->text - writer->text_used) {
        memcpy(writer->text + writer->text_used, text, length + 1);
        writer->slots[slot] = (TraceBinaryString){writer->strings_written + 1, writer->text_used};
        writer->text_used += (uint32_t)length + 1;
        writer->slots_used++;
    }
    writer->strings_written++;
    at = put_varint(at, TRACE_BINARY_NEW_STRING);
    at = put_varint(at, length);
    store_cursor(out, at);
    trace_output_bytes(out, text, length);
    return make_room(out, cursor(out));
}

void trace_binary_start(TraceBinary *writer, TraceOutput *out, int32_t vmpi_version, const char *collector) {
    writer->out = out;
    writer->last_thread = 0;
    memset(writer->last_id, 0, sizeof writer->last_id);
    writer->strings_written = writer->slots_used = writer->text_used = 0;
    memset(writer->slots, 0, sizeof writer->slots);
    trace_output_bytes(out, TRACE_BINARY_MAGIC, TRACE_BINARY_MAGIC_BYTES);
    unsigned char *at = make_room(out, cursor(out));
    at = put_varint(at, TRACE_BINARY_VERSION);
    at = put_varint(at, TRACE_FORMAT_VERSION);
    at = put_signed(at, vmpi_version);
    store_cursor(out, put_string(writer, at, collector));
}

/* ---- one writer per field kind (vmpi.h, VMPI_FIELDS_*) ------------------------------ */

/* Each takes the writer, where the next byte goes, the field's last ID,
 * its value and `count`: the last INT32 field written, the length of an
 * array field that follows; each returns where the next byte goes. */

static inline unsigned char *put_INT32(TraceBinary *writer, unsigned char *at, uint64_t *last, int32_t value,
                                       int32_t *count) {
    (void)writer;
    (void)last;
    *count = value;
    return put_signed(at, value);
}

#define put_INT64 put_number
#define put_ARENA_ID put_number
static inline unsigned char *put_number(TraceBinary *writer, unsigned char *at, uint64_t *last, int64_t value,
                                        int32_t *count) {
    (void)writer;
    (void)last;
    (void)count;
    return put_signed(at, value);
}

#define put_OBJECT_ID put_id
#define put_METHOD_ID put_id
#define put_THREAD_ID put_id
#define put_RAW_MONITOR put_id
#define put_JNI_REF put_id
static inline unsigned char *put_id(TraceBinary *writer, unsigned char *at, uint64_t *last, const void *value,
                                    int32_t *count) {
    (void)writer;
    (void)count;
    return put_id_value(at, last, (uint64_t)(uintptr_t)value);
}

static unsigned char *put_STRING(TraceBinary *writer, unsigned char *at, uint64_t *last, const char *value,
                                 int32_t *count) {
    (void)last;
    (void)count;
    return put_string(writer, at, value);
}

static unsigned char *put_METHODS(TraceBinary *writer, unsigned char *at, uint64_t *last,
                                  const VMPI_Method *methods, int32_t *count) {
    for (int32_t i = 0; i < *count; i++) {
        at = put_string(writer, at, methods[i].method_name);
        at = put_string(writer, at, methods[i].method_signature);
        at = put_signed(at, methods[i].start_lineno);
        at = put_signed(at, methods[i].end_lineno);
        at = put_id_value(at, last, (uint64_t)(uintptr_t)methods[i].method_id);
    }
    return make_room(writer->out, at);
}

static unsigned char *put_FIELDS(TraceBinary *writer, unsigned char *at, uint64_t *last, const VMPI_Field *fields,
                                 int32_t *count) {
    (void)last;
    for (int32_t i = 0; i < *count; i++) {
        at = put_string(writer, at, fields[i].field_name);
        at = put_string(writer, at, fields[i].field_signature);
    }
    return at;
}

static unsigned char *put_CALL_FRAMES(TraceBinary *writer, unsigned char *at, uint64_t *last,
                                      const VMPI_CallFrame *frames, int32_t *count) {
    for (int32_t i = 0; i < *count; i++) {
        at = make_room(writer->out, at);
        at = put_id_value(at, last, (uint64_t)(uintptr_t)frames[i].method_id);
        at = put_signed(at, frames[i].lineno);
    }
    return make_room(writer->out, at);
}

/* What the JSON leaves out (trace_json.c), the recording leaves out too. */
#define put_CALL_TRACES put_omitted
#define put_INT32_ARRAY put_omitted
#define put_BUFFER put_omitted
#define put_BYTES put_omitted
#define put_ALLOCATOR put_omitted
static inline unsigned char *put_omitted(TraceBinary *writer, unsigned char *at, uint64_t *last, const void *value,
                                         int32_t *count) {
    (void)writer;
    (void)last;
    (void)value;
    (void)count;
    return at;
}

/* The codes the event table names. */
static const bool named[VMPI_EVENT_CODE_LIMIT] = {
#define NAMED(name, code, member) [code] = true,
    VMPI_EVENTS(NAMED)
#undef NAMED
};

/* An event's first varint, its code and `flags` (TRACE_BINARY_REQUESTED or
 * 0), and its thread number, if not the last one's; returns where its
 * fields go. */
static inline __attribute__((always_inline)) unsigned char *put_first(TraceBinary *writer, int32_t code,
                                                                     uint32_t flags, uint32_t thread) {
    uint32_t first = (uint32_t)code << TRACE_BINARY_CODE_SHIFT | flags;
    if (thread == writer->last_thread) first |= TRACE_BINARY_SAME_THREAD;
    unsigned char *at = make_room(writer->out, cursor(writer->out));
    at = put_varint(at, first);
    if (thread != writer->last_thread) at = put_varint(at, thread);
    writer->last_thread = thread;
    return at;
}

/* The heap events the VM's recorder writes from their fields, written as it
 * writes them: a fixed record where one can be. */
static bool put_heap_event(TraceBinary *writer, const VMPI_Event *event, uint32_t thread) {
    switch (event->event_type) { /* not requested */
    case VMPI_EVENT_OBJECT_ALLOC:
        trace_binary_object_alloc(writer, thread, event->u.obj_alloc.arena_id, event->u.obj_alloc.class_id,
                                  event->u.obj_alloc.is_array, event->u.obj_alloc.size, event->u.obj_alloc.obj_id);
        return true;
    case VMPI_EVENT_OBJECT_FREE: trace_binary_object_free(writer, thread, event->u.obj_free.obj_id); return true;
    case VMPI_EVENT_OBJECT_MOVE:
        trace_binary_object_move(writer, thread, event->u.obj_move.arena_id, event->u.obj_move.obj_id,
                                 event->u.obj_move.new_arena_id, event->u.obj_move.new_obj_id);
        return true;
    default: return false;
    }
}

void trace_binary_event(TraceBinary *writer, const VMPI_Event *event, uint32_t thread) {
    if (put_heap_event(writer, event, thread)) return;
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code <= 0 || code >= VMPI_EVENT_CODE_LIMIT || !named[code]) code = 0;
    uint32_t flags = event->event_type & VMPI_REQUESTED_EVENT ? TRACE_BINARY_REQUESTED : 0;
    unsigned char *at = put_first(writer, code, flags, thread);
    int32_t count = 0;
    uint64_t *last = writer->last_id[code];
    switch (code) {
#define PUT_FIELD(member, kind, name) at = put_##kind(writer, at, last++, event->u.member.name, &count);
#define EVENT_CASE(name, code, member) \
    case code:                         \
        VMPI_FIELDS_##member(PUT_FIELD) break;
        VMPI_EVENTS(EVENT_CASE)
#undef EVENT_CASE
#undef PUT_FIELD
    }
    store_cursor(writer->out, at);
}

/* The heap events' out-of-line halves (trace_binary.h): room made, the
 * fixed record if the event can have one, else what the switch above does
 * for one code, with the fields as arguments. */
#define PUT_ARGUMENT(member, kind, name) at = put_##kind(writer, at, last++, name, &count);
#define PASS_ARGUMENT(member, kind, name) , name
#define DEFINE_SLOW_WRITER(function, fixed, code, member)                                                \
    void function(TraceBinary *writer, uint32_t thread VMPI_FIELDS_##member(TRACE_BINARY_PARAMETER)) {   \
        store_cursor(writer->out, make_room(writer->out, cursor(writer->out)));                          \
        if (fixed(writer, thread VMPI_FIELDS_##member(PASS_ARGUMENT))) return;                          \
        unsigned char *at = put_first(writer, code, 0, thread);                                          \
        int32_t count = 0;                                                                               \
        uint64_t *last = writer->last_id[code];                                                          \
        VMPI_FIELDS_##member(PUT_ARGUMENT) (void)count;                                                  \
        store_cursor(writer->out, at);                                                                   \
    }
DEFINE_SLOW_WRITER(trace_binary_object_alloc_slow, trace_binary_fixed_alloc, VMPI_EVENT_OBJECT_ALLOC, obj_alloc)
DEFINE_SLOW_WRITER(trace_binary_object_move_slow, trace_binary_fixed_move, VMPI_EVENT_OBJECT_MOVE, obj_move)
DEFINE_SLOW_WRITER(trace_binary_object_free_slow, trace_binary_fixed_free, VMPI_EVENT_OBJECT_FREE, obj_free)
#undef DEFINE_SLOW_WRITER
#undef PASS_ARGUMENT
#undef PUT_ARGUMENT
