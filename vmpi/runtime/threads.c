/*
 * threads.c -- the thread functions of VMPI: call traces, CPU time,
 * suspend/resume and status (JVMPI 1.2, and SuspendThreadList /
 * ResumeThreadList from JVMPI 1.4.2), system threads and thread-local
 * storage.
 *
 * A thread ID (env) is what the VM's thread_at gives (vm_services.h).
 * Every function checks that an env names one of the attached VM's threads
 * before using it, so a stale or made-up ID does nothing instead of
 * crashing.
 *
 * Suspension stops a VM thread at its next safepoint.  SuspendThread from
 * another OS thread (an agent's system thread) records the suspension,
 * asks the VM for a safepoint (VmpiVmServices.request_safepoint: one bit
 * of vm_pending_requests, so the interpreter's poll is all it costs), and
 * waits until the target has parked there, in vmpi_serve_suspension, on a
 * condition variable until ResumeThread.  So when SuspendThread returns the
 * target's stack is still and GetCallTrace reads it whole.  A thread parks
 * only at the interpreter's safepoints, never inside a collection or an
 * event, so the heap is consistent and it holds no agent's lock while
 * parked; a suspender must not hold a lock the target may be waiting for
 * (the agent's lock, taken by its event handlers), or neither goes on.
 * SuspendThread gives up, leaving the thread unsuspended, when the target
 * cannot reach a safepoint any more: it ended (vmpi_thread_ended), or the
 * VM is shutting down (vmpi_threads_shut_down, before JVM_SHUT_DOWN is
 * posted), or another thread resumed it first.
 *
 * A thread that suspends itself only gets the flag (there would be nobody
 * to resume it): it keeps running, and ThreadHasRun compares its stack mark
 * with the one taken when it suspended itself.  Likewise on a VM that
 * cannot stop its threads (no request_safepoint: a mock VM), and for a
 * suspension asked by a handler of a collection's events on the VM's GC
 * thread: every program thread is stopped for the collection already, and
 * none could reach a safepoint to park at before it ends.
 *
 * ThreadHasRun is false from the moment a thread parks until it wakes after
 * ResumeThread; a thread never suspended has run.
 *
 * An agent's system thread (CreateSystemThread, below) is a VM thread that
 * runs no bytecode, so it has no safepoint to park at: SuspendThread leaves
 * it running and unsuspended (result 1 in SuspendThreadList), and it has
 * always run.  GetThreadStatus has
 * VMPI_THREAD_SUSPENDED from SuspendThread to ResumeThread (JVMPI 1.4.2).
 *
 * Invariant: `suspensions` holds one entry per thread that has been
 * suspended and has not ended; `parked` is true only while the thread waits
 * in vmpi_serve_suspension; `ended_threads` lists the threads that ended
 * since the VM attached.  All of it under `suspension_lock`.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

#include "dispatch.h"

bool vmpi_is_thread(VMPI_ThreadID env) {
    if (!vmpi_vm || !env) return false;
    uint32_t num_threads = vmpi_vm->num_threads(vmpi_vm->vm);
    for (uint32_t i = 0; i < num_threads; i++)
        if (vmpi_vm->thread_at(vmpi_vm->vm, i) == env) return true;
    return false;
}

/* JVMPI 1.2, RequestEvent(THREAD_START, thread object ID): the live thread
 * whose Thread handle is `thread_object`; gclab also takes the thread's
 * ID itself.  NULL if neither names a live thread. */
VMPI_ThreadID vmpi_thread_named_by(const void *thread_or_object) {
    if (vmpi_is_thread((VMPI_ThreadID)thread_or_object)) return (VMPI_ThreadID)thread_or_object;
    if (!thread_or_object || !vmpi_vm || !vmpi_vm->thread_object) return NULL;
    uint32_t num_threads = vmpi_vm->num_threads(vmpi_vm->vm);
    for (uint32_t i = 0; i < num_threads; i++) {
        VMPI_ThreadID thread = vmpi_vm->thread_at(vmpi_vm->vm, i);
        if ((const void *)vmpi_vm->thread_object(vmpi_vm->vm, thread) == thread_or_object) return thread;
    }
    return NULL;
}

/* An agent asks for its own thread's trace at every allocation: the
 * running thread is live without walking the VM's table. */
bool vmpi_is_thread_or_current(VMPI_ThreadID env, VMPI_ThreadID current) {
    return (env && env == current) || vmpi_is_thread(env);
}

