/*
 * heap_dump_records.c -- decoding a HEAP_DUMP's records
 * (vmpi/agents/common/heap_dump_records.h): a buffer of every record type,
 * written here as vmpi/runtime/heap_dump.c writes one, decodes to what was
 * written, each record's values a reader over exactly its bytes; a level-1
 * primitive array has no elements; and a buffer cut anywhere inside a
 * record, an unknown record type, an unknown class, a constant pool, a bad
 * primitive kind and a level-0 dump are malformed, never read past.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/heap_dump_records.h"

#define CLASS_ID 0x1000u      /* the one class the "writer" knows */
#define STATICS_BYTES 9u      /* its statics: a reference and a boolean */

static size_t statics_bytes(const void *classes, uint64_t class_id) {
    cr_assert_eq(classes, (const void *)&statics_bytes, "the writer's classes are handed back");
    return class_id == CLASS_ID ? STATICS_BYTES : SIZE_MAX;
}

typedef struct Buffer {
    char bytes[512];
    size_t len;
} Buffer;

static void put(Buffer *b, const void *data, size_t n) {
    cr_assert_leq(b->len + n, sizeof b->bytes);
    memcpy(b->bytes + b->len, data, n);
    b->len += n;
}
static void put_u1(Buffer *b, uint8_t v) { put(b, &v, 1); }
static void put_u2(Buffer *b, uint16_t v) { put(b, &v, 2); }
static void put_u4(Buffer *b, uint32_t v) { put(b, &v, 4); }
static void put_id(Buffer *b, uintptr_t id) { put(b, &id, sizeof id); }

/* Every record type once, with `constant_pool` entries in the class dump
 * and `kind` as the primitive array's element kind; where each record
 * ends goes in record_ends. */
static size_t record_ends[16], num_records;

static void end_record(const Buffer *b) { record_ends[num_records++] = b->len; }

static void write_dump(Buffer *b, int32_t level, uint16_t constant_pool, uint8_t kind) {
    *b = (Buffer){0};
    num_records = 0;
    put_u1(b, VMPI_GC_ROOT_UNKNOWN); put_id(b, 0x10); end_record(b);
    put_u1(b, VMPI_GC_ROOT_JNI_GLOBAL); put_id(b, 0x20); put_id(b, 0x21); end_record(b);
    put_u1(b, VMPI_GC_ROOT_JNI_LOCAL); put_id(b, 0x30); put_id(b, 0x31); put_u4(b, 3); end_record(b);
    put_u1(b, VMPI_GC_ROOT_JAVA_FRAME); put_id(b, 0x40); put_id(b, 0x41); put_u4(b, 4); end_record(b);
    put_u1(b, VMPI_GC_ROOT_NATIVE_STACK); put_id(b, 0x50); put_id(b, 0x51); end_record(b);
    put_u1(b, VMPI_GC_ROOT_STICKY_CLASS); put_id(b, CLASS_ID); end_record(b);
    put_u1(b, VMPI_GC_ROOT_THREAD_BLOCK); put_id(b, 0x60); put_id(b, 0x61); end_record(b);
    put_u1(b, VMPI_GC_ROOT_MONITOR_USED); put_id(b, 0x70); end_record(b);
    put_u1(b, VMPI_GC_CLASS_DUMP); put_id(b, CLASS_ID);
    put_id(b, 0x1008); /* super */
    for (int i = 0; i < 5; i++) put_id(b, 0);
    put_u4(b, 32);
    put_u2(b, constant_pool);
    put_id(b, 0x80); put_u1(b, 1); /* the statics */
    end_record(b);
    put_u1(b, VMPI_GC_INSTANCE_DUMP); put_id(b, 0x90); put_id(b, CLASS_ID); put_u4(b, 5);
    put(b, "hello", 5); end_record(b);
    put_u1(b, VMPI_GC_OBJ_ARRAY_DUMP); put_id(b, 0xa0); put_u4(b, 2); put_id(b, CLASS_ID);
    put_id(b, 0x90); put_id(b, 0); end_record(b);
    put_u1(b, VMPI_GC_PRIM_ARRAY_DUMP); put_id(b, 0xb0); put_u4(b, 3); put_u1(b, kind);
    if (level == VMPI_DUMP_LEVEL_2) put(b, "\1\0\2\0\3\0", 6); /* three chars */
    end_record(b);
}

