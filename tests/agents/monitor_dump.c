/*
 * monitor_dump.c -- a test agent for MONITOR_DUMP (JVMPI 1.2 section 4.4):
 * at JVM_INIT_DONE it holds raw monitors in known states, requests dumps
 * and writes, on stderr, what the dump says of each of its monitors:
 *
 *   monitor_dump: STEP: NAME owner=OWNER entries=N entering=E notified=W
 *   monitor_dump: STEP: threads=T status=S frames_env=ENV
 *
 * OWNER is "me" (the requesting thread), "none" (NULL) or "other"; ENV is
 * "me" when the first trace is the requesting thread's.  Steps:
 *   held     "held" entered twice by the main thread, "free" never
 *   entering a system thread blocked entering "held"
 *   waiting  a system thread waiting on "cond" to be notified
 * A step that waits for a system thread gives up after about ten seconds
 * and writes what the last dump said.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static VMPI_RawMonitor held, free_monitor, cond;
static atomic_int threads_done;

typedef struct Seen {
    VMPI_ThreadID requester;
    VMPI_RawMonitor wanted;
    const char *wanted_name;
    bool found;
    const void *owner;
    uint32_t entries, entering, notified;
    int32_t num_traces, status;
    VMPI_ThreadID first_trace_env;
} Seen;

static Seen *seen; /* where notify_event puts the dump it gets */

static const unsigned char *get(const unsigned char *p, void *into, size_t n) {
    memcpy(into, p, n);
    return p + n;
}

static void read_dump(const VMPI_Event *event) {
    seen->num_traces = event->u.monitor_dump.num_traces;
    seen->status = seen->num_traces > 0 ? event->u.monitor_dump.threads_status[0] : -1;
    seen->first_trace_env = seen->num_traces > 0 ? event->u.monitor_dump.traces[0].env_id : NULL;
    const unsigned char *p = (const unsigned char *)event->u.monitor_dump.begin;
    const unsigned char *end = (const unsigned char *)event->u.monitor_dump.end;
    while (p < end) {
        uint8_t type;
        const void *name, *id, *owner, *waiter;
        uint32_t entries, entering, notified;
        p = get(p, &type, 1);
        if (type != VMPI_MONITOR_RAW) {
            fprintf(stderr, "monitor_dump: record type %d\n", type);
            return;
        }
        p = get(p, &name, sizeof name);
        p = get(p, &id, sizeof id);
        p = get(p, &owner, sizeof owner);
        p = get(p, &entries, 4);
        p = get(p, &entering, 4);
        for (uint32_t i = 0; i < entering; i++) p = get(p, &waiter, sizeof waiter);
        p = get(p, &notified, 4);
        for (uint32_t i = 0; i < notified; i++) p = get(p, &waiter, sizeof waiter);
        if (id != (const void *)seen->wanted) continue;
        seen->found = strcmp(name, seen->wanted_name) == 0;
        seen->owner = owner;
        seen->entries = entries;
        seen->entering = entering;
        seen->notified = notified;
    }
}

static Seen dump(VMPI_RawMonitor wanted, const char *name, VMPI_ThreadID requester) {
    Seen s = {.requester = requester, .wanted = wanted, .wanted_name = name};
    seen = &s;
    if (vmpi->RequestEvent(VMPI_EVENT_MONITOR_DUMP, NULL) != VMPI_OK) fprintf(stderr, "monitor_dump: refused\n");
    seen = NULL;
    return s;
}

static void report(const char *step, const char *name, const Seen *s) {
    if (!s->found) {
        fprintf(stderr, "monitor_dump: %s: %s not in the dump, or not by its name\n", step, name);
        return;
    }
    const char *owner = s->owner == (const void *)s->requester ? "me" : s->owner ? "other" : "none";
    fprintf(stderr, "monitor_dump: %s: %s owner=%s entries=%u entering=%u notified=%u\n", step, name, owner,
            s->entries, s->entering, s->notified);
}

static void pause_briefly(void) {
    struct timespec delay = {0, 1000000}; /* 1 ms */
    nanosleep(&delay, NULL);
}

/* Dumps until one thread is entering (or waiting on) `wanted`, or gives up. */
static Seen dump_until(VMPI_RawMonitor wanted, const char *name, VMPI_ThreadID requester, bool entering) {
    Seen s = {0};
    for (int i = 0; i < 10000; i++) {
        s = dump(wanted, name, requester);
        if ((entering ? s.entering : s.notified) == 1) break;
        pause_briefly();
    }
    return s;
}

static void enter_held(void *arg) {
    (void)arg;
    vmpi->RawMonitorEnter(held);
    vmpi->RawMonitorExit(held);
    atomic_fetch_add(&threads_done, 1);
}

static void wait_on_cond(void *arg) {
    (void)arg;
    vmpi->RawMonitorEnter(cond);
    vmpi->RawMonitorWait(cond, 0);
    vmpi->RawMonitorExit(cond);
    atomic_fetch_add(&threads_done, 1);
}

static void notify_event(VMPI_Event *event) {
    if (event->event_type == (VMPI_EVENT_MONITOR_DUMP | VMPI_REQUESTED_EVENT)) {
        if (seen) read_dump(event);
        return;
    }
    if (event->event_type != VMPI_EVENT_JVM_INIT_DONE) return;
    VMPI_ThreadID me = event->env_id;
    vmpi->RawMonitorEnter(held);
    vmpi->RawMonitorEnter(held);
    Seen s = dump(held, "held", me);
    report("held", "held", &s);
    fprintf(stderr, "monitor_dump: held: threads=%d status=%d frames_env=%s\n", s.num_traces, s.status,
            s.first_trace_env == me ? "me" : "other");
    s = dump(free_monitor, "free", me);
    report("held", "free", &s);

    vmpi->CreateSystemThread("enterer", 0, enter_held);
    s = dump_until(held, "held", me, true);
    report("entering", "held", &s);

    vmpi->CreateSystemThread("waiter", 0, wait_on_cond);
    s = dump_until(cond, "cond", me, false);
    report("waiting", "cond", &s);

    vmpi->RawMonitorEnter(cond);
    vmpi->RawMonitorNotifyAll(cond);
    vmpi->RawMonitorExit(cond);
    vmpi->RawMonitorExit(held);
    vmpi->RawMonitorExit(held);
    for (int i = 0; i < 10000 && atomic_load(&threads_done) < 2; i++) pause_briefly();
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify_event;
    held = vmpi->RawMonitorCreate("held");
    free_monitor = vmpi->RawMonitorCreate("free");
    cond = vmpi->RawMonitorCreate("cond");
    return vmpi->EnableEvent(VMPI_EVENT_JVM_INIT_DONE, NULL);
}
