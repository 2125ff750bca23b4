/*
 * tracer.c -- a JVMPI agent, written to the JVMPI 1.2 specification alone
 * (jvmpi.h, jni.h; no gclab names): a readable trace of a program's
 * threads, classes, collections and monitor waits, and how many methods
 * each thread entered, counted in JVMPI's thread-local storage as the
 * specification's section 1.5 example does.
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags vmpi) \
 *        -o libtracer.so tracer.c
 *     vmrun -Xruntracer:file=trace.txt program.gcl      (libtracer.so on LD_LIBRARY_PATH)
 *
 * One line per event goes to `file` (default tracer.txt): THREAD_START and
 * THREAD_END with the thread's name, CLASS_LOAD, GC_START and GC_FINISH
 * with the heap's figures, MONITOR_CONTENDED_ENTER, MONITOR_WAIT and
 * MONITOR_WAITED with the class of the object (found by requesting its
 * OBJECT_ALLOC), or "sleep" when there is none (JVMPI: Thread.sleep).  At
 * JVM_SHUT_DOWN a summary goes to standard error: each thread's method
 * count, and whether the JNIEnv * that JNI's GetEnv gives on a thread was
 * the thread's ID in the events it sent.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jvmpi.h>

typedef struct { /* one thread's, in its thread-local storage */
    char *name;
    long methods;
    int checked_env; /* GetEnv(JNI_VERSION_1_2) was compared with the events' env_id */
} ThreadData;

static JavaVM *vm;
static JVMPI_Interface *jvmpi;
static JVMPI_RawMonitor lock;
static FILE *out;

static struct { jobjectID id; char *name; } classes[4096];
static int num_classes;
static const char *requested_class; /* the class of a requested OBJECT_ALLOC */

static ThreadData *ended[1024]; /* for the summary */
static int num_ended;
static long collections, sleeps, waits, env_mismatches;

static const char *class_name(jobjectID id) {
    for (int i = 0; i < num_classes; i++)
        if (classes[i].id == id) return classes[i].name;
    return "?";
}

static const char *thread_name(JNIEnv *env) {
    ThreadData *t = env ? jvmpi->GetThreadLocalStorage(env) : NULL;
    return t ? t->name : "?";
}

/* The class of the object a monitor event names (GC is disabled in it). */
static const char *object_class(jobjectID object) {
    requested_class = NULL;
    if (jvmpi->RequestEvent(JVMPI_EVENT_OBJECT_ALLOC, object) != JVMPI_SUCCESS || !requested_class) return "?";
    return requested_class;
}

static void thread_started(const JVMPI_Event *event) {
    ThreadData *t = calloc(1, sizeof *t);
    if (!t) return;
    t->name = strdup(event->u.thread_start.thread_name ? event->u.thread_start.thread_name : "?");
    jvmpi->SetThreadLocalStorage(event->u.thread_start.thread_env_id, t);
    fprintf(out, "THREAD_START %s (group %s, parent %s)\n", t->name,
            event->u.thread_start.group_name ? event->u.thread_start.group_name : "-",
            event->u.thread_start.parent_name ? event->u.thread_start.parent_name : "-");
}

static void method_entered(JNIEnv *env) {
    ThreadData *t = jvmpi->GetThreadLocalStorage(env);
    if (!t) return;
    t->methods++;
    if (!t->checked_env) { /* JNI's identity of this thread is JVMPI's */
        JNIEnv *mine = NULL;
        if ((*vm)->GetEnv(vm, (void **)&mine, JNI_VERSION_1_2) != JNI_OK || mine != env) env_mismatches++;
        t->checked_env = 1;
    }
}

static void thread_ended(JNIEnv *env) {
    ThreadData *t = jvmpi->GetThreadLocalStorage(env);
    if (!t) return;
    fprintf(out, "THREAD_END %s\n", t->name);
    if (num_ended < (int)(sizeof ended / sizeof ended[0])) ended[num_ended++] = t;
}

static void monitor_wait(const JVMPI_Event *event, const char *what) {
    jobjectID object = event->u.monitor_wait.object;
    if (object) waits++;
    else sleeps++;
    fprintf(out, "%s %s on %s, %lld ms\n", what, thread_name(event->env_id), object ? object_class(object) : "sleep",
            (long long)event->u.monitor_wait.timeout);
}

