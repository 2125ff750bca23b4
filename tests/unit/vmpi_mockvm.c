/*
 * vmpi_mockvm.c -- VMPI against a mock VM: nothing from vm/ but the object
 * model, only the table of services of vmpi/vm_services.h, as MMTk is
 * tested against its mock VM.  Everything is checked through the public
 * VMPI_Interface an in-process listener gets (vmpi/control.h).
 *
 * The mock VM:
 *   classes   Point (static origin: Point, static count: int = 7; fields
 *             next: Point, x: int; methods move(J)V lines 3-7, main()V
 *             lines 10-14) and String, made by the VM, with no members
 *   threads   "main": main (line 12) calling move (line 5), and
 *             "worker": main (line 11); "main" is the current thread
 *   heap      a real marksweep collector over three root slots:
 *             A, a Point (A.next = B, A.x = 11), held by main's frame 1
 *             and by the mock's own code for "worker" (outside its frames);
 *             B, a Point (B.x = 22), held by the static Point.origin and
 *             by a root the mock does not classify;
 *             C, the interned string "hello"
 *   exit      exits with 100 + the status, so a test can tell its exit
 *             from VMPI's own
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc/gc.h"
#include "vmpi/control.h"
#include "vmpi/post.h"
#include "vmpi/vm_services.h"
#include "vmpi/vmpi.h"

/* ---- classes and methods ------------------------------------------------------------ */

static RtClass point_class = {.name = "Point", .kind = CLASS_INSTANCE, .num_ref_fields = 1,
                              .num_prim_fields = 1, .program_index = 0};
static RtClass string_class = {.name = "String", .kind = CLASS_STRING, .program_index = UINT32_MAX};
static RtClass *const classes[] = {&point_class, &string_class};
#define NUM_CLASSES 2u

typedef struct MockMethod {
    const char *name, *signature;
    int32_t first_line, last_line;
} MockMethod;
static const MockMethod point_methods[] = {{"move", "(J)V", 3, 7}, {"main", "()V", 10, 14}};
#define MOVE (&point_methods[0])
#define MAIN (&point_methods[1])

static const VMPI_Field point_statics[] = {{"origin", "LPoint;"}, {"count", "J"}};
static const VMPI_Field point_fields[] = {{"next", "LPoint;"}, {"x", "J"}};

/* ---- threads ---------------------------------------------------------------------------- */

typedef struct MockFrame {
    const MockMethod *method;
    int32_t line;
} MockFrame;

typedef struct MockThread {
    const char *name;
    MockFrame frames[4]; /* bottom first */
    uint32_t depth;
    void *local_storage;
} MockThread;

static MockThread threads[2];
#define MAIN_THREAD ((VMPI_ThreadID)&threads[0])
#define WORKER_THREAD ((VMPI_ThreadID)&threads[1])

/* ---- the heap: a real collector over the mock's roots -------------------------------------- */

enum { ROOT_A, ROOT_B, ROOT_C, NUM_ROOTS };
static Obj *roots[NUM_ROOTS];
static Gc *gc;

static void gc_roots(void *vm, GcSlotVisitor visit, void *ctx) {
    (void)vm;
    for (int i = 0; i < NUM_ROOTS; i++)
        if (roots[i]) visit(&roots[i], ctx);
}

/* ---- the services -------------------------------------------------------------------------- */

static MockThread *mock_thread(VMPI_ThreadID thread) { return (MockThread *)thread; }

static VMPI_ThreadID current_thread(void *vm) {
    (void)vm;
    return MAIN_THREAD;
}
static uint32_t num_threads(void *vm) {
    (void)vm;
    return 2;
}
static VMPI_ThreadID thread_at(void *vm, uint32_t index) {
    (void)vm;
    return (VMPI_ThreadID)&threads[index];
}
static const char *thread_name(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return mock_thread(thread)->name;
}
static VmpiStackMark stack_mark(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    MockThread *t = mock_thread(thread);
    return (VmpiStackMark){.depth = t->depth, .top_pc = t->depth ? &t->frames[t->depth - 1] : NULL};
}
static int32_t call_trace(void *vm, VMPI_ThreadID thread, VMPI_CallFrame *frames, int32_t max_frames) {
    (void)vm;
    MockThread *t = mock_thread(thread);
    int32_t n = 0;
    for (; n < max_frames && (uint32_t)n < t->depth; n++) {
        const MockFrame *frame = &t->frames[t->depth - 1 - (uint32_t)n];
        frames[n] = (VMPI_CallFrame){.lineno = frame->line, .method_id = (VMPI_MethodID)frame->method};
    }
    return n;
}
static void **local_storage(void *vm, VMPI_ThreadID thread) {
    (void)vm;
    return &mock_thread(thread)->local_storage;
}

