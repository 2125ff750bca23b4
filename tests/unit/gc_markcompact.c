/*
 * gc_markcompact.c -- unit tests of the sliding mark-compact collector,
 * driven only through the collector interface (gc/gc.h) and the fixture's
 * miniature VM (gc_fixture.h).  Every heap here runs with --verify-heap on,
 * so each collection is also checked by the verifier before and after.
 *
 * What is special about this collector, and tested here beyond what every
 * collector must do: survivors slide down in allocation order and every
 * reference to them is updated; the space given back is zero-filled for
 * the bump fast path; and the events of a collection are all the
 * OBJECT_FREEs, then the OBJECT_MOVEs in address order, each to an ID that
 * is not defined at that moment (checked by a small model of the event
 * stream that runs against a random program).
 */
#include <criterion/criterion.h>

#include "gc/common/markbits.h"
#include "gc_fixture.h"

#define MC "markcompact"

static Gc *mc_heap(size_t heap_bytes) {
    GcConfig config = fx_config(heap_bytes);
    return fx_create(MC, &config);
}

/* The lowest address of the heap: where the first object ever allocated
 * lies, and where the first survivor always ends up. */
static uint8_t *heap_start;

static Obj *first_alloc(Gc *gc, int root) {
    Obj *node = fx_new_node(gc, root, 1);
    heap_start = (uint8_t *)node;
    return node;
}

static Obj *at(size_t offset) { return (Obj *)(heap_start + offset); }

/* Allocates `n` nodes that nothing references, each holding a non-zero
 * value and pointing at itself, so that leftover bytes would show. */
static void make_dirty_garbage(Gc *gc, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        cr_assert_not_null(node);
        *fx_value(node) = 0xdeadbeef;
        *fx_left(node) = node;
    }
}

Test(markcompact, publishes_its_constraints) {
    static const GcArenaInfo arenas[] = {{1, "heap"}};
    const GcOps *ops = fx_assert_constraints(
        MC, &(GcConstraints){.name = "markcompact", .moves_objects = true,
                             .barrier = GC_BARRIER_NONE, .num_arenas = 1, .arenas = arenas});
    Gc *gc = mc_heap(1 << 20);
    cr_assert_eq(gc->ops, ops);
    cr_assert_neq(gc->alloc_region, &gc_closed_region, "markcompact allocates on the inline fast path");
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 1 << 20, "the whole budget is free");
    cr_assert_eq(gc->alloc_region->arena_id, 1);
    cr_assert_eq(gc_total_bytes(gc), 1 << 20);
    gc->ops->destroy(gc);
}

Test(markcompact, refuses_a_heap_its_gc_word_cannot_address) {
    /* New addresses are 32 bits of 8-byte units over a region twice --heap. */
    GcConfig config = fx_config((size_t)17 << 30);
    cr_assert_null(gc_ops_by_name(MC)->create(&config));
}

Test(markcompact, allocation_is_contiguous_and_zeroed) {
    Gc *gc = mc_heap(1 << 20);
    Obj *made[3];
    fx_assert_allocation_fills_headers(gc, 1, made);
    heap_start = (uint8_t *)made[0];
    cr_assert_eq(made[1], at(FX_NODE_BYTES), "bump allocation: each right after the last");
    cr_assert_eq(made[2], at(FX_NODE_BYTES + obj_size_for(&fx_array_class, 5)));
    cr_assert_eq(gc->alloc_region->top, (uint8_t *)made[2] + obj_size(made[2]));
    gc->ops->destroy(gc);
}

