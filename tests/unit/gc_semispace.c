/*
 * gc_semispace.c -- unit tests of the two-space copying collector, driven
 * only through the collector interface (gc/gc.h) and the fixture's
 * miniature VM (gc_fixture.h).  Every heap here runs with --verify-heap on,
 * so each collection is also checked by the verifier before and after.
 *
 * Objects move at every collection, so tests read them again through
 * fx_roots after anything that may collect.
 */
#include <criterion/criterion.h>

#include "gc/common/verify.h"
#include "gc_fixture.h"

#define SS "semispace"

static Gc *ss_heap(size_t heap_bytes) {
    GcConfig config = fx_config(heap_bytes);
    return fx_create(SS, &config);
}

/* A heap whose every semispace holds exactly `nodes` nodes. */
static Gc *ss_heap_of_nodes(size_t nodes) { return ss_heap(2 * nodes * FX_NODE_BYTES); }

/* Is `p` within the `bytes` bytes at `start` (a semispace)? */
static bool in_range(const void *p, const void *start, size_t bytes) {
    return (uintptr_t)p >= (uintptr_t)start && (uintptr_t)p < (uintptr_t)start + bytes;
}

Test(semispace, publishes_its_constraints) {
    static const GcArenaInfo arenas[] = {{1, "semispace-A"}, {2, "semispace-B"}};
    const GcOps *ops = fx_assert_constraints(
        SS, &(GcConstraints){.name = "semispace", .moves_objects = true,
                             .barrier = GC_BARRIER_NONE, .num_arenas = 2, .arenas = arenas});
    Gc *gc = ss_heap(1 << 20);
    cr_assert_eq(gc->ops, ops);
    cr_assert_neq(gc->alloc_region, &gc_closed_region, "semispace allocates by bumping a pointer");
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 1 << 19, "from-space is half the heap");
    cr_assert(fx_all_zero(gc->alloc_region->top, 1 << 19), "fresh from-space is zero-filled");
    cr_assert_eq(gc->alloc_region->arena_id, 1);
    cr_assert_eq(gc_total_bytes(gc), 1 << 19, "objects can occupy one semispace");
    gc->ops->destroy(gc);
}

Test(semispace, odd_heap_sizes_round_down_to_aligned_semispaces) {
    Gc *gc = ss_heap(1000 + 7);
    cr_assert_eq(gc_total_bytes(gc), 496, "(1007 / 2) rounded down to 8");
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 496);
    gc->ops->destroy(gc);
    GcConfig config = fx_config(15);
    cr_assert_null(gc_ops_by_name(SS)->create(&config), "no room for even one word per semispace");
}

Test(semispace, allocation_bumps_in_from_space) {
    Gc *gc = ss_heap(1 << 20);
    uint8_t *start = gc->alloc_region->top;
    Obj *made[3];
    fx_assert_allocation_fills_headers(gc, 1, made);
    cr_assert_eq((uint8_t *)made[0], start, "the first object is at the start of from-space");
    cr_assert_eq((uint8_t *)made[1], start + FX_NODE_BYTES, "objects are laid end to end");
    cr_assert_eq((uint8_t *)made[2], start + FX_NODE_BYTES + obj_size_for(&fx_array_class, 5));
    cr_assert_eq(gc->alloc_region->top, (uint8_t *)made[2] + obj_size(made[2]));
    gc->ops->destroy(gc);
}

/* Survivors are copied in the order they are reached, not the order they
 * were allocated: here the head was allocated after its tail. */
