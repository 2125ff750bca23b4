/*
 * post.h -- how the VM posts VMPI events.  Internal to gclab; agents see
 * only vmpi.h, and collectors post through their own port (gc/event_port.h),
 * which vmpi listens to (vmpi/runtime/events.c).
 *
 * Each vmpi_post_X() is inline and costs one load and one predictable
 * branch when no agent enabled X (the whippet listener pattern).  The
 * out-of-line vmpi_send_X() builds the VMPI_Event and hands it to every
 * agent that enabled X.
 *
 * The events whose fields the VM hands over as they are (VMPI_POSTED_EVENTS
 * below) have both functions expanded from the event table's field lists
 * (vmpi.h), as the trace agent's writer is: the header declares them here,
 * events.c defines the senders from the same list, so no emitter is written
 * by hand.  The others derive their fields from the VM's records (a class's
 * tables, a thread's names, an allocation's class) and are written below.
 */
#ifndef GCLAB_VMPI_POST_H
#define GCLAB_VMPI_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc/object.h"
#include "vmpi.h"

/* vmpi_enabled[code] is non-zero while at least one agent enabled the event,
 * or the VM's own recording (--record) records it. */
extern uint8_t vmpi_enabled[VMPI_EVENT_CODE_LIMIT];

#define VMPI_IS_ENABLED(name) __builtin_expect(vmpi_enabled[VMPI_EVENT_##name] != 0, 0)

/* Threads and methods are the VM's own records, declared incomplete: vmpi
 * passes them on as IDs and never reads them (it asks the VM's services,
 * vm_services.h). */
struct VMThread;
struct ProgMethod;

/* The events posted with their fields as they are: NAME, its member of
 * VMPI_Event.u, and whether agents get it with collection disabled (it
 * carries object IDs, or the collector posts it: JVMPI 1.2 section 1.5).
 * For each, vmpi_post_NAME(thread, fields...) and vmpi_send_NAME(thread,
 * fields...), the fields in the table's order; `thread` is the thread the
 * event happened in, NULL for the one running now.  MONITOR_WAIT's timeout
 * is the milliseconds asked for (0: none), MONITOR_WAITED's the milliseconds
 * actually waited (JVMPI 1.2 says "timeout"; TPTP's thread profiler needs
 * the time waited). */
#define VMPI_POSTED_EVENTS(X) \
    X(METHOD_ENTRY,                method,              false) \
    X(METHOD_EXIT,                 method,              false) \
    X(OBJECT_FREE,                 obj_free,            true)  \
    X(OBJECT_MOVE,                 obj_move,            true)  \
    X(THREAD_END,                  none,                false) \
    X(JNI_GLOBALREF_ALLOC,         jni_globalref_alloc, true)  \
    X(JNI_GLOBALREF_FREE,          jni_globalref_free,  false) \
    X(JNI_WEAK_GLOBALREF_ALLOC,    jni_globalref_alloc, true)  \
    X(JNI_WEAK_GLOBALREF_FREE,     jni_globalref_free,  false) \
    X(DATA_DUMP_REQUEST,           none,                false) \
    X(DATA_RESET_REQUEST,          none,                false) \
    X(JVM_INIT_DONE,               none,                false) \
    X(ARENA_NEW,                   new_arena,           true)  \
    X(ARENA_DELETE,                delete_arena,        true)  \
    X(MONITOR_CONTENDED_ENTER,     monitor,             true)  \
    X(MONITOR_CONTENDED_ENTERED,   monitor,             true)  \
    X(MONITOR_CONTENDED_EXIT,      monitor,             true)  \
    X(MONITOR_WAIT,                monitor_wait,        true)  \
    X(MONITOR_WAITED,              monitor_wait,        true)  \
    X(GC_START,                    none,                true)  \
    X(GC_FINISH,                   gc_info,             true)  \
    X(GC_PHASE_START,              gc_phase,            true)  \
    X(GC_PHASE_END,                gc_phase,            true)  \
    X(OBJECT_GREYED,               gc_object,           true)  \
    X(OBJECT_BLACKENED,            gc_object,           true)  \
    X(OBJECT_FORWARDED,            obj_forward,         true)  \
    X(REMEMBERED_SET_ADD,          gc_object,           true)  \
    X(REFCOUNT_CHANGE,             refcount_change,     true)  \
    X(OBJECT_FREE_CAUSE,           free_cause,          true)

