/*
 * heapdump_agent.c -- the references heapview's step-through view draws
 * (docs/heapview.md, "The step-through view"): after every collection that
 * left at most `max` objects, a level-1 heap dump (JVMPI 1.2 section 4.2)
 * written as text.
 *
 *     -agentlib:heapdump[=file=F][,max=N]
 *
 *   file=F  where to write (default heapdump.txt)
 *   max=N   dump only after a collection that left at most N objects
 *           (default 2000; a dump lists every object)
 *
 * A dump cannot be asked for inside a collection (docs/contracts.md,
 * "Requested events"), so it is asked for at the first OBJECT_ALLOC after a
 * GC_FINISH: in a program that collects when an allocation finds no room,
 * that is the allocation that started the collection, and the heap is the
 * one the collection left, with its references as the collector traced them
 * (the new object, not yet stored anywhere, is named so that a reader can
 * leave it out).  Level 1 is enough: it has every reference and no primitive
 * value, so an instance's values are its reference fields, one ID each.
 *
 * The file, one item per line, IDs as the trace agent writes them (decimal):
 *
 *     gclab-heapdump 1
 *     dump GC NEW_ID      after the GC-th collection (from 1); NEW_ID the allocation
 *     root KIND ID        KIND: frame, native, global, thread, monitor, static, unknown
 *     object ID REF...    an object and the objects it refers to, nulls left out
 *     end
 *
 * The file is complete or absent (trace_output.h), as the trace agent's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agent_common.h"
#include "common/grow.h"
#include "vmpi.h"

static VMPI_Interface *vmpi;
static AgentLock lock;
static TraceOutput out;
static char path[4096] = "heapdump.txt";
static long max_objects = 2000;
static long collections;
static bool dump_pending, closed;

/* Each class's count of reference statics: a level-1 CLASS_DUMP lists
 * only those, and says not how many. */
typedef struct {
    void *class_id;
    uint32_t reference_statics;
} ClassStatics;
static ClassStatics *classes;
static size_t num_classes, classes_capacity;

static void learn_class(const VMPI_Event *e) {
    if (!agent_grow((void **)&classes, &classes_capacity, num_classes + 1, sizeof *classes, 64)) return;
    uint32_t references = 0;
    for (int32_t i = 0; i < e->u.class_load.num_static_fields; i++) {
        char kind = e->u.class_load.statics[i].field_signature[0];
        references += kind == 'L' || kind == '[';
    }
    classes[num_classes++] = (ClassStatics){e->u.class_load.class_id, references};
}

static uint32_t reference_statics(const void *class_id) {
    for (size_t i = 0; i < num_classes; i++)
        if (classes[i].class_id == class_id) return classes[i].reference_statics;
    return 0;
}

/* ---- reading the dump --------------------------------------------------------------- */

typedef struct {
    const unsigned char *at, *end;
    bool overrun;
} Reader;

static void take(Reader *r, void *value, size_t n) {
    if (r->overrun || (size_t)(r->end - r->at) < n) {
        r->overrun = true;
        memset(value, 0, n);
        return;
    }
    memcpy(value, r->at, n);
    r->at += n;
}
static uint32_t take_u4(Reader *r) { uint32_t v; take(r, &v, 4); return v; }
static uint16_t take_u2(Reader *r) { uint16_t v; take(r, &v, 2); return v; }
static uint8_t take_u1(Reader *r) { uint8_t v; take(r, &v, 1); return v; }
static unsigned long long take_id(Reader *r) { void *v; take(r, &v, sizeof v); return (unsigned long long)(uintptr_t)v; }

static void write_text(const char *text) { trace_output_text(&out, text); }

static void write_root(const char *kind, unsigned long long object) {
    if (!object) return;
    write_text("root ");
    write_text(kind);
    write_text(" ");
    trace_output_number(&out, object);
    write_text("\n");
}

/* `count` IDs as the rest of an object's line. */
static void write_references(Reader *r, size_t count) {
    for (size_t i = 0; i < count && !r->overrun; i++) {
        unsigned long long ref = take_id(r);
        if (!ref) continue;
        write_text(" ");
        trace_output_number(&out, ref);
    }
    write_text("\n");
}

static void write_object_line(unsigned long long id) {
    write_text("object ");
    trace_output_number(&out, id);
}

