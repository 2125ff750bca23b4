/*
 * system_thread.c -- a test agent written against JVMPI's names alone
 * (jvmpi.h, jni.h) that makes a system thread and checks what JVMPI 1.2
 * says of it (CreateSystemThread; section 1.5: the call "causes thread
 * object allocation and thread start events to be issued"):
 *
 *   - THREAD_START comes for it before CreateSystemThread returns, named
 *     as asked, in group "main", with main as its parent, a thread object
 *     and the thread's own env as env_id;
 *   - on the thread, GetEnv(JNI_VERSION_1_2) gives that env; thread-local
 *     storage, GetThreadStatus (runnable), ThreadHasRun and
 *     GetCurrentThreadCpuTime work for it;
 *   - SuspendThread of it, from main, returns at once and leaves it
 *     unsuspended (it runs no bytecode: no safepoint to stop at);
 *   - it lives through at least three collections (the program collects
 *     in a small heap), and at JVM_SHUT_DOWN GetThreadObject still gives
 *     THREAD_START's thread_id as the OBJECT_MOVE events moved it;
 *   - THREAD_END comes on the thread itself once its function returned.
 *
 * At JVM_SHUT_DOWN it writes, on stderr:
 *
 *   system_thread: start: named, group main, parent main, thread object, env_id its own
 *   system_thread: on the thread: GetEnv(JNI_VERSION_1_2) is THREAD_START's env, storage, status, cpu time ok
 *   system_thread: suspend: refused at once, not suspended, has run
 *   system_thread: collections: N while it lived, its object moved M times, GetThreadObject follows
 *   system_thread: end: THREAD_END on the thread after its function returned
 *
 * or what went wrong instead.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <jvmpi.h>

#define NAME "jvmpi system thread"
#define COLLECTIONS_WANTED 3

static JavaVM *vm;
static JVMPI_Interface *jvmpi;

static _Atomic(JNIEnv *) started_env;       /* THREAD_START's thread_env_id */
static _Atomic(jobjectID) thread_object;    /* its thread_id, moved by OBJECT_MOVE */
static atomic_long collections, moves;
static long collections_at_start;           /* at its THREAD_START */
static atomic_int returned;                 /* the thread's function has returned */
static const char *start_result = "no THREAD_START for the system thread";
static const char *on_thread_result = "the thread never ran";
static const char *suspend_result = "not tried";
static const char *end_result = "no THREAD_END for the system thread";
static long collections_lived;

static void pause_ms(long ms) {
    struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&delay, NULL);
}

static JNIEnv *env_here(void) {
    JNIEnv *env = NULL;
    return (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_2) == JNI_OK ? env : NULL;
}

static void run(void *unused) {
    (void)unused;
    JNIEnv *env = env_here();
    int marker = 0;
    if (env) jvmpi->SetThreadLocalStorage(env, &marker);
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 1000000ul; i++) spin += i;
    if (!env || env != atomic_load(&started_env))
        on_thread_result = "GetEnv(JNI_VERSION_1_2) is not THREAD_START's env";
    else if (jvmpi->GetThreadLocalStorage(env) != &marker)
        on_thread_result = "GetThreadLocalStorage does not give what was set";
    else if (jvmpi->GetThreadStatus(env) != JVMPI_THREAD_RUNNABLE)
        on_thread_result = "GetThreadStatus is not JVMPI_THREAD_RUNNABLE";
    else if (jvmpi->GetCurrentThreadCpuTime() <= 0)
        on_thread_result = "GetCurrentThreadCpuTime gives no time";
    else
        on_thread_result = "GetEnv(JNI_VERSION_1_2) is THREAD_START's env, storage, status, cpu time ok";
    if (env) jvmpi->SetThreadLocalStorage(env, NULL);
    /* Counted from its THREAD_START, so a slow start misses none. */
    for (int i = 0; i < 20000 && atomic_load(&collections) < collections_at_start + COLLECTIONS_WANTED; i++)
        pause_ms(1);
    collections_lived = atomic_load(&collections) - collections_at_start;
    atomic_store(&returned, 1);
}