static uint32_t num_classes(void *vm) {
    (void)vm;
    return NUM_CLASSES;
}
static const RtClass *class_at(void *vm, uint32_t index) {
    (void)vm;
    return index < NUM_CLASSES ? classes[index] : NULL;
}
static bool class_index(void *vm, const void *class_id, uint32_t *index) {
    (void)vm;
    for (uint32_t i = 0; i < NUM_CLASSES; i++) {
        if ((uintptr_t)class_id != classes[i]->class_id) continue;
        *index = i;
        return true;
    }
    return false;
}
static void describe_class(void *vm, uint32_t index, VmpiClassOutline *outline) {
    (void)vm;
    *outline = index == 0 ? (VmpiClassOutline){"point.gcl", 2, 2, 2} : (VmpiClassOutline){"", 0, 0, 0};
}
static void list_class_members(void *vm, uint32_t index, VMPI_Method *methods, VMPI_Field *statics,
                               VMPI_Field *instance_fields) {
    (void)vm;
    if (index != 0) return;
    for (int i = 0; i < 2; i++) {
        const MockMethod *m = &point_methods[i];
        methods[i] = (VMPI_Method){(char *)m->name, (char *)m->signature, m->first_line, m->last_line,
                                   (VMPI_MethodID)m};
        statics[i] = point_statics[i];
        instance_fields[i] = point_fields[i];
    }
}
/* Looked up by address, never followed: `method` may be garbage. */
static const RtClass *method_class(void *vm, VMPI_MethodID method) {
    (void)vm;
    for (int i = 0; i < 2; i++)
        if ((const void *)method == (const void *)&point_methods[i]) return &point_class;
    return NULL;
}

static void enumerate_roots(void *vm, VmpiRootVisitor visit, void *ctx) {
    (void)vm;
    visit(&(VmpiRoot){.kind = VMPI_ROOT_FRAME, .object = roots[ROOT_A], .thread = MAIN_THREAD, .frame = 1}, ctx);
    visit(&(VmpiRoot){.kind = VMPI_ROOT_STATIC, .object = roots[ROOT_B], .class_index = 0}, ctx);
    visit(&(VmpiRoot){.kind = VMPI_ROOT_INTERNED, .object = roots[ROOT_C], .handle = &roots[ROOT_C]}, ctx);
    visit(&(VmpiRoot){.kind = VMPI_ROOT_NATIVE, .object = roots[ROOT_A], .thread = WORKER_THREAD}, ctx);
    visit(&(VmpiRoot){.kind = VMPI_ROOT_UNKNOWN, .object = roots[ROOT_B]}, ctx);
}
static void class_static_values(void *vm, uint32_t index, VmpiValueVisitor visit, void *ctx) {
    (void)vm;
    if (index != 0) return;
    visit(&(VmpiValue){.signature = "LPoint;", .is_ref = true, .ref = roots[ROOT_B]}, ctx);
    visit(&(VmpiValue){.signature = "J", .prim = 7}, ctx);
}
static void instance_field_values(void *vm, const Obj *obj, VmpiValueVisitor visit, void *ctx) {
    (void)vm;
    if (obj->cls != &point_class) return;
    visit(&(VmpiValue){.signature = "LPoint;", .is_ref = true, .ref = *obj_ref_field((Obj *)obj, 0)}, ctx);
    visit(&(VmpiValue){.signature = "J", .prim = *obj_prim_field((Obj *)obj, 0)}, ctx);
}

static Gc *collector(void *vm) {
    (void)vm;
    return gc;
}
static const char *collector_name(void *vm) {
    (void)vm;
    return gc->ops->constraints->name;
}
static void exit_vm(void *vm, int status) {
    (void)vm;
    exit(100 + status);
}

static const VmpiVmServices mock_vm = {
    .vm = NULL,
    .current_thread = current_thread,
    .num_threads = num_threads,
    .thread_at = thread_at,
    .thread_name = thread_name,
    .stack_mark = stack_mark,
    .call_trace = call_trace,
    .local_storage = local_storage,
    .num_classes = num_classes,
    .class_at = class_at,
    .class_index = class_index,
    .describe_class = describe_class,
    .list_class_members = list_class_members,
    .method_class = method_class,
    .enumerate_roots = enumerate_roots,
    .class_static_values = class_static_values,
    .instance_field_values = instance_field_values,
    .collector = collector,
    .collector_name = collector_name,
    .exit_vm = exit_vm,
};

static Obj *new_point(Obj *next, uint64_t x) {
    Obj *point = gc_alloc(gc, &point_class, 0);
    cr_assert_not_null(point);
    *obj_ref_field(point, 0) = next;
    *obj_prim_field(point, 0) = x;
    return point;
}