/* A field as the VM holds it (VMPI_POST_TYPE_<KIND>), and as the event
 * carries it (VMPI_FROM_POST_<KIND>). */
#define VMPI_POST_TYPE_INT32 int32_t
#define VMPI_POST_TYPE_INT64 int64_t
#define VMPI_POST_TYPE_ARENA_ID VMPI_ArenaID
#define VMPI_POST_TYPE_OBJECT_ID const Obj *
#define VMPI_POST_TYPE_METHOD_ID const struct ProgMethod *
#define VMPI_POST_TYPE_JNI_REF const void *
#define VMPI_POST_TYPE_STRING const char *
#define VMPI_FROM_POST_INT32(value) (value)
#define VMPI_FROM_POST_INT64(value) (value)
#define VMPI_FROM_POST_ARENA_ID(value) (value)
#define VMPI_FROM_POST_OBJECT_ID(value) ((VMPI_ObjectID)(uintptr_t)(value))
#define VMPI_FROM_POST_METHOD_ID(value) ((VMPI_MethodID)(uintptr_t)(value))
#define VMPI_FROM_POST_JNI_REF(value) ((VMPI_JNIRef)(uintptr_t)(value))
#define VMPI_FROM_POST_STRING(value) ((char *)(uintptr_t)(value))

#define VMPI_POST_PARAMETER(member, KIND, field) , VMPI_POST_TYPE_##KIND field
#define VMPI_POST_ARGUMENT(member, KIND, field) , field
#define VMPI_DECLARE_POSTED(NAME, member, gc_disabled)                                            \
    void vmpi_send_##NAME(const struct VMThread *thread VMPI_FIELDS_##member(VMPI_POST_PARAMETER)); \
    static inline void vmpi_post_##NAME(const struct VMThread *thread                             \
                                            VMPI_FIELDS_##member(VMPI_POST_PARAMETER)) {            \
        if (VMPI_IS_ENABLED(NAME)) vmpi_send_##NAME(thread VMPI_FIELDS_##member(VMPI_POST_ARGUMENT)); \
    }
VMPI_POSTED_EVENTS(VMPI_DECLARE_POSTED)
#undef VMPI_DECLARE_POSTED

/* ---- events whose fields vmpi derives ---------------------------------------- */

/* CLASS_LOAD; class_index as the VM's services number classes
 * (vm_services.h).  `requested`: for RequestEvent. */
void vmpi_send_class_load(uint32_t class_index, int32_t requested);
/* THREAD_START, its names and handle from the VM's services. */
void vmpi_send_thread_start(const struct VMThread *thread, int32_t requested);
/* Whichever of METHOD_ENTRY and METHOD_ENTRY2 is enabled, for the method
 * `thread` has just entered.  `receiver` is the slot holding `this` (read
 * only when ENTRY2 is built, after ENTRY's agents ran), NULL for a static
 * method.  No post helper: the interpreter tests vmpi_method_entry_enabled()
 * itself, because it must save its registers before going out of line
 * (vm/interp/interp.c, METHOD_ENTRY_EVENT); so for METHOD_EXIT, with
 * vmpi_send_METHOD_EXIT. */
void vmpi_send_method_entry(const struct VMThread *thread, const struct ProgMethod *method,
                            Obj *const *receiver);

/* INSTRUCTION_START for the instruction at `offset` in `method`'s code;
 * `is_true`: a conditional branch jumps.  No post helper: the interpreter
 * runs its instruction hook only while the event is enabled
 * (vm/interp/interp.c, op_instruction_start). */
