/*
 * gc_generational.c -- unit tests of the generational collector, driven
 * only through the collector interface (gc/gc.h) and the fixture's
 * miniature VM (gc_fixture.h).  Every heap here runs with --verify-heap on,
 * so each collection is also checked by the verifier before and after: a
 * reference the collector failed to update, or an object it let die while
 * something still pointed at it, stops the test.
 *
 * The layout under test: arena 1 the nursery (--young), arenas 2 and 3 the
 * survivor spaces (young / 8 each, survivor-0 the first from-survivor), and
 * arena 4 the old generation (the rest of --heap).  fx_config gives
 * --young = heap / 4 and --tenure = 2.  Objects move at every collection,
 * so tests read them again through fx_roots after anything that may
 * collect.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "gc/common/verify.h"
#include "gc_fixture.h"

#define GEN "generational"

enum { NURSERY = 1, SURVIVOR_0 = 2, SURVIVOR_1 = 3, OLD = 4 };

/* The sizes gen_create derives from --heap and --young. */
typedef struct Layout {
    size_t nursery, survivor, old;
} Layout;

static Layout layout_of(const GcConfig *config) {
    size_t nursery = config->young_bytes & ~(size_t)7;
    size_t survivor = nursery / 8 & ~(size_t)7;
    return (Layout){nursery, survivor, config->heap_bytes - nursery - 2 * survivor};
}

static Gc *gen_heap_tenured(size_t heap_bytes, uint32_t tenure_age) {
    GcConfig config = fx_config(heap_bytes);
    config.tenure_age = tenure_age;
    return fx_create(GEN, &config);
}

static Gc *gen_heap(size_t heap_bytes) { return gen_heap_tenured(heap_bytes, 2); }

/* A heap whose nursery holds exactly 64 nodes, each survivor space 8, and
 * the old generation 176. */
#define SMALL_HEAP (256 * FX_NODE_BYTES)

/* The arena walk_heap lists `obj` in, or 0 if it does not list it. */
static uint32_t arena_of(Gc *gc, const Obj *obj) {
    FxFinding finding = fx_find_in_heap(gc, obj);
    cr_assert_leq(finding.times, 1, "walk_heap lists %p %d times", (const void *)obj, finding.times);
    return finding.arena_id;
}

/* Counts what walk_heap lists in one arena. */
typedef struct ArenaCount {
    uint32_t arena_id;
    uint64_t objects;
} ArenaCount;

static void count_in_arena(Obj *obj, uint32_t arena_id, void *ctx) {
    ArenaCount *count = ctx;
    if (arena_id == count->arena_id) count->objects++;
}

static uint64_t objects_in_arena(Gc *gc, uint32_t arena_id) {
    ArenaCount count = {arena_id, 0};
    gc->ops->walk_heap(gc, count_in_arena, &count);
    return count.objects;
}

/* Allocates unreferenced nodes until the nursery fills and a minor
 * collection runs. */
static void run_minor(Gc *gc) {
    uint64_t minors = gc->stats.minor_collections, majors = gc->stats.major_collections;
    while (gc->stats.minor_collections == minors) {
        cr_assert_not_null(gc_alloc(gc, &fx_node_class, 0), "garbage allocation failed");
        cr_assert_eq(gc->stats.major_collections, majors, "a major collection instead of a minor one");
    }
}

/* ---- shape ------------------------------------------------------------------- */

static const GcArenaInfo arenas[] = {
    {NURSERY, "nursery"}, {SURVIVOR_0, "survivor-0"}, {SURVIVOR_1, "survivor-1"}, {OLD, "old"}};

Test(generational, publishes_its_constraints) {
    const GcOps *ops = fx_assert_constraints(
        GEN, &(GcConstraints){.name = "generational", .moves_objects = true,
                              .barrier = GC_BARRIER_GENERATIONAL, .num_arenas = 4, .arenas = arenas});
    Gc *gc = gen_heap(1 << 20);
    cr_assert_eq(gc->ops, ops);
    cr_assert_eq(gc->barrier, GC_BARRIER_GENERATIONAL, "the VM must call the barrier");
    cr_assert_neq(gc->alloc_region, &gc_closed_region, "the nursery is bump-allocated inline");
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 1 << 18, "the nursery is --young");
    cr_assert(fx_all_zero(gc->alloc_region->top, 1 << 18), "the fresh nursery is zero-filled");
    cr_assert_eq(gc->alloc_region->arena_id, NURSERY);
    cr_assert_eq(gc_total_bytes(gc), (1 << 20) - (1 << 15),
                 "capacity: the heap but one survivor space (young / 8)");
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

Test(generational, sizes_its_young_generation_from_the_configuration) {
    GcConfig config = fx_config(1 << 20);
    config.young_bytes = 0;
    Gc *unset = fx_create(GEN, &config);
    cr_assert_eq(unset->alloc_region->limit - unset->alloc_region->top, 1 << 18, "unset: a quarter of the heap");
    unset->ops->destroy(unset);
    config.young_bytes = 1 << 20;
    Gc *capped = fx_create(GEN, &config);
    cr_assert_eq(capped->alloc_region->limit - capped->alloc_region->top, 1 << 19, "at most half of the heap");
    capped->ops->destroy(capped);
    config.young_bytes = 4;
    cr_assert_null(gc_ops_by_name(GEN)->create(&config), "no room for a nursery");
    config.young_bytes = (1 << 18) + 7;
    Gc *gc = fx_create(GEN, &config);
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 1 << 18, "sizes round down to whole words");
    gc->ops->destroy(gc);
}