static void attach_mock_vm(void) {
    point_class.class_id = (uint64_t)(uintptr_t)&point_class;
    string_class.class_id = (uint64_t)(uintptr_t)&string_class;
    threads[0] = (MockThread){.name = "main", .frames = {{MAIN, 12}, {MOVE, 5}}, .depth = 2};
    threads[1] = (MockThread){.name = "worker", .frames = {{MAIN, 11}}, .depth = 1};
    vmpi_attach_vm(&mock_vm);
    GcConfig config = {.heap_bytes = 64 * 1024, .roots = {.enumerate = gc_roots, .vm = NULL}};
    gc = gc_ops_by_name("marksweep")->create(&config);
    cr_assert_not_null(gc);
    roots[ROOT_B] = new_point(NULL, 22);
    roots[ROOT_A] = new_point(roots[ROOT_B], 11);
    roots[ROOT_C] = gc_alloc(gc, &string_class, 5);
    cr_assert_not_null(roots[ROOT_C]);
    memcpy(obj_body(roots[ROOT_C]), "hello", 5);
}

static void detach_mock_vm(void) {
    gc->ops->destroy(gc);
    vmpi_attach_vm(NULL);
}

TestSuite(mockvm, .init = attach_mock_vm, .fini = detach_mock_vm);

/* ---- what a listener received ---------------------------------------------------------------- */

static VMPI_Event received;
static int num_received;

static void keep(VMPI_Event *e) {
    received = *e;
    num_received++;
}

/* ---- threads ------------------------------------------------------------------------------- */

Test(mockvm, call_trace_of_a_mock_thread) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    VMPI_CallFrame frames[4];
    VMPI_CallTrace trace = {.env_id = MAIN_THREAD, .frames = frames};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 2);
    cr_assert_eq(frames[0].method_id, (VMPI_MethodID)MOVE, "the running frame first");
    cr_assert_eq(frames[0].lineno, 5);
    cr_assert_eq(frames[1].method_id, (VMPI_MethodID)MAIN);
    cr_assert_eq(frames[1].lineno, 12);

    a->GetCallTrace(&trace, 1);
    cr_assert_eq(trace.num_frames, 1, "at most `depth` frames");

    trace = (VMPI_CallTrace){.env_id = NULL, .frames = frames};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.env_id, MAIN_THREAD, "NULL is the current thread");
    cr_assert_eq(trace.num_frames, 2);

    trace = (VMPI_CallTrace){.env_id = WORKER_THREAD, .frames = frames};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 1);
    cr_assert_eq(frames[0].lineno, 11);

    trace = (VMPI_CallTrace){.env_id = (VMPI_ThreadID)0x10, .frames = frames};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 0, "not a thread of the VM");
}

Test(mockvm, thread_local_storage_round_trip) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    int cell;
    a->SetThreadLocalStorage(WORKER_THREAD, &cell);
    cr_assert_eq(a->GetThreadLocalStorage(WORKER_THREAD), &cell);
    cr_assert_eq(threads[1].local_storage, &cell, "kept in the VM's slot");
    cr_assert_null(a->GetThreadLocalStorage(MAIN_THREAD), "each thread has its own");
    a->SetThreadLocalStorage((VMPI_ThreadID)0x10, &cell); /* not a thread: ignored */
    cr_assert_null(a->GetThreadLocalStorage((VMPI_ThreadID)0x10));
}

Test(mockvm, thread_has_run_follows_the_stack_mark) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    a->SuspendThread(WORKER_THREAD);
    cr_assert_eq(a->GetThreadStatus(WORKER_THREAD), VMPI_THREAD_RUNNABLE | VMPI_THREAD_SUSPENDED);
    cr_assert_not(a->ThreadHasRun(WORKER_THREAD));
    threads[1].frames[threads[1].depth++] = (MockFrame){MOVE, 4}; /* it called move */
    cr_assert(a->ThreadHasRun(WORKER_THREAD));
    cr_assert_eq(a->GetThreadStatus(MAIN_THREAD), VMPI_THREAD_RUNNABLE, "only the worker was suspended");
}

/* ---- methods and classes ------------------------------------------------------------------------ */

Test(mockvm, method_class_of_valid_and_garbage_ids) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    cr_assert_eq(a->GetMethodClass((VMPI_MethodID)MOVE), (VMPI_ObjectID)&point_class);
    cr_assert_eq(a->GetMethodClass((VMPI_MethodID)MAIN), (VMPI_ObjectID)&point_class);
    /* Unmapped, and inside a method record: following either would crash or lie. */
    cr_assert_null(a->GetMethodClass((VMPI_MethodID)0x10));
    cr_assert_null(a->GetMethodClass((VMPI_MethodID)((const char *)MOVE + 1)));
    cr_assert_null(a->GetMethodClass(NULL));
}

