/*
 * thread_checker.c -- a test agent for threads and monitors in the
 * language: the fields of THREAD_START, THREAD_END, MONITOR_CONTENDED_*,
 * MONITOR_WAIT and MONITOR_WAITED, and GetThreadObject, GetThreadStatus,
 * GetCallTrace of other threads, per-thread GetCurrentThreadCpuTime and
 * SuspendThread from a system thread, and the INTERRUPTED bit, on
 * tests/threads/agent_program.gcl.
 * At JVM_SHUT_DOWN it writes, on stderr:
 *
 *   thread_checker: threads: starts=S ends=S named=S groups=S parents=P objects=S main_object=yes requested_by_object=S-1
 *   thread_checker: contended: enter/entered pairs ok, exits=yes, entrant waits=yes
 *   thread_checker: waits: timed=yes untimed=yes status=yes sleeps=1 (0 wrong)
 *   thread_checker: interrupt: woken early=yes, bit while set=yes, cleared=yes
 *   thread_checker: traces: every other thread's trace has frames
 *   thread_checker: cpu: the idle thread used less CPU than main
 *   thread_checker: suspension: others ran while spinner was suspended, its trace stable
 *   thread_checker: monitor dump: owners ok, entrants ok, notify waiters ok
 *   thread_checker: heap dump: every live thread's THREAD_BLOCK, the contended object's MONITOR_USED
 *   thread_checker: starting threads: D heap dumps, no root names a thread before its THREAD_START
 *
 * with the counts and "no" (or a count of failures) where a check failed.
 * What each checks is said where it is counted.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmpi.h"

#define MAX_THREADS 32
#define MAX_FRAMES 64

static VMPI_Interface *vmpi;

typedef struct Seen {
    VMPI_ThreadID env;
    char name[64];
    bool ended;
    bool system;              /* the agent's own system thread, "suspender": no bytecode, no frames */
    VMPI_ObjectID entering;   /* between CONTENDED_ENTER and _ENTERED */
    VMPI_ObjectID waiting;    /* between MONITOR_WAIT and MONITOR_WAITED */
    bool sleeping;            /* between MONITOR_WAIT and MONITOR_WAITED of no object */
    int64_t wait_timeout;
    int64_t cpu;              /* GetCurrentThreadCpuTime at its last event */
    atomic_long allocations;
} Seen;

static Seen threads[MAX_THREADS];
static atomic_int num_threads;
static VMPI_ThreadID main_env;
static atomic_uintptr_t spinner_env, allocator_index_plus_1;

static int starts, ends, named, groups, parents, objects;
static VMPI_ThreadID asked_for;  /* the thread whose THREAD_START was requested by its object */
static int answered_by_object;   /* requests by thread object answered for that thread */
static int pair_errors, entered, exits, exits_without_entrant;
static bool timed_wait_ok, untimed_wait_ok;
static int sleeps_ok, sleep_errors; /* the idle thread's sleep(5): MONITOR_WAIT/WAITED of NULL */
static int status_errors, trace_errors;
static bool seen_condvar_wait, seen_monitor_wait;
static int cpu_checked = -1; /* 1 ok, 0 failed, -1 never checked */
/* The interruptee's three waits (agent_program.gcl): 1 ok, 0 failed, -1 not seen. */
static int woken_early = -1, bit_while_set = -1, bit_cleared = -1;
static const char *suspension_result = "not tried";

static Seen *find(VMPI_ThreadID env);


/* MONITOR_DUMP, requested at the first MONITOR_DUMPS contended enters. */
#define MONITOR_DUMPS 50
static int dumps_requested, dumps_read, owner_errors, list_errors;
static bool seen_notify_waiter;
static VMPI_ObjectID dump_object; /* the monitor the requester is about to wait for */
static VMPI_ThreadID dump_requester;

static const unsigned char *read_id(const unsigned char *at, const void **id) {
    memcpy(id, at, sizeof *id);
    return at + sizeof *id;
}

static const unsigned char *read_u4(const unsigned char *at, uint32_t *v) {
    memcpy(v, at, sizeof *v);
    return at + sizeof *v;
}

/* A JVMPI_MONITOR_JAVA record's thread list: each thread must be one the
 * agent saw enter or wait on `object` (in_wait: wait only). */
