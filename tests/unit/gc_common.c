/*
 * gc_common.c -- unit tests of the machinery every collector shares
 * (gc/common/): the registry, the OOM message, the memory layer, the mark
 * stack, tracing, the collection bracket and the heap verifier.
 *
 * The bracket and the verifier are collector-independent, so they are
 * tested against a fake collector whose "heap" is whatever objects the test
 * lays out by hand (which is also the only way to build overlapping or
 * duplicated objects); the verifier is also run against real marksweep
 * heaps that a test corrupts on purpose.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gc/common/collect.h"
#include "gc/common/heapsize.h"
#include "gc/common/objlist.h"
#include "gc/common/region.h"
#include "gc/common/memory.h"
#include "gc/common/trace.h"
#include "gc/common/verify.h"
#include "gc_fixture.h"

/* ---- a fake collector: the test decides what walk_heap reports ------------- */

typedef struct FakeObject {
    Obj *obj;
    uint32_t arena_id;
} FakeObject;

#define FAKE_MAX_OBJECTS 64
typedef struct FakeGc {
    Gc gc;
    FakeObject objects[FAKE_MAX_OBJECTS];
    int num_objects;
} FakeGc;

static const GcArenaInfo fake_arenas[] = {{1, "one"}, {2, "two"}};
static const GcConstraints fake_constraints = {
    .name = "fake", .description = "test double", .num_arenas = 2, .arenas = fake_arenas,
};

static void fake_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    FakeGc *fake = (FakeGc *)gc;
    for (int i = 0; i < fake->num_objects; i++) visit(fake->objects[i].obj, fake->objects[i].arena_id, ctx);
}

static const GcOps fake_ops = {.constraints = &fake_constraints, .walk_heap = fake_walk_heap};

/* Object storage for the fake heap: 8-byte aligned, zeroed per test. */
static uint64_t fake_storage[1024];

static FakeGc *fake_gc(void) {
    static FakeGc fake;
    memset(&fake, 0, sizeof fake);
    memset(fake_storage, 0, sizeof fake_storage);
    fake.gc.ops = &fake_ops;
    fake.gc.config = fx_config(sizeof fake_storage);
    fake.gc.stats.capacity_bytes = sizeof fake_storage;
    return &fake;
}

/* Lays a node out at byte `offset` of the storage and lists it (stats too). */
static Obj *fake_node(FakeGc *fake, size_t offset, uint32_t arena_id) {
    Obj *obj = (Obj *)((uint8_t *)fake_storage + offset);
    obj->cls = &fx_node_class;
    fake->objects[fake->num_objects++] = (FakeObject){obj, arena_id};
    fake->gc.stats.objects_allocated++;
    fake->gc.stats.bytes_allocated += obj_size(obj);
    return obj;
}

static void assert_problem(Gc *gc, const char *expected) {
    char buf[512];
    const char *problem = gc_check_heap(gc, buf, sizeof buf);
    cr_assert_not_null(problem, "the verifier missed: %s", expected);
    cr_assert(strstr(problem, expected) != NULL, "expected \"%s\" in: %s", expected, problem);
}

static void assert_no_problem(Gc *gc) {
    char buf[512];
    const char *problem = gc_check_heap(gc, buf, sizeof buf);
    cr_assert_null(problem, "unexpected: %s", problem);
}

/* ---- registry and OOM ---------------------------------------------------------- */

Test(registry, finds_collectors_by_name) {
    int count = 0;
    for (const GcOps *const *ops = gc_all_collectors; *ops != NULL; ops++) {
        cr_assert_eq(gc_ops_by_name((*ops)->constraints->name), *ops);
        count++;
    }
    cr_assert_geq(count, 1);
    cr_assert_not_null(gc_ops_by_name(GC_DEFAULT_COLLECTOR));
    cr_assert_not_null(gc_ops_by_name("marksweep"));
    cr_assert_null(gc_ops_by_name("no-such-collector"));
    cr_assert_null(gc_ops_by_name(""));
}

