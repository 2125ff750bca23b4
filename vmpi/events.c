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

/* Casts that drop const: IDs are opaque pointers to the VM's records. */
#define OBJECT_ID(p) ((VMPI_ObjectID)(uintptr_t)(p))
#define METHOD_ID(p) ((VMPI_MethodID)(uintptr_t)(p))
#define THREAD_ID(p) ((VMPI_ThreadID)(uintptr_t)(p))

/* ---- heap events (collectors) ---------------------------------------------- */

void vmpi_send_arena_new(VMPI_ArenaID arena_id, const char *arena_name) {
    VMPI_Event event = {.event_type = VMPI_EVENT_ARENA_NEW, .env_id = vmpi_current_env()};
    event.u.new_arena.arena_id = arena_id;
    event.u.new_arena.arena_name = (char *)(uintptr_t)arena_name;
    vmpi_dispatch(&event, true);
}

void vmpi_send_arena_delete(VMPI_ArenaID arena_id) {
    VMPI_Event event = {.event_type = VMPI_EVENT_ARENA_DELETE, .env_id = vmpi_current_env()};
    event.u.delete_arena.arena_id = arena_id;
    vmpi_dispatch(&event, true);
}

void vmpi_fill_object_alloc(VMPI_Event *event, VMPI_ArenaID arena_id, const Obj *obj, size_t size) {
    const RtClass *cls = obj->cls;
    /* JVMPI 1.2, OBJECT_ALLOC: class_id is the element class when is_array
     * is JVMPI_CLASS; ElemKind values are the is_array codes (object.h). */
    const RtClass *named = cls->elem_kind == ELEM_REF && cls->elem_class ? cls->elem_class : cls;
    *event = (VMPI_Event){.event_type = VMPI_EVENT_OBJECT_ALLOC, .env_id = vmpi_current_env()};
    event->u.obj_alloc.arena_id = arena_id;
    event->u.obj_alloc.class_id = OBJECT_ID(named->class_id);
    event->u.obj_alloc.is_array = (int32_t)cls->elem_kind;
    event->u.obj_alloc.size = size > INT32_MAX ? INT32_MAX : (int32_t)size;
    event->u.obj_alloc.obj_id = OBJECT_ID(obj);
}

/* OBJECT_ALLOC, then heap sampling (post.h: one call for both). */
void vmpi_send_object_alloc(const uint64_t *bytes_allocated, VMPI_ArenaID arena_id, const Obj *obj, size_t size) {
    VMPI_Event event;
    vmpi_fill_object_alloc(&event, arena_id, obj, size);
    if (vmpi_call_sites_on && event.env_id) event.u.obj_alloc.site = vmpi_vm->call_site(vmpi_vm->vm, event.env_id);
    if (vmpi_enabled[VMPI_EVENT_OBJECT_ALLOC]) vmpi_dispatch(&event, true);
    if (vmpi_heap_sampling_on) vmpi_sample_allocation(&event, *bytes_allocated);
}

void vmpi_send_object_free(const Obj *obj) {
    VMPI_Event event = {.event_type = VMPI_EVENT_OBJECT_FREE, .env_id = vmpi_current_env()};
    event.u.obj_free.obj_id = OBJECT_ID(obj);
    vmpi_dispatch(&event, true);
}

void vmpi_send_object_move(VMPI_ArenaID arena_id, const Obj *obj, VMPI_ArenaID new_arena_id,
                           const Obj *new_obj) {
    VMPI_Event event = {.event_type = VMPI_EVENT_OBJECT_MOVE, .env_id = vmpi_current_env()};
    event.u.obj_move.arena_id = arena_id;
    event.u.obj_move.obj_id = OBJECT_ID(obj);
    event.u.obj_move.new_arena_id = new_arena_id;
    event.u.obj_move.new_obj_id = OBJECT_ID(new_obj);
    vmpi_dispatch(&event, true);
}

void vmpi_send_gc_start(void) {
    VMPI_Event event = {.event_type = VMPI_EVENT_GC_START, .env_id = vmpi_current_env()};
    vmpi_dispatch(&event, true);
}

