/*
 * semispace.c -- the two-space copying collector (--gc=semispace).
 *
 * Invariant, between collections:
 *   - from-space [start, top) holds exactly the allocated objects, back to
 *     back, none forwarded, each with gc_word == 0; to-space is empty;
 *   - free space is zero: to-space entirely, from-space from top to end;
 *   - from-space's top <= its limit, except while (or just after) an agent
 *     held collection disabled: then the slow path bumps on past the limit,
 *     as far as the space's room to grow (region.h) reaches;
 *   - both spaces have the same budget, the capacity, sized after each
 *     collection between half of -Xms and half of --heap
 *     (gc/common/heapsize.h);
 *   - both spaces have the same end - start, so to-space can always take
 *     everything from-space holds, grown part included;
 *   - gc->alloc_region is from-space (gc_closed_region under --gc-stress).
 * Events: the VMPI patent's TWO-SPACE-COPYING GARBAGE COLLECTOR, in the order
 * docs/event-mapping.md gives (its semispace section), the one place it is
 * written; tests/unit/gc_semispace.c checks this file posts it.
 * Mechanism events (docs/mechanism-events.md): phases "flip" and "scan"
 * (gc/common/copy.h).
 *
 * When from-space is full the survivors are copied to to-space (Cheney:
 * gc/common/copy.h) and the spaces swap roles.  Storage, forwarding,
 * zeroing and growth while collection is disabled:
 * docs/collectors/semispace.md.
 */
#include <stdlib.h>

#include "gc/common/collect.h"
#include "gc/common/copy.h"
#include "gc/common/heapsize.h"
#include "gc/common/memory.h"
#include "gc/common/region.h"
#include "gc/gc.h"

#define SS_ARENA_A 1u
#define SS_ARENA_B 2u

typedef struct SemiSpace {
    Gc gc;                      /* first, so a Gc * is a SemiSpace * */
    GcMemory memory;
    GcRegion spaces[2];         /* both with the same budget, the capacity */
    unsigned from;              /* spaces[from] is from-space, spaces[1 - from] to-space */
    size_t semispace_bytes;     /* the most a space may hold: half of --heap */
    GcCopyRegion *copying_into; /* to-space while a collection copies, else NULL */
} SemiSpace;

extern const GcOps gc_semispace_ops;

/* ss_arenas[i] describes spaces[i]. */
static const GcArenaInfo ss_arenas[] = {{SS_ARENA_A, "semispace-A"}, {SS_ARENA_B, "semispace-B"}};

static inline GcRegion *ss_from_space(SemiSpace *ss) { return &ss->spaces[ss->from]; }

/* ---- copying ------------------------------------------------------------- */

/* Everything that is not already in to-space is in from-space, so it is
 * condemned. */
static inline uint32_t ss_condemned_arena(const Obj *obj, void *ctx) {
    const SemiSpace *ss = ctx;
    const GcCopyRegion *to = ss->copying_into;
    if ((uintptr_t)obj - (uintptr_t)to->start < (uintptr_t)(to->limit - to->start))
        return GC_COPY_NOT_CONDEMNED;
    return ss->spaces[ss->from].arena_id;
}

static inline GcCopyRegion *ss_destination(const Obj *obj, size_t bytes, uint32_t *copy_gc_word,
                                           void *ctx) {
    return ((SemiSpace *)ctx)->copying_into;
}

static const GcCopyPolicy ss_copy_policy = {
    .condemned_arena = ss_condemned_arena,
    .destination = ss_destination,
};

/* ---- collecting ---------------------------------------------------------- */

/* Sizes both spaces for the survivors and `request` (gc/common/heapsize.h):
 * each gets the new capacity as its budget, before the emptied one is cut,
 * so that its pages past the new limit go back to the system. */
static void ss_resize(SemiSpace *ss, size_t request) {
    Gc *gc = &ss->gc;
    size_t capacity = gc_heap_size_for(gc_region_budget(ss_from_space(ss)), (size_t)gc_used_bytes(gc), request,
                                       gc_heap_floor(&gc->config, ss->semispace_bytes), ss->semispace_bytes);
    for (unsigned i = 0; i < 2; i++) gc_region_set_budget(&ss->spaces[i], capacity);
    gc->stats.capacity_bytes = capacity;
}

/* One whole collection: copies every reachable object into to-space, then
 * flips -- to-space becomes from-space, the spaces are sized for the
 * survivors, and the old from-space is deleted as an arena, zeroed where it
 * was used and created anew. */
static void ss_collect_call(GcCollectionCall *call) {
    SemiSpace *ss = (SemiSpace *)call->gc;
    Gc *gc = call->gc;
    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, call->reason);
    unsigned emptied = ss->from, filled = 1 - emptied;
    GcRegion *to = &ss->spaces[filled];
    GcCopyRegion into = gc_copy_region(to->start, (size_t)(to->end - to->start), to->arena_id);
    ss->copying_into = &into;
    GcCopier copier = gc_copier(ss);
    gc_copier_add_region(&copier, &into);
    /* Cheney's scan: gc/common/copy.h, gc_copy_reachable. */
    gc_copy_reachable(gc, &copier, &ss_copy_policy);

    to->top = into.top;
    ss->from = filled;
    ss->copying_into = NULL;
    /* Every survivor was copied. */
    gc_stats_count_survivors(&gc->stats, collection.objects_before, collection.bytes_before,
                             copier.objects_copied, copier.bytes_copied, copier.objects_copied,
                             copier.bytes_copied);
    ss_resize(ss, call->request);
    gc_region_renew(&ss->spaces[emptied], ss_arenas[emptied].name);
    gc_region_open(gc, to);
    gc_collection_end(gc, &collection);
}

