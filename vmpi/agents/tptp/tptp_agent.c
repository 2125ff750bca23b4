/*
 * tptp_agent.c -- the tptp agent: the Eclipse TPTP heap and thread
 * profilers' trace ("TPTP Heap and Thread Profilers, High-level Design",
 * 2006) as XML.  docs/tptp.md is the format's reference and
 * docs/tptp-trace.xsd its schema.
 *
 *     -agentlib:tptp[=file=F][,include=P:P...][,exclude=P:P...][,dump=y][,alloc=event|bci]
 *
 *   file=F       where to write (default tptp.xml; "-" is standard output)
 *   include=...  track only objects of these classes (tptp_objects.h: a
 *                class name, or a prefix ending in '*'); default: every class
 *   exclude=...  ... and not of these
 *   dump=y       a heap dump at exit too; one is always written on a data
 *                dump request (SIGQUIT, or another agent's doing)
 *   alloc=bci    learn allocations from the program itself, as Martini
 *                does: at CLASS_LOAD_HOOK the agent rewrites the program
 *                (vmpi_bci.h) to call its recorder after every allocating
 *                instruction, and the recorder asks the VM for the new
 *                object's allocation (RequestEvent(OBJECT_ALLOC)).
 *                alloc=event, the default, takes the VM's OBJECT_ALLOC.
 *                Frees are the VM's OBJECT_FREE (and ARENA_DELETE) either
 *                way, of the objects the agent tracks.
 *
 * The trace is one <TRACE> element: traceStart, then one empty element per
 * event in the order the agent handled them -- classDef, threadStart,
 * threadEnd, objAlloc, objFree, gcStart, gcFinish, monContendedEnter,
 * monContendedEntered, monWait, monWaited, runtimeInitDone, the heap
 * dumps' elements (tptp_dump.h) -- and runtimeShutdown last.
 *
 * Thread profiler requests.  At monContendedEnter the agent asks the VM
 * for the monitor's usage (GetObjectMonitorUsage) to name its owner; at
 * threadStart it asks for the thread's information (GetThreadInfo), as
 * Martini asks JVMTI, whose thread start carries only the thread.
 * monWaited's timeout is the time the thread actually waited, which the
 * agent measures itself between the thread's monWait and monWaited, as the
 * design says a profiler on JVMTI must.
 *
 * Locking follows JVMPI 1.2 section 1.5 as the other agents do
 * (agent_common.h): one raw monitor, held from GC_START to GC_FINISH; in
 * between, elements go into trace_output's fixed buffer (no malloc, no
 * stdio).  The monitor is reentrant: the heap dump the agent requests on a
 * data dump request arrives while the handler holds it.  The file is
 * complete or absent (trace_output.h).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/agent_common.h"
#include "tptp_dump.h"
#include "tptp_objects.h"
#include "tptp_xml.h"
#include "vmpi.h"
#include "vmpi_bci.h"

#define MAX_THREADS 1024

static VMPI_Interface *vmpi;
static AgentLock lock;
static TraceOutput out;
static char path[4096];
static bool started, closed;
static bool dump_at_exit;
static bool alloc_by_bci;
static uint64_t start_ns;
static TptpObjects objects;
static uint32_t heap_dumps;

/* Threads by trace number (index + 1, in THREAD_START order), with when
 * each began its current wait (0: not waiting). */
typedef struct TptpThread {
    VMPI_ThreadID env;
    uint64_t wait_began_ns;
} TptpThread;
static TptpThread threads[MAX_THREADS];
static uint32_t num_threads;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint32_t thread_number(VMPI_ThreadID env) {
    for (uint32_t i = 0; env && i < num_threads; i++)
        if (threads[i].env == env) return i + 1;
    return 0;
}

static TptpThread *thread_of(VMPI_ThreadID env) {
    uint32_t number = thread_number(env);
    return number ? &threads[number - 1] : NULL;
}

/* ---- elements ------------------------------------------------------------------------ */

/* "<NAME" and the event's time; the caller adds attributes and ends it. */
static void begin(const char *element) {
    xml_begin(&out, element);
    xml_seconds(&out, "time", now_ns() - start_ns);
}

static void end(void) {
    xml_end(&out);
    trace_output_flush_if_fuller(&out, TRACE_BUFFER_BYTES / 4);
}

static void thread_ref(VMPI_ThreadID env) {
    uint32_t number = thread_number(env);
    if (number) xml_uint(&out, "threadIdRef", number);
}

/* The monitor's object, by its trace number when the agent tracks it. */
static void object_ref(const void *id) {
    uint32_t number = tptp_object_number(&objects, id);
    if (number) xml_uint(&out, "objIdRef", number);
}

