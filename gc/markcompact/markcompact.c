/*
 * markcompact.c -- the sliding mark-compact collector (--gc=markcompact).
 *
 * The algorithm (VMPI patent, /work/shared/spec/vmpi-patent-and-jvmpi-1.2.md,
 * "MARK-SWEEP-COMPACT GARBAGE COLLECTOR", the "sliding" scheme): the heap is
 * one contiguous region (gc/common/region.h) filled from the bottom by a
 * bump pointer, so gc_alloc's inline fast path serves almost every
 * allocation.  When the region is full the program is suspended and the
 * collector compacts it in place (gc/common/compact.h, the Lisp-2
 * algorithm):
 *
 *   1. marks    every object reachable from the roots, into a side bitmap;
 *   2. plans    in address order, gives each survivor its new address --
 *               the sum of the sizes of the survivors below it -- and frees
 *               each dead object;
 *   3. updates  every root slot and every reference slot of every survivor
 *               to the new address of its referent;
 *   4. slides   the survivors down to their new addresses (memmove), in
 *               address order, and zero-fills the space given back above
 *               the last one (the fast path does not clear memory).
 *
 * Survivors keep their allocation order, and afterwards the free space is
 * one block at the top, so allocation goes on bumping.  Passes 2 to 4 step
 * from survivor to survivor through the bitmap, so each costs the survivors
 * plus heap size / 512, whatever the number of dead objects; only when an
 * agent has enabled OBJECT_FREE does pass 2 visit each dead object, to post
 * its event.  The number and bytes of the dead are the heap's before the
 * collection minus the survivors'.
 *
 * The header's gc_word is 0 (gc->fresh_gc_word) between collections; the
 * compactor keeps a survivor's planned address there, as 32 bits of
 * OBJ_ALIGN units, which address a region of 32 GiB: the --heap budget plus
 * an equal reserve (below), so --heap may be at most MC_MAX_HEAP_BYTES,
 * 16 GiB, and create refuses more.
 *
 * Collection disabled (VMPI DisableGC).  An agent holds object IDs and
 * expects them to stay valid, so nothing may move or be freed; failing the
 * allocation would make the program run out of memory only because it is
 * profiled.  So the region has a reserve as large as the budget past its
 * limit, and while collection is disabled allocation may dip into it; the
 * first collection after EnableGC brings the heap back within budget (or
 * reports it out of memory, as any heap whose live data exceed --heap).
 *
 * Invariants, between collections:
 *   - [heap.start, top) holds exactly the allocated objects, back to back in
 *     allocation order, each with gc_word == 0; [top, heap.end) is zero
 *     (top is gc->bump_ptr while the fast path is on, see region.h);
 *   - used_objects / used_bytes count them (brought up to date from the
 *     fast path's counters at every entry into the collector); total_bytes
 *     is max(heap_bytes, used_bytes);
 *   - top <= heap.limit, except while the VM has disabled collection.
 *
 * Events (DESIGN.md, mapping table, markcompact row): ARENA_NEW for the one
 * arena (MC_ARENA_ID, "heap") when the heap is created; OBJECT_ALLOC per
 * allocation; within GC_START .. GC_FINISH (gc/common/collect.h), first one
 * OBJECT_FREE per dead object (pass 2), then one OBJECT_MOVE(MC_ARENA_ID,
 * old, MC_ARENA_ID, new) per survivor whose address changes, in address
 * order (pass 4); none for a survivor that stays where it is.
 *
 * Why this order keeps the contract (event-stream rules 1 and 3: an
 * OBJECT_MOVE takes a defined ID to one not defined in the arena).  After
 * the frees, the defined IDs are exactly the survivors' old addresses.
 * Take the survivors in address order, o_1 < o_2 < ..., with new addresses
 * n_1 < n_2 < ..., where n_i <= o_i (sliding only goes down) and n_i + size_i
 * <= n_(i+1).  When o_i's move is posted, o_1 .. o_(i-1) have already moved
 * to n_1 .. n_(i-1), all below n_i, and o_(i+1), ... still lie above o_i,
 * hence above n_i; o_i itself moves, so n_i < o_i.  So n_i is defined
 * nowhere: at worst it is the old ID of a freed object or of a survivor that
 * has already moved, both undefined by then.
 */
#include <stdlib.h>

#include "../common/collect.h"
#include "../common/compact.h"
#include "../common/memory.h"
#include "../common/region.h"
#include "../gc.h"

#define MC_ARENA_ID 1u
/* The region is twice --heap (budget + reserve). */
#define MC_MAX_HEAP_BYTES (GC_COMPACT_MAX_REGION_BYTES / 2)

typedef struct MarkCompact {
    Gc gc;                   /* first, so a Gc * is a MarkCompact * */
    GcMemory memory;
    GcRegion heap;           /* the objects, from heap.start up to the top */
    GcCompactor compactor;   /* its mark bitmap and mark stack, kept between collections */
} MarkCompact;

extern const GcOps gc_markcompact_ops;

/* ---- collecting ---------------------------------------------------------- */

/* One whole collection: Lisp-2 in place (gc/common/compact.c,
 * gc_compact_region: mark, plan, update, slide). */
static void mc_collect(Gc *gc, GcReason reason) {
    MarkCompact *mc = (MarkCompact *)gc;
    GcCollection collection = gc_collection_begin(gc, GC_COLLECTION_MAJOR, reason);
    GcCompaction done = gc_compact_region(gc, &mc->compactor, &mc->heap);
    gc_stats_count_survivors(&gc->stats, collection.objects_before, collection.bytes_before, done.live_objects,
                             done.live_bytes, done.moved_objects, done.moved_bytes);
    gc_collection_end(gc, &collection);
}

/* ---- allocating ---------------------------------------------------------- */

/* Makes room for `bytes` more above the top: collects when the budget would
 * be exceeded (or always, under --gc-stress).  False if the request cannot
 * be met. */
static bool mc_make_room(MarkCompact *mc, size_t bytes) {
    Gc *gc = &mc->gc;
    GcRegion *heap = &mc->heap;
    bool fits = gc_region_fits(heap, heap->limit, bytes);
    if (GC_LIKELY(fits && !gc->config.stress)) return true;
    /* A request larger than the whole heap can never be met. */
    if (bytes > gc->config.heap_bytes) return false;
    /* Collection disabled: no collection, the reserve instead (see top). */
    if (gc->disabled_depth > 0) return gc_region_fits(heap, heap->end, bytes);
    mc_collect(gc, gc_alloc_reason(gc));
    return gc_region_fits(heap, heap->limit, bytes);
}

/* If full, collect; then bump. */
static Obj *mc_alloc_slow(Gc *gc, const RtClass *cls, uint32_t length, size_t bytes) {
    MarkCompact *mc = (MarkCompact *)gc;
    if (!mc_make_room(mc, bytes)) return NULL;
    return gc_region_alloc_object(gc, &mc->heap, cls, length, bytes);
}

/* ---- the heap as a whole ------------------------------------------------ */

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
    /* The reserve for disabled collection is as large as the budget. */
    bool ready = gc_region_init(&mc->heap, &mc->memory, config->heap_bytes, config->heap_bytes, MC_ARENA_ID) &&
                 gc_compactor_init(&mc->compactor, &mc->heap);
    if (!ready) {
        if (mc->heap.start != NULL) gc_region_release(&mc->heap, &mc->memory);
        gc_memory_release(&mc->memory);
        free(mc);
        return NULL;
    }
    Gc *gc = &mc->gc;
    gc_init(gc, &gc_markcompact_ops, config, config->heap_bytes);
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