static void ss_collect_for(SemiSpace *ss, GcReason reason, size_t request) {
    gc_run_collection(&ss->gc, ss_collect_call, reason, request, 0);
}

static void ss_collect(Gc *gc, GcReason reason) { ss_collect_for((SemiSpace *)gc, reason, 0); }

/* ---- allocating ---------------------------------------------------------- */

/* Makes room for `bytes` more in from-space: collects when its budget is
 * spent (or always, under --gc-stress).  False if the request cannot be
 * met. */
static bool ss_make_room(SemiSpace *ss, size_t bytes) {
    Gc *gc = &ss->gc;
    GcRegion *from = ss_from_space(ss);
    bool fits = gc_region_fits(from, from->limit, bytes);
    if (GC_LIKELY(fits && !gc->config.stress)) return true;
    /* A request larger than a semispace of the maximum heap can never be met. */
    if (bytes > ss->semispace_bytes) return false;
    /* Collection disabled: no collection, growth past the budget instead
     * (docs/collectors/semispace.md). */
    if (gc_disabled_once_stopped(gc)) return gc_region_fits(from, from->end, bytes);
    ss_collect_for(ss, gc_alloc_reason(gc), bytes);
    from = ss_from_space(ss);
    return gc_region_fits(from, from->limit, bytes);
}

/* If full, collect; then bump. */
static Obj *ss_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    SemiSpace *ss = (SemiSpace *)gc;
    if (!ss_make_room(ss, bytes)) return NULL;
    return gc_region_alloc_object(gc, ss_from_space(ss), cls, length, bytes);
}

/* ---- the heap as a whole ------------------------------------------------- */

/* Also exact in the middle of a collection (an agent handling OBJECT_MOVE
 * may ask about objects): from-space's forwarded objects are skipped and
 * the copies made so far are visited in to-space instead. */
static void ss_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    SemiSpace *ss = (SemiSpace *)gc;
    const GcCopyRegion *to = ss->copying_into;
    const GcRegion *from = ss_from_space(ss);
    gc_copy_walk_region(from->start, from->top, from->arena_id, visit, ctx);
    if (to != NULL) gc_copy_walk_region(to->start, to->top, to->arena_id, visit, ctx);
}

/* Outside a collection every object is in from-space. */
static uint32_t ss_arena_of(Gc *gc, const Obj *obj) {
    (void)obj;
    return ss_from_space((SemiSpace *)gc)->arena_id;
}

static Gc *ss_create(const GcConfig *config) {
    size_t semispace_bytes = config->heap_bytes / 2 & ~(size_t)(OBJ_ALIGN - 1);
    SemiSpace *ss = calloc(1, sizeof *ss);
    if (ss == NULL) return NULL;
    if (!gc_memory_init(&ss->memory)) {
        free(ss);
        return NULL;
    }
    /* Both with room to grow, the same room (docs/collectors/semispace.md). */
    bool have_spaces = gc_region_init(&ss->spaces[0], &ss->memory, semispace_bytes, 0, SS_ARENA_A);
    if (have_spaces && !gc_region_init(&ss->spaces[1], &ss->memory, semispace_bytes, 0, SS_ARENA_B)) {
        gc_region_release(&ss->spaces[0], &ss->memory);
        have_spaces = false;
    }
    if (have_spaces) {
        size_t room0 = (size_t)(ss->spaces[0].end - ss->spaces[0].start);
        size_t room1 = (size_t)(ss->spaces[1].end - ss->spaces[1].start);
        gc_region_shrink(&ss->spaces[room0 > room1 ? 0 : 1], &ss->memory, room0 < room1 ? room0 : room1);
    }
    if (!have_spaces) { /* also for a heap too small for one word per semispace */
        gc_memory_release(&ss->memory);
        free(ss);
        return NULL;
    }
    Gc *gc = &ss->gc;
    ss->semispace_bytes = semispace_bytes;
    size_t initial = gc_heap_floor(config, semispace_bytes);
    for (unsigned i = 0; i < 2; i++) gc_region_set_budget(&ss->spaces[i], initial);
    gc_init(gc, &gc_semispace_ops, config, initial);
    gc_region_open(gc, ss_from_space(ss));
    return gc;
}

/* Frees both semispaces and the heap itself.  No events: the heap's end is
 * not a collection (its objects simply cease with the VM). */
static void ss_destroy(Gc *gc) {
    SemiSpace *ss = (SemiSpace *)gc;
    for (unsigned i = 0; i < 2; i++) gc_region_release(&ss->spaces[i], &ss->memory);
    gc_memory_release(&ss->memory);
    free(ss);
}

/* ---- the collector's tables ---------------------------------------------- */

static const GcConstraints ss_constraints = {
    .name = "semispace",
    .description = "two-space copying: survivors are copied to the other half of the heap",
    .moves_objects = true,
    .barrier = GC_BARRIER_NONE,
    .num_arenas = 2,
    .arenas = ss_arenas,
};

const GcOps gc_semispace_ops = {
    .constraints = &ss_constraints,
    .create = ss_create,
    .destroy = ss_destroy,
    .alloc_slow = ss_alloc_slow,
    .write_barrier = gc_store_without_barrier,
    .collect = ss_collect,
    .walk_heap = ss_walk_heap,
    .arena_of = ss_arena_of,
};
