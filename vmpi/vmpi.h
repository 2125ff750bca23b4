/*
 * vmpi.h -- the gclab Virtual Machine Profiler Interface.  This is the one
 * public header an agent includes; it is installed with gclab.
 *
 * VMPI is JVMPI 1.2 (as printed in the VMPI patent, "A method for enabling
 * comprehensive profiling of garbage-collected memory systems", Appendix A)
 * with the JVMPI 1.4.2 additions (SuspendThreadList, ResumeThreadList) and
 * JVMTI 11 heap sampling (SetHeapSamplingInterval), with JNI types replaced
 * by VMPI's own IDs.  The five heap events -- ARENA_NEW, ARENA_DELETE,
 * OBJECT_ALLOC, OBJECT_MOVE, OBJECT_FREE -- are the patent's
 * algorithm-independent events; every gclab collector reports through them.
 *
 * An agent is a shared library exporting VMPI_OnLoad, declared below; it
 * defines it as `VMPI_EXPORT int32_t VMPI_OnLoad(...)`, so that the entry
 * point stays exported when the agent is built with -fvisibility=hidden.
 * VMPI_OnLoad calls vm->GetEnv(vm, (void **)&iface, VMPI_VERSION_1), sets
 * iface->NotifyEvent, enables the events it wants, and returns VMPI_OK
 * (JVMPI 1.2 section 1.1-1.2).  `options` is what followed '=' in
 * -agentlib:NAME=OPTIONS, and "" (never NULL) when there was none.
 * Returning anything else makes vmrun stop with a message naming the agent.
 *
 * Event records and the strings they point to belong to the VM and are gone
 * when NotifyEvent returns (docs/contracts.md, the agent contract).
 */
#ifndef GCLAB_VMPI_H
#define GCLAB_VMPI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the agent's entry point as exported from its shared library whatever
 * the default visibility it is compiled with. */
#if defined(__GNUC__) || defined(__clang__)
#define VMPI_EXPORT __attribute__((visibility("default")))
#else
#define VMPI_EXPORT
#endif

/* The agent's entry point, looked up by name when vmrun loads the library
 * (-agentlib:NAME=OPTIONS or -agentpath:PATH=OPTIONS). */
struct VMPI_VM;
VMPI_EXPORT int32_t VMPI_OnLoad(struct VMPI_VM *vm, char *options, void *reserved);

#define VMPI_VERSION_1 0x10000001

#define VMPI_OK 0
#define VMPI_ERR (-1)
#define VMPI_NOT_AVAILABLE 1
#define VMPI_EDETACHED (-2) /* GetEnv: the thread is not one of the VM's (JNI_EDETACHED) */
#define VMPI_EVERSION (-3) /* GetEnv: version not supported (JNI_EVERSION) */

/* IDs (JVMPI 1.2 section 1.4).  An object ID is the object's address while
 * it lives there; a class ID is the object ID of the class's object; a thread
 * ID names the VM's thread record; a method ID names the method's record.
 * The struct tags are the ones jvmpi.h and jni.h give jobjectID, jmethodID,
 * JNIEnv, JVMPI_RawMonitor and jobject, so that a JVMPI agent's view of the
 * same interface table has exactly these function types (docs/jvmpi.md). */
typedef struct _jobjectID *VMPI_ObjectID;
typedef struct _jmethodID *VMPI_MethodID;
typedef struct JNIEnv_ *VMPI_ThreadID;
typedef struct JVMPI_RawMonitor *VMPI_RawMonitor;
/* A native's global or weak global reference (JVMPI's jobject ref_id): the
 * handle vm/native/gclab_native.h gives the native. */
typedef struct _jobject *VMPI_JNIRef;
typedef int32_t VMPI_ArenaID;

