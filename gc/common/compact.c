/*
 * compact.c -- sliding compaction of one region (compact.h): mark, plan,
 * update, slide.  Every pass after marking visits the survivors in address
 * order by searching the mark bitmap, never by parsing the dead objects
 * between them (except to post their OBJECT_FREE, when someone listens).
 * Mechanism events (docs/mechanism-events.md): phases "mark" (trace.h),
 * "compute-addresses" (OBJECT_FORWARDED per survivor: its planned
 * address), "update-references" and "relocate".
 */
#include "compact.h"

#include "trace.h"
#include "weak.h"

bool gc_compactor_init(GcCompactor *compactor, const GcRegion *region) {
    size_t bytes = (size_t)(region->end - region->start);
    gc_objlist_init(&compactor->mark_stack);
    compactor->phase = GC_COMPACT_IDLE;
    if (bytes > GC_REGION_MAX_BYTES) return false;
    return gc_markbits_init(&compactor->marks, region->start, bytes);
}

void gc_compactor_free(GcCompactor *compactor) {
    gc_markbits_free(&compactor->marks);
    gc_objlist_free(&compactor->mark_stack);
}

/* A compaction in progress: what the slot visitor of pass 3 needs. */
typedef struct Compacting {
    GcCompactor *compactor;
    GcRegion *region;
} Compacting;

static inline bool compact_try_mark(Obj *obj, void *ctx) {
    GcCompactor *compactor = ctx;
    return gc_markbits_try_mark(&compactor->marks, obj);
}

/* The first survivor at or after `from`, or the region's top. */
static inline uint8_t *next_survivor(const Compacting *c, const uint8_t *from) {
    return gc_markbits_next(&c->compactor->marks, from, c->region->top);
}

/* Where pass 2 planned `survivor` to go. */
static inline uint8_t *planned_address(const Compacting *c, const Obj *survivor) {
    return c->region->start + (size_t)survivor->gc_word * OBJ_ALIGN;
}

/* Posts OBJECT_FREE for each of the dead objects in [from, to), each one
 * counted as freed before its event. */
static void post_frees_between(GcCompactor *compactor, uint8_t *from, const uint8_t *to) {
    for (uint8_t *scan = from; scan < to;) {
        Obj *dead = (Obj *)scan;
        scan += obj_size(dead);
        compactor->freed_to = scan;
        gc_post_object_free_because(dead, GC_FREE_UNMARKED);
    }
}

/* Pass 2: plans every survivor's new address and posts OBJECT_FREE for
 * the dead (only if an agent listens: otherwise they are never visited).
 * Returns the new top. */
static uint8_t *plan(Compacting *c, GcCompaction *result) {
    const bool post_frees = GC_EVENT_WANTED(GC_EVENT_OBJECT_FREE);
    uint8_t *start = c->region->start, *top = c->region->top;
    uint8_t *new_top = start;
    uint8_t *scan = start;
    c->compactor->phase = GC_COMPACT_FREEING;
    c->compactor->freed_to = start;
    for (;;) {
        uint8_t *survivor = next_survivor(c, scan);
        if (post_frees) post_frees_between(c->compactor, scan, survivor);
        if (survivor == top) break;
        Obj *obj = (Obj *)survivor;
        size_t bytes = obj_size(obj);
        obj->gc_word = (uint32_t)((size_t)(new_top - start) / OBJ_ALIGN);
        gc_post_object_forwarded(obj, (const Obj *)new_top);
        new_top += bytes;
        result->live_objects++;
        scan = survivor + bytes;
    }
    c->compactor->freed_to = top;
    result->live_bytes = (uint64_t)(new_top - start);
    return new_top;
}

/* Pass 3's visitor: a slot names a survivor (the roots and the survivors
 * reach only survivors), so it takes that survivor's planned address. */
static void update_slot(Obj **slot, void *ctx) {
    const Compacting *c = ctx;
    if (*slot != NULL) *slot = (Obj *)planned_address(c, *slot);
}

/* Whether an object a weak slot names survives: marked, or outside the
 * region (which this compaction leaves alone). */
static bool survives(const Obj *obj, void *ctx) {
    const Compacting *c = ctx;
    const uint8_t *at = (const uint8_t *)obj;
    return at < c->region->start || at >= c->region->top || gc_markbits_is_marked(&c->compactor->marks, obj);
}

/* A weak slot whose object survived: moved with it, if in the region. */
static void update_weak_slot(Obj **slot, void *ctx) {
    const Compacting *c = ctx;
    const uint8_t *at = (const uint8_t *)*slot;
    if (at >= c->region->start && at < c->region->top) update_slot(slot, ctx);
}

