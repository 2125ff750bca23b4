/*
 * dispatch.h -- what the files of vmpi/ share with each other and with
 * nobody else: the table of loaded agents, event delivery, and the entry
 * points of the interface functions each file implements.
 *
 * Invariants.
 *
 *   vmpi_agents_enabled[code] is non-zero exactly when some loaded agent has
 *   `code` in its own enabled set, and vmpi_enabled[code] when that agent or
 *   the VM's recorder (recorder.h) wants the event; vmpi_refresh_enabled
 *   re-establishes both (and
 *   the collectors' gc_event_wanted, and
 *   gc/event_port.h's gc_alloc_event_countdown, which stands for OBJECT_ALLOC
 *   and SAMPLED_OBJECT_ALLOC on the allocation fast path) after every
 *   change to an agent's set.
 *
 *   Agents are kept in load order in vmpi_agents[0 .. vmpi_num_agents), and
 *   an event goes to each agent that enabled it in that order.  Each agent
 *   has its own copy of the VMPI_Interface: JVMPI's EnableEvent and friends
 *   take no "which agent" argument, so every slot has its own entry points
 *   (interface.c) that know their slot.
 *
 *   Several agents may be loaded at once (JVMPI 1.2 section 1 allows one;
 *   gclab allows VMPI_MAX_AGENTS, e.g. -agentlib:check -agentlib:trace).
 *
 * Event records are built on the C stack: OBJECT_FREE, OBJECT_MOVE and
 * ARENA_DELETE are sent in thread-suspended mode (JVMPI 1.2 section 1.5),
 * where nothing may call malloc.
 */
#ifndef GCLAB_VMPI_DISPATCH_H
#define GCLAB_VMPI_DISPATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "gc/gc.h"
#include "heap_sampling.h"
#include "vmpi/jni.h"
#include "vmpi/post.h"
#include "vmpi/vm_services.h"
#include "vmpi/vmpi.h"

typedef struct VmpiAgent {
    VMPI_VM vm;                 /* handed to VMPI_OnLoad; its GetEnv finds this record */
    JavaVM java_vm;             /* handed to JVM_OnLoad (jvmpi.h): (*jvm)->GetEnv finds this record */
    VMPI_Interface iface;       /* what GetEnv returns; NotifyEvent is the agent's */
    uint8_t enabled[VMPI_EVENT_CODE_LIMIT];
    int32_t sampling_interval;  /* SetHeapSamplingInterval bytes (512 KiB until set) */
    uint64_t sampling_generation; /* heap_sampling.c: taken anew at each change */
    bool shut_down;             /* JVM_SHUT_DOWN has been offered to it */
    atomic_bool data_dump_requested; /* RequestEvent(DATA_DUMP_REQUEST) awaits a safepoint */
    void *library;              /* dlopen handle; NULL for in-process listeners */
    char *options;              /* malloc'd copy given to VMPI_OnLoad, or NULL */
    char name[64];              /* for messages: the library's file name or the
                                   -agentlib NAME; "listener N" in-process */
} VmpiAgent;

extern VmpiAgent vmpi_agents[VMPI_MAX_AGENTS];
extern uint32_t vmpi_num_agents;

/* The services of the VM whose threads, classes and collector the interface
 * acts on (vm_services.h): NULL before vmpi_attach_vm, and in unit tests
 * that attach none. */
extern const VmpiVmServices *vmpi_vm;

/* Asks the VM for `work` at its next safepoint; nothing before the VM is
 * attached or when it cannot stop its threads (a mock VM). */
static inline void vmpi_request_safepoint(VmpiSafepointWork work) {
    if (vmpi_vm && vmpi_vm->request_safepoint) vmpi_vm->request_safepoint(vmpi_vm->vm, work);
}

/* The attached VM's collector, or NULL. */
static inline Gc *vmpi_gc(void) { return vmpi_vm ? vmpi_vm->collector(vmpi_vm->vm) : NULL; }

/* An event's env_id: the VM thread running now, NULL on a thread the VM
 * does not run or with no VM attached. */
static inline VMPI_ThreadID vmpi_current_env(void) {
    return vmpi_vm ? vmpi_vm->current_thread(vmpi_vm->vm) : NULL;
}

/* ---- agents and delivery (dispatch.c) ------------------------------------ */