/*
 * The event table, one row per event: NAME, code, and the member of
 * VMPI_Event.u that carries its data (`none`: the event has no data).
 * Codes are JVMPI's historic numeric values and are stable: a code is never
 * reused or renumbered (the trace format and binary agents depend on them).
 *
 * EnableEvent accepts exactly the events gclab posts and answers
 * VMPI_NOT_AVAILABLE for the others (COMPILED_METHOD_*, CLASS_UNLOAD;
 * CLASS_LOAD_HOOK after VMPI_OnLoad);
 * HEAP_DUMP, OBJECT_DUMP and MONITOR_DUMP come only from RequestEvent.
 * DATA_DUMP_REQUEST follows SIGQUIT (or, to one agent, that agent's
 * RequestEvent(DATA_DUMP_REQUEST, NULL), from any thread: see
 * docs/contracts.md) and DATA_RESET_REQUEST SIGUSR2.
 * docs/event-mapping.md lists when each event is posted.
 *
 * VMPI_FIELDS_<member>(F) lists that member's fields in the struct's order
 * as F(member, KIND, field_name), with JVMPI's field names.  The KIND says
 * what the field holds; VMPI_KIND_TYPE_<KIND> is its C type:
 *
 *   INT32, INT64     a number
 *   ARENA_ID         an arena ID (a number)
 *   OBJECT_ID        an object ID (a class ID is the class object's ID)
 *   METHOD_ID        a method ID
 *   THREAD_ID        a thread (JVMPI's JNIEnv *)
 *   RAW_MONITOR      a raw monitor ID
 *   JNI_REF          a native's global or weak global reference
 *   STRING           a NUL-terminated UTF-8 string, or NULL
 *   METHODS, FIELDS, CALL_TRACES, CALL_FRAMES, INT32_ARRAY
 *                    an array whose length is the last INT32 field before
 *                    it (so threads_status has num_traces entries)
 *   BUFFER           a pointer into a dump buffer (JVMPI 1.2, section 4)
 *   BYTES            a byte buffer whose length is the INT32 field after it
 *   ALLOCATOR        a function the agent allocates with (malloc_f)
 *
 * Codes from VMPI_FIRST_GCLAB_EVENT up are gclab's own mechanism events,
 * beyond JVMPI's: how a collection works, phase by phase and object by
 * object, in each algorithm's own terms (docs/mechanism-events.md).  JVMPI
 * agents never see them unless they enable them.
 *
 * The trace agent's writer, the unit test of the union's layout and the
 * table in docs/trace-format.md are generated from these lists, so none of
 * them can drift from this header (the shape of MPS's eventdef.h: one
 * table, expanded many ways).
 */
#define VMPI_EVENTS(X) \
    X(METHOD_ENTRY,                  1, method)            \
    X(METHOD_ENTRY2,                 2, method_entry2)     \
    X(METHOD_EXIT,                   3, method)            \
    X(OBJECT_ALLOC,                  4, obj_alloc)         \
    X(OBJECT_FREE,                   5, obj_free)          \
    X(OBJECT_MOVE,                   6, obj_move)          \
    X(COMPILED_METHOD_LOAD,          7, none)              \
    X(COMPILED_METHOD_UNLOAD,        8, none)              \
    X(INSTRUCTION_START,             9, instruction)       \
    X(THREAD_START,                 33, thread_start)      \
    X(THREAD_END,                   34, none)              \
    X(CLASS_LOAD_HOOK,              35, class_load_hook)   \
    X(HEAP_DUMP,                    37, heap_dump)         \
    X(JNI_GLOBALREF_ALLOC,          38, jni_globalref_alloc) \
    X(JNI_GLOBALREF_FREE,           39, jni_globalref_free) \
    X(JNI_WEAK_GLOBALREF_ALLOC,     40, jni_globalref_alloc) \
    X(JNI_WEAK_GLOBALREF_FREE,      41, jni_globalref_free) \
    X(CLASS_LOAD,                   42, class_load)        \
    X(CLASS_UNLOAD,                 43, class_unload)      \
    X(DATA_DUMP_REQUEST,            44, none)              \
    X(DATA_RESET_REQUEST,           45, none)              \
    X(JVM_INIT_DONE,                46, none)              \
    X(JVM_SHUT_DOWN,                47, none)              \
    X(ARENA_NEW,                    48, new_arena)         \
    X(ARENA_DELETE,                 49, delete_arena)      \
    X(OBJECT_DUMP,                  50, object_dump)       \
    X(MONITOR_CONTENDED_ENTER,      51, monitor)           \
    X(MONITOR_CONTENDED_ENTERED,    52, monitor)           \
    X(MONITOR_CONTENDED_EXIT,       53, monitor)           \
    X(MONITOR_WAIT,                 54, monitor_wait)      \
    X(MONITOR_WAITED,               55, monitor_wait)      \
    X(MONITOR_DUMP,                 56, monitor_dump)      \
    X(GC_START,                     57, none)              \
    X(GC_FINISH,                    58, gc_info)           \
    X(RAW_MONITOR_CONTENDED_ENTER,  59, raw_monitor)       \
    X(RAW_MONITOR_CONTENDED_ENTERED, 60, raw_monitor)      \
    X(RAW_MONITOR_CONTENDED_EXIT,   61, raw_monitor)       \
    X(SAMPLED_OBJECT_ALLOC,         62, sampled_alloc)     \
    X(GC_PHASE_START,              100, gc_phase)          \
    X(GC_PHASE_END,                101, gc_phase)          \
    X(OBJECT_GREYED,               102, gc_object)         \
    X(OBJECT_BLACKENED,            103, gc_object)         \
    X(OBJECT_FORWARDED,            104, obj_forward)       \
    X(REMEMBERED_SET_ADD,          105, gc_object)         \
    X(REFCOUNT_CHANGE,             106, refcount_change)   \
    X(OBJECT_FREE_CAUSE,           107, free_cause)

