/* overlap_counter.c -- counts how many of its handlers ran while another
 * of its handlers was running on another OS thread, and checks where the
 * collection events come from (docs/architecture.md "Threads").
 *
 * Options: events=alloc (OBJECT_ALLOC, the default) or events=methods
 * (METHOD_ENTRY and METHOD_EXIT).  GC_START and GC_FINISH are always on.
 * At JVM_SHUT_DOWN it prints on stderr
 *
 *     overlap_counter: handlers=N overlapped=M most_at_once=K
 *       gc_events=G gc_on_program_thread=P gc_beside_handler=B
 *
 * overlapped counts the handler calls that found another one running;
 * gc_on_program_thread the GC events whose env_id named a program thread
 * or whose thread had a call trace; gc_beside_handler the GC events that came while a
 * program thread's handler ran (the VM promises none).  Each handler stays
 * a few microseconds, as one that walks a stack or updates a table would. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static atomic_int running_now;
static atomic_long handlers, overlapped, most_at_once, gc_events, gc_on_program_thread, gc_beside_handler;

static void stay_a_little(void) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 3000);
}

static void program_event(void) {
    long at_once = atomic_fetch_add(&running_now, 1) + 1;
    atomic_fetch_add(&handlers, 1);
    if (at_once > 1) atomic_fetch_add(&overlapped, 1);
    long most = atomic_load(&most_at_once);
    while (at_once > most && !atomic_compare_exchange_weak(&most_at_once, &most, at_once)) {}
    stay_a_little();
    atomic_fetch_sub(&running_now, 1);
}

static void gc_event(const VMPI_Event *event) {
    atomic_fetch_add(&gc_events, 1);
    /* GetCallTrace of the calling thread (env_id NULL) has frames only on a program thread. */
    VMPI_CallFrame frame;
    VMPI_CallTrace trace = {.env_id = NULL, .frames = &frame};
    vmpi->GetCallTrace(&trace, 1);
    if (event->env_id || trace.num_frames > 0) atomic_fetch_add(&gc_on_program_thread, 1);
    if (atomic_load(&running_now) > 0) atomic_fetch_add(&gc_beside_handler, 1);
}

static void notify(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_GC_START:
    case VMPI_EVENT_GC_FINISH: gc_event(event); break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        fprintf(stderr,
                "overlap_counter: handlers=%ld overlapped=%ld most_at_once=%ld gc_events=%ld "
                "gc_on_program_thread=%ld gc_beside_handler=%ld\n",
                atomic_load(&handlers), atomic_load(&overlapped), atomic_load(&most_at_once),
                atomic_load(&gc_events), atomic_load(&gc_on_program_thread), atomic_load(&gc_beside_handler));
        break;
    default: program_event(); break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    bool methods = options && strcmp(options, "events=methods") == 0;
    if (options && *options && !methods && strcmp(options, "events=alloc") != 0) {
        fprintf(stderr, "overlap_counter: options are events=alloc or events=methods\n");
        return VMPI_ERR;
    }
    if (methods) {
        vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
        vmpi->EnableEvent(VMPI_EVENT_METHOD_EXIT, NULL);
    } else {
        vmpi->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    }
    vmpi->EnableEvent(VMPI_EVENT_GC_START, NULL);
    vmpi->EnableEvent(VMPI_EVENT_GC_FINISH, NULL);
    vmpi->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    return VMPI_OK;
}