/* Claims the next slot for an agent, with an interface whose VM functions
 * are all set and NotifyEvent NULL.  NULL if all are taken. */
VmpiAgent *vmpi_agent_claim(void);

/* Gives back the most recently claimed slot (its VMPI_OnLoad failed). */
void vmpi_agent_release_last(void);

/* Whether `agent` gets SAMPLED_OBJECT_ALLOC (heap_sampling.h). */
static inline bool vmpi_wants_samples(const VmpiAgent *agent) {
    return agent->enabled[VMPI_EVENT_SAMPLED_OBJECT_ALLOC];
}

/* Whether some agent enabled the event (vmpi_enabled: or the recorder). */
extern uint8_t vmpi_agents_enabled[VMPI_EVENT_CODE_LIMIT];

/* Recomputes vmpi_enabled[code] (and what depends on it) from the agents
 * and the recorder. */
void vmpi_refresh_enabled(int32_t code);

/* The agent whose RequestEvent is running on this thread, if any: requested
 * events (VMPI_REQUESTED_EVENT set) go to it alone (JVMPI 1.2, RequestEvent:
 * "the requested event is sent in the same thread that issued the call"). */
extern _Thread_local VmpiAgent *vmpi_requester;

/* The agent whose NotifyEvent or VMPI_OnLoad is running on this thread, if
 * any: whom guard.c blames for a bad argument, and whom a crash report
 * names (crash.c).  vmpi_delivering is the event it is being given (NULL in
 * VMPI_OnLoad). */
extern _Thread_local VmpiAgent *vmpi_caller;
/* The agent calling on this thread: vmpi_caller, or on an agent's system
 * thread the agent that started it; NULL if unknown. */
VmpiAgent *vmpi_calling_agent(void);
extern _Thread_local const VMPI_Event *vmpi_delivering;

/* The VMPI function an agent has called on this thread and that has not
 * returned (guard.c's entry points set it), or NULL: for warnings and the
 * crash report. */
extern _Thread_local const char *vmpi_calling;

/* Calls one agent's NotifyEvent with a private copy of `event`. */
void vmpi_deliver(VmpiAgent *agent, const VMPI_Event *event);
/* The same, for an event whose record is also the agent's answer
 * (CLASS_LOAD_HOOK): *answer gets the copy as the agent left it. */
void vmpi_deliver_answered(VmpiAgent *agent, const VMPI_Event *event, VMPI_Event *answer);

/* Sends `event` to every agent that enabled its type, in load order, or to
 * the requester alone if it is a requested event.  With `with_gc_disabled` the collector is
 * disabled around the calls: JVMPI 1.2 section 1.4 sends every event
 * carrying an object ID with GC disabled, and gclab does the same for the
 * events of a collection, so that RunGC is refused there. */
void vmpi_dispatch(const VMPI_Event *event, bool with_gc_disabled);

/* Handlers outside the VM (dispatch.c, docs/architecture.md "Threads").
 * vmpi_borrow_baton, in an entry point that needs the VM still, takes the
 * baton back for the call when the caller is a handler run outside and
 * says whether it did; vmpi_lend_baton_back gives it away again. */
bool vmpi_borrow_baton(void);
void vmpi_lend_baton_back(void);
/* A handler that holds the VM is about to block on a raw monitor: lends
 * the VM to the handlers that wait to borrow it (whether it did), and
 * takes it back after. */
bool vmpi_lend_vm_while_blocked(void);
void vmpi_take_vm_back(void);

/* GC is held off for a call on this thread: by DisableGC, by the event
 * being delivered with GC disabled, or by a handler run outside the VM. */
bool vmpi_gc_held_off(void);

/* ---- building events (events.c) ------------------------------------------ */

/* Fills an OBJECT_ALLOC record for `obj` (also used by RequestEvent). */
void vmpi_fill_object_alloc(VMPI_Event *event, VMPI_ArenaID arena_id, const Obj *obj, size_t size);

/* Sets only OBJECT_ALLOC's JVMPI fields of `event` (not site, nor the
 * rest of the record): what the recorder writes (recorder.h). */
