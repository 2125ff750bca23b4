/* contract_breaker.c -- an agent that breaks one rule of the agent contract,
 * for the strict-mode tests (vmpi/runtime/strict.h, docs/contracts.md).  Its option
 * names the breach:
 *
 *   malloc_in_gc          malloc in OBJECT_FREE (freed at GC_FINISH)
 *   enter_in_gc           RawMonitorEnter in OBJECT_FREE, of a monitor it does not hold
 *   wait_in_gc            RawMonitorWait (1 ms, once) in OBJECT_FREE, on the monitor
 *                         it took in GC_START
 *   run_gc_disabled       DisableGC, RunGC, EnableGC in JVM_INIT_DONE
 *   run_gc_in_event       RunGC in JVM_INIT_DONE
 *   thread_in_onload      CreateSystemThread in VMPI_OnLoad
 *   thread_gc_disabled    DisableGC, CreateSystemThread, EnableGC in JVM_INIT_DONE
 *   dump_in_gc            RequestEvent(HEAP_DUMP) in GC_START
 *   stale_record          keeps JVM_INIT_DONE's record, reads it in the next METHOD_ENTRY
 *   disable_gc            DisableGC in JVM_INIT_DONE, never EnableGC
 *   object_id_gc_enabled  keeps the first OBJECT_ALLOC's ID and requests its
 *                         OBJECT_ALLOC in the next METHOD_EXIT (GC enabled there)
 *   monitor_usage_gc_enabled  the same, with GetObjectMonitorUsage of the ID
 *   held_into_gc          enters its monitor in JVM_INIT_DONE, on the program
 *                         thread, and never leaves it; enters it again in
 *                         GC_START, on the GC thread (a deadlock in every mode)
 *   run_gc_holding        a system thread started in JVM_INIT_DONE enters the
 *                         monitor and calls RunGC holding it
 *   suspend_holding       the same with SuspendThread of the program thread
 *   hang_in_gc            waits on its monitor, never notified, in GC_START
 *   gc_on_program_thread  looks up its per-thread state by GC_START's env_id,
 *                         as if collections ran on a program thread
 *
 * Where the spec gives the call a result, the agent checks it and ends the
 * VM with status 99 on a wrong one, so a test without --vmpi-strict sees
 * today's behaviour (refused, or let through) and not just "no breach". */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static const char *breach = "";
static VMPI_RawMonitor lock;

static bool is(const char *name) { return strcmp(breach, name) == 0; }

static void expect(bool ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "contract_breaker: %s: wrong result\n", what);
    vmpi->ProfilerExit(99);
}

/* Blocks malloc'd in thread-suspended mode, kept until GC_FINISH so that
 * neither the compiler nor a count of bytes in use can miss them. */
typedef struct Kept {
    struct Kept *next;
} Kept;
static Kept *kept;

static void do_nothing(void *arg) { (void)arg; }

/* run_gc_holding and suspend_holding: the system thread's call, and the
 * handshake that keeps JVM_INIT_DONE waiting until the thread holds the
 * monitor and is about to make it (so the program cannot end first). */
static VMPI_RawMonitor started;
static bool thread_holds_lock;
static VMPI_ThreadID program_thread;

static void call_holding_lock(void *arg) {
    (void)arg;
    vmpi->RawMonitorEnter(lock);
    vmpi->RawMonitorEnter(started);
    thread_holds_lock = true;
    vmpi->RawMonitorNotifyAll(started);
    vmpi->RawMonitorExit(started);
    if (is("run_gc_holding")) {
        vmpi->RunGC();
    } else {
        vmpi->SuspendThread(program_thread);
        vmpi->ResumeThread(program_thread);
    }
    vmpi->RawMonitorExit(lock);
}

static void start_thread_holding_lock(void) {
    started = vmpi->RawMonitorCreate("_contract_breaker started");
    vmpi->RawMonitorEnter(started);
    expect(vmpi->CreateSystemThread("contract_breaker", 0, call_holding_lock) == VMPI_OK, "CreateSystemThread");
    while (!thread_holds_lock) vmpi->RawMonitorWait(started, 0);
    vmpi->RawMonitorExit(started);
}