static void trace_start(void) {
    started = true;
    trace_output_literal(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<TRACE>\n");
    begin("traceStart");
    xml_text(&out, "collector", vmpi->GetCollectorName());
    xml_text(&out, "allocSource", alloc_by_bci ? "bci" : "event");
    end();
}

static void report_write_error(int error) {
    /* Possibly still in thread-suspended mode: write(2), not stdio. */
    agent_say("tptp: cannot write %s: %s\n", path, strerror(error));
}

static void fail(const char *what) {
    agent_say("tptp: %s\n", what);
    vmpi->ProfilerExit(1);
}

/* ---- the heap ---------------------------------------------------------------------- */

static void class_def(const VMPI_Event *event) {
    bool is_new;
    const TptpClass *c = tptp_class_define(&objects, event, &is_new);
    if (!c) return fail("out of memory");
    if (!is_new) return;
    begin("classDef");
    xml_uint(&out, "classId", c->number);
    xml_text(&out, "name", event->u.class_load.class_name);
    xml_text(&out, "sourceName", event->u.class_load.source_name);
    xml_uint(&out, "numMethods", (uint32_t)event->u.class_load.num_methods);
    xml_uint(&out, "numStaticFields", (uint32_t)event->u.class_load.num_static_fields);
    xml_uint(&out, "numInstanceFields", (uint32_t)event->u.class_load.num_instance_fields);
    end();
}

static void object_alloc(VMPI_ThreadID env, const void *obj_id, const void *class_id, int32_t is_array,
                       int32_t arena_id, int32_t size) {
    if (!tptp_selected(&objects, class_id, is_array)) return;
    if (!tptp_objects_reserve(&objects, 1)) return fail("out of memory");
    uint32_t number = tptp_object_track(&objects, obj_id, arena_id, (uint32_t)size);
    begin("objAlloc");
    thread_ref(env);
    xml_uint(&out, "objId", number);
    const TptpClass *c = tptp_class_find(&objects, class_id);
    if (c) xml_uint(&out, "classIdRef", c->number);
    xml_uint(&out, "size", (uint32_t)size);
    xml_uint(&out, "isArray", (uint32_t)is_array);
    end();
}

static void object_freed(uint32_t number, void *ctx) {
    (void)ctx;
    begin("objFree");
    xml_uint(&out, "objIdRef", number);
    end();
}

static void object_free(const VMPI_Event *event) {
    uint32_t number = tptp_object_free(&objects, event->u.obj_free.obj_id);
    if (number) object_freed(number, NULL);
}

static void gc_finish(const VMPI_Event *event) {
    begin("gcFinish");
    xml_int(&out, "usedObjects", event->u.gc_info.used_objects);
    xml_int(&out, "usedObjSpace", event->u.gc_info.used_object_space);
    xml_int(&out, "totalObjSpace", event->u.gc_info.total_object_space);
    end();
}

/* A data dump request (or exit with dump=y): a level-1 heap dump, which
 * arrives in heap_dump below before RequestEvent returns.  GC is disabled
 * around the request, as for every call that hands out object IDs. */
static void request_heap_dump(void) {
    VMPI_HeapDumpArg level1 = {.heap_dump_level = VMPI_DUMP_LEVEL_1};
    vmpi->DisableGC();
    if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level1) != VMPI_OK) agent_say("tptp: the heap dump was refused\n");
    vmpi->EnableGC();
}

static void heap_dump(const VMPI_Event *event) {
    begin("heapDumpDef");
    xml_uint(&out, "heapDumpId", ++heap_dumps);
    char name[32];
    snprintf(name, sizeof name, "dump %u", heap_dumps);
    xml_text(&out, "name", name);
    end();
    if (!tptp_dump_write(&out, &objects, event, heap_dumps, thread_number)) fail("the VM's heap dump is malformed");
}

/* ---- alloc=bci: the program reports its allocations ------------------------------------ */

/* The recorder the instrumented program calls after each allocating
 * instruction, on the allocating thread.  The VM answers the request at
 * once, through notify_event, as an OBJECT_ALLOC marked requested; GC is
 * disabled in between so that the ID stays the object's. */
VMPI_EXPORT void tptp_record_allocation(VmpiBciEnv *env, VmpiBciRef obj) {
    vmpi->DisableGC();
    VMPI_ObjectID id = vmpi_bci_object_id(env, obj);
    if (id && vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, id) != VMPI_OK)
        agent_say("tptp: the VM refused the allocation of a live object\n");
    vmpi->EnableGC();
}

/* CLASS_LOAD_HOOK: the program, rewritten to call tptp_record_allocation
 * from this library (found by its own address). */
