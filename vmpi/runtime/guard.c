/*
 * guard.c -- the agent interface defends itself: every VM function in an
 * agent's VMPI_Interface (and VMPI_VM's GetEnv) is a guarded entry point here
 * that checks what the agent hands it, and only then calls the
 * implementation in the file that owns the concern (threads.c,
 * raw_monitor.c, ...).  See docs/contracts.md.
 *
 * A bad argument -- a NULL pointer, an ID that names nothing live, a size,
 * depth or event number out of range -- gets the spec's error result where
 * the function has one (VMPI_ERR = JVMPI_FAIL, VMPI_NOT_AVAILABLE,
 * VMPI_EVERSION) and otherwise does nothing.  Either way the VM says so on
 * stderr, once per (agent, function, problem), so a looping agent cannot
 * flood it:
 *
 *     vmpi: agent 'libbad.so': GetCallTrace: trace is NULL
 *
 * Under --vmpi-strict (strict.h) the same bad argument is a contract
 * breach: the breach is printed and the VM exits with status 1 through its
 * normal exit (vmpi_exit), so every agent still gets JVM_SHUT_DOWN.  The
 * entry points also check strict mode's rules about when a call may be
 * made: no blocking in thread-suspended mode, no RunGC with GC disabled or
 * inside an event, no CreateSystemThread before JVM_INIT_DONE or with GC
 * disabled, no request inside a collection, no object ID with GC enabled.
 *
 * Who called.  JVMPI's functions take no "which agent" argument.  The agent
 * is, in order: the slot whose own entry point was called (EnableEvent,
 * DisableEvent, RequestEvent, SetHeapSamplingInterval and GetEnv are per
 * agent, interface.c); else the agent whose NotifyEvent or VMPI_OnLoad is
 * running on this thread (vmpi_caller, set by dispatch.c and agent_load.c);
 * else '?' (a call from an agent's own thread, outside any event).
 *
 * Cost: the checks run only when an agent calls in, never on the paths that
 * post events; a well-behaved agent pays one lookup per ID it passes.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "vmpi/control.h"
#include "dispatch.h"
#include "vmpi/jvmpi.h"
#include "strict.h"

_Thread_local VmpiAgent *vmpi_caller;

VmpiAgent *vmpi_calling_agent(void) { return vmpi_caller ? vmpi_caller : vmpi_system_thread_agent; }
_Thread_local const char *vmpi_calling;

/* ENTER(name) at the top of an entry point makes vmpi_calling name it until
 * the function returns, by any path (a cleanup variable restores the outer
 * name: an entry point may deliver events whose handlers call in again). */
static void leave_call(const char *const *outer) { vmpi_calling = *outer; }
static const char *enter_call(const char *function) {
    const char *outer = vmpi_calling;
    vmpi_calling = function;
    return outer;
}
#define ENTER(function) \
    __attribute__((cleanup(leave_call), unused)) const char *const outer_call = enter_call(function)

/* IN_VM() in an entry point that reads or writes what running threads use
 * (the heap, other threads' state, the enabled sets): called from a handler
 * that runs outside the VM (dispatch.c), the call takes the baton back
 * until it returns.  A call about the calling thread itself (env NULL or
 * its own) needs none: its own stack stands still while its handler runs. */
static void lend_back(const bool *borrowed) {
    if (*borrowed) vmpi_lend_baton_back();
}
#define IN_VM() __attribute__((cleanup(lend_back))) const bool borrowed_baton = vmpi_borrow_baton()
#define IN_VM_UNLESS_SELF(env) \
    __attribute__((cleanup(lend_back))) const bool borrowed_baton = \
        (env) && (env) != vmpi_current_env() && vmpi_borrow_baton()

const char *vmpi_agent_name(const VmpiAgent *agent) {
    return agent && agent->name[0] ? agent->name : "?";
}

/* ---- warning once -------------------------------------------------------------- */

/* The (agent, function, problem) triples already reported.  Functions and
 * problems are string literals, so pointers identify them.  When the table
 * is full, further problems are not reported: that is the flood guard. */
#define MAX_REPORTED 256

typedef struct Reported {
    const VmpiAgent *agent;
    const char *function;
    const char *problem;
} Reported;

static Reported reported[MAX_REPORTED];
static uint32_t num_reported;
static pthread_mutex_t reported_lock = PTHREAD_MUTEX_INITIALIZER;