Test(oom, message_names_heap_request_and_collector) {
    FakeGc *fake = fake_gc();
    fake->gc.config.heap_bytes = 1048576;
    char message[256];
    gc_describe_oom(&fake->gc, 24, message, sizeof message);
    cr_assert(strncmp(message, "out of memory: ", 15) == 0, "%s", message);
    cr_assert(strstr(message, "maximum heap 1 MiB reached") != NULL, "%s", message);
    cr_assert(strstr(message, "raise it with --heap=SIZE (or -Xmx)") != NULL, "%s", message);
    cr_assert(strstr(message, "request of 24 bytes") != NULL, "%s", message);
    cr_assert(strstr(message, "(fake") != NULL, "%s", message);
    cr_assert(strchr(message, '\n') == NULL, "one line");
}

/* ---- heap sizing (heapsize.h) ------------------------------------------------------ */

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* Growth: after a collection at least half of the heap is free for the
 * live data and the pending request. */
Test(heapsize, grows_so_that_half_is_free) {
    size_t capacity = gc_heap_size_for(MIB, 900 * KIB, 100 * KIB, MIB, 64 * MIB);
    cr_assert_eq(capacity, 2000 * KIB, "%zu", capacity);
    cr_assert_eq(capacity % OBJ_ALIGN, 0);
}

/* Shrinking: at most 75% free, never below the floor. */
Test(heapsize, shrinks_so_that_at_most_three_quarters_are_free) {
    size_t capacity = gc_heap_size_for(64 * MIB, 3 * MIB, 0, MIB, 64 * MIB);
    cr_assert_eq(capacity, 12 * MIB);
    cr_assert_eq(gc_heap_size_for(64 * MIB, 10 * KIB, 0, MIB, 64 * MIB), MIB, "the floor");
}

/* Between the bounds the size stays, so a wobbling live set does not
 * resize the heap at every collection. */
Test(heapsize, keeps_a_size_between_the_bounds) {
    cr_assert_eq(gc_heap_size_for(8 * MIB, 3 * MIB, 0, MIB, 64 * MIB), 8 * MIB);
    cr_assert_eq(gc_heap_size_for(8 * MIB, 4 * MIB, 0, MIB, 64 * MIB), 8 * MIB);
}

/* The ceiling wins over growth: what does not fit is out of memory. */
Test(heapsize, never_exceeds_the_ceiling) {
    cr_assert_eq(gc_heap_size_for(MIB, 60 * MIB, 8 * MIB, MIB, 64 * MIB), 64 * MIB);
    cr_assert_eq(gc_heap_size_for(MIB, SIZE_MAX - 8, 64, MIB, 64 * MIB), 64 * MIB, "no overflow");
}

/* -Xms as a share of the maximum; none given: a fixed heap. */
Test(heapsize, floor_is_the_initial_heap_in_the_collectors_share) {
    GcConfig config = {.heap_bytes = 64 * MIB, .initial_heap_bytes = 4 * MIB};
    cr_assert_eq(gc_heap_floor(&config, 64 * MIB), 4 * MIB);
    cr_assert_eq(gc_heap_floor(&config, 32 * MIB), 2 * MIB, "a semispace: half of each");
    config.initial_heap_bytes = 0;
    cr_assert_eq(gc_heap_floor(&config, 32 * MIB), 32 * MIB);
    config.initial_heap_bytes = 64 * MIB;
    cr_assert_eq(gc_heap_floor(&config, 64 * MIB), 64 * MIB, "-Xms equal to -Xmx");
}

Test(heapsize, default_maximum_is_a_quarter_of_physical_memory) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t quarter = (size_t)pages / 4 * (size_t)page;
    size_t max = gc_heap_default_max(64 * KIB);
    cr_assert(max == quarter || max == GC_REGION_MAX_BYTES / 2 || max == gc_memory_region_room(), "%zu", max);
    cr_assert_leq(max, quarter);
    cr_assert_geq(gc_heap_default_max(SIZE_MAX / 2), SIZE_MAX / 2, "at least the minimum");
}

