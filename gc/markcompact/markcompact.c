/*
 * markcompact.c -- the sliding mark-compact collector (--gc=markcompact).
 *
 * Invariant, between collections:
 *   - [heap.start, heap.top) holds exactly the allocated objects, back to
 *     back in allocation order, each with gc_word == 0; [heap.top,
 *     heap.end) is zero;
 *   - heap.limit - heap.start is the capacity (stats.capacity_bytes), sized
 *     after each collection between -Xms and --heap (gc/common/heapsize.h);
 *   - heap.top <= heap.limit, except while (or just after) an agent held
 *     collection disabled: then the slow path bumps on past the limit, as
 *     far as the region's room to grow [limit, end) reaches (region.h);
 *   - gc->alloc_region is &heap (gc_closed_region under --gc-stress).
 * Events: the VMPI patent's MARK-SWEEP-COMPACT GARBAGE COLLECTOR, in the order
 * docs/event-mapping.md gives (its markcompact section), the one place it is
 * written; tests/unit/gc_markcompact.c checks this file posts it.
 *
 * When the heap is full it is compacted in place, Lisp-2 (mark, plan,
 * update, slide: gc/common/compact.h).  Why, growth while collection is
 * disabled, the 16 GiB limit and why the event order keeps the contract:
 * docs/collectors/markcompact.md.
 */
#include <stdlib.h>

#include "gc/common/collect.h"
#include "gc/common/compact.h"
#include "gc/common/heapsize.h"
#include "gc/common/memory.h"
#include "gc/common/region.h"
#include "gc/gc.h"

#define MC_ARENA_ID 1u
/* So that the region (at most GC_REGION_MAX_BYTES) has room to grow past
 * --heap at least as large as --heap. */
#define MC_MAX_HEAP_BYTES (GC_REGION_MAX_BYTES / 2)

typedef struct MarkCompact {
    Gc gc;                   /* first, so a Gc * is a MarkCompact * */
    GcMemory memory;
    GcRegion heap;           /* the objects, from heap.start up to the top */
    GcCompactor compactor;   /* its mark bitmap and mark stack, kept between collections */
} MarkCompact;

extern const GcOps gc_markcompact_ops;

/* ---- collecting ---------------------------------------------------------- */

/* One whole collection: Lisp-2 in place (gc/common/compact.c,
 * gc_compact_region: mark, plan, update, slide), then the heap's limit
 * moved to the size the survivors and `request` call for
 * (gc/common/heapsize.h). */
static void mc_collect_call(GcCollectionCall *call) {
    MarkCompact *mc = (MarkCompact *)call->gc;
    Gc *gc = call->gc;
    size_t request = call->request;
    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, call->reason);
    GcCompaction done = gc_compact_region(gc, &mc->compactor, &mc->heap);
    gc_stats_count_survivors(&gc->stats, collection.objects_before, collection.bytes_before,
                             done.live_objects, done.live_bytes, done.moved_objects, done.moved_bytes);
    size_t ceiling = gc->config.heap_bytes; /* the region reserved at least that */
    size_t capacity = gc_heap_size_for(gc_region_budget(&mc->heap), gc_region_used(&mc->heap), request,
                                       gc_heap_floor(&gc->config, ceiling), ceiling);
    gc_region_set_budget(&mc->heap, capacity);
    gc->stats.capacity_bytes = capacity;
    gc_collection_end(gc, &collection);
}

static void mc_collect_for(MarkCompact *mc, GcReason reason, size_t request) {
    gc_run_collection(&mc->gc, mc_collect_call, reason, request, 0);
}

static void mc_collect(Gc *gc, GcReason reason) { mc_collect_for((MarkCompact *)gc, reason, 0); }

/* ---- allocating ---------------------------------------------------------- */

/* Makes room for `bytes` more above the top: collects when the budget would
 * be exceeded (or always, under --gc-stress).  False if the request cannot
 * be met. */
static bool mc_make_room(MarkCompact *mc, size_t bytes) {
    Gc *gc = &mc->gc;
    GcRegion *heap = &mc->heap;
    bool fits = gc_region_fits(heap, heap->limit, bytes);
    if (GC_LIKELY(fits && !gc->config.stress)) return true;
    /* A request larger than the maximum heap can never be met. */
    if (bytes > gc->config.heap_bytes) return false;
    /* Collection disabled: no collection, growth past the budget instead
     * (docs/collectors/markcompact.md). */
    if (gc_disabled_once_stopped(gc)) return gc_region_fits(heap, heap->end, bytes);
    mc_collect_for(mc, gc_alloc_reason(gc), bytes);
    return gc_region_fits(heap, heap->limit, bytes);
}

/* If full, collect; then bump. */
static Obj *mc_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    MarkCompact *mc = (MarkCompact *)gc;
    if (!mc_make_room(mc, bytes)) return NULL;
    return gc_region_alloc_object(gc, &mc->heap, cls, length, bytes);
}

/* ---- the heap as a whole ------------------------------------------------- */

/* Exactly the objects the event stream says are live, even from an
 * agent's event handler in the middle of a collection (compact.h). */
static void mc_walk_heap(Gc *gc, GcObjectVisitor visit, void *ctx) {
    MarkCompact *mc = (MarkCompact *)gc;
    gc_compact_walk_region(&mc->compactor, &mc->heap, mc->heap.top, visit, ctx);
}

static Gc *mc_create(const GcConfig *config) {
    if (config->heap_bytes == 0 || config->heap_bytes > MC_MAX_HEAP_BYTES) return NULL;
    MarkCompact *mc = calloc(1, sizeof *mc);
    if (mc == NULL) return NULL;
    if (!gc_memory_init(&mc->memory)) {
        free(mc);
        return NULL;
    }
    /* Its budget the initial heap; room to grow to the maximum and past
     * it while collection is disabled (region.h). */
    size_t initial = gc_heap_floor(config, config->heap_bytes);
    bool ready = gc_region_init(&mc->heap, &mc->memory, config->heap_bytes, 0, MC_ARENA_ID) &&
        gc_compactor_init(&mc->compactor, &mc->heap);
    if (!ready) {
        if (mc->heap.start != NULL) gc_region_release(&mc->heap, &mc->memory);
        gc_memory_release(&mc->memory);
        free(mc);
        return NULL;
    }
    gc_region_set_budget(&mc->heap, initial);
    Gc *gc = &mc->gc;
    gc_init(gc, &gc_markcompact_ops, config, initial);
    gc_region_open(gc, &mc->heap);
    return gc;
}

/* Frees the heap region and with it every object.  No events: the heap's
 * end is not a collection (its objects simply cease with the VM). */
static void mc_destroy(Gc *gc) {
    MarkCompact *mc = (MarkCompact *)gc;
    gc_region_release(&mc->heap, &mc->memory);
    gc_compactor_free(&mc->compactor);
    gc_memory_release(&mc->memory);
    free(mc);
}

/* ---- the collector's tables ---------------------------------------------- */

static const GcArenaInfo mc_arenas[] = {{MC_ARENA_ID, "heap"}};

static const GcConstraints mc_constraints = {
    .name = "markcompact",
    .description = "mark-compact: live objects slide down in allocation order; bump allocation",
    .moves_objects = true,
    .barrier = GC_BARRIER_NONE,
    .num_arenas = 1,
    .arenas = mc_arenas,
};

const GcOps gc_markcompact_ops = {
    .constraints = &mc_constraints,
    .create = mc_create,
    .destroy = mc_destroy,
    .alloc_slow = mc_alloc_slow,
    .write_barrier = gc_store_without_barrier,
    .collect = mc_collect,
    .walk_heap = mc_walk_heap,
};