#define VMPI_FIELDS_none(F)
#define VMPI_FIELDS_method(F) \
    F(method, METHOD_ID, method_id)
#define VMPI_FIELDS_method_entry2(F) \
    F(method_entry2, METHOD_ID, method_id) \
    F(method_entry2, OBJECT_ID, obj_id)
#define VMPI_FIELDS_instruction(F) \
    F(instruction, METHOD_ID, method_id)         \
    F(instruction, INT32,     offset)            \
    F(instruction, INT32,     is_true)           \
    F(instruction, INT32,     key)               \
    F(instruction, INT32,     low)               \
    F(instruction, INT32,     hi)                \
    F(instruction, INT32,     chosen_pair_index) \
    F(instruction, INT32,     is_default)
/* An allocation's fields, which SAMPLED_OBJECT_ALLOC's record begins with. */
#define VMPI_ALLOCATION_FIELDS(F, member) \
    F(member, ARENA_ID,  arena_id) \
    F(member, OBJECT_ID, class_id) \
    F(member, INT32,     is_array) \
    F(member, INT32,     size)     \
    F(member, OBJECT_ID, obj_id)
#define VMPI_FIELDS_obj_alloc(F) VMPI_ALLOCATION_FIELDS(F, obj_alloc)
#define VMPI_FIELDS_sampled_alloc(F) \
    VMPI_ALLOCATION_FIELDS(F, sampled_alloc) \
    F(sampled_alloc, INT32,       num_frames) \
    F(sampled_alloc, CALL_FRAMES, frames)
#define VMPI_FIELDS_obj_free(F) \
    F(obj_free, OBJECT_ID, obj_id)
#define VMPI_FIELDS_obj_move(F) \
    F(obj_move, ARENA_ID,  arena_id)     \
    F(obj_move, OBJECT_ID, obj_id)       \
    F(obj_move, ARENA_ID,  new_arena_id) \
    F(obj_move, OBJECT_ID, new_obj_id)
#define VMPI_FIELDS_new_arena(F) \
    F(new_arena, ARENA_ID, arena_id) \
    F(new_arena, STRING,   arena_name)
#define VMPI_FIELDS_delete_arena(F) \
    F(delete_arena, ARENA_ID, arena_id)
#define VMPI_FIELDS_thread_start(F) \
    F(thread_start, STRING,    thread_name) \
    F(thread_start, STRING,    group_name)  \
    F(thread_start, STRING,    parent_name) \
    F(thread_start, OBJECT_ID, thread_id)   \
    F(thread_start, THREAD_ID, thread_env_id)
#define VMPI_FIELDS_class_load(F) \
    F(class_load, STRING,    class_name)          \
    F(class_load, STRING,    source_name)         \
    F(class_load, INT32,     num_interfaces)      \
    F(class_load, INT32,     num_methods)         \
    F(class_load, METHODS,   methods)             \
    F(class_load, INT32,     num_static_fields)   \
    F(class_load, FIELDS,    statics)             \
    F(class_load, INT32,     num_instance_fields) \
    F(class_load, FIELDS,    instances)           \
    F(class_load, OBJECT_ID, class_id)
#define VMPI_FIELDS_class_load_hook(F) \
    F(class_load_hook, BYTES,     class_data)         \
    F(class_load_hook, INT32,     class_data_len)     \
    F(class_load_hook, BYTES,     new_class_data)     \
    F(class_load_hook, INT32,     new_class_data_len) \
    F(class_load_hook, ALLOCATOR, malloc_f)
#define VMPI_FIELDS_class_unload(F) \
    F(class_unload, OBJECT_ID, class_id)
#define VMPI_FIELDS_heap_dump(F) \
    F(heap_dump, INT32,       dump_level) \
    F(heap_dump, BUFFER,      begin)      \
    F(heap_dump, BUFFER,      end)        \
    F(heap_dump, INT32,       num_traces) \
    F(heap_dump, CALL_TRACES, traces)
#define VMPI_FIELDS_object_dump(F) \
    F(object_dump, INT32,  data_len) \
    F(object_dump, BUFFER, data)
#define VMPI_FIELDS_monitor(F) \
    F(monitor, OBJECT_ID, object)
#define VMPI_FIELDS_monitor_wait(F) \
    F(monitor_wait, OBJECT_ID, object) \
    F(monitor_wait, INT64,     timeout)
