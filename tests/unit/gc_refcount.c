/*
 * gc_refcount.c -- unit tests of the reference-counting collector, driven
 * through the collector interface (gc/gc.h) and the fixture's miniature VM
 * (gc_fixture.h), reading counts and colours through gc/refcount/refcount.h.
 * Every heap here runs with --verify-heap on (unless a test says why not),
 * so each reconciliation is also checked by the verifier before and after.
 *
 * What is special about this collector, and tested here beyond what every
 * collector must do: the write barrier keeps exact counts of heap
 * references; in deferred mode roots are counted only when a
 * reconciliation runs, so an object whose count drops to zero is freed at
 * the next reconciliation, never before and never while a root still holds
 * it; in immediate mode root stores are counted too, and a zero count
 * frees at once;
 * freeing cascades without recursion; garbage cycles are found by trial
 * deletion (and leak with --rc-cycles=off), but never a cycle that a root
 * holds; and counts stick instead of overflowing.
 */
#include <criterion/criterion.h>

#include "gc/common/verify.h"
#include "gc/refcount/refcount.h"
#include "gc_fixture.h"

#define RC "refcount"

static Gc *rc_heap(size_t heap_bytes, bool cycles) {
    GcConfig config = fx_config(heap_bytes);
    config.rc_cycles = cycles;
    return fx_create(RC, &config);
}

static Obj **elems(Obj *array) { return (Obj **)obj_body(array); }

/* Links `n` new nodes into a ring through their left fields, using
 * fx_roots[a] (the first node) and fx_roots[b] (the last); both are NULL
 * afterwards, so the ring is garbage. */
static void make_garbage_ring(Gc *gc, int a, int b, int n) {
    fx_new_node(gc, a, 0);
    fx_roots[b] = fx_roots[a];
    for (int i = 1; i < n; i++) {
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        cr_assert_not_null(node);
        gc_write_ref(gc, fx_roots[b], fx_left(fx_roots[b]), node);
        fx_roots[b] = node;
    }
    gc_write_ref(gc, fx_roots[b], fx_left(fx_roots[b]), fx_roots[a]);
    fx_roots[a] = fx_roots[b] = NULL;
}

Test(refcount, publishes_its_constraints) {
    static const GcArenaInfo arenas[] = {{1, "heap"}};
    const GcOps *ops = fx_assert_constraints(
        RC, &(GcConstraints){.name = "refcount", .moves_objects = false,
                             .barrier = GC_BARRIER_REFCOUNT, .num_arenas = 1, .arenas = arenas});
    Gc *gc = rc_heap(1 << 20, true);
    cr_assert_eq(gc->ops, ops);
    cr_assert_eq(gc->alloc_region, &gc_closed_region, "refcount has no bump fast path");
    cr_assert_eq(gc->barrier, GC_BARRIER_REFCOUNT, "gc_write_ref must reach the barrier");
    cr_assert_eq(gc_total_bytes(gc), 1 << 20);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

/* Each new object is zeroed, counted in the statistics, listed by
 * walk_heap, and starts with a count of zero: so it is in the ZCT. */
Test(refcount, new_objects_start_at_zero_in_the_zct) {
    Gc *gc = rc_heap(1 << 20, true);
    const RtClass *classes[] = {&fx_node_class, &fx_array_class, &fx_bytes_class, &fx_string_class};
    const uint32_t lengths[] = {0, 5, 13, 3};
    uint64_t bytes = 0;
    for (int k = 0; k < 4; k++) {
        Obj *obj = gc_alloc(gc, classes[k], lengths[k]);
        cr_assert_not_null(obj);
        cr_assert_eq(obj->cls, classes[k]);
        cr_assert_eq(obj->length, lengths[k]);
        cr_assert_eq(obj->gc_word, gc->fresh_gc_word);
        cr_assert_eq(rc_count(obj), 0, "no counted reference yet");
        cr_assert(obj->gc_word & RC_IN_ZCT, "so it is listed in the zero-count table");
        cr_assert_eq(rc_colour(obj), RC_BLACK);
        size_t size = obj_size(obj);
        for (size_t i = sizeof(Obj); i < size; i++)
            cr_assert_eq(((uint8_t *)obj)[i], 0, "class %s, byte %zu", classes[k]->name, i);
        bytes += size;
        cr_assert_eq(gc_used_objects(gc), (uint64_t)k + 1);
        cr_assert_eq(gc_used_bytes(gc), bytes);
        cr_assert_eq(gc->stats.bytes_allocated, bytes);
    }
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, 4);
    cr_assert_eq(heap.bytes, bytes);
    cr_assert_eq(heap.arena_id, 1);
    gc->ops->destroy(gc);
}

