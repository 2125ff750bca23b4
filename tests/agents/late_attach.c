/* late_attach.c -- an agent that enables the heap events late and catches
 * up, for tests/heap/late_attach.gcl: when attach() is entered (the heap
 * then holds everything the program built), it holds DisableGC, enables the
 * heap events, and learns the heap as it stands (docs/contracts.md,
 * "Requested events and late attach"):
 *
 *   RequestEvent(ARENA_NEW, NULL)     every live arena, with its name
 *   RequestEvent(HEAP_DUMP, level 0)  every live object ID
 *   RequestEvent(OBJECT_ALLOC, id)    per ID: its arena, class and size
 *
 * It checks that every requested OBJECT_ALLOC answered, for the ID asked,
 * in an arena the replay named, and prints on stderr
 *
 *   late_attach: ok: learned N objects in A arenas (names) in S s (C s of CPU)
 *
 * or "late_attach: FAIL: why" and ProfilerExit(1).  The time is the whole
 * catch-up, from the first request to the last answer, on the clock and in
 * the thread's CPU time (GetCurrentThreadCpuTime, which a busy machine
 * does not inflate): the benchmark
 * (tests/bench/late_attach.sh) reads it; no test does.  With the option
 * objects=N it also checks that it learned exactly N objects.  It enables
 * the heap events as a real agent would, so that nothing after the
 * catch-up is missed, but only the catch-up is its business: it does not
 * go on to track them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

static VMPI_Interface *vmpi;
static long expected_objects = -1;
static VMPI_MethodID attach_method;
static bool attached;

#define MAX_ARENAS 16
static VMPI_ArenaID arenas[MAX_ARENAS];
static char arena_names[128];
static int num_arenas;

static void **dump_ids;    /* from the level-0 dump */
static size_t num_dump_ids;

typedef struct Learned {
    void *obj_id;
    void *class_id;
    int32_t size;
    VMPI_ArenaID arena_id;
} Learned;
static Learned *learned;   /* one per requested OBJECT_ALLOC, in request order */
static size_t num_learned;

static void fail(const char *why) {
    fprintf(stderr, "late_attach: FAIL: %s\n", why);
    vmpi->ProfilerExit(1);
}

static void learn_arena(const VMPI_Event *e) {
    if (num_arenas == MAX_ARENAS) {
        fail("more arenas than this agent holds");
        return;
    }
    arenas[num_arenas++] = e->u.new_arena.arena_id;
    size_t used = strlen(arena_names);
    snprintf(arena_names + used, sizeof arena_names - used, "%s%d \"%s\"", used ? ", " : "",
             (int)e->u.new_arena.arena_id, e->u.new_arena.arena_name);
}

static void learn_dump(const VMPI_Event *e) {
    const size_t record = 1 + sizeof(void *);
    size_t bytes = (size_t)(e->u.heap_dump.end - e->u.heap_dump.begin);
    num_dump_ids = bytes / record;
    dump_ids = malloc((num_dump_ids + 1) * sizeof *dump_ids);
    learned = malloc((num_dump_ids + 1) * sizeof *learned);
    if (!dump_ids || !learned) {
        fail("out of memory");
        return;
    }
    for (size_t i = 0; i < num_dump_ids; i++) memcpy(&dump_ids[i], e->u.heap_dump.begin + i * record + 1, sizeof(void *));
}

static void learn_object(const VMPI_Event *e) {
    if (!learned || num_learned == num_dump_ids) {
        fail("an OBJECT_ALLOC that was not asked for");
        return;
    }
    learned[num_learned++] = (Learned){e->u.obj_alloc.obj_id, e->u.obj_alloc.class_id, e->u.obj_alloc.size,
                                       e->u.obj_alloc.arena_id};
}

static bool arena_known(VMPI_ArenaID arena_id) {
    for (int i = 0; i < num_arenas; i++)
        if (arenas[i] == arena_id) return true;
    return false;
}

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static const int32_t heap_events[] = {VMPI_EVENT_ARENA_NEW,   VMPI_EVENT_ARENA_DELETE, VMPI_EVENT_OBJECT_ALLOC,
                                      VMPI_EVENT_OBJECT_FREE, VMPI_EVENT_OBJECT_MOVE,  VMPI_EVENT_GC_START,
                                      VMPI_EVENT_GC_FINISH};

