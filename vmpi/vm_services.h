/*
 * vm_services.h -- everything VMPI needs from the VM it serves, as one table
 * of functions that the VM fills and hands to vmpi_attach_vm (control.h).
 * Internal: agents see only vmpi.h.
 *
 * The dependency runs one way.  The VM includes this header and implements
 * the table (vm/services/vmpi_services.c); nothing in vmpi/ includes a VM
 * header except gc/object.h, the object model it shares with the
 * collectors, and gc/gc.h, the collector.  So vmpi can run against a mock VM
 * (tests/unit/vmpi_mockvm.c), as MMTk is tested against its mock VM.
 *
 * Everything is said in VMPI's terms.  A thread is its VMPI_ThreadID and a
 * method its VMPI_MethodID: the pointers the VM gives post.h's senders (its
 * thread record, its method record), which vmpi passes on as IDs and never
 * dereferences.  A class is its RtClass and its index, 0 .. num_classes.
 * Every function takes the table's `vm` first.
 *
 * What the VM promises:
 *   - Thread functions are given only IDs that thread_at returned (vmpi
 *     checks an agent's ID against those first); class functions only
 *     indexes below num_classes.
 *   - class_index and method_class answer for any pointer at all, garbage
 *     included (IDs come from agents): they look it up, never follow it.
 *   - class_at(i) never moves, so a class ID (RtClass.class_id) never
 *     changes; every string handed out lives as long as the VM.
 */
#ifndef GCLAB_VMPI_VM_SERVICES_H
#define GCLAB_VMPI_VM_SERVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "gc/gc.h"
#include "gc/object.h"
#include "vmpi.h"

/* How many agents VMPI loads at most. */
#define VMPI_MAX_AGENTS 8

/* A thread's heap sampling state (vmpi/runtime/heap_sampling.h), kept in
 * the VM's thread record (vm.h) and zero when the thread is made:
 * unseeded, no gap drawn. */
typedef struct VmpiThreadSampler {
    uint64_t random_state;                      /* splitmix64, seeded on first use */
    bool seeded;
    /* Per agent slot: the agent's sampling_generation when sample_at was
     * drawn (a gap drawn under an older interval is drawn again), and the
     * heap's bytes_allocated count at which its next sample is due. */
    uint64_t drawn_in[VMPI_MAX_AGENTS];
    uint64_t sample_at[VMPI_MAX_AGENTS];
} VmpiThreadSampler;

/* Where a thread's stack stands.  Two equal marks taken at different times
 * mean the thread has not run in between, as far as VMPI can tell
 * (ThreadHasRun). */
typedef struct VmpiStackMark {
    uint32_t depth;         /* frames on the stack */
    const void *top_pc;     /* the running frame's saved instruction; NULL with no frame */
    const void *ref_top;    /* top of the thread's reference stack */
} VmpiStackMark;

/* What CLASS_LOAD says of a class besides its RtClass's name and ID. */
typedef struct VmpiClassOutline {
    const char *source_name;        /* "" when the VM made the class itself */
    uint32_t num_methods;
    uint32_t num_statics;
    uint32_t num_instance_fields;
} VmpiClassOutline;

/* One root of the VM's root set, for heap dumps (JVMPI 1.2 section 4.2).
 * The VM says what holds each root; heap_dump.c gives each kind its JVMPI
 * record type (the table is in docs/event-mapping.md, "Heap dump roots"). */
typedef enum VmpiRootKind {
    VMPI_ROOT_FRAME,    /* a local or operand of a thread's frame */
    VMPI_ROOT_NATIVE,   /* held by the VM's own code on a thread's behalf,
                           outside every frame (main's argument array while
                           the VM builds it) */
    VMPI_ROOT_STATIC,   /* a reference static of a class */
    VMPI_ROOT_INTERNED, /* an interned string constant, in the VM's table */
    VMPI_ROOT_THREAD,   /* a thread's Thread handle, held by the VM for the thread */
    VMPI_ROOT_MONITOR,  /* the object of a monitor in use (owned or waited on) */
    VMPI_ROOT_GLOBAL_REF, /* a native's global reference (vm/native/gclab_native.h) */
    VMPI_ROOT_UNKNOWN,  /* a root the VM cannot say more of */
} VmpiRootKind;

typedef struct VmpiRoot {
    VmpiRootKind kind;
    Obj *object;            /* never NULL: empty slots are not roots */
    VMPI_ThreadID thread;   /* FRAME, NATIVE, THREAD: the thread */
    uint32_t frame;         /* FRAME: the frame's index, callee first (as in
                               GetCallTrace) */
    uint32_t class_index;   /* STATIC: the class that declares it */
    const void *handle;     /* INTERNED: the VM's slot that holds it; GLOBAL_REF: the reference */
} VmpiRoot;