/* The tables of a CLASS_LOAD live only during NotifyEvent: checked there. */
static void check_point_class_load(VMPI_Event *e) {
    keep(e);
    cr_assert_eq(e->event_type, VMPI_EVENT_CLASS_LOAD | VMPI_REQUESTED_EVENT);
    cr_assert_eq(e->env_id, MAIN_THREAD);
    cr_assert_str_eq(e->u.class_load.class_name, "Point");
    cr_assert_str_eq(e->u.class_load.source_name, "point.gcl");
    cr_assert_eq(e->u.class_load.class_id, (VMPI_ObjectID)&point_class);
    cr_assert_eq(e->u.class_load.num_interfaces, 0);
    cr_assert_eq(e->u.class_load.num_methods, 2);
    const VMPI_Method *m = e->u.class_load.methods;
    cr_assert_str_eq(m[0].method_name, "move");
    cr_assert_str_eq(m[0].method_signature, "(J)V");
    cr_assert_eq(m[0].start_lineno, 3);
    cr_assert_eq(m[0].end_lineno, 7);
    cr_assert_eq(m[0].method_id, (VMPI_MethodID)MOVE);
    cr_assert_str_eq(m[1].method_name, "main");
    cr_assert_eq(m[1].start_lineno, 10);
    cr_assert_eq(m[1].end_lineno, 14);
    cr_assert_eq(m[1].method_id, (VMPI_MethodID)MAIN);
    cr_assert_eq(e->u.class_load.num_static_fields, 2);
    cr_assert_str_eq(e->u.class_load.statics[0].field_name, "origin");
    cr_assert_str_eq(e->u.class_load.statics[0].field_signature, "LPoint;");
    cr_assert_str_eq(e->u.class_load.statics[1].field_name, "count");
    cr_assert_str_eq(e->u.class_load.statics[1].field_signature, "J");
    cr_assert_eq(e->u.class_load.num_instance_fields, 2);
    cr_assert_str_eq(e->u.class_load.instances[0].field_name, "next");
    cr_assert_str_eq(e->u.class_load.instances[1].field_name, "x");
    cr_assert_str_eq(e->u.class_load.instances[1].field_signature, "J");
}

static void check_string_class_load(VMPI_Event *e) {
    keep(e);
    cr_assert_str_eq(e->u.class_load.class_name, "String");
    cr_assert_str_eq(e->u.class_load.source_name, "", "made by the VM: no source");
    cr_assert_eq(e->u.class_load.num_methods, 0);
    cr_assert_eq(e->u.class_load.num_static_fields, 0);
    cr_assert_eq(e->u.class_load.num_instance_fields, 0);
}

Test(mockvm, requested_class_load_describes_the_class) {
    VMPI_Interface *a = vmpi_register_listener(check_point_class_load);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CLASS_LOAD, &point_class), VMPI_OK);
    cr_assert_eq(num_received, 1);
    VMPI_Interface *b = vmpi_register_listener(check_string_class_load);
    cr_assert_eq(b->RequestEvent(VMPI_EVENT_CLASS_LOAD, &string_class), VMPI_OK);
    cr_assert_eq(num_received, 2);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CLASS_LOAD, (void *)0x10), VMPI_ERR, "not a class ID");
    cr_assert_eq(num_received, 2);
}

Test(mockvm, requested_thread_start_names_the_thread) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, WORKER_THREAD), VMPI_OK);
    cr_assert_eq(num_received, 1);
    cr_assert_eq(received.event_type, VMPI_EVENT_THREAD_START | VMPI_REQUESTED_EVENT);
    cr_assert_eq(received.env_id, MAIN_THREAD, "sent in the requesting thread");
    cr_assert_str_eq(received.u.thread_start.thread_name, "worker");
    cr_assert_str_eq(received.u.thread_start.group_name, "main");
    cr_assert_null(received.u.thread_start.parent_name);
    cr_assert_null(received.u.thread_start.thread_id);
    cr_assert_eq(received.u.thread_start.thread_env_id, WORKER_THREAD);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, (void *)0x10), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, NULL), VMPI_ERR);
    cr_assert_eq(num_received, 1);
}

static void refuse_all(VMPI_Event *e) {
    (void)e;
    cr_assert_fail("the agent did not ask");
}

/* What the VM was asked to do at its next safepoint (request_safepoint). */
static VmpiSafepointWork safepoint_work_asked;
static void record_safepoint_work(void *vm, VmpiSafepointWork work) {
    (void)vm;
    safepoint_work_asked |= work;
}

/* An agent's thread may ask for DATA_DUMP_REQUEST: it comes at the next
 * safepoint (the VM's calls vmpi_send_requested_data_dumps), once however
 * many requests came, to the requester alone. */