static void open_dump(HeapDumpRecords *records, const Buffer *b, size_t len, int32_t level) {
    VMPI_Event event = {.event_type = VMPI_EVENT_HEAP_DUMP};
    event.u.heap_dump.dump_level = level;
    event.u.heap_dump.begin = (char *)b->bytes;
    event.u.heap_dump.end = (char *)b->bytes + len;
    heap_dump_open(records, &event, statics_bytes, (const void *)&statics_bytes);
}

static void next(HeapDumpRecords *records, HeapDumpRecord *record, uint8_t type, uintptr_t id) {
    cr_assert(heap_dump_next(records, record), "record %#x", type);
    cr_assert_eq(record->type, type);
    cr_assert_eq(record->id, id);
}

static size_t values_left(const HeapDumpRecord *record) { return (size_t)(record->values.end - record->values.at); }

/* Decodes the first `len` bytes; returns the records read, the last of
 * them in *last. */
static size_t records_in(const Buffer *b, size_t len, int32_t level, bool *malformed, HeapDumpRecord *last) {
    HeapDumpRecords records;
    open_dump(&records, b, len, level);
    HeapDumpRecord r;
    size_t n = 0;
    while (heap_dump_next(&records, &r)) {
        cr_assert_leq(r.values.end, b->bytes + len, "a record's values lie in the buffer");
        *last = r;
        n++;
    }
    *malformed = records.malformed;
    return n;
}

Test(heap_dump_records, every_record_decodes_to_what_was_written) {
    Buffer b;
    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CHAR);
    HeapDumpRecords records;
    open_dump(&records, &b, b.len, VMPI_DUMP_LEVEL_2);
    HeapDumpRecord r;
    next(&records, &r, VMPI_GC_ROOT_UNKNOWN, 0x10);
    next(&records, &r, VMPI_GC_ROOT_JNI_GLOBAL, 0x20);
    cr_assert_eq(r.global_ref, 0x21);
    next(&records, &r, VMPI_GC_ROOT_JNI_LOCAL, 0x30);
    cr_assert_eq(r.thread, (VMPI_ThreadID)0x31);
    cr_assert_eq(r.frame, 3);
    next(&records, &r, VMPI_GC_ROOT_JAVA_FRAME, 0x40);
    cr_assert_eq(r.thread, (VMPI_ThreadID)0x41);
    cr_assert_eq(r.frame, 4);
    next(&records, &r, VMPI_GC_ROOT_NATIVE_STACK, 0x50);
    cr_assert_eq(r.thread, (VMPI_ThreadID)0x51);
    next(&records, &r, VMPI_GC_ROOT_STICKY_CLASS, CLASS_ID);
    next(&records, &r, VMPI_GC_ROOT_THREAD_BLOCK, 0x60);
    cr_assert_eq(r.thread, (VMPI_ThreadID)0x61);
    next(&records, &r, VMPI_GC_ROOT_MONITOR_USED, 0x70);
    next(&records, &r, VMPI_GC_CLASS_DUMP, CLASS_ID);
    cr_assert_eq(r.super_id, 0x1008);
    cr_assert_eq(r.instance_size, 32);
    cr_assert_eq(values_left(&r), STATICS_BYTES);
    cr_assert_eq(dump_take_id(&r.values), 0x80);
    cr_assert_eq(dump_take_u1(&r.values), 1);
    next(&records, &r, VMPI_GC_INSTANCE_DUMP, 0x90);
    cr_assert_eq(r.class_id, CLASS_ID);
    cr_assert_eq(values_left(&r), 5);
    cr_assert(memcmp(r.values.at, "hello", 5) == 0);
    next(&records, &r, VMPI_GC_OBJ_ARRAY_DUMP, 0xa0);
    cr_assert_eq(r.length, 2);
    cr_assert_eq(r.class_id, CLASS_ID);
    cr_assert_eq(values_left(&r), 2 * sizeof(void *));
    cr_assert_eq(dump_take_id(&r.values), 0x90);
    next(&records, &r, VMPI_GC_PRIM_ARRAY_DUMP, 0xb0);
    cr_assert_eq(r.length, 3);
    cr_assert_eq(r.element_kind, VMPI_CHAR);
    cr_assert_eq(values_left(&r), 6);
    cr_assert_eq(dump_take_u2(&r.values), 1);
    cr_assert_not(heap_dump_more(&records));
    cr_assert_not(heap_dump_next(&records, &r), "the end");
    cr_assert_not(records.malformed);
}