/* ---- call traces ---------------------------------------------------------------- */

/* JVMPI 1.2, GetCallTrace: frames callee first, at most `depth` of them,
 * for the thread trace->env_id (gclab: NULL means the calling thread;
 * num_frames 0 if that is no VM thread).  A thread ID given must name a
 * live thread: guard.c checks an agent's once, here it is not looked up
 * again. */
void vmpi_get_call_trace(VMPI_CallTrace *trace, int32_t depth) {
    if (!trace->env_id) trace->env_id = vmpi_current_env();
    trace->num_frames = 0;
    if (!trace->env_id || depth <= 0) return;
    trace->num_frames = vmpi_vm->call_trace(vmpi_vm->vm, trace->env_id, trace->frames, depth);
}

/* gclab extension, call sites (vmpi.h): the VM keeps them; these only
 * pass the calls on.  A thread given is live (guard.c checked it). */
/* The deepest sites asked for in JVM_OnLoad, before the VM exists: asked
 * of the VM when it attaches (vmpi_serve_call_sites). */
static int32_t call_site_depth_asked;
bool vmpi_call_sites_on;

int32_t vmpi_enable_call_sites(int32_t depth) {
    if (!vmpi_vm) {
        if (depth > call_site_depth_asked) call_site_depth_asked = depth;
        return VMPI_OK;
    }
    if (!vmpi_vm->enable_call_sites || !vmpi_vm->enable_call_sites(vmpi_vm->vm, (uint32_t)depth))
        return VMPI_NOT_AVAILABLE;
    vmpi_call_sites_on = true;
    return VMPI_OK;
}

void vmpi_serve_call_sites(void) {
    vmpi_call_sites_on = false; /* a new VM, or none */
    if (vmpi_vm && call_site_depth_asked) vmpi_enable_call_sites(call_site_depth_asked);
}

VMPI_CallSiteID vmpi_get_call_site(VMPI_ThreadID env) {
    if (!env) env = vmpi_current_env();
    return env && vmpi_vm && vmpi_vm->call_site ? vmpi_vm->call_site(vmpi_vm->vm, env) : 0;
}

int32_t vmpi_get_call_site_frames(VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t depth) {
    if (!vmpi_vm || !vmpi_vm->call_site_frames) return site ? -1 : 0;
    return vmpi_vm->call_site_frames(vmpi_vm->vm, site, frames, depth);
}