static void instrument(VMPI_Event *event) {
    char err[512] = "";
    Dl_info self;
    VmpiBciProgram *p = NULL;
    if (!dladdr((void *)tptp_record_allocation, &self) || !self.dli_fname) {
        snprintf(err, sizeof err, "cannot find the agent's own library");
    } else {
        VmpiBciRecorders recorders = {.library = self.dli_fname, .allocation = "tptp_record_allocation"};
        p = vmpi_bci_parse(event->u.class_load_hook.class_data, (size_t)event->u.class_load_hook.class_data_len,
                           err, sizeof err);
        size_t len;
        unsigned char *image = NULL;
        if (p && vmpi_bci_instrument(p, &recorders, err, sizeof err)) {
            image = vmpi_bci_serialize(p, event->u.class_load_hook.malloc_f, &len);
            if (!image) snprintf(err, sizeof err, "out of memory");
        }
        if (image && len <= INT32_MAX) {
            event->u.class_load_hook.new_class_data = image;
            event->u.class_load_hook.new_class_data_len = (int32_t)len;
            err[0] = '\0';
        }
    }
    vmpi_bci_free(p);
    if (err[0]) {
        agent_say("tptp: alloc=bci: cannot instrument the program: %s\n", err);
        vmpi->ProfilerExit(1);
    }
}

/* ---- threads and monitors ------------------------------------------------------------ */

static void thread_start(const VMPI_Event *event) {
    VMPI_ThreadID env = event->u.thread_start.thread_env_id;
    if (thread_number(env)) return;
    if (num_threads == MAX_THREADS) return fail("more than 1024 threads");
    threads[num_threads++] = (TptpThread){.env = env};
    VMPI_ThreadInfo info;
    if (vmpi->GetThreadInfo(env, &info) != VMPI_OK) return fail("GetThreadInfo refused a started thread");
    begin("threadStart");
    xml_uint(&out, "threadId", num_threads);
    xml_text(&out, "threadName", info.thread_name);
    xml_text(&out, "groupName", info.group_name);
    xml_text(&out, "parentName", info.parent_name);
    end();
}

static void thread_end(const VMPI_Event *event) {
    begin("threadEnd");
    thread_ref(event->env_id);
    end();
}

static void contended_enter(const VMPI_Event *event) {
    VMPI_MonitorUsage usage = {.capacity = 0};
    bool known = vmpi->GetObjectMonitorUsage(event->u.monitor.object, &usage) == VMPI_OK;
    begin("monContendedEnter");
    thread_ref(event->env_id);
    object_ref(event->u.monitor.object);
    uint32_t owner = known ? thread_number(usage.owner) : 0;
    if (owner) xml_uint(&out, "threadOwner", owner);
    end();
}

static void contended_entered(const VMPI_Event *event) {
    begin("monContendedEntered");
    thread_ref(event->env_id);
    object_ref(event->u.monitor.object);
    end();
}

static void monitor_wait(const VMPI_Event *event) {
    TptpThread *thread = thread_of(event->env_id);
    if (thread) thread->wait_began_ns = now_ns();
    begin("monWait");
    thread_ref(event->env_id);
    object_ref(event->u.monitor_wait.object);
    xml_int(&out, "timeout", event->u.monitor_wait.timeout);
    end();
}

static void monitor_waited(const VMPI_Event *event) {
    TptpThread *thread = thread_of(event->env_id);
    begin("monWaited");
    thread_ref(event->env_id);
    object_ref(event->u.monitor_wait.object);
    if (thread && thread->wait_began_ns) {
        xml_uint(&out, "timeout", (now_ns() - thread->wait_began_ns) / 1000000u);
        thread->wait_began_ns = 0;
    }
    end();
}

/* ---- events ---------------------------------------------------------------------- */

static void shut_down(void) {
    if (dump_at_exit) request_heap_dump();
    begin("runtimeShutdown");
    end();
    trace_output_literal(&out, "</TRACE>\n");
    closed = true;
    int error = trace_output_close(&out);
    if (error) report_write_error(error);
}