static const unsigned char *check_list(const unsigned char *at, VMPI_ObjectID object, bool in_wait) {
    uint32_t n;
    at = read_u4(at, &n);
    for (uint32_t i = 0; i < n; i++) {
        const void *env;
        at = read_id(at, &env);
        const Seen *t = find((VMPI_ThreadID)env);
        if (!t || (t->waiting != object && (in_wait || t->entering != object))) list_errors++;
        if (in_wait) seen_notify_waiter = true;
    }
    return at;
}

/* The dump requested at a CONTENDED_ENTER: the monitor the requester waits
 * for is owned by another thread, at least once; every list is right. */
static void read_monitor_dump(const VMPI_Event *event) {
    const unsigned char *at = (const unsigned char *)event->u.monitor_dump.begin;
    const unsigned char *end = (const unsigned char *)event->u.monitor_dump.end;
    bool found = false;
    dumps_read++;
    while (at < end) {
        uint8_t type = *at++;
        const void *id, *owner;
        uint32_t entries;
        if (type == VMPI_MONITOR_RAW) at = read_id(at, &id); /* the name */
        at = read_id(at, &id);
        at = read_id(at, &owner);
        at = read_u4(at, &entries);
        if (type != VMPI_MONITOR_JAVA) {
            uint32_t n;
            at = read_u4(at, &n);
            at += n * sizeof(void *);
            at = read_u4(at, &n);
            at += n * sizeof(void *);
            continue;
        }
        if (id == dump_object) {
            found = true;
            if (!owner || owner == dump_requester || entries < 1) owner_errors++;
        }
        at = check_list(at, (VMPI_ObjectID)id, false);
        at = check_list(at, (VMPI_ObjectID)id, true);
    }
    if (!found) owner_errors++;
}

/* A level-1 HEAP_DUMP requested at the first contended enter: its roots
 * (which come first) hold a THREAD_BLOCK for each thread that has started
 * and not ended, naming its Thread handle (GetThreadObject), and a
 * MONITOR_USED for the contended object. */
static const char *heap_dump_result = "never requested";

/* Level-1 HEAP_DUMPs requested at the allocation of a Thread handle: the
 * VM makes a started thread's handle before the thread first runs, so the
 * thread exists but has posted no THREAD_START, and an agent cannot know
 * its ID (JVMPI 1.2, THREAD_START).  No root of any dump may name a thread
 * whose THREAD_START this agent has not seen. */
#define STARTING_DUMPS 4
static VMPI_ObjectID thread_class_id;
static int starting_dumps, roots_of_unknown_threads;
static bool dumping_while_starting; /* the dump being read is one of those */

static void count_unknown_thread(const void *thread) {
    if (!find((VMPI_ThreadID)thread)) roots_of_unknown_threads++;
}

static void read_heap_dump_roots(const VMPI_Event *event) {
    const unsigned char *at = (const unsigned char *)event->u.heap_dump.begin;
    const unsigned char *end = (const unsigned char *)event->u.heap_dump.end;
    int thread_blocks = 0, wrong_thread_blocks = 0, live = 0;
    bool monitor_used = false;
    while (at < end && *at != VMPI_GC_CLASS_DUMP) {
        uint8_t type = *at++;
        const void *object, *other;
        uint32_t frame;
        at = read_id(at, &object);
        switch (type) {
        case VMPI_GC_ROOT_THREAD_BLOCK:
            at = read_id(at, &other);
            count_unknown_thread(other);
            thread_blocks++;
            if (vmpi->GetThreadObject((VMPI_ThreadID)other) != object) wrong_thread_blocks++;
            break;
        case VMPI_GC_ROOT_MONITOR_USED:
            if (object == dump_object) monitor_used = true;
            break;
        case VMPI_GC_ROOT_JAVA_FRAME:
            at = read_id(at, &other);
            count_unknown_thread(other);
            at = read_u4(at, &frame);
            break;
        case VMPI_GC_ROOT_NATIVE_STACK:
            at = read_id(at, &other);
            count_unknown_thread(other);
            break;
        case VMPI_GC_ROOT_JNI_GLOBAL:
            at = read_id(at, &other);
            break;
        default:
            break; /* STICKY_CLASS, UNKNOWN: the object alone */
        }
    }
    if (dumping_while_starting) return;
    int n = atomic_load(&num_threads);
    for (int i = 0; i < n; i++) live += !threads[i].ended;
    heap_dump_result = wrong_thread_blocks || thread_blocks < live ? "a thread's THREAD_BLOCK is missing or wrong"
                       : !monitor_used ? "no MONITOR_USED for the contended object"
                                       : "every live thread's THREAD_BLOCK, the contended object's MONITOR_USED";
}