static void thread_start(const JVMPI_Event *event) {
    if (strcmp(event->u.thread_start.thread_name, NAME) != 0) return;
    JNIEnv *env = event->u.thread_start.thread_env_id;
    collections_at_start = atomic_load(&collections);
    atomic_store(&started_env, env);
    atomic_store(&thread_object, event->u.thread_start.thread_id);
    const char *parent = event->u.thread_start.parent_name;
    start_result = strcmp(event->u.thread_start.group_name, "main") != 0 ? "the group is not main"
                   : !parent || strcmp(parent, "main") != 0             ? "the parent is not main"
                   : !event->u.thread_start.thread_id                   ? "no thread object"
                   : event->env_id != env                               ? "env_id is not the thread's own"
                   : "named, group main, parent main, thread object, env_id its own";
}

static void thread_end(const JVMPI_Event *event) {
    JNIEnv *env = atomic_load(&started_env);
    if (!env || event->env_id != env) return;
    end_result = !atomic_load(&returned) ? "THREAD_END before the thread's function returned"
                 : env_here() != env     ? "THREAD_END on another thread"
                                         : "THREAD_END on the thread after its function returned";
}

/* Right after CreateSystemThread: SuspendThread must not wait for a
 * safepoint the system thread never reaches. */
static void try_suspending(void) {
    JNIEnv *env = atomic_load(&started_env);
    if (!env) return;
    jvmpi->SuspendThread(env);
    jint status = jvmpi->GetThreadStatus(env);
    jvmpi->ResumeThread(env);
    suspend_result = (status & JVMPI_THREAD_SUSPENDED) ? "the system thread shows as suspended"
                     : !jvmpi->ThreadHasRun(env)       ? "ThreadHasRun says it has not run"
                                                       : "refused at once, not suspended, has run";
}

static void report(void) {
    JNIEnv *env = atomic_load(&started_env);
    jvmpi->DisableGC(); /* object IDs hold still */
    jobjectID object = env ? jvmpi->GetThreadObject(env) : NULL;
    jobjectID expected = atomic_load(&thread_object);
    jvmpi->EnableGC();
    fprintf(stderr, "system_thread: start: %s\n", start_result);
    fprintf(stderr, "system_thread: on the thread: %s\n", on_thread_result);
    fprintf(stderr, "system_thread: suspend: %s\n", suspend_result);
    if (!object || object != expected)
        fprintf(stderr, "system_thread: collections: GetThreadObject is not THREAD_START's thread_id as moved\n");
    else if (collections_lived < COLLECTIONS_WANTED)
        fprintf(stderr, "system_thread: collections: only %ld while it lived\n", collections_lived);
    else
        fprintf(stderr,
                "system_thread: collections: %ld while it lived, its object moved %ld times, GetThreadObject follows\n",
                collections_lived, atomic_load(&moves));
    fprintf(stderr, "system_thread: end: %s\n", end_result);
}

static void notify_event(JVMPI_Event *event) {
    switch (event->event_type) {
    case JVMPI_EVENT_THREAD_START: thread_start(event); break;
    case JVMPI_EVENT_THREAD_END: thread_end(event); break;
    case JVMPI_EVENT_GC_FINISH: atomic_fetch_add(&collections, 1); break;
    case JVMPI_EVENT_OBJECT_MOVE:
        if (event->u.obj_move.obj_id == atomic_load(&thread_object)) {
            atomic_store(&thread_object, event->u.obj_move.new_obj_id);
            atomic_fetch_add(&moves, 1);
        }
        break;
    case JVMPI_EVENT_JVM_INIT_DONE:
        if (jvmpi->CreateSystemThread(NAME, JVMPI_NORMAL_PRIORITY, run) != JNI_OK)
            start_result = "CreateSystemThread failed";
        else
            try_suspending();
        break;
    case JVMPI_EVENT_JVM_SHUT_DOWN: report(); break;
    default: break;
    }
}

JNIEXPORT jint JNICALL JVM_OnLoad(JavaVM *jvm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    vm = jvm;
    if ((*jvm)->GetEnv(jvm, (void **)&jvmpi, JVMPI_VERSION_1) != JNI_OK) return JNI_ERR;
    jvmpi->NotifyEvent = notify_event;
    static const jint wanted[] = {JVMPI_EVENT_THREAD_START, JVMPI_EVENT_THREAD_END, JVMPI_EVENT_GC_FINISH,
                                  JVMPI_EVENT_OBJECT_MOVE,  JVMPI_EVENT_JVM_INIT_DONE, JVMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (jvmpi->EnableEvent(wanted[i], NULL) != JVMPI_SUCCESS) return JNI_ERR;
    return JNI_OK;
}
