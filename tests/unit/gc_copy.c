/*
 * gc_copy.c -- unit tests of the shared copying machinery (gc/common/copy.h)
 * on its own, with the kind of policy a generational collector uses: only
 * the young region is condemned, and a survivor goes to the survivor region
 * or, once old enough, to the old region, its age counted in gc_word.
 *
 * The three regions are static arrays laid out by hand, and the heap is a
 * bare Gc record carrying the fixture's roots; no collector is involved.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "gc/common/copy.h"
#include "gc/common/verify.h"
#include "gc_fixture.h"

#define YOUNG_ARENA 1u
#define SURVIVOR_ARENA 2u
#define OLD_ARENA 3u
#define REGION_WORDS 256
#define AGE_MASK 0xffu

static uint64_t young_storage[REGION_WORDS], survivor_storage[REGION_WORDS], old_storage[REGION_WORDS];

typedef struct TwoGenerations {
    GcCopyRegion young;     /* allocation: the region being evacuated */
    GcCopyRegion survivor;  /* destination of objects of age 0 */
    GcCopyRegion old;       /* destination of older objects; also holds objects that stay */
    uint32_t promote_age;   /* objects at least this old go to `old` */
} TwoGenerations;

static uint32_t young_condemned(const Obj *obj, void *ctx) {
    const TwoGenerations *gens = ctx;
    uintptr_t p = (uintptr_t)obj;
    if (p >= (uintptr_t)gens->young.start && p < (uintptr_t)gens->young.limit) return YOUNG_ARENA;
    return GC_COPY_NOT_CONDEMNED;
}

static GcCopyRegion *by_age(const Obj *obj, size_t bytes, uint32_t *copy_gc_word, void *ctx) {
    TwoGenerations *gens = ctx;
    uint32_t age = obj->gc_word & AGE_MASK;
    *copy_gc_word = (*copy_gc_word & ~AGE_MASK) | (age + 1);
    return age >= gens->promote_age ? &gens->old : &gens->survivor;
}

static const GcCopyPolicy generational_policy = {young_condemned, by_age};

static TwoGenerations generations(void) {
    memset(young_storage, 0, sizeof young_storage);
    memset(survivor_storage, 0, sizeof survivor_storage);
    memset(old_storage, 0, sizeof old_storage);
    memset(fx_roots, 0, sizeof fx_roots);
    return (TwoGenerations){
        .young = gc_copy_region(young_storage, sizeof young_storage, YOUNG_ARENA),
        .survivor = gc_copy_region(survivor_storage, sizeof survivor_storage, SURVIVOR_ARENA),
        .old = gc_copy_region(old_storage, sizeof old_storage, OLD_ARENA),
        .promote_age = 1,
    };
}

/* Lays a node with `value` and age `age` at the region's top, as a bump
 * allocator would. */
static Obj *place_node(GcCopyRegion *region, uint64_t value, uint32_t age) {
    Obj *node = (Obj *)region->top;
    region->top += FX_NODE_BYTES;
    cr_assert_leq(region->top, region->limit);
    node->cls = &fx_node_class;
    node->gc_word = age;
    *fx_value(node) = value;
    return node;
}

static Gc heap_with_fixture_roots(void) {
    Gc gc;
    memset(&gc, 0, sizeof gc);
    gc.config = fx_config(sizeof young_storage);
    return gc;
}

static GcCopier copier_for(TwoGenerations *gens) {
    GcCopier copier = gc_copier(gens);
    gc_copier_add_region(&copier, &gens->survivor);
    gc_copier_add_region(&copier, &gens->old);
    /* Objects already in the old region are not grey. */
    gens->old.scan = gens->old.top;
    return copier;
}