#define VMPI_FIELDS_monitor_dump(F) \
    F(monitor_dump, BUFFER,      begin)      \
    F(monitor_dump, BUFFER,      end)        \
    F(monitor_dump, INT32,       num_traces) \
    F(monitor_dump, CALL_TRACES, traces)     \
    F(monitor_dump, INT32_ARRAY, threads_status)
#define VMPI_FIELDS_raw_monitor(F) \
    F(raw_monitor, STRING,      name) \
    F(raw_monitor, RAW_MONITOR, id)
#define VMPI_FIELDS_jni_globalref_alloc(F) \
    F(jni_globalref_alloc, OBJECT_ID, obj_id) \
    F(jni_globalref_alloc, JNI_REF,   ref_id)
#define VMPI_FIELDS_jni_globalref_free(F) \
    F(jni_globalref_free, JNI_REF, ref_id)
#define VMPI_FIELDS_gc_phase(F) \
    F(gc_phase, STRING, phase_name)
#define VMPI_FIELDS_gc_object(F) \
    F(gc_object, OBJECT_ID, obj_id)
#define VMPI_FIELDS_obj_forward(F) \
    F(obj_forward, OBJECT_ID, obj_id) \
    F(obj_forward, OBJECT_ID, new_obj_id)
#define VMPI_FIELDS_refcount_change(F) \
    F(refcount_change, OBJECT_ID, obj_id) \
    F(refcount_change, INT32,     count)
#define VMPI_FIELDS_free_cause(F) \
    F(free_cause, OBJECT_ID, obj_id) \
    F(free_cause, STRING,    cause)
#define VMPI_FIELDS_gc_info(F) \
    F(gc_info, INT64, used_objects)      \
    F(gc_info, INT64, used_object_space) \
    F(gc_info, INT64, total_object_space)

#define VMPI_KIND_TYPE_INT32 int32_t
#define VMPI_KIND_TYPE_INT64 int64_t
#define VMPI_KIND_TYPE_ARENA_ID VMPI_ArenaID
#define VMPI_KIND_TYPE_OBJECT_ID VMPI_ObjectID
#define VMPI_KIND_TYPE_METHOD_ID VMPI_MethodID
#define VMPI_KIND_TYPE_THREAD_ID VMPI_ThreadID
#define VMPI_KIND_TYPE_RAW_MONITOR VMPI_RawMonitor
#define VMPI_KIND_TYPE_JNI_REF VMPI_JNIRef
#define VMPI_KIND_TYPE_STRING char *
#define VMPI_KIND_TYPE_METHODS VMPI_Method *
#define VMPI_KIND_TYPE_FIELDS VMPI_Field *
#define VMPI_KIND_TYPE_CALL_TRACES VMPI_CallTrace *
#define VMPI_KIND_TYPE_CALL_FRAMES VMPI_CallFrame *
#define VMPI_KIND_TYPE_INT32_ARRAY int32_t *
#define VMPI_KIND_TYPE_BUFFER char *
#define VMPI_KIND_TYPE_BYTES unsigned char *
#define VMPI_KIND_TYPE_ALLOCATOR VMPI_Allocator

enum {
#define VMPI_EVENT_ENUM(name, code, member) VMPI_EVENT_##name = code,
    VMPI_EVENTS(VMPI_EVENT_ENUM)
#undef VMPI_EVENT_ENUM
    VMPI_FIRST_GCLAB_EVENT = 100, /* gclab's own events: this code and up */
    VMPI_EVENT_CODE_LIMIT = 108   /* every code is below this */
};

/* Set in event_type when the agent asked for the event with RequestEvent
 * (JVMPI 1.2, JVMPI_REQUESTED_EVENT). */
#define VMPI_REQUESTED_EVENT 0x10000000

/* is_array values of OBJECT_ALLOC (JVMPI 1.2). */
enum {
    VMPI_NORMAL_OBJECT = 0,
    VMPI_CLASS = 2,
    VMPI_BOOLEAN = 4,
    VMPI_CHAR = 5,
    VMPI_FLOAT = 6,
    VMPI_DOUBLE = 7,
    VMPI_BYTE = 8,
    VMPI_SHORT = 9,
    VMPI_INT = 10,
    VMPI_LONG = 11,
};

/* Heap dump levels (JVMPI 1.2, section 4.2). */
enum { VMPI_DUMP_LEVEL_0 = 0, VMPI_DUMP_LEVEL_1 = 1, VMPI_DUMP_LEVEL_2 = 2 };