Test(markcompact, collect_frees_the_dead_and_slides_the_live_down) {
    Gc *gc = mc_heap(1 << 20);
    first_alloc(gc, 0);
    *fx_value(fx_roots[0]) = 7;
    make_dirty_garbage(gc, 100);
    fx_new_node(gc, 1, 8);
    gc_write_ref(gc, fx_roots[0], fx_right(fx_roots[0]), fx_roots[1]);
    fx_roots[1] = NULL; /* reachable only through roots[0].right */
    make_dirty_garbage(gc, 100);
    uint8_t *old_top = gc->alloc_region->top;

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 2);
    cr_assert_eq(gc_used_bytes(gc), 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_freed, 200);
    cr_assert_eq(gc->stats.bytes_freed, 200 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_moved, 1, "the first node stays, the second slides");
    cr_assert_eq(gc->stats.bytes_moved, FX_NODE_BYTES);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_eq(gc_total_bytes(gc), 1 << 20);

    cr_assert_eq(fx_roots[0], at(0));
    cr_assert_eq(*fx_right(fx_roots[0]), at(FX_NODE_BYTES), "the reference follows the slide");
    cr_assert_eq(*fx_value(fx_roots[0]), 7);
    cr_assert_eq(*fx_value(*fx_right(fx_roots[0])), 8);
    cr_assert_eq(fx_roots[0]->gc_word, gc->fresh_gc_word, "survivors are unmarked again");
    cr_assert_eq(at(FX_NODE_BYTES)->gc_word, gc->fresh_gc_word);

    /* Everything above the survivors is free and zero again. */
    cr_assert_eq(gc->alloc_region->top, heap_start + 2 * FX_NODE_BYTES);
    for (uint8_t *p = gc->alloc_region->top; p < old_top; p++) cr_assert_eq(*p, 0, "byte %td", p - heap_start);
    Obj *fresh = gc_alloc(gc, &fx_node_class, 0);
    cr_assert_eq(fresh, at(2 * FX_NODE_BYTES));
    cr_assert_null(*fx_left(fresh));
    cr_assert_eq(*fx_value(fresh), 0);

    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 0);
    cr_assert_eq(gc_used_bytes(gc), 0);
    cr_assert_eq(gc->alloc_region->top, heap_start);
    gc->ops->destroy(gc);
}

/* Survivors keep allocation order and end up back to back. */
static uint64_t walk_index;
static void assert_in_order(Obj *obj, uint32_t arena_id, void *ctx) {
    cr_assert_eq(obj, at(walk_index * FX_NODE_BYTES), "object %llu", (unsigned long long)walk_index);
    cr_assert_eq(*fx_value(obj), walk_index, "object %llu", (unsigned long long)walk_index);
    walk_index++;
}

Test(markcompact, survivors_keep_allocation_order) {
    Gc *gc = mc_heap(1 << 20);
    Obj *array = gc_alloc(gc, &fx_array_class, 64);
    cr_assert_not_null(array);
    fx_roots[0] = array;
    for (uint32_t i = 0; i < 64; i++) {
        make_dirty_garbage(gc, i % 3);
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        gc_write_ref(gc, fx_roots[0], &((Obj **)obj_body(fx_roots[0]))[i], node);
    }
    fx_roots[0] = NULL; /* the array dies; the nodes live on through roots */
    for (int r = 0; r < FX_NUM_ROOTS; r++) {
        fx_roots[r] = ((Obj **)obj_body(array))[r * 4];
        *fx_value(fx_roots[r]) = (uint64_t)r;
    }
    heap_start = (uint8_t *)array;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), FX_NUM_ROOTS);
    walk_index = 0;
    gc->ops->walk_heap(gc, assert_in_order, NULL);
    cr_assert_eq(walk_index, FX_NUM_ROOTS);
    for (int r = 0; r < FX_NUM_ROOTS; r++) cr_assert_eq(fx_roots[r], at((size_t)r * FX_NODE_BYTES));
    gc->ops->destroy(gc);
}

Test(markcompact, long_chain_survives_without_recursion) {
    /* 1,000,000 nodes: recursive marking would need that many C frames. */
    const uint64_t n = 1000000;
    Gc *gc = mc_heap(n * FX_NODE_BYTES + (1 << 20));
    gc->config.verify = false; /* keep the test fast */
    fx_new_node(gc, 2, 0);
    make_dirty_garbage(gc, 1000); /* below the list: all of it slides */
    fx_roots[2] = NULL;
    fx_build_list(gc, 0, 1, n);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), n);
    cr_assert_eq(gc_used_bytes(gc), n * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_moved, n);
    fx_assert_list(fx_roots[0], n);
    gc->ops->destroy(gc);
}

Test(markcompact, ref_arrays_cycles_and_shared_referents_are_updated) {
    Gc *gc = mc_heap(1 << 20);
    make_dirty_garbage(gc, 5); /* so that everything above slides */
    const uint32_t len = 50;
    fx_build_cyclic_array(gc, 0, 1, len, 3);
    fx_roots[1] = ((Obj **)obj_body(fx_roots[0]))[7]; /* two roots, one referent */
    fx_roots[2] = fx_roots[1];
    fx_make_garbage_cycle(gc, 3, 4);

    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1 + len);
    cr_assert_eq(gc_used_bytes(gc), obj_size_for(&fx_array_class, len) + len * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_moved, 1 + len);
    cr_assert_eq(gc->stats.objects_freed, 5 + 3 * len + 2, "the unreachable cycle too");
    fx_assert_cyclic_array(fx_roots[0], len);
    cr_assert_eq(fx_roots[1], ((Obj **)obj_body(fx_roots[0]))[7]);
    cr_assert_eq(fx_roots[2], fx_roots[1]);
    gc->ops->destroy(gc);
}