/* One record of a level-1 dump; false on a record JVMPI 1.2 does not have. */
static bool write_record(Reader *r) {
    uint8_t type = take_u1(r);
    unsigned long long id = take_id(r);
    switch (type) {
    case VMPI_GC_ROOT_UNKNOWN: write_root("unknown", id); return true;
    case VMPI_GC_ROOT_STICKY_CLASS: return true; /* classes are not heap objects */
    case VMPI_GC_ROOT_MONITOR_USED: write_root("monitor", id); return true;
    case VMPI_GC_ROOT_JNI_GLOBAL: take_id(r); write_root("global", id); return true;
    case VMPI_GC_ROOT_NATIVE_STACK: take_id(r); write_root("native", id); return true;
    case VMPI_GC_ROOT_THREAD_BLOCK: take_id(r); write_root("thread", id); return true;
    case VMPI_GC_ROOT_JNI_LOCAL:
    case VMPI_GC_ROOT_JAVA_FRAME:
        take_id(r);
        take_u4(r);
        write_root("frame", id);
        return true;
    case VMPI_GC_CLASS_DUMP: {
        for (int i = 0; i < 6; i++) take_id(r); /* super, loader, signers, domain, 2 reserved */
        take_u4(r);
        if (take_u2(r) != 0) return false;      /* gclab has no constant pools */
        uint32_t statics = reference_statics((void *)(uintptr_t)id);
        for (uint32_t i = 0; i < statics; i++) write_root("static", take_id(r));
        return true;
    }
    case VMPI_GC_INSTANCE_DUMP: {
        take_id(r);                             /* its class */
        uint32_t bytes = take_u4(r);            /* level 1: reference fields only */
        write_object_line(id);
        write_references(r, bytes / sizeof(void *));
        return true;
    }
    case VMPI_GC_OBJ_ARRAY_DUMP: {
        uint32_t length = take_u4(r);
        take_id(r);                             /* element class */
        write_object_line(id);
        write_references(r, length);
        return true;
    }
    case VMPI_GC_PRIM_ARRAY_DUMP:
        take_u4(r);
        take_u1(r);                             /* level 1: no elements */
        write_object_line(id);
        write_text("\n");
        return true;
    default:
        return false;
    }
}

static void write_dump(const VMPI_Event *e) {
    Reader r = {(const unsigned char *)e->u.heap_dump.begin, (const unsigned char *)e->u.heap_dump.end, false};
    while (r.at < r.end && !r.overrun)
        if (!write_record(&r)) {
            agent_say("heapdump: a record of type %u that JVMPI 1.2 does not have\n", r.at[-1 - (int)sizeof(void *)]);
            break;
        }
    if (r.overrun) agent_say("heapdump: a dump cut short\n");
    write_text("end\n");
}

/* ---- the events ----------------------------------------------------------------------- */

static void notify_event(VMPI_Event *e) {
    int32_t code = e->event_type & ~VMPI_REQUESTED_EVENT;
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (closed) {
        agent_lock_after(vmpi, &lock, code, entered);
        return;
    }
    switch (code) {
    case VMPI_EVENT_CLASS_LOAD:
        learn_class(e);
        break;
    case VMPI_EVENT_GC_FINISH:
        collections++;
        dump_pending = e->u.gc_info.used_objects <= max_objects;
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        if (dump_pending) {
            dump_pending = false;
            write_text("dump ");
            trace_output_number(&out, (uint64_t)collections);
            write_text(" ");
            trace_output_number(&out, (uint64_t)(uintptr_t)e->u.obj_alloc.obj_id);
            write_text("\n");
            VMPI_HeapDumpArg level = {VMPI_DUMP_LEVEL_1};
            vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level); /* HEAP_DUMP comes back, in here */
        }
        break;
    case VMPI_EVENT_HEAP_DUMP:
        write_dump(e);
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        closed = true;
        if (trace_output_close(&out) != 0) agent_say("heapdump: cannot write %s\n", path);
        break;
    }
    agent_lock_after(vmpi, &lock, code, entered);
}

static bool parse_options(char *options) {
    char *rest = options, *item, *value;
    while (rest && agent_next_option(&rest, &item, &value)) {
        if (strcmp(item, "file") == 0 && value && *value) {
            snprintf(path, sizeof path, "%s", value);
        } else if (strcmp(item, "max") == 0 && value && *value) {
            char *end;
            max_objects = strtol(value, &end, 10);
            if (*end || max_objects < 0) return agent_bad_option("heapdump", item, value, "file=F,max=N"), false;
        } else {
            agent_bad_option("heapdump", item, value, "file=F,max=N");
            return false;
        }
    }
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!agent_get_env(vm, "heapdump", &vmpi) || !parse_options(options)) return VMPI_ERR;
    if (!agent_open_output(vmpi, "heapdump", path, &out, &lock)) return VMPI_ERR;
    write_text("gclab-heapdump 1\n");
    vmpi->NotifyEvent = notify_event;
    /* GC_START only for the lock discipline (agent_common.h): it holds the
     * lock GC_FINISH gives back. */
    static const int32_t wanted[] = {VMPI_EVENT_CLASS_LOAD, VMPI_EVENT_GC_START, VMPI_EVENT_GC_FINISH,
                                     VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) vmpi->EnableEvent(wanted[i], NULL);
    return VMPI_OK;
}