/* Record types of level 1/2 heap dumps and of object dumps (JVMPI 1.2
 * sections 4.2-4.3; values as in JDK's jvmpi.h).  In gclab's dumps an ID
 * (jobjectID, thread env) takes sizeof(void *) bytes and every multi-byte
 * value is in the VM's native byte order: the dump is read in-process. */
enum {
    VMPI_GC_ROOT_UNKNOWN = 0xff,
    VMPI_GC_ROOT_JNI_GLOBAL = 0x01,
    VMPI_GC_ROOT_JNI_LOCAL = 0x02,
    VMPI_GC_ROOT_JAVA_FRAME = 0x03,
    VMPI_GC_ROOT_NATIVE_STACK = 0x04,
    VMPI_GC_ROOT_STICKY_CLASS = 0x05,
    VMPI_GC_ROOT_THREAD_BLOCK = 0x06,
    VMPI_GC_ROOT_MONITOR_USED = 0x07,
    VMPI_GC_CLASS_DUMP = 0x20,
    VMPI_GC_INSTANCE_DUMP = 0x21,
    VMPI_GC_OBJ_ARRAY_DUMP = 0x22,
    VMPI_GC_PRIM_ARRAY_DUMP = 0x23,
};

/* Record types of monitor dumps (JVMPI 1.2 section 4.4; values as in JDK's
 * jvmpi.h): the language's monitors, then raw monitors (vmpi/runtime/monitor_dump.c). */
enum { VMPI_MONITOR_JAVA = 0x01, VMPI_MONITOR_RAW = 0x02 };

/* Thread status (JVMPI 1.2, GetThreadStatus). */
enum {
    VMPI_THREAD_RUNNABLE = 1,
    VMPI_THREAD_MONITOR_WAIT = 2,
    VMPI_THREAD_CONDVAR_WAIT = 3,
    VMPI_THREAD_SUSPENDED = 0x8000,
    VMPI_THREAD_INTERRUPTED = 0x4000,
};

typedef struct VMPI_Field {
    char *field_name;
    char *field_signature;
} VMPI_Field;

typedef struct VMPI_Lineno {
    int32_t offset;
    int32_t lineno;
} VMPI_Lineno;

typedef struct VMPI_Method {
    char *method_name;
    char *method_signature;
    int32_t start_lineno;
    int32_t end_lineno;
    VMPI_MethodID method_id;
} VMPI_Method;

typedef struct VMPI_CallFrame {
    int32_t lineno;
    VMPI_MethodID method_id;
} VMPI_CallFrame;

/* gclab extension: where a thread is -- its calling context cut to the
 * depth asked for (EnableCallSites) and its top frame's bytecode offset --
 * as one number, stable for the VM's life; 0 is no site (docs/contracts.md,
 * "Call sites"). */
typedef uint64_t VMPI_CallSiteID;

typedef struct VMPI_CallTrace {
    VMPI_ThreadID env_id;
    int32_t num_frames;
    VMPI_CallFrame *frames;
} VMPI_CallTrace;

/* CLASS_LOAD_HOOK's malloc_f (JVMPI 1.2). */
typedef void *(*VMPI_Allocator)(unsigned int size);

typedef struct VMPI_HeapDumpArg {
    int32_t heap_dump_level;
} VMPI_HeapDumpArg;

/* GetObjectMonitorUsage's answer (JVMTI's jvmtiMonitorUsage, asked for by
 * the TPTP thread profiler's "Get Object Monitor Usage" request): the
 * monitor's owner (NULL if none), its entry count (0 if free), and the
 * threads waiting to enter it (notified waiters among them) and to be
 * notified.  The agent lends the two arrays and says their room in
 * `capacity`; the VM fills at most that many of each and sets the counts
 * to how many there are, so a count above `capacity` means "ask again with
 * more room".  An object whose monitor nobody uses has owner NULL and all
 * counts 0. */
typedef struct VMPI_MonitorUsage {
    VMPI_ThreadID owner;
    int32_t entry_count;
    int32_t capacity;          /* in: room in `entering` and in `waiting` */
    int32_t num_entering;      /* out: threads waiting to enter */
    VMPI_ThreadID *entering;
    int32_t num_waiting;       /* out: threads waiting to be notified */
    VMPI_ThreadID *waiting;
} VMPI_MonitorUsage;

/* GetThreadInfo's answer (JVMTI's jvmtiThreadInfo, asked for by the TPTP
 * thread profiler's "Get Thread Information" request): what THREAD_START
 * says of the thread, now.  The strings are the VM's and live as long as
 * the thread; thread_object is an object ID (meaningful while GC is
 * disabled); status is GetThreadStatus's. */
