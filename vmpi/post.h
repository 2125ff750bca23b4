/*
 * post.h -- how the VM and the collectors post VMPI events.  Internal to
 * gclab; agents see only vmpi.h.
 *
 * Each vmpi_post_X() is inline and costs one load and one predictable branch
 * when no agent enabled X (the whippet listener pattern); the two arena
 * events, which are rare, also record the arena (below).  The out-of-line
 * vmpi_send_X() builds the VMPI_Event and hands it to every agent that
 * enabled X.  Collectors call these and nothing else: they never format
 * output or know agents exist (docs/architecture.md).
 */
#ifndef GCLAB_VMPI_POST_H
#define GCLAB_VMPI_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../vm/object.h"
#include "vmpi.h"

/* vmpi_enabled[code] is non-zero while at least one agent enabled the event. */
extern uint8_t vmpi_enabled[VMPI_EVENT_CODE_LIMIT];

#define VMPI_IS_ENABLED(name) __builtin_expect(vmpi_enabled[VMPI_EVENT_##name] != 0, 0)

void vmpi_send_arena_new(VMPI_ArenaID arena_id, const char *arena_name);
void vmpi_send_arena_delete(VMPI_ArenaID arena_id);
void vmpi_send_object_alloc(const uint64_t *bytes_allocated, VMPI_ArenaID arena_id, const Obj *obj, size_t size);
void vmpi_send_object_free(const Obj *obj);
void vmpi_send_object_move(VMPI_ArenaID arena_id, const Obj *obj, VMPI_ArenaID new_arena_id,
                           const Obj *new_obj);
void vmpi_send_gc_start(void);
void vmpi_send_gc_finish(int64_t used_objects, int64_t used_object_space,
                         int64_t total_object_space);

/* VM events (not collector events).  Threads and methods are the VM's own
 * records, declared incomplete: vmpi passes them on as IDs and never reads
 * them (it asks the VM's services, vm_services.h). */
struct VMThread;
struct ProgMethod;
/* class_index as the VM's services number classes (vm_services.h). */
void vmpi_send_class_load(uint32_t class_index, int32_t requested);
/* JNI_GLOBALREF_ALLOC / JNI_WEAK_GLOBALREF_ALLOC (`event_type`) for a
 * native's reference `ref` to `obj`; the FREE events with the reference
 * only (vm/interp/native_env.c). */
void vmpi_send_globalref_alloc(int32_t event_type, const Obj *obj, const void *ref);
void vmpi_send_globalref_free(int32_t event_type, const void *ref);
void vmpi_send_thread_start(const struct VMThread *thread, int32_t requested);
void vmpi_send_thread_end(const struct VMThread *thread);
/* MONITOR_CONTENDED_ENTER, _ENTERED or _EXIT (`event_type`) on `obj`'s
 * monitor, and MONITOR_WAIT (`value`: the timeout in milliseconds, 0 for
 * none) or MONITOR_WAITED (`value`: the milliseconds actually waited), from
 * `thread` (JVMPI 1.2, section 3; vm/interp/monitor.c posts them). */
void vmpi_send_monitor_event(int32_t event_type, const struct VMThread *thread, const Obj *obj);
void vmpi_send_monitor_wait(int32_t event_type, const struct VMThread *thread, const Obj *obj, int64_t value);
/* METHOD_ENTRY or METHOD_EXIT (`event_type`).  No post helper: the
 * interpreter tests VMPI_IS_ENABLED(METHOD_EXIT) or
 * vmpi_method_entry_enabled() itself, because it must save its registers
 * before going out of line (vm/interp/interp.c, METHOD_ENTRY_EVENT). */
void vmpi_send_method_event(int32_t event_type, const struct VMThread *thread,
                            const struct ProgMethod *method);
/* Whichever of METHOD_ENTRY and METHOD_ENTRY2 is enabled, for the method
 * `thread` has just entered.  `receiver` is the slot holding `this` (read
 * only when ENTRY2 is built, after ENTRY's agents ran), NULL for a static
 * method. */
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
/* Thread suspension (vmpi/threads.c).  At a safepoint where the VM asked
 * for it (VmpiVmServices.request_suspension): parks `thread` while another
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
 * returns (vmpi/gc_control.c). */
void vmpi_serve_requested_gc(void);
/* JVM_SHUT_DOWN is not posted: vmpi_shutdown (control.h) offers it to each
 * agent once. */