Test(mockvm, requested_data_dump_comes_at_the_next_safepoint_to_the_requester_alone) {
    VmpiVmServices stopping_vm = mock_vm;
    stopping_vm.request_safepoint = record_safepoint_work;
    vmpi_attach_vm(&stopping_vm);
    VMPI_Interface *a = vmpi_register_listener(keep);
    VMPI_Interface *b = vmpi_register_listener(refuse_all);
    cr_assert_eq(b->EnableEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL), VMPI_OK);
    safepoint_work_asked = 0;
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, NULL), VMPI_OK);
    cr_assert_eq(num_received, 0, "not at once");
    cr_assert_eq(safepoint_work_asked, VMPI_AT_SAFEPOINT_DATA_DUMP, "the VM is asked for a safepoint");
    vmpi_send_requested_data_dumps();
    cr_assert_eq(num_received, 1, "two requests, one event");
    cr_assert_eq(received.event_type, VMPI_EVENT_DATA_DUMP_REQUEST | VMPI_REQUESTED_EVENT);
    vmpi_send_requested_data_dumps();
    cr_assert_eq(num_received, 1, "answered once");
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_DATA_DUMP_REQUEST, (void *)0x10), VMPI_ERR, "it takes no argument");
    vmpi_attach_vm(&mock_vm);
}

/* ---- late attach: arenas replayed, objects found without a walk each ------------------------------- */

#define MAX_KEPT 16
static VMPI_Event kept[MAX_KEPT];
static char kept_names[MAX_KEPT][32];

static void keep_all(VMPI_Event *e) {
    cr_assert_lt(num_received, MAX_KEPT);
    if ((e->event_type & ~VMPI_REQUESTED_EVENT) == VMPI_EVENT_ARENA_NEW)
        snprintf(kept_names[num_received], sizeof kept_names[0], "%s", e->u.new_arena.arena_name);
    kept[num_received++] = *e;
}

Test(mockvm, requested_arena_new_replays_the_live_arenas_in_creation_order) {
    /* The collector's arena 1 "heap" was created before any agent; then an
     * arena comes and goes, one is renewed, and one stays empty. */
    gc_post_arena_new(7, "scratch");
    gc_post_arena_new(5, "empty");
    gc_post_arena_delete(7);
    gc_post_arena_delete(1);
    gc_post_arena_new(1, "heap");
    VMPI_Interface *a = vmpi_register_listener(keep_all);
    VMPI_Interface *b = vmpi_register_listener(keep_all);
    cr_assert_eq(b->EnableEvent(VMPI_EVENT_ARENA_NEW, NULL), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_ARENA_NEW, NULL), VMPI_OK);
    cr_assert_eq(num_received, 2, "to the requester alone, once per live arena");
    cr_assert_eq(kept[0].event_type, VMPI_EVENT_ARENA_NEW | VMPI_REQUESTED_EVENT);
    cr_assert_eq(kept[0].u.new_arena.arena_id, 5);
    cr_assert_str_eq(kept_names[0], "empty");
    cr_assert_eq(kept[1].u.new_arena.arena_id, 1, "renewed last, so replayed last");
    cr_assert_str_eq(kept_names[1], "heap");
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_ARENA_NEW, (void *)0x10), VMPI_ERR, "arg must be NULL");
    cr_assert_eq(num_received, 2);
}

Test(mockvm, requested_object_alloc_follows_the_heap_as_it_changes) {
    VMPI_Interface *a = vmpi_register_listener(keep_all);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, roots[ROOT_A]), VMPI_OK);
    Obj *garbage = new_point(NULL, 33); /* in no root slot: a new object after the index was built */
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, garbage), VMPI_OK, "the index sees new objects");
    cr_assert_eq(kept[1].u.obj_alloc.obj_id, (VMPI_ObjectID)garbage);
    cr_assert_eq(kept[1].u.obj_alloc.arena_id, 1);
    cr_assert_eq(kept[1].u.obj_alloc.class_id, (VMPI_ObjectID)&point_class);
    cr_assert_eq(kept[1].u.obj_alloc.size, (int32_t)obj_size(garbage));
    a->RunGC();
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, garbage), VMPI_ERR, "nor freed ones");
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_DUMP, garbage), VMPI_ERR);
    /* Several questions about one heap: the index answers them. */
    for (int i = 0; i < NUM_ROOTS; i++)
        cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, roots[i]), VMPI_OK, "root %d lives on", i);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, (char *)roots[ROOT_A] + 8), VMPI_ERR,
                 "inside an object is not an object ID");
    /* The heap changes under a built index: the index is not trusted. */
    Obj *newer = new_point(NULL, 44);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, newer), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, roots[ROOT_B]), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, newer), VMPI_OK, "and after the index is rebuilt");
    cr_assert_eq(kept[2 + NUM_ROOTS + 2].u.obj_alloc.obj_id, (VMPI_ObjectID)newer);
    cr_assert_eq(num_received, 2 + NUM_ROOTS + 3);
}

/* ---- heap dumps --------------------------------------------------------------------------------- */

/* A copy of the dump and its traces, taken in NotifyEvent. */
static uint8_t dump[4096];
static size_t dump_len;
static int32_t num_traces;
static VMPI_ThreadID trace_threads[2];
static VMPI_CallFrame trace_frames[2][4];
static int32_t trace_depths[2];