static bool first_report(const VmpiAgent *agent, const char *function, const char *problem) {
    pthread_mutex_lock(&reported_lock);
    bool first = num_reported < MAX_REPORTED;
    for (uint32_t i = 0; first && i < num_reported; i++) {
        const Reported *r = &reported[i];
        if (r->agent == agent && r->function == function && r->problem == problem) first = false;
    }
    if (first) reported[num_reported++] = (Reported){agent, function, problem};
    pthread_mutex_unlock(&reported_lock);
    return first;
}

/* Reports `problem`, a breach of `rule` by `agent` (NULL: the caller as
 * vmpi_caller knows it) in the entry point running (ENTER): under
 * --vmpi-strict a contract breach that ends the VM, otherwise a warning,
 * once.  Returns only when not strict. */
static void refuse_as(VmpiRule rule, const VmpiAgent *agent, const char *problem) {
    const char *function = vmpi_calling;
    if (!agent) agent = vmpi_calling_agent();
    if (vmpi_strict) vmpi_breach(rule, agent, "%s", problem);
    if (first_report(agent, function, problem))
        fprintf(stderr, "vmpi: agent '%s': %s: %s\n", vmpi_agent_name(agent), function, problem);
}

/* A bad argument: refuse_as the first rule. */
static void refuse(const VmpiAgent *agent, const char *problem) {
    refuse_as(VMPI_RULE_BAD_ARGUMENT, agent, problem);
}

/* Strict mode's rule for functions that take object IDs (JVMPI 1.2 section
 * 1.4): an ID is stable only with GC disabled, by DisableGC or because the
 * event being handled was sent so. */
static void check_object_id_stable(const VmpiAgent *agent) {
    Gc *gc = vmpi_gc();
    if (vmpi_strict && gc && !vmpi_gc_held_off())
        vmpi_breach(VMPI_RULE_OBJECT_ID_GC_ENABLED, agent,
                    "an object ID passed with GC enabled (call DisableGC first)");
}

/* Strict mode's rule against blocking in thread-suspended mode (JVMPI 1.2
 * section 1.5).  `blocks`: the call may block even on a monitor this thread
 * holds (RawMonitorWait); entering a monitor already held cannot. */
static void check_may_block(VMPI_RawMonitor lock_id, bool blocks) {
    if (!vmpi_strict || !vmpi_thread_suspended()) return;
    if (blocks) vmpi_breach(VMPI_RULE_SUSPENDED_BLOCKING, NULL, "waits on a monitor");
    if (!vmpi_raw_monitor_held_by_me(lock_id))
        vmpi_breach(VMPI_RULE_SUSPENDED_BLOCKING, NULL,
                    "enters a monitor this thread does not hold (take it in GC_START)");
}

/* A RawMonitorEnter that could never return: on the GC thread, inside a
 * collection, of a monitor a program thread holds -- that thread is stopped
 * until the collection ends, and the collection waits for this handler.  A
 * JVM hangs there; gclab names it, in every mode, and ends the run.  If a
 * breach is already being reported, this is a shutdown handler meeting the
 * same monitor: the report is out, and nothing but leaving can follow. */
static void check_enter_can_return(VMPI_RawMonitor lock_id) {
    if (!vmpi_in_collection_on_gc_thread() || vmpi_raw_monitor_held_by_me(lock_id)) return;
    VMPI_ThreadID holder = vmpi_raw_monitor_holder(lock_id);
    if (!holder) return;
    if (vmpi_breach_reported) _exit(1);
    vmpi_breach(VMPI_RULE_DEADLOCK, NULL,
                "monitor '%s' is held by program thread %p, which is stopped until this collection ends",
                vmpi_raw_monitor_name(lock_id), (void *)holder);
}

/* Strict mode: a call that waits for a program thread to reach a safepoint
 * (`waits_for`), made while the caller holds a raw monitor: a program
 * thread whose handler enters that monitor never gets there (docs/contracts.md,
 * "Suspending a thread"; the deadlock of issue reports like heapster's). */
static void check_holds_no_monitor(const char *waits_for) {
    if (!vmpi_strict) return;
    const char *held = vmpi_raw_monitor_one_held_by_me();
    if (held)
        vmpi_breach(VMPI_RULE_DEADLOCK, NULL,
                    "holds monitor '%s' while it waits for %s, which a thread entering it would never reach",
                    held, waits_for);
}

/* ---- the checks ---------------------------------------------------------------- */