static inline void vmpi_set_object_alloc_fields(VMPI_Event *event, VMPI_ArenaID arena_id, const Obj *obj,
                                                size_t size) {
    const RtClass *cls = obj->cls;
    /* JVMPI 1.2, OBJECT_ALLOC: class_id is the element class when is_array
     * is JVMPI_CLASS; ElemKind values are the is_array codes (object.h). */
    const RtClass *named = cls->elem_kind == ELEM_REF && cls->elem_class ? cls->elem_class : cls;
    event->u.obj_alloc.arena_id = arena_id;
    event->u.obj_alloc.class_id = (VMPI_ObjectID)(uintptr_t)named->class_id;
    event->u.obj_alloc.is_array = (int32_t)cls->elem_kind;
    event->u.obj_alloc.size = size > INT32_MAX ? INT32_MAX : (int32_t)size;
    event->u.obj_alloc.obj_id = (VMPI_ObjectID)(uintptr_t)obj;
}

/* What vmpi listens to the collector with (events.c), from the first agent
 * or VM on; and the live arenas it records as they come (arenas.c). */
extern const GcEventListener vmpi_gc_listener;
void vmpi_record_arena_new(VMPI_ArenaID arena_id, const char *arena_name);
void vmpi_record_arena_delete(VMPI_ArenaID arena_id);

/* ---- the interface functions (one file per concern) ----------------------- */

/* interface.c: fills `agent->iface` with the entry points of slot `slot`. */
void vmpi_interface_init(VmpiAgent *agent, uint32_t slot);

/* interface.c: ProfilerExit.  Exits through the attached VM (which flushes
 * its output and shuts agents down), or with no VM shuts VMPI down and
 * exits itself. */
_Noreturn void vmpi_exit(int32_t status);

/* interface.c: the implementations behind guard.c's entry points. */
int32_t vmpi_set_event(VmpiAgent *agent, int32_t code, uint8_t on);
int32_t vmpi_set_heap_sampling_interval(VmpiAgent *agent, int32_t interval);
VMPI_ObjectID vmpi_get_method_class(VMPI_MethodID method_id);
VMPI_ObjectID vmpi_get_thread_object(VMPI_ThreadID env);
bool vmpi_jobject_to_id(VMPI_JNIRef ref, VMPI_ObjectID *object_id);
VMPI_JNIRef vmpi_id_to_jobject(VMPI_ObjectID object);

/* runtime/jvmpi.c: the invocation table a JVMPI agent's JavaVM points to. */
extern const struct JNIInvokeInterface_ vmpi_java_vm_table;

/* guard.c: the checked entry points (see its top comment).  The per-agent
 * ones are called by interface.c's per-slot functions; the rest are put in
 * an interface by vmpi_guard_fill_interface. */
int32_t vmpi_guarded_get_env(VMPI_VM *vm, void **penv, int32_t version);
jint JNICALL vmpi_guarded_java_vm_get_env(JavaVM *vm, void **penv, jint version);
int32_t vmpi_guarded_set_event(VmpiAgent *agent, const char *function, int32_t code, uint8_t on);
int32_t vmpi_guarded_request_event(VmpiAgent *agent, int32_t code, void *arg);
int32_t vmpi_guarded_set_heap_sampling_interval(VmpiAgent *agent, int32_t interval);
void vmpi_guard_fill_interface(VMPI_Interface *iface);
/* The agent's name for messages ("?" for NULL). */
const char *vmpi_agent_name(const VmpiAgent *agent);

/* crash.c: installs the SIGSEGV/SIGBUS/SIGFPE/SIGILL crash report (once;
 * agent_load.c calls it before the first VMPI_OnLoad). */
void vmpi_install_crash_report(void);

/* request.c */
int32_t vmpi_request_event(VmpiAgent *agent, int32_t event_type, void *arg);

/* heap_dump.c: the dump buffers of HEAP_DUMP and OBJECT_DUMP (JVMPI 1.2
 * section 4).  Each returns VMPI_OK after sending the event to the requester,
 * VMPI_ERR if no VM is attached, `object_id` names no object or class, or
 * memory ran out. */
int32_t vmpi_send_heap_dump(int32_t level);
int32_t vmpi_send_object_dump(const void *object_id);

/* monitor_dump.c: MONITOR_DUMP to the requester (JVMPI 1.2 section 4.4);
 * VMPI_ERR if no VM is attached or memory ran out. */