/* Without -Xmn (config.initial_young_bytes below young_bytes) the nursery
 * follows the old generation's live data: GEN_NURSERY_PER_OLD_LIVE (4)
 * times it after each major collection, between the two sizes. */
Test(generational, the_nursery_follows_the_old_generations_live_data) {
    GcConfig config = fx_config(16 << 20);
    config.initial_heap_bytes = 1 << 20;
    config.initial_young_bytes = 512 << 10;
    Gc *gc = fx_create(GEN, &config);
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 512 << 10, "an empty old generation: the least");
    fx_build_list(gc, 0, 1, (3 << 20) / 2 / FX_NODE_BYTES); /* 1.5 MiB that stay */
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 4 << 20, "4 x 1.5 MiB, capped at --young");
    fx_roots[0] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->alloc_region->limit - gc->alloc_region->top, 512 << 10, "back to the least once it is garbage");
    gc->ops->destroy(gc);
}

Test(generational, allocation_bumps_in_the_nursery) {
    Gc *gc = gen_heap(1 << 20);
    uint8_t *start = gc->alloc_region->top;
    Obj *made[3];
    fx_assert_allocation_fills_headers(gc, NURSERY, made);
    cr_assert_eq((uint8_t *)made[0], start, "the first object is at the start of the nursery");
    cr_assert_eq((uint8_t *)made[1], start + FX_NODE_BYTES, "objects are laid end to end");
    cr_assert_eq(gc->alloc_region->top, (uint8_t *)made[2] + obj_size(made[2]));
    gc->ops->destroy(gc);
}

/* ---- minor collections ----------------------------------------------------------- */

Test(generational, minor_copies_survivors_and_abandons_garbage) {
    Gc *gc = gen_heap(SMALL_HEAP);
    uint8_t *nursery = gc->alloc_region->top;
    fx_new_node(gc, 0, 7);
    fx_make_garbage(gc, 20);
    fx_new_node(gc, 1, 8);
    gc_write_ref(gc, fx_roots[0], fx_right(fx_roots[0]), fx_roots[1]);
    fx_roots[1] = NULL; /* reachable only through roots[0].right */
    Obj *before = fx_roots[0];

    run_minor(gc);
    cr_assert_eq(gc->stats.collections, 1);
    cr_assert_eq(gc->stats.minor_collections, 1);
    cr_assert_eq(gc->stats.objects_moved, 2);
    cr_assert_eq(gc->stats.bytes_moved, 2 * FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_freed, 62, "the 64-node nursery held 2 survivors");
    cr_assert_eq(gc_used_objects(gc), 3, "the survivors and the allocation that collected");
    cr_assert_neq(fx_roots[0], before, "the root names the copy");
    cr_assert_eq(arena_of(gc, fx_roots[0]), SURVIVOR_1, "first survival: to-survivor");
    cr_assert_eq(arena_of(gc, *fx_right(fx_roots[0])), SURVIVOR_1);
    cr_assert_eq(*fx_value(fx_roots[0]), 7);
    cr_assert_eq(*fx_value(*fx_right(fx_roots[0])), 8);
    cr_assert_eq(fx_roots[0]->gc_word & 0xff, 1, "age 1");
    cr_assert_eq(gc->alloc_region->top, nursery + FX_NODE_BYTES, "the nursery starts again from the bottom");
    cr_assert(fx_all_zero(gc->alloc_region->top, (size_t)(gc->alloc_region->limit - gc->alloc_region->top)),
              "the emptied nursery is zero again");
    gc->ops->destroy(gc);
}

/* --tenure=N: an object is promoted at its N-th survival (0 and 1: the
 * first); before that it moves between the survivor spaces. */
typedef struct TenureCase {
    uint32_t tenure_age;
    uint32_t arenas[3]; /* after the first, second and third minor collection */
} TenureCase;