static void summary(void) {
    fprintf(stderr, "tracer: %d threads ended, %ld collections, %ld monitor waits, %ld sleeps\n", num_ended,
            collections, waits, sleeps);
    for (int i = 0; i < num_ended; i++)
        fprintf(stderr, "tracer: thread %s entered %ld methods\n", ended[i]->name, ended[i]->methods);
    fprintf(stderr, "tracer: GetEnv(JNI_VERSION_1_2) %s\n",
            env_mismatches ? "differed from the events' env_id" : "gave each thread its events' env_id");
}

static void notify_event(JVMPI_Event *event) {
    jvmpi->RawMonitorEnter(lock);
    switch (event->event_type & ~JVMPI_REQUESTED_EVENT) {
    case JVMPI_EVENT_THREAD_START: thread_started(event); break;
    case JVMPI_EVENT_THREAD_END: thread_ended(event->env_id); break;
    case JVMPI_EVENT_METHOD_ENTRY: method_entered(event->env_id); break;
    case JVMPI_EVENT_CLASS_LOAD:
        if (num_classes < (int)(sizeof classes / sizeof classes[0])) {
            classes[num_classes].id = event->u.class_load.class_id;
            classes[num_classes++].name = strdup(event->u.class_load.class_name);
        }
        fprintf(out, "CLASS_LOAD %s (%d methods)\n", event->u.class_load.class_name,
                (int)event->u.class_load.num_methods);
        break;
    case JVMPI_EVENT_OBJECT_ALLOC: /* only ever requested, by object_class */
        requested_class = event->u.obj_alloc.is_array == JVMPI_NORMAL_OBJECT ? class_name(event->u.obj_alloc.class_id)
                                                                            : "an array";
        break;
    case JVMPI_EVENT_GC_START: fprintf(out, "GC_START\n"); break;
    case JVMPI_EVENT_GC_FINISH:
        collections++;
        fprintf(out, "GC_FINISH %lld objects, %lld bytes in use of %lld\n",
                (long long)event->u.gc_info.used_objects, (long long)event->u.gc_info.used_object_space,
                (long long)event->u.gc_info.total_object_space);
        break;
    case JVMPI_EVENT_MONITOR_CONTENDED_ENTER:
        fprintf(out, "MONITOR_CONTENDED_ENTER %s on %s\n", thread_name(event->env_id),
                object_class(event->u.monitor.object));
        break;
    case JVMPI_EVENT_MONITOR_WAIT: monitor_wait(event, "MONITOR_WAIT"); break;
    case JVMPI_EVENT_MONITOR_WAITED: monitor_wait(event, "MONITOR_WAITED"); break;
    case JVMPI_EVENT_JVM_INIT_DONE: fprintf(out, "JVM_INIT_DONE\n"); break;
    case JVMPI_EVENT_JVM_SHUT_DOWN:
        fprintf(out, "JVM_SHUT_DOWN\n");
        fflush(out);
        summary();
        break;
    }
    jvmpi->RawMonitorExit(lock);
}

JNIEXPORT jint JNICALL JVM_OnLoad(JavaVM *jvm, char *options, void *reserved) {
    (void)reserved;
    vm = jvm;
    if ((*jvm)->GetEnv(jvm, (void **)&jvmpi, JVMPI_VERSION_1) < 0) return JNI_ERR;
    const char *file = "tracer.txt";
    if (options && *options) {
        if (strncmp(options, "file=", 5) != 0 || !options[5]) {
            fprintf(stderr, "tracer: the only option is file=PATH, not '%s'\n", options);
            return JNI_ERR;
        }
        file = options + 5;
    }
    if (!(out = fopen(file, "w"))) {
        perror(file);
        return JNI_ERR;
    }
    lock = jvmpi->RawMonitorCreate("_tracer");
    jvmpi->NotifyEvent = notify_event;
    static const jint events[] = {JVMPI_EVENT_THREAD_START,  JVMPI_EVENT_THREAD_END,
                                  JVMPI_EVENT_METHOD_ENTRY,  JVMPI_EVENT_CLASS_LOAD,
                                  JVMPI_EVENT_GC_START,      JVMPI_EVENT_GC_FINISH,
                                  JVMPI_EVENT_MONITOR_CONTENDED_ENTER, JVMPI_EVENT_MONITOR_WAIT,
                                  JVMPI_EVENT_MONITOR_WAITED, JVMPI_EVENT_JVM_INIT_DONE,
                                  JVMPI_EVENT_JVM_SHUT_DOWN};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (jvmpi->EnableEvent(events[i], NULL) != JVMPI_SUCCESS) return JNI_ERR;
    return JNI_OK;
}
