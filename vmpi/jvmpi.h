/*
 * jvmpi.h -- JVMPI as the JVMPI 1.2 and 1.4.2 specifications print it, for
 * agents written for it: include <jvmpi.h>, export JVM_OnLoad, and load
 * with vmrun -Xrun<name>[:options] (or -agentlib / -agentpath).  Written
 * for gclab from the specifications, not taken from a JDK.
 *
 *     JNIEXPORT jint JNICALL JVM_OnLoad(JavaVM *jvm, char *options, void *reserved) {
 *         if ((*jvm)->GetEnv(jvm, (void **)&jvmpi, JVMPI_VERSION_1) < 0) return JNI_ERR;
 *         jvmpi->NotifyEvent = notify_event;
 *         jvmpi->EnableEvent(JVMPI_EVENT_OBJECT_ALLOC, NULL);
 *         return JNI_OK;
 *     }
 *
 * This is a second view of VMPI (vmpi.h), not a second interface: the
 * JVMPI_Interface GetEnv hands out is the agent's VMPI_Interface, and each
 * JVMPI_Event is the VMPI_Event the VM posts.  Both structs lay out JVMPI's
 * members in JVMPI's order at the same offsets as VMPI's (vmpi/jvmpi.c
 * asserts it member by member at compile time), and the IDs are the same
 * pointer types.  The constants are VMPI's, under JVMPI's names, with
 * JVMPI's values.  docs/jvmpi.md says what a JVMPI agent gets and where
 * gclab differs from a JVM (no compiled methods, no class unloading, ...).
 */
#ifndef GCLAB_JVMPI_H
#define GCLAB_JVMPI_H

#include "jni.h"
#include "vmpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The entry point vmrun looks up (JVMPI 1.2 section 1.1).  Declared here
 * with JNIEXPORT so that it stays exported under -fvisibility=hidden. */
JNIEXPORT jint JNICALL JVM_OnLoad(JavaVM *jvm, char *options, void *reserved);

#define JVMPI_VERSION_1 ((jint)0x10000001)   /* JDK 1.2 */
#define JVMPI_VERSION_1_1 ((jint)0x10000002) /* + jobjectID2jobject, jobject2jobjectID */
#define JVMPI_VERSION_1_2 ((jint)0x10000003) /* + SuspendThreadList, ResumeThreadList */

#define JVMPI_SUCCESS ((jint)VMPI_OK)
#define JVMPI_NOT_AVAILABLE ((jint)VMPI_NOT_AVAILABLE)
#define JVMPI_FAIL ((jint)VMPI_ERR)

/* An object ID (a class ID is its class object's). */
struct _jobjectID;
typedef struct _jobjectID *jobjectID;

/* The event codes, JVMPI_EVENT_METHOD_ENTRY ... (the numbers are JVMPI's;
 * vmpi.h's table lists them). */
enum {
#define JVMPI_EVENT_ENUM(name, code, member) JVMPI_EVENT_##name = code,
    VMPI_EVENTS(JVMPI_EVENT_ENUM)
#undef JVMPI_EVENT_ENUM
};
#define JVMPI_REQUESTED_EVENT VMPI_REQUESTED_EVENT

/* OBJECT_ALLOC's is_array and a dump's ty. */
#define JVMPI_NORMAL_OBJECT VMPI_NORMAL_OBJECT
#define JVMPI_CLASS VMPI_CLASS
#define JVMPI_BOOLEAN VMPI_BOOLEAN
#define JVMPI_CHAR VMPI_CHAR
#define JVMPI_FLOAT VMPI_FLOAT
#define JVMPI_DOUBLE VMPI_DOUBLE
#define JVMPI_BYTE VMPI_BYTE
#define JVMPI_SHORT VMPI_SHORT
#define JVMPI_INT VMPI_INT
#define JVMPI_LONG VMPI_LONG

/* CreateSystemThread's priorities (JVMPI 1.2 section 2). */
#define JVMPI_MINIMUM_PRIORITY 1
#define JVMPI_NORMAL_PRIORITY 5
#define JVMPI_MAXIMUM_PRIORITY 10

