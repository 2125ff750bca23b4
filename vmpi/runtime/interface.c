/*
 * interface.c -- the VMPI_Interface an agent gets from GetEnv: its table of
 * entry points, event enabling, heap sampling, and the small functions that
 * only read the VM (GetMethodClass, GetThreadObject, GetCollectorName,
 * ProfilerExit).
 *
 * Invariant: agent slot N's interface holds the entry points generated for
 * slot N, so that EnableEvent, DisableEvent, RequestEvent and
 * SetHeapSamplingInterval -- which, as in JVMPI, take no "which agent"
 * argument -- act on that agent's own enabled set and sampling state.  C has
 * no closures; one small set of functions per slot stands in for them.
 *
 * Every function that takes an argument reaches its implementation through
 * guard.c, which checks the argument first: guard.c fills those slots of
 * the table (vmpi_guard_fill_interface) and this file the others.
 */
#include <stddef.h>
#include <stdlib.h>

#include "vmpi/control.h"
#include "dispatch.h"

/* Whether gclab posts `code` when an agent enables it: EnableEvent refuses
 * every other event, so that an agent never waits for one that cannot come
 * (tests/cli/event_census.sh proves each accepted event is posted).
 * HEAP_DUMP, MONITOR_DUMP and OBJECT_DUMP are only ever requested (JVMPI
 * 1.2, EnableEvent).  CLASS_LOAD_HOOK is accepted only until the VM is
 * made, in VMPI_OnLoad.  Never posted: COMPILED_METHOD_* (gclab compiles
 * no method) and CLASS_UNLOAD (classes live as long as the program).  The
 * JNI_* events follow natives' global references, MONITOR_* the language's
 * monitors, and MONITOR_WAIT/WAITED also sleeps, with no object. */
static bool can_enable(int32_t code) {
    switch (code) {
    case VMPI_EVENT_METHOD_ENTRY:
    case VMPI_EVENT_METHOD_ENTRY2:
    case VMPI_EVENT_INSTRUCTION_START:
    case VMPI_EVENT_METHOD_EXIT:
    case VMPI_EVENT_OBJECT_ALLOC:
    case VMPI_EVENT_OBJECT_FREE:
    case VMPI_EVENT_OBJECT_MOVE:
    case VMPI_EVENT_THREAD_START:
    case VMPI_EVENT_THREAD_END:
    case VMPI_EVENT_CLASS_LOAD:
    case VMPI_EVENT_DATA_DUMP_REQUEST:  /* SIGQUIT */
    case VMPI_EVENT_DATA_RESET_REQUEST: /* SIGUSR2 */
    case VMPI_EVENT_JVM_INIT_DONE:
    case VMPI_EVENT_JVM_SHUT_DOWN:
    case VMPI_EVENT_ARENA_NEW:
    case VMPI_EVENT_ARENA_DELETE:
    case VMPI_EVENT_GC_START:
    case VMPI_EVENT_GC_FINISH:
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER:
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED:
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT:
    case VMPI_EVENT_SAMPLED_OBJECT_ALLOC:
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER: /* the language's monitors (vm/threads/monitor.c) */
    case VMPI_EVENT_MONITOR_CONTENDED_ENTERED:
    case VMPI_EVENT_MONITOR_CONTENDED_EXIT:
    case VMPI_EVENT_MONITOR_WAIT:
    case VMPI_EVENT_MONITOR_WAITED:
    case VMPI_EVENT_JNI_GLOBALREF_ALLOC: /* natives' global references (vm/native/native_env.c) */
    case VMPI_EVENT_JNI_GLOBALREF_FREE:
    case VMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC:
    case VMPI_EVENT_JNI_WEAK_GLOBALREF_FREE:
    /* gclab's mechanism events: each collector posts those its algorithm
     * has (docs/mechanism-events.md). */
    case VMPI_EVENT_GC_PHASE_START:
    case VMPI_EVENT_GC_PHASE_END:
    case VMPI_EVENT_OBJECT_GREYED:
    case VMPI_EVENT_OBJECT_BLACKENED:
    case VMPI_EVENT_OBJECT_FORWARDED:
    case VMPI_EVENT_REMEMBERED_SET_ADD:
    case VMPI_EVENT_REFCOUNT_CHANGE:
    case VMPI_EVENT_OBJECT_FREE_CAUSE:
        return true;
    case VMPI_EVENT_CLASS_LOAD_HOOK: /* posted once, before the VM is made (class_load_hook.c) */
        return vmpi_vm == NULL;
    default:
        return false;
    }
}

int32_t vmpi_set_event(VmpiAgent *agent, int32_t code, uint8_t on) {
    if (!can_enable(code)) return VMPI_NOT_AVAILABLE;
    agent->enabled[code] = on;
    vmpi_refresh_enabled(code);
    if (code == VMPI_EVENT_SAMPLED_OBJECT_ALLOC) vmpi_heap_sampling_changed(agent);
    /* The interpreter hooks every instruction only while this is enabled,
     * and switches at its next safepoint (vm/interp/interp.c). */
    if (code == VMPI_EVENT_INSTRUCTION_START) vmpi_request_safepoint(VMPI_AT_SAFEPOINT_REDISPATCH);
    return VMPI_OK;
}

/* JVMTI 11: a negative interval is an illegal argument (guard.c refuses
 * it).  The new interval applies from each thread's next allocation
 * (heap_sampling.h); the agent samples only while SAMPLED_OBJECT_ALLOC is
 * enabled. */