Test(semispace, collect_copies_reachable_and_abandons_garbage) {
    Gc *gc = ss_heap(1 << 20);
    uint8_t *space_a = gc->alloc_region->top;
    fx_new_node(gc, 1, 8); /* the tail */
    fx_make_garbage(gc, 100);
    fx_new_node(gc, 0, 7); /* the head */
    gc_write_ref(gc, fx_roots[0], fx_right(fx_roots[0]), fx_roots[1]);
    fx_roots[1] = NULL; /* the tail is reachable only through the head */
    fx_make_garbage(gc, 100);
    Obj *old_head = fx_roots[0];

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2);
    cr_assert_eq(gc_used_bytes(gc), 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_moved, 2);
    cr_assert_eq(gc->stats.bytes_moved, 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_freed, 200, "the abandoned garbage counts as freed");
    cr_assert_eq(gc->stats.bytes_freed, 200 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_neq(fx_roots[0], old_head, "the root was updated to the copy");
    cr_assert(!in_range(fx_roots[0], space_a, 1 << 19), "the copy is in the other semispace");
    cr_assert_eq(*fx_value(fx_roots[0]), 7);
    cr_assert_eq(*fx_value(*fx_right(fx_roots[0])), 8);
    cr_assert_eq(gc->alloc_region->arena_id, 2, "allocation continues in semispace B");
    cr_assert_eq((uint8_t *)*fx_right(fx_roots[0]), (uint8_t *)fx_roots[0] + FX_NODE_BYTES,
                 "survivors lie end to end, the head first");
    cr_assert_eq(gc->alloc_region->top, (uint8_t *)fx_roots[0] + 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->alloc_region->limit - (uint8_t *)fx_roots[0], 1 << 19);
    cr_assert_eq(fx_roots[0]->gc_word, gc->fresh_gc_word, "copies are not marked forwarded");
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, 2);
    cr_assert_eq(heap.arena_id, 2);

    /* The next collection copies back into semispace A. */
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert(in_range(fx_roots[0], space_a, 1 << 19));
    cr_assert_eq((uint8_t *)fx_roots[0], space_a);
    cr_assert_eq(gc->alloc_region->arena_id, 1);
    cr_assert_eq(gc->stats.objects_moved, 4);
    cr_assert_eq(*fx_value(*fx_right(fx_roots[0])), 8);

    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    cr_assert_eq(gc_used_bytes(gc), 0);
    cr_assert_eq(gc->stats.objects_freed, 202);
    gc->ops->destroy(gc);
}

/* 1,000,000 nodes: a recursive copy would need that many C frames.
 * Cheney's breadth-first order copies a list in list order, so afterwards
 * its nodes lie back to back in to-space, head first. */
Test(semispace, long_chain_survives_without_recursion_in_list_order) {
    const uint64_t n = 1000000;
    Gc *gc = ss_heap(2 * (n * FX_NODE_BYTES + (1 << 20)));
    gc->config.verify = false; /* keep the test fast; checked below once */
    fx_build_list(gc, 0, 1, n);
    fx_make_garbage(gc, 1000);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.objects_moved, n);
    cr_assert_eq(gc->stats.objects_freed, 1000);
    fx_assert_list(fx_roots[0], n);
    const uint8_t *expected_at = (const uint8_t *)fx_roots[0];
    for (Obj *node = fx_roots[0]; node != NULL; node = *fx_left(node), expected_at += FX_NODE_BYTES)
        cr_assert_eq((const uint8_t *)node, expected_at, "node %llu",
                     (unsigned long long)(*fx_value(node)));
    cr_assert_eq(gc->alloc_region->top, expected_at);
    char problem[256];
    cr_assert_null(gc_check_heap(gc, problem, sizeof problem), "%s", problem);
    gc->ops->destroy(gc);
}

Test(semispace, ref_arrays_cycles_and_shared_objects_survive_once) {
    Gc *gc = ss_heap(1 << 20);
    const uint32_t len = 50;
    fx_build_cyclic_array(gc, 0, 1, len, 3);
    fx_roots[2] = fx_roots[3] = fx_roots[0]; /* one object, three root slots */
    fx_make_garbage_cycle(gc, 4, 5);

    gc_collect(gc, GC_REASON_REQUESTED);
    size_t expect_bytes = obj_size_for(&fx_array_class, len) + len * FX_NODE_BYTES;
    cr_assert_eq(gc_used_objects(gc), 1 + len, "the shared array is copied once");
    cr_assert_eq(gc_used_bytes(gc), expect_bytes);
    cr_assert_eq(gc->stats.objects_moved, 1 + len);
    cr_assert_eq(fx_roots[2], fx_roots[0], "every root slot names the one copy");
    cr_assert_eq(fx_roots[3], fx_roots[0]);
    fx_assert_cyclic_array(fx_roots[0], len);
    gc->ops->destroy(gc);
}