/* ---- memory layer ------------------------------------------------------------------ */

Test(memory, objects_are_zeroed_and_reusable) {
    GcMemory memory;
    cr_assert(gc_memory_init(&memory));
    for (int round = 0; round < 2; round++) {
        uint8_t *blocks[100];
        for (size_t i = 0; i < 100; i++) {
            size_t bytes = 8 + 8 * i;
            blocks[i] = gc_memory_alloc_zeroed(&memory, bytes);
            cr_assert_not_null(blocks[i]);
            cr_assert_eq((uintptr_t)blocks[i] % OBJ_ALIGN, 0);
            for (size_t b = 0; b < bytes; b++) cr_assert_eq(blocks[i][b], 0, "round %d block %zu", round, i);
            memset(blocks[i], 0xAB, bytes); /* dirty it: round 2 must see zeroes again */
        }
        for (size_t i = 0; i < 100; i++) gc_memory_free(&memory, blocks[i], 8 + 8 * i);
    }
    gc_memory_release(&memory);
}

Test(memory, trim_bounds_the_free_pool) {
    GcMemory memory;
    cr_assert(gc_memory_init(&memory));
    void *small[10], *large[10];
    for (int i = 0; i < 10; i++) {
        small[i] = gc_memory_alloc_zeroed(&memory, 16);
        large[i] = gc_memory_alloc_zeroed(&memory, 200);
    }
    for (int i = 0; i < 10; i++) {
        gc_memory_free(&memory, small[i], 16);
        gc_memory_free(&memory, large[i], 200);
    }
#if GCLAB_PLAIN_MALLOC
    cr_assert_eq(memory.pooled_bytes, 0, "no pool under plain malloc");
#else
    cr_assert_eq(memory.pooled_bytes, 10 * 16 + 10 * 200);
    gc_memory_trim(&memory, 1000);
    cr_assert_eq(memory.pooled_bytes, 10 * 16 + 4 * 200, "largest blocks go first, until <= 1000");
    /* A pooled block is reused for a request of its size. */
    void *again = gc_memory_alloc_zeroed(&memory, 16);
    cr_assert_eq(again, small[9]);
    gc_memory_free(&memory, again, 16);
    gc_memory_trim(&memory, 0);
    cr_assert_eq(memory.pooled_bytes, 0);
    for (size_t n = 0; n < sizeof memory.free_pool / sizeof memory.free_pool[0]; n++)
        cr_assert_null(memory.free_pool[n]);
#endif
    gc_memory_release(&memory);
}

Test(memory, regions_are_zeroed) {
    GcMemory memory;
    cr_assert(gc_memory_init(&memory));
    const size_t bytes = 8u << 20;
    uint8_t *region = gc_memory_region_alloc(&memory, bytes);
    cr_assert_not_null(region);
    cr_assert_eq(region[0], 0);
    cr_assert_eq(region[bytes / 2], 0);
    cr_assert_eq(region[bytes - 1], 0);
    memset(region, 1, bytes); /* all of it is writable */
    gc_memory_region_free(&memory, region, bytes);
    gc_memory_release(&memory);
}

Test(memory, released_arenas_are_recycled) {
    /* jemalloc has a few thousand arena indexes; a release that failed to
     * destroy its arena would run out long before 6000 heaps. */
    for (int i = 0; i < 6000; i++) {
        GcMemory memory;
        cr_assert(gc_memory_init(&memory), "heap %d", i);
        void *block = gc_memory_alloc_zeroed(&memory, 64);
        cr_assert_not_null(block);
        gc_memory_free(&memory, block, 64);
        gc_memory_release(&memory);
    }
}

