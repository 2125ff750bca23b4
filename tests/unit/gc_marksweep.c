/*
 * gc_marksweep.c -- unit tests of the mark-and-sweep collector, driven only
 * through the collector interface (gc/gc.h) and the fixture's miniature VM
 * (gc_fixture.h).  Every heap here runs with --verify-heap on, so each
 * collection is also checked by the verifier before and after -- which
 * includes that gc_used_objects(gc) / used_bytes match what walk_heap
 * visits, so the fixture's walk-based counts check the statistics too.
 *
 * What every collector must do is checked by the fixture's shared checks;
 * what is special about this one, and tested here beyond them: nothing
 * moves, survivors are unmarked again without being written (the flipping
 * mark value), and a collection's events are one OBJECT_FREE per dead
 * object in allocation order.
 */
#include <criterion/criterion.h>

#include "gc_fixture.h"

#define MS "marksweep"

static Gc *ms_heap(size_t heap_bytes) {
    GcConfig config = fx_config(heap_bytes);
    return fx_create(MS, &config);
}

Test(marksweep, publishes_its_constraints) {
    static const GcArenaInfo arenas[] = {{1, "heap"}};
    const GcOps *ops = fx_assert_constraints(
        MS, &(GcConstraints){.name = "marksweep", .moves_objects = false, .barrier = GC_BARRIER_NONE,
                             .num_arenas = 1, .arenas = arenas});
    Gc *gc = ms_heap(1 << 20);
    cr_assert_eq(gc->ops, ops);
    cr_assert_eq(gc->alloc_region, &gc_closed_region, "marksweep has no bump fast path");
    cr_assert_eq(gc->barrier, GC_BARRIER_NONE);
    cr_assert_eq(gc_total_bytes(gc), 1 << 20);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

Test(marksweep, allocation_fills_header_and_zeroes_body) {
    Gc *gc = ms_heap(1 << 20);
    Obj *made[3];
    fx_assert_allocation_fills_headers(gc, 1, made);
    size_t expect = FX_NODE_BYTES + obj_size_for(&fx_array_class, 5) + obj_size_for(&fx_bytes_class, 13);
    cr_assert_eq(gc_used_bytes(gc), expect);
    gc->ops->destroy(gc);
}

Test(marksweep, collect_frees_unreachable_and_keeps_reachable) {
    Gc *gc = ms_heap(1 << 20);
    fx_new_node(gc, 0, 7);
    fx_make_garbage(gc, 100);
    fx_new_node(gc, 1, 8);
    gc_write_ref(gc, fx_roots[0], fx_right(fx_roots[0]), fx_roots[1]);
    fx_roots[1] = NULL; /* reachable only through roots[0].right */
    fx_make_garbage(gc, 100);
    cr_assert_eq(gc_used_objects(gc), 202);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2);
    cr_assert_eq(gc_used_bytes(gc), 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_freed, 200);
    cr_assert_eq(gc->stats.bytes_freed, 200 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_eq(*fx_value(fx_roots[0]), 7);
    cr_assert_eq(*fx_value(*fx_right(fx_roots[0])), 8);
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, 2);

    /* Surviving objects are unmarked again for the next collection. */
    cr_assert_eq(fx_roots[0]->gc_word, gc->fresh_gc_word);
    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    cr_assert_eq(gc_used_bytes(gc), 0);
    gc->ops->destroy(gc);
}

Test(marksweep, long_chain_survives_without_recursion) {
    /* 1,000,000 nodes: recursive marking would need that many C frames. */
    const uint64_t n = 1000000;
    Gc *gc = ms_heap(n * FX_NODE_BYTES + (1 << 20));
    gc->config.verify = false; /* keep the test fast; verified below once */
    fx_build_list(gc, 0, 1, n);
    fx_make_garbage(gc, 1000);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), n);
    cr_assert_eq(gc_used_bytes(gc), n * FX_NODE_BYTES);
    fx_assert_list(fx_roots[0], n);
    gc->ops->destroy(gc);
}

Test(marksweep, ref_arrays_and_cycles_survive) {
    Gc *gc = ms_heap(1 << 20);
    const uint32_t len = 50;
    fx_build_cyclic_array(gc, 0, 1, len, 3);
    fx_make_garbage_cycle(gc, 2, 3); /* an unreachable cycle must be freed too */
    Obj *array = fx_roots[0];

    gc_collect(gc, GC_REASON_REQUESTED);
    size_t expect_bytes = obj_size_for(&fx_array_class, len) + len * FX_NODE_BYTES;
    cr_assert_eq(gc_used_objects(gc), 1 + len);
    cr_assert_eq(gc_used_bytes(gc), expect_bytes);
    cr_assert_eq(fx_roots[0], array, "nothing moves");
    fx_assert_cyclic_array(fx_roots[0], len);
    gc->ops->destroy(gc);
}