Test(copy, forwarding_lives_in_the_old_header) {
    TwoGenerations gens = generations();
    Obj *obj = place_node(&gens.young, 1, 5);
    Obj *copy = place_node(&gens.survivor, 1, 5);
    cr_assert(!gc_is_forwarded(obj));
    cr_assert_eq(gc_copy_any_size(obj), FX_NODE_BYTES);
    gc_set_forwarding(obj, copy);
    cr_assert(gc_is_forwarded(obj));
    cr_assert_eq(gc_forwarding_address(obj), copy);
    cr_assert_eq(obj->gc_word & AGE_MASK, 5, "the collector's bits are kept");
    cr_assert_eq(gc_copy_any_size(obj), FX_NODE_BYTES, "a forwarded object is as big as its copy");
}

Test(copy, copies_reachable_young_objects_and_leaves_old_ones_alone) {
    fx_record_events();
    TwoGenerations gens = generations();
    Obj *tenured = place_node(&gens.old, 100, 3);
    Obj *a = place_node(&gens.young, 1, 0);
    Obj *garbage = place_node(&gens.young, 2, 0);
    Obj *b = place_node(&gens.young, 3, 0);
    *fx_left(a) = b;
    *fx_right(a) = tenured;
    *fx_left(tenured) = NULL;
    fx_roots[0] = a;
    fx_roots[1] = tenured;

    Gc gc = heap_with_fixture_roots();
    GcCopier copier = copier_for(&gens);
    gc_copy_reachable(&gc, &copier, &generational_policy);

    cr_assert_eq(copier.objects_copied, 2);
    cr_assert_eq(copier.bytes_copied, 2 * FX_NODE_BYTES);
    Obj *a2 = fx_roots[0];
    cr_assert_eq((uint8_t *)a2, gens.survivor.start, "a was copied first");
    cr_assert_eq(fx_roots[1], tenured, "an object that is not condemned stays");
    cr_assert_eq(*fx_value(a2), 1);
    cr_assert_eq(*fx_right(a2), tenured);
    Obj *b2 = *fx_left(a2);
    cr_assert_eq((uint8_t *)b2, gens.survivor.start + FX_NODE_BYTES);
    cr_assert_eq(*fx_value(b2), 3);
    cr_assert_eq(a2->gc_word, 1, "the policy counted an age");
    cr_assert(gc_is_forwarded(a) && gc_forwarding_address(a) == a2);
    cr_assert(gc_is_forwarded(b) && gc_forwarding_address(b) == b2);
    cr_assert(!gc_is_forwarded(garbage), "garbage is never touched");
    cr_assert_eq(gens.survivor.scan, gens.survivor.top, "nothing left grey");

    cr_assert_eq(fx_num_events, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(fx_events[i].type, VMPI_EVENT_OBJECT_MOVE);
        cr_assert_eq(fx_events[i].arena_id, YOUNG_ARENA);
        cr_assert_eq(fx_events[i].new_arena_id, SURVIVOR_ARENA);
    }
    cr_assert_eq(fx_events[0].obj_id, a);
    cr_assert_eq(fx_events[0].new_obj_id, a2);
    cr_assert_eq(fx_events[1].obj_id, b);
    cr_assert_eq(fx_events[1].new_obj_id, b2);
}

Test(copy, the_policy_promotes_by_age_and_every_region_is_scanned) {
    fx_record_events();
    TwoGenerations gens = generations();
    /* young0 (age 0) -> elder (age 1) -> young1 (age 0): the chain crosses
     * regions, so scanning the old region must copy into the survivor one. */
    Obj *young0 = place_node(&gens.young, 1, 0);
    Obj *elder = place_node(&gens.young, 2, 1);
    Obj *young1 = place_node(&gens.young, 3, 0);
    *fx_left(young0) = elder;
    *fx_left(elder) = young1;
    fx_roots[0] = young0;

    Gc gc = heap_with_fixture_roots();
    GcCopier copier = copier_for(&gens);
    gc_copy_reachable(&gc, &copier, &generational_policy);

    cr_assert_eq(copier.objects_copied, 3);
    Obj *y0 = fx_roots[0];
    Obj *e = *fx_left(y0);
    Obj *y1 = *fx_left(e);
    cr_assert_eq((uint8_t *)y0, gens.survivor.start);
    cr_assert_eq((uint8_t *)e, gens.old.start, "an object of age 1 is promoted");
    cr_assert_eq((uint8_t *)y1, gens.survivor.start + FX_NODE_BYTES);
    cr_assert_eq(e->gc_word, 2);
    cr_assert_eq(*fx_value(y1), 3);
    cr_assert_eq(fx_events[1].new_arena_id, OLD_ARENA);
    cr_assert_eq(fx_events[2].new_arena_id, SURVIVOR_ARENA);
}

