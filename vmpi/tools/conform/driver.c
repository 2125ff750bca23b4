/*
 * driver.c -- the conformance runner's driver agent (libconform_driver.so,
 * -agentlib:conform_driver): vmpi-conform loads it beside check and the
 * agent under test to make the VM do what agents rarely ask for but real
 * ones meet.  It holds collection disabled (DisableGC) for stretches of
 * the run, at seeded random points, so that the agent under test sees the
 * heap grow past its budget while GC is off (docs/contracts.md, "GC
 * disabled": every collector grows rather than fail) and then a collection
 * that brings it back.
 *
 *     -agentlib:conform_driver=heap=BYTES[,seed=S][,hold_every=N][,grow_by=BYTES][,agent_thread=y]
 *
 *   heap=BYTES      the heap's budget (vmrun --heap)
 *   seed=S          seeds the points (default 0): same seed, same run, same
 *                   points
 *   hold_every=N    on average every Nth OBJECT_ALLOC outside a hold starts
 *                   one (0, the default: never)
 *   grow_by=BYTES   a hold lasts until the objects in use take this many
 *                   bytes more than the budget (default 16384)
 *   agent_thread=y  from JVM_INIT_DONE on, an agent's system thread calls
 *                   DisableGC and EnableGC, asks for a data dump
 *                   (RequestEvent(DATA_DUMP_REQUEST)) and a level-0 heap
 *                   dump, and calls RunGC, every millisecond while the
 *                   program's threads run; at JVM_SHUT_DOWN it says
 *                   "conform_driver: agent thread: R RunGC, D DisableGC,
 *                   A data dumps answered, H heap dumps"
 *
 * The bytes in use are the last GC_FINISH's used_object_space plus every
 * OBJECT_ALLOC since (nothing is freed outside a collection), so a hold
 * that ends by itself has made the heap grow past its budget.
 *
 * Handlers of different threads may run at once (vmrun without
 * --seed): one mutex guards the state.  DisableGC and
 * EnableGC are called holding it; from a handler beside other threads they
 * wait for the VM, which no handler that keeps the VM needs the mutex for
 * (the driver handles no monitor event).
 *
 * A hold starts and ends inside an OBJECT_ALLOC handler, which is never
 * inside a collection (RunGC is never called), and one still held at
 * JVM_SHUT_DOWN is given back there, so DisableGC and EnableGC balance.
 * At JVM_SHUT_DOWN it prints on stderr
 *
 *     conform_driver: ok: H holds, G grew past the heap (peak X bytes in
 *     use, heap Y), C brought back within it
 *
 * where G counts the holds in which the bytes in use passed the budget and
 * C the collections that came first after such a hold and reported
 * used_object_space within it again.  A collection that starts while it
 * holds GC disabled breaks the VM's promise, and so does a requested event
 * (it requests none but the agent thread's data and heap dumps, so another
 * would be an answer meant for another agent:
 * check's catch-up and dumps, say), and so does a heap dump answered on the
 * agent thread while a handler runs on a program thread (the VM stops the
 * program threads for it, docs/contracts.md "Handlers that overlap"):
 * "conform_driver: FAIL: why" and ProfilerExit(1).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/agent_common.h"
#include "vmpi_random.h"
#include "vmpi.h"

static VMPI_Interface *vmpi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t heap_bytes, hold_every, grow_by = 16384, random_state;
static uint64_t allocations_to_hold;   /* countdown to the next hold; 0: none */
static bool holding;
static bool after_hold;                /* the next GC_FINISH is the first since a hold */
static bool failed;
static uint64_t used_bytes;            /* in use now: see the top */
static uint64_t holds, grown_holds, peak_used_bytes, back_within;
/* The agent thread (agent_thread=y): its calls, and the dumps answered. */
static bool agent_thread;
static atomic_bool shutting_down;
static atomic_uint_fast64_t thread_run_gcs, thread_disables;
static uint64_t dumps_answered, heap_dumps_answered;
/* The driver's handlers running on program threads now (not the GC
 * thread's, nor the agent thread's answers). */
static atomic_int program_handlers_running;

static void end_hold(void) {
    holding = false;
    after_hold = used_bytes > heap_bytes;
    holds++;
    if (used_bytes > heap_bytes) grown_holds++;
    vmpi->EnableGC();
}

static void allocated(const VMPI_Event *event) {
    used_bytes += (uint64_t)event->u.obj_alloc.size;
    if (holding) {
        if (used_bytes > peak_used_bytes) peak_used_bytes = used_bytes;
        if (used_bytes >= heap_bytes + grow_by) end_hold();
    } else if (allocations_to_hold && --allocations_to_hold == 0) {
        allocations_to_hold = agent_random_gap(&random_state, hold_every);
        vmpi->DisableGC();
        holding = true;
    }
}

/* Says why; notify ends the run once it has let go of the lock (the
 * exit sends JVM_SHUT_DOWN, whose handler takes it again). */
static void fail(const char *why) {
    failed = true;
    agent_say("conform_driver: FAIL: %s\n", why);
}

/* The agent thread: what HPROF's front-end listener does, and more, while
 * the program's threads run. */