ParameterizedTestParameters(generational, promotion_happens_at_the_tenure_age) {
    static TenureCase cases[] = {
        {0, {OLD, OLD, OLD}},
        {1, {OLD, OLD, OLD}},
        {2, {SURVIVOR_1, OLD, OLD}},
        {3, {SURVIVOR_1, SURVIVOR_0, OLD}},
        {4, {SURVIVOR_1, SURVIVOR_0, SURVIVOR_1}},
    };
    return cr_make_param_array(TenureCase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(TenureCase *tc, generational, promotion_happens_at_the_tenure_age) {
    Gc *gc = gen_heap_tenured(SMALL_HEAP, tc->tenure_age);
    fx_build_list(gc, 0, 1, 3);
    for (int minor = 0; minor < 3; minor++) {
        run_minor(gc);
        for (Obj *node = fx_roots[0]; node != NULL; node = *fx_left(node))
            cr_assert_eq(arena_of(gc, node), tc->arenas[minor], "tenure %u, after minor %d",
                         tc->tenure_age, minor + 1);
        fx_assert_list(fx_roots[0], 3);
    }
    gc->ops->destroy(gc);
}

Test(generational, a_full_survivor_space_promotes_early) {
    Gc *gc = gen_heap(SMALL_HEAP); /* survivor spaces hold 8 nodes */
    fx_build_list(gc, 0, 1, 20);
    run_minor(gc);
    cr_assert_eq(objects_in_arena(gc, SURVIVOR_1), 8, "to-survivor filled up");
    cr_assert_eq(objects_in_arena(gc, OLD), 12, "the rest went to the old generation at age 1");
    fx_assert_list(fx_roots[0], 20);
    gc->ops->destroy(gc);
}

/* ---- the write barrier -------------------------------------------------------- */

/* The classic generational bug: a young object reachable only from an old
 * one must survive a minor collection, which does not trace the old
 * generation, and the old object's slot must name its copy. */
Test(generational, old_to_young_reference_keeps_the_young_object_alive) {
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_new_node(gc, 0, 1);
    gc_collect(gc, GC_REASON_REQUESTED); /* a major collection promotes everything */
    Obj *old = fx_roots[0];
    cr_assert_eq(arena_of(gc, old), OLD);

    Obj *young = fx_new_node(gc, 1, 42);
    gc_write_ref(gc, old, fx_left(old), young);
    gc_write_ref(gc, old, fx_left(old), young); /* remembered once, however often */
    fx_roots[1] = NULL;                          /* only the old object refers to it */
    for (int minor = 1; minor <= 3; minor++) {
        run_minor(gc);
        cr_assert_eq(fx_roots[0], old, "minor collections never move old objects");
        Obj *child = *fx_left(old);
        cr_assert_eq(*fx_value(child), 42, "minor %d", minor);
        uint32_t arena = arena_of(gc, child);
        if (minor == 1) cr_assert(arena == SURVIVOR_0 || arena == SURVIVOR_1, "first survival: arena %u", arena);
        else cr_assert_eq(arena, OLD, "minor %d: promoted at --tenure=2", minor);
        if (minor < 3) cr_assert_neq(child, young, "minor %d: the old object's slot names the copy", minor);
        else cr_assert_eq(child, young, "an old child stays where it is");
        young = child;
    }
    gc->ops->destroy(gc);
}

/* The test above could fail: a store that bypasses the barrier leaves the
 * old object pointing into the emptied nursery, and the verifier sees it. */
Test(generational, a_store_without_the_barrier_is_the_bug_the_barrier_prevents) {
    Gc *gc = gen_heap(SMALL_HEAP);
    gc->config.verify = false;
    fx_new_node(gc, 0, 1);
    gc_collect(gc, GC_REASON_REQUESTED);
    fx_make_garbage(gc, 1); /* so that the lost object's place is not reused */
    Obj *young = fx_new_node(gc, 1, 42);
    *fx_left(fx_roots[0]) = young; /* no gc_write_ref */
    fx_roots[1] = NULL;
    run_minor(gc);
    char problem[256];
    cr_assert_not_null(gc_check_heap(gc, problem, sizeof problem), "the young object was lost");
    cr_assert(strstr(problem, "slot") != NULL, "%s", problem);
    gc->ops->destroy(gc);
}

/* An object promoted while a young object it refers to stays young must
 * become remembered: no barrier saw that reference made old-to-young, and
 * without it the next minor collection would lose the young one. */
Test(generational, a_promoted_object_pointing_to_a_young_one_is_remembered) {
    Gc *gc = gen_heap(SMALL_HEAP); /* --tenure=2 */
    fx_new_node(gc, 0, 1);
    run_minor(gc); /* a: age 1 */
    Obj *b = fx_new_node(gc, 1, 99);
    gc_write_ref(gc, fx_roots[0], fx_left(fx_roots[0]), b); /* young to young */
    fx_roots[1] = NULL;
    run_minor(gc); /* a promoted at age 2, b copied at age 1 */
    cr_assert_eq(arena_of(gc, fx_roots[0]), OLD);
    uint32_t arena = arena_of(gc, *fx_left(fx_roots[0]));
    cr_assert(arena == SURVIVOR_0 || arena == SURVIVOR_1, "b stayed young (arena %u)", arena);
    run_minor(gc); /* b is reachable only through old a */
    cr_assert_eq(*fx_value(*fx_left(fx_roots[0])), 99);
    cr_assert_eq(arena_of(gc, *fx_left(fx_roots[0])), OLD);
    gc->ops->destroy(gc);
}

Test(generational, an_overwritten_old_to_young_reference_keeps_nothing_alive) {
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_new_node(gc, 0, 1);
    gc_collect(gc, GC_REASON_REQUESTED);
    Obj *young = fx_new_node(gc, 1, 2);
    gc_write_ref(gc, fx_roots[0], fx_left(fx_roots[0]), young);
    gc_write_ref(gc, fx_roots[0], fx_left(fx_roots[0]), NULL);
    fx_roots[1] = NULL;
    uint64_t freed = gc->stats.objects_freed;
    run_minor(gc);
    cr_assert_eq(gc->stats.objects_freed - freed, 64, "the whole nursery died");
    cr_assert_eq(gc_used_objects(gc), 2, "the old node and the allocation that collected");
    gc->ops->destroy(gc);
}

/* ---- major collections --------------------------------------------------------- */

Test(generational, major_promotes_everything_and_compacts_the_old_generation) {
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_build_list(gc, 0, 1, 10);
    fx_new_node(gc, 2, 77);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc->stats.major_collections, 1);
    cr_assert_eq(gc->stats.minor_collections, 0);
    cr_assert_eq(objects_in_arena(gc, OLD), 11, "a major collection empties the young generation");
    cr_assert_eq(objects_in_arena(gc, NURSERY), 0);

    fx_roots[0] = NULL; /* the list dies in the old generation */
    fx_make_garbage(gc, 5);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(gc_used_objects(gc), 1);
    cr_assert_eq(gc_used_bytes(gc), FX_NODE_BYTES);
    cr_assert_eq(gc->stats.objects_freed, 15, "the dead list and the young garbage");
    cr_assert_eq(gc->stats.objects_moved, 11 + 1, "11 promotions, then the survivor slid down");
    cr_assert_eq(*fx_value(fx_roots[2]), 77);
    cr_assert_eq(arena_of(gc, fx_roots[2]), OLD);
    gc->ops->destroy(gc);
}

Test(generational, a_full_old_generation_turns_a_minor_collection_major) {
    Gc *gc = gen_heap(SMALL_HEAP); /* old generation: 176 nodes */
    fx_build_list(gc, 0, 1, 150);
    gc_collect(gc, GC_REASON_REQUESTED); /* 150 in the old generation */
    fx_roots[0] = NULL;
    /* The old generation has room for 26 more: a full nursery might not
     * fit, so the collection that the next full nursery needs is major. */
    GcStats before = gc->stats;
    while (gc->stats.collections == before.collections) fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.major_collections, before.major_collections + 1);
    cr_assert_eq(gc->stats.minor_collections, before.minor_collections);
    cr_assert_eq(gc_used_objects(gc), 1, "the dead list went in that major collection");
    gc->ops->destroy(gc);
}