Test(heap_dump_records, a_level_1_primitive_array_has_no_elements) {
    Buffer b;
    write_dump(&b, VMPI_DUMP_LEVEL_1, 0, VMPI_INT);
    HeapDumpRecord last;
    bool malformed;
    cr_assert_eq(records_in(&b, b.len, VMPI_DUMP_LEVEL_1, &malformed, &last), num_records);
    cr_assert_not(malformed);
    cr_assert_eq(last.type, VMPI_GC_PRIM_ARRAY_DUMP);
    cr_assert_eq(last.length, 3);
    cr_assert_eq(values_left(&last), 0);
}

Test(heap_dump_records, a_cut_record_is_malformed) {
    Buffer b;
    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CHAR);
    size_t whole = 0; /* the records that end at or before the cut */
    for (size_t len = 0; len <= b.len; len++) {
        while (whole < num_records && record_ends[whole] <= len) whole++;
        bool at_boundary = whole == 0 ? len == 0 : record_ends[whole - 1] == len, malformed;
        HeapDumpRecord last;
        cr_assert_eq(records_in(&b, len, VMPI_DUMP_LEVEL_2, &malformed, &last), whole, "cut at %zu", len);
        cr_assert_eq(malformed, !at_boundary, "cut at %zu", len);
    }
}

/* The first `record` records of the buffer decode; then it is malformed. */
static void assert_malformed_at(const Buffer *b, size_t record, int32_t level) {
    bool malformed;
    HeapDumpRecord last;
    cr_assert_eq(records_in(b, b->len, level, &malformed, &last), record);
    cr_assert(malformed);
}

Test(heap_dump_records, what_is_not_a_record_is_malformed) {
    Buffer b;
    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CHAR);
    b.bytes[record_ends[3]] = 0x42; /* no record type */
    assert_malformed_at(&b, 4, VMPI_DUMP_LEVEL_2);

    write_dump(&b, VMPI_DUMP_LEVEL_2, 1, VMPI_CHAR); /* a constant pool */
    assert_malformed_at(&b, 8, VMPI_DUMP_LEVEL_2);

    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CHAR);
    uintptr_t unknown = CLASS_ID + 8; /* a class the writer was not told of */
    memcpy(b.bytes + record_ends[7] + 1, &unknown, sizeof unknown);
    assert_malformed_at(&b, 8, VMPI_DUMP_LEVEL_2);

    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CLASS); /* not a primitive kind */
    put(&b, (char[24]){0}, 24);                      /* though bytes for any kind follow */
    assert_malformed_at(&b, 11, VMPI_DUMP_LEVEL_2);

    write_dump(&b, VMPI_DUMP_LEVEL_2, 0, VMPI_CHAR);
    assert_malformed_at(&b, 0, VMPI_DUMP_LEVEL_0); /* level 0 has no records */
}