/* GetThreadStatus. */
#define JVMPI_THREAD_RUNNABLE VMPI_THREAD_RUNNABLE
#define JVMPI_THREAD_MONITOR_WAIT VMPI_THREAD_MONITOR_WAIT
#define JVMPI_THREAD_CONDVAR_WAIT VMPI_THREAD_CONDVAR_WAIT
#define JVMPI_THREAD_SUSPENDED VMPI_THREAD_SUSPENDED
#define JVMPI_THREAD_INTERRUPTED VMPI_THREAD_INTERRUPTED

/* Heap dump levels and the dump formats' record types (JVMPI 1.2 section
 * 4).  In gclab's dumps an ID takes sizeof(void *) bytes and every number
 * is in the machine's byte order (vmpi.h). */
#define JVMPI_DUMP_LEVEL_0 VMPI_DUMP_LEVEL_0
#define JVMPI_DUMP_LEVEL_1 VMPI_DUMP_LEVEL_1
#define JVMPI_DUMP_LEVEL_2 VMPI_DUMP_LEVEL_2
#define JVMPI_GC_ROOT_UNKNOWN VMPI_GC_ROOT_UNKNOWN
#define JVMPI_GC_ROOT_JNI_GLOBAL VMPI_GC_ROOT_JNI_GLOBAL
#define JVMPI_GC_ROOT_JNI_LOCAL VMPI_GC_ROOT_JNI_LOCAL
#define JVMPI_GC_ROOT_JAVA_FRAME VMPI_GC_ROOT_JAVA_FRAME
#define JVMPI_GC_ROOT_NATIVE_STACK VMPI_GC_ROOT_NATIVE_STACK
#define JVMPI_GC_ROOT_STICKY_CLASS VMPI_GC_ROOT_STICKY_CLASS
#define JVMPI_GC_ROOT_THREAD_BLOCK VMPI_GC_ROOT_THREAD_BLOCK
#define JVMPI_GC_ROOT_MONITOR_USED VMPI_GC_ROOT_MONITOR_USED
#define JVMPI_GC_CLASS_DUMP VMPI_GC_CLASS_DUMP
#define JVMPI_GC_INSTANCE_DUMP VMPI_GC_INSTANCE_DUMP
#define JVMPI_GC_OBJ_ARRAY_DUMP VMPI_GC_OBJ_ARRAY_DUMP
#define JVMPI_GC_PRIM_ARRAY_DUMP VMPI_GC_PRIM_ARRAY_DUMP
#define JVMPI_MONITOR_JAVA VMPI_MONITOR_JAVA
#define JVMPI_MONITOR_RAW VMPI_MONITOR_RAW

/* The data types of JVMPI 1.2 section 5: VMPI's, which have JVMPI's
 * members and, through the shared struct tags, JVMPI's types. */
typedef VMPI_RawMonitor JVMPI_RawMonitor;
typedef VMPI_Field JVMPI_Field;
typedef VMPI_Lineno JVMPI_Lineno;
typedef VMPI_Method JVMPI_Method;
typedef VMPI_CallFrame JVMPI_CallFrame;
typedef VMPI_CallTrace JVMPI_CallTrace;
typedef VMPI_HeapDumpArg JVMPI_HeapDumpArg;