typedef struct VMPI_ThreadInfo {
    char *thread_name;
    char *group_name;
    char *parent_name;         /* NULL for main */
    VMPI_ObjectID thread_object;
    int32_t status;
} VMPI_ThreadInfo;

typedef struct VMPI_Event {
    int32_t event_type;     /* code, possibly | VMPI_REQUESTED_EVENT */
    VMPI_ThreadID env_id;   /* thread the event happened in */
    union {
        struct { VMPI_MethodID method_id; } method;
        struct { VMPI_MethodID method_id; VMPI_ObjectID obj_id; } method_entry2;
        /* JVMPI 1.4.2, INSTRUCTION_START, before each instruction the
         * interpreter runs: offset is the instruction's in the method's
         * code; for a conditional branch (JT, JF) is_true is 1 when it
         * jumps.  JVMPI's union of if_info, tableswitch_info and
         * lookupswitch_info is flattened: key, low and hi (a table switch)
         * and chosen_pair_index and is_default (a lookup switch) are 0, as
         * gclab's bytecode has no switch instruction yet. */
        struct {
            VMPI_MethodID method_id;
            int32_t offset;
            int32_t is_true;
            int32_t key;
            int32_t low;
            int32_t hi;
            int32_t chosen_pair_index;
            int32_t is_default;
        } instruction;
        struct {
            VMPI_ArenaID arena_id;
            VMPI_ObjectID class_id;  /* element class when is_array == VMPI_CLASS */
            int32_t is_array;
            int32_t size;
            VMPI_ObjectID obj_id;
            /* gclab extension, after JVMPI's members: the allocating
             * thread's call site (GetCallSite at the allocation) while an
             * agent has enabled call sites, else 0; 0 in a requested
             * OBJECT_ALLOC and in SAMPLED_OBJECT_ALLOC (whose members
             * differ from here on). */
            VMPI_CallSiteID site;
        } obj_alloc;
        /* JVMTI 11, SampledObjectAlloc: the allocation as OBJECT_ALLOC
         * gives it (the same first members, so reading it as obj_alloc is
         * right), then the allocating thread's (env_id's) call trace, as
         * GetCallTrace gives one: frames[0] is the method that allocated,
         * at most 64 frames, the innermost. */
        struct {
            VMPI_ArenaID arena_id;
            VMPI_ObjectID class_id;
            int32_t is_array;
            int32_t size;
            VMPI_ObjectID obj_id;
            int32_t num_frames;
            VMPI_CallFrame *frames;
        } sampled_alloc;
        struct { VMPI_ObjectID obj_id; } obj_free;
        struct {
            VMPI_ArenaID arena_id;
            VMPI_ObjectID obj_id;
            VMPI_ArenaID new_arena_id;
            VMPI_ObjectID new_obj_id;
        } obj_move;
        struct { VMPI_ArenaID arena_id; char *arena_name; } new_arena;
        struct { VMPI_ArenaID arena_id; } delete_arena;
        struct {
            char *thread_name;
            char *group_name;
            char *parent_name;
            VMPI_ObjectID thread_id;
            VMPI_ThreadID thread_env_id;
        } thread_start;
        struct {
            char *class_name;
            char *source_name;
            int32_t num_interfaces;
            int32_t num_methods;
            VMPI_Method *methods;
            int32_t num_static_fields;
            VMPI_Field *statics;
            int32_t num_instance_fields;
            VMPI_Field *instances;
            VMPI_ObjectID class_id;
        } class_load;
        /* JVMPI 1.2, CLASS_LOAD_HOOK.  gclab has no class files: a .bc
         * image holds the whole program, so the hook is posted once, after
         * every VMPI_OnLoad (only an agent that enabled it there sees it)
         * and before the VM is made, with the program's .bc image
         * (docs/event-mapping.md).  To replace it the agent sets
         * new_class_data to a buffer from malloc_f (the VM frees it) and
         * new_class_data_len to its length; leaving both as they came keeps
         * the program.  The replacement is loaded and verified like a .bc
         * file: one that fails stops the run with a message naming the
         * agent. */
        struct {
            unsigned char *class_data;
            int32_t class_data_len;
            unsigned char *new_class_data;
            int32_t new_class_data_len;
            VMPI_Allocator malloc_f;
        } class_load_hook;
        struct { VMPI_ObjectID class_id; } class_unload;
        /* JVMPI 1.2, JNI_GLOBALREF_ALLOC and JNI_WEAK_GLOBALREF_ALLOC (the
         * same record): a native made a global or weak global reference
         * to obj_id (vm/native/gclab_native.h); ref_id is the handle it
         * got.  The FREE events follow its delete_global_ref and
         * delete_weak_global_ref, with the handle only.  A weak one the
         * collector cleared stays allocated until it is deleted. */
        struct { VMPI_ObjectID obj_id; VMPI_JNIRef ref_id; } jni_globalref_alloc;
        struct { VMPI_JNIRef ref_id; } jni_globalref_free;
        struct {
            int32_t dump_level;
            char *begin;
            char *end;
            int32_t num_traces;
            VMPI_CallTrace *traces;
        } heap_dump;
        struct { int32_t data_len; char *data; } object_dump;
        struct { VMPI_ObjectID object; } monitor;
        struct { VMPI_ObjectID object; int64_t timeout; } monitor_wait;
        struct {
            char *begin;
            char *end;
            int32_t num_traces;
            VMPI_CallTrace *traces;
            int32_t *threads_status;
        } monitor_dump;
        struct { char *name; VMPI_RawMonitor id; } raw_monitor;
        struct {
            int64_t used_objects;
            int64_t used_object_space;
            int64_t total_object_space;
        } gc_info;
        /* gclab's mechanism events (docs/mechanism-events.md). */
        /* GC_PHASE_START, GC_PHASE_END: a phase of the collection, by its
         * name in the collector's own algorithm ("mark", "relocate"). */
        struct { char *phase_name; } gc_phase;
        /* OBJECT_GREYED, OBJECT_BLACKENED (tri-colour marking, Cheney's
         * scan) and REMEMBERED_SET_ADD (a generational write barrier). */
        struct { VMPI_ObjectID obj_id; } gc_object;
        /* OBJECT_FORWARDED: obj_id's forwarding address is new_obj_id. */
        struct { VMPI_ObjectID obj_id; VMPI_ObjectID new_obj_id; } obj_forward;
        /* REFCOUNT_CHANGE: obj_id's reference count is now `count`. */
        struct { VMPI_ObjectID obj_id; int32_t count; } refcount_change;
        /* OBJECT_FREE_CAUSE, just before obj_id's OBJECT_FREE: why it is
         * freed ("unmarked", "zero-count", "cascade", "cycle"). */
        struct { VMPI_ObjectID obj_id; char *cause; } free_cause;
    } u;
} VMPI_Event;