Test(refcount, counts_follow_stores_and_overwrites) {
    Gc *gc = rc_heap(1 << 20, true);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    Obj *c = fx_new_node(gc, 2, 3);
    Obj *array = gc_alloc(gc, &fx_array_class, 3);
    fx_roots[3] = array;

    gc_write_ref(gc, a, fx_left(a), b);
    cr_assert_eq(rc_count(b), 1);
    gc_write_ref(gc, a, fx_right(a), b);
    cr_assert_eq(rc_count(b), 2, "two slots, two references");
    gc_write_ref(gc, a, fx_left(a), c);
    cr_assert_eq(rc_count(b), 1, "the overwritten referent loses one");
    cr_assert_eq(rc_count(c), 1, "the new one gains one");
    cr_assert_eq(rc_colour(b), RC_PURPLE, "decremented to non-zero: a possible cycle root");
    gc_write_ref(gc, a, fx_right(a), b);
    cr_assert_eq(rc_count(b), 1, "storing what a slot holds changes nothing");
    gc_write_ref(gc, c, fx_left(c), b);
    cr_assert_eq(rc_count(b), 2);
    cr_assert_eq(rc_colour(b), RC_BLACK, "an increment: in use, no longer a possible cycle root");
    gc_write_ref(gc, c, fx_left(c), NULL);
    gc_write_ref(gc, a, fx_right(a), NULL);
    cr_assert_eq(rc_count(b), 0);
    cr_assert(b->gc_word & RC_IN_ZCT);

    gc_write_ref(gc, array, &elems(array)[0], c);
    gc_write_ref(gc, array, &elems(array)[1], c);
    cr_assert_eq(rc_count(c), 3, "array elements are counted like fields");
    gc_write_ref(gc, array, &elems(array)[0], NULL);
    cr_assert_eq(rc_count(c), 2);

    gc_write_ref(gc, a, fx_right(a), a);
    cr_assert_eq(rc_count(a), 1, "a self-reference counts");
    gc->ops->write_barrier(gc, a, fx_right(a), array);
    cr_assert_eq(*fx_right(a), array, "the barrier op stores");
    cr_assert_eq(rc_count(array), 1, "and counts");
    cr_assert_eq(rc_count(a), 0);

    cr_assert_eq(gc->stats.collections, 0, "stores never collect");
    cr_assert_eq(gc_used_objects(gc), 4, "nor free");
    gc->ops->destroy(gc);
}

Test(refcount, a_dropped_object_is_freed_at_the_next_reconciliation_not_before) {
    fx_record_events();
    Gc *gc = rc_heap(1 << 20, true);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    gc_write_ref(gc, a, fx_left(a), b);
    fx_roots[1] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2, "b lives on through a");
    cr_assert_eq(rc_count(b), 1);
    gc_write_ref(gc, a, fx_left(a), b);
    cr_assert(!(b->gc_word & RC_IN_ZCT), "storing what a slot holds never touches zero");

    int before = fx_num_events;
    gc_write_ref(gc, a, fx_left(a), NULL);
    cr_assert_eq(rc_count(b), 0);
    cr_assert_eq(fx_count_heap(gc).objects, 2, "a zero count frees nothing by itself");
    cr_assert_eq(fx_num_events, before, "no event outside a collection");

    fx_num_events = 0;
    gc_collect(gc, GC_REASON_REQUESTED);
    const FxEvent expected[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = b},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 1, .used_object_space = FX_NODE_BYTES,
         .total_object_space = 1 << 20},
    };
    fx_assert_events(expected, 3);
    gc->ops->destroy(gc);
}

/* --rc-mode=immediate counts root references too (gc_write_root, as the
 * VM's root stores do): the store into a heap slot or a root slot that
 * drops the last reference frees the object and its cascade at once, in a
 * bracket of its own, and a reconciliation leaves the counts alone. */