Test(generational, long_chain_survives_without_recursion) {
    /* 1,000,000 nodes: a recursive copy or mark would need that many frames. */
    const uint64_t n = 1000000;
    GcConfig config = fx_config(2 * n * FX_NODE_BYTES);
    config.young_bytes = 1 << 20;
    config.verify = false; /* keep the test fast; verified below once */
    Gc *gc = fx_create(GEN, &config);
    fx_build_list(gc, 0, 1, n); /* promoted piecemeal by minor collections */
    cr_assert_gt(gc->stats.minor_collections, 10);
    fx_make_garbage(gc, 1000);
    gc_collect(gc, GC_REASON_REQUESTED); /* then marked and compacted whole */
    FxHeapCount heap = fx_count_heap(gc);
    cr_assert_eq(heap.objects, n, "only the list is left");
    cr_assert_eq(heap.arena_id, OLD);
    fx_assert_list(fx_roots[0], n);
    char problem[256];
    cr_assert_null(gc_check_heap(gc, problem, sizeof problem), "%s", problem);
    gc->ops->destroy(gc);
}

/* The array is half old, half young when the collections come: the old
 * array's slots naming young nodes are old-to-young references. */
Test(generational, ref_arrays_cycles_and_shared_objects_survive_once) {
    enum { HALF = 25 };
    Gc *gc = gen_heap(1 << 16);
    fx_build_cyclic_array(gc, 0, 1, HALF, 7);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(arena_of(gc, fx_roots[0]), OLD);
    Obj *array = gc_alloc(gc, &fx_array_class, 2 * HALF); /* a longer copy, young, of the old one */
    cr_assert_not_null(array);
    fx_roots[2] = array;
    for (uint32_t i = 0; i < HALF; i++)
        gc_write_ref(gc, fx_roots[2], &((Obj **)obj_body(fx_roots[2]))[i], ((Obj **)obj_body(fx_roots[0]))[i]);
    fx_roots[0] = fx_roots[2];
    fx_make_garbage_cycle(gc, 4, 5);
    fx_roots[3] = fx_roots[2];

    run_minor(gc);
    cr_assert_eq(fx_roots[2], fx_roots[0], "every root slot names the one copy");
    cr_assert_eq(fx_roots[3], fx_roots[0]);
    gc_collect(gc, GC_REASON_REQUESTED);
    Obj **elems = obj_body(fx_roots[0]);
    for (uint32_t i = 0; i < HALF; i++) {
        cr_assert_eq(*fx_value(elems[i]), 1000 + i);
        cr_assert_eq(*fx_right(elems[i]), elems[i], "element %u points at itself", i);
    }
    cr_assert_eq(gc_used_objects(gc), 2 + HALF, "both arrays and the nodes");
    gc->ops->destroy(gc);
}

Test(generational, strings_survive_with_their_bytes) {
    Gc *gc = gen_heap(SMALL_HEAP);
    const char *text = "generational";
    Obj *s = gc_alloc(gc, &fx_string_class, (uint32_t)strlen(text));
    memcpy(obj_body(s), text, strlen(text));
    fx_roots[5] = s;
    run_minor(gc);
    cr_assert_str_eq(str_chars(fx_roots[5]), text);
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_str_eq(str_chars(fx_roots[5]), text);
    cr_assert_eq(arena_of(gc, fx_roots[5]), OLD);
    gc->ops->destroy(gc);
}

/* ---- pretenuring, exhaustion, stress, disabled collection ------------------------- */

Test(generational, objects_larger_than_the_nursery_are_born_old) {
    fx_record_events();
    Gc *gc = gen_heap(SMALL_HEAP);
    GcConfig config = fx_config(SMALL_HEAP);
    Layout sizes = layout_of(&config);
    Obj *big = gc_alloc(gc, &fx_bytes_class, (uint32_t)sizes.nursery); /* header + nursery > nursery */
    cr_assert_not_null(big);
    fx_roots[0] = big;
    cr_assert_eq(arena_of(gc, big), OLD);
    cr_assert_eq(gc->stats.collections, 0);
    const FxEvent *alloc = &fx_events[fx_num_events - 1];
    cr_assert_eq(alloc->type, VMPI_EVENT_OBJECT_ALLOC);
    cr_assert_eq(alloc->arena_id, OLD, "OBJECT_ALLOC names the old generation");
    cr_assert_eq(alloc->obj_id, big);
    Obj *small = fx_new_node(gc, 1, 3);
    cr_assert_eq(arena_of(gc, small), NURSERY, "other objects are still born young");

    fx_assert_oversized_request_fails(gc, sizes.old); /* header + old budget > old budget */
    gc_collect(gc, GC_REASON_REQUESTED);
    cr_assert_eq(fx_roots[0], big, "the first old object does not slide");
    gc->ops->destroy(gc);
}

