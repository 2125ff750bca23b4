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
 *   event   varint code << 3 | requested << 1 | same thread as the
 *           previous event (code 0 for an event the table does not name;
 *           one byte for codes below 16); then, unless the same-thread bit
 *           is set, varint thread number; then the event's fields in the
 *           order of vmpi.h's table
 *   fixed   OBJECT_ALLOC, OBJECT_FREE and OBJECT_MOVE, not requested and in
 *           the same thread as the previous event, whose values fit: one
 *           byte code << 3 | TRACE_BINARY_FIXED, then the fields at fixed
 *           places (below), stored, not encoded
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
 *
 * The fixed records, after their first byte (little-endian; an ID is its
 * difference from the field's last value, as above, in 32 bits):
 *
 *   OBJECT_ALLOC  u8 arena_id, u8 is_array, i32 size, i32 class_id,
 *                 i32 obj_id                                  (15 bytes)
 *   OBJECT_FREE   i32 obj_id                                  (5 bytes)
 *   OBJECT_MOVE   u8 arena_id, u8 new_arena_id, i32 obj_id,
 *                 i32 new_obj_id                              (11 bytes)
 *
 * A heap event is written so whenever it can be: a store per field instead
 * of a varint per field, most of what a recording costs the program
 * (docs/trace-format.md, "The recording in the VM").
 */
#ifndef GCLAB_TRACE_BINARY_H
#define GCLAB_TRACE_BINARY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "trace_output.h"
#include "vmpi.h"

#define TRACE_BINARY_NAME "gclab-vmpi-trace-binary"
/* Any change to the encoding bumps this and is listed in the docs. */
#define TRACE_BINARY_VERSION 2
/* Not text (0x89), and broken by a newline or end-of-file conversion. */
#define TRACE_BINARY_MAGIC "\x89GVT\r\n\x1a\n"
#define TRACE_BINARY_MAGIC_BYTES 8

/* An event's first varint: its code shifted past these three flags. */
#define TRACE_BINARY_CODE_SHIFT 3
#define TRACE_BINARY_FIXED 0x4
#define TRACE_BINARY_REQUESTED 0x2
#define TRACE_BINARY_SAME_THREAD 0x1

/* The fixed records' lengths, their first byte included. */
#define TRACE_BINARY_FIXED_ALLOC_BYTES 15
#define TRACE_BINARY_FIXED_FREE_BYTES 5
#define TRACE_BINARY_FIXED_MOVE_BYTES 11
#define TRACE_BINARY_FIXED_MAX_BYTES 15

/* Each heap event's fields by their place in vmpi.h's table, the index of
 * their last IDs: TRACE_BINARY_FIELD_obj_alloc_class_id and the like. */
#define TRACE_BINARY_FIELD_INDEX(member, kind, name) TRACE_BINARY_FIELD_##member##_##name,
enum { VMPI_FIELDS_obj_alloc(TRACE_BINARY_FIELD_INDEX) };
enum { VMPI_FIELDS_obj_free(TRACE_BINARY_FIELD_INDEX) };
enum { VMPI_FIELDS_obj_move(TRACE_BINARY_FIELD_INDEX) };
#undef TRACE_BINARY_FIELD_INDEX

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

/* ---- the heap events from their fields ------------------------------------------------ */

/* An OBJECT_ALLOC, OBJECT_MOVE or OBJECT_FREE not requested, from its
 * fields, in the table's order, as arguments: no VMPI_Event, no look-up of
 * its code.  The VM's recorder (vmpi/runtime/recorder.h) writes the heap
 * events so, and trace_binary_event calls these for them.
 *
 * Each is the fixed record, inline, when one can be written at once, and
 * else a call of its out-of-line half (trace_binary.c), which makes room
 * and writes the fixed record, or encodes the fields one by one when they
 * do not fit one.  The inline half calls nothing, so that a caller's fast
 * path needs no registers saved. */
#define TRACE_BINARY_PARAMETER(member, kind, name) , VMPI_KIND_TYPE_##kind name
void trace_binary_object_alloc_slow(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_alloc(TRACE_BINARY_PARAMETER));
void trace_binary_object_move_slow(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_move(TRACE_BINARY_PARAMETER));
void trace_binary_object_free_slow(TraceBinary *writer, uint32_t thread VMPI_FIELDS_obj_free(TRACE_BINARY_PARAMETER));

/* `value` little-endian at `at`: one store on the machines gclab runs on. */
static inline void trace_binary_store32(unsigned char *at, uint32_t value) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap32(value);
#endif
    memcpy(at, &value, sizeof value);
}

