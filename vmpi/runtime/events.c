/*
 * events.c -- the out-of-line half of post.h: each vmpi_send_X builds its
 * VMPI_Event from the VM's own records and hands it to vmpi_dispatch.
 *
 * Invariant: no function here allocates from the C heap except CLASS_LOAD
 * (its method and field tables), which is never sent during a collection.
 * The heap events run in thread-suspended mode (JVMPI 1.2 section 1.5), so
 * their records live on the C stack.
 *
 * env_id is the VMThread running now (vmpi_current_env), NULL before the
 * main thread exists: the collector's ARENA_NEW comes first (JVMPI 1.2
 * section 6 allows events before the main thread's THREAD_START; gclab
 * sends them with no thread rather than an undefined one).
 */
#include <stdio.h>
#include <stdlib.h>

#include "dispatch.h"
#include "recorder.h"

/* Casts that drop const: IDs are opaque pointers to the VM's records. */
#define OBJECT_ID(p) ((VMPI_ObjectID)(uintptr_t)(p))
#define METHOD_ID(p) ((VMPI_MethodID)(uintptr_t)(p))
#define THREAD_ID(p) ((VMPI_ThreadID)(uintptr_t)(p))

/* A record of `event_type` from `env_id`, every other member zero.  Copied
 * from a zero record rather than built in place: compilers clear an 88-byte
 * record in place with `rep stos`, which costs tens of cycles, and the heap
 * events are built once per allocation, move or free. */
static const VMPI_Event no_event;

static inline void start_event(VMPI_Event *event, int32_t event_type, VMPI_ThreadID env_id) {
    *event = no_event;
    event->event_type = event_type;
    event->env_id = env_id;
}

/* ---- the events expanded from post.h's list ------------------------------------- */

#define VMPI_EVENT_STORE(member, KIND, field) event.u.member.field = VMPI_FROM_POST_##KIND(field);
#define VMPI_DEFINE_SENDER(NAME, member, gc_disabled)                                                   \
    void vmpi_send_##NAME(const struct VMThread *thread VMPI_FIELDS_##member(VMPI_POST_PARAMETER)) {   \
        VMPI_Event event;                                                                              \
        start_event(&event, VMPI_EVENT_##NAME, thread ? THREAD_ID(thread) : vmpi_current_env());       \
        VMPI_FIELDS_##member(VMPI_EVENT_STORE) vmpi_dispatch(&event, gc_disabled);                     \
    }
VMPI_POSTED_EVENTS(VMPI_DEFINE_SENDER)
#undef VMPI_DEFINE_SENDER

/* ---- the collector's events (gc/event_port.h) --------------------------------- */

void vmpi_fill_object_alloc(VMPI_Event *event, VMPI_ArenaID arena_id, const Obj *obj, size_t size) {
    start_event(event, VMPI_EVENT_OBJECT_ALLOC, vmpi_current_env());
    vmpi_set_object_alloc_fields(event, arena_id, obj, size);
}

/* OBJECT_ALLOC to the agents, then heap sampling.  Out of line, as is the
 * recorder, so that on_object_alloc is only its tests and a jump. */
static __attribute__((noinline)) void deliver_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id,
                                                           const Obj *obj, size_t size) {
    VMPI_Event event;
    vmpi_fill_object_alloc(&event, (VMPI_ArenaID)arena_id, obj, size);
    if (vmpi_call_sites_on && event.env_id) event.u.obj_alloc.site = vmpi_vm->call_site(vmpi_vm->vm, event.env_id);
    if (vmpi_agents_enabled[VMPI_EVENT_OBJECT_ALLOC]) vmpi_dispatch(&event, true);
    if (vmpi_heap_sampling_on) vmpi_sample_allocation(&event, *bytes_allocated);
}

static __attribute__((noinline)) void record_and_deliver_object_alloc(const uint64_t *bytes_allocated,
                                                                      uint32_t arena_id, const Obj *obj,
                                                                      size_t size) {
    vmpi_record_object_alloc(bytes_allocated, arena_id, obj, size);
    deliver_object_alloc(bytes_allocated, arena_id, obj, size);
}

/* The port's one call for OBJECT_ALLOC and heap sampling.  The recorder
 * writes its own (recorder.h); the record is built only for an agent or a
 * sample. */
static void on_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj, size_t size) {
    if (!vmpi_recording) return deliver_object_alloc(bytes_allocated, arena_id, obj, size);
    if (!vmpi_agents_enabled[VMPI_EVENT_OBJECT_ALLOC] && !vmpi_heap_sampling_on)
        return vmpi_record_object_alloc(bytes_allocated, arena_id, obj, size);
    record_and_deliver_object_alloc(bytes_allocated, arena_id, obj, size);
}