int64_t vmpi_get_current_thread_cpu_time(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* ---- system threads' records (CreateSystemThread, at the end of this file) ------- */

/* How many system threads are still inside their agent's function: at
 * shutdown the agents' libraries are closed only once none is, since a
 * thread that has just woken its stopper may not have left the agent's
 * code yet. */
static unsigned system_threads_in_agent;
/* The IDs of the attached VM's system threads, which SuspendThread leaves
 * alone: they run no bytecode, so they have no safepoint to stop at. */
static VMPI_ThreadID *system_threads;
static size_t num_system_threads, system_threads_capacity;
static pthread_mutex_t system_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t system_thread_returned = PTHREAD_COND_INITIALIZER;
/* Set when the VM shuts down (vmpi_threads_shut_down, before JVM_SHUT_DOWN):
 * a system thread that returns later posts no THREAD_END, as nothing
 * reaches an agent after its JVM_SHUT_DOWN.  Held while a THREAD_END is
 * posted, so the two never cross. */
static bool system_threads_shut_out;
static pthread_mutex_t thread_end_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_system_thread(VMPI_ThreadID env) {
    pthread_mutex_lock(&system_threads_lock);
    bool found = false;
    for (size_t i = 0; i < num_system_threads && !found; i++) found = system_threads[i] == env;
    pthread_mutex_unlock(&system_threads_lock);
    return found;
}

/* ---- suspension ------------------------------------------------------------------ */

#define MAX_SUSPENDED 64

typedef struct Suspension {
    VMPI_ThreadID thread;
    bool suspended;         /* by SuspendThread, until ResumeThread */
    bool by_itself;         /* it suspended itself: bookkeeping only, it runs on */
    bool parked;            /* stopped at a safepoint (vmpi_serve_suspension) */
    bool ran;               /* has run since it was last suspended */
    VmpiStackMark mark;     /* by_itself: its stack when it suspended itself */
} Suspension;

static Suspension suspensions[MAX_SUSPENDED];
static uint32_t num_suspensions;
static VMPI_ThreadID *ended_threads;
static size_t num_ended, ended_capacity;
static bool shutting_down;
static pthread_mutex_t suspension_lock = PTHREAD_MUTEX_INITIALIZER;
/* Broadcast when a thread parks, is resumed or ends, and at shutdown. */
static pthread_cond_t suspension_changed = PTHREAD_COND_INITIALIZER;

static Suspension *find_suspension(VMPI_ThreadID thread) {
    for (uint32_t i = 0; i < num_suspensions; i++)
        if (suspensions[i].thread == thread) return &suspensions[i];
    return NULL;
}

static bool has_ended(VMPI_ThreadID thread) {
    for (size_t i = 0; i < num_ended; i++)
        if (ended_threads[i] == thread) return true;
    return false;
}

static VmpiStackMark stack_mark(VMPI_ThreadID thread) { return vmpi_vm->stack_mark(vmpi_vm->vm, thread); }

static bool same_mark(VmpiStackMark a, VmpiStackMark b) {
    return a.depth == b.depth && a.top_pc == b.top_pc && a.ref_top == b.ref_top;
}

/* With the lock held: asks the VM to stop `env` at its next safepoint and
 * waits until it has parked there (0), or until it cannot: it ended, the
 * VM is shutting down, or another thread resumed it first (1). */
static int32_t wait_until_parked(VMPI_ThreadID env) {
    vmpi_request_safepoint(VMPI_AT_SAFEPOINT_SUSPEND);
    for (;;) {
        Suspension *s = find_suspension(env); /* entries move when a thread ends */
        if (!s || !s->suspended) return 1;
        if (s->parked) return 0;
        if (shutting_down || has_ended(env)) {
            s->suspended = false;
            return 1;
        }
        pthread_cond_wait(&suspension_changed, &suspension_lock);
    }
}

bool vmpi_in_collection_on_gc_thread(void) {
    Gc *gc = vmpi_gc();
    return gc && gc_is_collecting(gc) && !vmpi_current_env() && !vmpi_on_system_thread;
}

/* A suspension waits for the thread to park, unless it is bookkeeping
 * only: the caller is the thread itself, or a handler inside a collection
 * (which stops every program thread anyway), or the VM cannot stop its
 * threads; an agent's system thread is never suspended (suspend_one). */
bool vmpi_suspension_waits(VMPI_ThreadID env) {
    return env != vmpi_current_env() && vmpi_vm && vmpi_vm->request_safepoint && !is_system_thread(env) &&
           !vmpi_in_collection_on_gc_thread();
}

/* 0 on success, non-zero otherwise (JVMPI 1.4.2, SuspendThreadList results). */
static int32_t suspend_one(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env) || is_system_thread(env)) return 1;
    bool by_itself = !vmpi_suspension_waits(env);
    pthread_mutex_lock(&suspension_lock);
    Suspension *s = find_suspension(env);
    int32_t result = 0;
    if (shutting_down || has_ended(env) || (s && s->suspended)) {
        result = 1;
    } else if (!s && num_suspensions == MAX_SUSPENDED) {
        result = 2;
    } else {
        if (!s) {
            s = &suspensions[num_suspensions++];
            *s = (Suspension){.thread = env, .ran = true};
        }
        /* Resumed but not yet awake, it is still parked and has not run. */
        s->suspended = true;
        s->by_itself = by_itself;
        if (by_itself) s->mark = stack_mark(env);
        else result = wait_until_parked(env);
    }
    pthread_mutex_unlock(&suspension_lock);
    return result;
}

static int32_t resume_one(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 1;
    pthread_mutex_lock(&suspension_lock);
    Suspension *s = find_suspension(env);
    bool was_suspended = s && s->suspended;
    if (was_suspended) {
        s->suspended = false;
        if (s->by_itself) s->ran = true; /* it never stopped */
        pthread_cond_broadcast(&suspension_changed);
    }
    pthread_mutex_unlock(&suspension_lock);
    return was_suspended ? 0 : 1;
}

void vmpi_suspend_thread(VMPI_ThreadID env) { (void)suspend_one(env); }

void vmpi_resume_thread(VMPI_ThreadID env) { (void)resume_one(env); }

void vmpi_serve_suspension(const struct VMThread *thread) { vmpi_serve_suspension_handing_off(thread, NULL, NULL, NULL); }

/* The VM thread `thread`, at a safepoint: parks while another thread has it
 * suspended; `release` runs as it parks, `reacquire` once it is resumed
 * (outside the lock, which a suspender may need meanwhile). */