Test(copy, a_slot_outside_the_regions_can_be_forwarded_like_a_remembered_set) {
    TwoGenerations gens = generations();
    Obj *tenured = place_node(&gens.old, 100, 3);
    Obj *young = place_node(&gens.young, 7, 0);
    *fx_left(tenured) = young;  /* an old-to-young reference, no root */
    *fx_right(tenured) = young;

    Gc gc = heap_with_fixture_roots();
    GcCopier copier = copier_for(&gens);
    gc_copy_forward_slot(&copier, &generational_policy, fx_left(tenured));
    gc_copy_forward_slot(&copier, &generational_policy, fx_right(tenured));
    gc_copy_reachable(&gc, &copier, &generational_policy);

    cr_assert_eq(copier.objects_copied, 1, "the second slot followed the forwarding pointer");
    cr_assert_eq(*fx_left(tenured), *fx_right(tenured));
    cr_assert_eq((uint8_t *)*fx_left(tenured), gens.survivor.start);
    cr_assert_eq(*fx_value(*fx_left(tenured)), 7);
}

Test(copy, walking_a_region_skips_forwarded_objects) {
    TwoGenerations gens = generations();
    fx_roots[0] = place_node(&gens.young, 1, 0);
    place_node(&gens.young, 2, 0);
    Obj *array = (Obj *)gens.young.top;
    array->cls = &fx_array_class;
    array->length = 3;
    gens.young.top += obj_size(array);
    fx_roots[1] = array;

    GcCopier copier = copier_for(&gens);
    gc_copy_forward_slot(&copier, &generational_policy, &fx_roots[1]); /* copy the array only */

    FxHeapCount young = {0, 0, 0};
    gc_copy_walk_region(gens.young.start, gens.young.top, YOUNG_ARENA, fx_count_object, &young);
    cr_assert_eq(young.objects, 2, "the forwarded array is skipped, with its own size");
    cr_assert_eq(young.bytes, 2 * FX_NODE_BYTES);
    FxHeapCount survivor = {0, 0, 0};
    gc_copy_walk_region(gens.survivor.start, gens.survivor.top, SURVIVOR_ARENA, fx_count_object, &survivor);
    cr_assert_eq(survivor.objects, 1);
    cr_assert_eq(survivor.bytes, obj_size_for(&fx_array_class, 3));
    cr_assert_eq(survivor.arena_id, SURVIVOR_ARENA);
}

static GcCopyRegion tiny_region;

static GcCopyRegion *into_tiny_region(const Obj *obj, size_t bytes, uint32_t *copy_gc_word, void *ctx) {
    return &tiny_region;
}

static const GcCopyPolicy careless_policy = {young_condemned, into_tiny_region};

Test(copy, a_destination_without_room_is_a_collector_bug, .exit_code = GC_VERIFY_EXIT_STATUS,
     .init = cr_redirect_stderr) {
    TwoGenerations gens = generations();
    fx_roots[0] = place_node(&gens.young, 1, 0);
    tiny_region = gc_copy_region(survivor_storage, FX_NODE_BYTES - 8, SURVIVOR_ARENA);
    Gc gc = heap_with_fixture_roots();
    GcCopier copier = gc_copier(&gens);
    gc_copier_add_region(&copier, &tiny_region);
    gc_copy_reachable(&gc, &copier, &careless_policy);
    cr_assert_fail("copying into a full region must not return");
}
