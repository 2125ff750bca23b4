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
 * NULL and those counts 0.  A string's bytes are not a field: a String is an
 * INSTANCE_DUMP with no field values.
 *
 * Roots are classified from the VM's precise root set: a slot in a thread's
 * reference stack is JAVA_FRAME (with the frame's index in that thread's
 * trace, callee first), a reference static is reached through its class's
 * CLASS_DUMP (every class is a STICKY_CLASS root: RtClasses never die), and
 * any other slot -- interned string constants, native handles -- is
 * ROOT_UNKNOWN.
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

/* One field or static value (JVMPI 1.2 section 4.1, v1): a reference, or the
 * 8-byte slot of an int, double or bool field, by its type descriptor. */
static void put_value(DumpBuffer *b, const char *desc, const Obj *ref, uint64_t prim) {
    if (type_is_ref(desc)) {
        put_id(b, ref);
    } else if (desc[0] == 'Z') {
        put_u1(b, prim != 0);
    } else {
        put(b, &prim, 8); /* J and D: the slot's 8 bytes as stored */
    }
}

static void dump_class(DumpBuffer *b, uint32_t index, int32_t level) {
    const RtClass *cls = vm_linked_class(vmpi_vm, index);
    const Program *p = vmpi_vm->program;
    put_u1(b, VMPI_GC_CLASS_DUMP);
    put_id(b, class_id_of(cls));
    for (int i = 0; i < 6; i++) put_id(b, NULL); /* super, loader, signers, domain, 2 reserved */
    put_u4(b, (uint32_t)obj_size_for(cls, 0));
    put_u2(b, 0); /* constant pool entries */
    if (index >= p->num_classes) return;
    const ProgClass *pc = &p->classes[index];
    for (uint32_t i = 0; i < pc->num_statics; i++) {
        const ProgField *f = &p->statics[pc->statics[i]];
        if (f->is_ref)
            put_id(b, vmpi_vm->ref_statics[f->slot]);
        else if (level == VMPI_DUMP_LEVEL_2)
            put_value(b, p->types[f->type], NULL, vmpi_vm->prim_statics[f->slot]);
    }
}

/* One object's record; fields in CLASS_LOAD's order (JVMPI 1.2 section 4.2). */
static void dump_object(DumpBuffer *b, Obj *obj, int32_t level) {
    const RtClass *cls = obj->cls;
    const Program *p = vmpi_vm->program;
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
        if (cls->kind == CLASS_INSTANCE && cls->program_index < p->num_classes) {
            const ProgClass *pc = &p->classes[cls->program_index];
            for (uint32_t i = 0; i < pc->num_fields; i++) {
                const ProgField *f = &p->fields[pc->fields[i]];
                if (f->is_ref)
                    put_id(b, *obj_ref_field(obj, f->slot));
                else if (level == VMPI_DUMP_LEVEL_2)
                    put_value(b, p->types[f->type], NULL, *obj_prim_field(obj, f->slot));
            }
        }
        patch_u4(b, size_at);
    }
}

/* ---- roots ------------------------------------------------------------------------- */

/* The index, callee first, of the frame of `thread` whose reference locals
 * and operands hold `slot`; UINT32_MAX (JVMPI's -1) if it is in none.  That
 * is the topmost frame whose rlocals is at or below `slot`: frames[i].rlocals
 * never decreases from the bottom frame up, so a binary search finds it (a
 * linear scan made a level-2 dump quadratic in the stack's depth). */
static uint32_t frame_number(const VMThread *thread, Obj **slot) {
    uint32_t at_or_below = 0, above = thread->depth; /* frames [0, at_or_below) start <= slot */
    while (at_or_below < above) {
        uint32_t mid = at_or_below + (above - at_or_below) / 2;
        if (thread->frames[mid].rlocals <= slot)
            at_or_below = mid + 1;
        else
            above = mid;
    }
    return at_or_below == 0 ? UINT32_MAX : thread->depth - at_or_below;
}

static void dump_root(Obj **slot, void *ctx) {
    DumpBuffer *b = ctx;
    for (uint32_t t = 0; t < vmpi_vm->num_threads; t++) {
        const VMThread *thread = vmpi_vm->threads[t];
        if (slot >= thread->rstack && slot < thread->rtop) {
            put_u1(b, VMPI_GC_ROOT_JAVA_FRAME);
            put_id(b, *slot);
            put_id(b, thread);
            put_u4(b, frame_number(thread, slot));
            return;
        }
    }
    Obj **statics = vmpi_vm->ref_statics;
    if (statics && slot >= statics && slot < statics + vmpi_vm->program->num_ref_statics)
        return; /* in its class's CLASS_DUMP */
    put_u1(b, VMPI_GC_ROOT_UNKNOWN);
    put_id(b, *slot);
}

/* One call trace per VM thread, for the JAVA_FRAME roots' frame numbers. */
static VMPI_CallTrace *thread_traces(int32_t *num_traces) {
    uint32_t n = vmpi_vm->num_threads;
    VMPI_CallTrace *traces = calloc(n + 1, sizeof *traces);
    if (!traces) return NULL;
    for (uint32_t t = 0; t < n; t++) {
        const VMThread *thread = vmpi_vm->threads[t];
        traces[t].env_id = (VMPI_ThreadID)(uintptr_t)thread;
        traces[t].frames = calloc(thread->depth + 1, sizeof *traces[t].frames);
        if (!traces[t].frames) {
            *num_traces = (int32_t)t;
            return traces; /* the caller frees what was made, and fails */
        }
        vmpi_get_call_trace(&traces[t], (int32_t)thread->depth);
    }
    *num_traces = (int32_t)n;
    return traces;
}

static void free_traces(VMPI_CallTrace *traces, int32_t num_traces) {
    if (!traces) return;
    for (int32_t t = 0; t < num_traces; t++) free(traces[t].frames);
    free(traces);
}

/* ---- the events ----------------------------------------------------------------------- */

typedef struct ObjectDump {
    DumpBuffer *buffer;
    int32_t level;
} ObjectDump;

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
        traces = thread_traces(&num_traces);
        if (!traces || num_traces != (int32_t)vmpi_vm->num_threads) buffer.failed = true;
        vm_enumerate_roots(vmpi_vm, dump_root, &buffer);
        uint32_t num_classes = vm_num_linked_classes(vmpi_vm);
        for (uint32_t i = 0; i < num_classes; i++) {
            put_u1(&buffer, VMPI_GC_ROOT_STICKY_CLASS);
            put_id(&buffer, class_id_of(vm_linked_class(vmpi_vm, i)));
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
    free_traces(traces, num_traces);
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
    bool found = vm_class_index(vmpi_vm, object_id, &class_index);
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