Test(generational, out_of_memory_when_live_data_exceed_the_old_generation) {
    GcConfig config = fx_config(SMALL_HEAP);
    Layout sizes = layout_of(&config);
    Gc *gc = fx_create(GEN, &config);
    uint64_t built = fx_fill_until_out_of_memory(gc, 0);
    cr_assert_gt(built * FX_NODE_BYTES, sizes.old, "full only once the old generation is (%llu nodes)",
                 (unsigned long long)built);
    cr_assert_leq(built * FX_NODE_BYTES, sizes.old + sizes.nursery + sizes.survivor);
    cr_assert_geq(gc->stats.major_collections, 1, "a major collection was tried before giving up");
    cr_assert_eq(gc_used_objects(gc), built, "statistics are exact after a failed request");
    cr_assert_eq(gc_used_bytes(gc), built * FX_NODE_BYTES);
    cr_assert_null(gc_alloc(gc, &fx_node_class, 0), "still out of memory");

    fx_roots[0] = NULL; /* with the list gone, allocation works again */
    fx_build_list(gc, 0, 1, 100);
    fx_assert_list(fx_roots[0], 100);
    gc->ops->destroy(gc);
}

Test(generational, stress_collects_at_every_allocation) {
    fx_assert_stress_collects_every_allocation(GEN);
}

Test(generational, stress_makes_every_eighth_collection_major) {
    GcConfig config = fx_config(1 << 20);
    config.stress = true;
    Gc *gc = fx_create(GEN, &config);
    fx_build_list(gc, 0, 1, 100);
    cr_assert_eq(gc->stats.major_collections, 100 / 8);
    cr_assert_eq(gc->stats.minor_collections, 100 - 100 / 8);
    fx_assert_list(fx_roots[0], 100);
    gc->ops->destroy(gc);
}

Test(generational, disabled_gc_fills_the_nursery_then_the_old_generation) {
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_new_node(gc, 0, 5);
    fx_assert_disabled_gc_does_not_collect(gc, 300); /* more than the old budget, 176 nodes */
    cr_assert_eq(gc->stats.collections, 0);
    cr_assert_eq(objects_in_arena(gc, NURSERY), 64, "the nursery first");
    cr_assert_eq(objects_in_arena(gc, OLD), 237, "then the old generation, past its budget");
    char problem[256];
    cr_assert_null(gc_check_heap(gc, problem, sizeof problem), "%s", problem);

    fx_enable_gc(gc);
    fx_make_garbage(gc, 1);
    cr_assert_eq(gc->stats.major_collections, 1, "over budget: the first collection is major");
    cr_assert_eq(gc_used_objects(gc), 2);
    cr_assert_eq(gc_total_bytes(gc), SMALL_HEAP - 8 * FX_NODE_BYTES, "back to the configured heap");
    cr_assert_eq(*fx_value(fx_roots[0]), 5);
    cr_assert_neq(gc->alloc_region, &gc_closed_region, "the fast path is open again");
    gc->ops->destroy(gc);
}

/* Past the old budget, and far past it: the growth is not a fixed reserve,
 * and the evacuation reserve stays free above it. */
Test(generational, disabled_gc_grows_the_old_generation_and_keeps_the_evacuation_reserve) {
    Gc *gc = gen_heap(SMALL_HEAP);
    gc_disable(gc);
    fx_roots[0] = NULL;
    for (uint64_t built = 0; built < 100 * SMALL_HEAP / 1000; built++)
        cr_assert_not_null(gc_alloc(gc, &fx_bytes_class, 1000));
    cr_assert_eq(gc->stats.collections, 0);
    fx_enable_gc(gc);
    gc_collect(gc, GC_REASON_REQUESTED); /* must not run out of room halfway */
    cr_assert_eq(gc_used_objects(gc), 0);
    gc->ops->destroy(gc);
}

Test(generational, free_space_is_always_zero) {
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_new_node(gc, 0, 1);
    for (int i = 0; i < 300; i++) { /* dirty garbage, young and promoted */
        Obj *node = gc_alloc(gc, &fx_node_class, 0);
        *fx_value(node) = UINT64_MAX;
        gc_write_ref(gc, node, fx_left(node), node);
        if (i % 3 == 0) fx_roots[1 + i % 8] = node;
        if (i == 150) gc_collect(gc, GC_REASON_REQUESTED);
    }
    cr_assert(fx_all_zero(gc->alloc_region->top, (size_t)(gc->alloc_region->limit - gc->alloc_region->top)));
    for (int i = 1; i < 9; i++) fx_roots[i] = NULL;
    gc_collect(gc, GC_REASON_REQUESTED); /* the dirty old objects die and the rest slides */
    cr_assert(fx_all_zero(gc->alloc_region->top, (size_t)(gc->alloc_region->limit - gc->alloc_region->top)));
    /* What the compaction gave back is zero too: a pretenured object gets it. */
    GcConfig config = fx_config(SMALL_HEAP);
    uint32_t length = (uint32_t)layout_of(&config).nursery;
    Obj *big = gc_alloc(gc, &fx_bytes_class, length);
    cr_assert_not_null(big);
    cr_assert(fx_all_zero(obj_body(big), length));
    gc->ops->destroy(gc);
}