Test(refcount, immediate_mode_counts_roots_and_frees_at_the_zero_count) {
    fx_record_events();
    GcConfig config = fx_config(1 << 20);
    config.rc_cycles = true;
    config.rc_immediate = true;
    Gc *gc = fx_create(RC, &config);
    cr_assert(gc->counts_roots);
    gc_write_root(gc, &fx_roots[0], gc_alloc(gc, &fx_node_class, 0)); /* a */
    Obj *b = gc_alloc(gc, &fx_node_class, 0);                          /* a.left */
    gc_write_ref(gc, fx_roots[0], fx_left(fx_roots[0]), b);
    Obj *c = gc_alloc(gc, &fx_node_class, 0); /* b.left: the cascade */
    gc_write_ref(gc, b, fx_left(b), c);
    gc_write_root(gc, &fx_roots[1], gc_alloc(gc, &fx_node_class, 0)); /* d */
    Obj *a = fx_roots[0], *d = fx_roots[1];
    gc_write_ref(gc, b, fx_right(b), d);
    cr_assert_eq(rc_count(a), 1, "one root slot");
    cr_assert_eq(rc_count(d), 2, "a root slot and b.right");

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 4, "every object is referenced");
    cr_assert_eq(rc_count(a), 1, "a reconciliation does not count the roots again");
    cr_assert_eq(rc_count(d), 2);

    fx_num_events = 0;
    gc_write_ref(gc, a, fx_left(a), NULL);
    const FxEvent heap_store[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = b},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = c},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 2, .used_object_space = 2 * FX_NODE_BYTES,
         .total_object_space = 1 << 20},
    };
    fx_assert_events(heap_store, 4);
    cr_assert_eq(rc_count(d), 1, "b's reference to d is gone, the root's is not");

    /* Overwriting the root slot that holds d's last reference frees d. */
    fx_num_events = 0;
    gc_write_root(gc, &fx_roots[1], NULL);
    const FxEvent root_store[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = d},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 1, .used_object_space = FX_NODE_BYTES,
         .total_object_space = 1 << 20},
    };
    fx_assert_events(root_store, 3);

    /* Storing what a root slot holds frees nothing. */
    fx_num_events = 0;
    gc_write_root(gc, &fx_roots[0], a);
    cr_assert_eq(fx_num_events, 0);
    cr_assert_eq(rc_count(a), 1);
    gc->ops->destroy(gc);
}

/* While collection is disabled, immediate mode frees nothing: a zero count
 * waits in the ZCT for the next reconciliation. */
Test(refcount, immediate_mode_frees_nothing_while_gc_is_disabled) {
    GcConfig config = fx_config(1 << 20);
    config.rc_immediate = true;
    Gc *gc = fx_create(RC, &config);
    gc_write_root(gc, &fx_roots[0], gc_alloc(gc, &fx_node_class, 0));
    Obj *a = fx_roots[0];
    Obj *b = gc_alloc(gc, &fx_node_class, 0);
    gc_write_ref(gc, a, fx_left(a), b);
    gc_collect(gc, GC_REASON_REQUESTED); /* a and b leave the ZCT */
    gc_disable(gc);
    gc_write_ref(gc, a, fx_left(a), NULL);
    gc_write_root(gc, &fx_roots[0], NULL);
    cr_assert_eq(fx_count_heap(gc).objects, 2);
    cr_assert(a->gc_word & RC_IN_ZCT);
    cr_assert(b->gc_word & RC_IN_ZCT);
    gc_enable(gc);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

/* --verify-heap checks every count against the references there are: a
 * root store the VM failed to count is caught at the next reconciliation. */
Test(refcount, verify_heap_catches_an_uncounted_root, .exit_code = GC_VERIFY_EXIT_STATUS) {
    GcConfig config = fx_config(1 << 20);
    config.rc_immediate = true;
    Gc *gc = fx_create(RC, &config);
    gc_write_root(gc, &fx_roots[0], gc_alloc(gc, &fx_node_class, 0));
    fx_roots[1] = fx_roots[0]; /* not through gc_write_root */
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_fail("the verifier let a wrong count through");
}

Test(refcount, roots_are_counted_only_by_a_reconciliation_and_until_the_next) {
    Gc *gc = rc_heap(1 << 20, true);
    Obj *node = fx_new_node(gc, 0, 1);
    fx_roots[5] = node;
    cr_assert_eq(rc_count(node), 0, "the VM's stores into roots have no barrier");
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1, "a zero count is not death while a root holds it");
    cr_assert_eq(rc_count(node), 2, "two root slots, counted");
    cr_assert(!(node->gc_word & (RC_IN_ZCT | RC_ROOTED)), "out of the ZCT; ROOTED only inside");

    fx_roots[0] = fx_roots[5] = NULL;
    cr_assert_eq(rc_count(node), 2, "letting go of a root is not seen at once");
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0, "but by the next reconciliation");
    cr_assert_eq(gc->stats.objects_freed, 1);
    gc->ops->destroy(gc);
}

Test(refcount, cascade_frees_a_long_list_without_recursion) {
    /* 1,000,000 nodes: freeing them recursively would need that many C
     * frames. */
    const uint64_t n = 1000000;
    Gc *gc = rc_heap(n * FX_NODE_BYTES + (1 << 20), true);
    gc->config.verify = false; /* keep the test fast */
    fx_build_list(gc, 0, 1, n);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), n);
    fx_assert_list(fx_roots[0], n);
    uint64_t freed = gc->stats.objects_freed;

    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.objects_freed - freed, n, "the head's death frees the whole list");
    cr_assert_eq(gc_used_objects(gc), 0);
    cr_assert_eq(gc_used_bytes(gc), 0);
    cr_assert_eq(fx_count_heap(gc).objects, 0);
    gc->ops->destroy(gc);
}