Test(semispace, collects_when_from_space_is_full) {
    Gc *gc = ss_heap_of_nodes(100);
    fx_assert_collects_when_full(gc, 100);
    cr_assert_eq(gc->stats.collections, 11, "one collection per semispace of garbage");
    cr_assert_eq(gc->stats.objects_freed, 99 + 10 * 99);
    cr_assert_eq(gc_total_bytes(gc), 100 * FX_NODE_BYTES);
    gc->ops->destroy(gc);
}

Test(semispace, out_of_memory_when_live_data_exceeds_a_semispace) {
    Gc *gc = ss_heap_of_nodes(64);
    cr_assert_eq(fx_fill_until_out_of_memory(gc, 0), 64, "exactly one semispace of live nodes fits");
    cr_assert_eq(gc_used_objects(gc), 64, "statistics are exact after a failed request");
    cr_assert_eq(gc_used_bytes(gc), 64 * FX_NODE_BYTES);
    cr_assert_eq(gc->alloc_region->top, gc->alloc_region->limit, "the survivors fill to-space to the last byte");
    gc->ops->destroy(gc);
}

Test(semispace, request_larger_than_a_semispace_fails_without_collecting) {
    Gc *gc = ss_heap(8192);
    fx_assert_oversized_request_fails(gc, 6000); /* fits the heap, not a semispace */
    fx_assert_oversized_request_fails(gc, 4096);
    cr_assert_not_null(gc_alloc(gc, &fx_bytes_class, 4096 - sizeof(Obj)), "one semispace exactly");
    gc->ops->destroy(gc);
}

Test(semispace, stress_collects_at_every_allocation) { fx_assert_stress_collects_every_allocation(SS); }

/* Each semispace is its budget followed by room to grow (see semispace.c):
 * at least 2 * half bytes from its start, all of them zero when free. */
Test(semispace, free_space_is_always_zero) {
    const size_t half = 64 * FX_NODE_BYTES;
    Gc *gc = ss_heap(2 * half);
    uint8_t *space_a = gc->alloc_region->top;
    fx_new_node(gc, 0, 1);
    for (int i = 0; i < 40; i++) { /* dirty garbage: non-zero values and text */
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        *fx_value(node) = UINT64_MAX;
        gc_write_ref(gc, node, fx_left(node), node);
    }
    Obj *text = gc_alloc(gc, &fx_string_class, 40);
    memset(obj_body(text), 'x', 40);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert(fx_all_zero(space_a, 2 * half), "the emptied from-space is zero again");
    uint8_t *space_b = (uint8_t *)fx_roots[0];
    cr_assert(fx_all_zero(gc->alloc_region->top, (size_t)(space_b + 2 * half - gc->alloc_region->top)),
              "the free part of the new from-space is zero");

    /* Fill B with dirty garbage until it collects back into A. */
    while (gc->stats.collections == 1) {
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        *fx_value(node) = UINT64_MAX;
    }
    cr_assert_eq((uint8_t *)fx_roots[0], space_a);
    cr_assert(fx_all_zero(space_b, 2 * half));
    cr_assert(fx_all_zero(gc->alloc_region->top, (size_t)(space_a + 2 * half - gc->alloc_region->top)));
    gc->ops->destroy(gc);
}

Test(semispace, disabled_gc_grows_past_the_budget_instead_of_collecting) {
    Gc *gc = ss_heap_of_nodes(10);
    fx_new_node(gc, 0, 5);
    fx_assert_disabled_gc_does_not_collect(gc, 15);
    cr_assert_gt(gc->alloc_region->top, gc->alloc_region->limit, "past the budget the fast path has no room");
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.arena_id, 1, "the growth is part of from-space's arena");
    cr_assert_eq(gc_used_bytes(gc), 16 * FX_NODE_BYTES);
    cr_assert_eq(gc_total_bytes(gc), 16 * FX_NODE_BYTES);
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 10 * FX_NODE_BYTES),
                   "a request larger than a semispace still fails");
    fx_make_garbage(gc, 1000); /* a hundred budgets: growth is not a fixed reserve */
    cr_assert_eq(gc->stats.collections, 0);

    fx_enable_gc(gc);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.objects_freed, 1015);
    cr_assert_eq(fx_count_heap(gc).objects, 2);
    cr_assert_eq(gc_total_bytes(gc), 10 * FX_NODE_BYTES, "back to the configured heap");
    cr_assert_leq(gc->alloc_region->top, gc->alloc_region->limit, "and back on the fast path");
    cr_assert_eq(*fx_value(fx_roots[0]), 5);
    gc->ops->destroy(gc);
}