/* An event (JVMPI 1.2 section 3, JVMPI 1.4.2 for instruction). */
typedef struct {
    jint event_type; /* the code, possibly | JVMPI_REQUESTED_EVENT */
    JNIEnv *env_id;  /* the thread the event happened in */
    union {
        struct { jmethodID method_id; } method;
        struct { jmethodID method_id; jobjectID obj_id; } method_entry2;
        struct {
            jmethodID method_id;
            jint offset;
            union {
                struct { jboolean is_true; } if_info;
                struct { jint key; jint low; jint hi; } tableswitch_info;
                struct { jint chosen_pair_index; jboolean is_default; } lookupswitch_info;
            } u;
        } instruction;
        struct {
            jint arena_id;
            jobjectID class_id;
            jint is_array;
            jint size;
            jobjectID obj_id;
        } obj_alloc;
        struct { jobjectID obj_id; } obj_free;
        struct {
            jint arena_id;
            jobjectID obj_id;
            jint new_arena_id;
            jobjectID new_obj_id;
        } obj_move;
        struct { jint arena_id; char *arena_name; } new_arena;
        struct { jint arena_id; } delete_arena;
        struct {
            char *thread_name;
            char *group_name;
            char *parent_name;
            jobjectID thread_id;
            JNIEnv *thread_env_id;
        } thread_start;
        struct {
            char *class_name;
            char *source_name;
            jint num_interfaces;
            jint num_methods;
            JVMPI_Method *methods;
            jint num_static_fields;
            JVMPI_Field *statics;
            jint num_instance_fields;
            JVMPI_Field *instances;
            jobjectID class_id;
        } class_load;
        struct {
            unsigned char *class_data;
            jint class_data_len;
            unsigned char *new_class_data;
            jint new_class_data_len;
            void *(*malloc_f)(unsigned int);
        } class_load_hook;
        struct { jobjectID class_id; } class_unload;
        /* Never posted by gclab, which compiles no method (docs/jvmpi.md). */
        struct {
            jmethodID method_id;
            void *code_addr;
            jint code_size;
            jint lineno_table_size;
            JVMPI_Lineno *lineno_table;
        } compiled_method_load;
        struct { jmethodID method_id; } compiled_method_unload;
        struct { jobjectID obj_id; jobject ref_id; } jni_globalref_alloc;
        struct { jobject ref_id; } jni_globalref_free;
        struct {
            int dump_level;
            char *begin;
            char *end;
            jint num_traces;
            JVMPI_CallTrace *traces;
        } heap_dump;
        struct { jint data_len; char *data; } object_dump;
        struct { jobjectID object; } monitor;
        struct { jobjectID object; jlong timeout; } monitor_wait;
        struct {
            char *begin;
            char *end;
            jint num_traces;
            JVMPI_CallTrace *traces;
            jint *threads_status;
        } monitor_dump;
        struct { char *name; JVMPI_RawMonitor id; } raw_monitor;
        struct {
            jlong used_objects;
            jlong used_object_space;
            jlong total_object_space;
        } gc_info;
    } u;
} JVMPI_Event;

/* The function table (JVMPI 1.4.2, which is JVMPI 1.2's with four
 * functions added at the end). */
typedef struct {
    jint version;

    /* implemented by the profiler */
    void (*NotifyEvent)(JVMPI_Event *event);

    /* implemented by the VM */
    jint (*EnableEvent)(jint event_type, void *arg);
    jint (*DisableEvent)(jint event_type, void *arg);
    jint (*RequestEvent)(jint event_type, void *arg);

    void (*GetCallTrace)(JVMPI_CallTrace *trace, jint depth);
    void (*ProfilerExit)(jint);

    JVMPI_RawMonitor (*RawMonitorCreate)(char *lock_name);
    void (*RawMonitorEnter)(JVMPI_RawMonitor lock_id);
    void (*RawMonitorExit)(JVMPI_RawMonitor lock_id);
    void (*RawMonitorWait)(JVMPI_RawMonitor lock_id, jlong ms);
    void (*RawMonitorNotifyAll)(JVMPI_RawMonitor lock_id);
    void (*RawMonitorDestroy)(JVMPI_RawMonitor lock_id);

    jlong (*GetCurrentThreadCpuTime)(void);
    void (*SuspendThread)(JNIEnv *env);
    void (*ResumeThread)(JNIEnv *env);
    jint (*GetThreadStatus)(JNIEnv *env);
    jboolean (*ThreadHasRun)(JNIEnv *env);
    jint (*CreateSystemThread)(char *name, jint priority, void (*f)(void *));
    void (*SetThreadLocalStorage)(JNIEnv *env_id, void *ptr);
    void *(*GetThreadLocalStorage)(JNIEnv *env_id);

    void (*DisableGC)(void);
    void (*EnableGC)(void);
    void (*RunGC)(void);

    jobjectID (*GetThreadObject)(JNIEnv *env);
    jobjectID (*GetMethodClass)(jmethodID mid);

    /* JVMPI_VERSION_1_1 */
    jobject (*jobjectID2jobject)(jobjectID jid);
    jobjectID (*jobject2jobjectID)(jobject j);

    /* JVMPI_VERSION_1_2 */
    void (*SuspendThreadList)(jint reqCount, JNIEnv **reqList, jint *results);
    void (*ResumeThreadList)(jint reqCount, JNIEnv **reqList, jint *results);
} JVMPI_Interface;

#ifdef __cplusplus
}
#endif

#endif
