/*
 * trace_binary.h -- the binary event recording (docs/trace-format.md,
 * "The binary recording"): the same lines as the trace format's JSON, in a
 * few bytes each.  The trace agent writes it with format=binary; the reader
 * (vmpi/tools/trace_binary/) turns it back into events, and vmpi-trace2json
 * into the very JSON the agent would have written.
 *
 * A recording is the magic bytes, then the header, then one record per
 * event, in order:
 *
 *   header  varint TRACE_BINARY_VERSION, varint TRACE_FORMAT_VERSION (the
 *           JSON it converts to), zigzag vmpi_version, string collector
 *   event   varint code << 2 | requested << 1 | same thread as the
 *           previous event (code 0 for an event the table does not name;
 *           one byte for codes below 32); then, unless the same-thread bit
 *           is set, varint thread number; then the event's fields in the
 *           order of vmpi.h's table
 *
 * Field values by kind: INT32, INT64 and ARENA_ID a zigzag varint; every
 * ID kind the zigzag varint of its difference from the value that field of
 * that event last had (0 before the first), so an allocation's address
 * costs a byte or two; STRING a varint tag (0 NULL, 1 a new string: varint
 * length and its bytes, which becomes the next entry of the string table,
 * n >= 2 the table's entry n - 2); METHODS, FIELDS and CALL_FRAMES as many
 * elements as the INT32 field before them says, each its members in
 * VMPI_Method's, VMPI_Field's and VMPI_CallFrame's order, method_id as an
 * ID of the array's field; the kinds the JSON leaves out are left out.
 * The seq numbers are implicit: the records count from 1.
 */
#ifndef GCLAB_TRACE_BINARY_H
#define GCLAB_TRACE_BINARY_H

#include <stdint.h>

#include "trace_output.h"
#include "vmpi.h"

#define TRACE_BINARY_NAME "gclab-vmpi-trace-binary"
/* Any change to the encoding bumps this and is listed in the docs. */
#define TRACE_BINARY_VERSION 1
/* Not text (0x89), and broken by a newline or end-of-file conversion. */
#define TRACE_BINARY_MAGIC "\x89GVT\r\n\x1a\n"
#define TRACE_BINARY_MAGIC_BYTES 8

/* An event's first varint: its code shifted past these two flags. */
#define TRACE_BINARY_CODE_SHIFT 2
#define TRACE_BINARY_REQUESTED 0x2
#define TRACE_BINARY_SAME_THREAD 0x1

/* The events the trace agent records with its default options, in either
 * format, and so the VM's recorder (vmrun --record) too: its heap, GC,
 * class and thread events, start-up, shut-down and the data requests. */
#define TRACE_DEFAULT_EVENT_CODES                                                                   \
    VMPI_EVENT_ARENA_NEW, VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_OBJECT_FREE, \
        VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_GC_START, VMPI_EVENT_GC_FINISH, VMPI_EVENT_CLASS_LOAD,   \
        VMPI_EVENT_THREAD_START, VMPI_EVENT_THREAD_END, VMPI_EVENT_JVM_INIT_DONE,                  \
        VMPI_EVENT_JVM_SHUT_DOWN, VMPI_EVENT_DATA_DUMP_REQUEST, VMPI_EVENT_DATA_RESET_REQUEST

/* The most fields an event has (CLASS_LOAD has 10). */
#define TRACE_BINARY_MAX_FIELDS 12

enum { TRACE_BINARY_NULL_STRING = 0, TRACE_BINARY_NEW_STRING = 1, TRACE_BINARY_KNOWN_STRING = 2 };

static inline uint64_t trace_binary_zigzag(int64_t value) {
    return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static inline int64_t trace_binary_unzigzag(uint64_t value) {
    return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

/* The writer's string table: each string it has written, by a hash of its
 * text, so that it is written once and named by its entry after that.  Fixed
 * storage, no malloc (thread-suspended mode): once full, strings are written
 * out again, each taking a new entry as the reader counts them. */
#define TRACE_BINARY_STRING_SLOTS 4096
#define TRACE_BINARY_STRING_BYTES (128 * 1024)

typedef struct TraceBinaryString {
    uint32_t entry_plus_one; /* 0: an empty slot */
    uint32_t offset;         /* of its text in `text` */
} TraceBinaryString;

typedef struct TraceBinary {
    TraceOutput *out;
    uint32_t last_thread;
    uint64_t last_id[VMPI_EVENT_CODE_LIMIT][TRACE_BINARY_MAX_FIELDS];
    uint32_t strings_written;
    uint32_t slots_used;
    uint32_t text_used;
    TraceBinaryString slots[TRACE_BINARY_STRING_SLOTS];
    char text[TRACE_BINARY_STRING_BYTES];
} TraceBinary;

/* Starts a recording on `out`: the magic bytes and the header. */
void trace_binary_start(TraceBinary *writer, TraceOutput *out, int32_t vmpi_version, const char *collector);

/* One event, which happened in VM thread number `thread` (0 for none). */
void trace_binary_event(TraceBinary *writer, const VMPI_Event *event, uint32_t thread);

/* The same for an OBJECT_ALLOC, OBJECT_MOVE or OBJECT_FREE not requested,
 * from its fields, in the table's order, as arguments: no VMPI_Event, no
 * look-up of its code.  The VM's recorder (vmpi/runtime/recorder.h) writes
 * the heap events so. */
#define TRACE_BINARY_PARAMETER(member, kind, name) , VMPI_KIND_TYPE_##kind name
void trace_binary_object_alloc(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_alloc(TRACE_BINARY_PARAMETER));
void trace_binary_object_move(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_move(TRACE_BINARY_PARAMETER));
void trace_binary_object_free(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_free(TRACE_BINARY_PARAMETER));

#endif