Test(refcount, garbage_cycles_are_collected) {
    Gc *gc = rc_heap(1 << 20, true);
    fx_new_node(gc, 0, 42);
    fx_make_garbage_cycle(gc, 1, 2);
    make_garbage_ring(gc, 1, 2, 100);
    Obj *self = fx_new_node(gc, 1, 7);
    gc_write_ref(gc, self, fx_right(self), self);
    fx_roots[1] = NULL;
    fx_make_garbage(gc, 10);
    cr_assert_eq(gc_used_objects(gc), 1 + 2 + 100 + 1 + 10);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.cycle_collections, 1);
    cr_assert_eq(gc_used_objects(gc), 1, "every cycle and the acyclic garbage are gone");
    cr_assert_eq(gc->stats.objects_freed, 2 + 100 + 1 + 10);
    cr_assert_eq(*fx_value(fx_roots[0]), 42);
    gc->ops->destroy(gc);
}

Test(refcount, garbage_cycles_leak_with_cycles_off) {
    Gc *gc = rc_heap(1 << 20, false);
    fx_make_garbage_cycle(gc, 1, 2);
    make_garbage_ring(gc, 1, 2, 100);
    fx_make_garbage(gc, 10);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.cycle_collections, 0, "no trial deletion");
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_eq(gc->stats.objects_freed, 10, "acyclic garbage is still freed");
    cr_assert_eq(gc_used_objects(gc), 102, "the cycles leak");
    cr_assert_eq(fx_count_heap(gc).objects, 102);
    gc->ops->destroy(gc);
}

/* A cycle that only a root holds looks like garbage to trial deletion if
 * the root's reference is not counted. */
Test(refcount, a_cycle_held_only_by_a_root_is_not_collected) {
    Gc *gc = rc_heap(1 << 20, true);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    Obj *c = fx_new_node(gc, 2, 3);
    gc_write_ref(gc, a, fx_left(a), b);
    gc_write_ref(gc, b, fx_left(b), a);
    gc_write_ref(gc, c, fx_left(c), a);
    fx_roots[0] = NULL; /* b's root alone holds the cycle ... */
    gc_write_ref(gc, c, fx_left(c), NULL);
    cr_assert_eq(rc_colour(a), RC_PURPLE, "... and a is a candidate, so trial deletion looks at it");

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.cycle_collections, 1);
    cr_assert_eq(fx_count_heap(gc).objects, 3, "the rooted cycle survives");
    cr_assert_eq(rc_count(a), 1, "trial deletion gave back what it subtracted");
    cr_assert_eq(rc_count(b), 2, "one from a, one from the root");
    cr_assert_eq(rc_colour(a), RC_BLACK);
    cr_assert_eq(rc_colour(b), RC_BLACK);
    cr_assert_eq(*fx_left(fx_roots[1]), a);
    cr_assert_eq(*fx_left(a), b);

    fx_roots[2] = NULL; /* c is acyclic garbage */
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(fx_count_heap(gc).objects, 2, "still held by the root");
    fx_roots[1] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(fx_count_heap(gc).objects, 0, "collected once the root let go");
    gc->ops->destroy(gc);
}

/* A ring built and dropped between two reconciliations never has a count
 * decremented: its members must become candidates when they leave the ZCT. */
Test(refcount, a_cycle_made_and_dropped_between_reconciliations_is_collected) {
    Gc *gc = rc_heap(1 << 20, true);
    gc_collect(gc, GC_REASON_REQUESTED);
    make_garbage_ring(gc, 0, 1, 5);
    cr_assert_eq(gc_used_objects(gc), 5);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

Test(refcount, ref_arrays_and_cycles_survive_while_reachable) {
    Gc *gc = rc_heap(1 << 20, true);
    const uint32_t len = 50;
    fx_build_cyclic_array(gc, 0, 1, len, 3);
    fx_roots[1] = elems(fx_roots[0])[7];
    fx_make_garbage_cycle(gc, 2, 3);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1 + len);
    cr_assert_eq(gc_used_bytes(gc), obj_size_for(&fx_array_class, len) + len * FX_NODE_BYTES);
    fx_assert_cyclic_array(fx_roots[0], len);
    cr_assert_eq(rc_count(fx_roots[0]), len + 1, "each node, and the root");

    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1 + len, "one root still reaches them all");
    fx_roots[1] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