int32_t vmpi_send_monitor_dump(void);
/* GetObjectMonitorUsage of a live object, unchecked (guard.c checks an
 * agent's); called on a VM thread, which alone may read monitors. */
void vmpi_get_object_monitor_usage(const void *object, VMPI_MonitorUsage *usage);

/* object_index.c: finds the live object whose ID is `object_id`, and its
 * arena, in an index of the live objects that one heap walk builds and that
 * serves until the heap changes; false if no live object has that ID (and
 * always mid-collection). */
bool vmpi_find_object(const void *object_id, Obj **obj, VMPI_ArenaID *arena_id);

/* arenas.c: the live arenas, recorded from every ARENA_NEW and ARENA_DELETE
 * (post.h).  vmpi_replay_arenas sends the requester one ARENA_NEW with
 * VMPI_REQUESTED_EVENT per live arena, oldest first; vmpi_forget_arenas
 * empties the table (a VM attaches or detaches).  vmpi_arena_generation
 * advances at each of these changes. */
void vmpi_replay_arenas(void);
void vmpi_forget_arenas(void);
extern uint64_t vmpi_arena_generation;

/* gc_control.c */
void vmpi_disable_gc(void);
void vmpi_enable_gc(void);
void vmpi_run_gc(void);
/* Whether RunGC, called on this thread, waits for a safepoint to collect
 * at (an agent's system thread), where its checks are made. */
bool vmpi_run_gc_at_safepoint(void);
/* The VM is shutting down (true; dispatch.c, before JVM_SHUT_DOWN): a RunGC
 * waiting for a safepoint gives up; or a new VM attached (false). */
void vmpi_run_gc_shutting_down(bool shutting_down);

/* program_hold.c: on an agent's system thread, stops the program's threads
 * at a safepoint (after the threads in handlers are back) for a request
 * that reads the heap; false if the VM shuts down first.  Every true is
 * followed by vmpi_release_program.  shutting_down: as vmpi_run_gc's. */
bool vmpi_hold_program(void);
void vmpi_release_program(void);
/* Whether a system thread waits for the program to stop, or has it stopped
 * (the hang watch's report). */
bool vmpi_hold_wanted(void);
void vmpi_hold_shutting_down(bool shutting_down);

/* threads.c */
/* Whether `env` names one of the attached VM's threads (any pointer may be
 * given: it is looked up, never followed). */
bool vmpi_is_thread(VMPI_ThreadID env);
/* The live thread that `thread_or_object` names, as its thread object's
 * ID (JVMPI's RequestEvent(THREAD_START)) or as its own ID; else NULL. */
VMPI_ThreadID vmpi_thread_named_by(const void *thread_or_object);
/* The same, true at once when `env` is `current`, the calling thread's
 * (vmpi_current_env): the check GetCallTrace makes at every allocation. */
bool vmpi_is_thread_or_current(VMPI_ThreadID env, VMPI_ThreadID current);
/* GetCallTrace of a thread the caller knows is live (or NULL, the calling
 * thread), unchecked: guard.c checks an agent's. */
void vmpi_get_call_trace(VMPI_CallTrace *trace, int32_t depth);
/* The call-site extension (vmpi.h, EnableCallSites), unchecked: a thread
 * given is live; GetCallSiteFrames gives -1 for an ID that names no site. */
int32_t vmpi_enable_call_sites(int32_t depth);
/* Whether the VM keeps call sites: OBJECT_ALLOC then carries its site. */
extern bool vmpi_call_sites_on;
/* At attach (or detach): the call sites agents asked for before the VM
 * existed. */
void vmpi_serve_call_sites(void);
VMPI_CallSiteID vmpi_get_call_site(VMPI_ThreadID env);
int32_t vmpi_get_call_site_frames(VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t depth);
int64_t vmpi_get_current_thread_cpu_time(void);
void vmpi_suspend_thread(VMPI_ThreadID env);
void vmpi_resume_thread(VMPI_ThreadID env);
int32_t vmpi_get_thread_status(VMPI_ThreadID env);
int32_t vmpi_thread_has_run(VMPI_ThreadID env);
/* Every VM thread belongs to this thread group (THREAD_START, GetThreadInfo). */
#define VMPI_THREAD_GROUP "main"
/* GetThreadInfo of a live thread, unchecked (guard.c checks an agent's). */
int32_t vmpi_get_thread_info(VMPI_ThreadID env, VMPI_ThreadInfo *info);
/* Whether this OS thread is an agent's system thread (CreateSystemThread). */
extern _Thread_local bool vmpi_on_system_thread;
/* On a system thread, the agent whose CreateSystemThread started it. */
extern _Thread_local VmpiAgent *vmpi_system_thread_agent;
/* The calling thread's ID, what GetEnv(JNI_VERSION_1_2) gives: the VM
 * thread running here (vmpi_current_env), or the system thread this is;
 * NULL on any other OS thread. */