static Seen *find(VMPI_ThreadID env) {
    int n = atomic_load(&num_threads);
    for (int i = 0; i < n; i++)
        if (threads[i].env == env) return &threads[i];
    return NULL;
}

static void pause_ms(long ms) {
    struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&delay, NULL);
}

static int32_t trace_of(VMPI_ThreadID env, VMPI_CallFrame *frames) {
    VMPI_CallTrace trace = {.env_id = env, .frames = frames};
    vmpi->GetCallTrace(&trace, MAX_FRAMES);
    return trace.num_frames;
}

/* From any event: every other live thread has a call trace whose frames
 * name methods and lines.  One inside wait() is CONDVAR_WAIT, or once
 * notified MONITOR_WAIT; one entering a monitor MONITOR_WAIT; either is
 * RUNNABLE once it has the monitor and before it runs to say so.  Both
 * waiting states must be seen at least once. */
static void check_others(VMPI_ThreadID self) {
    int n = atomic_load(&num_threads);
    for (int i = 0; i < n; i++) {
        Seen *t = &threads[i];
        if (t->env == self || t->ended || t->system) continue;
        VMPI_CallFrame frames[MAX_FRAMES];
        int32_t depth = trace_of(t->env, frames);
        if (depth < 1 || !frames[0].method_id || frames[0].lineno <= 0) trace_errors++;
        int32_t status = vmpi->GetThreadStatus(t->env) & ~(VMPI_THREAD_SUSPENDED | VMPI_THREAD_INTERRUPTED);
        if (t->waiting && status == VMPI_THREAD_CONDVAR_WAIT) seen_condvar_wait = true;
        if (t->entering && status == VMPI_THREAD_MONITOR_WAIT) seen_monitor_wait = true;
        if (t->entering && status == VMPI_THREAD_CONDVAR_WAIT) status_errors++;
        if (!t->waiting && !t->entering && status != VMPI_THREAD_RUNNABLE && status != VMPI_THREAD_CONDVAR_WAIT)
            status_errors++; /* sleeping and joining are CONDVAR_WAIT */
    }
}

static void thread_start(const VMPI_Event *event) {
    const char *name = event->u.thread_start.thread_name;
    VMPI_ThreadID env = event->u.thread_start.thread_env_id;
    int i = atomic_load(&num_threads);
    if (i == MAX_THREADS || find(env)) return;
    Seen *t = &threads[i];
    t->env = env;
    snprintf(t->name, sizeof t->name, "%s", name ? name : "?");
    /* The suspender is a thread of the VM too (JVMPI 1.2, CreateSystemThread),
     * but runs no bytecode: the counts below are the program's threads'
     * (tests/agents/system_thread.c checks a system thread's). */
    t->system = strcmp(t->name, "suspender") == 0;
    atomic_store(&num_threads, i + 1);
    if (t->system) return;
    starts++;
    /* The event comes from the new thread itself. */
    if (name && name[0] && event->env_id == env) named++;
    if (event->u.thread_start.group_name && strcmp(event->u.thread_start.group_name, "main") == 0) groups++;
    bool is_main = strcmp(t->name, "main") == 0;
    if (is_main) {
        main_env = env;
        if (!event->u.thread_start.parent_name) objects++; /* main's handle is made later */
    } else {
        if (event->u.thread_start.parent_name && strcmp(event->u.thread_start.parent_name, "main") == 0) parents++;
        if (event->u.thread_start.thread_id && event->u.thread_start.thread_id == vmpi->GetThreadObject(env))
            objects++;
        /* JVMPI 1.2, RequestEvent: a thread's THREAD_START is asked for by
         * its thread object's ID; it must name the same thread. */
        asked_for = env;
        if (event->u.thread_start.thread_id &&
            vmpi->RequestEvent(VMPI_EVENT_THREAD_START, event->u.thread_start.thread_id) != VMPI_OK)
            asked_for = NULL;
    }
    if (strcmp(t->name, "spinner") == 0) atomic_store(&spinner_env, (uintptr_t)env);
    if (strcmp(t->name, "allocator") == 0) atomic_store(&allocator_index_plus_1, (uintptr_t)i + 1);
}

static void thread_end(const VMPI_Event *event) {
    Seen *t = find(event->env_id);
    if (!t || t->ended) return;
    t->ended = true;
    if (t->system) return;
    ends++;
    /* Per-thread CPU time: the idle thread ran a function that returns at
     * once, main a long loop before it started it. */
    if (strcmp(t->name, "idle") == 0) {
        const Seen *m = find(main_env);
        cpu_checked = m && vmpi->GetCurrentThreadCpuTime() < m->cpu;
    }
}

/* The interruptee's waits, at their MONITOR_WAITED: the first (600000 ms)
 * was interrupted, so it ended early, and the flag, which waking does not
 * clear, shows as INTERRUPTED; the second (7 ms) returned at once with the
 * bit still set; the third (8 ms), after interrupted() cleared the flag,
 * waited its time without the bit. */
static void check_interruptee(const Seen *self, int64_t waited) {
    bool bit = (vmpi->GetThreadStatus(self->env) & VMPI_THREAD_INTERRUPTED) != 0;
    switch (self->wait_timeout) {
    case 600000: woken_early = waited < 600000 && bit; break;
    case 7: bit_while_set = waited == 0 && bit; break;
    case 8: bit_cleared = waited >= 8 && !bit; break;
    default: break;
    }
}

static const char *yes_no(int checked) { return checked == 1 ? "yes" : checked == 0 ? "no" : "never"; }

static void monitor_event(const VMPI_Event *event, Seen *self) {
    VMPI_ObjectID object = event->u.monitor.object;
    switch (event->event_type) {
    case VMPI_EVENT_MONITOR_CONTENDED_ENTER:
        if (!object || self->entering) pair_errors++;
        if (dumps_requested < MONITOR_DUMPS) {
            dumps_requested++;
            dump_object = object;
            dump_requester = self->env;
            if (vmpi->RequestEvent(VMPI_EVENT_MONITOR_DUMP, NULL) != VMPI_OK) owner_errors++;
            if (dumps_requested == 1) {
                VMPI_HeapDumpArg arg = {.heap_dump_level = VMPI_DUMP_LEVEL_1};
                if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &arg) != VMPI_OK) heap_dump_result = "refused";
            }
        }
        self->entering = object;
        break;
    case VMPI_EVENT_MONITOR_CONTENDED_ENTERED:
        if (!object || self->entering != object) pair_errors++;
        self->entering = NULL;
        entered++;
        break;
    case VMPI_EVENT_MONITOR_CONTENDED_EXIT: {
        exits++;
        /* Some other thread waits to enter this very monitor: to enter it
         * again after wait(), once notified, or for the first time. */
        bool entrant = false;
        int n = atomic_load(&num_threads);
        for (int i = 0; i < n; i++)
            if (&threads[i] != self && (threads[i].entering == object || threads[i].waiting == object) &&
                (vmpi->GetThreadStatus(threads[i].env) & 0xff) == VMPI_THREAD_MONITOR_WAIT)
                entrant = true;
        if (!entrant) exits_without_entrant++;
        break;
    }
    case VMPI_EVENT_MONITOR_WAIT:
        if (self->waiting || self->sleeping) pair_errors++;
        self->sleeping = !event->u.monitor_wait.object; /* JVMPI 1.2: NULL is Thread.sleep */
        self->waiting = event->u.monitor_wait.object;
        self->wait_timeout = event->u.monitor_wait.timeout;
        break;
    case VMPI_EVENT_MONITOR_WAITED:
        if (self->sleeping) {
            if (!event->u.monitor_wait.object && event->u.monitor_wait.timeout >= self->wait_timeout) sleeps_ok++;
            else sleep_errors++;
            self->sleeping = false;
            break;
        }
        if (strcmp(self->name, "interruptee") == 0) check_interruptee(self, event->u.monitor_wait.timeout);
        if (self->waiting != event->u.monitor_wait.object) {
            pair_errors++;
        } else if (self->wait_timeout == 25) {
            /* tests/threads/agent_program.gcl's wait(lonely, 25): nobody
             * notifies, so it waits its whole timeout. */
            timed_wait_ok = event->u.monitor_wait.timeout >= 25;
        } else if (self->wait_timeout == 0) {
            untimed_wait_ok = event->u.monitor_wait.timeout >= 0;
        }
        self->waiting = NULL;
        break;
    default:
        break;
    }
}

/* The system thread: suspends the spinner while it runs, and checks that
 * the allocator goes on meanwhile and the spinner's trace stands still. */
static void suspender(void *arg) {
    (void)arg;
    VMPI_ThreadID spinner = NULL;
    uintptr_t allocator = 0;
    for (int i = 0; i < 10000 && (!spinner || !allocator); i++) {
        spinner = (VMPI_ThreadID)atomic_load(&spinner_env);
        allocator = atomic_load(&allocator_index_plus_1);
        if (!spinner || !allocator) pause_ms(1);
    }
    if (!spinner || !allocator) {
        suspension_result = "the spinner or the allocator never started";
        return;
    }
    vmpi->SuspendThread(spinner);
    if (!(vmpi->GetThreadStatus(spinner) & VMPI_THREAD_SUSPENDED)) {
        suspension_result = "SuspendThread did not suspend the spinner (it ended first?)";
        return;
    }
    VMPI_CallFrame first[MAX_FRAMES], second[MAX_FRAMES];
    int32_t n = trace_of(spinner, first);
    long before = atomic_load(&threads[allocator - 1].allocations);
    bool others_ran = false;
    for (int i = 0; i < 10000 && !others_ran; i++) {
        pause_ms(1);
        others_ran = atomic_load(&threads[allocator - 1].allocations) >= before + 100;
    }
    int32_t m = trace_of(spinner, second);
    bool stable = n > 0 && n == m;
    for (int32_t i = 0; stable && i < n; i++)
        stable = first[i].method_id == second[i].method_id && first[i].lineno == second[i].lineno;
    vmpi->ResumeThread(spinner);
    suspension_result = !others_ran ? "the others did not run while spinner was suspended"
                        : !stable   ? "the spinner's trace moved while it was suspended"
                                    : "others ran while spinner was suspended, its trace stable";
}

static void report(void) {
    fprintf(stderr,
            "thread_checker: threads: starts=%d ends=%d named=%d groups=%d parents=%d objects=%d main_object=%s "
            "requested_by_object=%d\n",
            starts, ends, named, groups, parents, objects, vmpi->GetThreadObject(main_env) ? "yes" : "no",
            answered_by_object);
    if (!pair_errors && entered > 0 && exits > 0 && !exits_without_entrant)
        fprintf(stderr, "thread_checker: contended: enter/entered pairs ok, exits=yes, entrant waits=yes\n");
    else
        fprintf(stderr, "thread_checker: contended: %d pair errors, %d entered, %d exits, %d without an entrant\n",
                pair_errors, entered, exits, exits_without_entrant);
    fprintf(stderr, "thread_checker: waits: timed=%s untimed=%s status=%s sleeps=%d (%d wrong)\n",
            timed_wait_ok ? "yes" : "no", untimed_wait_ok ? "yes" : "no",
            !status_errors && seen_condvar_wait && seen_monitor_wait ? "yes" : "no", sleeps_ok, sleep_errors);
    fprintf(stderr, "thread_checker: interrupt: woken early=%s, bit while set=%s, cleared=%s\n", yes_no(woken_early),
            yes_no(bit_while_set), yes_no(bit_cleared));
    if (trace_errors) fprintf(stderr, "thread_checker: traces: %d traces without frames\n", trace_errors);
    else fprintf(stderr, "thread_checker: traces: every other thread's trace has frames\n");
    fprintf(stderr, "thread_checker: cpu: %s\n", cpu_checked == 1 ? "the idle thread used less CPU than main"
                                               : cpu_checked == 0 ? "the idle thread used as much CPU as main"
                                                                  : "the idle thread never ended");
    fprintf(stderr, "thread_checker: suspension: %s\n", suspension_result);
    fprintf(stderr, "thread_checker: heap dump: %s\n", heap_dump_result);
    if (roots_of_unknown_threads)
        fprintf(stderr, "thread_checker: starting threads: %d roots name a thread before its THREAD_START\n",
                roots_of_unknown_threads);
    else
        fprintf(stderr, "thread_checker: starting threads: %d heap dumps, no root names a thread before its THREAD_START\n",
                starting_dumps);
    if (dumps_read == dumps_requested && dumps_read > 0 && !owner_errors && !list_errors && seen_notify_waiter)
        fprintf(stderr, "thread_checker: monitor dump: owners ok, entrants ok, notify waiters ok\n");
    else
        fprintf(stderr, "thread_checker: monitor dump: %d of %d dumps, %d owner errors, %d list errors, %s\n", dumps_read,
                dumps_requested, owner_errors, list_errors, seen_notify_waiter ? "a notify waiter" : "no notify waiter");
}

static void notify_event(VMPI_Event *event) {
    switch (event->event_type) {
    case VMPI_EVENT_THREAD_START: thread_start(event); return;
    case VMPI_EVENT_THREAD_START | VMPI_REQUESTED_EVENT:
        if (asked_for && event->u.thread_start.thread_env_id == asked_for) answered_by_object++;
        return;
    case VMPI_EVENT_MONITOR_DUMP | VMPI_REQUESTED_EVENT: read_monitor_dump(event); return;
    case VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT: read_heap_dump_roots(event); return;
    case VMPI_EVENT_JVM_INIT_DONE:
        if (vmpi->CreateSystemThread("suspender", 0, suspender) != VMPI_OK)
            suspension_result = "CreateSystemThread failed";
        return;
    case VMPI_EVENT_JVM_SHUT_DOWN: report(); return;
    case VMPI_EVENT_CLASS_LOAD:
        if (strcmp(event->u.class_load.class_name, "Thread") == 0) thread_class_id = event->u.class_load.class_id;
        return;
    case VMPI_EVENT_OBJECT_MOVE: {
        /* A moving collector moved a monitor's object: its ID changes. */
        int n = atomic_load(&num_threads);
        for (int i = 0; i < n; i++) {
            if (threads[i].entering == event->u.obj_move.obj_id) threads[i].entering = event->u.obj_move.new_obj_id;
            if (threads[i].waiting == event->u.obj_move.obj_id) threads[i].waiting = event->u.obj_move.new_obj_id;
        }
        return;
    }
    default: break;
    }
    Seen *self = find(event->env_id);
    if (!self) return;
    self->cpu = vmpi->GetCurrentThreadCpuTime();
    if (event->event_type == VMPI_EVENT_THREAD_END) {
        thread_end(event);
        return;
    }
    if (event->event_type == VMPI_EVENT_OBJECT_ALLOC) {
        atomic_fetch_add(&self->allocations, 1);
        if (event->u.obj_alloc.class_id == thread_class_id && thread_class_id && starting_dumps < STARTING_DUMPS) {
            VMPI_HeapDumpArg arg = {.heap_dump_level = VMPI_DUMP_LEVEL_1};
            dumping_while_starting = true;
            if (vmpi->RequestEvent(VMPI_EVENT_HEAP_DUMP, &arg) == VMPI_OK) starting_dumps++;
            dumping_while_starting = false;
        }
        return;
    }
    monitor_event(event, self);
    check_others(event->env_id);
}

int32_t VMPI_OnLoad(VMPI_VM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    if (vm->GetEnv(vm, (void **)&vmpi, VMPI_VERSION_1) != VMPI_OK) return VMPI_ERR;
    vmpi->NotifyEvent = notify_event;
    static const int32_t events[] = {
        VMPI_EVENT_THREAD_START, VMPI_EVENT_THREAD_END, VMPI_EVENT_JVM_INIT_DONE, VMPI_EVENT_JVM_SHUT_DOWN,
        VMPI_EVENT_CLASS_LOAD,
        VMPI_EVENT_OBJECT_ALLOC, VMPI_EVENT_OBJECT_MOVE, VMPI_EVENT_MONITOR_CONTENDED_ENTER, VMPI_EVENT_MONITOR_CONTENDED_ENTERED,
        VMPI_EVENT_MONITOR_CONTENDED_EXIT, VMPI_EVENT_MONITOR_WAIT, VMPI_EVENT_MONITOR_WAITED,
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (vmpi->EnableEvent(events[i], NULL) != VMPI_OK) return VMPI_ERR;
    return VMPI_OK;
}
