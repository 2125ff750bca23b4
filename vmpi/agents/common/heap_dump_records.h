/*
 * heap_dump_records.h -- the records of a level-1 or level-2 HEAP_DUMP
 * buffer (JVMPI 1.2, section 4.2, as vmpi/runtime/heap_dump.c writes it),
 * decoded one at a time.  hprof's text HEAP DUMP (hprof_dump.c), its
 * format=b (hprof_binary.c) and tptp's heap dump elements (tptp_dump.c)
 * each format what they are handed here.
 *
 * A record is decoded whole or not at all: heap_dump_next checks that the
 * record type is one of section 4.2's and that all its bytes are in the
 * buffer, and hands out a reader over its values, so a writer never reads
 * past the record.  How the values are laid out is the writer's business,
 * with one exception: a CLASS_DUMP does not say how long its statics are,
 * so the writer tells the reader (statics_bytes, from the class's field
 * list at CLASS_LOAD).
 *
 *     HeapDumpRecords records;
 *     heap_dump_open(&records, event, statics_bytes, classes);
 *     HeapDumpRecord record;
 *     while (heap_dump_next(&records, &record)) write(&record);
 *     if (records.malformed) ... the buffer is not a heap dump
 */
#ifndef GCLAB_HEAP_DUMP_RECORDS_H
#define GCLAB_HEAP_DUMP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dump_reader.h"
#include "vmpi.h"

/* The bytes of the statics of class `class_id` in its CLASS_DUMP at the
 * dump's level, or SIZE_MAX if the writer does not know the class.
 * `classes` is what the writer passed to heap_dump_open. */
typedef size_t HeapDumpStaticsBytes(const void *classes, uint64_t class_id);

typedef struct HeapDumpRecords {
    DumpReader bytes;           /* the records not read yet */
    int32_t level;              /* VMPI_DUMP_LEVEL_1 or _2 */
    HeapDumpStaticsBytes *statics_bytes;
    const void *classes;
    bool malformed;             /* a record was not one of section 4.2's */
} HeapDumpRecords;

/* One record.  `type` and `id` are always set; the others as noted. */
typedef struct HeapDumpRecord {
    uint8_t type;           /* VMPI_GC_ROOT_... or VMPI_GC_..._DUMP */
    uint64_t id;            /* a root's object; the class, object or array a dump is of */
    VMPI_ThreadID thread;   /* ROOT_JNI_LOCAL, _JAVA_FRAME, _NATIVE_STACK, _THREAD_BLOCK */
    uint32_t frame;         /* ROOT_JNI_LOCAL, _JAVA_FRAME: the frame's index in the thread's trace */
    uint64_t global_ref;    /* ROOT_JNI_GLOBAL: the reference */
    uint64_t super_id;      /* CLASS_DUMP: the superclass (gclab's classes have none: 0) */
    uint32_t instance_size; /* CLASS_DUMP: the bytes of an instance */
    uint64_t class_id;      /* INSTANCE_DUMP: the object's class; OBJ_ARRAY_DUMP: the element class */
    uint32_t length;        /* OBJ_ARRAY_DUMP, PRIM_ARRAY_DUMP: the number of elements */
    uint8_t element_kind;   /* PRIM_ARRAY_DUMP: VMPI_BOOLEAN ... VMPI_LONG */
    /* The values, in the VM's byte order: CLASS_DUMP its statics,
     * INSTANCE_DUMP its fields (a String's: its UTF-8 bytes at level 2),
     * OBJ_ARRAY_DUMP its element IDs, PRIM_ARRAY_DUMP its elements (none at
     * level 1). */
    DumpReader values;
} HeapDumpRecord;

/* Starts reading `heap_dump` (a HEAP_DUMP event of level 1 or 2). */
void heap_dump_open(HeapDumpRecords *records, const VMPI_Event *heap_dump, HeapDumpStaticsBytes *statics_bytes,
                    const void *classes);

/* The next record into *record.  False at the end of the buffer, or if the
 * rest is not a record (then records->malformed is set). */
bool heap_dump_next(HeapDumpRecords *records, HeapDumpRecord *record);

/* Whether records are left to read. */
static inline bool heap_dump_more(const HeapDumpRecords *records) {
    return !records->malformed && records->bytes.at < records->bytes.end;
}

#endif
