/*
 * tptp_dump.c -- a level-1 heap dump as heapDumpDef, gcRoot, dumpObject and
 * objectReference elements (tptp_dump.h).
 */
#include "tptp_dump.h"

#include "common/dump_reader.h"
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

/* One record of a level-1 dump; false if it is not one. */
static bool read_record(const DumpWriter *w, DumpReader *r) {
    uint8_t type = dump_take_u1(r);
    uint64_t id = dump_take_id(r);
    switch (type) {
    case VMPI_GC_ROOT_UNKNOWN: root(w, id, "UNKNOWN"); break;
    case VMPI_GC_ROOT_JNI_GLOBAL: dump_take_id(r); root(w, id, "JNI_GLOBAL"); break;
    case VMPI_GC_ROOT_JNI_LOCAL:
    case VMPI_GC_ROOT_JAVA_FRAME: {
        VMPI_ThreadID thread = (VMPI_ThreadID)(uintptr_t)dump_take_id(r);
        dump_take_u4(r); /* the frame */
        thread_root(w, id, type == VMPI_GC_ROOT_JAVA_FRAME ? "JAVA_FRAME" : "JNI_LOCAL", thread);
        break;
    }
    case VMPI_GC_ROOT_NATIVE_STACK:
    case VMPI_GC_ROOT_THREAD_BLOCK:
        thread_root(w, id, type == VMPI_GC_ROOT_NATIVE_STACK ? "NATIVE_STACK" : "THREAD_BLOCK",
                    (VMPI_ThreadID)(uintptr_t)dump_take_id(r));
        break;
    case VMPI_GC_ROOT_STICKY_CLASS: break; /* a class, not a heap object */
    case VMPI_GC_ROOT_MONITOR_USED: root(w, id, "MONITOR_USED"); break;
    case VMPI_GC_CLASS_DUMP: {
        const TptpClass *c = tptp_class_find(w->objects, (const void *)(uintptr_t)id);
        for (int i = 0; i < 6; i++) dump_take_id(r); /* super, loader, signers, domain, 2 reserved */
        dump_take_u4(r);                             /* instance size */
        if (dump_take_u2(r) != 0 || !c) return false; /* gclab has no constant pools */
        for (uint32_t i = 0; i < c->ref_statics && !r->overrun; i++) {
            uint64_t value = dump_take_id(r);
            if (value && begin_root(w, value, "STATIC")) {
                xml_uint(w->out, "classIdRef", c->number);
                xml_end(w->out);
            }
        }
        break;
    }
    case VMPI_GC_INSTANCE_DUMP: {
        dump_take_id(r); /* the class */
        uint32_t bytes = dump_take_u4(r);
        uint32_t owner = dump_object(w, id);
        for (uint32_t i = 0; i < bytes / sizeof(void *) && !r->overrun; i++) reference(w, owner, dump_take_id(r));
        dump_skip(r, bytes % sizeof(void *)); /* level 1: the values are references only */
        break;
    }
    case VMPI_GC_OBJ_ARRAY_DUMP: {
        uint32_t length = dump_take_u4(r);
        dump_take_id(r); /* the element class */
        uint32_t owner = dump_object(w, id);
        for (uint32_t i = 0; i < length && !r->overrun; i++) reference(w, owner, dump_take_id(r));
        break;
    }
    case VMPI_GC_PRIM_ARRAY_DUMP:
        dump_take_u4(r); /* length; level 1 has no elements */
        dump_take_u1(r); /* element type */
        dump_object(w, id);
        break;
    default: return false; /* not a record of JVMPI 1.2 section 4.2 */
    }
    return !r->overrun;
}

bool tptp_dump_write(TraceOutput *out, const TptpObjects *objects, const VMPI_Event *heap_dump, uint32_t dump_id,
                     uint32_t (*thread_number)(VMPI_ThreadID)) {
    DumpWriter w = {out, objects, dump_id, thread_number};
    DumpReader r = {.at = heap_dump->u.heap_dump.begin, .end = heap_dump->u.heap_dump.end};
    while (r.at < r.end)
        if (!read_record(&w, &r)) return false;
    return true;
}
