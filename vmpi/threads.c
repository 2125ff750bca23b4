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
 * Suspension is bookkeeping only: the interpreter has no point at which
 * another OS thread could stop it, and gclab runs one VM thread.  A
 * "suspended" thread keeps its flag (GetThreadStatus reports
 * VMPI_THREAD_SUSPENDED, as JVMPI 1.4.2 says) but keeps running, and
 * ThreadHasRun answers by comparing the thread's stack mark with the one
 * taken when it was suspended.  Invariant: `suspensions` holds one entry per
 * currently suspended thread.
 */
#include <pthread.h>
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

/* ---- call traces ---------------------------------------------------------------- */

/* JVMPI 1.2, GetCallTrace: frames callee first, at most `depth` of them,
 * for the thread trace->env_id (gclab: NULL means the calling thread);
 * num_frames 0 for an unknown thread. */
void vmpi_get_call_trace(VMPI_CallTrace *trace, int32_t depth) {
    if (!trace->env_id) trace->env_id = vmpi_current_env();
    trace->num_frames = 0;
    if (!vmpi_is_thread(trace->env_id) || depth <= 0) return;
    trace->num_frames = vmpi_vm->call_trace(vmpi_vm->vm, trace->env_id, trace->frames, depth);
}

int64_t vmpi_get_current_thread_cpu_time(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* ---- suspension ------------------------------------------------------------------ */

#define MAX_SUSPENDED 64

typedef struct Suspension {
    VMPI_ThreadID thread;
    VmpiStackMark mark;     /* the thread's stack when suspended */
} Suspension;

static Suspension suspensions[MAX_SUSPENDED];
static uint32_t num_suspended;
static pthread_mutex_t suspension_lock = PTHREAD_MUTEX_INITIALIZER;

static Suspension *find_suspension(VMPI_ThreadID thread) {
    for (uint32_t i = 0; i < num_suspended; i++)
        if (suspensions[i].thread == thread) return &suspensions[i];
    return NULL;
}

static VmpiStackMark stack_mark(VMPI_ThreadID thread) { return vmpi_vm->stack_mark(vmpi_vm->vm, thread); }

static bool same_mark(VmpiStackMark a, VmpiStackMark b) {
    return a.depth == b.depth && a.top_pc == b.top_pc && a.ref_top == b.ref_top;
}

/* 0 on success, non-zero otherwise (JVMPI 1.4.2, SuspendThreadList results). */
static int32_t suspend_one(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 1;
    pthread_mutex_lock(&suspension_lock);
    int32_t result = 0;
    if (find_suspension(env)) {
        result = 1; /* already suspended */
    } else if (num_suspended == MAX_SUSPENDED) {
        result = 2;
    } else {
        suspensions[num_suspended++] = (Suspension){.thread = env, .mark = stack_mark(env)};
    }
    pthread_mutex_unlock(&suspension_lock);
    return result;
}

static int32_t resume_one(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 1;
    pthread_mutex_lock(&suspension_lock);
    Suspension *s = find_suspension(env);
    if (s) *s = suspensions[--num_suspended];
    pthread_mutex_unlock(&suspension_lock);
    return s ? 0 : 1;
}

void vmpi_suspend_thread(VMPI_ThreadID env) { (void)suspend_one(env); }

void vmpi_resume_thread(VMPI_ThreadID env) { (void)resume_one(env); }

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

/* JVMPI 1.2 GetThreadStatus; the SUSPENDED bit as JVMPI 1.4.2 sets it.
 * A gclab thread never waits on a monitor or condition variable. */
int32_t vmpi_get_thread_status(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 0;
    pthread_mutex_lock(&suspension_lock);
    bool suspended = find_suspension(env) != NULL;
    pthread_mutex_unlock(&suspension_lock);
    return VMPI_THREAD_RUNNABLE | (suspended ? VMPI_THREAD_SUSPENDED : 0);
}

int32_t vmpi_thread_has_run(VMPI_ThreadID env) {
    if (!vmpi_is_thread(env)) return 0;
    pthread_mutex_lock(&suspension_lock);
    const Suspension *s = find_suspension(env);
    bool ran = !s || !same_mark(s->mark, stack_mark(env));
    pthread_mutex_unlock(&suspension_lock);
    return ran;
}

/* ---- system threads and thread-local storage --------------------------------------- */

bool vmpi_jvm_init_done;

typedef struct SystemThreadStart {
    void (*f)(void *);
} SystemThreadStart;

static void *run_system_thread(void *arg) {
    SystemThreadStart start = *(SystemThreadStart *)arg;
    free(arg);
    start.f(NULL);
    return NULL;
}

/* JVMPI 1.2 CreateSystemThread: a daemon thread running f(NULL).  Refused
 * while GC is disabled (JVMPI 1.2 section 1.5 forbids the call then).  The
 * thread is no VM thread: it gets no THREAD_START and runs no bytecode.
 * Priorities are not supported and ignored. */
int32_t vmpi_create_system_thread(char *name, int32_t priority, void (*f)(void *)) {
    (void)name;
    (void)priority;
    Gc *gc = vmpi_gc();
    if (!f || (gc && gc_is_disabled(gc))) return VMPI_ERR;
    SystemThreadStart *start = malloc(sizeof *start);
    if (!start) return VMPI_ERR;
    start->f = f;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    int rc = pthread_create(&id, &attr, run_system_thread, start);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        free(start);
        return VMPI_ERR;
    }
    return VMPI_OK;
}

void vmpi_set_thread_local_storage(VMPI_ThreadID env, void *ptr) {
    if (vmpi_is_thread(env)) *vmpi_vm->local_storage(vmpi_vm->vm, env) = ptr;
}

void *vmpi_get_thread_local_storage(VMPI_ThreadID env) {
    return vmpi_is_thread(env) ? *vmpi_vm->local_storage(vmpi_vm->vm, env) : NULL;
}
