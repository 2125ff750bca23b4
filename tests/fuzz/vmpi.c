/*
 * vmpi.c -- fuzz harness: the agent interface.  An in-process agent
 * (vmpi_register_listener) enables the events the input chooses, then a
 * small program runs under the collector the input chooses, with
 * --gc-stress; from inside every event it receives, the agent makes the
 * calls the input spells, with the arguments it spells: IDs it was given,
 * NULL, stale or made-up IDs, out-of-range event numbers, negative and huge
 * sizes and depths.  Whatever an agent hands VMPI must never crash the VM, trip
 * a sanitizer or leak.
 *
 * The input is read as a script, byte by byte: the collector, a mask of
 * events to enable, then for each event delivered a count of calls and
 * each call's operation and arguments.  When the script runs out, the agent
 * only listens.
 *
 * Two calls are never made: ProfilerExit ends the process by contract, and
 * CreateSystemThread starts a thread that outlives one input.  And no
 * monitor stays entered after the handler that entered it returns.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finding.h"
#include "gc/gc.h"
#include "vm/compiler/compiler.h"
#include "vm/vm.h"
#include "vmpi/control.h"
#include "vmpi/runtime/dispatch.h"
#include "vmpi/post.h"

/* Allocates objects, arrays and strings, calls methods, and keeps some of
 * it reachable, so collections have live and dead objects to work on. */
static const char program_source[] =
    "class Node { Node next; int value; string name; }\n"
    "Node keep;\n"
    "Node push(Node list, int i) { Node n = new Node(); n.next = list; n.value = i; n.name = \"n\" + i; return n; }\n"
    "int main() {\n"
    "    Node list = null;\n"
    "    for (int i = 0; i < 40; i++) {\n"
    "        list = push(list, i);\n"
    "        int[] a = new int[i];\n"
    "        if (i % 8 == 0) keep = list;\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

/* ---- the script ----------------------------------------------------------------- */

static const uint8_t *script;
static size_t script_left;

static uint8_t next_byte(void) {
    if (script_left == 0) return 0;
    script_left--;
    return *script++;
}

static int32_t next_i32(void) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | next_byte();
    return (int32_t)v;
}

/* A small number most of the time, any 32-bit value sometimes. */
static int32_t next_count(void) {
    uint8_t b = next_byte();
    return b < 0xf0 ? (int32_t)(b % 20) - 4 : next_i32();
}

/* ---- the IDs the agent has seen ------------------------------------------------------ */

enum { MAX_MONITORS = 8 };
static struct {
    VMPI_ThreadID env;
    VMPI_ObjectID object, class_id;
    VMPI_MethodID method;
    VMPI_RawMonitor monitors[MAX_MONITORS];
    int num_monitors;
} seen;

/* How an ID argument is chosen. */
typedef enum IdKind { ID_SEEN, ID_NULL, ID_GARBAGE } IdKind;

static IdKind next_id_kind(void) {
    uint8_t b = next_byte();
    return b < 0xc0 ? ID_SEEN : b < 0xe0 ? ID_NULL : ID_GARBAGE;
}

/* An ID of the kind given: the one seen, NULL, or an address that is no ID
 * (inside the agent's own data, so reading it is no crash in itself). */
static void *pick_id(IdKind kind, void *seen_id) {
    static uint64_t not_an_id[8];
    switch (kind) {
    case ID_SEEN: return seen_id;
    case ID_NULL: return NULL;
    default: return &not_an_id[next_byte() % 8];
    }
}

static void forget_monitor(VMPI_RawMonitor monitor) {
    for (int i = 0; i < seen.num_monitors; i++)
        if (seen.monitors[i] == monitor) seen.monitors[i] = seen.monitors[--seen.num_monitors];
}

/* ---- the calls --------------------------------------------------------------------- */

#define AGENT_CALLS(X)                                                                   \
    X(ENABLE_EVENT) X(DISABLE_EVENT) X(REQUEST_EVENT) X(GET_CALL_TRACE)                  \
    X(RAW_MONITOR_CREATE) X(RAW_MONITOR_ENTER) X(RAW_MONITOR_EXIT) X(RAW_MONITOR_WAIT)   \
    X(RAW_MONITOR_NOTIFY_ALL) X(RAW_MONITOR_DESTROY) X(GET_CURRENT_THREAD_CPU_TIME)      \
    X(SUSPEND_THREAD) X(RESUME_THREAD) X(GET_THREAD_STATUS) X(THREAD_HAS_RUN)            \
    X(SET_THREAD_LOCAL_STORAGE) X(GET_THREAD_LOCAL_STORAGE) X(DISABLE_GC) X(ENABLE_GC)   \
    X(RUN_GC) X(GET_THREAD_OBJECT) X(GET_METHOD_CLASS) X(SUSPEND_THREAD_LIST)            \
    X(RESUME_THREAD_LIST) X(SET_HEAP_SAMPLING_INTERVAL) X(GET_COLLECTOR_NAME) X(GET_ENV)