/* The arena events always come (gc/event_port.h): vmpi keeps the table of
 * live arenas that RequestEvent(ARENA_NEW) replays to an agent that enabled
 * the heap events late (arenas.c). */
static void on_arena_new(uint32_t arena_id, const char *arena_name) {
    vmpi_record_arena_new((VMPI_ArenaID)arena_id, arena_name);
    vmpi_post_ARENA_NEW(NULL, (VMPI_ArenaID)arena_id, arena_name);
}
static void on_arena_delete(uint32_t arena_id) {
    vmpi_record_arena_delete((VMPI_ArenaID)arena_id);
    vmpi_post_ARENA_DELETE(NULL, (VMPI_ArenaID)arena_id);
}
/* The others come only while wanted (vmpi_refresh_enabled). */
static void on_object_free(const Obj *obj) {
    if (vmpi_recording) vmpi_record_object_free(obj);
    if (vmpi_agents_enabled[VMPI_EVENT_OBJECT_FREE]) vmpi_send_OBJECT_FREE(NULL, obj);
}
static void on_object_move(uint32_t arena_id, const Obj *obj, uint32_t new_arena_id, const Obj *new_obj) {
    if (vmpi_recording) vmpi_record_object_move(arena_id, obj, new_arena_id, new_obj);
    if (vmpi_agents_enabled[VMPI_EVENT_OBJECT_MOVE])
        vmpi_send_OBJECT_MOVE(NULL, (VMPI_ArenaID)arena_id, obj, (VMPI_ArenaID)new_arena_id, new_obj);
}
static void on_gc_start(void) { vmpi_send_GC_START(NULL); }
static void on_gc_finish(int64_t used_objects, int64_t used_object_space, int64_t total_object_space) {
    vmpi_send_GC_FINISH(NULL, used_objects, used_object_space, total_object_space);
}

/* gclab's mechanism events (docs/mechanism-events.md): the port's kind
 * says which of a shared listener's events it is. */
static void on_phase(int kind, const char *phase_name) {
    if (kind == GC_EVENT_PHASE_START) vmpi_send_GC_PHASE_START(NULL, phase_name);
    else vmpi_send_GC_PHASE_END(NULL, phase_name);
}
static void on_object_step(int kind, const Obj *obj) {
    switch (kind) {
    case GC_EVENT_OBJECT_GREYED: vmpi_send_OBJECT_GREYED(NULL, obj); break;
    case GC_EVENT_OBJECT_BLACKENED: vmpi_send_OBJECT_BLACKENED(NULL, obj); break;
    default: vmpi_send_REMEMBERED_SET_ADD(NULL, obj); break;
    }
}
static void on_object_forwarded(const Obj *obj, const Obj *new_obj) { vmpi_send_OBJECT_FORWARDED(NULL, obj, new_obj); }
static void on_refcount_change(const Obj *obj, uint32_t count) {
    vmpi_send_REFCOUNT_CHANGE(NULL, obj, (int32_t)count);
}
static void on_object_free_cause(const Obj *obj, const char *cause) { vmpi_send_OBJECT_FREE_CAUSE(NULL, obj, cause); }

const GcEventListener vmpi_gc_listener = {
    .arena_new = on_arena_new,
    .arena_delete = on_arena_delete,
    .object_alloc = on_object_alloc,
    .object_free = on_object_free,
    .object_move = on_object_move,
    .gc_start = on_gc_start,
    .gc_finish = on_gc_finish,
    .phase = on_phase,
    .object_step = on_object_step,
    .object_forwarded = on_object_forwarded,
    .refcount_change = on_refcount_change,
    .object_free_cause = on_object_free_cause,
};

/* ---- VM events ----------------------------------------------------------------- */

static int32_t event_type(int32_t code, int32_t requested) {
    return requested ? code | VMPI_REQUESTED_EVENT : code;
}

/* JVMPI 1.2, CLASS_LOAD.  class_index is the attached VM's (vm_services.h;
 * the VM attaches before it posts); classes the VM makes itself have no
 * methods or fields. */