/* Whether `code` is an event number at all: in range, no stray bits. */
static bool is_event_code(int32_t code) { return code > 0 && code < VMPI_EVENT_CODE_LIMIT; }

static bool is_class(const void *class_id) {
    uint32_t index;
    return vmpi_vm && class_id && vmpi_vm->class_index(vmpi_vm->vm, class_id, &index);
}

/* A thread argument: false (reported) unless it names a live VM thread. */
static bool check_thread(VMPI_ThreadID env) {
    if (vmpi_is_thread(env)) return true;
    refuse(NULL, env                                ? "env is not a live thread"
                 : vmpi_in_collection_on_gc_thread() ? "env is NULL: a collection's events come on the GC thread, "
                                                       "which is no program thread"
                                                     : "env is NULL");
    return false;
}

/* A raw monitor argument: false (reported) unless RawMonitorCreate made it
 * and RawMonitorDestroy has not destroyed it. */
static bool check_monitor(VMPI_RawMonitor lock_id) {
    if (vmpi_is_raw_monitor(lock_id)) return true;
    refuse(NULL, lock_id ? "lock_id is not a live raw monitor" : "lock_id is NULL");
    return false;
}

/* The largest count SuspendThreadList / ResumeThreadList accept: far more
 * threads than a VM runs, so a larger count is a garbage number. */
#define MAX_THREAD_LIST 65536

static int32_t check_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results) {
    if (count < 0) refuse(NULL, "count is negative");
    else if (count > MAX_THREAD_LIST) refuse(NULL, "count is huge (over 65536)");
    else if (count > 0 && !threads) refuse(NULL, "threads is NULL");
    else if (count > 0 && !results) refuse(NULL, "results is NULL");
    else return VMPI_OK;
    return VMPI_ERR;
}

/* ---- per-agent entry points (interface.c generates one set per slot) ------------ */

/* GetEnv of either entry: the agent's VMPI_Interface for VMPI_VERSION_1
 * (which is JVMPI_VERSION_1) and JVMPI's later versions, whose members the
 * table has (jvmpi.h); the calling thread's ID for a JNI version, or
 * VMPI_EDETACHED on a thread that is not the VM's. */
static int32_t get_env(VmpiAgent *agent, void **penv, int32_t version) {
    if (!agent) return VMPI_ERR;
    if (!penv) {
        refuse(agent, "penv is NULL");
        return VMPI_ERR;
    }
    switch (version) {
    case VMPI_VERSION_1:
    case JVMPI_VERSION_1_1:
    case JVMPI_VERSION_1_2:
        agent->iface.version = version;
        *penv = &agent->iface;
        return VMPI_OK;
    case JNI_VERSION_1_1:
    case JNI_VERSION_1_2:
    case JNI_VERSION_1_4:
        *penv = vmpi_calling_thread();
        return *penv ? VMPI_OK : VMPI_EDETACHED;
    default:
        refuse(agent, "version is not VMPI_VERSION_1, a later JVMPI version or a JNI version");
        *penv = NULL;
        return VMPI_EVERSION;
    }
}

/* The agent a VMPI_VM (VMPI_OnLoad's) or JavaVM (JVM_OnLoad's) belongs
 * to; NULL, reported, for any other pointer. */
static VmpiAgent *agent_of_vm(const void *vm) {
    for (uint32_t i = 0; i < vmpi_num_agents; i++)
        if (vm == &vmpi_agents[i].vm || vm == &vmpi_agents[i].java_vm) return &vmpi_agents[i];
    refuse(NULL, vm ? "vm is not an agent's VMPI_VM or JavaVM" : "vm is NULL");
    return NULL;
}

int32_t vmpi_guarded_get_env(VMPI_VM *vm, void **penv, int32_t version) {
    ENTER("GetEnv");
    return get_env(agent_of_vm(vm), penv, version);
}

jint JNICALL vmpi_guarded_java_vm_get_env(JavaVM *vm, void **penv, jint version) {
    ENTER("GetEnv");
    return get_env(agent_of_vm(vm), penv, version);
}

int32_t vmpi_guarded_set_event(VmpiAgent *agent, const char *function, int32_t code, uint8_t on) {
    ENTER(function);
    IN_VM();
    if (!is_event_code(code)) {
        refuse(agent, "event_type is not an event number");
        return VMPI_NOT_AVAILABLE;
    }
    return vmpi_set_event(agent, code, on);
}