static void keep_heap_dump(VMPI_Event *e) {
    keep(e);
    dump_len = (size_t)(e->u.heap_dump.end - e->u.heap_dump.begin);
    cr_assert_leq(dump_len, sizeof dump);
    memcpy(dump, e->u.heap_dump.begin, dump_len);
    num_traces = e->u.heap_dump.num_traces;
    cr_assert_leq(num_traces, 2);
    for (int32_t t = 0; t < num_traces; t++) {
        const VMPI_CallTrace *trace = &e->u.heap_dump.traces[t];
        trace_threads[t] = trace->env_id;
        trace_depths[t] = trace->num_frames;
        cr_assert_leq(trace->num_frames, 4);
        memcpy(trace_frames[t], trace->frames, (size_t)trace->num_frames * sizeof *trace->frames);
    }
}

/* Reads the dump in order; every read is checked against its end. */
typedef struct Reader {
    size_t at;
} Reader;

static void take(Reader *r, void *out, size_t n) {
    cr_assert_leq(r->at + n, dump_len, "the dump ends early at byte %zu", r->at);
    memcpy(out, dump + r->at, n);
    r->at += n;
}
static uint8_t take_u1(Reader *r) {
    uint8_t v;
    take(r, &v, 1);
    return v;
}
static uint16_t take_u2(Reader *r) {
    uint16_t v;
    take(r, &v, 2);
    return v;
}
static uint32_t take_u4(Reader *r) {
    uint32_t v;
    take(r, &v, 4);
    return v;
}
static uint64_t take_u8(Reader *r) {
    uint64_t v;
    take(r, &v, 8);
    return v;
}
static const void *take_id(Reader *r) {
    const void *v;
    take(r, &v, sizeof v);
    return v;
}

static void expect_class_dump(Reader *r, const RtClass *cls) {
    cr_assert_eq(take_u1(r), VMPI_GC_CLASS_DUMP);
    cr_assert_eq(take_id(r), cls);
    for (int i = 0; i < 6; i++) cr_assert_null(take_id(r), "no super, loader, signers, domain");
    cr_assert_eq(take_u4(r), (uint32_t)obj_size_for(cls, 0));
    cr_assert_eq(take_u2(r), 0, "no constant pool");
}

/* An INSTANCE_DUMP of a Point: next, then x unless the level has no
 * primitive values. */
static void expect_point(Reader *r, const Obj *next, uint64_t x, bool with_primitives) {
    cr_assert_eq(take_id(r), &point_class);
    cr_assert_eq(take_u4(r), sizeof(void *) + (with_primitives ? 8 : 0));
    cr_assert_eq(take_id(r), next);
    if (with_primitives) cr_assert_eq(take_u8(r), x);
}

/* The instance records, in the collector's walk order: A, B and C once each. */
static void expect_instances(Reader *r, bool with_primitives) {
    bool seen[NUM_ROOTS] = {false};
    for (int n = 0; n < NUM_ROOTS; n++) {
        cr_assert_eq(take_u1(r), VMPI_GC_INSTANCE_DUMP);
        const void *obj = take_id(r);
        if (obj == roots[ROOT_A]) {
            expect_point(r, roots[ROOT_B], 11, with_primitives);
            seen[ROOT_A] = true;
        } else if (obj == roots[ROOT_B]) {
            expect_point(r, NULL, 22, with_primitives);
            seen[ROOT_B] = true;
        } else {
            cr_assert_eq(obj, roots[ROOT_C], "an object the mock never made");
            cr_assert_eq(take_id(r), &string_class);
            /* no fields: its values are its bytes, at level 2 only */
            cr_assert_eq(take_u4(r), with_primitives ? 5 : 0, "a string's values are its bytes at level 2");
            char bytes[5];
            if (with_primitives) {
                take(r, bytes, sizeof bytes);
                cr_assert(memcmp(bytes, "hello", sizeof bytes) == 0, "a string's values are its bytes");
            }
            seen[ROOT_C] = true;
        }
    }
    cr_assert(seen[ROOT_A] && seen[ROOT_B] && seen[ROOT_C]);
    cr_assert_eq(r->at, dump_len, "nothing after the objects");
}

/* The roots, each kind with its JVMPI record: A in main's frame 1; C, an
 * interned string, as a JNI global whose handle is its slot; A held
 * natively for worker; B unclassified (B, a static, is in Point's
 * CLASS_DUMP as well); then each class as a sticky class. */