/* A static's or an instance field's value, with its type descriptor. */
typedef struct VmpiValue {
    const char *signature;  /* "J", "D", "Z", "LNode;", "[J", ... */
    bool is_ref;            /* `ref` holds the value, else `prim` */
    Obj *ref;
    uint64_t prim;          /* the 8-byte slot as stored (a bool is 0 or 1) */
} VmpiValue;

typedef void (*VmpiRootVisitor)(const VmpiRoot *root, void *ctx);

/* One of the language's monitors in use, for MONITOR_DUMP (JVMPI 1.2
 * section 4.4, JVMPI_MONITOR_JAVA): its object, owner (NULL if none) and
 * entry count, the threads waiting to enter it (notified waiters among
 * them) and those waiting to be notified.  The lists live for the visit. */
typedef struct VmpiMonitorView {
    const Obj *object;
    VMPI_ThreadID owner;
    uint32_t entries;
    uint32_t num_entering, num_waiting;
    const VMPI_ThreadID *entering, *waiting;
} VmpiMonitorView;
typedef void (*VmpiMonitorVisitor)(const VmpiMonitorView *monitor, void *ctx);
typedef void (*VmpiValueVisitor)(const VmpiValue *value, void *ctx);

/* What vmpi asks of a running thread at its next safepoint, where the
 * thread's state is whole (request_safepoint below). */
typedef enum VmpiSafepointWork {
    VMPI_AT_SAFEPOINT_SUSPEND = 1u << 0,   /* call vmpi_serve_suspension (post.h) */
    VMPI_AT_SAFEPOINT_RUN_GC = 1u << 1,    /* call vmpi_serve_requested_gc (post.h) */
    VMPI_AT_SAFEPOINT_DATA_DUMP = 1u << 2, /* call vmpi_send_requested_data_dumps (post.h) */
    VMPI_AT_SAFEPOINT_REDISPATCH = 1u << 3, /* INSTRUCTION_START was enabled or disabled:
                                               the interpreter picks its dispatch again */
    VMPI_AT_SAFEPOINT_HOLD = 1u << 4,      /* wait until no thread is out in a handler, as
                                              before a collection, then call vmpi_serve_hold */
} VmpiSafepointWork;