Test(markcompact, strings_slide_with_their_bytes) {
    Gc *gc = mc_heap(1 << 20);
    make_dirty_garbage(gc, 10);
    const char *text = "mark, compact, slide";
    Obj *s = gc_alloc(gc, &fx_string_class, (uint32_t)strlen(text));
    cr_assert_not_null(s);
    memcpy(obj_body(s), text, strlen(text));
    fx_roots[5] = s;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1);
    cr_assert_neq(fx_roots[5], s, "the string slid down over the garbage");
    cr_assert_str_eq(str_chars(fx_roots[5]), text);
    gc->ops->destroy(gc);
}

Test(markcompact, collects_when_the_budget_is_exhausted) {
    Gc *gc = mc_heap(100 * FX_NODE_BYTES);
    fx_assert_collects_when_full(gc, 100);
    cr_assert_eq(gc->stats.collections, 11, "one collection per heap of garbage");
    gc->ops->destroy(gc);
}

Test(markcompact, the_fast_path_fills_the_budget_to_the_last_byte) {
    Gc *gc = mc_heap(100 * FX_NODE_BYTES);
    make_dirty_garbage(gc, 100);
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(gc->alloc_region->top, gc->alloc_region->limit, "the fast path used the whole budget");
    make_dirty_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 99 * FX_NODE_BYTES, "all but the new node free again");
    gc->ops->destroy(gc);
}

Test(markcompact, out_of_memory_when_live_data_exceeds_the_heap) {
    Gc *gc = mc_heap(64 * FX_NODE_BYTES);
    cr_assert_eq(fx_fill_until_out_of_memory(gc, 0), 64, "exactly 64 live nodes fit");
    cr_assert_eq(gc_used_objects(gc), 64);
    cr_assert_eq(gc->alloc_region->top, gc->alloc_region->limit, "and fill the heap to the last byte");
    gc->ops->destroy(gc);
}

Test(markcompact, request_larger_than_the_heap_fails_without_collecting) {
    Gc *gc = mc_heap(4096);
    fx_assert_oversized_request_fails(gc, 4096);
    gc->ops->destroy(gc);
}

Test(markcompact, stress_collects_at_every_allocation) { fx_assert_stress_collects_every_allocation(MC); }

Test(markcompact, disabled_gc_grows_past_the_budget_instead_of_collecting) {
    Gc *gc = mc_heap(10 * FX_NODE_BYTES);
    fx_assert_disabled_gc_does_not_collect(gc, 15);
    cr_assert_gt(gc->alloc_region->top, gc->alloc_region->limit, "past the budget the fast path has no room");
    cr_assert_null(gc_alloc(gc, &fx_bytes_class, 10 * FX_NODE_BYTES),
                   "a request larger than the whole heap still fails");
    make_dirty_garbage(gc, 1000); /* a hundred budgets: growth is not a fixed reserve */
    cr_assert_eq(gc->stats.collections, 0);

    fx_enable_gc(gc);
    make_dirty_garbage(gc, 1);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(fx_count_heap(gc).objects, 1);
    cr_assert_eq(gc_total_bytes(gc), 10 * FX_NODE_BYTES, "back to the configured heap");
    cr_assert_leq(gc->alloc_region->top, gc->alloc_region->limit, "and back on the fast path");
    gc->ops->destroy(gc);
}

Test(markcompact, write_barrier_op_is_a_plain_store) {
    Gc *gc = mc_heap(1 << 20);
    fx_assert_plain_store_barrier(gc);
    gc->ops->destroy(gc);
}

/* The golden pattern of a first collection (docs/event-mapping.md, markcompact row). */
Test(markcompact, events_follow_the_mapping_row) {
    fx_record_events();
    Gc *gc = mc_heap(1 << 20);
    Obj *a = first_alloc(gc, 0);                  /* live: a root; stays */
    Obj *b = gc_alloc(gc, &fx_node_class, 0);     /* dead */
    Obj *c = gc_alloc(gc, &fx_node_class, 0);     /* live: a.left; slides onto b */
    Obj *d = gc_alloc(gc, &fx_array_class, 3);    /* dead */
    Obj *e = fx_new_node(gc, 1, 5);               /* live: a root; slides onto c */
    gc_write_ref(gc, a, fx_left(a), c);
    gc_collect(gc, GC_REASON_REQUESTED);

    const int32_t node = (int32_t)FX_NODE_BYTES, array = (int32_t)obj_size_for(&fx_array_class, 3);
    const FxEvent expected[] = {
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = 1, .arena_name = "heap"},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = a, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = b, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = c, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = d, .size = array},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = 1, .obj_id = e, .size = node},
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = b},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = d},
        /* a stays put: no event.  c takes the freed b's ID; then e takes
         * c's, which c has just given up. */
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = c, .new_arena_id = 1, .new_obj_id = b},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = 1, .obj_id = e, .new_arena_id = 1, .new_obj_id = c},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 3, .used_object_space = 3 * node,
         .total_object_space = 1 << 20},
    };
    fx_assert_events(expected, (int)(sizeof expected / sizeof expected[0]));
    cr_assert_eq(fx_roots[1], c, "e's root followed it");
    cr_assert_eq(*fx_left(fx_roots[0]), b, "and a.left followed c");
    gc->ops->destroy(gc);
}