/* Strings have no reference slots: counted like any object, never cycle
 * candidates (Bacon-Rajan's "green" objects). */
Test(refcount, strings_are_counted_but_never_candidates) {
    Gc *gc = rc_heap(1 << 20, true);
    const char *text = "reference counting";
    Obj *array = gc_alloc(gc, &fx_array_class, 2);
    fx_roots[0] = array;
    Obj *s = gc_alloc(gc, &fx_string_class, (uint32_t)strlen(text));
    cr_assert_not_null(s);
    memcpy(obj_body(s), text, strlen(text));
    gc_write_ref(gc, array, &elems(array)[0], s);
    gc_write_ref(gc, array, &elems(array)[1], s);
    gc_write_ref(gc, array, &elems(array)[1], NULL);
    cr_assert_eq(rc_count(s), 1);
    cr_assert_eq(rc_colour(s), RC_BLACK, "decremented to one, but it can be on no cycle");
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2);
    cr_assert_str_eq(str_chars(elems(fx_roots[0])[0]), text);
    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0, "the string dies with the array");
    gc->ops->destroy(gc);
}

Test(refcount, sticky_counts_neither_overflow_nor_drop) {
    Gc *gc = rc_heap(1 << 20, true);
    Obj *a = fx_new_node(gc, 0, 1);
    Obj *b = fx_new_node(gc, 1, 2);
    /* As if 134 million slots referred to b, but one. */
    b->gc_word = (b->gc_word & ~RC_COUNT_MASK) | (RC_COUNT_STICKY - 1);
    gc_write_ref(gc, a, fx_left(a), b);
    cr_assert_eq(rc_count(b), RC_COUNT_STICKY);
    gc_write_ref(gc, a, fx_right(a), b);
    cr_assert_eq(rc_count(b), RC_COUNT_STICKY, "no wrap-around to zero");
    gc_write_ref(gc, a, fx_left(a), NULL);
    gc_write_ref(gc, a, fx_right(a), NULL);
    cr_assert_eq(rc_count(b), RC_COUNT_STICKY, "and no way back down");
    fx_roots[1] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2, "a sticky object is never freed");
    cr_assert_eq(rc_count(b), RC_COUNT_STICKY);
    gc->ops->destroy(gc);
}

Test(refcount, reconciles_when_the_zct_fills_up) {
    Gc *gc = rc_heap((size_t)1 << 30, true);
    gc->config.verify = false; /* keep the test fast */
    Obj *x = fx_new_node(gc, 0, 1), *y = fx_new_node(gc, 1, 2), *z = fx_new_node(gc, 2, 3);
    gc_write_ref(gc, y, fx_left(y), x);
    gc_write_ref(gc, y, fx_right(y), z);
    fx_roots[2] = NULL;
    while (gc->stats.collections == 0) fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.cycle_collections, 0, "too few candidates for trial deletion");
    cr_assert_eq(gc_used_objects(gc), 4, "x, y, z and the node that came after");
    cr_assert_eq(rc_colour(z), RC_PURPLE, "z left the ZCT alive: a root may have let go of it");
    cr_assert_eq(rc_colour(x), RC_BLACK, "x is held by a root: no candidate until it lets go");

    const uint64_t garbage = 100000;
    fx_make_garbage(gc, garbage);
    cr_assert_geq(gc->stats.collections, 1, "a heap far from full still reconciles");
    cr_assert_lt(gc_used_objects(gc), garbage / 4, "so garbage does not pile up");
    gc->ops->destroy(gc);
}

Test(refcount, collects_when_the_budget_is_exhausted) {
    Gc *gc = rc_heap(100 * FX_NODE_BYTES, true);
    fx_assert_collects_when_full(gc, 100);
    gc->ops->destroy(gc);
}

Test(refcount, a_heap_full_of_garbage_cycles_collects_them_to_make_room) {
    Gc *gc = rc_heap(100 * FX_NODE_BYTES, true);
    fx_new_node(gc, 0, 42);
    for (int i = 0; i < 500; i++) fx_make_garbage_cycle(gc, 1, 2);
    cr_assert_geq(gc->stats.cycle_collections, 9, "one at least per heap of cycles");
    cr_assert_eq(*fx_value(fx_roots[0]), 42);
    gc->ops->destroy(gc);
}