typedef struct VmpiVmServices {
    void *vm;   /* the VM's own context, passed to every function below */

    /* ---- threads ------------------------------------------------------------ */
    /* The thread running on this OS thread; NULL on one the VM does not run. */
    VMPI_ThreadID (*current_thread)(void *vm);
    uint32_t (*num_threads)(void *vm);
    VMPI_ThreadID (*thread_at)(void *vm, uint32_t index);
    const char *(*thread_name)(void *vm, VMPI_ThreadID thread);
    /* Threads in the language (vm/threads/scheduler.h): the thread's handle
     * object (NULL if it has none), the thread that started it (NULL for
     * main), and VMPI_THREAD_RUNNABLE, _MONITOR_WAIT or _CONDVAR_WAIT,
     * with VMPI_THREAD_INTERRUPTED OR'd in while the thread's interrupted
     * flag is set.  NULL in a VM without them (a mock). */
    const Obj *(*thread_object)(void *vm, VMPI_ThreadID thread);
    VMPI_ThreadID (*thread_parent)(void *vm, VMPI_ThreadID thread);
    int32_t (*thread_status)(void *vm, VMPI_ThreadID thread);
    /* JVMPI 1.2 CreateSystemThread: called on `creator`, the running VM
     * thread, outside a collection.  Adds a thread of the VM named `name`
     * (copied), started by `creator`, with a thread object allocated on
     * creator's behalf (OBJECT_ALLOC on creator) that the collectors treat
     * as a root, as every thread's.  The thread runs no bytecode: it has no
     * frames and the VM never waits for it at a safepoint or a collection.
     * Returns its ID; NULL if out of memory.  NULL in a VM without threads
     * in the language (a mock): the agent's thread is then no VM thread. */
    VMPI_ThreadID (*add_system_thread)(void *vm, VMPI_ThreadID creator, const char *name);
    /* Visits every monitor in use (NULL in a VM without monitors). */
    void (*each_monitor)(void *vm, VmpiMonitorVisitor visit, void *ctx);
    VmpiStackMark (*stack_mark)(void *vm, VMPI_ThreadID thread);
    /* Fills frames[0 ..) callee first, at most max_frames of them, with each
     * frame's method ID and source line (0 if unknown); returns how many. */
    int32_t (*call_trace)(void *vm, VMPI_ThreadID thread, VMPI_CallFrame *frames, int32_t max_frames);
    /* The thread's Set/GetThreadLocalStorage slot. */
    void **(*local_storage)(void *vm, VMPI_ThreadID thread);
    /* The thread's heap sampling state (heap_sampling.h), zero when the
     * thread was made.  May be NULL (a mock VM): threads then share one. */
    VmpiThreadSampler *(*heap_sampler)(void *vm, VMPI_ThreadID thread);
    /* Asks the running thread to do `work` at its next safepoint;
     * async-safe, callable from any OS thread.  NULL if the VM cannot stop
     * its threads (a mock VM): suspension is then bookkeeping only
     * (vmpi/runtime/threads.c) and RunGC collects on the caller's thread. */
    void (*request_safepoint)(void *vm, VmpiSafepointWork work);
    /* Agents' handlers outside the VM (docs/architecture.md "Threads"),
     * for the program thread calling: leave_for_handler gives its baton
     * away for a handler and says whether it did (never under --seed, with
     * one thread, or with --one-at-a-time), return_from_handler
     * takes it back; borrow_baton and lend_baton_back bracket a call from
     * such a handler that needs the VM still.  NULL in a VM that runs one
     * thread (a mock). */
    bool (*leave_for_handler)(void *vm);
    void (*return_from_handler)(void *vm);
    void (*borrow_baton)(void *vm);
    void (*lend_baton_back)(void *vm);
    /* A handler that holds the baton blocks on a raw monitor: lend it to
     * the handlers that wait to borrow it meanwhile (says whether it did),
     * and take it back once the monitor is entered. */
    bool (*lend_while_blocked)(void *vm);
    void (*take_back_after_block)(void *vm);

    /* ---- classes and methods --------------------------------------------------- */
    uint32_t (*num_classes)(void *vm);
    const RtClass *(*class_at)(void *vm, uint32_t index);
    /* If `class_id` is one of the VM's class IDs, sets *index; else false. */
    bool (*class_index)(void *vm, const void *class_id, uint32_t *index);
    void (*describe_class)(void *vm, uint32_t index, VmpiClassOutline *outline);
    /* Fills the tables describe_class sized, in declared order: method name,
     * signature, first and last source line and ID; field name and
     * signature. */
    void (*list_class_members)(void *vm, uint32_t index, VMPI_Method *methods, VMPI_Field *statics,
                               VMPI_Field *instance_fields);
    /* The class that defines `method`; NULL if it names no method. */
    const RtClass *(*method_class)(void *vm, VMPI_MethodID method);

    /* ---- heap dumps ---------------------------------------------------------------- */
    /* Visits every root slot that holds an object, classified. */
    void (*enumerate_roots)(void *vm, VmpiRootVisitor visit, void *ctx);
    /* A class's statics, in CLASS_LOAD's order. */
    void (*class_static_values)(void *vm, uint32_t index, VmpiValueVisitor visit, void *ctx);
    /* An instance's fields, in CLASS_LOAD's order; none for arrays and strings. */
    void (*instance_field_values)(void *vm, const Obj *obj, VmpiValueVisitor visit, void *ctx);

    /* ---- natives' references (vm/native/gclab_native.h) ---------------------- */
    /* Whether `ref` is a live global or weak global reference (looked up,
     * never followed), and then *object its object (NULL: a weak one the
     * collector cleared); and a live reference to `object`, or NULL when no
     * native holds one.  NULL in a VM without natives (a mock). */
    bool (*reference_object)(void *vm, VMPI_JNIRef ref, const Obj **object);
    VMPI_JNIRef (*reference_to)(void *vm, const Obj *object);

    /* ---- the collector and the way out ------------------------------------------------ */
    /* The collector; NULL until it exists (it posts ARENA_NEW while created). */
    Gc *(*collector)(void *vm);
    /* Its --gc name, known before it exists. */
    const char *(*collector_name)(void *vm);
    /* Shuts the VM down with `status` (flushing its output, shutting agents
     * down) and exits; does not return. */
    void (*exit_vm)(void *vm, int status);
    /* Prints the running thread's bytecode stack trace on stderr, as a
     * runtime error does; nothing on a thread the VM does not run.  Called
     * by the crash report (vmpi/runtime/crash.c) from a signal handler, so it
     * allocates nothing.  May be NULL (a mock VM). */
    void (*print_stack_trace)(void *vm);

    /* ---- call sites (vmpi.h, EnableCallSites) ----------------------------------- */
    /* Starts keeping call sites of up to `depth` frames; false if the VM
     * cannot (a mock VM leaves all three NULL). */
    bool (*enable_call_sites)(void *vm, uint32_t depth);
    /* The thread's site now, 0 if none. */
    VMPI_CallSiteID (*call_site)(void *vm, VMPI_ThreadID thread);
    /* The site's frames, as call_trace fills them; -1 if `site` names none. */
    int32_t (*call_site_frames)(void *vm, VMPI_CallSiteID site, VMPI_CallFrame *frames, int32_t max_frames);
} VmpiVmServices;

#endif