/* The reader's inverse of trace_binary_store32. */
static inline uint32_t trace_binary_load32(const unsigned char *at) {
    uint32_t value;
    memcpy(&value, at, sizeof value);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap32(value);
#endif
    return value;
}

/* Whether two values fit a fixed record's bytes (each below 256) and two
 * differences its 32-bit places (each from -2^31 to 2^31 - 1): one test. */
static inline bool trace_binary_fits(uint32_t byte1, uint32_t byte2, uint64_t difference1, uint64_t difference2) {
    const uint64_t half = UINT64_C(1) << 31; /* moves the 32-bit range to 0 ... 2^32 - 1 */
    return (((difference1 + half) | (difference2 + half)) >> 32 | (byte1 | byte2) >> 8) == 0;
}

/* Where the next record goes if the buffer has room for `bytes`, else NULL. */
static inline unsigned char *trace_binary_room(TraceOutput *out, size_t bytes) {
    return sizeof out->buffer - out->used >= bytes ? (unsigned char *)out->buffer + out->used : NULL;
}

/* Each trace_binary_fixed_* writes its fixed record and returns true, or
 * returns false, having written nothing, if the event is in another thread
 * than the last, a value does not fit, or the buffer has no room. */
static inline bool trace_binary_fixed_alloc(TraceBinary *writer, uint32_t thread, VMPI_ArenaID arena_id,
                                            VMPI_ObjectID class_id, int32_t is_array, int32_t size,
                                            VMPI_ObjectID obj_id) {
    uint64_t *last = writer->last_id[VMPI_EVENT_OBJECT_ALLOC];
    uint64_t class_step = (uint64_t)(uintptr_t)class_id - last[TRACE_BINARY_FIELD_obj_alloc_class_id];
    uint64_t obj_step = (uint64_t)(uintptr_t)obj_id - last[TRACE_BINARY_FIELD_obj_alloc_obj_id];
    unsigned char *at = trace_binary_room(writer->out, TRACE_BINARY_FIXED_ALLOC_BYTES);
    if (!at || thread != writer->last_thread ||
        !trace_binary_fits((uint32_t)arena_id, (uint32_t)is_array, class_step, obj_step))
        return false;
    at[0] = VMPI_EVENT_OBJECT_ALLOC << TRACE_BINARY_CODE_SHIFT | TRACE_BINARY_FIXED;
    at[1] = (unsigned char)arena_id;
    at[2] = (unsigned char)is_array;
    trace_binary_store32(at + 3, (uint32_t)size);
    trace_binary_store32(at + 7, (uint32_t)class_step);
    trace_binary_store32(at + 11, (uint32_t)obj_step);
    writer->out->used += TRACE_BINARY_FIXED_ALLOC_BYTES;
    last[TRACE_BINARY_FIELD_obj_alloc_class_id] = (uint64_t)(uintptr_t)class_id;
    last[TRACE_BINARY_FIELD_obj_alloc_obj_id] = (uint64_t)(uintptr_t)obj_id;
    return true;
}