static void agent_thread_run(void *arg) {
    (void)arg;
    while (!atomic_load(&shutting_down)) {
        vmpi->DisableGC();
        atomic_fetch_add(&thread_disables, 1);
        vmpi->EnableGC();
        vmpi->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL);
        VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
        vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level0);
        vmpi->RunGC();
        atomic_fetch_add(&thread_run_gcs, 1);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

static void notify_locked(VMPI_Event *event) {
    if (failed) return;
    if (event->event_type == (VMPI_EVENT_DATA_DUMP_REQUEST | VMPI_REQUESTED_EVENT) && agent_thread) {
        dumps_answered++;
        return;
    }
    if (event->event_type == (VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT) && agent_thread) {
        heap_dumps_answered++;
        if (atomic_load(&program_handlers_running) > 0)
            fail("a heap dump asked for on the agent thread was answered while a program thread ran a handler "
                 "(the program threads were not stopped)");
        return;
    }
    if (event->event_type & VMPI_REQUESTED_EVENT) {
        /* It never calls RequestEvent: this is another agent's answer. */
        fail("a requested event arrived, but this agent requested nothing (an answer sent to the wrong agent)");
        return;
    }
    switch (event->event_type) {
    case VMPI_EVENT_OBJECT_ALLOC:
        allocated(event);
        break;
    case VMPI_EVENT_GC_START:
        if (holding) fail("a collection started while GC was held disabled");
        break;
    case VMPI_EVENT_GC_FINISH:
        if (after_hold && event->u.gc_info.used_object_space <= (int64_t)heap_bytes) back_within++;
        after_hold = false;
        used_bytes = (uint64_t)event->u.gc_info.used_object_space;
        break;
    case VMPI_EVENT_JVM_SHUT_DOWN:
        atomic_store(&shutting_down, true);
        if (agent_thread)
            agent_say("conform_driver: agent thread: %" PRIu64 " RunGC, %" PRIu64 " DisableGC, %" PRIu64
                      " data dumps answered, %" PRIu64 " heap dumps\n", (uint64_t)atomic_load(&thread_run_gcs),
                      (uint64_t)atomic_load(&thread_disables), dumps_answered, heap_dumps_answered);
        if (holding) end_hold();
        if (!failed)
            agent_say("conform_driver: ok: %" PRIu64 " holds, %" PRIu64 " grew past the heap (peak %" PRIu64
                " bytes in use, heap %" PRIu64 "), %" PRIu64 " brought back within it\n",
                holds, grown_holds, peak_used_bytes, heap_bytes, back_within);
        break;
    default:
        break;
    }
}

static void notify(VMPI_Event *event) {
    /* Not under the lock: the thread's object is allocated, and its
     * OBJECT_ALLOC comes here on this thread. */
    if (event->event_type == VMPI_EVENT_JVM_INIT_DONE) {
        if (agent_thread && vmpi->CreateSystemThread("conform_driver", 0, agent_thread_run) != VMPI_OK) {
            agent_say("conform_driver: FAIL: CreateSystemThread failed\n");
            vmpi->ProfilerExit(1);
        }
        return;
    }
    bool on_program_thread = event->env_id && !(event->event_type & VMPI_REQUESTED_EVENT);
    if (on_program_thread) atomic_fetch_add(&program_handlers_running, 1);
    pthread_mutex_lock(&lock);
    bool failed_before = failed;
    notify_locked(event);
    bool exits = failed && !failed_before;
    pthread_mutex_unlock(&lock);
    if (on_program_thread) atomic_fetch_sub(&program_handlers_running, 1);
    if (exits) vmpi->ProfilerExit(1);
}

/* NAME=COUNT, a whole decimal number, into *count. */
static bool count_option(const char *item, const char *name, uint64_t *count) {
    size_t len = strlen(name);
    if (strncmp(item, name, len) != 0 || item[len] != '=' || item[len + 1] < '0' || item[len + 1] > '9') return false;
    char *end;
    *count = strtoull(item + len + 1, &end, 10);
    return *end == '\0';
}

static bool parse_options(char *options) {
    uint64_t seed = 0;
    char *rest = options;
    for (char *item; (item = strtok_r(rest, ",", &rest)) != NULL;) {
        if (!count_option(item, "heap", &heap_bytes) && !count_option(item, "seed", &seed) &&
            !count_option(item, "hold_every", &hold_every) && !count_option(item, "grow_by", &grow_by) &&
            strcmp(item, "agent_thread=y") != 0)
            return false;
        if (strcmp(item, "agent_thread=y") == 0) agent_thread = true;
    }
    if (heap_bytes == 0) return false;
    random_state = seed;
    allocations_to_hold = agent_random_gap(&random_state, hold_every);
    return true;
}

VMPI_EXPORT int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!options || !parse_options(options)) {
        fputs("conform_driver: options are heap=BYTES[,seed=S][,hold_every=N][,grow_by=BYTES][,agent_thread=y]\n",
              stderr);
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    static const int32_t events[] = {VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_GC_START, VMPI_EVENT_GC_FINISH,
                                     VMPI_EVENT_JVM_INIT_DONE, VMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (vmpi->EnableEvent(events[i], NULL) != VMPI_OK) return VMPI_ERR;
    return VMPI_OK;
}