/* ---- events --------------------------------------------------------------------- */

/* The golden pattern of the first minor collection: a nursery with
 *
 *     roots[0] -> a --left--> b --right--> d        roots[1] -> e
 *                  \--right-> c
 *
 * allocated tail first, with garbage between and after them until the
 * nursery is full; one more allocation collects.  Cheney's order is the
 * roots', then breadth first: a, e, b, c, d, whatever the allocation order. */
Test(generational, first_minor_collection_follows_the_mapping_row) {
    fx_record_events();
    Gc *gc = gen_heap(SMALL_HEAP);
    /* Nothing moves before the nursery is full, so plain pointers are safe. */
    Obj *d = gc_alloc(gc, &fx_node_class, 0);
    Obj *dead_array = gc_alloc(gc, &fx_array_class, 3);
    Obj *c = gc_alloc(gc, &fx_node_class, 0);
    Obj *a = fx_new_node(gc, 0, 1);
    gc_write_ref(gc, a, fx_right(a), c);
    Obj *dead_node = gc_alloc(gc, &fx_node_class, 0);
    Obj *b = gc_alloc(gc, &fx_node_class, 0);
    gc_write_ref(gc, b, fx_right(b), d);
    gc_write_ref(gc, a, fx_left(a), b);
    Obj *e = fx_new_node(gc, 1, 5);
    const int32_t node = FX_NODE_BYTES;
    const FxEvent start_up[] = {
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = NURSERY, .arena_name = "nursery"},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = SURVIVOR_0, .arena_name = "survivor-0"},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = SURVIVOR_1, .arena_name = "survivor-1"},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = OLD, .arena_name = "old"},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = d, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = dead_array,
         .size = (int32_t)obj_size_for(&fx_array_class, 3)},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = c, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = a, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = dead_node, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = b, .size = node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = e, .size = node},
    };
    fx_assert_events(start_up, sizeof start_up / sizeof start_up[0]);
    fx_make_garbage(gc, 64 - 7); /* the nursery is full, not yet collected */
    cr_assert_eq(gc->alloc_region->top, gc->alloc_region->limit);
    cr_assert_eq(gc->stats.collections, 0);

    fx_num_events = 0;
    Obj *trigger = gc_alloc(gc, &fx_node_class, 0);
    const uint8_t *to = (const uint8_t *)fx_roots[0]; /* a's copy comes first */
    const FxEvent first_minor[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = a, .new_arena_id = SURVIVOR_1,
         .new_obj_id = to},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = e, .new_arena_id = SURVIVOR_1,
         .new_obj_id = to + node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = b, .new_arena_id = SURVIVOR_1,
         .new_obj_id = to + 2 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = c, .new_arena_id = SURVIVOR_1,
         .new_obj_id = to + 3 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = d, .new_arena_id = SURVIVOR_1,
         .new_obj_id = to + 4 * node},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = NURSERY},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = NURSERY, .arena_name = "nursery"},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = SURVIVOR_0}, /* from-survivor, empty */
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = SURVIVOR_0, .arena_name = "survivor-0"},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 5, .used_object_space = 5 * node,
         .total_object_space = SMALL_HEAP - 8 * node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = d, .size = node},
    };
    fx_assert_events(first_minor, sizeof first_minor / sizeof first_minor[0]);
    cr_assert_eq(trigger, d, "the renewed nursery starts where it did: IDs are reused");

    /* The second minor collection promotes them (--tenure=2) out of
     * survivor-1, which it renews; the trigger dies with the nursery. */
    fx_make_garbage(gc, 63);
    fx_num_events = 0;
    gc_alloc(gc, &fx_node_class, 0);
    const uint8_t *old = (const uint8_t *)fx_roots[0];
    const FxEvent second_minor[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = SURVIVOR_1, .obj_id = to, .new_arena_id = OLD,
         .new_obj_id = old},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = SURVIVOR_1, .obj_id = to + node, .new_arena_id = OLD,
         .new_obj_id = old + node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = SURVIVOR_1, .obj_id = to + 2 * node,
         .new_arena_id = OLD, .new_obj_id = old + 2 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = SURVIVOR_1, .obj_id = to + 3 * node,
         .new_arena_id = OLD, .new_obj_id = old + 3 * node},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = SURVIVOR_1, .obj_id = to + 4 * node,
         .new_arena_id = OLD, .new_obj_id = old + 4 * node},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = NURSERY},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = NURSERY, .arena_name = "nursery"},
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = SURVIVOR_1},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = SURVIVOR_1, .arena_name = "survivor-1"},
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 5, .used_object_space = 5 * node,
         .total_object_space = SMALL_HEAP - 8 * node},
        {.type = VMPI_EVENT_OBJECT_ALLOC, .arena_id = NURSERY, .obj_id = d, .size = node},
    };
    fx_assert_events(second_minor, sizeof second_minor / sizeof second_minor[0]);
    cr_assert_eq(gc->stats.minor_collections, 2);
    cr_assert_eq(gc->stats.major_collections, 0);
    gc->ops->destroy(gc);
}

/* A major collection: the young generation is evacuated into the old one,
 * then the old generation frees its dead and slides its survivors down. */
