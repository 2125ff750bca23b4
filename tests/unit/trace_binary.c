/*
 * trace_binary.c -- the binary recording's writer (vmpi/agents/common/
 * trace_binary.h) and reader (vmpi/tools/trace_binary/) together: heap
 * events written as fixed records where they fit and encoded where they do
 * not (another thread, a wide arena or is_array, an ID more than 2^31
 * away, a requested event), each read back with the fields it was written
 * with; and the reader's messages for a retired version and a bad record.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmpi/agents/common/trace_binary.h"
#include "vmpi/tools/trace_binary/trace_binary_read.h"

static TraceOutput out;
static TraceBinary writer;

#define ID(n) ((VMPI_ObjectID)(uintptr_t)(n))

/* What a test wrote, event by event: the event, its thread, and whether
 * it took a fixed record. */
typedef struct Written {
    VMPI_Event event;
    uint32_t thread;
    bool fixed;
} Written;

static Written written[64];
static size_t num_written;

static void start(void) {
    cr_assert(trace_output_open(&out, "/dev/null"));
    trace_binary_start(&writer, &out, VMPI_VERSION_1, "marksweep");
    num_written = 0;
}

/* Writes `event` in `thread`, as the trace agent does; the buffer is never
 * flushed (the events take far less than its size). */
static void write_event(const VMPI_Event *event, uint32_t thread) {
    size_t before = out.used;
    trace_binary_event(&writer, event, thread);
    cr_assert_lt(num_written, sizeof written / sizeof written[0]);
    bool fixed = out.buffer[before] & TRACE_BINARY_FIXED;
    size_t bytes = out.used - before;
    if (fixed) {
        size_t expected = event->event_type == VMPI_EVENT_OBJECT_ALLOC  ? TRACE_BINARY_FIXED_ALLOC_BYTES
                          : event->event_type == VMPI_EVENT_OBJECT_MOVE ? TRACE_BINARY_FIXED_MOVE_BYTES
                                                                        : TRACE_BINARY_FIXED_FREE_BYTES;
        cr_assert_eq(bytes, expected, "event %zu: a fixed record of %zu bytes", num_written + 1, bytes);
    }
    written[num_written++] = (Written){*event, thread, fixed};
}

/* Each writes one event: memset first, so that it compares whole. */
static void alloc(uint32_t thread, int32_t arena_id, uint64_t class_id, int32_t is_array, int32_t size,
                  uint64_t obj_id) {
    VMPI_Event event;
    memset(&event, 0, sizeof event);
    event.event_type = VMPI_EVENT_OBJECT_ALLOC;
    event.u.obj_alloc.arena_id = arena_id;
    event.u.obj_alloc.class_id = ID(class_id);
    event.u.obj_alloc.is_array = is_array;
    event.u.obj_alloc.size = size;
    event.u.obj_alloc.obj_id = ID(obj_id);
    write_event(&event, thread);
}

static void move(uint32_t thread, int32_t arena_id, uint64_t obj_id, int32_t new_arena_id, uint64_t new_obj_id) {
    VMPI_Event event;
    memset(&event, 0, sizeof event);
    event.event_type = VMPI_EVENT_OBJECT_MOVE;
    event.u.obj_move.arena_id = arena_id;
    event.u.obj_move.obj_id = ID(obj_id);
    event.u.obj_move.new_arena_id = new_arena_id;
    event.u.obj_move.new_obj_id = ID(new_obj_id);
    write_event(&event, thread);
}

static void free_object(uint32_t thread, uint64_t obj_id) {
    VMPI_Event event;
    memset(&event, 0, sizeof event);
    event.event_type = VMPI_EVENT_OBJECT_FREE;
    event.u.obj_free.obj_id = ID(obj_id);
    write_event(&event, thread);
}

/* Whether events first ... last (counting from 1) took fixed records. */
static void assert_fixed(size_t first, size_t last, bool fixed) {
    for (size_t i = first - 1; i < last; i++)
        cr_assert_eq(written[i].fixed, fixed, "event %zu: %s", i + 1, fixed ? "encoded" : "fixed");
}

/* Reads the buffer back and compares every event with what was written. */
static void assert_read_back(void) {
    VMPI_Event shut_down;
    memset(&shut_down, 0, sizeof shut_down);
    shut_down.event_type = VMPI_EVENT_JVM_SHUT_DOWN;
    write_event(&shut_down, 1);
    char err[512];
    TraceBinaryReader *reader = trace_binary_open_memory(out.buffer, out.used, "buffer", err, sizeof err);
    cr_assert(reader, "%s", err);
    cr_assert_str_eq(trace_binary_collector(reader), "marksweep");
    TraceBinaryRecord record;
    for (size_t i = 0; i < num_written; i++) {
        cr_assert_eq(trace_binary_next(reader, &record, err, sizeof err), 1, "event %zu: %s", i + 1, err);
        cr_assert_eq(record.seq, i + 1);
        cr_assert_eq(record.thread, written[i].thread, "event %zu", i + 1);
        cr_assert_eq(memcmp(&record.event, &written[i].event, sizeof record.event), 0, "event %zu differs", i + 1);
    }
    cr_assert_eq(trace_binary_next(reader, &record, err, sizeof err), 0, "%s", err);
    trace_binary_close(reader);
    out.used = 0; /* nothing of it to /dev/null */
    cr_assert_eq(trace_output_close(&out), 0);
}