void vmpi_send_class_load(uint32_t class_index, int32_t requested) {
    const RtClass *cls = vmpi_vm ? vmpi_vm->class_at(vmpi_vm->vm, class_index) : NULL;
    if (!cls) return;
    VmpiClassOutline outline;
    vmpi_vm->describe_class(vmpi_vm->vm, class_index, &outline);
    uint32_t num_statics = outline.num_statics;

    VMPI_Method *methods = calloc(outline.num_methods + 1, sizeof *methods);
    VMPI_Field *fields = calloc(num_statics + outline.num_instance_fields + 1, sizeof *fields);
    if (!methods || !fields) {
        fprintf(stderr, "vmrun: out of memory sending CLASS_LOAD for %s\n", cls->name);
        vmpi_exit(1);
    }
    vmpi_vm->list_class_members(vmpi_vm->vm, class_index, methods, fields, fields + num_statics);

    VMPI_Event event = {.event_type = event_type(VMPI_EVENT_CLASS_LOAD, requested),
                        .env_id = vmpi_current_env()};
    event.u.class_load.class_name = (char *)(uintptr_t)cls->name;
    event.u.class_load.source_name = (char *)(uintptr_t)outline.source_name;
    event.u.class_load.num_interfaces = 0; /* the language has no interfaces */
    event.u.class_load.num_methods = (int32_t)outline.num_methods;
    event.u.class_load.methods = methods;
    event.u.class_load.num_static_fields = (int32_t)num_statics;
    event.u.class_load.statics = fields;
    event.u.class_load.num_instance_fields = (int32_t)outline.num_instance_fields;
    event.u.class_load.instances = fields + num_statics;
    event.u.class_load.class_id = OBJECT_ID(cls->class_id);
    vmpi_dispatch(&event, true);
    free(methods);
    free(fields);
}

/* JVMPI 1.2, THREAD_START, for a thread of the attached VM: thread_id is
 * its Thread handle (NULL for main in a program that starts no thread),
 * parent_name the name of the thread that started it (NULL for main); every
 * VM thread belongs to group "main". */
void vmpi_send_thread_start(const struct VMThread *thread, int32_t requested) {
    if (!vmpi_vm) return;
    /* Posted, the event is the new thread's own, even a system thread's,
     * whose creator posts it (threads.c); requested, the requester's. */
    VMPI_Event event = {.event_type = event_type(VMPI_EVENT_THREAD_START, requested),
                        .env_id = requested ? vmpi_current_env() : THREAD_ID(thread)};
    event.u.thread_start.thread_name =
        (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, THREAD_ID(thread));
    event.u.thread_start.group_name = VMPI_THREAD_GROUP;
    VMPI_ThreadID parent = vmpi_vm->thread_parent ? vmpi_vm->thread_parent(vmpi_vm->vm, THREAD_ID(thread)) : NULL;
    event.u.thread_start.parent_name = parent ? (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, parent) : NULL;
    event.u.thread_start.thread_id =
        vmpi_vm->thread_object ? OBJECT_ID(vmpi_vm->thread_object(vmpi_vm->vm, THREAD_ID(thread))) : NULL;
    event.u.thread_start.thread_env_id = THREAD_ID(thread);
    vmpi_dispatch(&event, true);
}

/* JVMPI 1.2, METHOD_ENTRY2: "issued with GC disabled", as it carries an
 * object ID; obj_id is NULL for a static method. */
void vmpi_send_method_entry(const struct VMThread *thread, const struct ProgMethod *method,
                            Obj *const *receiver) {
    if (vmpi_enabled[VMPI_EVENT_METHOD_ENTRY]) vmpi_send_METHOD_ENTRY(thread, method);
    if (vmpi_enabled[VMPI_EVENT_METHOD_ENTRY2]) {
        VMPI_Event event = {.event_type = VMPI_EVENT_METHOD_ENTRY2, .env_id = THREAD_ID(thread)};
        event.u.method_entry2.method_id = METHOD_ID(method);
        event.u.method_entry2.obj_id = receiver ? OBJECT_ID(*receiver) : NULL;
        vmpi_dispatch(&event, true);
    }
}

/* JVMPI 1.4.2, INSTRUCTION_START.  gclab has no switch instruction, so
 * the switch fields stay 0. */
void vmpi_send_instruction_start(const struct VMThread *thread, const struct ProgMethod *method,
                                 uint32_t offset, int32_t is_true) {
    VMPI_Event event = {.event_type = VMPI_EVENT_INSTRUCTION_START, .env_id = THREAD_ID(thread)};
    event.u.instruction.method_id = METHOD_ID(method);
    event.u.instruction.offset = (int32_t)offset;
    event.u.instruction.is_true = is_true;
    vmpi_dispatch(&event, false);
}

void vmpi_send_requested_data_dumps(void) {
    VMPI_Event event = {.event_type = VMPI_EVENT_DATA_DUMP_REQUEST | VMPI_REQUESTED_EVENT,
                        .env_id = vmpi_current_env()};
    for (uint32_t i = 0; i < vmpi_num_agents; i++) {
        VmpiAgent *agent = &vmpi_agents[i];
        if (atomic_exchange(&agent->data_dump_requested, false) && !agent->shut_down) vmpi_deliver(agent, &event);
    }
}