void vmpi_send_jvm_init_done(void);
/* DATA_DUMP_REQUEST or DATA_RESET_REQUEST (`code`), at a safepoint. */
void vmpi_send_data_request(int32_t code);
/* At a safepoint: DATA_DUMP_REQUEST, with VMPI_REQUESTED_EVENT, to each
 * agent that asked for one with RequestEvent since the last (request.c). */
void vmpi_send_requested_data_dumps(void);
/* Set once start-up is over, whether or not an agent gets JVM_INIT_DONE
 * (threads.c: CreateSystemThread is a strict-mode breach before it). */
extern bool vmpi_jvm_init_done;

static inline void vmpi_post_class_load(uint32_t class_index) {
    if (VMPI_IS_ENABLED(CLASS_LOAD)) vmpi_send_class_load(class_index, 0);
}
static inline void vmpi_post_thread_start(const struct VMThread *thread) {
    if (VMPI_IS_ENABLED(THREAD_START)) vmpi_send_thread_start(thread, 0);
}
static inline void vmpi_post_thread_end(const struct VMThread *thread) {
    if (VMPI_IS_ENABLED(THREAD_END)) vmpi_send_thread_end(thread);
}
static inline void vmpi_post_jvm_init_done(void) {
    vmpi_jvm_init_done = true;
    if (VMPI_IS_ENABLED(JVM_INIT_DONE)) vmpi_send_jvm_init_done();
}
static inline void vmpi_post_data_request(int32_t code) {
    if (vmpi_enabled[code]) vmpi_send_data_request(code);
}

/* Arena events go out of line always: vmpi keeps the table of live arenas
 * that RequestEvent(ARENA_NEW) replays to an agent that enabled the heap
 * events late (vmpi/arenas.c).  They are rare, so this costs nothing. */
void vmpi_record_arena_new(VMPI_ArenaID arena_id, const char *arena_name);
void vmpi_record_arena_delete(VMPI_ArenaID arena_id);

static inline void vmpi_post_arena_new(VMPI_ArenaID arena_id, const char *arena_name) {
    vmpi_record_arena_new(arena_id, arena_name);
    if (VMPI_IS_ENABLED(ARENA_NEW)) vmpi_send_arena_new(arena_id, arena_name);
}
static inline void vmpi_post_arena_delete(VMPI_ArenaID arena_id) {
    vmpi_record_arena_delete(arena_id);
    if (VMPI_IS_ENABLED(ARENA_DELETE)) vmpi_send_arena_delete(arena_id);
}
/* The allocation event stands for OBJECT_ALLOC and heap sampling's
 * SAMPLED_OBJECT_ALLOC both, and costs one subtraction and one branch: it
 * goes out of line when vmpi_alloc_bytes_left, counted down by every
 * allocation's size, falls below 0.  It is VMPI_ALLOC_EVENT_ALWAYS while
 * some agent wants OBJECT_ALLOC, the bytes to the next sample point while
 * agents only sample, VMPI_ALLOC_EVENT_NEVER otherwise
 * (vmpi/heap_sampling.h); neither of the two ends is reached by any run
 * (2^62 bytes).  *bytes_allocated is the heap's count of bytes allocated,
 * this object's included, read only out of line (so that the fast path
 * need not hold it in a register).  `obj` must have its header filled in:
 * the event reads its class. */
#define VMPI_ALLOC_EVENT_ALWAYS (-(INT64_C(1) << 62))
#define VMPI_ALLOC_EVENT_NEVER (INT64_C(1) << 62)
extern int64_t vmpi_alloc_bytes_left;
static inline void vmpi_post_object_alloc(const uint64_t *bytes_allocated, VMPI_ArenaID arena_id,
                                          const Obj *obj, size_t size) {
    if (__builtin_expect((vmpi_alloc_bytes_left -= (int64_t)size) < 0, 0))
        vmpi_send_object_alloc(bytes_allocated, arena_id, obj, size);
}
static inline void vmpi_post_object_free(const Obj *obj) {
    if (VMPI_IS_ENABLED(OBJECT_FREE)) vmpi_send_object_free(obj);
}
static inline void vmpi_post_object_move(VMPI_ArenaID arena_id, const Obj *obj,
                                         VMPI_ArenaID new_arena_id, const Obj *new_obj) {
    if (VMPI_IS_ENABLED(OBJECT_MOVE)) vmpi_send_object_move(arena_id, obj, new_arena_id, new_obj);
}
static inline void vmpi_post_gc_start(void) {
    if (VMPI_IS_ENABLED(GC_START)) vmpi_send_gc_start();
}
static inline void vmpi_post_gc_finish(int64_t used_objects, int64_t used_object_space,
                                       int64_t total_object_space) {
    if (VMPI_IS_ENABLED(GC_FINISH))
        vmpi_send_gc_finish(used_objects, used_object_space, total_object_space);
}