#define TWO_31 (UINT64_C(1) << 31)

Test(trace_binary, allocations_fixed_where_they_fit) {
    start();
    alloc(1, 1, 0x5000, 0, 24, 0x10000);                 /* 1: thread 1 after none: encoded */
    alloc(1, 1, 0x5000, 0, 24, 0x10018);                 /* 2 */
    alloc(1, 2, 0x5040, 3, 400, TWO_31);                 /* 3 */
    alloc(1, 255, 0x5040, 255, INT32_MAX, TWO_31 + INT32_MAX); /* 4: the widest that fit */
    alloc(1, 1, 0x5000, 0, -1, TWO_31 - 1);              /* 5: 2^31 back */
    alloc(1, 1, 0x5000, 0, 24, TWO_31);                  /* 6 */
    alloc(1, 256, 0x5000, 0, 24, TWO_31 + 0x18);         /* 7: an arena past a byte */
    alloc(1, 1, 0x5000, 256, 24, TWO_31 + 0x30);         /* 8: is_array past a byte */
    alloc(1, 1, 0x5000, -1, 24, TWO_31 + 0x48);          /* 9 */
    alloc(1, 1, 0x5000, 0, 24, 2 * TWO_31 + 0x48);       /* 10: 2^31 on */
    alloc(1, 1, UINT64_C(1) << 40, 0, 24, 2 * TWO_31 + 0x60); /* 11: the class far away */
    alloc(2, 1, UINT64_C(1) << 40, 0, 24, 2 * TWO_31 + 0x78); /* 12: another thread */
    VMPI_Event requested;
    memset(&requested, 0, sizeof requested);
    requested.event_type = VMPI_EVENT_OBJECT_ALLOC | VMPI_REQUESTED_EVENT;
    requested.u.obj_alloc.arena_id = 1;
    requested.u.obj_alloc.class_id = ID(UINT64_C(1) << 40);
    requested.u.obj_alloc.size = 24;
    requested.u.obj_alloc.obj_id = ID(2 * TWO_31 + 0x90);
    write_event(&requested, 2);                          /* 13 */
    alloc(2, 1, UINT64_C(1) << 40, 0, 24, 2 * TWO_31 + 0xa8); /* 14: from 12's and 13's IDs */
    assert_fixed(1, 1, false);
    assert_fixed(2, 6, true);
    assert_fixed(7, 13, false);
    assert_fixed(14, 14, true);
    assert_read_back();
}

Test(trace_binary, moves_and_frees_fixed_where_they_fit) {
    start();
    move(0, 1, 0x10000, 2, 0x90000);               /* 1: thread 0, as a recording starts */
    move(0, 1, 0x10018, 2, 0x90018);               /* 2 */
    free_object(0, 0x10030);                       /* 3 */
    free_object(0, 0x10048);                       /* 4 */
    free_object(0, 0x8048);                        /* 5 */
    move(0, 1, 0x10060, 300, 0x90030);             /* 6: a new arena past a byte */
    move(0, 1, 0x10078, 2, 0x90048 + 2 * TWO_31);  /* 7: far */
    free_object(0, UINT64_C(1) << 33);             /* 8: far */
    free_object(1, UINT64_C(1) << 33);             /* 9: another thread */
    move(1, 1, 0x10090, 2, 0x90060 + 2 * TWO_31);  /* 10 */
    assert_fixed(1, 5, true);
    assert_fixed(6, 9, false);
    assert_fixed(10, 10, true);
    assert_read_back();
}

/* The reader's message for `bytes`, which must be refused. */
static void assert_refused(const void *bytes, size_t n, const char *message) {
    char err[512] = "";
    TraceBinaryReader *reader = trace_binary_open_memory(bytes, n, "in", err, sizeof err);
    if (reader) {
        TraceBinaryRecord record;
        int got;
        while ((got = trace_binary_next(reader, &record, err, sizeof err)) > 0) continue;
        trace_binary_close(reader);
        cr_assert_eq(got, -1, "read to the end");
    }
    cr_assert_str_eq(err, message);
}

Test(trace_binary, retired_version_refused) {
    const char version_1[] = TRACE_BINARY_MAGIC "\x01\x01\x82\x80\x80\x80\x02\x00";
    assert_refused(version_1, sizeof version_1 - 1,
                   "in: byte 9: binary recording version 1 (this reader reads 2: record it again)");
}

Test(trace_binary, bad_fixed_records_refused) {
    /* A header, then a fixed tag with no event of its kind (code 0), then
     * an allocation's fixed record cut short. */
    const char no_such[] = TRACE_BINARY_MAGIC "\x02\x01\x00\x00\x04";
    assert_refused(no_such, sizeof no_such - 1, "in: byte 12: no fixed record starts with 4");
    const char cut[] = TRACE_BINARY_MAGIC "\x02\x01\x00\x00\x24\x01\x00\x18\x00\x00";
    assert_refused(cut, sizeof cut - 1, "in: byte 13: cut short inside a fixed record");
}
