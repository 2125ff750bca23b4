/*
 * recorder.c -- the VM's own binary recording (recorder.h): the trace
 * agent's format=binary, with the agent's writer (trace_binary.h), its
 * thread numbers and its events, written from inside VMPI.
 *
 * Events come from every VM thread, and from the collector's thread, so one
 * lock guards the writer.  It is a spin lock: it is held for the few dozen
 * instructions of one event, never across a call that blocks or allocates,
 * and taking a free one costs one atomic exchange where a mutex's lock and
 * unlock cost some fifty instructions an event.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dispatch.h"
#include "recorder.h"
#include "vmpi/agents/common/trace_binary.h"
#include "vmpi/agents/common/trace_threads.h"
#include "vmpi/control.h"

bool vmpi_recording;
uint8_t vmpi_recorded[VMPI_EVENT_CODE_LIMIT];

static atomic_flag busy = ATOMIC_FLAG_INIT;
static TraceOutput out;
static TraceBinary writer;
static bool writing;         /* from the header until JVM_SHUT_DOWN */
static char path[4096];

static TraceThreads threads; /* numbered as the trace agent numbers them */

static __attribute__((noinline)) void wait_for_lock(void) {
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) sched_yield();
}

/* The taking inline, the waiting not: the heap events' fast path calls nothing. */
static inline void lock(void) {
    if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) wait_for_lock();
}

static void unlock(void) { atomic_flag_clear_explicit(&busy, memory_order_release); }

/* The events -agentlib:trace records with its default options. */
static const int32_t recorded_codes[] = {TRACE_DEFAULT_EVENT_CODES};

bool vmpi_start_recording(const char *file, char *err, size_t errsize) {
    if ((size_t)snprintf(path, sizeof path, "%s", file) >= sizeof path) {
        snprintf(err, errsize, "--record: file name too long");
        return false;
    }
    if (!trace_output_open(&out, path)) {
        snprintf(err, errsize, "--record: cannot open %s: %s", path, strerror(errno));
        return false;
    }
    vmpi_recording = true;
    for (size_t i = 0; i < sizeof recorded_codes / sizeof recorded_codes[0]; i++) {
        vmpi_recorded[recorded_codes[i]] = 1;
        vmpi_refresh_enabled(recorded_codes[i]);
    }
    return true;
}

/* Before the first event, with the lock held and `writing` false: writes
 * the header and returns true, or releases the lock and returns false if
 * the recording has ended. */
static __attribute__((noinline)) bool start_writing(void) {
    if (!vmpi_recording) {
        unlock();
        return false;
    }
    trace_binary_start(&writer, &out, VMPI_VERSION_1, vmpi_vm ? vmpi_vm->collector_name(vmpi_vm->vm) : NULL);
    writing = true;
    return true;
}

/* Takes the lock for an event: true with the header written, or false,
 * the lock released, once the recording has ended. */
static inline bool begin_event(void) {
    lock();
    return writing || start_writing();
}

void vmpi_record_event(const VMPI_Event *event) {
    int32_t code = event->event_type & ~VMPI_REQUESTED_EVENT;
    if (code <= 0 || code >= VMPI_EVENT_CODE_LIMIT || !vmpi_recorded[code]) return;
    /* These three are written where they are posted (events.c). */
    if (code == VMPI_EVENT_OBJECT_ALLOC || code == VMPI_EVENT_OBJECT_MOVE || code == VMPI_EVENT_OBJECT_FREE) return;
    if (!begin_event()) return;
    trace_threads_note(&threads, event);
    trace_binary_event(&writer, event, trace_thread_number(&threads, event->env_id));
    unlock();
}

/* The heap events: the fields read after the lock is taken, so that only
 * the arguments are kept across the calls of the slow paths. */
void vmpi_record_object_alloc(const uint64_t *bytes_allocated, uint32_t arena_id, const Obj *obj, size_t size) {
    (void)bytes_allocated;
    VMPI_ThreadID env = vmpi_current_env();
    if (!begin_event()) return;
    VMPI_Event event; /* only the fields are set: for the writer's arguments */
    vmpi_set_object_alloc_fields(&event, (VMPI_ArenaID)arena_id, obj, size);
    trace_binary_object_alloc(&writer, trace_thread_number(&threads, env), event.u.obj_alloc.arena_id,
                              event.u.obj_alloc.class_id, event.u.obj_alloc.is_array, event.u.obj_alloc.size,
                              event.u.obj_alloc.obj_id);
    unlock();
}

void vmpi_record_object_move(uint32_t arena_id, const Obj *obj, uint32_t new_arena_id, const Obj *new_obj) {
    VMPI_ThreadID env = vmpi_current_env();
    if (!begin_event()) return;
    trace_binary_object_move(&writer, trace_thread_number(&threads, env), (VMPI_ArenaID)arena_id,
                             (VMPI_ObjectID)(uintptr_t)obj, (VMPI_ArenaID)new_arena_id,
                             (VMPI_ObjectID)(uintptr_t)new_obj);
    unlock();
}

void vmpi_record_object_free(const Obj *obj) {
    VMPI_ThreadID env = vmpi_current_env();
    if (!begin_event()) return;
    trace_binary_object_free(&writer, trace_thread_number(&threads, env), (VMPI_ObjectID)(uintptr_t)obj);
    unlock();
}

static void report_write_error(int error) {
    /* Possibly still in thread-suspended mode: write(2), not stdio. */
    const char *parts[] = {"vmrun: --record: cannot write ", path, ": ", strerror(error), "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0) return;
}

void vmpi_record_shut_down(void) {
    if (!begin_event()) return;
    VMPI_Event event = {.event_type = VMPI_EVENT_JVM_SHUT_DOWN, .env_id = vmpi_current_env()};
    trace_binary_event(&writer, &event, trace_thread_number(&threads, event.env_id));
    vmpi_recording = writing = false;
    memset(vmpi_recorded, 0, sizeof vmpi_recorded); /* the VM posts for it no more */
    int error = trace_output_close(&out);
    if (error) report_write_error(error);
    unlock();
}