void vmpi_send_gc_finish(int64_t used_objects, int64_t used_object_space,
                         int64_t total_object_space) {
    VMPI_Event event = {.event_type = VMPI_EVENT_GC_FINISH, .env_id = vmpi_current_env()};
    event.u.gc_info.used_objects = used_objects;
    event.u.gc_info.used_object_space = used_object_space;
    event.u.gc_info.total_object_space = total_object_space;
    vmpi_dispatch(&event, true);
}

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
    VMPI_Event event = {.event_type = event_type(VMPI_EVENT_THREAD_START, requested),
                        .env_id = vmpi_current_env()};
    event.u.thread_start.thread_name =
        (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, THREAD_ID(thread));
    event.u.thread_start.group_name = "main";
    VMPI_ThreadID parent = vmpi_vm->thread_parent ? vmpi_vm->thread_parent(vmpi_vm->vm, THREAD_ID(thread)) : NULL;
    event.u.thread_start.parent_name = parent ? (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, parent) : NULL;
    event.u.thread_start.thread_id =
        vmpi_vm->thread_object ? OBJECT_ID(vmpi_vm->thread_object(vmpi_vm->vm, THREAD_ID(thread))) : NULL;
    event.u.thread_start.thread_env_id = THREAD_ID(thread);
    vmpi_dispatch(&event, true);
}

/* JVMPI 1.2, MONITOR_CONTENDED_ENTER, _ENTERED and _EXIT: the object
 * whose monitor it is. */
void vmpi_send_monitor_event(int32_t event_type, const struct VMThread *thread, const Obj *obj) {
    VMPI_Event event = {.event_type = event_type, .env_id = THREAD_ID(thread)};
    event.u.monitor.object = OBJECT_ID(obj);
    vmpi_dispatch(&event, true);
}

/* JVMPI 1.2, MONITOR_WAIT and MONITOR_WAITED: the object and the timeout,
 * which for MONITOR_WAITED is the time actually waited (JVMPI 1.2 says
 * "timeout"; TPTP's thread profiler needs the time waited). */
void vmpi_send_monitor_wait(int32_t event_type, const struct VMThread *thread, const Obj *obj, int64_t value) {
    VMPI_Event event = {.event_type = event_type, .env_id = THREAD_ID(thread)};
    event.u.monitor_wait.object = OBJECT_ID(obj);
    event.u.monitor_wait.timeout = value;
    vmpi_dispatch(&event, true);
}

/* JVMPI 1.2, THREAD_END: env_id is the thread that ended. */
void vmpi_send_thread_end(const struct VMThread *thread) {
    VMPI_Event event = {.event_type = VMPI_EVENT_THREAD_END, .env_id = THREAD_ID(thread)};
    vmpi_dispatch(&event, false);
}

void vmpi_send_method_event(int32_t event_type, const struct VMThread *thread,
                            const struct ProgMethod *method) {
    VMPI_Event event = {.event_type = event_type, .env_id = THREAD_ID(thread)};
    event.u.method.method_id = METHOD_ID(method);
    vmpi_dispatch(&event, false);
}

/* JVMPI 1.2, METHOD_ENTRY2: "issued with GC disabled", as it carries an
 * object ID; obj_id is NULL for a static method. */
void vmpi_send_method_entry(const struct VMThread *thread, const struct ProgMethod *method,
                            Obj *const *receiver) {
    if (vmpi_enabled[VMPI_EVENT_METHOD_ENTRY])
        vmpi_send_method_event(VMPI_EVENT_METHOD_ENTRY, thread, method);
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

void vmpi_send_jvm_init_done(void) {
    VMPI_Event event = {.event_type = VMPI_EVENT_JVM_INIT_DONE, .env_id = vmpi_current_env()};
    vmpi_dispatch(&event, false);
}

/* JVMPI 1.2, DATA_DUMP_REQUEST and DATA_RESET_REQUEST: no data.  Posted at
 * a safepoint after SIGQUIT or SIGUSR2 (vm/interp/safepoint.c). */
void vmpi_send_data_request(int32_t code) {
    VMPI_Event event = {.event_type = code, .env_id = vmpi_current_env()};
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

void vmpi_send_globalref_alloc(int32_t event_type, const Obj *obj, const void *ref) {
    VMPI_Event event = {.event_type = event_type, .env_id = vmpi_current_env()};
    event.u.jni_globalref_alloc.obj_id = OBJECT_ID(obj);
    event.u.jni_globalref_alloc.ref_id = (VMPI_JNIRef)(uintptr_t)ref;
    vmpi_dispatch(&event, true);
}

void vmpi_send_globalref_free(int32_t event_type, const void *ref) {
    VMPI_Event event = {.event_type = event_type, .env_id = vmpi_current_env()};
    event.u.jni_globalref_free.ref_id = (VMPI_JNIRef)(uintptr_t)ref;
    vmpi_dispatch(&event, false);
}
