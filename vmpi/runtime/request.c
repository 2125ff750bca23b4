/*
 * request.c -- RequestEvent (JVMPI 1.2 section 2): events an agent asks for
 * and gets at once, in its own thread, before RequestEvent returns.
 *
 *   CLASS_LOAD    arg = a class ID      the class's defining event again
 *   THREAD_START  arg = a thread object's ID (JVMPI's), or the thread's
 *                 own ID                the thread's defining event again
 *   OBJECT_ALLOC  arg = an object ID    the object's arena, class and size
 *   ARENA_NEW     arg = NULL            one ARENA_NEW per live arena, in the
 *                                       order they were created (arenas.c)
 *   HEAP_DUMP     arg = VMPI_HeapDumpArg * (NULL means level 2)
 *   OBJECT_DUMP   arg = an object or class ID
 *
 * One request is answered later instead: DATA_DUMP_REQUEST (arg = NULL),
 * which an agent may make from any thread, its own system thread included,
 * comes to that agent alone at the next safepoint
 * (vm/threads/safepoint.h), where the program's state is whole and the
 * agent may ask for a heap dump in turn; several requests before it come
 * as one.  It is how an agent's thread (hprof's front-end reader) gets work
 * done on the VM's thread.  Lost if the program ends first.
 *
 * Late attach: an agent that enables the heap events after the program has
 * run learns the heap as it is with ARENA_NEW (every arena, empty ones and
 * names included), a level-0 HEAP_DUMP (every object ID) and OBJECT_ALLOC
 * per ID (its arena, class and size).  OBJECT_ALLOC and OBJECT_DUMP find
 * the object in an index built by one heap walk and kept while the heap is
 * unchanged (object_index.c), so that catch-up costs O(log n) a request,
 * not a heap walk.
 *
 * A request from an agent's system thread is answered there too, with the
 * program's threads stopped at a safepoint meanwhile (program_hold.c, from
 * guard.c, whose checks of the argument read the heap already), as for a
 * collection: the heap and the VM's tables hold still while read.
 *
 * Invariant: a requested event carries VMPI_REQUESTED_EVENT and goes to the
 * requesting agent alone, whether or not it enabled the event (vmpi_requester,
 * dispatch.c), and RequestEvent returns VMPI_ERR -- JVMPI_FAIL -- for an ID
 * that names nothing live, VMPI_NOT_AVAILABLE for any other event type.
 */
#include "dispatch.h"

static int32_t request(int32_t event_type, void *arg) {
    switch (event_type) {
    case VMPI_EVENT_CLASS_LOAD: {
        uint32_t index;
        if (!vmpi_vm->class_index(vmpi_vm->vm, arg, &index)) return VMPI_ERR;
        vmpi_send_class_load(index, 1);
        return VMPI_OK;
    }
    case VMPI_EVENT_THREAD_START: {
        VMPI_ThreadID thread = vmpi_thread_named_by(arg);
        if (!thread) return VMPI_ERR;
        vmpi_send_thread_start((const struct VMThread *)(uintptr_t)thread, 1); /* the ID is the VM's thread record (vm_services.h) */
        return VMPI_OK;
    }
    case VMPI_EVENT_OBJECT_ALLOC: {
        Obj *obj;
        VMPI_ArenaID arena_id;
        if (!vmpi_find_object(arg, &obj, &arena_id)) return VMPI_ERR;
        VMPI_Event event;
        vmpi_fill_object_alloc(&event, arena_id, obj, obj_size(obj));
        event.event_type |= VMPI_REQUESTED_EVENT;
        vmpi_dispatch(&event, true);
        return VMPI_OK;
    }
    case VMPI_EVENT_ARENA_NEW:
        if (arg) return VMPI_ERR;
        vmpi_replay_arenas();
        return VMPI_OK;
    case VMPI_EVENT_HEAP_DUMP: {
        /* JVMPI 1.2, HEAP_DUMP: "If a NULL value is passed, then the dump
         * level is set to JVMPI_DUMP_LEVEL_2." */
        int32_t level = arg ? ((const VMPI_HeapDumpArg *)arg)->heap_dump_level : VMPI_DUMP_LEVEL_2;
        if (level < VMPI_DUMP_LEVEL_0 || level > VMPI_DUMP_LEVEL_2) return VMPI_ERR;
        return vmpi_send_heap_dump(level);
    }
    case VMPI_EVENT_OBJECT_DUMP:
        return vmpi_send_object_dump(arg);
    case VMPI_EVENT_MONITOR_DUMP: return vmpi_send_monitor_dump(); /* monitor_dump.c */
    default:
        return VMPI_NOT_AVAILABLE;
    }
}

int32_t vmpi_request_event(VmpiAgent *agent, int32_t event_type, void *arg) {
    if (!vmpi_vm) return VMPI_ERR;
    if (event_type == VMPI_EVENT_DATA_DUMP_REQUEST) {
        if (arg) return VMPI_ERR;
        atomic_store(&agent->data_dump_requested, true);
        vmpi_request_safepoint(VMPI_AT_SAFEPOINT_DATA_DUMP);
        return VMPI_OK;
    }
    VmpiAgent *outer = vmpi_requester; /* a handler may request in turn */
    vmpi_requester = agent;
    int32_t result = request(event_type, arg);
    vmpi_requester = outer;
    return result;
}