Test(semispace, survivors_of_the_reserve_fit_in_to_space) {
    Gc *gc = ss_heap_of_nodes(10);
    gc_disable(gc);
    fx_build_list(gc, 0, 1, 15); /* 15 live nodes; a semispace's budget holds 10 */
    fx_enable_gc(gc);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc_used_objects(gc), 15, "to-space has the same room to grow");
    cr_assert_eq(gc_total_bytes(gc), 15 * FX_NODE_BYTES);
    fx_assert_list(fx_roots[0], 15);
    cr_assert_null(gc_alloc(gc, &fx_node_class, 0), "still over budget: out of memory");
    fx_assert_list(fx_roots[0], 15);

    fx_roots[0] = NULL;
    fx_make_garbage(gc, 30);
    cr_assert_eq(gc_total_bytes(gc), 10 * FX_NODE_BYTES, "back within budget");
    fx_build_list(gc, 0, 1, 10);
    fx_assert_list(fx_roots[0], 10);
    gc->ops->destroy(gc);
}

Test(semispace, write_barrier_op_is_a_plain_store) {
    Gc *gc = ss_heap(1 << 20);
    fx_assert_plain_store_barrier(gc);
    gc->ops->destroy(gc);
}

/* A copy is the whole object, byte for byte: a string with its NUL, and a
 * byte array whose length is not a multiple of OBJ_ALIGN. */
Test(semispace, strings_and_byte_arrays_are_copied_byte_for_byte) {
    Gc *gc = ss_heap(1 << 20);
    const char *text = "two-space copying";
    uint32_t text_length = (uint32_t)strlen(text);
    memcpy(obj_body(fx_roots[5] = gc_alloc(gc, &fx_string_class, text_length)), text, text_length);
    fx_make_garbage(gc, 10);
    Obj *bytes = gc_alloc(gc, &fx_bytes_class, 13);
    for (int i = 0; i < 13; i++) ((uint8_t *)obj_body(bytes))[i] = (uint8_t)(0xa0 + i);
    fx_roots[6] = bytes;
    for (int round = 0; round < 2; round++) {
        Obj *string_before = fx_roots[5], *bytes_before = fx_roots[6];
        gc_collect(gc, GC_REASON_REQUESTED);
        cr_assert_eq(gc_used_objects(gc), 2);
        cr_assert_neq(fx_roots[5], string_before, "round %d: the string moved", round);
        cr_assert_neq(fx_roots[6], bytes_before, "round %d: the byte array moved", round);
        cr_assert_eq(fx_roots[5]->length, text_length);
        cr_assert_str_eq(str_chars(fx_roots[5]), text);
        for (int i = 0; i < 13; i++) cr_assert_eq(((uint8_t *)obj_body(fx_roots[6]))[i], 0xa0 + i);
    }
    gc->ops->destroy(gc);
}

/* The golden pattern: a heap with
 *
 *     roots[0] -> a --left--> b --left--> d        roots[1] -> e
 *                  \--right-> c
 *
 * and garbage in between.  Cheney's order is the roots' order, then
 * breadth first: a, e, b, c, d (a depth-first copy would give a, b, d, c, e). */