static int32_t request_event_in_vm(VmpiAgent *agent, int32_t code, void *arg);

int32_t vmpi_guarded_request_event(VmpiAgent *agent, int32_t code, void *arg) {
    ENTER("RequestEvent");
    /* A data dump is answered at the next safepoint (request.c): it may be
     * asked for at any time, from any thread. */
    if (code == VMPI_EVENT_DATA_DUMP_REQUEST) {
        if (!arg) return vmpi_request_event(agent, code, arg);
        refuse(agent, "arg is not NULL (DATA_DUMP_REQUEST takes none)");
        return VMPI_ERR;
    }
    if (!vmpi_on_system_thread) return request_event_in_vm(agent, code, arg);
    /* From an agent's own thread, the checks below and the answer read the
     * heap: the program's threads stop at a safepoint meanwhile. */
    check_holds_no_monitor("the program's threads to stop at a safepoint");
    if (!vmpi_hold_program()) return VMPI_ERR;
    int32_t result = request_event_in_vm(agent, code, arg);
    vmpi_release_program();
    return result;
}

static int32_t request_event_in_vm(VmpiAgent *agent, int32_t code, void *arg) {
    IN_VM();
    /* JVMPI 1.2 section 1.5: nothing is requested in thread-suspended mode;
     * mid-collection the heap cannot even be walked. */
    Gc *gc = vmpi_gc();
    if (gc && gc_is_collecting(gc)) {
        refuse_as(VMPI_RULE_REQUEST_IN_COLLECTION, agent,
                  "called inside a collection (between GC_START and GC_FINISH)");
        return VMPI_ERR;
    }
    const char *problem = NULL;
    switch (is_event_code(code) ? code : -1) {
    case -1:
        refuse(agent, "event_type is not an event number");
        return VMPI_NOT_AVAILABLE;
    case VMPI_EVENT_CLASS_LOAD:
        if (!is_class(arg)) problem = arg ? "arg is not a class ID" : "arg (class ID) is NULL";
        break;
    case VMPI_EVENT_THREAD_START:
        if (!vmpi_thread_named_by(arg))
            problem = arg ? "arg is neither a live thread's object nor a live thread" : "arg (thread object) is NULL";
        else if (!vmpi_is_thread(arg)) check_object_id_stable(agent); /* an object ID */
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
    case VMPI_EVENT_OBJECT_DUMP: {
        Obj *obj;
        VMPI_ArenaID arena_id;
        bool class_dump = code == VMPI_EVENT_OBJECT_DUMP && is_class(arg); /* a class ID is stable */
        if (!arg) problem = "arg (object ID) is NULL";
        else if (!class_dump && !vmpi_find_object(arg, &obj, &arena_id)) problem = "arg is not a live object ID";
        else if (!class_dump) check_object_id_stable(agent);
        break;
    }
    case VMPI_EVENT_ARENA_NEW:
        if (arg) problem = "arg is not NULL (ARENA_NEW replays every live arena)";
        break;
    case VMPI_EVENT_HEAP_DUMP: {
        const VMPI_HeapDumpArg *dump = arg;
        if (dump && (dump->heap_dump_level < VMPI_DUMP_LEVEL_0 || dump->heap_dump_level > VMPI_DUMP_LEVEL_2))
            problem = "heap_dump_level is not 0, 1 or 2";
        break;
    }
    default:
        break;
    }
    if (problem && vmpi_vm) { /* with no VM attached nothing is live: the call fails anyway */
        refuse(agent, problem);
        return VMPI_ERR;
    }
    return vmpi_request_event(agent, code, arg);
}

int32_t vmpi_guarded_set_heap_sampling_interval(VmpiAgent *agent, int32_t interval) {
    ENTER("SetHeapSamplingInterval");
    IN_VM();
    if (interval < 0) {
        refuse(agent, "sampling_interval is negative");
        return VMPI_ERR;
    }
    return vmpi_set_heap_sampling_interval(agent, interval);
}

/* ---- shared entry points ---------------------------------------------------------- */

static void guarded_get_call_trace(VMPI_CallTrace *trace, int32_t depth) {
    ENTER("GetCallTrace");
    IN_VM_UNLESS_SELF(trace ? trace->env_id : NULL);
    const char *problem = NULL;
    if (!trace) problem = "trace is NULL";
    else if (depth < 0) problem = "depth is negative";
    else if (depth > 0 && !trace->frames) problem = "trace->frames is NULL";
    else if (trace->env_id && !vmpi_is_thread_or_current(trace->env_id, vmpi_current_env())) problem = "trace->env_id is not a live thread";
    if (!problem) {
        vmpi_get_call_trace(trace, depth);
        return;
    }
    if (trace) trace->num_frames = 0;
    refuse(NULL, problem);
}