Test(memory, heaps_have_separate_arenas) {
    GcMemory a, b;
    cr_assert(gc_memory_init(&a));
    cr_assert(gc_memory_init(&b));
#if !GCLAB_PLAIN_MALLOC
    cr_assert_neq(a.arena, b.arena);
#endif
    void *x = gc_memory_alloc_zeroed(&a, 64);
    void *y = gc_memory_alloc_zeroed(&b, 64);
    cr_assert_not_null(x);
    cr_assert_not_null(y);
    gc_memory_free(&a, x, 64);
    gc_memory_free(&b, y, 64);
    gc_memory_release(&b);
    gc_memory_release(&a);
}

/* ---- object lists (the mark stack) ---------------------------------------------------------------------- */

Test(objlist, grows_and_pops_in_lifo_order) {
    GcMarkStack stack;
    gc_objlist_init(&stack);
    cr_assert_null(gc_objlist_pop(&stack));
    static Obj objects[3];
    const size_t n = 100000;
    for (size_t i = 0; i < n; i++) gc_objlist_push(&stack, &objects[i % 3]);
    cr_assert_eq(stack.count, n);
    cr_assert_geq(stack.capacity, n);
    for (size_t i = n; i-- > 0;) cr_assert_eq(gc_objlist_pop(&stack), &objects[i % 3]);
    cr_assert_null(gc_objlist_pop(&stack));
    gc_objlist_free(&stack);
    cr_assert_null(stack.items);
}

/* ---- tracing ---------------------------------------------------------------------------- */

static bool test_try_mark(Obj *obj, void *ctx) {
    int *marked = ctx;
    if (obj->gc_word) return false;
    obj->gc_word = 1;
    (*marked)++;
    return true;
}

Test(trace, marks_exactly_what_the_roots_reach) {
    FakeGc *fake = fake_gc();
    /* 0 -> 1 -> 2 -> 0 (a cycle from a root), 3 -> 1 (unreachable), 4 alone. */
    Obj *n[5];
    for (int i = 0; i < 5; i++) n[i] = fake_node(fake, 64 * (size_t)i, 1);
    *fx_left(n[0]) = n[1];
    *fx_right(n[1]) = n[2];
    *fx_left(n[2]) = n[0];
    *fx_left(n[3]) = n[1];
    fx_roots[7] = n[0];
    fx_roots[9] = n[2]; /* a second root to an already reached object */

    GcMarkStack stack;
    gc_objlist_init(&stack);
    int marked = 0;
    gc_trace_mark_reachable(&fake->gc, &stack, test_try_mark, &marked);
    cr_assert_eq(marked, 3);
    cr_assert_eq(n[0]->gc_word, 1);
    cr_assert_eq(n[1]->gc_word, 1);
    cr_assert_eq(n[2]->gc_word, 1);
    cr_assert_eq(n[3]->gc_word, 0);
    cr_assert_eq(n[4]->gc_word, 0);
    cr_assert_eq(stack.count, 0, "the stack is drained");
    gc_objlist_free(&stack);
}

static void count_slot(Obj **slot, void *ctx) {
    (void)slot;
    (*(int *)ctx)++;
}

Test(trace, visits_every_root_and_reference_slot) {
    FakeGc *fake = fake_gc();
    int roots = 0;
    gc_visit_roots(&fake->gc, count_slot, &roots);
    cr_assert_eq(roots, FX_NUM_ROOTS, "null root slots are visited too");

    fake->gc.config.roots.enumerate = NULL;
    roots = 0;
    gc_visit_roots(&fake->gc, count_slot, &roots);
    cr_assert_eq(roots, 0, "no enumerator, no roots");

    Obj *node = fake_node(fake, 0, 1);
    int slots = 0;
    gc_visit_ref_slots(node, count_slot, &slots);
    cr_assert_eq(slots, 2, "a node has two reference fields");
}

/* ---- the collection bracket ------------------------------------------------------------------ */