VMPI_ThreadID vmpi_calling_thread(void);
/* The VM is shutting down: no thread will reach a safepoint again, so a
 * SuspendThread waiting for one gives up (dispatch.c, before JVM_SHUT_DOWN). */
void vmpi_threads_shut_down(void);
/* Whether the caller is a handler of a collection's events, on the VM's GC
 * thread: every program thread then waits for the collection, stopped
 * already, and none can reach a safepoint or leave a lock before it ends
 * (so waiting for one to park, or for a monitor it holds, would never end). */
bool vmpi_in_collection_on_gc_thread(void);
/* Whether SuspendThread(env) from the calling thread waits for env to stop
 * at a safepoint (or is bookkeeping only: docs/architecture.md). */
bool vmpi_suspension_waits(VMPI_ThreadID env);
/* A new VM attached: no thread is suspended or ended. */
void vmpi_forget_threads(void);
int32_t vmpi_suspend_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results);
int32_t vmpi_resume_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results);
int32_t vmpi_create_system_thread(char *name, int32_t priority, void (*f)(void *));
/* Waits up to `timeout_ms` for every system thread to return from its
 * agent's function; false if one is still in it (its code must stay
 * loaded). */
bool vmpi_system_threads_returned(int timeout_ms);
void vmpi_set_thread_local_storage(VMPI_ThreadID env, void *ptr);
void *vmpi_get_thread_local_storage(VMPI_ThreadID env);

/* raw_monitor.c */
/* Whether `lock_id` is a monitor created and not destroyed (looked up,
 * never followed), and whether the calling thread holds a live one. */
bool vmpi_is_raw_monitor(VMPI_RawMonitor lock_id);
bool vmpi_raw_monitor_held_by_me(VMPI_RawMonitor lock_id);
VMPI_RawMonitor vmpi_raw_monitor_create(char *lock_name);
void vmpi_raw_monitor_enter(VMPI_RawMonitor lock_id);
void vmpi_raw_monitor_exit(VMPI_RawMonitor lock_id);
void vmpi_raw_monitor_wait(VMPI_RawMonitor lock_id, int64_t ms);
void vmpi_raw_monitor_notify_all(VMPI_RawMonitor lock_id);
void vmpi_raw_monitor_destroy(VMPI_RawMonitor lock_id);
/* A live monitor's name, and the program thread holding it (NULL when it
 * is free or held by a thread that runs no program). */
const char *vmpi_raw_monitor_name(VMPI_RawMonitor lock_id);
VMPI_ThreadID vmpi_raw_monitor_holder(VMPI_RawMonitor lock_id);
/* The name of a monitor the calling thread holds, or NULL if it holds none. */
const char *vmpi_raw_monitor_one_held_by_me(void);
/* A live raw monitor as the calling thread sees it: whether it holds it,
 * and how many entries, threads waiting to enter and threads waiting to be
 * notified it has (JVMPI 1.2 section 4.4). */
typedef struct VmpiRawMonitorView {
    const char *name;
    VMPI_RawMonitor id;
    bool held_by_caller;
    uint32_t entries;
    uint32_t waiting_to_enter, waiting_to_be_notified;
} VmpiRawMonitorView;
void vmpi_raw_monitor_each(void (*visit)(const VmpiRawMonitorView *view, void *ctx), void *ctx);

/* heap_dump.c: one call trace per VM thread (the caller frees them with
 * vmpi_free_traces, and fails if fewer than the threads were made). */
VMPI_CallTrace *vmpi_thread_traces(int32_t *num_traces);
void vmpi_free_traces(VMPI_CallTrace *traces, int32_t num_traces);

#endif
