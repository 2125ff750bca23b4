/*
 * heap_dump_records.c -- decoding a HEAP_DUMP's records (heap_dump_records.h).
 */
#include "common/heap_dump_records.h"

void heap_dump_open(HeapDumpRecords *records, const VMPI_Event *heap_dump, HeapDumpStaticsBytes *statics_bytes,
                    const void *classes) {
    *records = (HeapDumpRecords){
        .bytes = {.at = heap_dump->u.heap_dump.begin, .end = heap_dump->u.heap_dump.end},
        .level = heap_dump->u.heap_dump.dump_level,
        .statics_bytes = statics_bytes,
        .classes = classes,
        .malformed = heap_dump->u.heap_dump.dump_level != VMPI_DUMP_LEVEL_1 &&
                     heap_dump->u.heap_dump.dump_level != VMPI_DUMP_LEVEL_2, /* level 0 has no records */
    };
}

/* The record's values: the next `n` bytes, which must be in the buffer. */
static DumpReader take_values(DumpReader *r, size_t n) {
    DumpReader values = {.at = r->at, .end = r->at + ((size_t)(r->end - r->at) < n ? 0 : n)};
    dump_skip(r, n);
    return values;
}

/* Reads what follows the type and ID; false if `type` is no record. */
static bool read_body(HeapDumpRecords *records, HeapDumpRecord *record) {
    DumpReader *r = &records->bytes;
    switch (record->type) {
    case VMPI_GC_ROOT_UNKNOWN:
    case VMPI_GC_ROOT_STICKY_CLASS:
    case VMPI_GC_ROOT_MONITOR_USED: return true;
    case VMPI_GC_ROOT_JNI_GLOBAL: record->global_ref = dump_take_id(r); return true;
    case VMPI_GC_ROOT_JNI_LOCAL:
    case VMPI_GC_ROOT_JAVA_FRAME:
        record->thread = (VMPI_ThreadID)(uintptr_t)dump_take_id(r);
        record->frame = dump_take_u4(r);
        return true;
    case VMPI_GC_ROOT_NATIVE_STACK:
    case VMPI_GC_ROOT_THREAD_BLOCK: record->thread = (VMPI_ThreadID)(uintptr_t)dump_take_id(r); return true;
    case VMPI_GC_CLASS_DUMP: {
        record->super_id = dump_take_id(r);
        for (int i = 0; i < 5; i++) dump_take_id(r); /* loader, signers, domain, 2 reserved */
        record->instance_size = dump_take_u4(r);
        if (dump_take_u2(r) != 0) return false;      /* gclab has no constant pools */
        size_t statics = records->statics_bytes(records->classes, record->id);
        if (statics == SIZE_MAX) return false;       /* a class no CLASS_LOAD announced */
        record->values = take_values(r, statics);
        return true;
    }
    case VMPI_GC_INSTANCE_DUMP:
        record->class_id = dump_take_id(r);
        record->values = take_values(r, dump_take_u4(r));
        return true;
    case VMPI_GC_OBJ_ARRAY_DUMP:
        record->length = dump_take_u4(r);
        record->class_id = dump_take_id(r);
        record->values = take_values(r, (size_t)record->length * sizeof(void *));
        return true;
    case VMPI_GC_PRIM_ARRAY_DUMP: {
        record->length = dump_take_u4(r);
        record->element_kind = dump_take_u1(r);
        if (record->element_kind < VMPI_BOOLEAN || record->element_kind > VMPI_LONG) return false;
        size_t element_bytes = records->level == VMPI_DUMP_LEVEL_2 ? dump_primitive_size(record->element_kind) : 0;
        record->values = take_values(r, (size_t)record->length * element_bytes);
        return true;
    }
    default: return false; /* not a record of JVMPI 1.2 section 4.2 */
    }
}

bool heap_dump_next(HeapDumpRecords *records, HeapDumpRecord *record) {
    if (!heap_dump_more(records)) return false;
    *record = (HeapDumpRecord){.type = dump_take_u1(&records->bytes)};
    record->id = dump_take_id(&records->bytes);
    if (!read_body(records, record) || records->bytes.overrun) {
        records->malformed = true;
        return false;
    }
    return true;
}