Test(collect, bracket_counts_logs_and_posts_start_and_finish) {
    fx_record_events();
    FakeGc *fake = fake_gc();
    Gc *gc = &fake->gc;
    char *log_text = NULL;
    size_t log_size = 0;
    gc->config.log = open_memstream(&log_text, &log_size);
    cr_assert_not_null(gc->config.log);
    gc->config.verify = false; /* the fake's stats are set by hand below */
    gc->stats.objects_allocated = 1824;
    gc->stats.bytes_allocated = 59802;
    gc->stats.capacity_bytes = 1048576;

    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, GC_REASON_ALLOC);
    cr_assert_eq(fx_num_events, 1);
    cr_assert_eq(fx_events[0].type, VMPI_EVENT_GC_START);
    gc->stats.objects_freed = 1824 - 310;
    gc->stats.bytes_freed = 59802 - 10138;
    gc_collection_end(gc, &collection);

    cr_assert_eq(fx_num_events, 2);
    cr_assert_eq(fx_events[1].type, VMPI_EVENT_GC_FINISH);
    cr_assert_eq(fx_events[1].used_objects, 310);
    cr_assert_eq(fx_events[1].used_object_space, 10138);
    cr_assert_eq(fx_events[1].total_object_space, 1048576);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_eq(gc->stats.minor_collections, 0);
    cr_assert_eq(gc->stats.total_pause_ns, gc->stats.max_pause_ns);

    collection = gc_collection_begin(gc, GC_COLLECTION_MINOR, GC_REASON_STRESS);
    gc_collection_end(gc, &collection);
    collection = gc_collection_begin(gc, GC_COLLECTION_CYCLE, GC_REASON_REQUESTED);
    gc_collection_end(gc, &collection);
    cr_assert_eq(gc->stats.collections, 3);
    cr_assert_eq(gc->stats.minor_collections, 1);
    cr_assert_eq(gc->stats.cycle_collections, 1);
    cr_assert_geq(gc->stats.total_pause_ns, gc->stats.max_pause_ns);

    fclose(gc->config.log);
    char line1[256], line2[256], line3[256];
    cr_assert_eq(sscanf(log_text, "%255[^\n]\n%255[^\n]\n%255[^\n]", line1, line2, line3), 3, "%s",
                 log_text);
    double pause;
    cr_assert_eq(sscanf(line1,
                        "[gc 1] fake major (alloc): 1824 -> 310 objects, 58.4 KiB -> 9.9 KiB of "
                        "1024.0 KiB, pause %lf ms",
                        &pause),
                 1, "%s", line1);
    cr_assert(strncmp(line2, "[gc 2] fake minor (stress): 310 -> 310 objects", 46) == 0, "%s", line2);
    cr_assert(strncmp(line3, "[gc 3] fake cycle (requested):", 30) == 0, "%s", line3);
    free(log_text);
}

/* ---- the verifier on a fake heap ---------------------------------------------------------------- */

Test(verify, accepts_a_consistent_heap) {
    FakeGc *fake = fake_gc();
    Obj *a = fake_node(fake, 0, 1);
    Obj *b = fake_node(fake, 40, 2);
    *fx_left(a) = b;
    *fx_right(b) = a;
    fx_roots[0] = a;
    assert_no_problem(&fake->gc);
}

Test(verify, catches_overlapping_and_duplicate_objects) {
    FakeGc *fake = fake_gc();
    fake_node(fake, 0, 1);
    fake_node(fake, 32, 1); /* a node is 40 bytes */
    assert_problem(&fake->gc, "objects overlap");

    fake = fake_gc();
    Obj *a = fake_node(fake, 0, 1);
    fake->objects[fake->num_objects++] = (FakeObject){a, 1};
    fake->gc.stats.objects_allocated++;
    fake->gc.stats.bytes_allocated += FX_NODE_BYTES;
    assert_problem(&fake->gc, "listed twice");
}