Test(markcompact, destroy_posts_no_events) { fx_assert_destroy_posts_no_events(MC, 1 << 20); }

/* ---- the event stream against a model, under a random program ----------------
 * The fixture's model (fx_stream) keeps the set of defined IDs with their
 * sizes, as the check agent does, and checks the contract rules; this row
 * adds the collector's own: one arena, whose size GC_FINISH reports, and in
 * each collection every free before every move, the moves in address
 * order, each one down the heap. */

static struct {
    bool moved_yet;          /* in this collection */
    uintptr_t last_move;     /* the old ID of its last move */
    int64_t total_object_space;
} mc_row;

static void markcompact_row(const VMPI_Event *event, const FxStreamEntry *before) {
    (void)before;
    switch (event->event_type) {
    case VMPI_EVENT_OBJECT_ALLOC:
        cr_assert_eq(event->u.obj_alloc.arena_id, 1);
        break;
    case VMPI_EVENT_OBJECT_FREE:
        cr_assert(!mc_row.moved_yet, "OBJECT_FREE after an OBJECT_MOVE");
        break;
    case VMPI_EVENT_OBJECT_MOVE: {
        const void *id = event->u.obj_move.obj_id, *new_id = event->u.obj_move.new_obj_id;
        cr_assert_eq(event->u.obj_move.arena_id, 1);
        cr_assert_eq(event->u.obj_move.new_arena_id, 1);
        cr_assert_lt((uintptr_t)new_id, (uintptr_t)id, "objects only slide down");
        cr_assert_gt((uintptr_t)id, mc_row.last_move, "moves in address order");
        mc_row.last_move = (uintptr_t)id;
        mc_row.moved_yet = true;
        break;
    }
    case VMPI_EVENT_GC_START:
        mc_row.moved_yet = false;
        mc_row.last_move = 0;
        break;
    case VMPI_EVENT_GC_FINISH:
        cr_assert_eq(event->u.gc_info.total_object_space, mc_row.total_object_space);
        break;
    default:
        break;
    }
}

static void model_listen(int64_t heap_bytes) {
    memset(&mc_row, 0, sizeof mc_row);
    mc_row.total_object_space = heap_bytes;
    fx_stream_listen(markcompact_row);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint32_t rng(uint32_t bound) {
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng_state >> 33) % bound;
}