typedef enum AgentCall {
#define AGENT_CALL_ENUM(name) CALL_##name,
    AGENT_CALLS(AGENT_CALL_ENUM)
#undef AGENT_CALL_ENUM
    NUM_AGENT_CALLS
} AgentCall;

static const char *const call_names[] = {
#define AGENT_CALL_NAME(name) #name,
    AGENT_CALLS(AGENT_CALL_NAME)
#undef AGENT_CALL_NAME
};

/* GCLAB_FUZZ_TRACE=1 in the environment prints each call, to read a finding. */
static bool tracing;

static VMPI_Interface *agent;
static int gc_disabled; /* DisableGC calls not yet balanced by EnableGC */

static void make_call(void) {
    AgentCall call = (AgentCall)(next_byte() % NUM_AGENT_CALLS);
    bool null_pointer = next_byte() >= 0xe0;
    IdKind id_kind = next_id_kind();
    if (tracing) fprintf(stderr, "fuzz: %s%s, %s ID\n", call_names[call], null_pointer ? " with NULL" : "",
                         id_kind == ID_SEEN ? "seen" : id_kind == ID_NULL ? "NULL" : "made-up");

    VMPI_ThreadID env = pick_id(id_kind, seen.env);
    VMPI_RawMonitor monitor = seen.num_monitors > 0 ? seen.monitors[next_byte() % seen.num_monitors] : NULL;
    if (id_kind != ID_SEEN) monitor = pick_id(id_kind, monitor);
    switch (call) {
    case CALL_ENABLE_EVENT: agent->EnableEvent(next_byte() % 70 - 2, NULL); break;
    case CALL_DISABLE_EVENT: agent->DisableEvent(next_byte() % 70 - 2, NULL); break;
    case CALL_REQUEST_EVENT: {
        int32_t code = next_byte() % 70 - 2;
        VMPI_HeapDumpArg dump = {.heap_dump_level = next_count()};
        void *arg = null_pointer ? NULL
                  : code == VMPI_EVENT_HEAP_DUMP ? (void *)&dump
                  : code == VMPI_EVENT_OBJECT_ALLOC || code == VMPI_EVENT_OBJECT_DUMP ? pick_id(id_kind, seen.object)
                  : code == VMPI_EVENT_CLASS_LOAD ? pick_id(id_kind, seen.class_id)
                  : code == VMPI_EVENT_THREAD_START ? (void *)env
                  : NULL;
        agent->RequestEvent(code, arg);
        break;
    }
    case CALL_GET_CALL_TRACE: {
        VMPI_CallFrame frames[16];
        VMPI_CallTrace trace = {.env_id = env, .frames = frames};
        int32_t depth = next_count();
        if (depth > 16) depth = 16; /* a bigger depth than the buffer is the agent's own overflow */
        agent->GetCallTrace(null_pointer ? NULL : &trace, depth);
        break;
    }
    case CALL_RAW_MONITOR_CREATE: {
        VMPI_RawMonitor created = agent->RawMonitorCreate(null_pointer ? NULL : "fuzz lock");
        if (!created) break;
        if (seen.num_monitors < MAX_MONITORS) seen.monitors[seen.num_monitors++] = created;
        else agent->RawMonitorDestroy(created); /* every monitor is destroyed before the next input */
        break;
    }
    case CALL_RAW_MONITOR_ENTER: agent->RawMonitorEnter(monitor); break;
    case CALL_RAW_MONITOR_EXIT: agent->RawMonitorExit(monitor); break;
    case CALL_RAW_MONITOR_WAIT: agent->RawMonitorWait(monitor, 1 + next_byte() % 2); break; /* 0 waits forever */
    case CALL_RAW_MONITOR_NOTIFY_ALL: agent->RawMonitorNotifyAll(monitor); break;
    case CALL_RAW_MONITOR_DESTROY:
        agent->RawMonitorDestroy(monitor);
        forget_monitor(monitor); /* a destroyed monitor is a made-up ID from now on */
        break;
    case CALL_GET_CURRENT_THREAD_CPU_TIME: agent->GetCurrentThreadCpuTime(); break;
    case CALL_SUSPEND_THREAD: agent->SuspendThread(env); break;
    case CALL_RESUME_THREAD: agent->ResumeThread(env); break;
    case CALL_GET_THREAD_STATUS: agent->GetThreadStatus(env); break;
    case CALL_THREAD_HAS_RUN: agent->ThreadHasRun(env); break;
    case CALL_SET_THREAD_LOCAL_STORAGE: agent->SetThreadLocalStorage(env, &seen); break;
    case CALL_GET_THREAD_LOCAL_STORAGE: agent->GetThreadLocalStorage(env); break;
    case CALL_DISABLE_GC: agent->DisableGC(); gc_disabled++; break;
    case CALL_ENABLE_GC:
        agent->EnableGC();
        if (gc_disabled > 0) gc_disabled--; /* an unmatched one is ignored */
        break;
    case CALL_RUN_GC: agent->RunGC(); break;
    case CALL_GET_THREAD_OBJECT: agent->GetThreadObject(env); break;
    case CALL_GET_METHOD_CLASS: agent->GetMethodClass(pick_id(id_kind, seen.method)); break;
    case CALL_SUSPEND_THREAD_LIST:
    case CALL_RESUME_THREAD_LIST: {
        VMPI_ThreadID threads[4] = {env, seen.env, NULL, env};
        int32_t results[4];
        int32_t count = next_count();
        if (count > 4) count = 4; /* more than the arrays hold is the agent's own overflow */
        if (call == CALL_SUSPEND_THREAD_LIST) agent->SuspendThreadList(count, null_pointer ? NULL : threads, results);
        else agent->ResumeThreadList(count, threads, null_pointer ? NULL : results);
        break;
    }
    case CALL_SET_HEAP_SAMPLING_INTERVAL: agent->SetHeapSamplingInterval(next_count()); break;
    case CALL_GET_COLLECTOR_NAME: agent->GetCollectorName(); break;
    case CALL_GET_ENV: {
        VMPI_VM *vm = &vmpi_agents[vmpi_num_agents - 1].vm;
        void *env_out;
        vm->GetEnv(vm, null_pointer ? NULL : &env_out, next_byte() & 1 ? VMPI_VERSION_1 : next_i32());
        break;
    }
    case NUM_AGENT_CALLS: break;
    }
}