/* Pass 3.  The VM's root slots are distinct, so none is updated twice. */
static void update_references(const Gc *gc, Compacting *c) {
    gc_visit_roots(gc, update_slot, c);
    gc_visit_weak_roots(gc, update_weak_slot, c);
    const uint8_t *top = c->region->top;
    for (uint8_t *scan = next_survivor(c, c->region->start); scan < top;) {
        Obj *obj = (Obj *)scan;
        gc_visit_ref_slots(obj, update_slot, c);
        scan = next_survivor(c, scan + obj_size(obj));
    }
}

/* Pass 4: slides each survivor down and gives it a fresh gc_word, then
 * posts OBJECT_MOVE if its address changed: in its new place before its
 * event, for gc_compact_walk_region.  A survivor's new place may overlap
 * its old one (memmove); the bitmap, not the moved bytes, says where the
 * next survivor is. */
static void slide(Compacting *c, uint32_t arena_id, uint32_t fresh_gc_word, GcCompaction *result) {
    GcCompactor *compactor = c->compactor;
    const uint8_t *top = c->region->top;
    compactor->phase = GC_COMPACT_SLIDING;
    compactor->moved_from = compactor->moved_to = c->region->start;
    for (uint8_t *scan = next_survivor(c, c->region->start); scan < top;) {
        Obj *obj = (Obj *)scan;
        size_t bytes = obj_size(obj);
        uint8_t *dest = planned_address(c, obj);
        obj->gc_word = fresh_gc_word;
        uint8_t *next = scan + bytes;
        if (dest != scan) {
            memmove(dest, scan, bytes);
            compactor->moved_from = next;
            compactor->moved_to = dest + bytes;
            gc_post_object_move(arena_id, obj, arena_id, (const Obj *)dest);
            result->moved_objects++;
            result->moved_bytes += bytes;
        }
        scan = next_survivor(c, next);
    }
    compactor->phase = GC_COMPACT_IDLE;
}

GcCompaction gc_compact_region(const Gc *gc, GcCompactor *compactor, GcRegion *region) {
    GcCompaction result = {0, 0, 0, 0};
    Compacting c = {compactor, region};
    gc_trace_mark_reachable(gc, &compactor->mark_stack, compact_try_mark, compactor);
    gc_clear_dead_weak_roots(gc, survives, &c);
    gc_post_phase_start("compute-addresses");
    uint8_t *new_top = plan(&c, &result);
    gc_post_phase_end("compute-addresses");
    gc_post_phase_start("update-references");
    update_references(gc, &c);
    gc_post_phase_end("update-references");
    gc_post_phase_start("relocate");
    slide(&c, region->arena_id, gc->fresh_gc_word, &result);
    gc_post_phase_end("relocate");
    gc_markbits_clear(&compactor->marks, region->top);
    gc_region_cut(region, new_top);
    return result;
}

/* Visits every object laid end to end in [from, to). */
static void walk_all(const uint8_t *from, const uint8_t *to, uint32_t arena_id, GcObjectVisitor visit,
                     void *ctx) {
    for (const uint8_t *scan = from; scan < to; scan += obj_size((const Obj *)scan))
        visit((Obj *)(uintptr_t)scan, arena_id, ctx);
}

/* Visits the survivors (marked objects) in [from, to). */
static void walk_survivors(const GcCompactor *compactor, const uint8_t *from, const uint8_t *to,
                           uint32_t arena_id, GcObjectVisitor visit, void *ctx) {
    for (uint8_t *scan = gc_markbits_next(&compactor->marks, from, to); scan < to;
         scan = gc_markbits_next(&compactor->marks, scan + obj_size((Obj *)scan), to))
        visit((Obj *)scan, arena_id, ctx);
}

/* Freeing: the survivors below freed_to, and every object above it.
 * Sliding: the survivors in their new places, end to end up to moved_to,
 * and those not yet moved, from moved_from up, whose headers the slide has
 * not reached. */
void gc_compact_walk_region(const GcCompactor *compactor, const GcRegion *region, const uint8_t *top,
                            GcObjectVisitor visit, void *ctx) {
    uint32_t arena_id = region->arena_id;
    switch (compactor->phase) {
    case GC_COMPACT_IDLE:
        walk_all(region->start, top, arena_id, visit, ctx);
        break;
    case GC_COMPACT_FREEING:
        walk_survivors(compactor, region->start, compactor->freed_to, arena_id, visit, ctx);
        walk_all(compactor->freed_to, top, arena_id, visit, ctx);
        break;
    case GC_COMPACT_SLIDING:
        walk_all(region->start, compactor->moved_to, arena_id, visit, ctx);
        walk_survivors(compactor, compactor->moved_from, top, arena_id, visit, ctx);
        break;
    }
}