static void expect_roots(Reader *r) {
    cr_assert_eq(take_u1(r), VMPI_GC_ROOT_JAVA_FRAME);
    cr_assert_eq(take_id(r), roots[ROOT_A]);
    cr_assert_eq(take_id(r), MAIN_THREAD);
    cr_assert_eq(take_u4(r), 1);
    cr_assert_eq(take_u1(r), VMPI_GC_ROOT_JNI_GLOBAL);
    cr_assert_eq(take_id(r), roots[ROOT_C]);
    cr_assert_eq(take_id(r), &roots[ROOT_C], "the handle is the slot");
    cr_assert_eq(take_u1(r), VMPI_GC_ROOT_NATIVE_STACK);
    cr_assert_eq(take_id(r), roots[ROOT_A]);
    cr_assert_eq(take_id(r), WORKER_THREAD);
    cr_assert_eq(take_u1(r), VMPI_GC_ROOT_UNKNOWN);
    cr_assert_eq(take_id(r), roots[ROOT_B]);
    for (uint32_t i = 0; i < NUM_CLASSES; i++) {
        cr_assert_eq(take_u1(r), VMPI_GC_ROOT_STICKY_CLASS);
        cr_assert_eq(take_id(r), classes[i]);
    }
}

Test(mockvm, level2_heap_dump_has_the_roots_and_every_record) {
    VMPI_Interface *a = vmpi_register_listener(keep_heap_dump);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, NULL), VMPI_OK, "NULL is level 2");
    cr_assert_eq(num_received, 1);
    cr_assert_eq(received.u.heap_dump.dump_level, VMPI_DUMP_LEVEL_2);

    Reader r = {0};
    expect_roots(&r);
    expect_class_dump(&r, &point_class);
    cr_assert_eq(take_id(&r), roots[ROOT_B], "static origin");
    cr_assert_eq(take_u8(&r), 7, "static count");
    expect_class_dump(&r, &string_class);
    expect_instances(&r, true);

    cr_assert_eq(num_traces, 2, "one trace per thread");
    cr_assert_eq(trace_threads[0], MAIN_THREAD);
    cr_assert_eq(trace_depths[0], 2);
    cr_assert_eq(trace_frames[0][0].method_id, (VMPI_MethodID)MOVE);
    cr_assert_eq(trace_frames[0][1].lineno, 12, "frame 1, where A's root is, is main at line 12");
    cr_assert_eq(trace_threads[1], WORKER_THREAD);
    cr_assert_eq(trace_depths[1], 1);
    cr_assert_eq(trace_frames[1][0].lineno, 11);
}

Test(mockvm, level1_heap_dump_leaves_out_primitive_values) {
    VMPI_Interface *a = vmpi_register_listener(keep_heap_dump);
    VMPI_HeapDumpArg level1 = {.heap_dump_level = VMPI_DUMP_LEVEL_1};
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level1), VMPI_OK);
    Reader r = {0};
    expect_roots(&r);
    expect_class_dump(&r, &point_class);
    cr_assert_eq(take_id(&r), roots[ROOT_B], "static origin; no count");
    expect_class_dump(&r, &string_class);
    expect_instances(&r, false);
}

/* ---- the collector and the way out --------------------------------------------------------------- */

Test(mockvm, run_gc_collects_through_the_mock_collector) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    cr_assert_str_eq(a->GetCollectorName(), "marksweep");
    Obj *garbage = new_point(NULL, 33); /* in no root slot */
    a->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    a->RunGC();
    cr_assert_eq(num_received, 1, "one object was unreachable");
    cr_assert_eq(received.u.obj_free.obj_id, (VMPI_ObjectID)garbage);
}

static VMPI_Interface *exiting;

static void exit_from_handler(VMPI_Event *e) {
    (void)e;
    exiting->ProfilerExit(5);
}

Test(mockvm, profiler_exit_goes_through_the_mock_exit, .exit_code = 105) {
    exiting = vmpi_register_listener(exit_from_handler);
    exiting->EnableEvent(VMPI_EVENT_GC_START, NULL);
    exiting->RunGC();
    cr_assert_fail("ProfilerExit returned");
}

/* ---- the guard: bad arguments get the spec's result, never a crash (vmpi/runtime/guard.c) -------- */

static void never_runs(void *arg) { (void)arg; }

Test(mockvm, guard_refuses_bad_event_numbers) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    cr_assert_eq(a->EnableEvent(-1, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_CODE_LIMIT, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_GC_START | 0x100, NULL), VMPI_NOT_AVAILABLE, "stray bits");
    cr_assert_eq(a->DisableEvent(INT32_MIN, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CODE_LIMIT + 5, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_GC_START, NULL), VMPI_OK, "a good number still works");
}

Test(mockvm, guard_refuses_requests_for_nothing_live) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    int local;
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, NULL), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, &local), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_DUMP, &local), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CLASS_LOAD, &local), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, &local), VMPI_ERR);
    VMPI_HeapDumpArg level = {.heap_dump_level = 7};
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level), VMPI_ERR);
    cr_assert_eq(num_received, 0, "nothing was sent");
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, roots[ROOT_A]), VMPI_OK, "a live object still works");
    cr_assert_eq(num_received, 1);
}