void vmpi_send_instruction_start(const struct VMThread *thread, const struct ProgMethod *method,
                                 uint32_t offset, int32_t is_true);

/* Whether METHOD_ENTRY or METHOD_ENTRY2 is enabled: their codes are
 * adjacent, so one 16-bit load and one branch test both. */
_Static_assert(VMPI_EVENT_METHOD_ENTRY2 == VMPI_EVENT_METHOD_ENTRY + 1, "entry events are adjacent");
static inline bool vmpi_method_entry_enabled(void) {
    uint16_t both;
    memcpy(&both, &vmpi_enabled[VMPI_EVENT_METHOD_ENTRY], sizeof both);
    return __builtin_expect(both != 0, 0);
}
/* Thread suspension (vmpi/runtime/threads.c).  At a safepoint where the VM asked
 * for it (VmpiVmServices.request_safepoint): parks `thread` while another
 * thread has it suspended.  And at the end of a thread, after THREAD_END:
 * a SuspendThread waiting for it gives up. */
void vmpi_serve_suspension(const struct VMThread *thread);
/* The same for a VM with other threads to run meanwhile: `release` is
 * called just before `thread` parks, with the suspension lock held (it may
 * take the VM's own locks, never call VMPI), and `reacquire` after it is
 * resumed, without the lock; neither if it does not park. */
void vmpi_serve_suspension_handing_off(const struct VMThread *thread, void (*release)(void *ctx),
                                       void (*reacquire)(void *ctx), void *ctx);
void vmpi_thread_ended(const struct VMThread *thread);
/* At a safepoint where the VM asked for it (VM_REQUEST_RUN_GC): the
 * collection an agent's system thread asked for with RunGC, which then
 * returns (vmpi/runtime/gc_control.c). */
void vmpi_serve_requested_gc(void);
/* Whether a second program thread lives (the scheduler says so as it
 * starts and as the last but one ends): until then no handler can leave
 * the VM, and a dispatch tests one flag for it (dispatch.c). */
void vmpi_threads_overlap(bool others_live);
/* At a safepoint where the VM asked for it (VMPI_AT_SAFEPOINT_HOLD), with no
 * thread out in a handler: parks this thread while an agent's system
 * thread answers a request that reads the heap (program_hold.c). */
void vmpi_serve_hold(void);
/* At a safepoint: DATA_DUMP_REQUEST, with VMPI_REQUESTED_EVENT, to each
 * agent that asked for one with RequestEvent since the last (request.c). */
void vmpi_send_requested_data_dumps(void);
/* `obj` is live: the VM hands its ID to a native (GclabFunctions.object_id,
 * an instrumentation recorder's), which may ask RequestEvent(OBJECT_ALLOC)
 * about it next.  Until the heap changes, that question is answered from
 * the collector (gc_arena_of), not by a heap walk (object_index.c). */
void vmpi_note_live_object(const Obj *obj);
/* Set once start-up is over, whether or not an agent gets JVM_INIT_DONE
 * (threads.c: CreateSystemThread is a strict-mode breach before it). */
extern bool vmpi_jvm_init_done;

static inline void vmpi_post_class_load(uint32_t class_index) {
    if (VMPI_IS_ENABLED(CLASS_LOAD)) vmpi_send_class_load(class_index, 0);
}
static inline void vmpi_post_thread_start(const struct VMThread *thread) {
    if (VMPI_IS_ENABLED(THREAD_START)) vmpi_send_thread_start(thread, 0);
}
/* JVM_INIT_DONE, once start-up is over.  JVM_SHUT_DOWN is not posted:
 * vmpi_shutdown (control.h) offers it to each agent once. */
static inline void vmpi_post_jvm_init_done(void) {
    vmpi_jvm_init_done = true;
    vmpi_post_JVM_INIT_DONE(NULL);
}

#endif