void vmpi_serve_suspension_handing_off(const struct VMThread *thread, void (*release)(void *ctx),
                                       void (*reacquire)(void *ctx), void *ctx) {
    VMPI_ThreadID env = (VMPI_ThreadID)(uintptr_t)thread;
    bool parked = false;
    pthread_mutex_lock(&suspension_lock);
    Suspension *s = find_suspension(env);
    if (s && s->suspended && !s->by_itself) {
        s->parked = parked = true;
        s->ran = false;
        if (release) release(ctx);
        pthread_cond_broadcast(&suspension_changed);
        while ((s = find_suspension(env)) && s->suspended) pthread_cond_wait(&suspension_changed, &suspension_lock);
        if (s) {
            s->parked = false;
            s->ran = true;
        }
    }
    /* The request is one bit for every thread: this one may have taken
     * another's.  Ask again for a thread still on its way to park. */
    for (uint32_t i = 0; i < num_suspensions; i++) {
        const Suspension *other = &suspensions[i];
        if (other->suspended && !other->by_itself && !other->parked) vmpi_request_safepoint(VMPI_AT_SAFEPOINT_SUSPEND);
    }
    pthread_mutex_unlock(&suspension_lock);
    if (parked && reacquire) reacquire(ctx);
}

void vmpi_thread_ended(const struct VMThread *thread) {
    VMPI_ThreadID env = (VMPI_ThreadID)(uintptr_t)thread;
    pthread_mutex_lock(&suspension_lock);
    Suspension *s = find_suspension(env);
    if (s) *s = suspensions[--num_suspensions];
    if (num_ended == ended_capacity) {
        size_t capacity = ended_capacity ? 2 * ended_capacity : 8;
        VMPI_ThreadID *grown = realloc(ended_threads, capacity * sizeof *grown);
        if (grown) {
            ended_threads = grown;
            ended_capacity = capacity;
        }
    }
    /* Out of memory: a suspender of the ended thread waits for shutdown. */
    if (num_ended < ended_capacity) ended_threads[num_ended++] = env;
    pthread_cond_broadcast(&suspension_changed);
    pthread_mutex_unlock(&suspension_lock);
}

void vmpi_threads_shut_down(void) {
    pthread_mutex_lock(&thread_end_lock);
    system_threads_shut_out = true;
    pthread_mutex_unlock(&thread_end_lock);
    pthread_mutex_lock(&suspension_lock);
    shutting_down = true;
    pthread_cond_broadcast(&suspension_changed);
    pthread_mutex_unlock(&suspension_lock);
    vmpi_run_gc_shutting_down(true); /* and one waiting in RunGC */
    vmpi_hold_shutting_down(true);   /* and one waiting to hold the program */
}

void vmpi_forget_threads(void) {
    pthread_mutex_lock(&thread_end_lock);
    system_threads_shut_out = false;
    pthread_mutex_unlock(&thread_end_lock);
    pthread_mutex_lock(&system_threads_lock);
    num_system_threads = 0;
    pthread_mutex_unlock(&system_threads_lock);
    pthread_mutex_lock(&suspension_lock);
    num_suspensions = 0;
    num_ended = 0;
    shutting_down = false;
    pthread_mutex_unlock(&suspension_lock);
    vmpi_run_gc_shutting_down(false);
    vmpi_hold_shutting_down(false);
}

/* JVMPI 1.4.2 SuspendThreadList and ResumeThreadList: `one` for each
 * thread, its result in results[i]; VMPI_ERR if any of them failed. */
static int32_t for_each_thread(int32_t count, VMPI_ThreadID *threads, int32_t *results,
                               int32_t (*one)(VMPI_ThreadID env)) {
    bool failed = false;
    for (int32_t i = 0; i < count; i++) {
        results[i] = one(threads[i]);
        if (results[i]) failed = true;
    }
    return failed ? VMPI_ERR : VMPI_OK;
}

int32_t vmpi_suspend_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results) {
    return for_each_thread(count, threads, results, suspend_one);
}

int32_t vmpi_resume_thread_list(int32_t count, VMPI_ThreadID *threads, int32_t *results) {
    return for_each_thread(count, threads, results, resume_one);
}

/* JVMPI 1.2 GetThreadStatus: runnable, waiting to enter a monitor or
 * waiting on one (or sleeping, or joining: a condition variable in JVMPI's
 * terms), with the INTERRUPTED bit while the thread's interrupted flag is
 * set, from the VM; the SUSPENDED bit as JVMPI 1.4.2 sets it. */