/* The function table (JVMPI 1.2 section 1.2; 1.4.2 additions at the end). */
typedef struct VMPI_Interface {
    int32_t version;

    /* implemented by the agent */
    void (*NotifyEvent)(VMPI_Event *event);

    /* implemented by the VM */
    int32_t (*EnableEvent)(int32_t event_type, void *arg);
    int32_t (*DisableEvent)(int32_t event_type, void *arg);
    int32_t (*RequestEvent)(int32_t event_type, void *arg);

    /* trace->env_id names the thread; gclab takes NULL as the calling thread. */
    void (*GetCallTrace)(VMPI_CallTrace *trace, int32_t depth);
    void (*ProfilerExit)(int32_t exit_code);

    VMPI_RawMonitor (*RawMonitorCreate)(char *lock_name);
    void (*RawMonitorEnter)(VMPI_RawMonitor lock_id);
    void (*RawMonitorExit)(VMPI_RawMonitor lock_id);
    void (*RawMonitorWait)(VMPI_RawMonitor lock_id, int64_t ms);
    void (*RawMonitorNotifyAll)(VMPI_RawMonitor lock_id);
    void (*RawMonitorDestroy)(VMPI_RawMonitor lock_id);

    int64_t (*GetCurrentThreadCpuTime)(void);
    void (*SuspendThread)(VMPI_ThreadID env);
    void (*ResumeThread)(VMPI_ThreadID env);
    int32_t (*GetThreadStatus)(VMPI_ThreadID env);
    int32_t (*ThreadHasRun)(VMPI_ThreadID env);
    int32_t (*CreateSystemThread)(char *name, int32_t priority, void (*f)(void *));
    void (*SetThreadLocalStorage)(VMPI_ThreadID env, void *ptr);
    void *(*GetThreadLocalStorage)(VMPI_ThreadID env);

    void (*DisableGC)(void);
    void (*EnableGC)(void);
    void (*RunGC)(void);

    VMPI_ObjectID (*GetThreadObject)(VMPI_ThreadID env);
    VMPI_ObjectID (*GetMethodClass)(VMPI_MethodID method);

    /* JVMPI 1.4.2 (VERSION_1_1): a native's global or weak global reference
     * (vm/native/gclab_native.h) and the object ID it refers to, both ways.
     * jobjectID2jobject gives a live reference to the object, or NULL when
     * no native holds one (gclab makes none for an agent: a new reference
     * would be a root the program never made); jobject2jobjectID gives the
     * object of a live reference, NULL for a cleared weak one or a handle
     * that is no reference.  As with every object ID, call with GC
     * disabled. */
    VMPI_JNIRef (*jobjectID2jobject)(VMPI_ObjectID object);
    VMPI_ObjectID (*jobject2jobjectID)(VMPI_JNIRef ref);

    /* JVMPI 1.4.2 (VERSION_1_2); JVMPI's return nothing, VMPI's say whether
     * every thread was suspended (resumed). */
    int32_t (*SuspendThreadList)(int32_t count, VMPI_ThreadID *threads, int32_t *results);
    int32_t (*ResumeThreadList)(int32_t count, VMPI_ThreadID *threads, int32_t *results);

    /* JVMTI 11 heap sampling: SAMPLED_OBJECT_ALLOC once per
     * sampling_interval bytes a thread allocates, on average (random gaps
     * with that mean); 0 samples every allocation; a negative interval is
     * refused (VMPI_ERR).  An agent that enables the event without calling
     * this samples every 512 KiB, JVMTI's default
     * (JVMTI 11, SetHeapSamplingInterval; docs/contracts.md). */
    int32_t (*SetHeapSamplingInterval)(int32_t sampling_interval);

    /* gclab extension: the running collector's --gc name ("semispace"), so an
     * agent can tell which row of the arena/object mapping to expect. */
    const char *(*GetCollectorName)(void);

    /* gclab extensions for the TPTP thread profiler (docs/contracts.md,
     * "Monitor usage and thread information"), after every older entry so
     * an agent built against an older header keeps its offsets.
     * GetObjectMonitorUsage: `object`'s monitor now; VMPI_ERR for an object
     * that is not live or a NULL `usage`.  GetThreadInfo: the thread's
     * information; VMPI_ERR for a thread that is not live or a NULL `info`. */
    int32_t (*GetObjectMonitorUsage)(VMPI_ObjectID object, VMPI_MonitorUsage *usage);
    int32_t (*GetThreadInfo)(VMPI_ThreadID env, VMPI_ThreadInfo *info);

    /* gclab extension: call sites, the identity of "where this thread is,
     * with its callers to depth N" the interpreter keeps while an agent
     * asks for it (docs/contracts.md, "Call sites").  Added at the end, so
     * agents built before them still find every other entry in place.
     *
     * EnableCallSites: from now on until the VM exits, call sites name
     * contexts of up to `depth` frames (1 .. VMPI_MAX_CALL_SITE_DEPTH).
     * VMPI_OK; VMPI_NOT_AVAILABLE if the VM keeps none, or already
     * keeps shallower ones (the depth may grow only until the program has
     * run a frame: ask in JVM_OnLoad); VMPI_ERR for a depth out of range.
     * GetCallSite: the site of thread `env` (NULL: the calling thread) now;
     * 0 if it runs no frame or call sites are not enabled.  Constant time.
     * GetCallSiteFrames: the site's frames, callee first, at most `depth`
     * of them: what GetCallTrace gave at that moment to that depth (no more
     * than EnableCallSites' depth); returns how many, 0 for site 0 and for
     * an ID no GetCallSite gave. */
    int32_t (*EnableCallSites)(int32_t depth);
    VMPI_CallSiteID (*GetCallSite)(VMPI_ThreadID env);
    int32_t (*GetCallSiteFrames)(VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t depth);
} VMPI_Interface;

/* The deepest call-site contexts EnableCallSites keeps. */
#define VMPI_MAX_CALL_SITE_DEPTH 1024

typedef struct VMPI_VM VMPI_VM;
struct VMPI_VM {
    /* JNI's JavaVM->GetEnv: *penv receives the VMPI_Interface for
     * VMPI_VERSION_1 (JVMPI_VERSION_1, 1_1 and 1_2 alike), the calling
     * thread's ID for a JNI version (0x00010001, 0x00010002, 0x00010004):
     * a VM thread's or an agent system thread's; VMPI_EDETACHED on a thread
     * that is neither. */
    int32_t (*GetEnv)(VMPI_VM *vm, void **penv, int32_t version);
    void *reserved;
};

typedef int32_t (*VMPI_OnLoad_t)(VMPI_VM *vm, char *options, void *reserved);

/* The event's name without the prefix ("OBJECT_ALLOC"), or NULL. */
static inline const char *vmpi_event_name(int32_t event_type) {
    switch (event_type & ~VMPI_REQUESTED_EVENT) {
#define VMPI_EVENT_NAME_CASE(name, code, member) case code: return #name;
        VMPI_EVENTS(VMPI_EVENT_NAME_CASE)
#undef VMPI_EVENT_NAME_CASE
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif
