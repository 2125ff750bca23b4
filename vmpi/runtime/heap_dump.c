/*
 * heap_dump.c -- the HEAP_DUMP and OBJECT_DUMP buffers (JVMPI 1.2 section 4,
 * "Dump Formats").
 *
 *   level 0   for each live object: ty (u1), object ID
 *   level 2   GC roots, then a CLASS_DUMP for every linked class, then an
 *             INSTANCE_DUMP, OBJ_ARRAY_DUMP or PRIM_ARRAY_DUMP for every live
 *             object, with every field, static and element value
 *   level 1   level 2 without primitive values (instance fields, statics,
 *             array elements)
 *   OBJECT_DUMP  one level-2 record for one object or class
 *
 * IDs take sizeof(void *) bytes, values their JVMPI sizes (section 4.1), all
 * in native byte order (vmpi.h).  gclab has no superclasses, class loaders,
 * signers, protection domains, interfaces or constant pools: those IDs are
 * NULL and those counts 0.  A string's bytes are not a field (its class
 * declares none): a String is an INSTANCE_DUMP whose values are, at level 2,
 * its UTF-8 bytes and, at level 1, nothing.  A reader that goes by the
 * class's fields finds none and skips them by the record's length; hprof's
 * format=b writes them as the string's characters.
 *
 * Roots come from the VM's precise root set as its enumerate_roots
 * classifies them (vm_services.h), each with the record a JVM gives the
 * same kind of root (docs/event-mapping.md, "Heap dump roots"):
 *
 *   a local or operand of a frame   JAVA_FRAME (object, thread, the frame's
 *                                   index in that thread's trace, callee first)
 *   a slot the VM's own code holds  NATIVE_STACK (object, thread): a JVM's
 *     for a thread, below every     native code holds its objects the same way
 *     frame
 *   a reference static              no record of its own: the value is in its
 *                                   class's CLASS_DUMP, and every class is a
 *                                   STICKY_CLASS root (RtClasses never die)
 *   an interned string constant     JNI_GLOBAL (object, the VM's slot as the
 *                                   handle): the VM holds it in a table for its
 *                                   whole life, as native code holds a global
 *                                   reference
 *   a thread's Thread handle        THREAD_BLOCK (object, thread)
 *   the object of a monitor in use  MONITOR_USED (object)
 *   a native's global reference     JNI_GLOBAL (object, the reference, as
 *                                   JNI_GLOBALREF_ALLOC's ref_id gave it); a
 *                                   weak one is no root and is not listed
 *   anything else                   UNKNOWN (gclab's VM has no such root)
 *
 * Invariant: the dump is built and delivered with GC disabled, so every ID
 * in it names a live object until NotifyEvent returns.  The buffer is the
 * VM's and is freed after delivery.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"

typedef struct DumpBuffer {
    uint8_t *bytes;
    size_t len, cap;
    bool failed; /* out of memory: the dump is abandoned */
} DumpBuffer;

static void put(DumpBuffer *b, const void *data, size_t n) {
    if (b->failed) return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < n) cap *= 2;
        uint8_t *grown = realloc(b->bytes, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->bytes = grown;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, data, n);
    b->len += n;
}

static void put_u1(DumpBuffer *b, uint8_t v) { put(b, &v, 1); }
static void put_u2(DumpBuffer *b, uint16_t v) { put(b, &v, 2); }
static void put_u4(DumpBuffer *b, uint32_t v) { put(b, &v, 4); }
static void put_id(DumpBuffer *b, const void *id) { put(b, &id, sizeof id); }

/* A u4 to be filled in once the bytes after it are written. */
static size_t put_u4_later(DumpBuffer *b) {
    put_u4(b, 0);
    return b->len - 4;
}

static void patch_u4(DumpBuffer *b, size_t at) {
    if (b->failed) return;
    uint32_t following = (uint32_t)(b->len - at - 4);
    memcpy(b->bytes + at, &following, 4);
}

static const void *class_id_of(const RtClass *cls) { return (const void *)(uintptr_t)cls->class_id; }

/* A dump being written: its buffer and level. */
typedef struct ObjectDump {
    DumpBuffer *buffer;
    int32_t level;
} ObjectDump;

/* One field or static value (JVMPI 1.2 section 4.1, v1): a reference, or at
 * level 2 the 8-byte slot of an int, double or bool field, by its type
 * descriptor.  A VmpiValueVisitor over an ObjectDump. */