static void handle(const VMPI_Event *event) {
    switch (event->event_type & ~VMPI_REQUESTED_EVENT) {
    case VMPI_EVENT_CLASS_LOAD: class_def(event); break;
    case VMPI_EVENT_THREAD_START: thread_start(event); break;
    case VMPI_EVENT_THREAD_END: thread_end(event); break;
    case VMPI_EVENT_OBJECT_ALLOC:
        object_alloc(event->env_id, event->u.obj_alloc.obj_id, event->u.obj_alloc.class_id,
                          event->u.obj_alloc.is_array, event->u.obj_alloc.arena_id, event->u.obj_alloc.size);
        break;
    case VMPI_EVENT_OBJECT_FREE: object_free(event); break;
    case VMPI_EVENT_OBJECT_MOVE:
        tptp_object_move(&objects, event->u.obj_move.obj_id, event->u.obj_move.new_obj_id,
                         event->u.obj_move.new_arena_id);
        break;
    case VMPI_EVENT_ARENA_DELETE: tptp_arena_delete(&objects, event->u.delete_arena.arena_id, object_freed, NULL); break;
    case VMPI_EVENT_GC_START:
        begin("gcStart");
        end();
        break;
    case VMPI_EVENT_GC_FINISH: gc_finish(event); break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER: contended_enter(event); break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTERED: contended_entered(event); break;
    case VMPI_EVENT_MONITOR_WAIT: monitor_wait(event); break;
    case VMPI_EVENT_MONITOR_WAITED: monitor_waited(event); break;
    case VMPI_EVENT_JVM_INIT_DONE:
        begin("runtimeInitDone");
        end();
        break;
    case VMPI_EVENT_DATA_DUMP_REQUEST: request_heap_dump(); break;
    case VMPI_EVENT_HEAP_DUMP: heap_dump(event); break;
    case VMPI_EVENT_JVM_SHUT_DOWN: shut_down(); break;
    }
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    /* Before the VM exists: no trace yet, and no other thread. */
    if (code == VMPI_EVENT_CLASS_LOAD_HOOK) return instrument(event);
    bool entered = agent_lock_before(vmpi, &lock, code);
    if (!closed) {
        if (!started) trace_start();
        handle(event);
    }
    agent_lock_after(vmpi, &lock, code, entered);
}

/* ---- start-up -------------------------------------------------------------------------- */

static bool parse_options(char *options, char **include, char **exclude) {
    snprintf(path, sizeof path, "tptp.xml");
    *include = *exclude = NULL;
    char *item, *value;
    while (agent_next_option(&options, &item, &value)) {
        bool yes_no = value && (strcmp(value, "y") == 0 || strcmp(value, "n") == 0);
        if (strcmp(item, "file") == 0 && value && *value) {
            if ((size_t)snprintf(path, sizeof path, "%s", value) >= sizeof path) {
                fprintf(stderr, "tptp: file name too long\n");
                return false;
            }
        } else if (strcmp(item, "include") == 0 && value && *value) {
            *include = value;
        } else if (strcmp(item, "exclude") == 0 && value && *value) {
            *exclude = value;
        } else if (strcmp(item, "dump") == 0 && yes_no) {
            dump_at_exit = value[0] == 'y';
        } else if (strcmp(item, "alloc") == 0 && value && (strcmp(value, "event") == 0 || strcmp(value, "bci") == 0)) {
            alloc_by_bci = strcmp(value, "bci") == 0;
        } else {
            agent_bad_option("tptp", item, value, "file=F, include=P:P..., exclude=P:P..., dump=y|n, alloc=event|bci");
            return false;
        }
    }
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    start_ns = now_ns();
    if (!agent_get_env(vm, "tptp", &vmpi)) return VMPI_ERR;
    char *include, *exclude;
    if (!parse_options(options, &include, &exclude)) return VMPI_ERR;
    if (!tptp_objects_init(&objects, include, exclude)) {
        fprintf(stderr, "tptp: out of memory\n");
        return VMPI_ERR;
    }
    if (!agent_open_output(vmpi, "tptp", path, &out, &lock)) return VMPI_ERR;
    vmpi->NotifyEvent = notify_event;
    static const int32_t traced[] = {
        VMPI_EVENT_ARENA_DELETE,     VMPI_EVENT_OBJECT_FREE,     VMPI_EVENT_OBJECT_MOVE,
        VMPI_EVENT_GC_START,         VMPI_EVENT_GC_FINISH,       VMPI_EVENT_CLASS_LOAD,
        VMPI_EVENT_THREAD_START,     VMPI_EVENT_THREAD_END,      VMPI_EVENT_JVM_INIT_DONE,
        VMPI_EVENT_JVM_SHUT_DOWN,    VMPI_EVENT_DATA_DUMP_REQUEST,
        VMPI_EVENT_MONITOR_CONTENDED_ENTER, VMPI_EVENT_MONITOR_CONTENDED_ENTERED,
        VMPI_EVENT_MONITOR_WAIT,     VMPI_EVENT_MONITOR_WAITED,
    };
    for (size_t i = 0; i < sizeof traced / sizeof traced[0]; i++) vmpi->EnableEvent(traced[i], NULL);
    int32_t alloc_event = alloc_by_bci ? VMPI_EVENT_CLASS_LOAD_HOOK : VMPI_EVENT_OBJECT_ALLOC;
    if (vmpi->EnableEvent(alloc_event, NULL) != VMPI_OK) {
        fprintf(stderr, "tptp: the VM cannot send %s\n", vmpi_event_name(alloc_event));
        trace_output_abandon(&out);
        return VMPI_ERR;
    }
    return VMPI_OK;
}
