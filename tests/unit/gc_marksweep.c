/*
 * gc_marksweep.c -- unit tests of the mark-and-sweep collector, driven only
 * through the collector interface (gc/gc.h) and the fixture's miniature VM
 * (gc_fixture.h).  Every heap here runs with --verify-heap on, so each
 * collection is also checked by the verifier before and after.
 */
#include <criterion/criterion.h>

#include "gc_fixture.h"

#define MS "marksweep"

static Gc *ms_heap(size_t heap_bytes) {
    GcConfig config = fx_config(heap_bytes);
    return fx_create(MS, &config);
}

Test(marksweep, publishes_its_constraints) {
    const GcOps *ops = gc_ops_by_name(MS);
    cr_assert_not_null(ops);
    const GcConstraints *c = ops->constraints;
    cr_assert_str_eq(c->name, "marksweep");
    cr_assert(!c->moves_objects);
    cr_assert_eq(c->barrier, GC_BARRIER_NONE);
    cr_assert_eq(c->num_arenas, 1);
    cr_assert_eq(c->arenas[0].arena_id, 1);
    cr_assert_str_eq(c->arenas[0].name, "heap");

    Gc *gc = ms_heap(1 << 20);
    cr_assert_eq(gc->ops, ops);
    cr_assert_null(gc->bump_ptr, "marksweep has no bump fast path");
    cr_assert_null(gc->bump_limit);
    cr_assert_eq(gc->barrier, GC_BARRIER_NONE);
    cr_assert_eq(gc->stats.total_bytes, 1 << 20);
    cr_assert_eq(gc->stats.used_objects, 0);
    gc->ops->destroy(gc);
}

Test(marksweep, allocation_fills_header_and_zeroes_body) {
    Gc *gc = ms_heap(1 << 20);
    Obj *node = gc_alloc(gc, &fx_node_class, 0);
    cr_assert_not_null(node);
    cr_assert_eq(node->cls, &fx_node_class);
    cr_assert_eq(node->length, 0);
    cr_assert_eq(node->gc_word, gc->fresh_gc_word);
    cr_assert_null(*fx_left(node));
    cr_assert_null(*fx_right(node));
    cr_assert_eq(*fx_value(node), 0);

    Obj *array = gc_alloc(gc, &fx_array_class, 5);
    cr_assert_not_null(array);
    cr_assert_eq(array->cls, &fx_array_class);
    cr_assert_eq(array->length, 5);
    size_t count;
    Obj **slots = obj_ref_slots(array, &count);
    cr_assert_eq(count, 5);
    for (size_t i = 0; i < count; i++) cr_assert_null(slots[i]);

    Obj *bytes = gc_alloc(gc, &fx_bytes_class, 13);
    cr_assert_not_null(bytes);
    cr_assert_eq(bytes->length, 13);
    for (int i = 0; i < 13; i++) cr_assert_eq(((uint8_t *)obj_body(bytes))[i], 0);

    size_t expect = FX_NODE_BYTES + obj_size_for(&fx_array_class, 5) + obj_size_for(&fx_bytes_class, 13);
    cr_assert_eq(gc->stats.used_objects, 3);
    cr_assert_eq(gc->stats.used_bytes, expect);
    cr_assert_eq(gc->stats.objects_allocated, 3);
    cr_assert_eq(gc->stats.bytes_allocated, expect);
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, 3);
    cr_assert_eq(heap.bytes, expect);
    cr_assert_eq(heap.arena_id, 1);
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
    cr_assert_eq(gc->stats.used_objects, 202);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.used_objects, 2);
    cr_assert_eq(gc->stats.used_bytes, 2 * FX_NODE_BYTES);
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
    cr_assert_eq(gc->stats.used_objects, 0);
    cr_assert_eq(gc->stats.used_bytes, 0);
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
    cr_assert_eq(gc->stats.used_objects, n);
    cr_assert_eq(gc->stats.used_bytes, n * FX_NODE_BYTES);
    fx_assert_list(fx_roots[0], n);
    gc->ops->destroy(gc);
}

Test(marksweep, ref_arrays_and_cycles_survive) {
    Gc *gc = ms_heap(1 << 20);
    const uint32_t len = 50;
    Obj *array = gc_alloc(gc, &fx_array_class, len);
    cr_assert_not_null(array);
    fx_roots[0] = array;
    for (uint32_t i = 0; i < len; i++) {
        Obj *node = fx_new_node(gc, 1, 1000 + i);
        gc_write_ref(gc, array, &((Obj **)obj_body(array))[i], node);
        /* every node points back at the array and at itself: cycles */
        gc_write_ref(gc, node, fx_left(node), array);
        gc_write_ref(gc, node, fx_right(node), node);
        fx_make_garbage(gc, 3);
    }
    fx_roots[1] = NULL;

    /* An unreachable cycle must be freed too. */
    Obj *a = fx_new_node(gc, 2, 1);
    Obj *b = fx_new_node(gc, 3, 2);
    gc_write_ref(gc, a, fx_left(a), b);
    gc_write_ref(gc, b, fx_left(b), a);
    fx_roots[2] = fx_roots[3] = NULL;

    gc_collect(gc, GC_REASON_REQUESTED);
    size_t expect_bytes = obj_size_for(&fx_array_class, len) + len * FX_NODE_BYTES;
    cr_assert_eq(gc->stats.used_objects, 1 + len);
    cr_assert_eq(gc->stats.used_bytes, expect_bytes);
    for (uint32_t i = 0; i < len; i++) {
        Obj *node = ((Obj **)obj_body(array))[i];
        cr_assert_eq(*fx_value(node), 1000 + i);
        cr_assert_eq(*fx_left(node), array);
        cr_assert_eq(*fx_right(node), node);
    }
    gc->ops->destroy(gc);
}

Test(marksweep, collects_when_the_budget_is_exhausted) {
    /* Room for exactly 100 nodes. */
    Gc *gc = ms_heap(100 * FX_NODE_BYTES);
    fx_new_node(gc, 0, 42);
    fx_make_garbage(gc, 99);
    cr_assert_eq(gc->stats.collections, 0, "heap not yet full");
    cr_assert_eq(gc->stats.used_bytes, 100 * FX_NODE_BYTES);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1, "the 101st node needs a collection");
    cr_assert_eq(gc->stats.used_objects, 2);
    /* Ten times the heap in garbage: never out of memory. */
    fx_make_garbage(gc, 1000);
    cr_assert_eq(*fx_value(fx_roots[0]), 42);
    cr_assert_leq(gc->stats.used_bytes, 100 * FX_NODE_BYTES);
    gc->ops->destroy(gc);
}

Test(marksweep, out_of_memory_when_live_data_exceeds_the_heap) {
    Gc *gc = ms_heap(64 * FX_NODE_BYTES);
    fx_roots[0] = NULL;
    uint64_t built = 0;
    for (;;) {
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        if (node == NULL) break;
        gc_write_ref(gc, node, fx_left(node), fx_roots[0]);
        fx_roots[0] = node;
        built++;
    }
    cr_assert_eq(built, 64, "exactly 64 live nodes fit");
    cr_assert_eq(gc->stats.used_objects, 64);
    cr_assert_geq(gc->stats.collections, 1, "a collection was tried before giving up");
    /* The list is intact after the failed request. */
    uint64_t n = 0;
    for (Obj *node = fx_roots[0]; node; node = *fx_left(node)) n++;
    cr_assert_eq(n, 64);

    char message[256];
    gc_describe_oom(gc, FX_NODE_BYTES, message, sizeof message);
    cr_assert(strstr(message, "out of memory") != NULL, "%s", message);
    cr_assert(strstr(message, "marksweep") != NULL, "%s", message);
    gc->ops->destroy(gc);
}

Test(marksweep, request_larger_than_the_heap_fails_without_collecting) {
    Gc *gc = ms_heap(4096);
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 5000));
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(gc->stats.used_objects, 0);
    gc->ops->destroy(gc);
}

Test(marksweep, stress_collects_at_every_allocation) {
    GcConfig config = fx_config(1 << 20);
    config.stress = true;
    Gc *gc = fx_create(MS, &config);
    fx_build_list(gc, 0, 1, 200);
    cr_assert_eq(gc->stats.collections, 200);
    cr_assert_eq(gc->stats.used_objects, 200);
    fx_make_garbage(gc, 50);
    cr_assert_eq(gc->stats.collections, 250);
    cr_assert_eq(gc->stats.used_objects, 201, "only the last garbage node is still there");
    fx_assert_list(fx_roots[0], 200);
    gc->ops->destroy(gc);
}

Test(marksweep, disabled_gc_grows_past_the_budget_instead_of_collecting) {
    Gc *gc = ms_heap(10 * FX_NODE_BYTES);
    gc->disabled_depth = 2; /* nested DisableGC */
    fx_make_garbage(gc, 30);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(gc->stats.used_objects, 30);
    cr_assert_geq(gc->stats.total_bytes, gc->stats.used_bytes);
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 10 * FX_NODE_BYTES),
                   "a request larger than the whole heap still fails");

    gc->disabled_depth = 0;
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.used_objects, 1);
    cr_assert_eq(gc->stats.total_bytes, 10 * FX_NODE_BYTES, "back to the configured heap");
    gc->ops->destroy(gc);
}

Test(marksweep, write_barrier_op_is_a_plain_store) {
    Gc *gc = ms_heap(1 << 20);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    gc->ops->write_barrier(gc, a, fx_left(a), b);
    cr_assert_eq(*fx_left(a), b);
    gc->ops->write_barrier(gc, a, fx_left(a), NULL);
    cr_assert_null(*fx_left(a));
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
    cr_assert_eq(gc->stats.used_objects, 1);
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

Test(marksweep, destroy_posts_no_events) {
    fx_record_events();
    Gc *gc = ms_heap(1 << 20);
    fx_new_node(gc, 0, 1);
    int before = fx_num_events;
    gc->ops->destroy(gc);
    cr_assert_eq(fx_num_events, before);
}
