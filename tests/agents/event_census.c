/*
 * event_census.c -- a test agent that enables every event EnableEvent
 * accepts, found by walking vmpi.h's event table, and writes down which
 * of them arrive.  tests/cli/event_census.sh runs it over several programs
 * and fails on any event the VM accepted but never posted.
 *
 *     -agentlib:event_census=file=F
 *
 * F gets one line per fact, "KIND NAME":
 *   accepted NAME    EnableEvent(NAME) returned VMPI_OK
 *   posted NAME      NAME arrived without VMPI_REQUESTED_EVENT
 *   requested NAME   RequestEvent(NAME) returned VMPI_OK
 *   answered NAME    NAME arrived with VMPI_REQUESTED_EVENT
 *
 * To give every accepted event its chance it also sets a heap sampling
 * interval of 0 (SAMPLED_OBJECT_ALLOC), requests the events that are only
 * ever requested (HEAP_DUMP, OBJECT_DUMP, MONITOR_DUMP), sends its own
 * process SIGQUIT and SIGUSR2 (the data requests, served at the program's
 * first safepoint) and, when raw monitor contention is accepted, makes a
 * system thread contend for a raw monitor the main thread holds.  A request that is refused is not counted:
 * only what the VM says it does is checked.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static char path[4096] = "event_census.txt";
static bool accepted[VMPI_EVENT_CODE_LIMIT], requested[VMPI_EVENT_CODE_LIMIT];
static atomic_bool posted[VMPI_EVENT_CODE_LIMIT], answered[VMPI_EVENT_CODE_LIMIT];
static atomic_bool object_dump_requested;

static const int32_t table_codes[] = {
#define EVENT_CODE(name, code, member) code,
    VMPI_EVENTS(EVENT_CODE)
#undef EVENT_CODE
};
#define NUM_CODES (sizeof table_codes / sizeof table_codes[0])

static void pause_briefly(void) {
    struct timespec delay = {0, 1000000}; /* 1 ms */
    nanosleep(&delay, NULL);
}

/* ---- raw monitor contention ------------------------------------------------------ */

/* Each round the main thread holds `contended` while a system thread tries
 * to enter it (CONTENDED_ENTER), lets it in once it waits (CONTENDED_EXIT
 * on the way out, CONTENDED_ENTERED for the waiter).  Rounds repeat until
 * the exit was seen: the waiter counts as waiting only after its ENTER
 * event, so a round may miss the EXIT. */
static VMPI_RawMonitor contended;
static atomic_int contender_enters, contenders_done;

static void contender(void *arg) {
    (void)arg;
    vmpi->RawMonitorEnter(contended);
    vmpi->RawMonitorExit(contended);
    atomic_fetch_add(&contenders_done, 1);
}

/* Waits (at most about ten seconds) until *counter reaches `target`. */
static bool wait_for(atomic_int *counter, int target) {
    for (int i = 0; i < 10000; i++) {
        if (atomic_load(counter) >= target) return true;
        pause_briefly();
    }
    return false;
}

static void drive_contention(void) {
    contended = vmpi->RawMonitorCreate("census contended");
    for (int round = 1; round <= 50 && !atomic_load(&posted[VMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT]); round++) {
        vmpi->RawMonitorEnter(contended);
        if (vmpi->CreateSystemThread("census contender", 0, contender) != VMPI_OK) {
            vmpi->RawMonitorExit(contended);
            return;
        }
        bool waiting = wait_for(&contender_enters, round);
        for (int i = 0; waiting && i < 20; i++) pause_briefly(); /* until it blocks */
        vmpi->RawMonitorExit(contended);
        if (!wait_for(&contenders_done, round)) return;
    }
}

/* ---- events ---------------------------------------------------------------------- */

static void request(int32_t code, void *arg) {
    if (vmpi->RequestEvent(code, arg) == VMPI_OK) requested[code] = true;
}

static void write_census(void) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    for (size_t i = 0; i < NUM_CODES; i++) {
        int32_t code = table_codes[i];
        const char *name = vmpi_event_name(code);
        if (accepted[code]) fprintf(f, "accepted %s\n", name);
        if (atomic_load(&posted[code])) fprintf(f, "posted %s\n", name);
        if (requested[code]) fprintf(f, "requested %s\n", name);
        if (atomic_load(&answered[code])) fprintf(f, "answered %s\n", name);
    }
    if (fclose(f) != 0) perror(path);
}

static void notify_event(VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code < 0 || code >= VMPI_EVENT_CODE_LIMIT) return;
    atomic_store((event->event_type & VMPI_REQUESTED_EVENT) ? &answered[code] : &posted[code], true);
    if (event->event_type & VMPI_REQUESTED_EVENT) return;
    switch (code) {
    case VMPI_EVENT_JVM_INIT_DONE: {
        VMPI_HeapDumpArg level = {VMPI_DUMP_LEVEL_0};
        request(VMPI_EVENT_HEAP_DUMP, &level);
        request(VMPI_EVENT_MONITOR_DUMP, NULL);
        raise(SIGQUIT);
        raise(SIGUSR2);
        if (accepted[VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER]) drive_contention();
        break;
    }
    case VMPI_EVENT_OBJECT_ALLOC: /* the new object is live: dump it, once */
        if (!atomic_exchange(&object_dump_requested, true))
            request(VMPI_EVENT_OBJECT_DUMP, event->u.obj_alloc.obj_id);
        break;
    case VMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER:
        if (event->u.raw_monitor.id == contended) atomic_fetch_add(&contender_enters, 1);
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        write_census();
        break;
    default:
        break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    if (strncmp(options, "file=", 5) == 0) snprintf(path, sizeof path, "%s", options + 5);
    else if (*options) {
        fprintf(stderr, "event_census: unknown options '%s' (file=F)\n", options);
        return VMPI_ERR;
    }
    vmpi->NotifyEvent = notify_event;
    for (size_t i = 0; i < NUM_CODES; i++)
        accepted[table_codes[i]] = vmpi->EnableEvent(table_codes[i], NULL) == VMPI_OK;
    if (accepted[VMPI_EVENT_SAMPLED_OBJECT_ALLOC]) vmpi->SetHeapSamplingInterval(0);
    return VMPI_OK;
}
