/* bad_args.c -- an agent that hands VMPI functions bad arguments, for the
 * guard tests (vmpi/runtime/guard.c, docs/contracts.md).  Its option names the
 * misbehaviour: "getenv_null" and "getenv_version" happen in VMPI_OnLoad,
 * the others in JVM_INIT_DONE's NotifyEvent.  Each checks the result the
 * guard promises and, on a wrong one, says so and ends the VM with status
 * 99, so a test sees the difference between "refused" and "let through".
 * "null_deref" writes just past NULL in METHOD_ENTRY's NotifyEvent,
 * "crash_in_request" does so in the HEAP_DUMP its RequestEvent sends, and
 * "stack_overflow" recurses without end in JVM_INIT_DONE's, for the crash
 * report. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static const char *misbehaviour = "";

static void expect(bool ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "bad_args: %s: wrong result\n", what);
    vmpi->ProfilerExit(99);
}

/* Recurses until the stack runs out, for the crash report's alternate stack. */
static int overflow(volatile int depth) {
    volatile char pad[256];
    pad[0] = (char)depth;
    if (depth < 0) return 0; /* never: depth only grows, but the compiler cannot tell */
    return overflow(depth + 1) + pad[0];
}

static void do_nothing(void *arg) { (void)arg; }

static void misbehave(void) {
    int local = 0;
    void *garbage = &local; /* a pointer to something, but no VM ID */
    const char *m = misbehaviour;
    if (strcmp(m, "call_trace_null") == 0) {
        for (int i = 0; i < 1000; i++) vmpi->GetCallTrace(NULL, 10); /* warned once */
    } else if (strcmp(m, "call_trace_null_frames") == 0) {
        VMPI_CallTrace trace = {.env_id = NULL, .num_frames = 7, .frames = NULL};
        vmpi->GetCallTrace(&trace, 10);
        expect(trace.num_frames == 0, "GetCallTrace with NULL frames");
    } else if (strcmp(m, "call_trace_negative_depth") == 0) {
        VMPI_CallFrame frames[4];
        VMPI_CallTrace trace = {.env_id = NULL, .num_frames = 7, .frames = frames};
        vmpi->GetCallTrace(&trace, -3);
        expect(trace.num_frames == 0, "GetCallTrace with a negative depth");
    } else if (strcmp(m, "method_class_garbage") == 0) {
        expect(vmpi->GetMethodClass((VMPI_MethodID)garbage) == NULL, "GetMethodClass(garbage)");
        expect(vmpi->GetMethodClass((VMPI_MethodID)(uintptr_t)0xdeadbeef) == NULL,
               "GetMethodClass(0xdeadbeef)");
    } else if (strcmp(m, "enable_event_out_of_range") == 0) {
        expect(vmpi->EnableEvent(1000, NULL) == VMPI_NOT_AVAILABLE, "EnableEvent(1000)");
        expect(vmpi->EnableEvent(-5, NULL) == VMPI_NOT_AVAILABLE, "EnableEvent(-5)");
        expect(vmpi->DisableEvent(VMPI_EVENT_GC_START | 0x100, NULL) == VMPI_NOT_AVAILABLE,
               "DisableEvent with stray bits");
    } else if (strcmp(m, "request_garbage_object") == 0) {
        expect(vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, garbage) == VMPI_ERR,
               "RequestEvent(OBJECT_ALLOC, garbage)");
    } else if (strcmp(m, "sampling_negative") == 0) {
        expect(vmpi->SetHeapSamplingInterval(-1) == VMPI_ERR, "SetHeapSamplingInterval(-1)");
    } else if (strcmp(m, "monitor_null_name") == 0) {
        expect(vmpi->RawMonitorCreate(NULL) == NULL, "RawMonitorCreate(NULL)");
    } else if (strcmp(m, "monitor_destroyed") == 0) {
        VMPI_RawMonitor lock = vmpi->RawMonitorCreate("bad_args");
        vmpi->RawMonitorDestroy(lock);
        vmpi->RawMonitorEnter(lock);
    } else if (strcmp(m, "monitor_not_owner") == 0) {
        VMPI_RawMonitor lock = vmpi->RawMonitorCreate("bad_args");
        vmpi->RawMonitorExit(lock);
        vmpi->RawMonitorDestroy(lock);
    } else if (strcmp(m, "thread_list_negative") == 0) {
        expect(vmpi->SuspendThreadList(-1, NULL, NULL) == VMPI_ERR, "SuspendThreadList(-1)");
    } else if (strcmp(m, "system_thread_null") == 0) {
        expect(vmpi->CreateSystemThread("bad_args", 0, NULL) == VMPI_ERR, "CreateSystemThread(NULL)");
    } else if (strcmp(m, "system_thread_null_name") == 0) {
        expect(vmpi->CreateSystemThread(NULL, 0, do_nothing) == VMPI_ERR, "CreateSystemThread(name NULL)");
    } else if (strcmp(m, "system_thread_priority") == 0) {
        expect(vmpi->CreateSystemThread("bad_args", 11, do_nothing) == VMPI_ERR, "CreateSystemThread(priority 11)");
    } else if (strcmp(m, "thread_garbage") == 0) {
        expect(vmpi->GetThreadStatus((VMPI_ThreadID)garbage) == 0, "GetThreadStatus(garbage)");
    } else if (strcmp(m, "thread_info_garbage") == 0) {
        VMPI_ThreadInfo info;
        expect(vmpi->GetThreadInfo((VMPI_ThreadID)garbage, &info) == VMPI_ERR, "GetThreadInfo(garbage)");
    } else if (strcmp(m, "thread_info_null") == 0) {
        expect(vmpi->GetThreadInfo(NULL, NULL) == VMPI_ERR, "GetThreadInfo(NULL, NULL)");
    } else if (strcmp(m, "monitor_usage_garbage") == 0) {
        VMPI_MonitorUsage usage = {.capacity = 0};
        vmpi->DisableGC();
        expect(vmpi->GetObjectMonitorUsage((VMPI_ObjectID)garbage, &usage) == VMPI_ERR,
               "GetObjectMonitorUsage(garbage)");
        vmpi->EnableGC();
    } else if (strcmp(m, "monitor_usage_null") == 0) {
        expect(vmpi->GetObjectMonitorUsage((VMPI_ObjectID)garbage, NULL) == VMPI_ERR,
               "GetObjectMonitorUsage(garbage, NULL)");
    } else if (strcmp(m, "null_deref") == 0) {
        vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL); /* crashes there, with a VM stack */
    } else if (strcmp(m, "crash_in_request") == 0) {
        vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, NULL); /* crashes in the HEAP_DUMP it sends */
    } else if (strcmp(m, "stack_overflow") == 0) {
        expect(overflow(0) == 0, "overflow");
    }
}

static void notify(VMPI_Event *event) {
    if (event->event_type == VMPI_EVENT_JVM_INIT_DONE) misbehave();
    if (event->event_type == VMPI_EVENT_METHOD_ENTRY ||
        event->event_type == (VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT)) {
        /* A field of a NULL record: an unmapped address, as a real crash
         * writes (not NULL itself, which UBSan would stop before the
         * signal); volatile so the store is not optimised away. */
        volatile int *volatile nowhere = (volatile int *)(uintptr_t)8;
        *nowhere = 1;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    misbehaviour = options ? options : "";
    if (strcmp(misbehaviour, "getenv_null") == 0 && vm->GetEnv(vm, NULL, VMPI_VERSION_1) != VMPI_ERR) {
        fputs("bad_args: GetEnv(NULL): wrong result\n", stderr);
        return VMPI_ERR;
    }
    if (strcmp(misbehaviour, "getenv_version") == 0 &&
        vm->GetEnv(vm, (void **)&vmpi, 0x7777) != VMPI_EVERSION) {
        fputs("bad_args: GetEnv(bad version): wrong result\n", stderr);
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    return vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL);
}