static int32_t guarded_enable_call_sites(int32_t depth) {
    ENTER("EnableCallSites");
    IN_VM();
    if (depth < 1 || depth > VMPI_MAX_CALL_SITE_DEPTH) {
        refuse(NULL, "depth is out of range");
        return VMPI_ERR;
    }
    return vmpi_enable_call_sites(depth);
}

static VMPI_CallSiteID guarded_get_call_site(VMPI_ThreadID env) {
    ENTER("GetCallSite");
    IN_VM_UNLESS_SELF(env);
    if (env && !vmpi_is_thread_or_current(env, vmpi_current_env())) {
        refuse(NULL, "env is not a live thread");
        return 0;
    }
    return vmpi_get_call_site(env);
}

static int32_t guarded_get_call_site_frames(VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t depth) {
    ENTER("GetCallSiteFrames");
    const char *problem = NULL;
    if (depth < 0) problem = "depth is negative";
    else if (depth > 0 && !frames) problem = "frames is NULL";
    if (!problem) {
        int32_t n = vmpi_get_call_site_frames(site, frames, depth);
        if (n >= 0) return n;
        problem = "site names no call site";
    }
    refuse(NULL, problem);
    return 0;
}

static VMPI_RawMonitor guarded_raw_monitor_create(char *lock_name) {
    ENTER("RawMonitorCreate");
    if (!lock_name) {
        refuse(NULL, "lock_name is NULL");
        return NULL;
    }
    return vmpi_raw_monitor_create(lock_name);
}

static void guarded_raw_monitor_enter(VMPI_RawMonitor lock_id) {
    ENTER("RawMonitorEnter");
    if (!check_monitor(lock_id)) return;
    check_may_block(lock_id, false);
    check_enter_can_return(lock_id);
    vmpi_raw_monitor_enter(lock_id);
}

static void guarded_raw_monitor_exit(VMPI_RawMonitor lock_id) {
    ENTER("RawMonitorExit");
    if (!check_monitor(lock_id)) return;
    if (vmpi_raw_monitor_held_by_me(lock_id)) vmpi_raw_monitor_exit(lock_id);
    else refuse(NULL, "the calling thread does not own lock_id");
}

static void guarded_raw_monitor_wait(VMPI_RawMonitor lock_id, int64_t ms) {
    ENTER("RawMonitorWait");
    if (!check_monitor(lock_id)) return;
    check_may_block(lock_id, true);
    if (vmpi_raw_monitor_held_by_me(lock_id)) vmpi_raw_monitor_wait(lock_id, ms);
    else refuse(NULL, "the calling thread does not own lock_id");
}

static void guarded_raw_monitor_notify_all(VMPI_RawMonitor lock_id) {
    ENTER("RawMonitorNotifyAll");
    if (check_monitor(lock_id)) vmpi_raw_monitor_notify_all(lock_id);
}

static void guarded_raw_monitor_destroy(VMPI_RawMonitor lock_id) {
    ENTER("RawMonitorDestroy");
    if (check_monitor(lock_id)) vmpi_raw_monitor_destroy(lock_id);
}

static void guarded_suspend_thread(VMPI_ThreadID env) {
    ENTER("SuspendThread");
    if (!check_thread(env)) return;
    if (vmpi_suspension_waits(env)) check_holds_no_monitor("the thread to stop at a safepoint");
    vmpi_suspend_thread(env);
}

static void guarded_resume_thread(VMPI_ThreadID env) {
    ENTER("ResumeThread");
    IN_VM();
    if (check_thread(env)) vmpi_resume_thread(env);
}

static int32_t guarded_get_thread_status(VMPI_ThreadID env) {
    ENTER("GetThreadStatus");
    IN_VM_UNLESS_SELF(env);
    return check_thread(env) ? vmpi_get_thread_status(env) : 0;
}

static int32_t guarded_thread_has_run(VMPI_ThreadID env) {
    ENTER("ThreadHasRun");
    IN_VM_UNLESS_SELF(env);
    return check_thread(env) ? vmpi_thread_has_run(env) : 0;
}