Test(generational, major_collection_follows_the_mapping_row) {
    fx_record_events();
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_new_node(gc, 0, 1);
    gc_collect(gc, GC_REASON_REQUESTED);
    Obj *x = fx_roots[0]; /* the first old object */
    fx_roots[0] = NULL;   /* ... and dead */
    Obj *y = fx_new_node(gc, 1, 2);
    fx_num_events = 0;
    gc_collect(gc, GC_REASON_REQUESTED);

    const int32_t node = FX_NODE_BYTES;
    const uint8_t *after_x = (const uint8_t *)x + node;
    const FxEvent expected[] = {
        {.type = VMPI_EVENT_GC_START},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = NURSERY, .obj_id = y, .new_arena_id = OLD,
         .new_obj_id = after_x}, /* every survivor is promoted */
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = NURSERY},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = NURSERY, .arena_name = "nursery"},
        /* the first major collection left survivor-1 as from-survivor */
        {.type = VMPI_EVENT_ARENA_DELETE, .arena_id = SURVIVOR_1},
        {.type = VMPI_EVENT_ARENA_NEW, .arena_id = SURVIVOR_1, .arena_name = "survivor-1"},
        {.type = VMPI_EVENT_OBJECT_FREE, .obj_id = x},
        {.type = VMPI_EVENT_OBJECT_MOVE, .arena_id = OLD, .obj_id = after_x, .new_arena_id = OLD,
         .new_obj_id = x}, /* y slides down into x's place */
        {.type = VMPI_EVENT_GC_FINISH, .used_objects = 1, .used_object_space = node,
         .total_object_space = SMALL_HEAP - 8 * node},
    };
    fx_assert_events(expected, sizeof expected / sizeof expected[0]);
    cr_assert_eq(fx_roots[1], x);
    cr_assert_eq(gc->stats.major_collections, 2);
    gc->ops->destroy(gc);
}

/* An agent may look at the heap while the collector copies.  At each
 * OBJECT_MOVE of a minor collection the heap must list exactly the
 * stream's live objects: the copies made so far and the originals not yet
 * copied, each once. */
static Gc *walking_gc;
static uint64_t walking_expected, walking_mismatches, walking_moves;

static void walk_at_each_move(VMPI_Event *event) {
    if (event->event_type != VMPI_EVENT_OBJECT_MOVE) return;
    walking_moves++;
    if (fx_count_heap(walking_gc).objects != walking_expected) walking_mismatches++;
}

Test(generational, walk_heap_is_exact_in_the_middle_of_a_minor_collection) {
    VMPI_Interface *iface = vmpi_register_listener(walk_at_each_move);
    cr_assert_not_null(iface);
    cr_assert_eq(iface->EnableEvent(VMPI_EVENT_OBJECT_MOVE, NULL), VMPI_OK);
    walking_gc = gen_heap(SMALL_HEAP);
    fx_build_list(walking_gc, 0, 1, 20); /* 8 stay young, 12 are promoted early */
    /* Nothing dies before ARENA_DELETE, so each move keeps the count. */
    walking_expected = 64;
    while (walking_gc->alloc_region->top != walking_gc->alloc_region->limit) fx_make_garbage(walking_gc, 1);
    fx_make_garbage(walking_gc, 1);
    cr_assert_eq(walking_moves, 20);
    cr_assert_eq(walking_mismatches, 0);
    walking_gc->ops->destroy(walking_gc);
}

/* With objects in every space -- young, surviving, old and pretenured --
 * destroy frees them all and says nothing: the heap's end is not a
 * collection. */
Test(generational, destroy_posts_no_events) {
    fx_record_events();
    Gc *gc = gen_heap(SMALL_HEAP);
    fx_build_list(gc, 0, 1, 100);
    fx_roots[2] = gc_alloc(gc, &fx_bytes_class, 64 * FX_NODE_BYTES);
    fx_new_node(gc, 3, 1);
    cr_assert_gt(objects_in_arena(gc, OLD), 0);
    int before = fx_num_events;
    gc->ops->destroy(gc);
    cr_assert_eq(fx_num_events, before);
}

/* ---- the event stream against a model, under a random program ----------------
 * The fixture's model (fx_stream) checks the contract rules; this row adds
 * the collector's own: objects are born in the nursery, or in the old
 * generation when larger than the nursery; only old objects are freed one
 * by one; moves go out of the young arenas to a survivor space or the old
 * generation, or down within the old generation; only the young arenas are
 * deleted, and each is made again in the same collection. */

static size_t stream_nursery_bytes;

static void generational_row(const VMPI_Event *event, const FxStreamEntry *before) {
    switch (event->event_type) {
    case VMPI_EVENT_OBJECT_ALLOC: {
        uint32_t arena = (uint32_t)event->u.obj_alloc.arena_id;
        int32_t size = event->u.obj_alloc.size;
        bool large = (size_t)size > stream_nursery_bytes;
        cr_assert_eq(arena, large ? OLD : NURSERY, "a %d-byte object is born in arena %u", size, arena);
        break;
    }
    case VMPI_EVENT_OBJECT_FREE:
        cr_assert_eq(before->arena, OLD, "only old objects are freed one by one");
        break;
    case VMPI_EVENT_OBJECT_MOVE: {
        uint32_t from = (uint32_t)event->u.obj_move.arena_id, to = (uint32_t)event->u.obj_move.new_arena_id;
        const void *id = event->u.obj_move.obj_id, *new_id = event->u.obj_move.new_obj_id;
        if (from == OLD) {
            cr_assert_eq(to, OLD, "old objects stay old");
            cr_assert_lt((uintptr_t)new_id, (uintptr_t)id, "old objects only slide down");
        } else {
            cr_assert(to == SURVIVOR_0 || to == SURVIVOR_1 || to == OLD, "young %u -> %u", from, to);
            cr_assert_neq(to, from, "a survivor space is never copied into itself");
        }
        break;
    }
    case VMPI_EVENT_ARENA_DELETE: {
        uint32_t arena = (uint32_t)event->u.delete_arena.arena_id;
        cr_assert(arena == NURSERY || arena == SURVIVOR_0 || arena == SURVIVOR_1, "arena %u deleted", arena);
        break;
    }
    case VMPI_EVENT_ARENA_NEW: {
        uint32_t arena = (uint32_t)event->u.new_arena.arena_id;
        cr_assert(arena >= NURSERY && arena <= OLD, "arena %u", arena);
        break;
    }
    case VMPI_EVENT_GC_FINISH:
        for (uint32_t arena = NURSERY; arena <= OLD; arena++)
            cr_assert(fx_stream.exists[arena], "arena %u deleted and not made again", arena);
        break;
    default:
        break;
    }
}