int32_t vmpi_set_heap_sampling_interval(VmpiAgent *agent, int32_t interval) {
    agent->sampling_interval = interval;
    vmpi_heap_sampling_changed(agent);
    return VMPI_OK;
}

#define VMPI_AGENT_SLOTS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#define SLOT_ENTRY_POINTS(slot)                                                                  \
    static int32_t enable_event_##slot(int32_t code, void *arg) {                                \
        (void)arg;                                                                               \
        return vmpi_guarded_set_event(&vmpi_agents[slot], "EnableEvent", code, 1);               \
    }                                                                                            \
    static int32_t disable_event_##slot(int32_t code, void *arg) {                               \
        (void)arg;                                                                               \
        return vmpi_guarded_set_event(&vmpi_agents[slot], "DisableEvent", code, 0);              \
    }                                                                                            \
    static int32_t request_event_##slot(int32_t code, void *arg) {                               \
        return vmpi_guarded_request_event(&vmpi_agents[slot], code, arg);                        \
    }                                                                                            \
    static int32_t set_heap_sampling_interval_##slot(int32_t interval) {                         \
        return vmpi_guarded_set_heap_sampling_interval(&vmpi_agents[slot], interval);            \
    }
VMPI_AGENT_SLOTS(SLOT_ENTRY_POINTS)

static const struct SlotEntryPoints {
    int32_t (*enable_event)(int32_t, void *);
    int32_t (*disable_event)(int32_t, void *);
    int32_t (*request_event)(int32_t, void *);
    int32_t (*set_heap_sampling_interval)(int32_t);
} slot_entry_points[] = {
#define SLOT_TABLE_ROW(slot)                                                                     \
    {enable_event_##slot, disable_event_##slot, request_event_##slot,                            \
     set_heap_sampling_interval_##slot},
    VMPI_AGENT_SLOTS(SLOT_TABLE_ROW)
};
_Static_assert(sizeof slot_entry_points / sizeof slot_entry_points[0] == VMPI_MAX_AGENTS,
               "one row of entry points per agent slot");

/* JVMPI 1.2, ProfilerExit: the VM exits with the agent's code, through
 * the VM's own exit so that every agent still gets JVM_SHUT_DOWN. */
_Noreturn void vmpi_exit(int32_t status) {
    /* From a handler run outside the VM: the baton first, so that no
     * program thread runs while the agents shut down.  Kept: the VM exits. */
    vmpi_borrow_baton();
    if (vmpi_vm) vmpi_vm->exit_vm(vmpi_vm->vm, status);
    vmpi_shutdown();
    exit(status);
}

/* JVMPI 1.2, GetMethodClass: the class that defines the method; NULL for
 * an ID that names no method (the VM looks it up, never follows it). */
VMPI_ObjectID vmpi_get_method_class(VMPI_MethodID method_id) {
    if (!vmpi_vm || !method_id) return NULL;
    const RtClass *owner = vmpi_vm->method_class(vmpi_vm->vm, method_id);
    return owner ? (VMPI_ObjectID)(uintptr_t)owner->class_id : NULL;
}

/* JVMPI 1.2, GetThreadObject: the thread's Thread handle
 * (docs/language.md "Threads"); NULL for main in a program that starts no
 * thread, and for a thread of another VM. */
VMPI_ObjectID vmpi_get_thread_object(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env) || !vmpi_vm->thread_object) return NULL;
    return (VMPI_ObjectID)(uintptr_t)vmpi_vm->thread_object(vmpi_vm->vm, env);
}

/* JVMPI 1.4.2, jobject2jobjectID and jobjectID2jobject, over the natives'
 * global and weak global references (vmpi.h).  False if `ref` is none. */
bool vmpi_jobject_to_id(VMPI_JNIRef ref, VMPI_ObjectID *object_id) {
    const Obj *object = NULL;
    if (!vmpi_vm || !vmpi_vm->reference_object || !vmpi_vm->reference_object(vmpi_vm->vm, ref, &object)) return false;
    *object_id = (VMPI_ObjectID)(uintptr_t)object;
    return true;
}

VMPI_JNIRef vmpi_id_to_jobject(VMPI_ObjectID object) {
    if (!vmpi_vm || !vmpi_vm->reference_to) return NULL;
    return vmpi_vm->reference_to(vmpi_vm->vm, (const Obj *)(uintptr_t)object);
}

static const char *get_collector_name(void) {
    return vmpi_vm ? vmpi_vm->collector_name(vmpi_vm->vm) : NULL;
}

void vmpi_interface_init(VmpiAgent *agent, uint32_t slot) {
    const struct SlotEntryPoints *own = &slot_entry_points[slot];
    agent->vm = (VMPI_VM){.GetEnv = vmpi_guarded_get_env, .reserved = NULL};
    agent->java_vm = &vmpi_java_vm_table;
    agent->iface = (VMPI_Interface){
        .version = VMPI_VERSION_1,
        .NotifyEvent = NULL,
        .EnableEvent = own->enable_event,
        .DisableEvent = own->disable_event,
        .RequestEvent = own->request_event,
        .ProfilerExit = vmpi_exit,
        .GetCurrentThreadCpuTime = vmpi_get_current_thread_cpu_time,
        .DisableGC = vmpi_disable_gc,
        .EnableGC = vmpi_enable_gc,
        .SetHeapSamplingInterval = own->set_heap_sampling_interval,
        .GetCollectorName = get_collector_name,
    };
    vmpi_guard_fill_interface(&agent->iface);
}