static void put_value(const VmpiValue *value, void *ctx) {
    const ObjectDump *d = ctx;
    if (value->is_ref) {
        put_id(d->buffer, value->ref);
    } else if (d->level != VMPI_DUMP_LEVEL_2) {
        return; /* level 1 has no primitive values */
    } else if (value->signature[0] == 'Z') {
        put_u1(d->buffer, value->prim != 0);
    } else {
        put(d->buffer, &value->prim, 8); /* J and D: the slot's 8 bytes as stored */
    }
}

static void dump_class(DumpBuffer *b, uint32_t index, int32_t level) {
    const RtClass *cls = vmpi_vm->class_at(vmpi_vm->vm, index);
    put_u1(b, VMPI_GC_CLASS_DUMP);
    put_id(b, class_id_of(cls));
    for (int i = 0; i < 6; i++) put_id(b, NULL); /* super, loader, signers, domain, 2 reserved */
    put_u4(b, (uint32_t)obj_size_for(cls, 0));
    put_u2(b, 0); /* constant pool entries */
    ObjectDump statics = {.buffer = b, .level = level};
    vmpi_vm->class_static_values(vmpi_vm->vm, index, put_value, &statics);
}

/* One object's record; fields in CLASS_LOAD's order (JVMPI 1.2 section 4.2). */
static void dump_object(DumpBuffer *b, Obj *obj, int32_t level) {
    const RtClass *cls = obj->cls;
    if (cls->kind == CLASS_ARRAY && cls->elem_kind == ELEM_REF) {
        put_u1(b, VMPI_GC_OBJ_ARRAY_DUMP);
        put_id(b, obj);
        put_u4(b, obj->length);
        put_id(b, cls->elem_class ? class_id_of(cls->elem_class) : NULL);
        Obj **elements = obj_body(obj);
        for (uint32_t i = 0; i < obj->length; i++) put_id(b, elements[i]);
    } else if (cls->kind == CLASS_ARRAY) {
        put_u1(b, VMPI_GC_PRIM_ARRAY_DUMP);
        put_id(b, obj);
        put_u4(b, obj->length);
        put_u1(b, (uint8_t)cls->elem_kind);
        if (level == VMPI_DUMP_LEVEL_2) put(b, obj_body(obj), (size_t)obj->length * cls->elem_size);
    } else {
        put_u1(b, VMPI_GC_INSTANCE_DUMP);
        put_id(b, obj);
        put_id(b, class_id_of(cls));
        size_t size_at = put_u4_later(b);
        ObjectDump fields = {.buffer = b, .level = level};
        vmpi_vm->instance_field_values(vmpi_vm->vm, obj, put_value, &fields);
        if (cls->kind == CLASS_STRING && level == VMPI_DUMP_LEVEL_2) put(b, str_chars(obj), obj->length);
        patch_u4(b, size_at);
    }
}

/* ---- roots ------------------------------------------------------------------------- */

/* One root's record (JVMPI 1.2 section 4.2), by what holds it (the mapping
 * is the top comment's). */
static void dump_root(const VmpiRoot *root, void *ctx) {
    DumpBuffer *b = ctx;
    switch (root->kind) {
    case VMPI_ROOT_FRAME:
        put_u1(b, VMPI_GC_ROOT_JAVA_FRAME);
        put_id(b, root->object);
        put_id(b, root->thread);
        put_u4(b, root->frame);
        return;
    case VMPI_ROOT_NATIVE:
        put_u1(b, VMPI_GC_ROOT_NATIVE_STACK);
        put_id(b, root->object);
        put_id(b, root->thread);
        return;
    case VMPI_ROOT_STATIC:
        return; /* in its class's CLASS_DUMP */
    case VMPI_ROOT_INTERNED:
    case VMPI_ROOT_GLOBAL_REF:
        put_u1(b, VMPI_GC_ROOT_JNI_GLOBAL);
        put_id(b, root->object);
        put_id(b, root->handle);
        return;
    case VMPI_ROOT_THREAD:
        put_u1(b, VMPI_GC_ROOT_THREAD_BLOCK);
        put_id(b, root->object);
        put_id(b, root->thread);
        return;
    case VMPI_ROOT_MONITOR:
        put_u1(b, VMPI_GC_ROOT_MONITOR_USED);
        put_id(b, root->object);
        return;
    case VMPI_ROOT_UNKNOWN:
        put_u1(b, VMPI_GC_ROOT_UNKNOWN);
        put_id(b, root->object);
        return;
    }
}