static void on_init_done(void) {
    if (is("run_gc_disabled")) {
        vmpi->DisableGC();
        vmpi->RunGC(); /* refused, with one warning */
        vmpi->EnableGC();
    } else if (is("run_gc_in_event")) {
        vmpi->RunGC(); /* collects */
    } else if (is("thread_gc_disabled")) {
        vmpi->DisableGC();
        expect(vmpi->CreateSystemThread("contract_breaker", 0, do_nothing) == VMPI_ERR,
               "CreateSystemThread with GC disabled");
        vmpi->EnableGC();
    } else if (is("disable_gc")) {
        vmpi->DisableGC();
    } else if (is("held_into_gc")) {
        vmpi->RawMonitorEnter(lock);
    } else if (is("run_gc_holding") || is("suspend_holding")) {
        start_thread_holding_lock();
    }
}

static void in_collection(void) {
    static bool waited;
    if (is("malloc_in_gc")) {
        Kept *block = malloc(sizeof *block);
        if (block) {
            block->next = kept;
            kept = block;
        }
    } else if (is("enter_in_gc")) {
        vmpi->RawMonitorEnter(lock);
        vmpi->RawMonitorExit(lock);
    } else if (is("wait_in_gc") && !waited) {
        waited = true;
        vmpi->RawMonitorWait(lock, 1);
    }
}

static void notify(VMPI_Event *event) {
    static const VMPI_Event *init_done_record;
    static VMPI_ObjectID first_object;
    switch (event->event_type) {
    case VMPI_EVENT_JVM_INIT_DONE:
        init_done_record = event; /* the breach: a record kept past NotifyEvent */
        program_thread = event->env_id;
        on_init_done();
        break;
    case VMPI_EVENT_METHOD_ENTRY:
        if (init_done_record) {
            volatile int32_t type = init_done_record->event_type;
            (void)type;
            init_done_record = NULL;
        }
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        if (!first_object) first_object = event->u.obj_alloc.obj_id;
        break;
    case VMPI_EVENT_METHOD_EXIT:
        if (first_object && is("monitor_usage_gc_enabled")) {
            VMPI_MonitorUsage usage = {.capacity = 0};
            expect(vmpi->GetObjectMonitorUsage(first_object, &usage) == VMPI_OK,
                   "GetObjectMonitorUsage of a live object");
            first_object = NULL;
            vmpi->DisableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
        } else if (first_object) {
            expect(vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, first_object) == VMPI_OK,
                   "RequestEvent(OBJECT_ALLOC) of a live object");
            first_object = NULL;
            vmpi->DisableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
        }
        break;
    case VMPI_EVENT_GC_START:
        if (is("wait_in_gc") || is("held_into_gc") || is("hang_in_gc")) vmpi->RawMonitorEnter(lock);
        if (is("hang_in_gc")) vmpi->RawMonitorWait(lock, 0);
        if (is("gc_on_program_thread")) expect(!vmpi->GetThreadLocalStorage(event->env_id), "GetThreadLocalStorage(NULL)");
        if (is("dump_in_gc")) {
            VMPI_HeapDumpArg level_0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
            expect(vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level_0) == VMPI_ERR,
                   "RequestEvent(HEAP_DUMP) inside a collection");
        }
        break;
    case VMPI_EVENT_GC_FINISH:
        if (is("wait_in_gc")) vmpi->RawMonitorExit(lock);
        while (kept) {
            Kept *next = kept->next;
            free(kept);
            kept = next;
        }
        break;
    case VMPI_EVENT_OBJECT_FREE:
        in_collection();
        break;
    default:
        break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    breach = options ? options : "";
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    lock = vmpi->RawMonitorCreate("_contract_breaker"); /* '_': no contention events */
    if (is("thread_in_onload") && vmpi->CreateSystemThread("contract_breaker", 0, do_nothing) != VMPI_OK)
        return VMPI_ERR;
    static const int32_t wanted[] = {VMPI_EVENT_JVM_INIT_DONE, VMPI_EVENT_GC_START, VMPI_EVENT_GC_FINISH,
                                     VMPI_EVENT_OBJECT_FREE};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (vmpi->EnableEvent(wanted[i], NULL) != VMPI_OK) return VMPI_ERR;
    if (is("stale_record")) vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
    if (is("object_id_gc_enabled") || is("monitor_usage_gc_enabled")) {
        vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
        vmpi->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    }
    return VMPI_OK;
}