Test(mockvm, guard_refuses_bad_call_traces) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    a->GetCallTrace(NULL, 4); /* nothing to fill: must just not crash */
    VMPI_CallTrace trace = {.env_id = MAIN_THREAD, .num_frames = 9, .frames = NULL};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 0, "NULL frames");
    VMPI_CallFrame frames[2];
    trace = (VMPI_CallTrace){.env_id = MAIN_THREAD, .num_frames = 9, .frames = frames};
    a->GetCallTrace(&trace, -1);
    cr_assert_eq(trace.num_frames, 0, "negative depth");
    a->GetCallTrace(&trace, 0);
    cr_assert_eq(trace.num_frames, 0, "depth 0 is no frames, not an error");
}

Test(mockvm, guard_refuses_bad_sizes_and_functions) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    VMPI_ThreadID list[1] = {WORKER_THREAD};
    int32_t results[1];
    cr_assert_eq(a->SetHeapSamplingInterval(-1), VMPI_ERR);
    cr_assert_eq(a->SuspendThreadList(-1, list, results), VMPI_ERR);
    cr_assert_eq(a->SuspendThreadList(1 << 20, list, results), VMPI_ERR, "a huge count");
    cr_assert_eq(a->SuspendThreadList(1, NULL, results), VMPI_ERR);
    cr_assert_eq(a->ResumeThreadList(1, list, NULL), VMPI_ERR);
    cr_assert_eq(a->GetThreadStatus(WORKER_THREAD), VMPI_THREAD_RUNNABLE, "nothing was suspended");
    cr_assert_eq(a->SuspendThreadList(1, list, results), VMPI_OK);
    cr_assert_eq(a->CreateSystemThread("t", 0, NULL), VMPI_ERR);
    cr_assert_eq(a->CreateSystemThread("t", 0, never_runs), VMPI_OK, "a function still works");
}

Test(mockvm, guard_refuses_dead_and_made_up_monitors) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    cr_assert_null(a->RawMonitorCreate(NULL));
    VMPI_RawMonitor lock = a->RawMonitorCreate("lock");
    cr_assert_not_null(lock);
    a->RawMonitorExit(lock); /* not the owner: refused, not an unlock of a free mutex */
    a->RawMonitorWait(lock, 1000); /* not the owner: refused at once, no wait */
    a->RawMonitorEnter(lock);
    a->RawMonitorExit(lock);
    a->RawMonitorDestroy(lock);
    /* Destroyed and made up: each would be a use of freed or wild memory. */
    int local;
    VMPI_RawMonitor made_up = (VMPI_RawMonitor)&local;
    a->RawMonitorEnter(lock);
    a->RawMonitorDestroy(lock);
    a->RawMonitorEnter(made_up);
    a->RawMonitorNotifyAll(made_up);
    a->RawMonitorExit(made_up);
}

Test(mockvm, guard_refuses_ids_that_name_no_thread) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    int local;
    VMPI_ThreadID made_up = (VMPI_ThreadID)&local;
    a->SuspendThread(made_up);
    a->SuspendThread(NULL);
    cr_assert_eq(a->GetThreadStatus(made_up), 0);
    cr_assert_eq(a->ThreadHasRun(made_up), 0);
    cr_assert_null(a->GetThreadObject(made_up));
    a->SetThreadLocalStorage(made_up, &local);
    cr_assert_null(a->GetThreadLocalStorage(made_up));
    cr_assert_eq(a->GetThreadStatus(MAIN_THREAD), VMPI_THREAD_RUNNABLE, "a real thread still works");
}

/* The warning names the caller, the function and the argument, once per
 * (agent, function, problem).  A listener is "listener N". */
Test(mockvm, guard_warns_once_naming_agent_function_and_argument) {
    cr_redirect_stderr();
    VMPI_Interface *a = vmpi_register_listener(keep);
    for (int i = 0; i < 3; i++) cr_assert_eq(a->SetHeapSamplingInterval(-i - 1), VMPI_ERR);
    cr_assert_eq(a->EnableEvent(-1, NULL), VMPI_NOT_AVAILABLE);
    fflush(stderr);
    cr_assert_stderr_eq_str("vmpi: agent 'listener 0': SetHeapSamplingInterval: sampling_interval is negative\n"
                            "vmpi: agent 'listener 0': EnableEvent: event_type is not an event number\n");
}

/* Under --vmpi-strict a bad argument ends the VM through its exit (the mock
 * exits with 100 + status). */
Test(mockvm, guard_strict_exits_through_the_vm, .exit_code = 101) {
    VMPI_Interface *a = vmpi_register_listener(keep);
    vmpi_set_strict(true);
    a->SetHeapSamplingInterval(-1);
    cr_assert_fail("a contract breach returned");
}