static int32_t guarded_suspend_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results) {
    ENTER("SuspendThreadList");
    if (check_thread_list(count, threads, results) != VMPI_OK) return VMPI_ERR;
    for (int32_t i = 0; i < count; i++)
        if (vmpi_is_thread(threads[i]) && vmpi_suspension_waits(threads[i]))
            check_holds_no_monitor("the threads to stop at a safepoint");
    return vmpi_suspend_thread_list(count, threads, results);
}

static int32_t guarded_resume_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results) {
    ENTER("ResumeThreadList");
    IN_VM();
    if (check_thread_list(count, threads, results) != VMPI_OK) return VMPI_ERR;
    return vmpi_resume_thread_list(count, threads, results);
}

static int32_t guarded_create_system_thread(char *name, int32_t priority, void (*f)(void *)) {
    ENTER("CreateSystemThread");
    if (!f || !name) {
        refuse(NULL, f ? "name is NULL" : "f is NULL");
        return VMPI_ERR;
    }
    /* JVMPI 1.2: JVMPI_MINIMUM_PRIORITY (1) to JVMPI_MAXIMUM_PRIORITY (10);
     * VMPI's agents have always passed 0, the normal priority. */
    if (priority < 0 || priority > JVMPI_MAXIMUM_PRIORITY) {
        refuse(NULL, "priority is not a JVMPI priority (1 to 10, or 0 for normal)");
        return VMPI_ERR;
    }
    Gc *gc = vmpi_gc();
    if (vmpi_strict && !vmpi_jvm_init_done)
        vmpi_breach(VMPI_RULE_SYSTEM_THREAD, NULL, "called before JVM_INIT_DONE");
    if (vmpi_strict && gc && vmpi_gc_held_off())
        vmpi_breach(VMPI_RULE_SYSTEM_THREAD, NULL, "GC is disabled (JVMPI 1.2 section 1.5)");
    if (gc && gc_is_collecting(gc)) {
        refuse(NULL, "called inside a collection (between GC_START and GC_FINISH): no thread object can be made");
        return VMPI_ERR;
    }
    return vmpi_create_system_thread(name, priority, f);
}

static void guarded_set_thread_local_storage(VMPI_ThreadID env, void *ptr) {
    ENTER("SetThreadLocalStorage");
    IN_VM_UNLESS_SELF(env);
    if (check_thread(env)) vmpi_set_thread_local_storage(env, ptr);
}

static void *guarded_get_thread_local_storage(VMPI_ThreadID env) {
    ENTER("GetThreadLocalStorage");
    IN_VM_UNLESS_SELF(env);
    return check_thread(env) ? vmpi_get_thread_local_storage(env) : NULL;
}

static VMPI_ObjectID guarded_get_thread_object(VMPI_ThreadID env) {
    ENTER("GetThreadObject");
    IN_VM_UNLESS_SELF(env);
    return check_thread(env) ? vmpi_get_thread_object(env) : NULL;
}

static VMPI_ObjectID guarded_get_method_class(VMPI_MethodID method_id) {
    ENTER("GetMethodClass");
    if (!method_id) {
        refuse(NULL, "method_id is NULL");
        return NULL;
    }
    VMPI_ObjectID class_id = vmpi_get_method_class(method_id);
    if (!class_id && vmpi_vm) refuse(NULL, "method_id is not a method ID");
    return class_id;
}

/* JVMPI 1.4.2 says both may only be called with GC disabled: strict mode
 * holds them to it as it does RequestEvent with an object ID. */
static VMPI_JNIRef guarded_id_to_jobject(VMPI_ObjectID object) {
    ENTER("jobjectID2jobject");
    IN_VM();
    Obj *obj;
    VMPI_ArenaID arena_id;
    if (!object || (vmpi_vm && !vmpi_find_object(object, &obj, &arena_id))) {
        refuse(NULL, object ? "jid is not a live object ID" : "jid is NULL");
        return NULL;
    }
    check_object_id_stable(NULL);
    return vmpi_id_to_jobject(object);
}

static VMPI_ObjectID guarded_jobject_to_id(VMPI_JNIRef ref) {
    ENTER("jobject2jobjectID");
    IN_VM();
    if (!ref) {
        refuse(NULL, "j is NULL");
        return NULL;
    }
    check_object_id_stable(NULL);
    VMPI_ObjectID object = NULL;
    if (!vmpi_jobject_to_id(ref, &object) && vmpi_vm) refuse(NULL, "j is not a native's global or weak global reference");
    return object;
}