Test(refcount, garbage_cycles_run_out_of_memory_with_cycles_off) {
    Gc *gc = rc_heap(100 * FX_NODE_BYTES, false);
    int cycles = 0;
    for (;;) {
        Obj *a = gc_alloc(gc, &fx_node_class, 0);
        if (a == NULL) break;
        fx_roots[0] = a;
        Obj *b = gc_alloc(gc, &fx_node_class, 0);
        if (b == NULL) break;
        gc_write_ref(gc, b, fx_left(b), fx_roots[0]);
        gc_write_ref(gc, fx_roots[0], fx_left(fx_roots[0]), b);
        fx_roots[0] = NULL;
        cycles++;
    }
    cr_assert_eq(cycles, 50, "the leaked cycles fill the heap, and nothing frees them");
    cr_assert_geq(gc->stats.collections, 1, "a reconciliation was tried before giving up");
    cr_assert_eq(gc_used_objects(gc), 100);
    gc->ops->destroy(gc);
}

Test(refcount, out_of_memory_when_live_data_exceeds_the_heap) {
    Gc *gc = rc_heap(64 * FX_NODE_BYTES, true);
    cr_assert_eq(fx_fill_until_out_of_memory(gc, 0), 64, "exactly 64 live nodes fit");
    cr_assert_eq(gc_used_objects(gc), 64);
    gc->ops->destroy(gc);
}

Test(refcount, request_larger_than_the_heap_fails_without_collecting) {
    Gc *gc = rc_heap(4096, true);
    fx_assert_oversized_request_fails(gc, 4096);
    gc->ops->destroy(gc);
}

Test(refcount, stress_collects_at_every_allocation) { fx_assert_stress_collects_every_allocation(RC); }

Test(refcount, stress_collects_a_dropped_cycle_at_the_next_allocation) {
    GcConfig config = fx_config(1 << 20);
    config.stress = true;
    config.rc_cycles = true;
    Gc *gc = fx_create(RC, &config);
    fx_build_list(gc, 0, 1, 20);
    fx_make_garbage_cycle(gc, 2, 3);
    cr_assert_eq(gc_used_objects(gc), 22);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.cycle_collections, 23, "trial deletion at every allocation");
    cr_assert_eq(gc_used_objects(gc), 21, "the cycle died; one node is new");
    fx_assert_list(fx_roots[0], 20);
    gc->ops->destroy(gc);
}

Test(refcount, disabled_gc_grows_past_the_budget_instead_of_collecting) {
    Gc *gc = rc_heap(10 * FX_NODE_BYTES, true);
    fx_assert_disabled_gc_does_not_collect(gc, 30);
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 10 * FX_NODE_BYTES),
                   "a request larger than the whole heap still fails");
    fx_enable_gc(gc);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(fx_count_heap(gc).objects, 1);
    cr_assert_eq(gc_total_bytes(gc), 10 * FX_NODE_BYTES, "back to the configured heap");
    gc->ops->destroy(gc);
}

/* The golden pattern of a first reconciliation (docs/event-mapping.md, refcount row):
 * the dead in the order the ZCT finds them, each cascade as it goes, the
 * dead left to their own ZCT entries, then the garbage cycle. */
Test(refcount, events_follow_the_mapping_row) {
    fx_record_events();
    Gc *gc = rc_heap(1 << 20, true);
    Obj *a = fx_new_node(gc, 0, 1);                /* live: a root */
    Obj *b = gc_alloc(gc, &fx_node_class, 0);      /* dead: never referenced */
    Obj *c = gc_alloc(gc, &fx_node_class, 0);      /* live: a.left */
    Obj *d = gc_alloc(gc, &fx_array_class, 3);     /* dead */
    Obj *e = gc_alloc(gc, &fx_node_class, 0);      /* dead through d: d[0] */
    Obj *f = gc_alloc(gc, &fx_node_class, 0);      /* dead: a.right, overwritten */
    Obj *g = gc_alloc(gc, &fx_node_class, 0);      /* dead: a cycle with h */
    Obj *h = gc_alloc(gc, &fx_node_class, 0);
    gc_write_ref(gc, a, fx_left(a), c);
    gc_write_ref(gc, d, &elems(d)[0], e);
    gc_write_ref(gc, a, fx_right(a), f);
    gc_write_ref(gc, a, fx_right(a), NULL);
    gc_write_ref(gc, g, fx_left(g), h);
    gc_write_ref(gc, h, fx_left(h), g);
    gc_collect(gc, GC_REASON_REQUESTED);

    const int32_t node = (int32_t)FX_NODE_BYTES, array = (int32_t)obj_size_for(&fx_array_class, 3);
    FxEvent expected[32] = {{.type = VMPI_EVENT_ARENA_NEW, .arena_id = 1, .arena_name = "heap"}};
    int n = 1;
    const Obj *allocated[] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; i++)
        expected[n++] = (FxEvent){.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = allocated[i],
                                  .size = allocated[i] == d ? array : node};
    expected[n++] = (FxEvent){.type = VMPI_EVENT_GC_START};
    /* The ZCT's zero counts in table order, each with its cascade; e,
     * which d's death brought to zero, is freed by its own ZCT entry; then
     * trial deletion frees the cycle. */
    const Obj *freed[] = {b, d, f, e, g, h};
    for (int i = 0; i < 6; i++) expected[n++] = (FxEvent){.type = VMPI_EVENT_OBJECT_FREE, .obj_id = freed[i]};
    expected[n++] = (FxEvent){.type = VMPI_EVENT_GC_FINISH, .used_objects = 2,
                              .used_object_space = 2 * node, .total_object_space = 1 << 20};
    fx_assert_events(expected, n);
    cr_assert_eq(gc->stats.objects_freed, 6);
    cr_assert_eq(gc->stats.cycle_collections, 1, "a requested collection looks for cycles");
    gc->ops->destroy(gc);
}

Test(refcount, destroy_posts_no_events) { fx_assert_destroy_posts_no_events(RC, 1 << 20); }

/* ---- walk_heap at every OBJECT_ALLOC and OBJECT_FREE ---------------------- */

static Gc *walked_gc;
static int allocs_seen, frees_seen;

static void walk_at_every_alloc_and_free(VMPI_Event *event) {
    const void *id = NULL;
    if (event->event_type == VMPI_EVENT_OBJECT_ALLOC) {
        allocs_seen++;
        id = event->u.obj_alloc.obj_id;
    } else if (event->event_type == VMPI_EVENT_OBJECT_FREE) {
        frees_seen++;
        id = event->u.obj_free.obj_id;
    }
    FxFinding sighting = fx_find_in_heap(walked_gc, id);
    cr_assert_eq(sighting.times, event->event_type == VMPI_EVENT_OBJECT_ALLOC ? 1 : 0,
                 "%s of %p: walk_heap lists it %d times", vmpi_event_name(event->event_type), id,
                 sighting.times);
    cr_assert_eq(fx_count_heap(walked_gc).objects, gc_used_objects(walked_gc));
}

/* An agent may walk the heap from its handler: a new object is there by
 * OBJECT_ALLOC, and a freed one gone by OBJECT_FREE, whether a cascade or
 * trial deletion freed it. */
Test(refcount, walk_heap_agrees_with_every_alloc_and_free) {
    VMPI_Interface *iface = vmpi_register_listener(walk_at_every_alloc_and_free);
    cr_assert_not_null(iface);
    cr_assert_eq(iface->EnableEvent(VMPI_EVENT_OBJECT_ALLOC, NULL), VMPI_OK);
    cr_assert_eq(iface->EnableEvent(VMPI_EVENT_OBJECT_FREE, NULL), VMPI_OK);
    Gc *gc = walked_gc = rc_heap(1 << 20, true);
    fx_build_list(gc, 0, 1, 50);
    fx_make_garbage_cycle(gc, 1, 2);
    make_garbage_ring(gc, 1, 2, 20);
    fx_make_garbage(gc, 10);
    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(allocs_seen, 50 + 2 + 20 + 10);
    cr_assert_eq(frees_seen, allocs_seen);
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

/* ---- a random program against the exact invariants ---------------------------
 * After every requested collection the heap must hold exactly the objects
 * reachable from the roots (no leak: cycles are collected; no premature
 * free), and every count must be exactly the number of heap slots and root
 * slots referring to the object (the roots were counted by that very
 * collection).  The test finds both on its own, by tracing. */

typedef struct Census {
    const Obj **ids;        /* open addressing, NULL = empty */
    uint32_t *refs;         /* references found to ids[i] */
    bool *reached;
    size_t mask;
    const Obj **stack;
    size_t depth;
} Census;

static size_t census_slot(const Census *census, const Obj *obj) {
    size_t at = (size_t)(((uintptr_t)obj >> 3) * UINT64_C(0x9E3779B97F4A7C15) >> 40) & census->mask;
    while (census->ids[at] != NULL && census->ids[at] != obj) at = (at + 1) & census->mask;
    return at;
}

static void census_list(Obj *obj, uint32_t arena_id, void *ctx) {
    Census *census = ctx;
    size_t at = census_slot(census, obj);
    cr_assert_null(census->ids[at], "walk_heap lists %p twice", (void *)obj);
    census->ids[at] = obj;
}

/* One reference to `target`, from a root or a heap slot: count it, and
 * trace through it the first time. */
static void census_reference(Census *census, const Obj *target) {
    if (target == NULL) return;
    size_t at = census_slot(census, target);
    cr_assert_eq(census->ids[at], target, "a reference to %p, which walk_heap does not list",
                 (const void *)target);
    census->refs[at]++;
    if (census->reached[at]) return;
    census->reached[at] = true;
    census->stack[census->depth++] = target;
}

static void census_root(Obj **slot, void *ctx) { census_reference(ctx, *slot); }

static void assert_heap_is_exactly_the_reachable(Gc *gc) {
    size_t capacity = 16;
    while (capacity < 4 * gc_used_objects(gc)) capacity *= 2;
    Census census = {
        .ids = calloc(capacity, sizeof *census.ids),
        .refs = calloc(capacity, sizeof *census.refs),
        .reached = calloc(capacity, sizeof *census.reached),
        .mask = capacity - 1,
        .stack = calloc(gc_used_objects(gc) + 1, sizeof *census.stack),
    };
    cr_assert(census.ids && census.refs && census.reached && census.stack);
    gc->ops->walk_heap(gc, census_list, &census);
    fx_enumerate_roots(NULL, census_root, &census);
    while (census.depth > 0) {
        const Obj *obj = census.stack[--census.depth];
        size_t count;
        Obj **slots = obj_ref_slots(obj, &count);
        for (size_t i = 0; i < count; i++) census_reference(&census, slots[i]);
    }
    for (size_t at = 0; at < capacity; at++) {
        const Obj *obj = census.ids[at];
        if (obj == NULL) continue;
        cr_assert(census.reached[at], "%p is in the heap but unreachable", (const void *)obj);
        cr_assert_eq(rc_count(obj), census.refs[at], "%p: count %u, %u references",
                     (const void *)obj, rc_count(obj), census.refs[at]);
        cr_assert_eq(rc_colour(obj), RC_BLACK);
    }
    free(census.ids);
    free(census.refs);
    free(census.reached);
    free(census.stack);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Du;
static uint32_t rng(uint32_t bound) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32) % bound;
}

/* Some reference slot of the object in root r: a field or an element. */
static Obj **some_slot(int r) {
    Obj *obj = fx_roots[r];
    size_t count;
    Obj **slots = obj_ref_slots(obj, &count);
    return count == 0 ? NULL : &slots[rng((uint32_t)count)];
}

Test(refcount, random_program_keeps_the_heap_exactly_the_reachable) {
    Gc *gc = rc_heap(16 * 1024, true); /* small: the budget forces reconciliations too */
    const int scratch = FX_NUM_ROOTS - 1;
    uint64_t checks = 0;
    for (int step = 0; step < 100000; step++) {
        int r = (int)rng(scratch), s = (int)rng(scratch);
        switch (rng(8)) {
        case 0: /* a new node that keeps the root's old object reachable */
            fx_roots[scratch] = fx_roots[r];
            fx_new_node(gc, r, (uint64_t)step);
            gc_write_ref(gc, fx_roots[r], fx_left(fx_roots[r]), fx_roots[scratch]);
            fx_roots[scratch] = NULL;
            break;
        case 1: /* a new array */
            fx_roots[r] = gc_alloc(gc, &fx_array_class, 1 + rng(5));
            cr_assert_not_null(fx_roots[r]);
            break;
        case 2:
        case 3: /* link two objects: cycles appear */
            if (fx_roots[r] != NULL) {
                Obj **slot = some_slot(r);
                if (slot != NULL) gc_write_ref(gc, fx_roots[r], slot, fx_roots[s]);
            }
            break;
        case 4: /* follow a reference */
            if (fx_roots[s] != NULL) {
                Obj **slot = some_slot(s);
                if (slot != NULL) fx_roots[r] = *slot;
            }
            break;
        case 5: /* drop a root */
            fx_roots[r] = NULL;
            break;
        case 6: /* garbage, or now and then a requested collection */
            if (rng(200) == 0) {
                gc_collect(gc, GC_REASON_REQUESTED);
                assert_heap_is_exactly_the_reachable(gc);
                checks++;
            } else {
                fx_make_garbage(gc, 1 + rng(3));
            }
            break;
        case 7: /* a string, kept for a while */
            fx_roots[r] = gc_alloc(gc, &fx_string_class, rng(30));
            cr_assert_not_null(fx_roots[r]);
            break;
        }
    }
    cr_log_info("%llu checks, %llu collections", (unsigned long long)checks,
                (unsigned long long)gc->stats.collections);
    cr_assert_gt(checks, 50);
    cr_assert_gt(gc->stats.collections, checks + 50, "the small heap also reconciled by itself");
    cr_assert_gt(gc->stats.cycle_collections, 0);
    cr_assert_gt(gc->stats.objects_freed, 10000);
    gc->ops->destroy(gc);
}