static uint64_t random_state = 0x2545F4914F6CDD1Du;
static uint32_t random_below(uint32_t bound) {
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return (uint32_t)((random_state * 0x2545F4914F6CDD1Du) >> 32) % bound;
}

Test(generational, random_program_keeps_the_event_contract) {
    GcConfig config = fx_config(64 * 1024);
    config.young_bytes = 8 * 1024;
    stream_nursery_bytes = layout_of(&config).nursery;
    fx_stream_listen(generational_row);
    Gc *gc = fx_create(GEN, &config);
    fx_stream.gc = gc;

    /* Roots 0..11 hold nodes whose value is a serial number (expect[r]);
     * root 12 a large pretenured array of nodes; the last root is scratch. */
    enum { NODES = 12, BIG = 12, SCRATCH = FX_NUM_ROOTS - 1 };
    const uint32_t big_length = (uint32_t)(stream_nursery_bytes / sizeof(Obj *)) + 2;
    uint64_t expect[NODES] = {0}, serial = 1;
    for (int step = 0; step < 60000; step++) {
        int r = (int)random_below(NODES), s = (int)random_below(NODES);
        switch (random_below(9)) {
        case 0:
        case 1: /* a new node, which keeps what the root held */
            fx_roots[SCRATCH] = fx_roots[r];
            fx_new_node(gc, r, serial);
            gc_write_ref(gc, fx_roots[r], fx_left(fx_roots[r]), fx_roots[SCRATCH]);
            fx_roots[SCRATCH] = NULL;
            expect[r] = serial++;
            break;
        case 2: /* link two roots' nodes: old to young as often as not */
            if (fx_roots[r] != NULL) gc_write_ref(gc, fx_roots[r], fx_right(fx_roots[r]), fx_roots[s]);
            break;
        case 3: /* a small array of two roots' nodes, hung on one of them */
            fx_roots[SCRATCH] = gc_alloc(gc, &fx_array_class, 2 + random_below(5));
            cr_assert_not_null(fx_roots[SCRATCH]);
            gc_write_ref(gc, fx_roots[SCRATCH], &((Obj **)obj_body(fx_roots[SCRATCH]))[0], fx_roots[r]);
            gc_write_ref(gc, fx_roots[SCRATCH], &((Obj **)obj_body(fx_roots[SCRATCH]))[1], fx_roots[s]);
            if (fx_roots[s] != NULL) gc_write_ref(gc, fx_roots[s], fx_right(fx_roots[s]), fx_roots[SCRATCH]);
            fx_roots[SCRATCH] = NULL;
            break;
        case 4: /* the large array: made now and then, filled with young nodes */
            if (fx_roots[BIG] == NULL || random_below(50) == 0) {
                fx_roots[BIG] = gc_alloc(gc, &fx_array_class, big_length);
                cr_assert_not_null(fx_roots[BIG], "step %d", step);
            }
            gc_write_ref(gc, fx_roots[BIG], &((Obj **)obj_body(fx_roots[BIG]))[random_below(big_length)], fx_roots[r]);
            break;
        case 5:
            fx_roots[r] = fx_roots[s];
            expect[r] = expect[s];
            break;
        case 6:
            fx_roots[r] = NULL;
            expect[r] = 0;
            if (random_below(30) == 0) fx_roots[BIG] = NULL;
            break;
        default: /* garbage, dirty, and a collection on request now and then */
            if (random_below(200) == 0) gc_collect(gc, GC_REASON_REQUESTED);
            for (uint32_t n = random_below(6); n > 0; n--) {
                Obj *junk = gc_alloc(gc, &fx_node_class, 0);
                cr_assert_not_null(junk);
                *fx_value(junk) = UINT64_MAX;
            }
            break;
        }
        for (int i = 0; i < NODES; i++)
            if (expect[i] != 0) cr_assert_eq(*fx_value(fx_roots[i]), expect[i], "root %d, step %d", i, step);
    }
    cr_assert_gt(gc->stats.minor_collections, 100, "the small nursery made many minor collections");
    cr_assert_gt(gc->stats.major_collections, 50);
    cr_assert_gt(fx_stream.frees, 100);
    cr_assert_gt(fx_stream.walks, 50000, "walked at every event");
    cr_assert_eq(gc->stats.collections, fx_stream.collections);
    cr_assert_eq(gc->stats.objects_moved, fx_stream.moves, "the statistics count every move");
    cr_assert_eq(gc->stats.objects_freed, fx_stream.frees + fx_stream.deaths, "... and every death");
    fx_stream.gc = NULL;
    gc->ops->destroy(gc);
}
