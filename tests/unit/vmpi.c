/*
 * vmpi.c -- VMPI dispatch and interface functions against a small fake VM:
 * enabling and disabling events, several agents in load order, requested
 * events, heap sampling, GC control, threads, raw monitors, heap dumps,
 * shutdown, and the agent loader's messages.
 *
 * The fake VM has one class (Node: a reference field `next`, a static
 * `count`, a method `walk`), a heap of two Nodes in arena 1 that the fake
 * collector's walk_heap visits, and one thread with two frames.
 */
#define _GNU_SOURCE /* dladdr */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/internal.h"
#include "vm/threads/safepoint.h"
#include "vm/vm.h"
#include "vmpi/control.h"
#include "vmpi/post.h"

/* ---- the fake VM ---------------------------------------------------------------- */

static int collections;
static void fake_collect(Gc *gc, GcReason reason) {
    (void)gc;
    cr_assert_eq(reason, GC_REASON_REQUESTED);
    collections++;
}

/* A fake heap of two objects, each a header and up to two reference slots. */
static struct {
    Obj header;
    Obj *slots[2];
} heap_objects[3]; /* the third is never listed by the heap walk */
#define NODE_A (&heap_objects[0].header)
#define NODE_B (&heap_objects[1].header)

static void fake_walk(Gc *gc, GcObjectVisitor visit, void *ctx) {
    (void)gc;
    visit(NODE_A, 1, ctx);
    visit(NODE_B, 1, ctx);
}

static const GcConstraints fake_constraints = {.name = "fake", .description = "a test double"};
static const GcOps fake_ops = {.constraints = &fake_constraints, .collect = fake_collect, .walk_heap = fake_walk};
static Gc fake_gc = {.ops = &fake_ops};

static char *types[] = {"V", "J", "LNode;"};
static uint8_t walk_code[12];
static LineEntry walk_lines[] = {{0, 10}, {4, 12}, {8, 11}};
static ProgMethod methods[] = {{.name = "walk", .owner_class = 0, .is_static = true, .return_type = 0,
                                .code = walk_code, .code_len = sizeof walk_code, .lines = walk_lines,
                                .num_lines = 3, .signature = "()V"}};
static ProgField fields[] = {{.name = "next", .type = 2, .owner_class = 0, .is_ref = true, .slot = 0}};
static ProgField statics[] = {{.name = "count", .type = 1, .owner_class = 0, .is_ref = false, .slot = 0}};
static uint32_t class_fields[] = {0}, class_statics[] = {0}, class_methods[] = {0};
static ProgClass classes[] = {{.name = "Node", .source_file = "node.gcl", .num_fields = 1, .fields = class_fields,
                               .num_statics = 1, .statics = class_statics, .num_methods = 1,
                               .methods = class_methods, .num_ref_fields = 1}};
static Program program = {.types = types, .num_types = 3, .classes = classes, .num_classes = 1,
                          .fields = fields, .num_fields = 1, .statics = statics, .num_statics = 1,
                          .methods = methods, .num_methods = 1, .num_prim_statics = 1};

static RtClass node_class = {.name = "Node", .kind = CLASS_INSTANCE, .num_ref_fields = 1, .program_index = 0};
static uint64_t prim_statics[1] = {42};
static uint32_t *line_tables[1]; /* program_line_table of methods[0] */
static Frame frames[2];
static VMThread main_thread = {.id = 1, .name = "main", .frames = frames, .depth = 2, .max_depth = 2};
static VMThread *threads[] = {&main_thread};
static VM vm = {.program = &program, .gc = &fake_gc, .gc_ops = &fake_ops, .classes = &node_class,
                .prim_statics = prim_statics, .threads = threads, .num_threads = 1,
                .line_tables = line_tables};

static void attach_fake_vm(void) {
    node_class.class_id = (uint64_t)(uintptr_t)&node_class;
    vm.string_class = (RtClass){.name = "String", .kind = CLASS_STRING, .program_index = UINT32_MAX};
    vm.string_class.class_id = (uint64_t)(uintptr_t)&vm.string_class;
    NODE_A->cls = &node_class;
    NODE_B->cls = &node_class;
    *obj_ref_field(NODE_A, 0) = NODE_B; /* A.next = B */
    if (!line_tables[0]) line_tables[0] = program_line_table(&methods[0]);
    cr_assert_not_null(line_tables[0]);
    frames[0] = (Frame){.method = &methods[0], .code = walk_code, .pc = walk_code + 4}; /* line 12 */
    frames[1] = (Frame){.method = &methods[0], .code = walk_code, .pc = walk_code + 8}; /* line 11 */
    main_thread.vm = &vm;
    vm_attach_vmpi(&vm);
}

TestSuite(vmpi, .init = attach_fake_vm);

/* ---- listeners that record what they get -------------------------------------------------- */

#define LOG_MAX 64
typedef struct Received {
    char who;
    VMPI_Event event;
    bool gc_disabled;
} Received;
static Received log_[LOG_MAX];
static int logged;

static void record(char who, const VMPI_Event *e) {
    cr_assert_lt(logged, LOG_MAX);
    log_[logged++] = (Received){.who = who, .event = *e, .gc_disabled = gc_is_disabled(&fake_gc)};
}
static void notify_a(VMPI_Event *e) { record('a', e); }

/* An allocation of `size` bytes of `obj` in the fake heap, as gc_new_object
 * announces it: the heap's count of bytes allocated goes up first. */
static void post_alloc(VMPI_ArenaID arena_id, const Obj *obj, size_t size) {
    fake_gc.stats.bytes_allocated += size;
    gc_post_object_alloc(&fake_gc.stats.bytes_allocated, arena_id, obj, size);
}
static void notify_b(VMPI_Event *e) { record('b', e); }

static int count_of(char who, int32_t type) {
    int n = 0;
    for (int i = 0; i < logged; i++)
        if (log_[i].who == who && log_[i].event.event_type == type) n++;
    return n;
}

/* ---- enabling and dispatch -------------------------------------------------------------------- */

Test(vmpi, enabled_event_arrives_and_disabled_never_does) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    cr_assert_not_null(a);
    cr_assert_eq(vmpi_enabled[VMPI_EVENT_GC_START], 0);
    gc_post_gc_start();
    cr_assert_eq(logged, 0, "a disabled event never arrives");

    cr_assert_eq(a->EnableEvent(VMPI_EVENT_GC_START, NULL), VMPI_OK);
    cr_assert_neq(vmpi_enabled[VMPI_EVENT_GC_START], 0);
    gc_post_gc_start();
    cr_assert_eq(count_of('a', VMPI_EVENT_GC_START), 1);

    cr_assert_eq(a->DisableEvent(VMPI_EVENT_GC_START, NULL), VMPI_OK);
    cr_assert_eq(vmpi_enabled[VMPI_EVENT_GC_START], 0);
    gc_post_gc_start();
    vmpi_send_GC_START(NULL); /* even sent directly, it goes only to agents that enabled it */
    cr_assert_eq(count_of('a', VMPI_EVENT_GC_START), 1);
}

Test(vmpi, unknown_and_request_only_events_are_not_available) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    cr_assert_eq(a->EnableEvent(99, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(-1, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_HEAP_DUMP, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->DisableEvent(VMPI_EVENT_OBJECT_DUMP, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_CLASS_UNLOAD, NULL), VMPI_NOT_AVAILABLE); /* never posted */
}

Test(vmpi, several_agents_in_load_order) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    VMPI_Interface *b = vmpi_register_listener(notify_b);
    cr_assert_neq(a, b, "each agent has its own interface");
    a->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    b->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    b->EnableEvent(VMPI_EVENT_OBJECT_MOVE, NULL);
    gc_post_object_free(NODE_A);
    gc_post_object_move(1, NODE_A, 2, NODE_B);
    cr_assert_eq(logged, 3);
    cr_assert_eq(log_[0].who, 'a');
    cr_assert_eq(log_[1].who, 'b');
    cr_assert_eq(log_[0].event.u.obj_free.obj_id, (VMPI_ObjectID)NODE_A);
    cr_assert_eq(log_[2].who, 'b');
    cr_assert_eq(log_[2].event.event_type, VMPI_EVENT_OBJECT_MOVE);
    cr_assert_eq(log_[2].event.u.obj_move.new_arena_id, 2);
    cr_assert_eq(log_[2].event.u.obj_move.new_obj_id, (VMPI_ObjectID)NODE_B);

    a->DisableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    cr_assert_neq(vmpi_enabled[VMPI_EVENT_OBJECT_FREE], 0, "b still wants it");
    gc_post_object_free(NODE_B);
    cr_assert_eq(count_of('a', VMPI_EVENT_OBJECT_FREE), 1);
    cr_assert_eq(count_of('b', VMPI_EVENT_OBJECT_FREE), 2);
}

Test(vmpi, object_alloc_fields_and_gc_disabled) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    a->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    a->EnableEvent(VMPI_EVENT_GC_FINISH, NULL);
    RtClass array_of_nodes = {.name = "Node[]", .kind = CLASS_ARRAY, .elem_kind = ELEM_REF, .elem_size = 8,
                              .elem_class = &node_class, .class_id = 0xabc0};
    uint64_t words[4] = {0};
    Obj *array = (Obj *)(void *)words;
    array->cls = &array_of_nodes;
    array->length = 2;
    post_alloc(3, array, 32);
    gc_post_gc_finish(5, 160, 4096);
    cr_assert_eq(logged, 2);
    const VMPI_Event *e = &log_[0].event;
    cr_assert_eq(e->event_type, VMPI_EVENT_OBJECT_ALLOC);
    cr_assert_eq(e->u.obj_alloc.arena_id, 3);
    cr_assert_eq(e->u.obj_alloc.is_array, VMPI_CLASS);
    cr_assert_eq(e->u.obj_alloc.class_id, (VMPI_ObjectID)&node_class, "element class of a reference array");
    cr_assert_eq(e->u.obj_alloc.size, 32);
    cr_assert_eq(e->u.obj_alloc.obj_id, (VMPI_ObjectID)array);
    cr_assert_eq(e->env_id, NULL, "no VM thread runs in the test");
    cr_assert(log_[0].gc_disabled, "events with object IDs are sent with GC disabled");
    cr_assert_eq(log_[1].event.u.gc_info.used_objects, 5);
    cr_assert_eq(log_[1].event.u.gc_info.used_object_space, 160);
    cr_assert_eq(log_[1].event.u.gc_info.total_object_space, 4096);
    cr_assert_not(gc_is_disabled(&fake_gc), "and enabled again afterwards");
}

/* The method and field tables live only during NotifyEvent: look at them there. */
static void check_class_load(VMPI_Event *e) {
    record('a', e);
    if (strcmp(e->u.class_load.class_name, "Node") != 0) return;
    cr_assert_str_eq(e->u.class_load.source_name, "node.gcl");
    cr_assert_eq(e->u.class_load.num_methods, 1);
    cr_assert_str_eq(e->u.class_load.methods[0].method_name, "walk");
    cr_assert_str_eq(e->u.class_load.methods[0].method_signature, "()V");
    cr_assert_eq(e->u.class_load.methods[0].start_lineno, 10);
    cr_assert_eq(e->u.class_load.methods[0].end_lineno, 12);
    cr_assert_eq(e->u.class_load.methods[0].method_id, (VMPI_MethodID)&methods[0]);
    cr_assert_eq(e->u.class_load.num_static_fields, 1);
    cr_assert_str_eq(e->u.class_load.statics[0].field_name, "count");
    cr_assert_str_eq(e->u.class_load.statics[0].field_signature, "J");
    cr_assert_eq(e->u.class_load.num_instance_fields, 1);
    cr_assert_str_eq(e->u.class_load.instances[0].field_name, "next");
    cr_assert_str_eq(e->u.class_load.instances[0].field_signature, "LNode;");
    cr_assert(gc_is_disabled(&fake_gc), "CLASS_LOAD carries a class ID: GC is disabled");
}

Test(vmpi, class_load_describes_the_class) {
    VMPI_Interface *a = vmpi_register_listener(check_class_load);
    a->EnableEvent(VMPI_EVENT_CLASS_LOAD, NULL);
    vmpi_post_class_load(0);
    vmpi_post_class_load(1); /* String: made by the VM, no members */
    cr_assert_eq(count_of('a', VMPI_EVENT_CLASS_LOAD), 2);
    cr_assert_eq(log_[0].event.u.class_load.class_id, (VMPI_ObjectID)&node_class);
    cr_assert_eq(log_[1].event.u.class_load.class_id, (VMPI_ObjectID)&vm.string_class);
    cr_assert_eq(log_[1].event.u.class_load.num_methods, 0);
}

/* ---- requested events ------------------------------------------------------------------------- */

Test(vmpi, requested_events_carry_the_bit_and_go_to_the_requester_only) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    VMPI_Interface *b = vmpi_register_listener(notify_b);
    b->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    b->EnableEvent(VMPI_EVENT_CLASS_LOAD, NULL);

    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, NODE_B), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CLASS_LOAD, &node_class), VMPI_OK);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, &main_thread), VMPI_OK);
    cr_assert_eq(logged, 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(log_[i].who, 'a', "b enabled the events but did not ask");
        cr_assert(log_[i].event.event_type & VMPI_REQUESTED_EVENT);
    }
    cr_assert_eq(log_[0].event.u.obj_alloc.obj_id, (VMPI_ObjectID)NODE_B);
    cr_assert_eq(log_[0].event.u.obj_alloc.arena_id, 1);
    cr_assert_eq(log_[0].event.u.obj_alloc.size, (int32_t)obj_size(NODE_B));
    cr_assert_eq(log_[1].event.event_type, VMPI_EVENT_CLASS_LOAD | VMPI_REQUESTED_EVENT);
    cr_assert_eq(log_[2].event.u.thread_start.thread_env_id, (VMPI_ThreadID)&main_thread);
    cr_assert_str_eq(log_[2].event.u.thread_start.thread_name, "main");

    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_ALLOC, &heap_objects[2].header), VMPI_ERR, "not a live object");
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_CLASS_LOAD, (void *)0x1234), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_THREAD_START, NULL), VMPI_ERR);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_GC_START, NULL), VMPI_NOT_AVAILABLE);
    cr_assert_eq(logged, 3);
}

static size_t record_bytes = 1 + sizeof(void *);

static void expect_heap_dump(VMPI_Event *e) {
    cr_assert_eq(e->event_type, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT);
    cr_assert_eq(e->u.heap_dump.dump_level, 0);
    cr_assert_eq(e->u.heap_dump.num_traces, 0);
    cr_assert_eq((size_t)(e->u.heap_dump.end - e->u.heap_dump.begin), 2 * record_bytes);
    const char *p = e->u.heap_dump.begin;
    void *id;
    cr_assert_eq(p[0], VMPI_NORMAL_OBJECT);
    memcpy(&id, p + 1, sizeof id);
    cr_assert_eq(id, NODE_A);
    memcpy(&id, p + record_bytes + 1, sizeof id);
    cr_assert_eq(id, NODE_B);
    cr_assert(gc_is_disabled(&fake_gc));
    record('a', e);
}

Test(vmpi, level0_heap_dump_lists_every_object) {
    VMPI_Interface *a = vmpi_register_listener(expect_heap_dump);
    VMPI_HeapDumpArg level0 = {.heap_dump_level = VMPI_DUMP_LEVEL_0};
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level0), VMPI_OK);
    cr_assert_eq(logged, 1);
    VMPI_HeapDumpArg level9 = {.heap_dump_level = 9};
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, &level9), VMPI_ERR);
}

static void expect_object_dump(VMPI_Event *e) {
    cr_assert_eq(e->event_type, VMPI_EVENT_OBJECT_DUMP | VMPI_REQUESTED_EVENT);
    const uint8_t *p = (const uint8_t *)e->u.object_dump.data;
    size_t id = sizeof(void *);
    cr_assert_eq((size_t)e->u.object_dump.data_len, 1 + id + id + 4 + id);
    cr_assert_eq(p[0], VMPI_GC_INSTANCE_DUMP);
    void *v;
    memcpy(&v, p + 1, id);
    cr_assert_eq(v, NODE_A);
    memcpy(&v, p + 1 + id, id);
    cr_assert_eq(v, &node_class);
    uint32_t following;
    memcpy(&following, p + 1 + 2 * id, 4);
    cr_assert_eq(following, id, "one reference field");
    memcpy(&v, p + 1 + 2 * id + 4, id);
    cr_assert_eq(v, NODE_B, "A.next");
    record('a', e);
}

Test(vmpi, object_dump_of_an_instance) {
    VMPI_Interface *a = vmpi_register_listener(expect_object_dump);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_OBJECT_DUMP, NODE_A), VMPI_OK);
    cr_assert_eq(logged, 1);
}

/* The thread roots at the start of a level-2 dump: one NATIVE_STACK root
 * (the object below every frame), then the JAVA_FRAME roots' frame
 * numbers. */
#define MAX_FRAME_ROOTS 8
static uint32_t root_frames[MAX_FRAME_ROOTS];
static int num_root_frames;
static void *native_root;

static void collect_root_frames(VMPI_Event *e) {
    cr_assert_eq(e->event_type, VMPI_EVENT_HEAP_DUMP | VMPI_REQUESTED_EVENT);
    const size_t id = sizeof(void *), root = 1 + id + id + 4;
    const char *p = e->u.heap_dump.begin;
    cr_assert_eq((uint8_t)p[0], VMPI_GC_ROOT_NATIVE_STACK);
    memcpy(&native_root, p + 1, id);
    void *thread;
    memcpy(&thread, p + 1 + id, id);
    cr_assert_eq(thread, &main_thread);
    p += 1 + id + id;
    while (p < e->u.heap_dump.end && (uint8_t)p[0] == VMPI_GC_ROOT_JAVA_FRAME) {
        cr_assert_lt(num_root_frames, MAX_FRAME_ROOTS);
        memcpy(&thread, p + 1 + id, id);
        cr_assert_eq(thread, &main_thread);
        memcpy(&root_frames[num_root_frames++], p + 1 + 2 * id, 4);
        p += root;
    }
    record('a', e);
}

Test(vmpi, java_frame_roots_are_numbered_callee_first) {
    /* Four frames, the third with no reference slots at all (so its
     * rlocals equals the fourth's), and a root below every frame. */
    static Obj *slots[5];
    static Obj *no_statics[1];
    static Frame deep[4];
    slots[0] = NODE_B; /* below frame 0: in no frame, a NATIVE_STACK root */
    slots[1] = NODE_A; /* frame 0, the bottom: callee-first number 3 */
    slots[3] = NODE_A; /* frame 2 owns it (frame 1 is empty): number 1 */
    slots[4] = NODE_B; /* frame 3, the running one: number 0 */
    Obj **starts[4] = {&slots[1], &slots[3], &slots[3], &slots[4]};
    for (int i = 0; i < 4; i++)
        deep[i] = (Frame){.method = &methods[0], .code = walk_code, .pc = walk_code, .rlocals = starts[i]};
    main_thread.frames = deep;
    main_thread.depth = main_thread.max_depth = 4;
    main_thread.rstack = slots;
    main_thread.rtop = slots + 5;
    vm.ref_statics = vm.string_consts = no_statics;

    VMPI_Interface *a = vmpi_register_listener(collect_root_frames);
    cr_assert_eq(a->RequestEvent(VMPI_EVENT_HEAP_DUMP, NULL), VMPI_OK);
    cr_assert_eq(logged, 1);
    cr_assert_eq(native_root, NODE_B, "the slot below every frame is held natively");
    cr_assert_eq(num_root_frames, 3, "every other non-null slot of the reference stack");
    cr_assert_eq(root_frames[0], 3);
    cr_assert_eq(root_frames[1], 1);
    cr_assert_eq(root_frames[2], 0);
}

/* ---- heap sampling ------------------------------------------------------------------------------ */

/* Counts of what the sampling listeners got. */
static int64_t samples_a, samples_b, nested_allocations;
static void count_samples_a(VMPI_Event *e) {
    if (e->event_type == VMPI_EVENT_SAMPLED_OBJECT_ALLOC) samples_a++;
}
static void count_samples_b(VMPI_Event *e) {
    if (e->event_type == VMPI_EVENT_SAMPLED_OBJECT_ALLOC) samples_b++;
}
/* Allocates from inside its sample callback, as an agent's VMPI call
 * that allocates in the heap would. */
static void allocate_in_callback(VMPI_Event *e) {
    if (e->event_type != VMPI_EVENT_SAMPLED_OBJECT_ALLOC) return;
    samples_a++;
    nested_allocations++;
    post_alloc(1, NODE_B, 48);
}

static const uint64_t test_seed = 7;

Test(vmpi, sampling_interval_0_samples_every_allocation_and_negative_is_refused) {
    vmpi_seed_heap_sampling(&test_seed);
    VMPI_Interface *a = vmpi_register_listener(count_samples_a);
    cr_assert_eq(a->SetHeapSamplingInterval(-1), VMPI_ERR);
    cr_assert_eq(a->SetHeapSamplingInterval(0), VMPI_OK);
    cr_assert_eq(gc_alloc_event_countdown, GC_ALLOC_EVENT_NEVER, "an interval alone samples nothing");
    cr_assert_eq(a->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL), VMPI_OK);
    cr_assert_eq(vmpi_enabled[VMPI_EVENT_OBJECT_ALLOC], 0, "sampling does not turn OBJECT_ALLOC on");
    for (int i = 0; i < 100; i++) post_alloc(1, NODE_A, 32);
    cr_assert_eq(samples_a, 100);
    a->DisableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    cr_assert_eq(gc_alloc_event_countdown, GC_ALLOC_EVENT_NEVER, "nothing wanted: the fast path never calls out");
    for (int i = 0; i < 10; i++) post_alloc(1, NODE_A, 32);
    cr_assert_eq(samples_a, 100, "disabled: no samples");
}

/* Samples over `bytes` allocated in objects much smaller than the
 * interval, against the expected bytes / interval. */
static void expect_rate(int64_t samples, uint64_t bytes, uint64_t interval, const char *who) {
    double expected = (double)bytes / (double)interval;
    cr_assert(fabs((double)samples - expected) <= 0.1 * expected, "%s: %lld samples, %.0f expected", who,
              (long long)samples, expected);
}

Test(vmpi, sampling_defaults_to_512_kib_and_two_agents_draw_their_own_gaps) {
    vmpi_seed_heap_sampling(&test_seed);
    VMPI_Interface *a = vmpi_register_listener(count_samples_a);
    VMPI_Interface *b = vmpi_register_listener(count_samples_b);
    a->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL); /* no interval: JVMTI's 512 KiB */
    b->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    cr_assert_eq(b->SetHeapSamplingInterval(16 * 1024), VMPI_OK);
    uint64_t start = fake_gc.stats.bytes_allocated;
    for (int i = 0; i < 4000000; i++) post_alloc(1, NODE_A, 64);
    uint64_t bytes = fake_gc.stats.bytes_allocated - start;
    expect_rate(samples_a, bytes, 512 * 1024, "default interval");
    expect_rate(samples_b, bytes, 16 * 1024, "16 KiB interval");
}

Test(vmpi, sampling_alone_calls_out_only_at_sample_points) {
    vmpi_seed_heap_sampling(&test_seed);
    VMPI_Interface *a = vmpi_register_listener(count_samples_a);
    a->SetHeapSamplingInterval(1024 * 1024);
    a->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    cr_assert_eq(gc_alloc_event_countdown, GC_ALLOC_EVENT_ALWAYS, "the next allocation draws the gap");
    post_alloc(1, NODE_A, 32);
    cr_assert_geq(gc_alloc_event_countdown, 0, "then it counts down to the sample point");
    cr_assert_lt(gc_alloc_event_countdown, GC_ALLOC_EVENT_NEVER);
    a->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    cr_assert_eq(gc_alloc_event_countdown, GC_ALLOC_EVENT_ALWAYS, "OBJECT_ALLOC: every allocation calls out");
    a->DisableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL);
    post_alloc(1, NODE_A, 32);
    cr_assert_geq(gc_alloc_event_countdown, 0);
}

Test(vmpi, allocations_in_a_sample_callback_are_not_sampled) {
    vmpi_seed_heap_sampling(&test_seed);
    VMPI_Interface *a = vmpi_register_listener(allocate_in_callback);
    a->SetHeapSamplingInterval(0);
    a->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    for (int i = 0; i < 50; i++) post_alloc(1, NODE_A, 32);
    cr_assert_eq(nested_allocations, 50);
    cr_assert_eq(samples_a, 50, "each allocation of the program once, none of the callback's");
}

Test(vmpi, the_same_seed_draws_the_same_gaps) {
    uint64_t points[2][20];
    for (int run = 0; run < 2; run++) {
        vmpi_seed_heap_sampling(&test_seed);
        VMPI_Interface *a = vmpi_register_listener(count_samples_a);
        a->SetHeapSamplingInterval(4096);
        a->EnableEvent(VMPI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
        fake_gc.stats.bytes_allocated = 0;
        for (int i = 0; i < 20; i++) {
            post_alloc(1, NODE_A, 16);
            points[run][i] = fake_gc.stats.bytes_allocated + (uint64_t)gc_alloc_event_countdown;
        }
        vmpi_shutdown();
    }
    cr_assert_arr_eq(points[0], points[1], sizeof points[0]);
    bool varies = false;
    for (int i = 1; i < 20; i++) varies |= points[0][i] != points[0][0];
    cr_assert(varies || samples_a == 0, "gaps are drawn, not fixed");
}

/* ---- GC control -------------------------------------------------------------------------------------- */

Test(vmpi, disable_gc_nests_and_run_gc_is_refused_while_disabled) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    a->RunGC();
    cr_assert_eq(collections, 1);
    a->DisableGC();
    a->DisableGC();
    a->RunGC();
    cr_assert_eq(collections, 1, "refused while disabled");
    a->EnableGC();
    a->RunGC();
    cr_assert_eq(collections, 1, "still disabled: the calls nest");
    a->EnableGC();
    a->RunGC();
    cr_assert_eq(collections, 2);
    a->EnableGC(); /* unmatched: ignored, never negative */
    cr_assert_not(gc_is_disabled(&fake_gc));
}

static VMPI_Interface *handler_iface; /* the interface a handler calls back through */

static void run_gc_in_handler(VMPI_Event *e) {
    handler_iface->RunGC();
    record('a', e);
}

Test(vmpi, run_gc_inside_an_object_event_is_refused) {
    VMPI_Interface *a = handler_iface = vmpi_register_listener(run_gc_in_handler);
    a->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    gc_post_object_free(NODE_A);
    cr_assert_eq(logged, 1);
    cr_assert_eq(collections, 0);
}

static void enable_then_run_gc_in_handler(VMPI_Event *e) {
    handler_iface->EnableGC(); /* unmatched: the event's own disabling must stay */
    handler_iface->RunGC();
    record('a', e);
}

/* Found by tests/fuzz/vmpi.c (crashes/vmpi/enable_gc_inside_object_alloc):
 * an unmatched EnableGC inside OBJECT_ALLOC re-enabled GC, and RunGC then
 * moved the object being allocated. */
Test(vmpi, unmatched_enable_gc_inside_an_event_keeps_gc_disabled) {
    VMPI_Interface *a = handler_iface = vmpi_register_listener(enable_then_run_gc_in_handler);
    a->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL);
    gc_post_object_free(NODE_A);
    cr_assert_eq(logged, 1);
    cr_assert_eq(collections, 0);
    cr_assert_eq(fake_gc.disabled_depth, 0, "the event's disabling is undone once, after it");
}

/* ---- threads, call traces, storage, monitors ---------------------------------------------------------- */

Test(vmpi, call_trace_is_callee_first_with_lines) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    VMPI_CallFrame out[4];
    VMPI_CallTrace trace = {.env_id = (VMPI_ThreadID)&main_thread, .frames = out};
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 2);
    cr_assert_eq(out[0].lineno, 11, "the running frame first");
    cr_assert_eq(out[1].lineno, 12);
    cr_assert_eq(out[0].method_id, (VMPI_MethodID)&methods[0]);
    a->GetCallTrace(&trace, 1);
    cr_assert_eq(trace.num_frames, 1);
    trace.env_id = (VMPI_ThreadID)0x1234;
    a->GetCallTrace(&trace, 4);
    cr_assert_eq(trace.num_frames, 0, "not a thread");
    cr_assert_eq(a->GetMethodClass((VMPI_MethodID)&methods[0]), (VMPI_ObjectID)&node_class);
    cr_assert_null(a->GetMethodClass((VMPI_MethodID)0x1234), "not a method: looked up, never followed");
    cr_assert_null(a->GetMethodClass((VMPI_MethodID)((char *)&methods[0] + 1)), "inside a method record");
}

/* Call traces read lines from a table made once per method: it must say
 * what the line entries say at every offset, between entries and past the
 * last one included. */
Test(vmpi, line_table_agrees_with_the_line_entries) {
    static const uint32_t want[sizeof walk_code] = {10, 10, 10, 10, 12, 12, 12, 12, 11, 11, 11, 11};
    for (uint32_t pc = 0; pc < sizeof walk_code; pc++) {
        cr_assert_eq(line_tables[0][pc], want[pc], "offset %u", pc);
        cr_assert_eq(line_tables[0][pc], program_line_of(&methods[0], pc), "offset %u", pc);
    }
    static LineEntry late[] = {{3, 7}}; /* no entry for offsets 0-2: line 0, unknown */
    ProgMethod m = {.code = walk_code, .code_len = 5, .lines = late, .num_lines = 1};
    uint32_t *table = program_line_table(&m);
    cr_assert_not_null(table);
    for (uint32_t pc = 0; pc < 5; pc++) cr_assert_eq(table[pc], pc < 3 ? 0u : 7u, "offset %u", pc);
    free(table);
}

/* A thread that suspends itself keeps running (nobody would resume it):
 * the flag is set and ThreadHasRun compares its stack. */
Test(vmpi, suspend_resume_and_status) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    VMPI_ThreadID main_env = (VMPI_ThreadID)&main_thread;
    vm_set_current_thread(&main_thread);
    cr_assert_eq(a->GetThreadStatus(main_env), VMPI_THREAD_RUNNABLE);
    a->SuspendThread(main_env);
    cr_assert_eq(a->GetThreadStatus(main_env), VMPI_THREAD_RUNNABLE | VMPI_THREAD_SUSPENDED);
    cr_assert_not(a->ThreadHasRun(main_env), "its stack has not changed");
    VMPI_ThreadID list[] = {main_env, (VMPI_ThreadID)0x1234};
    int32_t results[2] = {-1, -1};
    cr_assert_eq(a->ResumeThreadList(2, list, results), VMPI_ERR);
    cr_assert_eq(results[0], 0);
    cr_assert_neq(results[1], 0, "not a thread");
    cr_assert_eq(a->GetThreadStatus(main_env), VMPI_THREAD_RUNNABLE);
    cr_assert_eq(a->SuspendThreadList(1, list, results), VMPI_OK);
    cr_assert_eq(results[0], 0);
    cr_assert_neq(a->GetThreadStatus(main_env) & VMPI_THREAD_SUSPENDED, 0);
}

/* Suspended from another OS thread, main parks at its next safepoint, and
 * SuspendThread returns only then; ResumeThread lets it go on. */
static VMPI_Interface *suspender_iface;
static int32_t status_while_parked, ran_while_parked;

static void *suspend_main(void *arg) {
    (void)arg;
    VMPI_ThreadID main_env = (VMPI_ThreadID)&main_thread;
    suspender_iface->SuspendThread(main_env);
    status_while_parked = suspender_iface->GetThreadStatus(main_env);
    ran_while_parked = suspender_iface->ThreadHasRun(main_env);
    suspender_iface->ResumeThread(main_env);
    return NULL;
}

Test(vmpi, suspension_parks_at_a_safepoint) {
    suspender_iface = vmpi_register_listener(notify_a);
    vm_set_current_thread(&main_thread);
    atomic_store(&vm_pending_requests, 0);
    pthread_t suspender;
    cr_assert_eq(pthread_create(&suspender, NULL, suspend_main, NULL), 0);
    while (!vm_safepoint_requested()) sched_yield(); /* main runs until asked */
    vm_safepoint(&main_thread);                      /* parks until resumed */
    pthread_join(suspender, NULL);
    cr_assert_eq(status_while_parked, VMPI_THREAD_RUNNABLE | VMPI_THREAD_SUSPENDED);
    cr_assert_not(ran_while_parked, "parked since it was suspended");
    cr_assert(suspender_iface->ThreadHasRun((VMPI_ThreadID)&main_thread), "woke and ran");
    cr_assert_eq(suspender_iface->GetThreadStatus((VMPI_ThreadID)&main_thread), VMPI_THREAD_RUNNABLE);
}

Test(vmpi, thread_local_storage_and_objects) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    int cell;
    a->SetThreadLocalStorage((VMPI_ThreadID)&main_thread, &cell);
    cr_assert_eq(a->GetThreadLocalStorage((VMPI_ThreadID)&main_thread), &cell);
    cr_assert_eq(main_thread.vmpi_local_storage, &cell);
    cr_assert_null(a->GetThreadLocalStorage((VMPI_ThreadID)0x1234));
    cr_assert_null(a->GetThreadObject((VMPI_ThreadID)&main_thread));
    cr_assert_str_eq(a->GetCollectorName(), "fake");
    cr_assert_geq(a->GetCurrentThreadCpuTime(), 0);
}

Test(vmpi, raw_monitors_are_recursive) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    VMPI_RawMonitor m = a->RawMonitorCreate("_test");
    cr_assert_not_null(m);
    a->RawMonitorEnter(m);
    a->RawMonitorEnter(m);
    a->RawMonitorWait(m, 1); /* times out, and comes back holding both entries */
    a->RawMonitorExit(m);
    a->RawMonitorExit(m);
    a->RawMonitorExit(m); /* not held: ignored */
    a->RawMonitorNotifyAll(m);
    a->RawMonitorDestroy(m);
}

/* ---- GetEnv, shutdown, ProfilerExit -------------------------------------------------------------------- */

static void shut_down_from_handler(VMPI_Event *e) {
    record('a', e);
    vmpi_shutdown(); /* as ProfilerExit would, from inside NotifyEvent */
}

Test(vmpi, shutdown_reaches_every_agent_once_even_when_nested) {
    VMPI_Interface *a = vmpi_register_listener(shut_down_from_handler);
    VMPI_Interface *b = vmpi_register_listener(notify_b);
    a->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    b->EnableEvent(VMPI_EVENT_JVM_SHUT_DOWN, NULL);
    b->EnableEvent(VMPI_EVENT_GC_START, NULL);
    vmpi_shutdown();
    vmpi_shutdown();
    cr_assert_eq(count_of('a', VMPI_EVENT_JVM_SHUT_DOWN), 1);
    cr_assert_eq(count_of('b', VMPI_EVENT_JVM_SHUT_DOWN), 1);
    cr_assert_eq(vmpi_enabled[VMPI_EVENT_GC_START], 0, "nothing is delivered after shutdown");
    cr_assert_not(vmpi_any_agent());
}

static void exit_from_handler(VMPI_Event *e) {
    (void)e;
    handler_iface->ProfilerExit(3);
}

Test(vmpi, profiler_exit_exits_with_the_code, .exit_code = 3) {
    vmpi_attach_vm(NULL); /* the fake VM cannot vm_exit; VMPI then exits itself */
    VMPI_Interface *a = handler_iface = vmpi_register_listener(exit_from_handler);
    a->EnableEvent(VMPI_EVENT_GC_START, NULL);
    gc_post_gc_start();
    cr_assert_fail("ProfilerExit returned");
}

/* ---- agent loading ---------------------------------------------------------------------------------------- */

Test(vmpi, missing_agent_message) {
    char err[1024];
    cr_assert_not(vmpi_load_agent("nosuchagent=a,b", false, err, sizeof err));
    cr_assert_str_eq(err, "agent 'nosuchagent': not found (looked for " GCLAB_AGENT_DIR
                          "/libnosuchagent.so and libnosuchagent.so on the library path)");
    cr_assert_not(vmpi_any_agent());
}

Test(vmpi, agentpath_errors) {
    char err[1024];
    cr_assert_not(vmpi_load_agent("/nonexistent/libx.so", true, err, sizeof err));
    cr_assert(strncmp(err, "agent '/nonexistent/libx.so': dlopen: ", 38) == 0, "%s", err);
    Dl_info libc;
    cr_assert(dladdr((void *)printf, &libc) && libc.dli_fname);
    char expected[PATH_MAX + 128];
    snprintf(expected, sizeof expected, "agent '%s': no VMPI_OnLoad or JVM_OnLoad in %s", libc.dli_fname, libc.dli_fname);
    cr_assert_not(vmpi_load_agent(libc.dli_fname, true, err, sizeof err));
    cr_assert_str_eq(err, expected);
    cr_assert_not(vmpi_load_agent("", false, err, sizeof err));
    cr_assert_str_eq(err, "agent '': no agent name given");
}

Test(vmpi, bundled_agent_loads_and_a_failing_onload_is_reported) {
    char err[1024];
    cr_assert(vmpi_load_agent("trace=file=/dev/null", false, err, sizeof err), "%s", err);
    cr_assert(vmpi_any_agent());
    cr_assert_neq(vmpi_enabled[VMPI_EVENT_OBJECT_ALLOC], 0, "trace enables OBJECT_ALLOC");
    cr_assert_not(vmpi_load_agent("check=bogus", false, err, sizeof err));
    cr_assert_str_eq(err, "agent 'check': VMPI_OnLoad failed (returned -1)");
    vmpi_shutdown();
    cr_assert_not(vmpi_any_agent());
}

Test(vmpi, every_interface_function_is_set) {
    VMPI_Interface *a = vmpi_register_listener(notify_a);
    cr_assert_eq(a->version, VMPI_VERSION_1);
    cr_assert_eq(a->NotifyEvent, notify_a);
#define EXPECT_SET(member) cr_assert_not_null(a->member, #member " is NULL");
    EXPECT_SET(EnableEvent) EXPECT_SET(DisableEvent) EXPECT_SET(RequestEvent) EXPECT_SET(GetCallTrace)
    EXPECT_SET(ProfilerExit) EXPECT_SET(RawMonitorCreate) EXPECT_SET(RawMonitorEnter) EXPECT_SET(RawMonitorExit)
    EXPECT_SET(RawMonitorWait) EXPECT_SET(RawMonitorNotifyAll) EXPECT_SET(RawMonitorDestroy)
    EXPECT_SET(GetCurrentThreadCpuTime) EXPECT_SET(SuspendThread) EXPECT_SET(ResumeThread)
    EXPECT_SET(GetThreadStatus) EXPECT_SET(ThreadHasRun) EXPECT_SET(CreateSystemThread)
    EXPECT_SET(SetThreadLocalStorage) EXPECT_SET(GetThreadLocalStorage) EXPECT_SET(DisableGC) EXPECT_SET(EnableGC)
    EXPECT_SET(RunGC) EXPECT_SET(GetThreadObject) EXPECT_SET(GetMethodClass) EXPECT_SET(SuspendThreadList)
    EXPECT_SET(ResumeThreadList) EXPECT_SET(SetHeapSamplingInterval) EXPECT_SET(GetCollectorName)
#undef EXPECT_SET
}

/* ---- the trace agent's format (docs/trace-format.md) ------------------------------------------------------ */

Test(vmpi, trace_agent_writes_the_documented_format) {
    char path[] = "/tmp/gclab_trace_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char spec[64], err[1024];
    snprintf(spec, sizeof spec, "trace=file=%s,methods=y", path);
    cr_assert(vmpi_load_agent(spec, false, err, sizeof err), "%s", err);

    gc_post_arena_new(1, "heap \"one\"\n");
    /* Posted, THREAD_START is the thread's own event, as METHOD_ENTRY is. */
    vmpi_post_thread_start(&main_thread);
    vmpi_send_METHOD_ENTRY(&main_thread, &methods[0]);
    post_alloc(1, NODE_A, 24);
    gc_post_gc_start();
    gc_post_object_move(1, NODE_A, 2, NODE_B);
    gc_post_object_free(NODE_B);
    gc_post_arena_delete(2);
    gc_post_gc_finish(1, 24, 4096);
    vmpi_post_class_load(0);
    vmpi_shutdown();

    char expected[2048];
    unsigned long a = (unsigned long)(uintptr_t)NODE_A, b = (unsigned long)(uintptr_t)NODE_B;
    snprintf(expected, sizeof expected,
             "{\"format\":\"gclab-vmpi-trace\",\"version\":1,\"vmpi_version\":%d,\"collector\":\"fake\"}\n"
             "{\"seq\":1,\"event\":\"ARENA_NEW\",\"thread\":0,\"arena_id\":1,\"arena_name\":\"heap \\\"one\\\"\\n\"}\n"
             "{\"seq\":2,\"event\":\"THREAD_START\",\"thread\":1,\"thread_name\":\"main\",\"group_name\":\"main\","
             "\"parent_name\":null,\"thread_id\":null,\"thread_env_id\":%lu}\n"
             "{\"seq\":3,\"event\":\"METHOD_ENTRY\",\"thread\":1,\"method_id\":%lu}\n"
             "{\"seq\":4,\"event\":\"OBJECT_ALLOC\",\"thread\":0,\"arena_id\":1,\"class_id\":%lu,\"is_array\":0,"
             "\"size\":24,\"obj_id\":%lu}\n"
             "{\"seq\":5,\"event\":\"GC_START\",\"thread\":0}\n"
             "{\"seq\":6,\"event\":\"OBJECT_MOVE\",\"thread\":0,\"arena_id\":1,\"obj_id\":%lu,\"new_arena_id\":2,"
             "\"new_obj_id\":%lu}\n"
             "{\"seq\":7,\"event\":\"OBJECT_FREE\",\"thread\":0,\"obj_id\":%lu}\n"
             "{\"seq\":8,\"event\":\"ARENA_DELETE\",\"thread\":0,\"arena_id\":2}\n"
             "{\"seq\":9,\"event\":\"GC_FINISH\",\"thread\":0,\"used_objects\":1,\"used_object_space\":24,"
             "\"total_object_space\":4096}\n"
             "{\"seq\":10,\"event\":\"CLASS_LOAD\",\"thread\":0,\"class_name\":\"Node\",\"source_name\":\"node.gcl\","
             "\"num_interfaces\":0,\"num_methods\":1,\"methods\":[{\"method_name\":\"walk\",\"method_signature\":\"()V\","
             "\"start_lineno\":10,\"end_lineno\":12,\"method_id\":%lu}],\"num_static_fields\":1,"
             "\"statics\":[{\"field_name\":\"count\",\"field_signature\":\"J\"}],\"num_instance_fields\":1,"
             "\"instances\":[{\"field_name\":\"next\",\"field_signature\":\"LNode;\"}],\"class_id\":%lu}\n"
             "{\"seq\":11,\"event\":\"JVM_SHUT_DOWN\",\"thread\":0}\n",
             VMPI_VERSION_1, (unsigned long)(uintptr_t)&main_thread, (unsigned long)(uintptr_t)&methods[0],
             (unsigned long)(uintptr_t)&node_class, a, a, b, b, (unsigned long)(uintptr_t)&methods[0],
             (unsigned long)(uintptr_t)&node_class);
    char written[2048] = {0};
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(written, 1, sizeof written - 1, f);
    fclose(f);
    unlink(path);
    written[n] = '\0';
    cr_assert_str_eq(written, expected);
}

/* ---- the trace agent's file is complete or absent (docs/trace-format.md) ------------------------------- */

/* How many entries of `dir` end in ".partial". */
static int partial_files(const char *dir) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *entry; (entry = readdir(d));) {
        size_t len = strlen(entry->d_name);
        if (len > 8 && strcmp(entry->d_name + len - 8, ".partial") == 0) n++;
    }
    closedir(d);
    return n;
}

static void load_trace_agent(const char *path) {
    char spec[4200], err[1024];
    snprintf(spec, sizeof spec, "trace=file=%s", path);
    cr_assert(vmpi_load_agent(spec, false, err, sizeof err), "%s", err);
    gc_post_arena_new(1, "heap");
    post_alloc(1, NODE_A, 24);
}

Test(vmpi, trace_file_of_a_killed_run_is_absent_and_of_a_normal_run_complete) {
    char dir[] = "/tmp/gclab_trace_dir_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);

    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) { /* dies mid-run, with the trace open and written to */
        load_trace_agent(path);
        gc_post_gc_start();
        raise(SIGKILL);
    }
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    cr_assert(access(path, F_OK) != 0 && errno == ENOENT, "a killed run leaves no trace.jsonl");
    cr_assert_eq(partial_files(dir), 1, "only its temporary file");

    load_trace_agent(path);
    vmpi_shutdown();
    cr_assert_eq(partial_files(dir), 1, "this run's temporary file was renamed (the old one stays)");
    char written[1024] = {0};
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "a normal run leaves trace.jsonl");
    size_t n = fread(written, 1, sizeof written - 1, f);
    fclose(f);
    written[n] = '\0';
    cr_assert(strncmp(written, "{\"format\":\"gclab-vmpi-trace\",", 29) == 0, "%s", written);
    const char *last = "{\"seq\":3,\"event\":\"JVM_SHUT_DOWN\",\"thread\":0}\n";
    cr_assert(n >= strlen(last) && strcmp(written + n - strlen(last), last) == 0,
              "its last line is the shutdown event: %s", written);

    DIR *d = opendir(dir);
    for (struct dirent *entry; (entry = readdir(d));) {
        char file[sizeof path + 256];
        snprintf(file, sizeof file, "%s/%s", dir, entry->d_name);
        if (entry->d_name[0] != '.') unlink(file);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- the event table agrees with VMPI_Event ------------------------------------------------------------- */

/* Each field the table lists, with what the compiler says about it. */
typedef struct ListedField {
    const char *member, *name;
    size_t offset, size, align;
    bool type_matches_kind;
} ListedField;

#define LISTED_FIELD(member, kind, name)                                                          \
    {#member, #name, offsetof(VMPI_Event, u.member.name), sizeof(VMPI_KIND_TYPE_##kind),          \
     _Alignof(VMPI_KIND_TYPE_##kind),                                                              \
     __builtin_types_compatible_p(__typeof__(((VMPI_Event *)0)->u.member.name), VMPI_KIND_TYPE_##kind)},

/* Lays the member's listed fields out as the C compiler would and checks
 * that each lands where the struct has it and that nothing is left over:
 * the table lists every field, in order, with its kind's type. */
static void check_member_layout(const char *member, size_t member_size, const ListedField *listed, size_t n) {
    size_t start = offsetof(VMPI_Event, u), end = start, align = 1;
    for (size_t i = 0; i < n; i++) {
        const ListedField *f = &listed[i];
        cr_assert(f->type_matches_kind, "%s.%s: the C type is not its kind's", member, f->name);
        end = (end + f->align - 1) / f->align * f->align;
        cr_assert_eq(f->offset, end, "%s.%s is not where the table's order puts it", member, f->name);
        end += f->size;
        if (f->align > align) align = f->align;
    }
    size_t laid_out = (end - start + align - 1) / align * align;
    cr_assert_eq(laid_out, member_size, "%s has fields the table does not list", member);
}

#define CHECK_MEMBER(member)                                                                    \
    {                                                                                           \
        static const ListedField listed[] = {VMPI_FIELDS_##member(LISTED_FIELD)};               \
        check_member_layout(#member, sizeof(((VMPI_Event *)0)->u.member), listed,                \
                            sizeof listed / sizeof listed[0]);                                  \
        checked[num_checked++] = #member;                                                       \
    }

/* OBJECT_ALLOC's call site is gclab's extension after JVMPI's members,
 * which the table, and so the trace, leaves out (vmpi.h): listed here. */
#define VMPI_FIELDS_obj_alloc_and_site(F) VMPI_FIELDS_obj_alloc(F) F(obj_alloc, CALL_SITE, site)
#define VMPI_KIND_TYPE_CALL_SITE VMPI_CallSiteID

Test(vmpi, event_table_lists_every_field_of_every_member) {
    const char *checked[32];
    size_t num_checked = 0;
    {
        static const ListedField listed[] = {VMPI_FIELDS_obj_alloc_and_site(LISTED_FIELD)};
        check_member_layout("obj_alloc", sizeof(((VMPI_Event *)0)->u.obj_alloc), listed,
                            sizeof listed / sizeof listed[0]);
        checked[num_checked++] = "obj_alloc";
    }
    CHECK_MEMBER(method) CHECK_MEMBER(method_entry2) CHECK_MEMBER(instruction)
    CHECK_MEMBER(sampled_alloc) CHECK_MEMBER(obj_free) CHECK_MEMBER(obj_move) CHECK_MEMBER(new_arena) CHECK_MEMBER(delete_arena)
    CHECK_MEMBER(thread_start) CHECK_MEMBER(class_load) CHECK_MEMBER(class_load_hook) CHECK_MEMBER(class_unload) CHECK_MEMBER(heap_dump)
    CHECK_MEMBER(object_dump) CHECK_MEMBER(monitor) CHECK_MEMBER(monitor_wait) CHECK_MEMBER(monitor_dump)
    CHECK_MEMBER(raw_monitor) CHECK_MEMBER(gc_info)
    CHECK_MEMBER(jni_globalref_alloc) CHECK_MEMBER(jni_globalref_free)
    CHECK_MEMBER(gc_phase) CHECK_MEMBER(gc_object) CHECK_MEMBER(obj_forward) CHECK_MEMBER(refcount_change)
    CHECK_MEMBER(free_cause)
    /* Every member an event names (but `none`) was checked above. */
    static const char *const named[] = {
#define MEMBER_NAME(name, code, member) #member,
        VMPI_EVENTS(MEMBER_NAME)
#undef MEMBER_NAME
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        bool found = strcmp(named[i], "none") == 0;
        for (size_t j = 0; j < num_checked && !found; j++) found = strcmp(named[i], checked[j]) == 0;
        cr_assert(found, "member %s is not checked", named[i]);
    }
}