int32_t vmpi_get_thread_status(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 0;
    pthread_mutex_lock(&suspension_lock);
    const Suspension *s = find_suspension(env);
    bool suspended = s && s->suspended;
    pthread_mutex_unlock(&suspension_lock);
    int32_t status = vmpi_vm->thread_status ? vmpi_vm->thread_status(vmpi_vm->vm, env) : VMPI_THREAD_RUNNABLE;
    return status | (suspended ? VMPI_THREAD_SUSPENDED : 0);
}

/* The TPTP thread profiler's "Get Thread Information" (JVMTI's
 * GetThreadInfo): what THREAD_START says of the thread, and its status. */
int32_t vmpi_get_thread_info(VMPI_ThreadID env, VMPI_ThreadInfo *info) {
    if (!vmpi_is_thread(env)) return VMPI_ERR;
    VMPI_ThreadID parent = vmpi_vm->thread_parent ? vmpi_vm->thread_parent(vmpi_vm->vm, env) : NULL;
    const Obj *handle = vmpi_vm->thread_object ? vmpi_vm->thread_object(vmpi_vm->vm, env) : NULL;
    *info = (VMPI_ThreadInfo){
        .thread_name = (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, env),
        .group_name = VMPI_THREAD_GROUP,
        .parent_name = parent ? (char *)(uintptr_t)vmpi_vm->thread_name(vmpi_vm->vm, parent) : NULL,
        .thread_object = (VMPI_ObjectID)(uintptr_t)handle,
        .status = vmpi_get_thread_status(env),
    };
    return VMPI_OK;
}

int32_t vmpi_thread_has_run(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 0;
    pthread_mutex_lock(&suspension_lock);
    const Suspension *s = find_suspension(env);
    bool ran = !s || (s->suspended && s->by_itself ? !same_mark(s->mark, stack_mark(env)) : s->ran);
    pthread_mutex_unlock(&suspension_lock);
    return ran;
}

/* ---- system threads and thread-local storage --------------------------------------- */

bool vmpi_jvm_init_done;

/* What a new system thread runs, decided by its creator after the OS
 * thread exists (so that a thread the OS refuses is never announced). */
typedef struct SystemThreadStart {
    void (*f)(void *);  /* NULL: not made after all, the thread returns at once */
    VMPI_ThreadID env;  /* its ID; NULL when it is no VM thread (no VM attached, a mock) */
    VmpiAgent *agent;   /* the agent that created it, if known */
    sem_t decided;      /* posted once f and env are final */
} SystemThreadStart;

_Thread_local bool vmpi_on_system_thread;
_Thread_local VmpiAgent *vmpi_system_thread_agent;
static _Thread_local VMPI_ThreadID system_thread_env;

VMPI_ThreadID vmpi_calling_thread(void) {
    VMPI_ThreadID env = vmpi_current_env();
    return env ? env : system_thread_env;
}

/* Room for one more system thread's ID; false if out of memory. */
static bool reserve_system_thread(void) {
    pthread_mutex_lock(&system_threads_lock);
    bool room = num_system_threads < system_threads_capacity;
    if (!room) {
        size_t capacity = system_threads_capacity ? 2 * system_threads_capacity : 4;
        VMPI_ThreadID *grown = realloc(system_threads, capacity * sizeof *grown);
        if (grown) {
            system_threads = grown;
            system_threads_capacity = capacity;
            room = true;
        }
    }
    pthread_mutex_unlock(&system_threads_lock);
    return room;
}

static void remember_system_thread(VMPI_ThreadID env) {
    pthread_mutex_lock(&system_threads_lock);
    system_threads[num_system_threads++] = env; /* reserve_system_thread made room */
    pthread_mutex_unlock(&system_threads_lock);
}

static void left_agent(void) {
    pthread_mutex_lock(&system_threads_lock);
    system_threads_in_agent--;
    pthread_cond_broadcast(&system_thread_returned);
    pthread_mutex_unlock(&system_threads_lock);
}

static void *run_system_thread(void *arg) {
    SystemThreadStart *start = arg;
    while (sem_wait(&start->decided) != 0) {} /* EINTR: wait again */
    void (*f)(void *) = start->f;
    VMPI_ThreadID env = start->env;
    VmpiAgent *agent = start->agent;
    sem_destroy(&start->decided);
    free(start);
    if (f) {
        vmpi_on_system_thread = true;
        vmpi_system_thread_agent = agent;
        system_thread_env = env;
        f(NULL);
        /* JVMPI 1.2, THREAD_END: on the ending thread, which holds no
         * object and reads nothing of the heap, so it needs no safepoint. */
        pthread_mutex_lock(&thread_end_lock);
        if (env && !system_threads_shut_out) {
            vmpi_post_THREAD_END((const struct VMThread *)(uintptr_t)env);
            vmpi_thread_ended((const struct VMThread *)(uintptr_t)env);
        }
        pthread_mutex_unlock(&thread_end_lock);
    }
    left_agent();
    return NULL;
}

bool vmpi_system_threads_returned(int timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&system_threads_lock);
    int rc = 0;
    while (system_threads_in_agent > 0 && rc == 0)
        rc = pthread_cond_timedwait(&system_thread_returned, &system_threads_lock, &deadline);
    bool returned = system_threads_in_agent == 0;
    pthread_mutex_unlock(&system_threads_lock);
    return returned;
}

/* Makes the started OS thread a thread of the VM and posts its THREAD_START;
 * its ID, or NULL if it is no VM thread (`made` false: out of memory). */
static VMPI_ThreadID make_vm_thread(const char *name, bool *made) {
    *made = true;
    VMPI_ThreadID creator = vmpi_current_env();
    if (!creator || !vmpi_vm->add_system_thread) return NULL;
    VMPI_ThreadID env = reserve_system_thread() ? vmpi_vm->add_system_thread(vmpi_vm->vm, creator, name) : NULL;
    if (!env) {
        *made = false;
        return NULL;
    }
    remember_system_thread(env);
    /* JVMPI 1.2 section 1.5: CreateSystemThread "causes thread object
     * allocation and thread start events to be issued" synchronously on
     * the calling thread, which holds the VM meanwhile: no collection moves
     * the thread object between its OBJECT_ALLOC and THREAD_START. */
    vmpi_post_thread_start((const struct VMThread *)(uintptr_t)env);
    return env;
}

/* JVMPI 1.2 CreateSystemThread: a daemon thread running f(NULL).  Called
 * on a VM thread, the new thread is a thread of the VM (make_vm_thread):
 * THREAD_START (thread object, names, env) is posted before
 * CreateSystemThread returns and f starts, THREAD_END when f returns
 * before the VM shuts down.  Called where the VM runs no thread (an
 * agent's other system thread, JVM_OnLoad, a mock VM), the thread is a
 * bare OS thread as in earlier versions: no events, no env.  Refused
 * while GC is disabled (JVMPI 1.2 section 1.5 forbids the call then) or
 * inside a collection, where no object can be made.  The priority, one of
 * JVMPI's (guard.c checks it), is not applied, as JDK's VMs on Linux do
 * not apply Java priorities by default: every thread is scheduled alike. */
int32_t vmpi_create_system_thread(char *name, int32_t priority, void (*f)(void *)) {
    (void)priority;
    Gc *gc = vmpi_gc();
    if (!f || !name || (gc && (vmpi_gc_held_off() || gc_is_collecting(gc)))) return VMPI_ERR;
    SystemThreadStart *start = malloc(sizeof *start);
    if (!start) return VMPI_ERR;
    *start = (SystemThreadStart){.agent = vmpi_caller};
    if (sem_init(&start->decided, 0, 0) != 0) {
        free(start);
        return VMPI_ERR;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&system_threads_lock);
    system_threads_in_agent++;
    pthread_mutex_unlock(&system_threads_lock);
    pthread_t id;
    int rc = pthread_create(&id, &attr, run_system_thread, start);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        left_agent();
        sem_destroy(&start->decided);
        free(start);
        return VMPI_ERR;
    }
    bool made = true;
    start->env = vmpi_vm ? make_vm_thread(name, &made) : NULL;
    if (made) start->f = f;
    sem_post(&start->decided); /* the thread owns `start` from here */
    return made ? VMPI_OK : VMPI_ERR;
}

void vmpi_set_thread_local_storage(VMPI_ThreadID env, void *ptr) {
    if (vmpi_is_thread(env)) *vmpi_vm->local_storage(vmpi_vm->vm, env) = ptr;
}

void *vmpi_get_thread_local_storage(VMPI_ThreadID env) {
    return vmpi_is_thread(env) ? *vmpi_vm->local_storage(vmpi_vm->vm, env) : NULL;
}