Test(marksweep, collects_when_the_budget_is_exhausted) {
    Gc *gc = ms_heap(100 * FX_NODE_BYTES); /* room for exactly 100 nodes */
    fx_assert_collects_when_full(gc, 100);
    gc->ops->destroy(gc);
}

Test(marksweep, out_of_memory_when_live_data_exceeds_the_heap) {
    Gc *gc = ms_heap(64 * FX_NODE_BYTES);
    cr_assert_eq(fx_fill_until_out_of_memory(gc, 0), 64, "exactly 64 live nodes fit");
    cr_assert_eq(gc_used_objects(gc), 64);
    gc->ops->destroy(gc);
}

Test(marksweep, request_larger_than_the_heap_fails_without_collecting) {
    Gc *gc = ms_heap(4096);
    fx_assert_oversized_request_fails(gc, 4096);
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

Test(marksweep, stress_collects_at_every_allocation) { fx_assert_stress_collects_every_allocation(MS); }

Test(marksweep, disabled_gc_grows_past_the_budget_instead_of_collecting) {
    Gc *gc = ms_heap(10 * FX_NODE_BYTES);
    fx_assert_disabled_gc_does_not_collect(gc, 30);
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(gc_used_objects(gc), 30);
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 10 * FX_NODE_BYTES),
                   "a request larger than the whole heap still fails");

    fx_enable_gc(gc);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc_used_objects(gc), 1);
    cr_assert_eq(gc_total_bytes(gc), 10 * FX_NODE_BYTES, "back to the configured heap");
    gc->ops->destroy(gc);
}

Test(marksweep, write_barrier_op_is_a_plain_store) {
    Gc *gc = ms_heap(1 << 20);
    fx_assert_plain_store_barrier(gc);
    gc->ops->destroy(gc);
}

Test(marksweep, strings_survive_with_their_bytes) {
    Gc *gc = ms_heap(1 << 20);
    const char *text = "mark and sweep";
    Obj *s = gc_alloc(gc, &fx_string_class, (uint32_t)strlen(text));
    cr_assert_not_null(s);
    memcpy(obj_body(s), text, strlen(text));
    fx_roots[5] = s;
    fx_make_garbage(gc, 10);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1);
    cr_assert_str_eq(str_chars(fx_roots[5]), text);
    gc->ops->destroy(gc);
}

Test(marksweep, events_follow_the_mapping_row) {
    fx_record_events();
    Gc *gc = ms_heap(1 << 20);
    Obj *a = fx_new_node(gc, 0, 1);               /* live: a root */
    Obj *b = gc_alloc(gc, &fx_node_class, 0);     /* dead */
    Obj *c = gc_alloc(gc, &fx_node_class, 0);     /* live: a.left */
    Obj *d = gc_alloc(gc, &fx_array_class, 3);    /* dead */
    gc_write_ref(gc, a, fx_left(a), c);
    size_t array_bytes = obj_size_for(&fx_array_class, 3);
    gc_collect(gc, GC_REASON_REQUESTED);

    const FxEvent *e = fx_events;
    cr_assert_eq(fx_num_events, 9, "got %d events", fx_num_events);
    cr_assert_eq(e[0].type, VMPI_EVENT_ARENA_NEW);
    cr_assert_eq(e[0].arena_id, 1);
    cr_assert_str_eq(e[0].arena_name, "heap");
    const Obj *allocated[4] = {a, b, c, d};
    const size_t sizes[4] = {FX_NODE_BYTES, FX_NODE_BYTES, FX_NODE_BYTES, array_bytes};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(e[1 + i].type, VMPI_EVENT_OBJECT_ALLOC, "event %d", 1 + i);
        cr_assert_eq(e[1 + i].arena_id, 1);
        cr_assert_eq(e[1 + i].obj_id, allocated[i]);
        cr_assert_eq(e[1 + i].size, (int32_t)sizes[i]);
    }
    cr_assert_eq(e[5].type, VMPI_EVENT_GC_START);
    cr_assert_eq(e[6].type, VMPI_EVENT_OBJECT_FREE);
    cr_assert_eq(e[6].obj_id, b);
    cr_assert_eq(e[7].type, VMPI_EVENT_OBJECT_FREE);
    cr_assert_eq(e[7].obj_id, d);
    cr_assert_eq(e[8].type, VMPI_EVENT_GC_FINISH);
    cr_assert_eq(e[8].used_objects, 2);
    cr_assert_eq(e[8].used_object_space, 2 * FX_NODE_BYTES);
    cr_assert_eq(e[8].total_object_space, 1 << 20);
    gc->ops->destroy(gc);
}

Test(marksweep, destroy_posts_no_events) { fx_assert_destroy_posts_no_events(MS, 1 << 20); }
