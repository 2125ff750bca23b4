/*
 * monitor_dump.c -- MONITOR_DUMP, on RequestEvent (JVMPI 1.2 section 4.4,
 * "Monitor Dump Format"): every monitor, and every thread's call trace and
 * status.
 *
 * First the language's monitors in use (vm_services.h, each_monitor), one
 * JVMPI_MONITOR_JAVA record each:
 *
 *     u1      VMPI_MONITOR_JAVA
 *     ID      the object
 *     env     the owner thread, NULL if none
 *     u4      entry count (0 if free)
 *     u4 n    threads waiting to enter (notified waiters too), then n thread IDs
 *     u4 m    threads waiting to be notified, then m thread IDs
 *
 * then the raw monitors, one JVMPI_MONITOR_RAW record each, every live one
 * (those named with a leading '_' too):
 *
 *     u1      VMPI_MONITOR_RAW
 *     char *  the monitor's name (the VM's copy, valid during the event)
 *     ID      the raw monitor ID
 *     env     the owner thread, NULL if none
 *     u4      entry count (0 if free)
 *     u4 n    threads waiting to enter, then n thread IDs
 *     u4 m    threads waiting to be notified, then m thread IDs
 *
 * Pointers and IDs take sizeof(void *) bytes, numbers are native byte order
 * (as in heap dumps, vmpi.h).  A thread that is not a VM thread -- an
 * agent's system thread, the only kind that can wait for a monitor while
 * the requester runs -- has no thread ID, so it appears as NULL: as an
 * owner, and as each waiter in the lists.  traces and threads_status have
 * one entry per VM thread (GetCallTrace, GetThreadStatus).
 *
 * The event is sent with GC disabled (JVMPI 1.2, MONITOR_DUMP); the buffer
 * and traces are the VM's, freed after delivery.
 */
#define _GNU_SOURCE /* open_memstream, with -std=c11 */
#include <stdio.h>
#include <stdlib.h>

#include "dispatch.h"

static void put(FILE *out, const void *data, size_t n) { fwrite(data, 1, n, out); }
static void put_u4(FILE *out, uint32_t v) { put(out, &v, sizeof v); }
static void put_id(FILE *out, const void *id) { put(out, &id, sizeof id); }

/* n waiters with no thread ID (see the top). */
static void put_waiters(FILE *out, uint32_t n) {
    put_u4(out, n);
    for (uint32_t i = 0; i < n; i++) put_id(out, NULL);
}

static void put_threads(FILE *out, uint32_t n, const VMPI_ThreadID *threads) {
    put_u4(out, n);
    for (uint32_t i = 0; i < n; i++) put_id(out, threads[i]);
}

static void dump_java_monitor(const VmpiMonitorView *view, void *ctx) {
    FILE *out = ctx;
    uint8_t type = VMPI_MONITOR_JAVA;
    put(out, &type, 1);
    put_id(out, view->object);
    put_id(out, view->owner);
    put_u4(out, view->entries);
    put_threads(out, view->num_entering, view->entering);
    put_threads(out, view->num_waiting, view->waiting);
}

static void dump_raw_monitor(const VmpiRawMonitorView *view, void *ctx) {
    FILE *out = ctx;
    uint8_t type = VMPI_MONITOR_RAW;
    put(out, &type, 1);
    put_id(out, view->name);
    put_id(out, view->id);
    put_id(out, view->held_by_caller ? vmpi_current_env() : NULL);
    put_u4(out, view->entries);
    put_waiters(out, view->waiting_to_enter);
    put_waiters(out, view->waiting_to_be_notified);
}

/* ---- GetObjectMonitorUsage: one monitor, from the same view ------------------------ */

typedef struct UsageQuery {
    const void *object;
    VMPI_MonitorUsage *usage;
} UsageQuery;

/* Copies at most `capacity` of `n` threads; returns n. */
static int32_t copy_threads(VMPI_ThreadID *into, int32_t capacity, uint32_t n, const VMPI_ThreadID *threads) {
    for (uint32_t i = 0; i < n && (int32_t)i < capacity; i++) into[i] = threads[i];
    return (int32_t)n;
}

static void answer_usage(const VmpiMonitorView *view, void *ctx) {
    UsageQuery *query = ctx;
    if ((const void *)view->object != query->object) return;
    VMPI_MonitorUsage *usage = query->usage;
    usage->owner = view->owner;
    usage->entry_count = (int32_t)view->entries;
    usage->num_entering = copy_threads(usage->entering, usage->capacity, view->num_entering, view->entering);
    usage->num_waiting = copy_threads(usage->waiting, usage->capacity, view->num_waiting, view->waiting);
}

void vmpi_get_object_monitor_usage(const void *object, VMPI_MonitorUsage *usage) {
    usage->owner = NULL;
    usage->entry_count = usage->num_entering = usage->num_waiting = 0;
    UsageQuery query = {object, usage};
    if (vmpi_vm->each_monitor) vmpi_vm->each_monitor(vmpi_vm->vm, answer_usage, &query);
}

int32_t vmpi_send_monitor_dump(void) {
    Gc *gc = vmpi_gc();
    if (!gc) return VMPI_ERR;
    char *bytes = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&bytes, &len);
    if (!out) return VMPI_ERR;
    gc_disable(gc); /* the traces' method IDs and the requester's view stay put */
    if (vmpi_vm->each_monitor) vmpi_vm->each_monitor(vmpi_vm->vm, dump_java_monitor, out);
    vmpi_raw_monitor_each(dump_raw_monitor, out);
    bool written = !ferror(out);
    bool closed = fclose(out) == 0;
    int32_t num_traces = 0;
    VMPI_CallTrace *traces = vmpi_thread_traces(&num_traces);
    int32_t *status = calloc((size_t)num_traces + 1, sizeof *status);
    int32_t result = VMPI_ERR;
    if (written && closed && traces && status && num_traces == (int32_t)vmpi_vm->num_threads(vmpi_vm->vm)) {
        for (int32_t t = 0; t < num_traces; t++) status[t] = vmpi_get_thread_status(traces[t].env_id);
        VMPI_Event event = {.event_type = VMPI_EVENT_MONITOR_DUMP | VMPI_REQUESTED_EVENT,
                            .env_id = vmpi_current_env()};
        event.u.monitor_dump.begin = bytes;
        event.u.monitor_dump.end = bytes + len;
        event.u.monitor_dump.num_traces = num_traces;
        event.u.monitor_dump.traces = traces;
        event.u.monitor_dump.threads_status = status;
        vmpi_dispatch(&event, false); /* GC is already disabled */
        result = VMPI_OK;
    }
    free(status);
    vmpi_free_traces(traces, num_traces);
    free(bytes);
    gc_enable(gc);
    return result;
}