Test(verify, catches_unknown_arenas_and_classes) {
    FakeGc *fake = fake_gc();
    fake_node(fake, 0, 3);
    assert_problem(&fake->gc, "arena 3");

    fake = fake_gc();
    Obj *a = fake_node(fake, 0, 1);
    static RtClass stranger = {.name = "Stranger", .kind = CLASS_INSTANCE};
    a->cls = &stranger;
    assert_problem(&fake->gc, "no known class");

    fake = fake_gc();
    a = fake_node(fake, 0, 1);
    a->cls = NULL;
    assert_problem(&fake->gc, "no known class");
}

Test(verify, catches_insane_sizes_and_unterminated_strings) {
    FakeGc *fake = fake_gc();
    Obj *bytes = fake_node(fake, 0, 1);
    bytes->cls = &fx_bytes_class;
    bytes->length = 1u << 30; /* far larger than the heap */
    assert_problem(&fake->gc, "not sane");

    fake = fake_gc();
    Obj *s = fake_node(fake, 0, 1);
    s->cls = &fx_string_class;
    s->length = 3;
    memcpy(obj_body(s), "abcdefgh", 8);
    fake->gc.stats.bytes_allocated = obj_size(s);
    assert_problem(&fake->gc, "NUL");
}

Test(verify, catches_bad_references_and_roots) {
    FakeGc *fake = fake_gc();
    Obj *a = fake_node(fake, 0, 1);
    Obj *b = fake_node(fake, 40, 1);
    *fx_right(a) = (Obj *)((uint8_t *)b + 8);
    assert_problem(&fake->gc, "reference points into the middle of object");
    assert_problem(&fake->gc, "slot 1");

    *fx_right(a) = (Obj *)&fake_storage[1000];
    assert_problem(&fake->gc, "reference points outside the heap");

    *fx_right(a) = b;
    fx_roots[4] = (Obj *)&fake_storage[1000];
    assert_problem(&fake->gc, "root points outside the heap (root 4");
}

Test(verify, catches_statistics_that_disagree) {
    FakeGc *fake = fake_gc();
    fake_node(fake, 0, 1);
    fake->gc.stats.objects_allocated = 2;
    assert_problem(&fake->gc, "statistics say 2 objects");

    fake = fake_gc();
    fake_node(fake, 0, 1);
    fake->gc.stats.bytes_freed = 8;
    assert_problem(&fake->gc, "statistics say 1 objects of 32 bytes");
}

/* ---- the verifier on real marksweep heaps ---------------------------------------------------------- */

static Gc *small_marksweep(void) {
    GcConfig config = fx_config(1 << 20);
    Gc *gc = fx_create("marksweep", &config);
    fx_build_list(gc, 0, 1, 10);
    fx_make_garbage(gc, 10);
    return gc;
}

Test(verify, passes_a_marksweep_heap_and_catches_a_corrupted_slot) {
    Gc *gc = small_marksweep();
    assert_no_problem(gc);
    gc_collect(gc, GC_REASON_REQUESTED); /* verifies before and after */
    assert_no_problem(gc);

    /* A dangling pointer: a freed block, as a missing mark would leave. */
    Obj *dangling = gc_alloc(gc, &fx_node_class, 0);
    gc_collect(gc, GC_REASON_REQUESTED);
    Obj *second = *fx_left(fx_roots[0]);
    *fx_right(second) = dangling;
    assert_problem(gc, "slot 1");
    *fx_right(second) = NULL;
    assert_no_problem(gc);

    gc->stats.bytes_allocated += 8;
    assert_problem(gc, "statistics");
    gc->stats.bytes_allocated -= 8;
    gc->ops->destroy(gc);
}

Test(verify, exits_with_status_3_on_a_corrupt_heap, .exit_code = GC_VERIFY_EXIT_STATUS,
     .init = cr_redirect_stderr) {
    Gc *gc = small_marksweep();
    fx_roots[2] = (Obj *)&fake_storage[0];
    gc_collect(gc, GC_REASON_REQUESTED); /* --verify-heap is on in the fixture */
    cr_assert_fail("the collection should not have returned");
}