/* One call trace per VM thread, for the JAVA_FRAME roots' frame numbers. */
VMPI_CallTrace *vmpi_thread_traces(int32_t *num_traces) {
    uint32_t n = vmpi_vm->num_threads(vmpi_vm->vm);
    VMPI_CallTrace *traces = calloc(n + 1, sizeof *traces);
    if (!traces) return NULL;
    for (uint32_t t = 0; t < n; t++) {
        VMPI_ThreadID thread = vmpi_vm->thread_at(vmpi_vm->vm, t);
        uint32_t depth = vmpi_vm->stack_mark(vmpi_vm->vm, thread).depth;
        traces[t].env_id = thread;
        traces[t].frames = calloc(depth + 1, sizeof *traces[t].frames);
        if (!traces[t].frames) {
            *num_traces = (int32_t)t;
            return traces; /* the caller frees what was made, and fails */
        }
        vmpi_get_call_trace(&traces[t], (int32_t)depth);
    }
    *num_traces = (int32_t)n;
    return traces;
}

void vmpi_free_traces(VMPI_CallTrace *traces, int32_t num_traces) {
    if (!traces) return;
    for (int32_t t = 0; t < num_traces; t++) free(traces[t].frames);
    free(traces);
}

/* ---- the events ----------------------------------------------------------------------- */

static void dump_live_object(Obj *obj, uint32_t arena_id, void *ctx) {
    (void)arena_id;
    ObjectDump *d = ctx;
    if (d->level == VMPI_DUMP_LEVEL_0) {
        put_u1(d->buffer, (uint8_t)obj->cls->elem_kind); /* ty: JVMPI's is_array code */
        put_id(d->buffer, obj);
    } else {
        dump_object(d->buffer, obj, d->level);
    }
}

int32_t vmpi_send_heap_dump(int32_t level) {
    Gc *gc = vmpi_gc();
    if (!gc) return VMPI_ERR;
    gc_disable(gc);
    DumpBuffer buffer = {0};
    VMPI_CallTrace *traces = NULL;
    int32_t num_traces = 0;
    if (level != VMPI_DUMP_LEVEL_0) {
        traces = vmpi_thread_traces(&num_traces);
        if (!traces || num_traces != (int32_t)vmpi_vm->num_threads(vmpi_vm->vm)) buffer.failed = true;
        vmpi_vm->enumerate_roots(vmpi_vm->vm, dump_root, &buffer);
        uint32_t num_classes = vmpi_vm->num_classes(vmpi_vm->vm);
        for (uint32_t i = 0; i < num_classes; i++) {
            put_u1(&buffer, VMPI_GC_ROOT_STICKY_CLASS);
            put_id(&buffer, class_id_of(vmpi_vm->class_at(vmpi_vm->vm, i)));
        }
        for (uint32_t i = 0; i < num_classes; i++) dump_class(&buffer, i, level);
    }
    ObjectDump objects = {.buffer = &buffer, .level = level};
    gc->ops->walk_heap(gc, dump_live_object, &objects);

    int32_t result = VMPI_ERR;
    if (!buffer.failed) {
        VMPI_Event event = {.event_type = VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT,
                            .env_id = vmpi_current_env()};
        event.u.heap_dump.dump_level = level;
        event.u.heap_dump.begin = (char *)buffer.bytes;
        event.u.heap_dump.end = (char *)buffer.bytes + buffer.len;
        event.u.heap_dump.num_traces = num_traces;
        event.u.heap_dump.traces = traces;
        vmpi_dispatch(&event, false); /* GC is already disabled, for the whole dump */
        result = VMPI_OK;
    }
    vmpi_free_traces(traces, num_traces);
    free(buffer.bytes);
    gc_enable(gc);
    return result;
}

int32_t vmpi_send_object_dump(const void *object_id) {
    Gc *gc = vmpi_gc();
    if (!gc || !object_id) return VMPI_ERR;
    gc_disable(gc);
    DumpBuffer buffer = {0};
    uint32_t class_index;
    bool found = vmpi_vm->class_index(vmpi_vm->vm, object_id, &class_index);
    if (found) dump_class(&buffer, class_index, VMPI_DUMP_LEVEL_2);
    Obj *obj;
    VMPI_ArenaID arena_id;
    if (!found && vmpi_find_object(object_id, &obj, &arena_id)) {
        dump_object(&buffer, obj, VMPI_DUMP_LEVEL_2);
        found = true;
    }
    int32_t result = VMPI_ERR;
    if (found && !buffer.failed) {
        VMPI_Event event = {.event_type = VMPI_EVENT_OBJECT_DUMP | VMPI_REQUESTED_EVENT,
                            .env_id = vmpi_current_env()};
        event.u.object_dump.data_len = (int32_t)buffer.len;
        event.u.object_dump.data = (char *)buffer.bytes;
        vmpi_dispatch(&event, false);
        result = VMPI_OK;
    }
    free(buffer.bytes);
    gc_enable(gc);
    return result;
}