/* The handler leaves every monitor it entered before it returns.  One held
 * into a later handler on the GC thread is a deadlock the VM names and ends
 * the run on (docs/contracts.md, "deadlock"): an agent's fault, which
 * tests/agents/contract_breaker.c commits on purpose, not one this harness
 * looks for. */
static void leave_monitors(void) {
    for (int i = 0; i < seen.num_monitors; i++)
        while (vmpi_raw_monitor_held_by_me(seen.monitors[i])) agent->RawMonitorExit(seen.monitors[i]);
}

static void notify(VMPI_Event *event) {
    if (tracing) fprintf(stderr, "fuzz: event %d\n", (int)event->event_type);
    if (event->env_id) seen.env = event->env_id;
    switch (event->event_type & ~VMPI_REQUESTED_EVENT) {
    case VMPI_EVENT_METHOD_ENTRY:
    case VMPI_EVENT_METHOD_EXIT: seen.method = event->u.method.method_id; break;
    case VMPI_EVENT_OBJECT_ALLOC:
        seen.object = event->u.obj_alloc.obj_id;
        seen.class_id = event->u.obj_alloc.class_id;
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN: return; /* nothing reaches the agent after it */
    }
    for (int calls = next_byte() % 4; calls > 0; calls--) make_call();
    leave_monitors();
}

/* ---- one input ---------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    script = data;
    script_left = size;
    memset(&seen, 0, sizeof seen);
    gc_disabled = 0;
    tracing = getenv("GCLAB_FUZZ_TRACE") != NULL;

    char err[512];
    Program *program = compile_source("fuzz.gcl", program_source, sizeof program_source - 1, err, sizeof err);
    if (!program) FINDING("the harness's own program does not compile: %s", err);
    size_t num_collectors = 0;
    while (gc_all_collectors[num_collectors]) num_collectors++;
    const GcOps *collector = gc_all_collectors[next_byte() % num_collectors];

    agent = vmpi_register_listener(notify);
    if (!agent) abort();
    uint64_t enable_mask = 0;
    for (int i = 0; i < 8; i++) enable_mask = enable_mask << 8 | next_byte();
    /* Codes run past 64 (gclab's own events from 100): each takes the bit
     * of its code modulo 64. */
    for (int32_t code = 1; code < VMPI_EVENT_CODE_LIMIT; code++)
        if (enable_mask >> (code % 64) & 1) agent->EnableEvent(code, NULL);

    /* A heap the program never fills, so a DisableGC never left balanced
     * cannot end the run with out of memory. */
    VMOptions options = {.gc_name = collector->constraints->name,
                         .gc = {.heap_bytes = (size_t)4 << 20, .young_bytes = (size_t)1 << 20,
                                .tenure_age = 2, .rc_cycles = true, .stress = true, .verify = true}};
    VM *vm = vm_create(program, "fuzz.gcl", &options);
    if (!vm) abort();
    vmpi_post_jvm_init_done();
    vm_run_main(vm, 0, NULL);
    for (; gc_disabled > 0; gc_disabled--) agent->EnableGC(); /* the next input starts with GC enabled */
    vmpi_shutdown();
    for (int i = 0; i < seen.num_monitors; i++) agent->RawMonitorDestroy(seen.monitors[i]);
    vm_destroy(vm);
    program_free(program);
    return 0;
}