/* ---- gclab's mechanism events (docs/mechanism-events.md) ------------------
 * How a collection works, in the collector's own terms: its phases, and
 * per object the steps its algorithm takes.  Each costs one predictable
 * branch while no agent enables it, like the heap events above. */
void vmpi_send_gc_phase(int32_t code, const char *phase_name);
void vmpi_send_gc_object(int32_t code, const Obj *obj);
void vmpi_send_object_forwarded(const Obj *obj, const Obj *new_obj);
void vmpi_send_refcount_change(const Obj *obj, uint32_t count);
void vmpi_send_object_free_cause(const Obj *obj, const char *cause);

/* A phase begins or ends: `phase_name` is a string constant naming it in
 * the algorithm's terms ("mark", "compute-addresses", "scan"). */
static inline void vmpi_post_gc_phase_start(const char *phase_name) {
    if (VMPI_IS_ENABLED(GC_PHASE_START)) vmpi_send_gc_phase(VMPI_EVENT_GC_PHASE_START, phase_name);
}
static inline void vmpi_post_gc_phase_end(const char *phase_name) {
    if (VMPI_IS_ENABLED(GC_PHASE_END)) vmpi_send_gc_phase(VMPI_EVENT_GC_PHASE_END, phase_name);
}
/* Tri-colour marking: `obj` turned grey (marked, to be scanned) or black
 * (scanned: each of its children is grey or black). */
static inline void vmpi_post_object_greyed(const Obj *obj) {
    if (VMPI_IS_ENABLED(OBJECT_GREYED)) vmpi_send_gc_object(VMPI_EVENT_OBJECT_GREYED, obj);
}
static inline void vmpi_post_object_blackened(const Obj *obj) {
    if (VMPI_IS_ENABLED(OBJECT_BLACKENED)) vmpi_send_gc_object(VMPI_EVENT_OBJECT_BLACKENED, obj);
}
/* `obj`'s forwarding address is `new_obj` (a copy made, or a place planned). */
static inline void vmpi_post_object_forwarded(const Obj *obj, const Obj *new_obj) {
    if (VMPI_IS_ENABLED(OBJECT_FORWARDED)) vmpi_send_object_forwarded(obj, new_obj);
}
/* A generational write barrier put `obj` into the remembered set. */
static inline void vmpi_post_remembered_set_add(const Obj *obj) {
    if (VMPI_IS_ENABLED(REMEMBERED_SET_ADD)) vmpi_send_gc_object(VMPI_EVENT_REMEMBERED_SET_ADD, obj);
}
/* Whether either event a write barrier may post (REMEMBERED_SET_ADD,
 * REFCOUNT_CHANGE) is enabled: their codes are adjacent, so one 16-bit
 * load and one branch test both. */
_Static_assert(VMPI_EVENT_REFCOUNT_CHANGE == VMPI_EVENT_REMEMBERED_SET_ADD + 1, "barrier events are adjacent");
static inline bool vmpi_barrier_events_enabled(void) {
    uint16_t both;
    memcpy(&both, &vmpi_enabled[VMPI_EVENT_REMEMBERED_SET_ADD], sizeof both);
    return __builtin_expect(both != 0, 0);
}
/* `obj`'s reference count has changed to `count`. */
static inline void vmpi_post_refcount_change(const Obj *obj, uint32_t count) {
    if (VMPI_IS_ENABLED(REFCOUNT_CHANGE)) vmpi_send_refcount_change(obj, count);
}

/* Why an object is freed: OBJECT_FREE_CAUSE's cause. */
#define VMPI_FREE_UNMARKED "unmarked"     /* a trace did not reach it */
#define VMPI_FREE_ZERO_COUNT "zero-count" /* its own reference count fell to zero */
#define VMPI_FREE_CASCADE "cascade"       /* a freed object held its last reference */
#define VMPI_FREE_CYCLE "cycle"           /* trial deletion found it on a garbage cycle */

/* OBJECT_FREE_CAUSE then OBJECT_FREE: `obj` is freed, for `cause`. */
static inline void vmpi_post_object_free_because(const Obj *obj, const char *cause) {
    if (VMPI_IS_ENABLED(OBJECT_FREE_CAUSE)) vmpi_send_object_free_cause(obj, cause);
    vmpi_post_object_free(obj);
}

#endif