Test(markcompact, random_program_keeps_the_event_contract) {
    const size_t heap_bytes = 8 * 1024;
    model_listen((int64_t)heap_bytes);
    Gc *gc = mc_heap(heap_bytes);
    /* Each live node's value is its serial number; serial[r] is what the
     * node in root r must still hold, wherever it has slid to. */
    uint64_t serial[FX_NUM_ROOTS] = {0}, next_serial = 1;
    for (int step = 0; step < 20000; step++) {
        /* The last root is scratch, for what an allocation must keep. */
        int r = (int)rng(FX_NUM_ROOTS - 1), s = (int)rng(FX_NUM_ROOTS - 1);
        switch (rng(6)) {
        case 0:
        case 1: /* a new node, keeping what the root held reachable through it */
            fx_roots[FX_NUM_ROOTS - 1] = fx_roots[r];
            fx_new_node(gc, r, next_serial);
            gc_write_ref(gc, fx_roots[r], fx_left(fx_roots[r]), fx_roots[FX_NUM_ROOTS - 1]);
            fx_roots[FX_NUM_ROOTS - 1] = NULL;
            serial[r] = next_serial++;
            break;
        case 2: /* a ref array holding two roots' objects */
            if (gc_alloc(gc, &fx_bytes_class, rng(40)) == NULL) cr_assert_fail("bytes");
            fx_roots[FX_NUM_ROOTS - 1] = gc_alloc(gc, &fx_array_class, 2 + rng(6));
            cr_assert_not_null(fx_roots[FX_NUM_ROOTS - 1]);
            Obj **elems = obj_body(fx_roots[FX_NUM_ROOTS - 1]);
            elems[0] = fx_roots[r];
            elems[1] = fx_roots[s];
            if (fx_roots[r] != NULL)
                gc_write_ref(gc, fx_roots[r], fx_right(fx_roots[r]), fx_roots[FX_NUM_ROOTS - 1]);
            fx_roots[FX_NUM_ROOTS - 1] = NULL;
            break;
        case 3: /* share */
            fx_roots[r] = fx_roots[s];
            serial[r] = serial[s];
            break;
        case 4: /* drop */
            fx_roots[r] = NULL;
            serial[r] = 0;
            break;
        case 5: /* a collection on request now and then, else garbage */
            if (rng(20) == 0) gc_collect(gc, GC_REASON_REQUESTED);
            else make_dirty_garbage(gc, 1 + rng(4));
            break;
        }
        for (int i = 0; i < FX_NUM_ROOTS; i++)
            if (serial[i] != 0) cr_assert_eq(*fx_value(fx_roots[i]), serial[i], "root %d, step %d", i, step);
    }
    cr_assert_gt(fx_stream.collections, 100, "the small heap made many collections");
    cr_assert_gt(fx_stream.moves, 1000);
    cr_assert_eq(gc->stats.objects_freed, fx_stream.frees, "the statistics count every event");
    cr_assert_eq(gc->stats.objects_moved, fx_stream.moves);
    fx_stream_assert_heap(gc);
    gc->ops->destroy(gc);
}

/* An agent may look at the heap from its handler in the middle of a
 * collection (say, to ask about an object it was just told moved).  At
 * every OBJECT_FREE and OBJECT_MOVE the heap must list exactly the stream's
 * live objects: survivors already slid, survivors not yet slid, and dead
 * objects not yet freed. */
Test(markcompact, walk_heap_is_exact_in_the_middle_of_a_collection) {
    model_listen(1 << 20);
    Gc *gc = mc_heap(1 << 20);
    fx_stream.gc = gc; /* walked at every event */
    fx_build_list(gc, 0, 1, 1);
    for (uint64_t i = 0; i < 60; i++) {
        make_dirty_garbage(gc, i % 4);
        fx_new_node(gc, 1, i);
        gc_write_ref(gc, fx_roots[1], fx_left(fx_roots[1]), fx_roots[0]);
        fx_roots[0] = fx_roots[1];
        if (i % 3 == 0) cr_assert_not_null(gc_alloc(gc, &fx_string_class, (uint32_t)i));
    }
    fx_roots[1] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_gt(fx_stream.frees, 100);
    cr_assert_gt(fx_stream.moves, 50);
    uint64_t count = 0;
    for (Obj *node = fx_roots[0]; node != NULL; node = *fx_left(node)) count++;
    cr_assert_eq(count, 61);
    gc->ops->destroy(gc);
}

/* ---- the mark bitmap (gc/common/markbits.h), which only this collector uses */

Test(markbits, finds_marked_granules_across_words) {
    static uint64_t region[1000]; /* 8000 bytes: 1000 granules, 16 words */
    const uint8_t *base = (const uint8_t *)region, *limit = base + sizeof region;
    GcMarkBits bits;
    cr_assert(gc_markbits_init(&bits, base, sizeof region));
    cr_assert_eq(gc_markbits_next(&bits, base, limit), limit, "nothing marked yet");
    const size_t marked[] = {0, 2, 62, 64, 130, 700, 999};
    for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++) {
        cr_assert(gc_markbits_try_mark(&bits, base + marked[i] * 8));
        cr_assert(!gc_markbits_try_mark(&bits, base + marked[i] * 8), "marked twice");
    }
    const uint8_t *at = base;
    for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++) {
        at = gc_markbits_next(&bits, at, limit);
        cr_assert_eq(at, base + marked[i] * 8, "mark %zu", i);
        cr_assert(gc_markbits_is_marked(&bits, at));
        cr_assert(!gc_markbits_is_marked(&bits, at + 8));
        at += 8;
    }
    cr_assert_eq(gc_markbits_next(&bits, at, limit), limit);
    cr_assert_eq(gc_markbits_next(&bits, base + 131 * 8, base + 700 * 8), base + 700 * 8,
                 "a limit stops the search");
    gc_markbits_clear(&bits, limit);
    cr_assert_eq(gc_markbits_next(&bits, base, limit), limit, "all clear again");
    gc_markbits_free(&bits);
}