Test(semispace, events_follow_the_mapping_row) {
    fx_record_events();
    Gc *gc = ss_heap(1 << 20);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *dead_node = gc_alloc(gc, &fx_node_class, 0);
    Obj *b = gc_alloc(gc, &fx_node_class, 0);
    Obj *c = gc_alloc(gc, &fx_node_class, 0);
    Obj *dead_array = gc_alloc(gc, &fx_array_class, 3);
    Obj *d = gc_alloc(gc, &fx_node_class, 0);
    Obj *e = fx_new_node(gc, 1, 5);
    gc_write_ref(gc, a, fx_left(a), b);
    gc_write_ref(gc, a, fx_right(a), c);
    gc_write_ref(gc, b, fx_left(b), d);
    gc_collect(gc, GC_REASON_REQUESTED);

    const int32_t node = FX_NODE_BYTES, array = (int32_t)obj_size_for(&fx_array_class, 3);
    const uint8_t *to = (const uint8_t *)fx_roots[0]; /* a's copy is the first in B */
    const FxEvent first[] = {
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = 1, .arena_name = "semispace-A"},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = 2, .arena_name = "semispace-B"},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = a, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = dead_node, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = b, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = c, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = dead_array, .size = array},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = d, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = e, .size = node},
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = a, .new_arena_id = 2, .new_obj_id = to},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = e, .new_arena_id = 2,
         .new_obj_id = to + node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = b, .new_arena_id = 2,
         .new_obj_id = to + 2 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = c, .new_arena_id = 2,
         .new_obj_id = to + 3 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = d, .new_arena_id = 2,
         .new_obj_id = to + 4 * node},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = 1},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = 1, .arena_name = "semispace-A"},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 5, .used_object_space = 5 * node,
         .total_object_space = 1 << 19},
    };
    fx_assert_events(first, sizeof first / sizeof first[0]);

    /* The next collection copies B back to A, in the same order, and
     * recreates B. */
    fx_num_events = 0;
    gc_collect(gc, GC_REASON_REQUESTED);
    const uint8_t *back = (const uint8_t *)fx_roots[0];
    const FxEvent second[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 2, .obj_id = to, .new_arena_id = 1, .new_obj_id = back},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 2, .obj_id = to + node, .new_arena_id = 1,
         .new_obj_id = back + node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 2, .obj_id = to + 2 * node, .new_arena_id = 1,
         .new_obj_id = back + 2 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 2, .obj_id = to + 3 * node, .new_arena_id = 1,
         .new_obj_id = back + 3 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 2, .obj_id = to + 4 * node, .new_arena_id = 1,
         .new_obj_id = back + 4 * node},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = 2},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = 2, .arena_name = "semispace-B"},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 5, .used_object_space = 5 * node,
         .total_object_space = 1 << 19},
    };
    fx_assert_events(second, sizeof second / sizeof second[0]);
    cr_assert_eq(back, (const uint8_t *)a, "semispace A is used again from its start");
    gc->ops->destroy(gc);
}

/* An agent may look at the heap while the collector works (say, to ask
 * about an object it was just told moved).  At each OBJECT_MOVE the heap
 * must list exactly the stream's live objects: the copies made so far and
 * the originals not yet copied, each once; at ARENA_DELETE, only the
 * survivors. */
static Gc *walking_gc;
static uint64_t walking_live, walking_survivors, walking_mismatches, walking_moves, walking_deletes;

static void walk_at_each_event(VMPI_Event *event) {
    uint64_t listed = fx_count_heap(walking_gc).objects;
    if (event->event_type == VMPI_EVENT_OBJECT_MOVE) {
        walking_moves++;
        if (listed != walking_live) walking_mismatches++;
    } else if (event->event_type == VMPI_EVENT_ARENA_DELETE) {
        walking_deletes++;
        if (listed != walking_survivors) walking_mismatches++;
    }
}

Test(semispace, walk_heap_is_exact_in_the_middle_of_a_collection) {
    VMPI_Interface *iface = vmpi_register_listener(walk_at_each_event);
    cr_assert_not_null(iface);
    cr_assert_eq(iface->EnableEvent(VMPI_EVENT_OBJECT_MOVE, NULL), VMPI_OK);
    cr_assert_eq(iface->EnableEvent(VMPI_EVENT_ARENA_DELETE, NULL), VMPI_OK);
    walking_gc = ss_heap(1 << 20);
    fx_build_list(walking_gc, 0, 1, 20);
    fx_make_garbage(walking_gc, 30);
    walking_live = 20 + 30; /* nothing dies before ARENA_DELETE, so a move keeps the count */
    walking_survivors = 20;
    gc_collect(walking_gc, GC_REASON_REQUESTED);
    cr_assert_eq(walking_moves, 20);
    cr_assert_eq(walking_deletes, 1);
    cr_assert_eq(walking_mismatches, 0);
    walking_gc->ops->destroy(walking_gc);
}

Test(semispace, destroy_posts_no_events) { fx_assert_destroy_posts_no_events(SS, 1 << 20); }