static int32_t guarded_get_object_monitor_usage(VMPI_ObjectID object, VMPI_MonitorUsage *usage) {
    ENTER("GetObjectMonitorUsage");
    IN_VM();
    Obj *obj;
    VMPI_ArenaID arena_id;
    const char *problem = NULL;
    if (!usage) problem = "usage is NULL";
    else if (usage->capacity < 0) problem = "usage->capacity is negative";
    else if (usage->capacity > 0 && (!usage->entering || !usage->waiting)) problem = "usage->entering or usage->waiting is NULL";
    else if (!object) problem = "object is NULL";
    else if (!vmpi_vm || !vmpi_find_object(object, &obj, &arena_id)) problem = "object is not a live object ID";
    else if (!vmpi_current_env()) problem = "called from a thread the VM does not run (monitors are read on VM threads)";
    if (problem) {
        refuse(NULL, problem);
        return VMPI_ERR;
    }
    check_object_id_stable(NULL);
    vmpi_get_object_monitor_usage(object, usage);
    return VMPI_OK;
}

static int32_t guarded_get_thread_info(VMPI_ThreadID env, VMPI_ThreadInfo *info) {
    ENTER("GetThreadInfo");
    IN_VM_UNLESS_SELF(env);
    if (!info) {
        refuse(NULL, "info is NULL");
        return VMPI_ERR;
    }
    return check_thread(env) ? vmpi_get_thread_info(env, info) : VMPI_ERR;
}

/* RunGC takes no argument; it is entered here so that a crash in the
 * collection it starts names it, and so that strict mode refuses it while
 * GC is disabled (JVMPI 1.2, RunGC) and inside an event, where the heap the
 * event describes must not change under the handler. */
static void guarded_run_gc(void) {
    ENTER("RunGC");
    Gc *gc = vmpi_gc();
    /* From a system thread the collection waits for a safepoint, where
     * RunGC checks again: the VM thread's state now is not its then. */
    if (vmpi_strict && gc && !vmpi_run_gc_at_safepoint() && vmpi_gc_held_off())
        vmpi_breach(VMPI_RULE_RUN_GC, NULL, vmpi_gc_disabled_by() ? "GC is disabled by DisableGC"
                                                                   : "GC is disabled: the event is sent with GC disabled");
    if (vmpi_strict && vmpi_delivering) vmpi_breach(VMPI_RULE_RUN_GC, NULL, "called inside an event handler");
    if (vmpi_run_gc_at_safepoint()) check_holds_no_monitor("the program to reach a safepoint");
    vmpi_run_gc();
}

void vmpi_guard_fill_interface(VMPI_Interface *iface) {
    iface->RunGC = guarded_run_gc;
    iface->jobjectID2jobject = guarded_id_to_jobject;
    iface->jobject2jobjectID = guarded_jobject_to_id;
    iface->GetCallTrace = guarded_get_call_trace;
    iface->EnableCallSites = guarded_enable_call_sites;
    iface->GetCallSite = guarded_get_call_site;
    iface->GetCallSiteFrames = guarded_get_call_site_frames;
    iface->RawMonitorCreate = guarded_raw_monitor_create;
    iface->RawMonitorEnter = guarded_raw_monitor_enter;
    iface->RawMonitorExit = guarded_raw_monitor_exit;
    iface->RawMonitorWait = guarded_raw_monitor_wait;
    iface->RawMonitorNotifyAll = guarded_raw_monitor_notify_all;
    iface->RawMonitorDestroy = guarded_raw_monitor_destroy;
    iface->SuspendThread = guarded_suspend_thread;
    iface->ResumeThread = guarded_resume_thread;
    iface->GetThreadStatus = guarded_get_thread_status;
    iface->ThreadHasRun = guarded_thread_has_run;
    iface->CreateSystemThread = guarded_create_system_thread;
    iface->SetThreadLocalStorage = guarded_set_thread_local_storage;
    iface->GetThreadLocalStorage = guarded_get_thread_local_storage;
    iface->GetThreadObject = guarded_get_thread_object;
    iface->GetMethodClass = guarded_get_method_class;
    iface->SuspendThreadList = guarded_suspend_thread_list;
    iface->ResumeThreadList = guarded_resume_thread_list;
    iface->GetObjectMonitorUsage = guarded_get_object_monitor_usage;
    iface->GetThreadInfo = guarded_get_thread_info;
}