static void catch_up(void) {
    attached = true;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int64_t cpu_start = vmpi->GetCurrentThreadCpuTime();
    vmpi->DisableGC(); /* nothing moves or dies until the agent knows it all */
    for (size_t i = 0; i < sizeof heap_events / sizeof *heap_events; i++)
        if (vmpi->EnableEvent(heap_events[i], NULL) != VMPI_OK) fail("EnableEvent refused a heap event");
    if (vmpi->RequestEvent(VMPI_EVENT_ARENA_NEW, NULL) != VMPI_OK) fail("RequestEvent(ARENA_NEW) failed");
    VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
    if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level0) != VMPI_OK) fail("RequestEvent(HEAP_DUMP) failed");
    for (size_t i = 0; i < num_dump_ids; i++)
        if (vmpi->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, dump_ids[i]) != VMPI_OK)
            fail("RequestEvent(OBJECT_ALLOC) failed for an ID of the dump");
    vmpi->EnableGC();
    double seconds = seconds_since(&start);
    double cpu_seconds = (double)(vmpi->GetCurrentThreadCpuTime() - cpu_start) / 1e9;

    if (num_arenas == 0) fail("no arena was replayed");
    if (num_learned != num_dump_ids) fail("not one OBJECT_ALLOC per ID of the dump");
    for (size_t i = 0; i < num_learned; i++) {
        if (learned[i].obj_id != dump_ids[i]) fail("an OBJECT_ALLOC for another ID than the one asked for");
        if (!arena_known(learned[i].arena_id)) fail("an object in an arena the replay did not name");
        if (learned[i].size <= 0 || !learned[i].class_id) fail("an object without size or class");
    }
    if (expected_objects >= 0 && (long)num_learned != expected_objects) {
        fprintf(stderr, "late_attach: FAIL: learned %zu objects, expected %ld\n", num_learned, expected_objects);
        vmpi->ProfilerExit(1);
    }
    fprintf(stderr, "late_attach: ok: learned %zu objects in %d arenas (%s) in %.3f s (%.3f s of CPU)\n",
            num_learned, num_arenas, arena_names, seconds, cpu_seconds);
    free(dump_ids);
    free(learned);
    dump_ids = NULL;
    learned = NULL;
}

static void learn_class(const VMPI_Event *e) {
    for (int32_t i = 0; i < e->u.class_load.num_methods; i++)
        if (strcmp(e->u.class_load.methods[i].method_name, "attach") == 0)
            attach_method = e->u.class_load.methods[i].method_id;
}

static void notify(VMPI_Event *e) {
    bool requested = (e->event_type & VMPI_REQUESTED_EVENT) != 0;
    switch (e->event_type & ~VMPI_REQUESTED_EVENT) {
    case VMPI_EVENT_CLASS_LOAD:
        learn_class(e);
        break;
    case VMPI_EVENT_METHOD_ENTRY:
        if (!attached && attach_method && e->u.method.method_id == attach_method) catch_up();
        break;
    case VMPI_EVENT_ARENA_NEW:
        if (requested) learn_arena(e);
        break;
    case VMPI_EVENT_HEAP_DUMP:
        learn_dump(e);
        break;
    case VMPI_EVENT_OBJECT_ALLOC:
        if (requested) learn_object(e);
        break;
    default:
        break;
    }
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)reserved;
    if (options[0] && sscanf(options, "objects=%ld", &expected_objects) != 1) {
        fprintf(stderr, "late_attach: the one option is objects=N\n");
        return VMPI_ERR;
    }
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify;
    if (vmpi->EnableEvent(VMPI_EVENT_CLASS_LOAD, NULL) != VMPI_OK) return VMPI_ERR;
    return vmpi->EnableEvent(VMPI_EVENT_METHOD_ENTRY, NULL);
}
