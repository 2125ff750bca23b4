/*
 * tptp_dump.c -- a level-1 heap dump as heapDumpDef, gcRoot, dumpObject and
 * objectReference elements (tptp_dump.h).
 */
#include "tptp_dump.h"

#include "common/heap_dump_records.h"
#include "tptp_xml.h"

typedef struct DumpWriter {
    TraceOutput *out;
    const TptpObjects *objects;
    uint32_t dump_id;
    uint32_t (*thread_number)(VMPI_ThreadID);
} DumpWriter;

static uint32_t number_of(const DumpWriter *w, uint64_t id) {
    return id ? tptp_object_number(w->objects, (const void *)(uintptr_t)id) : 0;
}

/* A gcRoot without its end, or false (nothing written) if the object is
 * not tracked. */
static bool begin_root(const DumpWriter *w, uint64_t id, const char *type) {
    uint32_t number = number_of(w, id);
    if (!number) return false;
    xml_begin(w->out, "gcRoot");
    xml_uint(w->out, "heapDumpIdRef", w->dump_id);
    xml_uint(w->out, "objIdRef", number);
    xml_text(w->out, "type", type);
    return true;
}

static void root(const DumpWriter *w, uint64_t id, const char *type) {
    if (begin_root(w, id, type)) xml_end(w->out);
}

static void thread_root(const DumpWriter *w, uint64_t id, const char *type, VMPI_ThreadID thread) {
    if (!begin_root(w, id, type)) return;
    uint32_t number = w->thread_number(thread);
    if (number) xml_uint(w->out, "threadIdRef", number);
    xml_end(w->out);
}

static void reference(const DumpWriter *w, uint32_t owner, uint64_t target_id) {
    uint32_t target = number_of(w, target_id);
    if (!owner || !target) return;
    xml_begin(w->out, "objectReference");
    xml_uint(w->out, "heapDumpIdRef", w->dump_id);
    xml_uint(w->out, "ownerObjIdRef", owner);
    xml_uint(w->out, "targetObjIdRef", target);
    xml_end(w->out);
}

/* A live object: its dumpObject, if tracked; returns its number (0: not). */
static uint32_t dump_object(const DumpWriter *w, uint64_t id) {
    uint32_t number = number_of(w, id);
    if (!number) return 0;
    xml_begin(w->out, "dumpObject");
    xml_uint(w->out, "heapDumpIdRef", w->dump_id);
    xml_uint(w->out, "objIdRef", number);
    xml_end(w->out);
    return number;
}

/* HeapDumpStaticsBytes over TptpObjects: a level-1 CLASS_DUMP holds the
 * class's reference statics only. */
static size_t statics_bytes(const void *objects, uint64_t class_id) {
    const TptpClass *c = tptp_class_find(objects, (const void *)(uintptr_t)class_id);
    return c ? c->ref_statics * sizeof(void *) : SIZE_MAX;
}

/* An objectReference per ID in `values` (a level-1 record's values are references only). */
static void references(const DumpWriter *w, uint32_t owner, DumpReader *values) {
    while ((size_t)(values->end - values->at) >= sizeof(void *)) reference(w, owner, dump_take_id(values));
}

static void write_record(const DumpWriter *w, HeapDumpRecord *record) {
    uint64_t id = record->id;
    switch (record->type) {
    case VMPI_GC_ROOT_UNKNOWN: root(w, id, "UNKNOWN"); return;
    case VMPI_GC_ROOT_JNI_GLOBAL: root(w, id, "JNI_GLOBAL"); return;
    case VMPI_GC_ROOT_JNI_LOCAL: thread_root(w, id, "JNI_LOCAL", record->thread); return;
    case VMPI_GC_ROOT_JAVA_FRAME: thread_root(w, id, "JAVA_FRAME", record->thread); return;
    case VMPI_GC_ROOT_NATIVE_STACK: thread_root(w, id, "NATIVE_STACK", record->thread); return;
    case VMPI_GC_ROOT_THREAD_BLOCK: thread_root(w, id, "THREAD_BLOCK", record->thread); return;
    case VMPI_GC_ROOT_STICKY_CLASS: return; /* a class, not a heap object */
    case VMPI_GC_ROOT_MONITOR_USED: root(w, id, "MONITOR_USED"); return;
    case VMPI_GC_CLASS_DUMP: {
        uint32_t class_number = tptp_class_find(w->objects, (const void *)(uintptr_t)id)->number; /* known */
        while (record->values.at < record->values.end) {
            uint64_t value = dump_take_id(&record->values);
            if (value && begin_root(w, value, "STATIC")) {
                xml_uint(w->out, "classIdRef", class_number);
                xml_end(w->out);
            }
        }
        return;
    }
    case VMPI_GC_INSTANCE_DUMP:
    case VMPI_GC_OBJ_ARRAY_DUMP: references(w, dump_object(w, id), &record->values); return;
    case VMPI_GC_PRIM_ARRAY_DUMP: dump_object(w, id); return;
    }
}

bool tptp_dump_write(TraceOutput *out, const TptpObjects *objects, const VMPI_Event *heap_dump, uint32_t dump_id,
                     uint32_t (*thread_number)(VMPI_ThreadID)) {
    DumpWriter w = {out, objects, dump_id, thread_number};
    HeapDumpRecords records;
    heap_dump_open(&records, heap_dump, statics_bytes, objects);
    HeapDumpRecord record;
    while (heap_dump_next(&records, &record)) write_record(&w, &record);
    return !records.malformed;
}