static inline bool trace_binary_fixed_free(TraceBinary *writer, uint32_t thread, VMPI_ObjectID obj_id) {
    uint64_t *last = writer->last_id[VMPI_EVENT_OBJECT_FREE];
    uint64_t obj_step = (uint64_t)(uintptr_t)obj_id - last[TRACE_BINARY_FIELD_obj_free_obj_id];
    unsigned char *at = trace_binary_room(writer->out, TRACE_BINARY_FIXED_FREE_BYTES);
    if (!at || thread != writer->last_thread || !trace_binary_fits(0, 0, obj_step, 0)) return false;
    at[0] = VMPI_EVENT_OBJECT_FREE << TRACE_BINARY_CODE_SHIFT | TRACE_BINARY_FIXED;
    trace_binary_store32(at + 1, (uint32_t)obj_step);
    writer->out->used += TRACE_BINARY_FIXED_FREE_BYTES;
    last[TRACE_BINARY_FIELD_obj_free_obj_id] = (uint64_t)(uintptr_t)obj_id;
    return true;
}

static inline bool trace_binary_fixed_move(TraceBinary *writer, uint32_t thread, VMPI_ArenaID arena_id,
                                           VMPI_ObjectID obj_id, VMPI_ArenaID new_arena_id,
                                           VMPI_ObjectID new_obj_id) {
    uint64_t *last = writer->last_id[VMPI_EVENT_OBJECT_MOVE];
    uint64_t obj_step = (uint64_t)(uintptr_t)obj_id - last[TRACE_BINARY_FIELD_obj_move_obj_id];
    uint64_t new_obj_step = (uint64_t)(uintptr_t)new_obj_id - last[TRACE_BINARY_FIELD_obj_move_new_obj_id];
    unsigned char *at = trace_binary_room(writer->out, TRACE_BINARY_FIXED_MOVE_BYTES);
    if (!at || thread != writer->last_thread ||
        !trace_binary_fits((uint32_t)arena_id, (uint32_t)new_arena_id, obj_step, new_obj_step))
        return false;
    at[0] = VMPI_EVENT_OBJECT_MOVE << TRACE_BINARY_CODE_SHIFT | TRACE_BINARY_FIXED;
    at[1] = (unsigned char)arena_id;
    at[2] = (unsigned char)new_arena_id;
    trace_binary_store32(at + 3, (uint32_t)obj_step);
    trace_binary_store32(at + 7, (uint32_t)new_obj_step);
    writer->out->used += TRACE_BINARY_FIXED_MOVE_BYTES;
    last[TRACE_BINARY_FIELD_obj_move_obj_id] = (uint64_t)(uintptr_t)obj_id;
    last[TRACE_BINARY_FIELD_obj_move_new_obj_id] = (uint64_t)(uintptr_t)new_obj_id;
    return true;
}

static inline void trace_binary_object_alloc(TraceBinary *writer, uint32_t thread, VMPI_ArenaID arena_id,
                                             VMPI_ObjectID class_id, int32_t is_array, int32_t size,
                                             VMPI_ObjectID obj_id) {
    if (!trace_binary_fixed_alloc(writer, thread, arena_id, class_id, is_array, size, obj_id))
        trace_binary_object_alloc_slow(writer, thread, arena_id, class_id, is_array, size, obj_id);
}

static inline void trace_binary_object_free(TraceBinary *writer, uint32_t thread, VMPI_ObjectID obj_id) {
    if (!trace_binary_fixed_free(writer, thread, obj_id)) trace_binary_object_free_slow(writer, thread, obj_id);
}

static inline void trace_binary_object_move(TraceBinary *writer, uint32_t thread, VMPI_ArenaID arena_id,
                                            VMPI_ObjectID obj_id, VMPI_ArenaID new_arena_id,
                                            VMPI_ObjectID new_obj_id) {
    if (!trace_binary_fixed_move(writer, thread, arena_id, obj_id, new_arena_id, new_obj_id))
        trace_binary_object_move_slow(writer, thread, arena_id, obj_id, new_arena_id, new_obj_id);
}

#endif
